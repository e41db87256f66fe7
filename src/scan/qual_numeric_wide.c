/*
 * qual_numeric_wide.c
 *	  numeric(p,s) columns of 19 to 38 digits compared on the device as
 *	  128-bit integers scaled by 10^s.
 *
 * Such a column's values satisfy |v * 10^s| < 10^p <= 10^38 < 2^127, so
 * each is an exact int128 V.  The device's stack machine works in 64 bits,
 * so V travels as two int8 columns next to each other: hi = floor(V / 2^64)
 * and lo = (V mod 2^64) - 2^63.  Compared as a pair, high half first, the
 * halves order exactly as the V do: lo keeps the unsigned order of the low
 * 64 bits within one hi, shifted into int8's range.  NaN, which such a
 * column may hold and PostgreSQL orders above every number, is
 * (INT64_MAX, INT64_MAX); no number reaches hi = INT64_MAX, since
 * 10^38 / 2^64 < 2^63.  A typmod forbids the infinities.
 *
 * A comparison with a numeric constant becomes a comparison of the pair
 * with a bound pair, the bound computed with PostgreSQL's numeric
 * arithmetic as for the 64-bit columns (the floor or ceiling of the
 * constant times 10^s), and "a < b" on pairs is
 *	a.hi < b.hi OR (a.hi = b.hi AND a.lo < b.lo)
 * in the program's three-valued logic, so a NULL column gives NULL.  Two
 * such columns of one scale compare the same way.  Nothing here raises a
 * row error.  Arithmetic over these columns takes them where they fit 18
 * digits instead (GPUSEL_FORM_NUMERIC_FIT, qual_numeric.c).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "qual_compiler.h"

/* A value of the pair form: a column's halves or a bound's. */
typedef struct WideOperand
{
	bool		is_column;
	int			hi_col;			/* columns of the halves */
	int			lo_col;
	int64		hi;				/* a bound's halves */
	int64		lo;
} WideOperand;


/* A whole numeric of at most 38 digits as an int128, through its text. */
static int128
integral_numeric_to_int128(Datum num)
{
	char	   *text = DatumGetCString(DirectFunctionCall1(numeric_out, num));
	const char *p = text;
	bool		negative = false;
	int128		acc = 0;

	if (*p == '-')
	{
		negative = true;
		p++;
	}
	for (; *p >= '0' && *p <= '9'; p++)
		acc = acc * 10 + (*p - '0');
	pfree(text);
	return negative ? -acc : acc;
}

/* 10^k as a numeric. */
static Datum
numeric_power_of_ten(int k)
{
	char		buf[16];

	snprintf(buf, sizeof(buf), "1e%d", k);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* A whole numeric clamped to +-10^38, beyond every column's values, as an int128. */
static int128
clamp_to_int128(Datum n)
{
	Datum		limit = numeric_power_of_ten(GPUSEL_NUMERIC_WIDE_DIGITS);
	Datum		neg_limit = DirectFunctionCall1(numeric_uminus, limit);

	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, n, limit)) >= 0)
		return WIDE_LIMIT;
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, n, neg_limit)) <= 0)
		return -WIDE_LIMIT;
	return integral_numeric_to_int128(n);
}

/*
 * "column opcode constant", for a column of scale 'scale' and a non-NULL
 * numeric constant, as "column pair *out_opcode bound pair", with the same
 * answer for every value the column can hold, NaN included.
 */
static void
wide_bound(int opcode, Datum constant, int scale, int *out_opcode, WideOperand *bound)
{
	Numeric		c = DatumGetNumeric(constant);
	Datum		scaled;
	Datum		lo;
	Datum		hi;
	int128		b;

	*out_opcode = opcode;
	bound->is_column = false;
	if (numeric_is_nan(c))
	{
		bound->hi = WIDE_NAN_HI;
		bound->lo = WIDE_NAN_LO;
		return;
	}
	if (numeric_is_inf(c))
	{
		bool		positive = DatumGetInt32(DirectFunctionCall2(numeric_cmp, constant,
																  NumericGetDatum(int64_to_numeric(0)))) > 0;

		/* between every number and NaN, or below every number */
		bound->hi = positive ? WIDE_PINF_HI : WIDE_NINF_HI;
		bound->lo = positive ? WIDE_PINF_LO : WIDE_NINF_LO;
		return;
	}
	/*
	 * |c| >= 10^38 lies beyond every value at any scale: no multiplication,
	 * which could leave numeric's own range for the largest constants
	 */
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, DirectFunctionCall1(numeric_abs, constant),
										  numeric_power_of_ten(GPUSEL_NUMERIC_WIDE_DIGITS))) >= 0)
		scaled = constant;
	else
		scaled = DirectFunctionCall2(numeric_mul, constant, numeric_power_of_ten(scale));
	lo = DirectFunctionCall1(numeric_floor, scaled);
	hi = DirectFunctionCall1(numeric_ceil, scaled);
	switch (opcode)
	{
		case GS_OP_LT:			/* v < c  <=>  v < ceil(c * 10^s) */
		case GS_OP_GE:			/* v >= c <=>  v >= ceil(c * 10^s) */
			b = clamp_to_int128(hi);
			break;
		case GS_OP_LE:			/* v <= c <=>  v <= floor(c * 10^s) */
		case GS_OP_GT:			/* v > c  <=>  v > floor(c * 10^s) */
			b = clamp_to_int128(lo);
			break;
		default:
			if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, lo, hi)) != 0)
			{
				/* no value of the column equals the constant: a pair none holds */
				bound->hi = PG_INT64_MAX;
				bound->lo = PG_INT64_MIN;
				return;
			}
			b = clamp_to_int128(lo);
			break;
	}
	bound->hi = GpuselWideHalf(b, true);
	bound->lo = GpuselWideHalf(b, false);
}

/* Pushes one half of an operand. */
static void
push_half(QualCompiler *qc, const WideOperand *x, bool high)
{
	int			slot;

	if (x->is_column)
	{
		GpuselQualEmit(qc, GS_OP_COLUMN, GS_VK_INT8, 0, high ? x->hi_col : x->lo_col, 0, 0, 1);
		return;
	}
	slot = GpuselQualNewConst(qc);
	if (slot < 0)
		return;
	GpuselDatumToConst(Int64GetDatum(high ? x->hi : x->lo), false, INT8OID,
					   &qc->prog->consts[slot]);
	GpuselQualEmit(qc, GS_OP_CONST, GS_VK_INT8, 0, slot, 0, 0, 1);
}

/* Pushes "a.half opcode b.half". */
static void
compare_halves(QualCompiler *qc, int opcode, const WideOperand *a, const WideOperand *b, bool high)
{
	push_half(qc, a, high);
	push_half(qc, b, high);
	GpuselQualEmit(qc, opcode, GS_VK_INT8, 0, 0, 0, 2, 1);
}

/* Pushes "a opcode b" on pairs, high half first. */
static void
compare_pairs(QualCompiler *qc, int opcode, const WideOperand *a, const WideOperand *b)
{
	switch (opcode)
	{
		case GS_OP_EQ:
			compare_halves(qc, GS_OP_EQ, a, b, true);
			compare_halves(qc, GS_OP_EQ, a, b, false);
			GpuselQualEmit(qc, GS_OP_AND, GS_VK_BOOL, 0, 2, 0, 2, 1);
			return;
		case GS_OP_NE:
			compare_halves(qc, GS_OP_NE, a, b, true);
			compare_halves(qc, GS_OP_NE, a, b, false);
			GpuselQualEmit(qc, GS_OP_OR, GS_VK_BOOL, 0, 2, 0, 2, 1);
			return;
		default:
			/* a.hi < b.hi OR (a.hi = b.hi AND a.lo < b.lo), and so on */
			compare_halves(qc, opcode == GS_OP_LT || opcode == GS_OP_LE ? GS_OP_LT : GS_OP_GT,
						   a, b, true);
			compare_halves(qc, GS_OP_EQ, a, b, true);
			compare_halves(qc, opcode, a, b, false);
			GpuselQualEmit(qc, GS_OP_AND, GS_VK_BOOL, 0, 2, 0, 2, 1);
			GpuselQualEmit(qc, GS_OP_OR, GS_VK_BOOL, 0, 2, 0, 2, 1);
			return;
	}
}

/* The scale of a column of ours that travels as 128-bit halves, or -1. */
static int
wide_scale_of(QualCompiler *qc, Expr *expr)
{
	int			scale;

	if (!IsA(expr, Var) || !GpuselQualVarIsOurs(qc, (Var *) expr) ||
		!GpuselNumericWideScale(((Var *) expr)->vartype, ((Var *) expr)->vartypmod, &scale))
		return -1;
	return scale;
}

/* A 128-bit column as an operand: both halves in the program, next to each other. */
static void
wide_column(QualCompiler *qc, Var *var, int scale, WideOperand *x)
{
	x->is_column = true;
	x->hi_col = GpuselQualColumn(qc, var->varattno, GS_COL_INT8, GPUSEL_FORM_NUMERIC_WIDE_HI, scale);
	x->lo_col = GpuselQualColumn(qc, var->varattno, GS_COL_INT8, GPUSEL_FORM_NUMERIC_WIDE_LO, scale);
}

/*
 * Compiles "left opcode right" when left is a 128-bit column and right a
 * non-NULL numeric constant or a 128-bit column of the same scale (a
 * constant comes on the right), setting *result to the kind pushed (-1
 * when the program ran out of room).  False, with nothing emitted, for any
 * other comparison.
 */
bool
GpuselQualCompileWideComparison(QualCompiler *qc, int opcode, Expr *left, Expr *right,
								int *result)
{
	WideOperand a;
	WideOperand b;
	int			scale = wide_scale_of(qc, left);

	if (scale < 0)
		return false;
	if (IsA(right, Const))
	{
		Const	   *c = (Const *) right;
		int			bound_opcode;

		if (c->consttype != NUMERICOID || c->constisnull)
			return false;
		wide_column(qc, (Var *) left, scale, &a);
		wide_bound(opcode, c->constvalue, scale, &bound_opcode, &b);
		compare_pairs(qc, bound_opcode, &a, &b);
	}
	else
	{
		if (wide_scale_of(qc, right) != scale)
			return false;
		wide_column(qc, (Var *) left, scale, &a);
		wide_column(qc, (Var *) right, scale, &b);
		compare_pairs(qc, opcode, &a, &b);
	}
	*result = qc->failed ? -1 : GS_VK_BOOL;
	return true;
}
