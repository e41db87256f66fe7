/*
 * qual_numeric_compile.c
 *	  Numeric comparisons in the device's predicate program: numeric(p,s)
 *	  columns that fit the device (qual_numeric.c), numeric constants, and
 *	  + - * and unary minus over them, compared with a numeric constant or
 *	  with each other (TPC-H's "l_extendedprice * (1 - l_discount) > 1000").
 *
 * Every value is an int8 holding v * 10^scale with its scale known when
 * compiling, as numeric arithmetic gives it: a sum or difference at the
 * larger of its operands' scales (the other operand multiplied up), a
 * product at the sum of theirs.  A comparison with a constant becomes one
 * with an integer bound at the value's scale; two values meet at the
 * larger scale.  The results are exact:
 *	- a step that would leave int8 raises a row error, and the executor
 *	  evaluates that batch with PostgreSQL's numerics;
 *	- a column taken into arithmetic, and every arithmetic result, passes
 *	  a range guard (GS_OP_RANGE_GUARD) that raises a row error outside
 *	  +-(10^18 - 1): NaN's stand-in (INT64_MAX) is outside, so NaN never
 *	  enters arithmetic on the device, and a value compared with a bound
 *	  stays within the range GpuselNumericBound answers for.
 * A column compared as it is needs no guard: its NaN orders as PostgreSQL
 * orders NaN.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"

#include "qual_compiler.h"

/*
 * The scale of a numeric expression the device can compute, as numeric
 * arithmetic gives it; -1 when it cannot (another node, a column that does
 * not fit, a constant of 18 digits or more, a scale above 18).
 */
static int
value_scale(QualCompiler *qc, Expr *expr)
{
	List	   *args;
	gs_arith_op op;
	int			scale;
	int			a;
	int			b;
	int64		scaled;

	if (IsA(expr, Var))
		return GpuselNumericScale(((Var *) expr)->vartype, ((Var *) expr)->vartypmod, &scale) ||
			GpuselNumericFitScale(((Var *) expr)->vartype, ((Var *) expr)->vartypmod,
								  qc->fit_scale, &scale) ? scale : -1;
	if (IsA(expr, Const))
	{
		Const	   *c = (Const *) expr;

		if (c->consttype != NUMERICOID || c->constisnull ||
			!GpuselNumericConstScaled(c->constvalue, &scale, &scaled))
			return -1;
		return scale;
	}
	if (!GpuselNumericArith(expr, &op, &args))
		return -1;
	switch (op)
	{
		case GS_ARITH_NEG:
			return value_scale(qc, (Expr *) linitial(args));
		case GS_ARITH_ADD:
		case GS_ARITH_SUB:
			a = value_scale(qc, (Expr *) linitial(args));
			b = value_scale(qc, (Expr *) lsecond(args));
			return a < 0 || b < 0 ? -1 : Max(a, b);
		case GS_ARITH_MUL:
			a = value_scale(qc, (Expr *) linitial(args));
			b = value_scale(qc, (Expr *) lsecond(args));
			return a < 0 || b < 0 || a + b > GPUSEL_NUMERIC_DIGITS ? -1 : a + b;
		default:
			return -1;
	}
}

/* Raises a row error for a value on top outside +-(10^18 - 1), NaN's stand-in included. */
static void
emit_range_guard(QualCompiler *qc)
{
	int64		limit = GpuselPowerOfTen(GPUSEL_NUMERIC_DIGITS) - 1;

	GpuselQualEmitRangeGuard(qc, GS_VK_INT8, -limit, limit);
}

/* Multiplies the value on top by 10^k (k > 0): a step of arithmetic, guarded. */
static void
emit_scale_up(QualCompiler *qc, int k)
{
	int			slot;

	if (k <= 0)
		return;
	slot = GpuselQualNewConst(qc);
	if (slot < 0)
		return;
	GpuselDatumToConst(Int64GetDatum(GpuselPowerOfTen(k)), false, INT8OID, &qc->prog->consts[slot]);
	GpuselQualEmit(qc, GS_OP_CONST, GS_VK_INT8, 0, slot, 0, 0, 1);
	GpuselQualEmit(qc, GS_OP_MUL, GS_VK_INT8, 0, 0, 0, 2, 1);
	emit_range_guard(qc);
}

static void compile_value(QualCompiler *qc, Expr *expr, bool operand);

/*
 * Pushes an operand of arithmetic at scale 'scale' (at least its own):
 * guarded when it is a column, multiplied up to the scale.
 */
static void
compile_operand(QualCompiler *qc, Expr *expr, int scale)
{
	compile_value(qc, expr, true);
	emit_scale_up(qc, scale - value_scale(qc, expr));
}

/*
 * Pushes a numeric expression that value_scale() takes as an int8 at its
 * scale; 'operand' when it is an operand of arithmetic.
 */
static void
compile_value(QualCompiler *qc, Expr *expr, bool operand)
{
	List	   *args;
	gs_arith_op op;
	int			scale;
	int64		scaled;
	int			slot;

	if (IsA(expr, Var))
	{
		if (GpuselQualCompileVar(qc, (Var *) expr) != GS_VK_INT8)
			qc->failed = true;
		else if (operand)
			emit_range_guard(qc);
		return;
	}
	if (IsA(expr, Const))
	{
		if (!GpuselNumericConstScaled(((Const *) expr)->constvalue, &scale, &scaled) ||
			(slot = GpuselQualNewConst(qc)) < 0)
		{
			qc->failed = true;
			return;
		}
		GpuselDatumToConst(Int64GetDatum(scaled), false, INT8OID, &qc->prog->consts[slot]);
		GpuselQualEmit(qc, GS_OP_CONST, GS_VK_INT8, 0, slot, 0, 0, 1);
		return;
	}
	scale = value_scale(qc, expr);
	if (!GpuselNumericArith(expr, &op, &args))
	{
		qc->failed = true;
		return;
	}
	switch (op)
	{
		case GS_ARITH_NEG:
			compile_operand(qc, (Expr *) linitial(args), scale);
			GpuselQualEmit(qc, GS_OP_NEG, GS_VK_INT8, 0, 0, 0, 1, 1);
			break;
		case GS_ARITH_ADD:
		case GS_ARITH_SUB:
			compile_operand(qc, (Expr *) linitial(args), scale);
			compile_operand(qc, (Expr *) lsecond(args), scale);
			GpuselQualEmit(qc, GS_OP_OF_ARITH(op), GS_VK_INT8, 0, 0, 0, 2, 1);
			break;
		case GS_ARITH_MUL:
			compile_operand(qc, (Expr *) linitial(args), value_scale(qc, (Expr *) linitial(args)));
			compile_operand(qc, (Expr *) lsecond(args), value_scale(qc, (Expr *) lsecond(args)));
			GpuselQualEmit(qc, GS_OP_MUL, GS_VK_INT8, 0, 0, 0, 2, 1);
			break;
		default:
			qc->failed = true;
			return;
	}
	emit_range_guard(qc);
}

/*
 * Compiles "left OP right" for numeric's comparison functions: a column of
 * 19 to 38 digits compared with a constant or a like column
 * (qual_numeric_wide.c), a numeric expression compared with a numeric
 * constant (as the expression compared with an integer bound at its
 * scale), or two such expressions at the larger of their scales.  Returns
 * -1 (and fails the compilation) for any other numeric comparison, which
 * then stays on the CPU.
 */
int
GpuselQualCompileNumericComparison(QualCompiler *qc, int opcode, List *args)
{
	Expr	   *left = (Expr *) linitial(args);
	Expr	   *right = (Expr *) lsecond(args);
	int			lscale;
	int			rscale;
	int			result;

	if (IsA(left, Const) && !IsA(right, Const))
	{
		Expr	   *swap = left;

		left = right;
		right = swap;
		opcode = GpuselCommuteOpcode(opcode);
	}
	/* a column of 19 to 38 digits compared as it is: as 128-bit halves */
	if (GpuselQualCompileWideComparison(qc, opcode, left, right, &result))
		return result;
	lscale = value_scale(qc, left);
	if (lscale < 0)
	{
		qc->failed = true;
		return -1;
	}
	if (IsA(right, Const) && ((Const *) right)->consttype == NUMERICOID &&
		!((Const *) right)->constisnull)
	{
		int			bound_opcode;
		int64		bound;

		GpuselNumericBound(opcode, ((Const *) right)->constvalue, lscale,
						   &bound_opcode, &bound);
		compile_value(qc, left, false);
		if (qc->failed)
			return -1;
		return GpuselQualCompareWithBound(qc, bound_opcode, GS_VK_INT8, Int64GetDatum(bound));
	}
	rscale = value_scale(qc, right);
	if (rscale < 0)
	{
		qc->failed = true;
		return -1;
	}
	/* values of one scale compare as they are; otherwise the smaller scale's is multiplied up */
	if (lscale == rscale)
	{
		compile_value(qc, left, false);
		compile_value(qc, right, false);
	}
	else
	{
		compile_operand(qc, left, Max(lscale, rscale));
		compile_operand(qc, right, Max(lscale, rscale));
	}
	GpuselQualEmit(qc, opcode, GS_VK_INT8, 0, 0, 0, 2, 1);
	return qc->failed ? -1 : GS_VK_BOOL;
}
