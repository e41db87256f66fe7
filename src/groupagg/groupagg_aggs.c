/*
 * groupagg_aggs.c
 *	  Which aggregates the grouped scan computes and how: the one
 *	  classification of an Aggref that the planner (groupagg_plan.c) and
 *	  the sink (groupagg_exec.c) share, so both agree on every aggregate,
 *	  and the memory one group of them takes.
 */
#include "postgres.h"

#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "column_form.h"
#include "device.h"
#include "groupagg_internal.h"
#include "order_keys.h"
#include "percentile_builtins.h"
#include "qual_compile.h"

/* The one input expression of an Aggref, or NULL. */
Expr *
GroupAggAggrefInput(Aggref *agg)
{
	if (list_length(agg->args) != 1)
		return NULL;
	return linitial_node(TargetEntry, agg->args)->expr;
}

/* Whether a fraction is NULL or in [0, 1]; false for NaN. */
static bool
fraction_valid(Datum value, bool isnull)
{
	float8		f = isnull ? 0 : DatumGetFloat8(value);

	return f >= 0 && f <= 1;
}

/*
 * Whether every fraction of a constant float8 or float8[] direct argument
 * is valid.  PostgreSQL raises for an invalid one as it finalizes the first
 * group, after reading only that group's rows in its sorted plan, before
 * errors that later rows would raise: such a query keeps PostgreSQL's plan.
 */
bool
GroupAggFractionsValid(Const *fraction)
{
	ArrayType  *array;
	Datum	   *values;
	bool	   *nulls;
	int			n;

	if (fraction->constisnull)
		return true;
	if (fraction->consttype == FLOAT8OID)
		return fraction_valid(fraction->constvalue, false);
	array = DatumGetArrayTypeP(fraction->constvalue);
	deconstruct_array(array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &values, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!fraction_valid(values[i], nulls[i]))
			return false;
	return true;
}

/*
 * Classifies an aggregate the sink computes; false for every other.  For
 * percentiles, *descending says whether the ORDER BY is the type's '>'.
 * Shared by the planner and the executor, so both agree on every Aggref.
 */
bool
GpuselGroupAggClassify(Aggref *agg, GroupAggKind *kind, bool *descending)
{
	*descending = false;
	if (agg->aggfilter != NULL || agg->aggdistinct != NIL || agg->agglevelsup != 0 ||
		agg->aggsplit != AGGSPLIT_SIMPLE || agg->aggvariadic)
		return false;

	if (agg->aggkind == AGGKIND_ORDERED_SET)
	{
		Expr	   *input = GroupAggAggrefInput(agg);
		Node	   *direct;
		SortGroupClause *sortcl;
		TypeCacheEntry *tc;
		Oid			typid;
		bool		continuous;
		bool		numeric_input = false;
		int			numeric_scale;
		const KeptValueType *kept = NULL;

		if (input == NULL || list_length(agg->aggorder) != 1 ||
			list_length(agg->aggdirectargs) != 1)
			return false;
		direct = linitial(agg->aggdirectargs);
		if (!IsA(direct, Const) ||
			(((Const *) direct)->consttype != FLOAT8OID &&
			 ((Const *) direct)->consttype != FLOAT8ARRAYOID) ||
			!GroupAggFractionsValid((Const *) direct))
			return false;
		typid = exprType((Node *) input);
		if (IsA(input, Var) &&
			(GpuselNumericScale(typid, ((Var *) input)->vartypmod, &numeric_scale) ||
			 GroupAggBigKeyScale(typid, ((Var *) input)->vartypmod, &numeric_scale)))
			numeric_input = true;	/* its keys are its values as scaled int8 (groupagg_bigkeys.c) */
		else if (KeptValueTypeLookup(typid) != NULL)
			kept = KeptValueTypeLookup(typid);	/* kept whole (kept_values.c) */
		else if (KeyTypeLookup(typid) == NULL || !GpuselTypeIsDeviceable(typid, NULL))
			return false;
		sortcl = linitial_node(SortGroupClause, agg->aggorder);
		tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		if (sortcl->sortop == tc->gt_opr)
			*descending = true;
		else if (sortcl->sortop != tc->lt_opr)
			return false;
		if (!GpuselIsPercentileAggregate(agg->aggfnoid, &continuous) ||
			(continuous && !(typid == FLOAT8OID || (kept != NULL && kept->continuous))) ||
			(continuous && numeric_input))
			return false;
		*kind = continuous ? GROUPAGG_PERCENTILE_CONT : GROUPAGG_PERCENTILE_DISC;
		return true;
	}
	if (agg->aggkind != AGGKIND_NORMAL || agg->aggorder != NIL)
		return false;

	switch (agg->aggfnoid)
	{
		case F_COUNT_:
			*kind = GROUPAGG_COUNT_STAR;
			return true;
		case F_COUNT_ANY:
			*kind = GROUPAGG_COUNT;
			break;
		case F_SUM_INT2:
		case F_SUM_INT4:
			*kind = GROUPAGG_SUM_INT;
			break;
		case F_SUM_INT8:
			*kind = GROUPAGG_SUM_INT8;
			break;
		case F_SUM_FLOAT4:
			*kind = GROUPAGG_SUM_FLOAT4;
			break;
		case F_SUM_FLOAT8:
			*kind = GROUPAGG_SUM_FLOAT8;
			break;
		case F_AVG_INT2:
		case F_AVG_INT4:
		case F_AVG_INT8:
			*kind = GROUPAGG_AVG_INT;
			break;
		case F_AVG_FLOAT4:
		case F_AVG_FLOAT8:
			*kind = GROUPAGG_AVG_FLOAT;
			break;
		case F_SUM_NUMERIC:
		case F_AVG_NUMERIC:
			/* exact for any input: in 256 bits, or as a numeric past them (groupagg_numeric.c) */
			*kind = agg->aggfnoid == F_SUM_NUMERIC ? GROUPAGG_SUM_NUMERIC : GROUPAGG_AVG_NUMERIC;
			return GroupAggAggrefInput(agg) != NULL;
		case F_MIN_NUMERIC:
		case F_MAX_NUMERIC:
			{
				/*
				 * over a numeric column: numeric(p,s) read as scaled int8 (its
				 * keys order its values), any other compared as numerics
				 */
				Expr	   *input = GroupAggAggrefInput(agg);

				*kind = agg->aggfnoid == F_MIN_NUMERIC ? GROUPAGG_MIN : GROUPAGG_MAX;
				return input != NULL && IsA(input, Var) && ((Var *) input)->varattno > 0;
			}
		case F_MIN_INT2:
		case F_MIN_INT4:
		case F_MIN_INT8:
		case F_MIN_FLOAT4:
		case F_MIN_FLOAT8:
		case F_MIN_DATE:
		case F_MIN_TIMESTAMP:
		case F_MIN_TIMESTAMPTZ:
			*kind = GROUPAGG_MIN;
			break;
		case F_MAX_INT2:
		case F_MAX_INT4:
		case F_MAX_INT8:
		case F_MAX_FLOAT4:
		case F_MAX_FLOAT8:
		case F_MAX_DATE:
		case F_MAX_TIMESTAMP:
		case F_MAX_TIMESTAMPTZ:
			*kind = GROUPAGG_MAX;
			break;
		default:
			return false;
	}
	/* count(x) reads any type; the others are typed by their OID */
	return GroupAggAggrefInput(agg) != NULL &&
		(*kind == GROUPAGG_COUNT ||
		 GpuselTypeIsDeviceable(exprType((Node *) GroupAggAggrefInput(agg)), NULL));
}

/*
 * The memory one group takes: its hash, key bits, values and NULL flags,
 * bucket, aggregate cells and, per percentile collection, its count and
 * zero flags.  The planner compares the estimated groups' with hash_mem.
 */
Size
GroupAggGroupBytes(int nkeys, int naggs, int ncollections)
{
	return sizeof(uint64) * 2 +
		(sizeof(uint64) + sizeof(Datum) + sizeof(bool)) * nkeys +
		sizeof(GroupCell) * naggs +
		(sizeof(int64) + sizeof(uint8)) * ncollections;
}

/*
 * The encoded form in which a column goes into groups (numeric(p,s) as
 * scaled int8, short char(n) packed, a dictionary's numbers for keys
 * only); false when it goes as its plain values, if at all.
 */
bool
GroupAggColumnForm(const Var *var, bool is_key, GpuselFormChoice *choice)
{
	return GpuselChooseForm(var->vartype, var->vartypmod, var->varcollid, GPUSEL_USE_GROUP, 0,
							choice) && choice->form != GPUSEL_FORM_PLAIN &&
		(!GpuselFormLookup(choice->form)->dictionary || is_key);
}

/*
 * Whether an input of the grouped scan (a key when is_key) reaches the
 * groups as a batch's columns, as the sink decides it (groupagg_exec.c):
 * a column in a form groups take (a dictionary form for keys only), a
 * column of a type the batch holds as it is, or an expression over
 * columns that expressions read from a batch.  The planner asks it too,
 * so that it puts under Gather only scans whose workers read columns.
 */
bool
GroupAggInputColumnar(Expr *expr, bool is_key)
{
	List	   *vars;
	ListCell   *lc;

	if (IsA(expr, Var) && ((Var *) expr)->varattno > 0)
	{
		Var		   *var = (Var *) expr;
		GpuselFormChoice choice;
		gs_coltype	coltype;

		if (GroupAggColumnForm(var, is_key, &choice))
			return true;
		/* a numeric column without such a form is read as an expression */
		if (var->vartype != NUMERICOID)
			return GpuselTypeIsDeviceable(var->vartype, &coltype);
	}
	vars = pull_var_clause((Node *) expr, 0);
	foreach(lc, vars)
	{
		Var		   *var = lfirst_node(Var, lc);
		GpuselFormChoice choice;

		if (var->varattno <= 0 ||
			!GpuselChooseForm(var->vartype, var->vartypmod, var->varcollid, GPUSEL_USE_EXPR, 0,
							  &choice))
			return false;
	}
	return true;
}
