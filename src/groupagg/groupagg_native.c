/*
 * groupagg_native.c
 *	  Key and input expressions of the shape <integer column> <op>
 *	  <constant> (bucketing: k % 10000, ts_epoch / 3600, id * 10 + ...'s
 *	  first step) computed a block of rows at a time in C, with
 *	  PostgreSQL's results and errors, instead of through the executor one
 *	  row at a time.  The grouped scan's block path (groupagg_rows.c) asks
 *	  for them; every other expression keeps its ExprState.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"

#include "groupagg_internal.h"
#include "qual_compile.h"

/* The operations taken: + - * / % over int4 or over int8. */
typedef enum NativeOp
{
	NATIVE_ADD,
	NATIVE_SUB,
	NATIVE_MUL,
	NATIVE_DIV,
	NATIVE_MOD
} NativeOp;

/* The operation and width of an operator's function; false when not taken. */
static bool
native_op_of(Oid funcid, NativeOp *op, bool *is_int8)
{
	switch (funcid)
	{
		case F_INT4PL:
		case F_INT8PL:
			*op = NATIVE_ADD;
			break;
		case F_INT4MI:
		case F_INT8MI:
			*op = NATIVE_SUB;
			break;
		case F_INT4MUL:
		case F_INT8MUL:
			*op = NATIVE_MUL;
			break;
		case F_INT4DIV:
		case F_INT8DIV:
			*op = NATIVE_DIV;
			break;
		case F_INT4MOD:
		case F_INT8MOD:
			*op = NATIVE_MOD;
			break;
		default:
			return false;
	}
	*is_int8 = funcid == F_INT8PL || funcid == F_INT8MI || funcid == F_INT8MUL ||
		funcid == F_INT8DIV || funcid == F_INT8MOD;
	return true;
}

/*
 * Notes input 'in' as native when its expression is <column> <op>
 * <non-NULL constant> of one integer type (int4 or int8) and the column
 * is one of the sink's expression columns.
 */
void
GroupAggNativeExprInit(GroupAggSink *sink, GroupInput *in)
{
	OpExpr	   *opexpr;
	Var		   *var;
	Const	   *cst;
	NativeOp	op;
	bool		is_int8;
	Oid			type;

	in->native = NULL;
	if (!IsA(in->expr, OpExpr))
		return;
	opexpr = (OpExpr *) in->expr;
	if (list_length(opexpr->args) != 2 ||
		!native_op_of(opexpr->opfuncid, &op, &is_int8) ||
		!IsA(linitial(opexpr->args), Var) || !IsA(lsecond(opexpr->args), Const))
		return;
	var = linitial_node(Var, opexpr->args);
	cst = lsecond_node(Const, opexpr->args);
	type = is_int8 ? INT8OID : INT4OID;
	if (var->vartype != type || cst->consttype != type || cst->constisnull ||
		exprType((Node *) opexpr) != type)
		return;
	for (int e = 0; e < sink->nexprcols; e++)
	{
		if (sink->exprcol_attnos[e] != var->varattno)
			continue;
		in->native = palloc(sizeof(GroupNativeExpr));
		in->native->exprcol = e;
		in->native->op = (int) op;
		in->native->is_int8 = is_int8;
		in->native->constant = is_int8 ? DatumGetInt64(cst->constvalue) :
			(int64) DatumGetInt32(cst->constvalue);
		return;
	}
}

/* int4 or bigint out of range, as int4.c and int8.c say it. */
static void
out_of_range(bool is_int8)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg(is_int8 ? "bigint out of range" : "integer out of range")));
}

/* a op c in int4, as int4pl .. int4mod compute it. */
static inline int32
native_int4(NativeOp op, int32 a, int32 c)
{
	int32		r = 0;

	switch (op)
	{
		case NATIVE_ADD:
			if (unlikely(pg_add_s32_overflow(a, c, &r)))
				out_of_range(false);
			return r;
		case NATIVE_SUB:
			if (unlikely(pg_sub_s32_overflow(a, c, &r)))
				out_of_range(false);
			return r;
		case NATIVE_MUL:
			if (unlikely(pg_mul_s32_overflow(a, c, &r)))
				out_of_range(false);
			return r;
		case NATIVE_DIV:
			if (c == -1)
			{
				if (unlikely(a == PG_INT32_MIN))
					out_of_range(false);
				return -a;
			}
			return a / c;
		case NATIVE_MOD:
			return c == -1 ? 0 : a % c;	/* INT_MIN % -1 would trap */
	}
	return r;
}

/* a op c in int8, as int8pl .. int8mod compute it. */
static inline int64
native_int8(NativeOp op, int64 a, int64 c)
{
	int64		r = 0;

	switch (op)
	{
		case NATIVE_ADD:
			if (unlikely(pg_add_s64_overflow(a, c, &r)))
				out_of_range(true);
			return r;
		case NATIVE_SUB:
			if (unlikely(pg_sub_s64_overflow(a, c, &r)))
				out_of_range(true);
			return r;
		case NATIVE_MUL:
			if (unlikely(pg_mul_s64_overflow(a, c, &r)))
				out_of_range(true);
			return r;
		case NATIVE_DIV:
			if (c == -1)
			{
				if (unlikely(a == PG_INT64_MIN))
					out_of_range(true);
				return -a;
			}
			return a / c;
		case NATIVE_MOD:
			return c == -1 ? 0 : a % c;
	}
	return r;
}

/*
 * Computes native input 'in' for len rows of a batch (rows[j], or start + j
 * without positions) into out/outnulls.  A NULL column value gives NULL
 * (the operators are strict); a zero divisor raises PostgreSQL's error at
 * the first row that would call the operator.
 */
void
GroupAggNativeExprBlock(GroupAggSink *sink, GroupInput *in, void *const *values,
						uint8 *const *nulls, const uint8 *has_nulls, const uint32 *rows,
						int64 start, int len, Datum *out, bool *outnulls)
{
	GroupNativeExpr *ne = in->native;
	int			c = sink->exprcol_columns[ne->exprcol];
	const uint8 *nl = has_nulls[c] ? nulls[c] : NULL;
	NativeOp	op = (NativeOp) ne->op;
	bool		divides = op == NATIVE_DIV || op == NATIVE_MOD;

	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;

		outnulls[j] = nl != NULL && nl[row];
		if (outnulls[j])
		{
			out[j] = (Datum) 0;
			continue;
		}
		if (unlikely(divides && ne->constant == 0))
			ereport(ERROR,
					(errcode(ERRCODE_DIVISION_BY_ZERO),
					 errmsg("division by zero")));
		if (ne->is_int8)
			out[j] = Int64GetDatum(native_int8(op, ((const int64 *) values[c])[row],
											   ne->constant));
		else
			out[j] = Int32GetDatum(native_int4(op, ((const int32 *) values[c])[row],
											   (int32) ne->constant));
	}
}
