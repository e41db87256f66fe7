/*
 * groupagg_native.c
 *	  Key and input expressions of the shape <integer column> <op>
 *	  <constant> (bucketing: k % 10000, ts_epoch / 3600, id * 10 + ...'s
 *	  first step) and date_trunc(unit, <timestamp column>) for a unit of a
 *	  day or less, computed a block of rows at a time in C, with
 *	  PostgreSQL's results, instead of through the executor one row at a
 *	  time.  A row whose operator would raise an error is handed back to
 *	  the executor, which raises it (and any earlier row's) in row order.
 *	  The grouped scan's block path (groupagg_rows.c) asks for them; every
 *	  other expression keeps its ExprState.  Also the test of which key
 *	  expressions the device computes while it groups a batch
 *	  (GroupAggDeviceKeyParse: these and date_trunc of a timestamp), which
 *	  the planner and the device grouping (groupagg_batch.c) share.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "nodes/nodeFuncs.h"
#include "parser/scansup.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"

#include "groupagg_internal.h"
#include "qual_compile.h"

/*
 * The operator and width of an operator's function: + - * / % of int4 or
 * of int8, as the device's allow-list names them; false when not taken.
 */
static bool
native_op_of(Oid funcid, gs_arith_op *op, bool *is_int8)
{
	int			kind;

	if (!GpuselArithOperator(funcid, op, &kind) || !GS_ARITH_IS_BINARY(*op) ||
		(kind != GS_VK_INT4 && kind != GS_VK_INT8))
		return false;
	*is_int8 = kind == GS_VK_INT8;
	return true;
}

/*
 * Whether expr is <column> <op> <non-NULL constant> of one integer type
 * (int4 or int8) with + - * / %: its parts, where the caller wants them.
 */
bool
GroupAggNativeExprParse(Node *expr, Var **var, int *op, bool *is_int8, int64 *constant)
{
	OpExpr	   *opexpr;
	Var		   *v;
	Const	   *cst;
	gs_arith_op o;
	bool		wide;
	Oid			type;

	if (!IsA(expr, OpExpr))
		return false;
	opexpr = (OpExpr *) expr;
	if (list_length(opexpr->args) != 2 ||
		!native_op_of(opexpr->opfuncid, &o, &wide) ||
		!IsA(linitial(opexpr->args), Var) || !IsA(lsecond(opexpr->args), Const))
		return false;
	v = linitial_node(Var, opexpr->args);
	cst = lsecond_node(Const, opexpr->args);
	type = wide ? INT8OID : INT4OID;
	if (v->vartype != type || cst->consttype != type || cst->constisnull ||
		exprType((Node *) opexpr) != type)
		return false;
	if (var != NULL)
		*var = v;
	if (op != NULL)
		*op = (int) o;
	if (is_int8 != NULL)
		*is_int8 = wide;
	if (constant != NULL)
		*constant = wide ? DatumGetInt64(cst->constvalue) : (int64) DatumGetInt32(cst->constvalue);
	return true;
}

/*
 * The microseconds a unit of date_trunc(unit, timestamp) floors to, for
 * the units a timestamp floors to alone (a day at most: weeks, months and
 * years depend on the calendar); 0 for the others.
 */
static int64
trunc_unit_usecs(Const *unit)
{
	char	   *lowunits;
	int			val;
	int			type;

	if (unit->constisnull || unit->consttype != TEXTOID)
		return 0;
	/* as timestamp_trunc reads it */
	lowunits = downcase_truncate_identifier(VARDATA_ANY(DatumGetTextPP(unit->constvalue)),
											VARSIZE_ANY_EXHDR(DatumGetTextPP(unit->constvalue)),
											false);
	type = DecodeUnits(0, lowunits, &val);
	if (type != UNITS)
		return 0;
	switch (val)
	{
		case DTK_DAY:
			return USECS_PER_DAY;
		case DTK_HOUR:
			return USECS_PER_HOUR;
		case DTK_MINUTE:
			return USECS_PER_MINUTE;
		case DTK_SECOND:
			return USECS_PER_SEC;
		case DTK_MILLISEC:
			return 1000;
		case DTK_MICROSEC:
			return 1;
		default:
			return 0;
	}
}

/*
 * Whether expr is a group key the device computes from one column (as the
 * host computes it: the same values, the same errors): <int4 or int8
 * column> <op> <constant>, or date_trunc(unit, <timestamp column>) for a
 * unit of a day or less.  Sets the column and the transform.
 */
bool
GroupAggDeviceKeyParse(Node *expr, Var **var, gs_key_transform *transform)
{
	int			op;
	bool		is_int8;
	int64		constant;

	if (GroupAggNativeExprParse(expr, var, &op, &is_int8, &constant))
	{
		transform->op = op;
		transform->is_int8 = is_int8;
		transform->constant = constant;
		return true;
	}
	if (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP &&
		list_length(((FuncExpr *) expr)->args) == 2)
	{
		Node	   *unit = linitial(((FuncExpr *) expr)->args);
		Node	   *column = lsecond(((FuncExpr *) expr)->args);
		int64		usecs;

		if (!IsA(unit, Const) || !IsA(column, Var) || ((Var *) column)->vartype != TIMESTAMPOID)
			return false;
		usecs = trunc_unit_usecs((Const *) unit);
		if (usecs == 0)
			return false;
		*var = (Var *) column;
		transform->op = GS_KEY_FLOOR;
		transform->is_int8 = 1;
		transform->constant = usecs;
		return true;
	}
	return false;
}

/*
 * Notes input 'in' as native when its expression is one the device also
 * computes (GroupAggDeviceKeyParse: <column> <op> <non-NULL constant> of
 * one integer type, or date_trunc of a timestamp to a day or less) and the
 * column is one of the sink's expression columns, held as plain int4 or
 * int8 values.
 */
void
GroupAggNativeExprInit(GroupAggSink *sink, GroupInput *in)
{
	Var		   *var;
	gs_key_transform transform;

	in->native = NULL;
	if (!GroupAggDeviceKeyParse((Node *) in->expr, &var, &transform))
		return;
	for (int e = 0; e < sink->nexprcols; e++)
	{
		if (sink->exprcol_attnos[e] != var->varattno ||
			sink->exprcol_forms[e] != GPUSEL_FORM_PLAIN ||
			sink->exprcol_types[e] != (transform.is_int8 ? GS_COL_INT8 : GS_COL_INT4))
			continue;
		in->native = palloc(sizeof(GroupNativeExpr));
		in->native->exprcol = e;
		in->native->op = transform.op;
		in->native->is_int8 = transform.is_int8;
		in->native->constant = transform.constant;
		return;
	}
}

/* a op c in int4 as int4pl .. int4mod compute it (c nonzero for / and %); false where they raise. */
static inline bool
native_int4(gs_arith_op op, int32 a, int32 c, int32 *r)
{
	switch (op)
	{
		case GS_ARITH_ADD:
			return !pg_add_s32_overflow(a, c, r);
		case GS_ARITH_SUB:
			return !pg_sub_s32_overflow(a, c, r);
		case GS_ARITH_MUL:
			return !pg_mul_s32_overflow(a, c, r);
		case GS_ARITH_DIV:
			if (c == -1)
			{
				*r = a == PG_INT32_MIN ? 0 : -a;
				return a != PG_INT32_MIN;
			}
			*r = a / c;
			return true;
		case GS_ARITH_MOD:
			*r = c == -1 ? 0 : a % c;	/* INT_MIN % -1 would trap */
			return true;
		default:
			break;
	}
	*r = 0;
	return true;
}

/*
 * a op c in int8 as int8pl .. int8mod compute it (c nonzero for / and %), or
 * date_trunc's floor (GS_KEY_FLOOR); false where they raise.
 */
static inline bool
native_int8(int op, int64 a, int64 c, int64 *r)
{
	switch (op)
	{
		case GS_ARITH_ADD:
			return !pg_add_s64_overflow(a, c, r);
		case GS_ARITH_SUB:
			return !pg_sub_s64_overflow(a, c, r);
		case GS_ARITH_MUL:
			return !pg_mul_s64_overflow(a, c, r);
		case GS_ARITH_DIV:
			if (c == -1)
			{
				*r = a == PG_INT64_MIN ? 0 : -a;
				return a != PG_INT64_MIN;
			}
			*r = a / c;
			return true;
		case GS_ARITH_MOD:
			*r = c == -1 ? 0 : a % c;
			return true;
		case GS_KEY_FLOOR:
			/* date_trunc: the infinities stay, the others floor to a multiple of c (> 0) */
			if (a == DT_NOBEGIN || a == DT_NOEND)
				*r = a;
			else
				*r = (a / c - (a % c < 0 ? 1 : 0)) * c;
			return true;
		default:
			break;
	}
	*r = 0;
	return true;
}

/*
 * Computes native input 'in' for len rows of a batch (rows[j], or start + j
 * without positions) into out/outnulls.  A NULL column value gives NULL
 * (the operators are strict).  Raises nothing: returns the first row
 * whose operator would raise an error (overflow, a zero divisor), or -1,
 * so that the caller raises the error PostgreSQL's row order raises first.
 */
int
GroupAggNativeExprBlock(GroupAggSink *sink, GroupInput *in, void *const *values,
						uint8 *const *nulls, const uint8 *has_nulls, const uint32 *rows,
						int64 start, int len, Datum *out, bool *outnulls)
{
	GroupNativeExpr *ne = in->native;
	int			c = sink->exprcol_columns[ne->exprcol];
	const uint8 *nl = has_nulls[c] ? nulls[c] : NULL;
	gs_arith_op op = (gs_arith_op) ne->op;
	bool		divides = op == GS_ARITH_DIV || op == GS_ARITH_MOD;

	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;
		bool		ok;

		outnulls[j] = nl != NULL && nl[row];
		if (outnulls[j])
		{
			out[j] = (Datum) 0;
			continue;
		}
		if (unlikely(divides && ne->constant == 0))
			return j;
		if (ne->is_int8)
		{
			int64		r;

			ok = native_int8(op, ((const int64 *) values[c])[row], ne->constant, &r);
			out[j] = Int64GetDatum(r);
		}
		else
		{
			int32		r;

			ok = native_int4(op, ((const int32 *) values[c])[row], (int32) ne->constant, &r);
			out[j] = Int32GetDatum(r);
		}
		if (unlikely(!ok))
			return j;
	}
	return -1;
}
