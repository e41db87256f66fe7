/*
 * shard_aggs.c
 *	  The aggregates a sharded plan answers: what each asks of a partition
 *	  (its partial state, as ordinary SQL), how partial states combine here
 *	  and how they become PostgreSQL's result.
 *
 * Partial states are what PostgreSQL's own aggregates return on each
 * partition: count(*), count(x), sum(x), min(x), max(x); an average is a
 * sum and a count, divided as PostgreSQL's final function divides.  The
 * percentiles are answered by rounds (shard_rounds.c, shard_exec.c).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "groupagg.h"
#include "percentile_builtins.h"
#include "shard_internal.h"

/* The built-in percentiles, which partitions answer without gpusel too. */
static const struct
{
	Oid			aggfnoid;
	bool		continuous;
}			builtin_percentiles[] = {
	{F_PERCENTILE_DISC_FLOAT8_ANYELEMENT, false},
	{F_PERCENTILE_DISC__FLOAT8_ANYELEMENT, false},
	{F_PERCENTILE_CONT_FLOAT8_FLOAT8, true},
	{F_PERCENTILE_CONT_FLOAT8_INTERVAL, true},
	{F_PERCENTILE_CONT__FLOAT8_FLOAT8, true},
	{F_PERCENTILE_CONT__FLOAT8_INTERVAL, true},
};

/* Whether an aggregate is a percentile (built-in or gpusel's), and which. */
static bool
percentile_kind(Oid aggfnoid, bool *continuous)
{
	for (int i = 0; i < lengthof(builtin_percentiles); i++)
	{
		if (builtin_percentiles[i].aggfnoid == aggfnoid)
		{
			*continuous = builtin_percentiles[i].continuous;
			return true;
		}
	}
	return GpuselIsPercentileAggregate(aggfnoid, continuous);
}

/* The one input of an aggregate (the ORDER BY of a percentile), or NULL. */
Expr *
ShardAggInput(Aggref *agg)
{
	if (agg->aggstar || list_length(agg->args) != 1)
		return NULL;
	return linitial_node(TargetEntry, agg->args)->expr;
}

/* Whether an aggregate is answered by rounds. */
bool
ShardAggIsPercentile(const ShardAggInfo *info)
{
	return info->kind == SHARD_PERCENTILE_DISC || info->kind == SHARD_PERCENTILE_CONT;
}

/* The sort operator of min or max, or InvalidOid. */
static Oid
aggregate_sortop(Oid aggfnoid)
{
	HeapTuple	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Oid			sortop;

	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	sortop = ((Form_pg_aggregate) GETSTRUCT(tuple))->aggsortop;
	ReleaseSysCache(tuple);
	return sortop;
}

/* Whether a collation is one a partition's server orders by as we do. */
static bool
collation_ok(Oid collation)
{
	return !OidIsValid(collation) || collation == DEFAULT_COLLATION_OID;
}

/*
 * Classifies an aggregate a sharded plan answers; false for every other
 * (DISTINCT, FILTER, ORDER BY inside an ordinary aggregate, other
 * aggregates, a percentile of a fraction that is not a valid constant).
 */
bool
ShardAggClassify(Aggref *agg, ShardAggInfo *info)
{
	Expr	   *input = ShardAggInput(agg);
	TypeCacheEntry *tc;
	bool		continuous;

	memset(info, 0, sizeof(*info));
	if (agg->aggfilter != NULL || agg->aggdistinct != NIL || agg->agglevelsup != 0 ||
		agg->aggsplit != AGGSPLIT_SIMPLE || agg->aggvariadic || !collation_ok(agg->inputcollid))
		return false;
	info->result_type = agg->aggtype;
	info->collation = agg->inputcollid;

	if (agg->aggkind == AGGKIND_ORDERED_SET)
	{
		SortGroupClause *sortcl;
		Node	   *direct;

		if (input == NULL || list_length(agg->aggorder) != 1 ||
			list_length(agg->aggdirectargs) != 1 || !percentile_kind(agg->aggfnoid, &continuous))
			return false;
		direct = linitial(agg->aggdirectargs);
		if (!IsA(direct, Const) ||
			(((Const *) direct)->consttype != FLOAT8OID &&
			 ((Const *) direct)->consttype != FLOAT8ARRAYOID) ||
			!GroupAggFractionsValid((Const *) direct))
			return false;
		info->input_type = exprType((Node *) input);
		if (continuous && info->input_type != FLOAT8OID && info->input_type != INTERVALOID)
			return false;
		tc = lookup_type_cache(info->input_type,
							   TYPECACHE_LT_OPR | TYPECACHE_GT_OPR | TYPECACHE_CMP_PROC_FINFO);
		if (!OidIsValid(tc->cmp_proc) || !OidIsValid(get_array_type(info->input_type)))
			return false;
		sortcl = linitial_node(SortGroupClause, agg->aggorder);
		if (sortcl->sortop == tc->gt_opr)
			info->descending = true;
		else if (sortcl->sortop != tc->lt_opr)
			return false;
		info->kind = continuous ? SHARD_PERCENTILE_CONT : SHARD_PERCENTILE_DISC;
		info->fraction = (Const *) direct;
		info->multi = info->fraction->consttype == FLOAT8ARRAYOID;
		return true;
	}
	if (agg->aggkind != AGGKIND_NORMAL || agg->aggorder != NIL)
		return false;
	if (input != NULL)
		info->input_type = exprType((Node *) input);

	switch (agg->aggfnoid)
	{
		case F_COUNT_:
			info->kind = SHARD_COUNT_STAR;
			return true;
		case F_COUNT_ANY:
			info->kind = SHARD_COUNT;
			return input != NULL;
		case F_SUM_INT2:
		case F_SUM_INT4:
			info->kind = SHARD_SUM;
			info->partial_type = INT8OID;
			return true;
		case F_SUM_INT8:
		case F_SUM_NUMERIC:
			info->kind = SHARD_SUM;
			info->partial_type = NUMERICOID;
			return true;
		case F_SUM_FLOAT4:
			info->kind = SHARD_SUM;
			info->partial_type = FLOAT4OID;
			return true;
		case F_SUM_FLOAT8:
			info->kind = SHARD_SUM;
			info->partial_type = FLOAT8OID;
			return true;
		case F_AVG_INT2:
		case F_AVG_INT4:
			info->kind = SHARD_AVG;
			info->partial_type = INT8OID;
			return true;
		case F_AVG_INT8:
		case F_AVG_NUMERIC:
			info->kind = SHARD_AVG;
			info->partial_type = NUMERICOID;
			return true;
		case F_AVG_FLOAT4:
		case F_AVG_FLOAT8:
			/* PostgreSQL sums float4 inputs as float8 too */
			info->kind = SHARD_AVG;
			info->partial_type = FLOAT8OID;
			return true;
		default:
			break;
	}

	/* min and max of any type with a btree order, by their sort operator */
	if (input != NULL && OidIsValid(aggregate_sortop(agg->aggfnoid)))
	{
		Oid			sortop = aggregate_sortop(agg->aggfnoid);

		tc = lookup_type_cache(info->input_type,
							   TYPECACHE_LT_OPR | TYPECACHE_GT_OPR | TYPECACHE_CMP_PROC_FINFO);
		if (!OidIsValid(tc->cmp_proc) || info->result_type != info->input_type)
			return false;
		if (sortop == tc->lt_opr)
			info->kind = SHARD_MIN;
		else if (sortop == tc->gt_opr)
			info->kind = SHARD_MAX;
		else
			return false;
		return true;
	}
	return false;
}

/* The partial state's columns a partition returns for an aggregate. */
int
ShardAggPartialColumns(const ShardAggInfo *info)
{
	switch (info->kind)
	{
		case SHARD_AVG:
			return 2;
		case SHARD_PERCENTILE_DISC:
		case SHARD_PERCENTILE_CONT:
			return 0;
		default:
			return 1;
	}
}

/* The types of those columns. */
void
ShardAggPartialTypes(const ShardAggInfo *info, Oid *types)
{
	switch (info->kind)
	{
		case SHARD_COUNT_STAR:
		case SHARD_COUNT:
			types[0] = INT8OID;
			break;
		case SHARD_SUM:
			types[0] = info->partial_type;
			break;
		case SHARD_AVG:
			types[0] = info->partial_type;
			types[1] = INT8OID;
			break;
		case SHARD_MIN:
		case SHARD_MAX:
			types[0] = info->input_type;
			break;
		case SHARD_PERCENTILE_DISC:
		case SHARD_PERCENTILE_CONT:
			break;
	}
}

/* The select-list entries of a partition's partial state, input in SQL. */
char *
ShardAggPartialSql(const ShardAggInfo *info, const char *input_sql)
{
	switch (info->kind)
	{
		case SHARD_COUNT_STAR:
			return pstrdup("count(*)");
		case SHARD_COUNT:
			return psprintf("count(%s)", input_sql);
		case SHARD_SUM:
			return psprintf("sum(%s)", input_sql);
		case SHARD_AVG:
			if (info->partial_type == FLOAT8OID && info->input_type != FLOAT8OID)
				return psprintf("sum((%s)::pg_catalog.float8), count(%s)", input_sql, input_sql);
			return psprintf("sum(%s), count(%s)", input_sql, input_sql);
		case SHARD_MIN:
			return psprintf("min(%s)", input_sql);
		case SHARD_MAX:
			return psprintf("max(%s)", input_sql);
		case SHARD_PERCENTILE_DISC:
		case SHARD_PERCENTILE_CONT:
			break;
	}
	return NULL;
}

/* Adds two partial sums of a type, as PostgreSQL's transition adds them. */
static Datum
add_sums(Oid type, Datum a, Datum b)
{
	switch (type)
	{
		case INT8OID:
			return DirectFunctionCall2(int8pl, a, b);
		case NUMERICOID:
			return DirectFunctionCall2(numeric_add, a, b);
		case FLOAT4OID:
			return DirectFunctionCall2(float4pl, a, b);
		case FLOAT8OID:
			return DirectFunctionCall2(float8pl, a, b);
	}
	elog(ERROR, "gpusel: no sum of type %u over partitions", type);
	return (Datum) 0;
}

/*
 * Folds one partition's partial state into the group's (state and isnull
 * hold the partial columns; a count starts at 0, the rest at NULL).  New
 * values are copied into the current memory context.
 */
void
ShardAggCombine(const ShardAggInfo *info, FmgrInfo *cmp, Datum *state, bool *isnull,
				const Datum *partial, const bool *partial_null)
{
	TypeCacheEntry *tc;
	int			r;

	switch (info->kind)
	{
		case SHARD_COUNT_STAR:
		case SHARD_COUNT:
			state[0] = Int64GetDatum(DatumGetInt64(state[0]) + DatumGetInt64(partial[0]));
			break;
		case SHARD_AVG:
			state[1] = Int64GetDatum(DatumGetInt64(state[1]) + DatumGetInt64(partial[1]));
			/* FALLTHROUGH */
		case SHARD_SUM:
			if (partial_null[0])
				break;
			tc = lookup_type_cache(info->partial_type, 0);
			if (isnull[0])
				state[0] = datumCopy(partial[0], tc->typbyval, tc->typlen);
			else
				state[0] = add_sums(info->partial_type, state[0], partial[0]);
			isnull[0] = false;
			break;
		case SHARD_MIN:
		case SHARD_MAX:
			if (partial_null[0])
				break;
			if (!isnull[0])
			{
				r = DatumGetInt32(FunctionCall2Coll(cmp, info->collation, partial[0], state[0]));
				if (info->kind == SHARD_MIN ? r >= 0 : r <= 0)
					break;
			}
			tc = lookup_type_cache(info->input_type, 0);
			state[0] = datumCopy(partial[0], tc->typbyval, tc->typlen);
			isnull[0] = false;
			break;
		case SHARD_PERCENTILE_DISC:
		case SHARD_PERCENTILE_CONT:
			break;
	}
}

/* The aggregate's result from the combined state. */
Datum
ShardAggFinal(const ShardAggInfo *info, const Datum *state, const bool *isnull,
			  bool *result_null)
{
	int64		count;
	Datum		sum;

	*result_null = false;
	switch (info->kind)
	{
		case SHARD_COUNT_STAR:
		case SHARD_COUNT:
			return state[0];
		case SHARD_SUM:
		case SHARD_MIN:
		case SHARD_MAX:
			*result_null = isnull[0];
			return state[0];
		case SHARD_AVG:
			count = DatumGetInt64(state[1]);
			if (count == 0 || isnull[0])
			{
				*result_null = true;
				return (Datum) 0;
			}
			/* PostgreSQL's int8_avg, numeric_avg and float8_avg divide so */
			if (info->partial_type == FLOAT8OID)
				return Float8GetDatum(DatumGetFloat8(state[0]) / (double) count);
			sum = info->partial_type == INT8OID ?
				DirectFunctionCall1(int8_numeric, state[0]) : state[0];
			return DirectFunctionCall2(numeric_div, sum,
									   DirectFunctionCall1(int8_numeric, Int64GetDatum(count)));
		case SHARD_PERCENTILE_DISC:
		case SHARD_PERCENTILE_CONT:
			break;
	}
	elog(ERROR, "gpusel: a percentile has no partial state");
	return (Datum) 0;
}
