/*
 * qual_numeric.c
 *	  Comparisons of numeric columns read as scaled int8 (form_numeric.c)
 *	  with numeric constants, as comparisons with integer bounds.
 *
 * A comparison with a numeric constant becomes a comparison with an integer
 * bound, computed with PostgreSQL's own numeric arithmetic (floor and
 * ceiling of the constant times 10^s).  An unconstrained column travels at
 * the largest scale of the quals' numeric constants.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "qual_compile.h"

/* Walker of GpuselNumericConstsScale: the largest display scale of a numeric constant. */
static bool
consts_scale_walker(Node *node, int *scale)
{
	if (node == NULL)
		return false;
	if (IsA(node, Const) && ((Const *) node)->consttype == NUMERICOID &&
		!((Const *) node)->constisnull)
	{
		int			s;
		int64		scaled;

		if (GpuselNumericConstScaled(((Const *) node)->constvalue, &s, &scaled))
			*scale = Max(*scale, s);
		return false;
	}
	return expression_tree_walker(node, consts_scale_walker, scale);
}

/*
 * The scale unconstrained numeric columns of a program travel at: the
 * largest display scale of the quals' numeric constants that fit, so that
 * each compares with its bound exactly, and at least
 * GPUSEL_NUMERIC_FIT_MIN_SCALE, so that values with a few decimals fit.
 */
int
GpuselNumericConstsScale(List *quals)
{
	int			scale = GPUSEL_NUMERIC_FIT_MIN_SCALE;

	consts_scale_walker((Node *) quals, &scale);
	return Min(scale, GPUSEL_NUMERIC_DIGITS);
}

/* A finite numeric as an int64, clamped to +-10^18 (no scaled value reaches either). */
static int64
clamp_to_int64(Datum n)
{
	Datum		limit = NumericGetDatum(int64_to_numeric(GpuselPowerOfTen(GPUSEL_NUMERIC_DIGITS)));
	Datum		neg_limit = DirectFunctionCall1(numeric_uminus, limit);

	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, n, limit)) >= 0)
		return GpuselPowerOfTen(GPUSEL_NUMERIC_DIGITS);
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, n, neg_limit)) <= 0)
		return -GpuselPowerOfTen(GPUSEL_NUMERIC_DIGITS);
	return DatumGetInt64(DirectFunctionCall1(numeric_int8, n));
}

/*
 * "column opcode constant", for a column of scale 'scale' and a non-NULL
 * numeric constant, as "scaled column *out_opcode *bound" compared as
 * int8, with the same answer for every value the column can hold, NaN
 * included.  An answer that is the same for every non-NULL value comes
 * back as "<= INT64_MAX" (always true) or "> INT64_MAX" (always false).
 */
void
GpuselNumericBound(int opcode, Datum constant, int scale, int *out_opcode, int64 *bound)
{
	Numeric		c = DatumGetNumeric(constant);
	Datum		scaled;
	Datum		lo;
	Datum		hi;
	bool		exact;

	*out_opcode = opcode;
	if (numeric_is_nan(c))
	{
		/* NaN equals the NaN stand-in and is above every number */
		*bound = GS_NUMERIC_NAN;
		return;
	}
	if (numeric_is_inf(c))
	{
		bool		positive = DatumGetInt32(DirectFunctionCall2(numeric_cmp, constant,
																  NumericGetDatum(int64_to_numeric(0)))) > 0;

		/*
		 * The infinities' stand-ins lie between every number and NaN, and
		 * below every number; the comparison keeps its operator (a column
		 * under a typmod holds neither, and compares the same)
		 */
		*bound = positive ? GPUSEL_NUMERIC_POS_INF : GPUSEL_NUMERIC_NEG_INF;
		return;
	}

	scaled = DirectFunctionCall2(numeric_mul, constant,
								 NumericGetDatum(int64_to_numeric(GpuselPowerOfTen(scale))));
	lo = DirectFunctionCall1(numeric_floor, scaled);
	hi = DirectFunctionCall1(numeric_ceil, scaled);
	exact = DatumGetInt32(DirectFunctionCall2(numeric_cmp, lo, hi)) == 0;
	switch (opcode)
	{
		case GS_OP_LT:			/* v < c  <=>  v < ceil(c * 10^s) */
		case GS_OP_GE:			/* v >= c <=>  v >= ceil(c * 10^s) */
			*bound = clamp_to_int64(hi);
			return;
		case GS_OP_LE:			/* v <= c <=>  v <= floor(c * 10^s) */
		case GS_OP_GT:			/* v > c  <=>  v > floor(c * 10^s) */
			*bound = clamp_to_int64(lo);
			return;
		default:
			{
				int64		b = clamp_to_int64(lo);

				if (exact && b > -GpuselPowerOfTen(GPUSEL_NUMERIC_DIGITS) &&
					b < GpuselPowerOfTen(GPUSEL_NUMERIC_DIGITS))
				{
					*bound = b;
					return;
				}
				/* no value of the column equals the constant */
				*out_opcode = opcode == GS_OP_EQ ? GS_OP_GT : GS_OP_LE;
				*bound = PG_INT64_MAX;
				return;
			}
	}
}

/* numeric's comparison functions as device opcodes, "left OP right". */
static const struct
{
	Oid			funcid;
	int16		opcode;
}			numeric_comparisons[] = {
	{F_NUMERIC_LT, GS_OP_LT}, {F_NUMERIC_LE, GS_OP_LE}, {F_NUMERIC_EQ, GS_OP_EQ},
	{F_NUMERIC_NE, GS_OP_NE}, {F_NUMERIC_GE, GS_OP_GE}, {F_NUMERIC_GT, GS_OP_GT},
};

/*
 * If funcid is one of numeric's comparisons, returns its opcode as
 * "left OP right"; otherwise -1.
 */
int
GpuselNumericComparison(Oid funcid)
{
	for (int i = 0; i < lengthof(numeric_comparisons); i++)
		if (numeric_comparisons[i].funcid == funcid)
			return numeric_comparisons[i].opcode;
	return -1;
}

/*
 * Which of numeric's + - * and unary minus expr calls (an operator or the
 * function), with its arguments; false for any other node.  The device's
 * numeric comparisons and the grouped scan's numeric expressions both take
 * these.
 */
bool
GpuselNumericArith(Expr *expr, gs_arith_op *op, List **args)
{
	Oid			funcid;

	if (IsA(expr, OpExpr))
	{
		OpExpr	   *opexpr = (OpExpr *) expr;

		funcid = OidIsValid(opexpr->opfuncid) ? opexpr->opfuncid : get_opcode(opexpr->opno);
		*args = opexpr->args;
	}
	else if (IsA(expr, FuncExpr))
	{
		funcid = ((FuncExpr *) expr)->funcid;
		*args = ((FuncExpr *) expr)->args;
	}
	else
		return false;
	switch (funcid)
	{
		case F_NUMERIC_ADD:
			*op = GS_ARITH_ADD;
			break;
		case F_NUMERIC_SUB:
			*op = GS_ARITH_SUB;
			break;
		case F_NUMERIC_MUL:
			*op = GS_ARITH_MUL;
			break;
		case F_NUMERIC_UMINUS:
			*op = GS_ARITH_NEG;
			break;
		default:
			return false;
	}
	return list_length(*args) == (GS_ARITH_IS_BINARY(*op) ? 2 : 1);
}

/* The opcode of "b OP' a" equal to "a OP b". */
int
GpuselCommuteOpcode(int opcode)
{
	switch (opcode)
	{
		case GS_OP_LT:
			return GS_OP_GT;
		case GS_OP_LE:
			return GS_OP_GE;
		case GS_OP_GT:
			return GS_OP_LT;
		case GS_OP_GE:
			return GS_OP_LE;
		default:
			return opcode;
	}
}
