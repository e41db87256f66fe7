/*
 * numeric_core.h
 *	  Exact arithmetic of scaled numerics in 128 bits and the interpreter of
 *	  their step programs, one copy for the host and the device: the
 *	  grouped scan's numeric expressions (src/groupagg/groupagg_numeric.c,
 *	  per row and per block of rows) and the sums over a filtered batch on
 *	  the device (cuda/batchsum.cu).  Plain C with stdint, no PostgreSQL
 *	  headers; under nvcc every function is __host__ __device__.
 *
 * A value is an integer v standing for v * 10^-scale, its scale known when
 * the program is compiled, as PostgreSQL's numeric arithmetic gives it: a
 * sum or difference at the larger of its operands' scales (the other
 * operand multiplied up by 10^shift), a product at the sum of theirs, a
 * negation at its operand's.  Its results are PostgreSQL's exactly, or
 * marked so that the caller computes the row another way:
 *	- NULL in gives NULL out, as the operators are strict; NULL wins over
 *	  the marks below;
 *	- NaN in (GS_NUMERIC_NAN in a column) gives NaN out;
 *	- a value that would leave 128 bits is never rounded or wrapped: it is
 *	  marked unfit, and its row is computed by PostgreSQL's numerics (the
 *	  executor on the host; the host, for the batch, after the device).
 */
#ifndef GPUSEL_NUMERIC_CORE_H
#define GPUSEL_NUMERIC_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gs_arith.h"

#ifdef __CUDACC__
#define GS_HOST_DEVICE __host__ __device__
#else
#define GS_HOST_DEVICE
#endif

typedef __int128 gs_int128;
typedef unsigned __int128 gs_uint128;

/* The one 128-bit value without a negation. */
#define GS_INT128_MIN		((gs_int128) ((gs_uint128) 1 << 127))

/* A numeric NaN in a scaled int8 column. */
#define GS_NUMERIC_NAN		INT64_MAX

/* The largest scale a value takes: 10^38 < 2^127, so a 1 at scale 38 fits. */
#define GS_NUM_MAX_SCALE	38

/* The longest step program. */
#define GS_NUM_MAX_STEPS	16

/*
 * A step's operation: GS_ARITH_ADD, GS_ARITH_SUB, GS_ARITH_MUL or
 * GS_ARITH_NEG (gs_arith.h), or one of the pushes below, numbered after the
 * operators.
 */
enum
{
	GS_NUM_COLUMN = GS_ARITH_COUNT, /* push column col's value */
	GS_NUM_CONST				/* push constant */
};

/* One step of a program, run on a stack of values. */
typedef struct gs_num_step
{
	int32_t		op;				/* a gs_arith_op, GS_NUM_COLUMN or GS_NUM_CONST */
	int32_t		col;			/* GS_NUM_COLUMN: an integer column of the caller's */
	int32_t		shift_a;		/* ADD/SUB: pop b, a; push a * 10^shift_a op */
	int32_t		shift_b;		/* b * 10^shift_b (0 .. GS_NUM_MAX_SCALE) */
	int64_t		constant;		/* GS_NUM_CONST: the value times 10^its scale */
} gs_num_step;

/* What a value is besides its integer (gs_num_value.flags); 0 for a number. */
#define GS_NUM_NULL			1
#define GS_NUM_NAN			2
#define GS_NUM_UNFIT		4	/* it would leave 128 bits */

/* One value: a row's result, or a slot of the stack. */
typedef struct gs_num_value
{
	gs_int128	v;				/* the value times 10^scale, where flags are 0 */
	uint8_t		flags;
} gs_num_value;

/* The columns a program reads: values[c], with NULL bytes nulls[c] where has_nulls[c]. */
typedef struct gs_num_columns
{
	const void *const *values;
	const uint8_t *const *nulls;
	const uint8_t *has_nulls;
	const uint8_t *widths;		/* bytes of each column's values (2, 4, 8); NULL: all 8 */
} gs_num_columns;

/* Whether a 128-bit value fits 64 bits. */
GS_HOST_DEVICE static inline bool
gs_i128_fits_int64(gs_int128 v)
{
	return v == (gs_int128) (int64_t) v;
}

/* a + b into *r; false where it leaves 128 bits. */
GS_HOST_DEVICE static inline bool
gs_i128_add(gs_int128 a, gs_int128 b, gs_int128 *r)
{
	gs_int128	s = (gs_int128) ((gs_uint128) a + (gs_uint128) b);

	if ((a < 0) == (b < 0) && (s < 0) != (a < 0))
		return false;
	*r = s;
	return true;
}

/* a - b into *r; false where it leaves 128 bits. */
GS_HOST_DEVICE static inline bool
gs_i128_sub(gs_int128 a, gs_int128 b, gs_int128 *r)
{
	gs_int128	d = (gs_int128) ((gs_uint128) a - (gs_uint128) b);

	if ((a < 0) != (b < 0) && (d < 0) != (a < 0))
		return false;
	*r = d;
	return true;
}

/*
 * a * b into *r; false where it leaves 128 bits.  Two factors of 64 bits
 * (every value of a numeric(p,s) column, p <= 18, and most products of two)
 * take one 64 x 64 -> 128 multiplication, which cannot overflow; others
 * multiply magnitudes by 64-bit halves, with no division.
 */
GS_HOST_DEVICE static inline bool
gs_i128_mul(gs_int128 a, gs_int128 b, gs_int128 *r)
{
	bool		negative;
	gs_uint128	ua;
	gs_uint128	ub;
	gs_uint128	t;
	gs_uint128	high;
	gs_uint128	low;
	gs_uint128	p;

	if (gs_i128_fits_int64(a) && gs_i128_fits_int64(b))
	{
		*r = (gs_int128) (int64_t) a * (int64_t) b;
		return true;
	}
	negative = (a < 0) != (b < 0);
	ua = a < 0 ? (gs_uint128) 0 - (gs_uint128) a : (gs_uint128) a;
	ub = b < 0 ? (gs_uint128) 0 - (gs_uint128) b : (gs_uint128) b;
	if ((ua >> 64) != 0 && (ub >> 64) != 0)
		return false;
	if ((ub >> 64) != 0)
	{
		t = ua;
		ua = ub;
		ub = t;
	}
	/* ub < 2^64: ua * ub = (ua's high half * ub) * 2^64 + ua's low half * ub */
	high = (gs_uint128) (uint64_t) (ua >> 64) * (uint64_t) ub;
	low = (gs_uint128) (uint64_t) ua * (uint64_t) ub;
	if ((high >> 64) != 0)
		return false;
	p = low + (high << 64);
	if (p < low || p > ((gs_uint128) 1 << 127) - (negative ? 0 : 1))
		return false;
	*r = negative ? (gs_int128) ((gs_uint128) 0 - p) : (gs_int128) p;
	return true;
}

/* 10^k, 0 <= k <= GS_NUM_MAX_SCALE. */
GS_HOST_DEVICE static inline gs_int128
gs_i128_pow10(int k)
{
	gs_int128	p = 1;

	for (int i = 0; i < k; i++)
		p *= 10;
	return p;
}

/*
 * *v * 10^k, p being 10^k (k <= GS_NUM_MAX_SCALE; a larger k leaves 128
 * bits unless v is 0); false where it leaves 128 bits.
 */
GS_HOST_DEVICE static inline bool
gs_num_shift(gs_int128 *v, int k, gs_int128 p)
{
	if (k == 0)
		return true;
	if (k > GS_NUM_MAX_SCALE)
		return *v == 0;
	return gs_i128_mul(*v, p, v);
}

/*
 * a op b, for a binary step over two numbers (neither NULL nor NaN): a
 * product as it is, a sum or difference with the operands brought to one
 * scale (pa and pb: 10^shift_a and 10^shift_b); false where a value would
 * leave 128 bits.
 */
GS_HOST_DEVICE static inline bool
gs_num_arith(const gs_num_step *st, gs_int128 pa, gs_int128 pb, gs_int128 *a, gs_int128 b)
{
	if (st->op == GS_ARITH_MUL)
		return gs_i128_mul(*a, b, a);
	if (!gs_num_shift(a, st->shift_a, pa) || !gs_num_shift(&b, st->shift_b, pb))
		return false;
	return st->op == GS_ARITH_SUB ? gs_i128_sub(*a, b, a) : gs_i128_add(*a, b, a);
}

/*
 * Folds b into a by a binary step: the marks of both carried, the
 * arithmetic done only on two numbers.
 */
GS_HOST_DEVICE static inline void
gs_num_combine(const gs_num_step *st, gs_int128 pa, gs_int128 pb,
			   gs_int128 *av, uint8_t *af, gs_int128 bv, uint8_t bf)
{
	*af |= bf;
	if (*af == 0 && !gs_num_arith(st, pa, pb, av, bv))
		*af = GS_NUM_UNFIT;
}

/* -a in place: a number's negation, NULL and NaN as they are. */
GS_HOST_DEVICE static inline void
gs_num_negate(gs_int128 *v, uint8_t *f)
{
	if (*f != 0)
		return;
	if (*v == GS_INT128_MIN)
		*f = GS_NUM_UNFIT;
	else
		*v = -*v;
}

/* Column col's NULL bytes; NULL where it has none. */
GS_HOST_DEVICE static inline const uint8_t *
gs_num_nulls(const gs_num_columns *cols, int col)
{
	return cols->has_nulls[col] ? cols->nulls[col] : NULL;
}

/*
 * A column's value at row 'row' (nulls: gs_num_nulls'): NULL, NaN or the
 * scaled integer.
 */
GS_HOST_DEVICE static inline void
gs_num_load(const int64_t *values, const uint8_t *nulls, int64_t row, gs_int128 *v, uint8_t *f)
{
	int64_t		x = values[row];

	*v = x;
	*f = nulls != NULL && nulls[row] ? GS_NUM_NULL : x == GS_NUMERIC_NAN ? GS_NUM_NAN : 0;
}

/*
 * An int2 or int4 column's value at row 'row' as a scaled integer of scale
 * 0: NULL or the value (never NaN).
 */
GS_HOST_DEVICE static inline void
gs_num_load_narrow(const void *values, int width, const uint8_t *nulls, int64_t row,
				   gs_int128 *v, uint8_t *f)
{
	*v = width == 2 ? (gs_int128) ((const int16_t *) values)[row] :
		(gs_int128) ((const int32_t *) values)[row];
	*f = nulls != NULL && nulls[row] ? GS_NUM_NULL : 0;
}

/*
 * The value of a program (code, ncode steps, well formed: see
 * gs_num_program_ok) on row 'row' of the columns.
 */
GS_HOST_DEVICE static inline gs_num_value
gs_num_eval_row(const gs_num_step *code, int ncode, const gs_num_columns *cols, int64_t row)
{
	gs_num_value stack[GS_NUM_MAX_STEPS];
	int			sp = 0;

	stack[0].v = 0;				/* a program leaves it set; this only quiets compilers */
	stack[0].flags = 0;
	for (int i = 0; i < ncode; i++)
	{
		const gs_num_step *st = &code[i];
		gs_num_value *a;

		switch (st->op)
		{
			case GS_NUM_COLUMN:
				a = &stack[sp++];
				if (cols->widths != NULL && cols->widths[st->col] < 8)
					gs_num_load_narrow(cols->values[st->col], cols->widths[st->col],
									   gs_num_nulls(cols, st->col), row, &a->v, &a->flags);
				else
					gs_num_load((const int64_t *) cols->values[st->col], gs_num_nulls(cols, st->col),
								row, &a->v, &a->flags);
				break;
			case GS_NUM_CONST:
				a = &stack[sp++];
				a->v = st->constant;
				a->flags = 0;
				break;
			case GS_ARITH_NEG:
				a = &stack[sp - 1];
				gs_num_negate(&a->v, &a->flags);
				break;
			default:
				sp--;
				a = &stack[sp - 1];
				gs_num_combine(st, gs_i128_pow10(st->shift_a), gs_i128_pow10(st->shift_b),
							   &a->v, &a->flags, stack[sp].v, stack[sp].flags);
				break;
		}
	}
	return stack[0];
}

/* Rows a block evaluation (gs_num_eval_lanes) takes at once: its stack stays small. */
#define GS_NUM_LANES		64

/* One stack slot of a block evaluation: a value per row. */
typedef struct gs_num_lanes
{
	gs_int128	v[GS_NUM_LANES];
	uint8_t		flags[GS_NUM_LANES];
} gs_num_lanes;

/*
 * The values of a program on n <= GS_NUM_LANES rows of the columns (the
 * rows rows[first + j], or first + j without positions), a step at a time
 * over all of them, which spends a step's dispatch once per block: the
 * results are left in stack[0], each row's gs_num_eval_row's.  stack holds
 * GS_NUM_MAX_STEPS slots.  For the host, over int8 columns only (cols->widths
 * NULL: the host's numeric expressions read scaled numerics).
 */
static inline void
gs_num_eval_lanes(const gs_num_step *code, int ncode, const gs_num_columns *cols,
				  const uint32_t *rows, int64_t first, int n, gs_num_lanes *stack)
{
	int			sp = 0;

	for (int i = 0; i < ncode; i++)
	{
		const gs_num_step *st = &code[i];
		gs_num_lanes *a;

		switch (st->op)
		{
			case GS_NUM_COLUMN:
				{
					const int64_t *values = (const int64_t *) cols->values[st->col];
					const uint8_t *nulls = gs_num_nulls(cols, st->col);

					a = &stack[sp++];
					for (int j = 0; j < n; j++)
						gs_num_load(values, nulls, rows != NULL ? (int64_t) rows[first + j] : first + j,
									&a->v[j], &a->flags[j]);
					break;
				}
			case GS_NUM_CONST:
				a = &stack[sp++];
				for (int j = 0; j < n; j++)
				{
					a->v[j] = st->constant;
					a->flags[j] = 0;
				}
				break;
			case GS_ARITH_NEG:
				a = &stack[sp - 1];
				for (int j = 0; j < n; j++)
					gs_num_negate(&a->v[j], &a->flags[j]);
				break;
			default:
				{
					gs_int128	pa = gs_i128_pow10(st->shift_a);
					gs_int128	pb = gs_i128_pow10(st->shift_b);
					const gs_num_lanes *b;

					sp--;
					a = &stack[sp - 1];
					b = &stack[sp];
					for (int j = 0; j < n; j++)
						gs_num_combine(st, pa, pb, &a->v[j], &a->flags[j], b->v[j], b->flags[j]);
					break;
				}
		}
	}
}

/*
 * Whether a program is well formed: pushes and operators of the steps
 * taken, shifts within GS_NUM_MAX_SCALE, every operator with its operands,
 * and one value left.  The interpreters trust the programs they are given.
 */
GS_HOST_DEVICE static inline bool
gs_num_program_ok(const gs_num_step *code, int ncode)
{
	int			depth = 0;

	if (ncode < 1 || ncode > GS_NUM_MAX_STEPS)
		return false;
	for (int i = 0; i < ncode; i++)
	{
		switch (code[i].op)
		{
			case GS_NUM_COLUMN:
			case GS_NUM_CONST:
				depth++;
				break;
			case GS_ARITH_NEG:
				if (depth < 1)
					return false;
				break;
			case GS_ARITH_ADD:
			case GS_ARITH_SUB:
			case GS_ARITH_MUL:
				if (code[i].shift_a < 0 || code[i].shift_a > GS_NUM_MAX_SCALE ||
					code[i].shift_b < 0 || code[i].shift_b > GS_NUM_MAX_SCALE || depth < 2)
					return false;
				depth--;
				break;
			default:
				return false;
		}
	}
	return depth == 1;
}

#endif							/* GPUSEL_NUMERIC_CORE_H */
