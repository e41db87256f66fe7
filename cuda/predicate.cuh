/*
 * predicate.cuh
 *	  Device-side predicates for the compaction of compact.cuh:
 *
 *	  gs_program_predicate   a stack-machine interpreter of gs_program
 *	                         (gpusel_filter.h), one row per thread, with
 *	                         PostgreSQL's NULL, ordering and error rules;
 *	  gs_range_predicate<T>  the fixed shape "column op constant", turned by
 *	                         the host into a range test on an order key and
 *	                         read with 16-byte vector loads.
 *
 *	  The interpreter keeps the warp on one program counter: a row that
 *	  takes a short-circuit jump only stops executing (its 'skip_to' moves
 *	  ahead), and the warp jumps once every lane is past the next
 *	  instruction.  Because the host checks that the stack depth at every
 *	  instruction is the same on every path, the depth is a property of the
 *	  instruction (gs_dinstr.depth), uniform across the warp; so is the
 *	  shared-memory stack index.  The top of the stack lives in a register,
 *	  the NULL flags of all slots in one 32-bit mask.
 *
 *	  Value representation on the stack: int kinds and bool as int64
 *	  (sign-extended), float kinds as the bits of a double (float4 values
 *	  are exact floats held in a double; float4 arithmetic is done in float).
 */
#ifndef GPUSEL_PREDICATE_CUH
#define GPUSEL_PREDICATE_CUH

#include <stdint.h>
#include <string.h>
#include <type_traits>
#include <cuda_runtime.h>

#include "gpusel_filter.h"
#include "filter_tuning.cuh"
#include "compact.cuh"

/* Device form of one instruction: gs_instr with 'pad' holding the stack depth before it. */
typedef struct gs_dinstr
{
	int16_t		op;
	int16_t		kind;
	int16_t		kind2;
	int16_t		depth;
	int32_t		arg;
	int32_t		arg2;
} gs_dinstr;

/* A column as the kernels see it: values at the type's width, one null byte per row or NULL. */
typedef struct gs_dcolumn
{
	const void *values;
	const uint8_t *nulls;
} gs_dcolumn;

/* ------------------------------------------------------------------------
 * Values and PostgreSQL's comparison rules
 * ------------------------------------------------------------------------ */

/* Bits of a double as an int64 (host and device). */
__host__ __device__ __forceinline__ long long
gs_f8_bits(double d)
{
#ifdef __CUDA_ARCH__
	return __double_as_longlong(d);
#else
	long long	b;

	memcpy(&b, &d, sizeof(b));
	return b;
#endif
}

/* The double whose bits are b. */
__device__ __forceinline__ double
gs_f8(long long b)
{
	return __longlong_as_double(b);
}

/*
 * Order key of a double in PostgreSQL's float order: every NaN is the
 * largest key (NaN = NaN, NaN > +Infinity), -0 and +0 share key 0, and
 * otherwise keys compare as the doubles do.
 */
__host__ __device__ __forceinline__ long long
gs_float_key(double x)
{
	long long	b = gs_f8_bits(x);

	if (x != x)
		return 0x7fffffffffffffffLL;
	if (x == 0.0)
		return 0;
	/* Negative doubles: flip the magnitude so larger magnitude sorts lower. */
	return b >= 0 ? b : (b ^ 0x7fffffffffffffffLL);
}

/* Three-way comparison of two doubles as PostgreSQL's float8_cmp_internal. */
__device__ __forceinline__ int
gs_cmp_f8(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/* Three-way comparison of two stack values of the given kind. */
__device__ __forceinline__ int
gs_cmp_values(int kind, long long a, long long b)
{
	if (kind == GS_VK_FLOAT4 || kind == GS_VK_FLOAT8)
		return gs_cmp_f8(gs_f8(a), gs_f8(b));
	return (a > b) - (a < b);
}

/* Whether comparison opcode 'op' holds for a three-way result c. */
__device__ __forceinline__ bool
gs_cmp_holds(int op, int c)
{
	switch (op)
	{
		case GS_OP_EQ:
			return c == 0;
		case GS_OP_NE:
			return c != 0;
		case GS_OP_LT:
			return c < 0;
		case GS_OP_LE:
			return c <= 0;
		case GS_OP_GT:
			return c > 0;
		default:
			return c >= 0;
	}
}

/* ------------------------------------------------------------------------
 * Arithmetic with PostgreSQL's error rules
 * ------------------------------------------------------------------------ */

/* Smallest value of integer kind 'kind'. */
__device__ __forceinline__ long long
gs_int_min(int kind)
{
	return kind == GS_VK_INT2 ? -32768LL :
		kind == GS_VK_INT4 ? -2147483648LL : (long long) 0x8000000000000000ULL;
}

/* Largest value of integer kind 'kind'. */
__device__ __forceinline__ long long
gs_int_max(int kind)
{
	return kind == GS_VK_INT2 ? 32767LL :
		kind == GS_VK_INT4 ? 2147483647LL : 0x7fffffffffffffffLL;
}

/*
 * a op b for integer kind 'kind' (int2pl, int4mul, int8div, ...): overflow
 * at the kind's width, division or modulo by zero and MIN / -1 set err;
 * MIN % -1 is 0; division truncates toward zero.  Operands of int2/int4
 * kinds fit in 32 bits, so + - * are exact in 64 bits and only need a
 * range check; int8 checks the 64-bit operation itself.
 */
__device__ __forceinline__ long long
gs_int_arith(int op, int kind, long long a, long long b, bool &err)
{
	const bool	wide = kind == GS_VK_INT8;
	unsigned long long ua = (unsigned long long) a, ub = (unsigned long long) b;
	long long	r;

	switch (op)
	{
		case GS_OP_ADD:
			r = (long long) (ua + ub);
			if (wide ? (((a ^ r) & (b ^ r)) < 0) : (r < gs_int_min(kind) || r > gs_int_max(kind)))
				err = true;
			return r;
		case GS_OP_SUB:
			r = (long long) (ua - ub);
			if (wide ? (((a ^ b) & (a ^ r)) < 0) : (r < gs_int_min(kind) || r > gs_int_max(kind)))
				err = true;
			return r;
		case GS_OP_MUL:
			r = (long long) (ua * ub);
			if (wide ? (__mul64hi(a, b) != (r >> 63)) : (r < gs_int_min(kind) || r > gs_int_max(kind)))
				err = true;
			return r;
		case GS_OP_DIV:
			if (b == 0)
			{
				err = true;
				return 0;
			}
			if (b == -1)
			{
				/* PostgreSQL special-cases -1: MIN / -1 overflows. */
				if (a == gs_int_min(kind))
				{
					err = true;
					return 0;
				}
				return -a;
			}
			return wide ? a / b : (long long) ((int) a / (int) b);
		default:				/* GS_OP_MOD */
			if (b == 0)
			{
				err = true;
				return 0;
			}
			if (b == -1)
				return 0;		/* MIN % -1 would trap in C; PostgreSQL returns 0 */
			return wide ? a % b : (long long) ((int) a % (int) b);
	}
}

/*
 * a op b in float8 with PostgreSQL 15's float8_pl/mi/mul/div checks:
 * an infinite result from finite inputs overflows, a zero product or
 * quotient from non-zero inputs underflows, x / 0 (x not NaN) is a division
 * by zero.  The _rn intrinsics keep the compiler from fusing into FMA.
 */
__device__ __forceinline__ double
gs_f8_arith(int op, double a, double b, bool &err)
{
	double		r;

	switch (op)
	{
		case GS_OP_ADD:
			r = __dadd_rn(a, b);
			if (isinf(r) && !isinf(a) && !isinf(b))
				err = true;
			return r;
		case GS_OP_SUB:
			r = __dsub_rn(a, b);
			if (isinf(r) && !isinf(a) && !isinf(b))
				err = true;
			return r;
		case GS_OP_MUL:
			r = __dmul_rn(a, b);
			if (isinf(r) && !isinf(a) && !isinf(b))
				err = true;
			if (r == 0.0 && a != 0.0 && b != 0.0)
				err = true;
			return r;
		default:				/* GS_OP_DIV */
			if (b == 0.0 && !isnan(a))
			{
				err = true;
				return 0.0;
			}
			r = __ddiv_rn(a, b);
			if (isinf(r) && !isinf(a))
				err = true;
			if (r == 0.0 && a != 0.0 && !isinf(b))
				err = true;
			return r;
	}
}

/* The float4 twin of gs_f8_arith (float4pl etc.): computed and checked in float. */
__device__ __forceinline__ float
gs_f4_arith(int op, float a, float b, bool &err)
{
	float		r;

	switch (op)
	{
		case GS_OP_ADD:
			r = __fadd_rn(a, b);
			if (isinf(r) && !isinf(a) && !isinf(b))
				err = true;
			return r;
		case GS_OP_SUB:
			r = __fsub_rn(a, b);
			if (isinf(r) && !isinf(a) && !isinf(b))
				err = true;
			return r;
		case GS_OP_MUL:
			r = __fmul_rn(a, b);
			if (isinf(r) && !isinf(a) && !isinf(b))
				err = true;
			if (r == 0.0f && a != 0.0f && b != 0.0f)
				err = true;
			return r;
		default:				/* GS_OP_DIV */
			if (b == 0.0f && !isnan(a))
			{
				err = true;
				return 0.0f;
			}
			r = __fdiv_rn(a, b);
			if (isinf(r) && !isinf(a))
				err = true;
			if (r == 0.0f && a != 0.0f && !isinf(b))
				err = true;
			return r;
	}
}

/* a op b for any arithmetic kind, on stack representations. */
__device__ __forceinline__ long long
gs_arith(int op, int kind, long long a, long long b, bool &err)
{
	if (kind == GS_VK_FLOAT8)
		return gs_f8_bits(gs_f8_arith(op, gs_f8(a), gs_f8(b), err));
	if (kind == GS_VK_FLOAT4)
		return gs_f8_bits((double) gs_f4_arith(op, (float) gs_f8(a), (float) gs_f8(b), err));
	return gs_int_arith(op, kind, a, b, err);
}

/* Unary minus (int2um/int4um/int8um overflow on the minimum; float negation never fails). */
__device__ __forceinline__ long long
gs_negate(int kind, long long a, bool &err)
{
	if (kind == GS_VK_FLOAT4 || kind == GS_VK_FLOAT8)
		return a ^ (long long) 0x8000000000000000ULL;	/* flip the sign bit, like -x */
	if (a == gs_int_min(kind))
	{
		err = true;
		return 0;
	}
	return -a;
}

/*
 * Converts a non-NULL value from kind 'from' to kind 'to': integer widening
 * is the identity on int64; int to float8/float4 rounds once, directly from
 * the integer (as i4tod, i8tof, ...); float4 to float8 is exact.
 */
__device__ __forceinline__ long long
gs_cast(long long v, int from, int to)
{
	if (to == GS_VK_FLOAT8)
		return from == GS_VK_FLOAT4 ? v : gs_f8_bits(__ll2double_rn(v));
	if (to == GS_VK_FLOAT4)
		return gs_f8_bits((double) __ll2float_rn(v));
	return v;
}

/* ------------------------------------------------------------------------
 * Loads
 * ------------------------------------------------------------------------ */

/* Row 'row' of a column of 'kind' as a stack value. */
__device__ __forceinline__ long long
gs_load_value(const void *p, int kind, long long row)
{
	switch (kind)
	{
		case GS_VK_BOOL:
			return __ldg((const unsigned char *) p + row) != 0;
		case GS_VK_INT2:
			return __ldg((const short *) p + row);
		case GS_VK_INT4:
			return __ldg((const int *) p + row);
		case GS_VK_FLOAT4:
			return gs_f8_bits((double) __ldg((const float *) p + row));
		default:				/* INT8, FLOAT8: the 8 bytes as they are */
			return __ldg((const long long *) p + row);
	}
}

/* Constant c as a stack value of 'kind' (float4 constants rounded to float); *isnull gets its NULL flag. */
__device__ __forceinline__ long long
gs_load_const(const gs_const *c, int kind, bool &isnull)
{
	const longlong2 raw = __ldg((const longlong2 *) c);

	isnull = ((int) raw.y) != 0;
	if (kind == GS_VK_FLOAT4)
		return gs_f8_bits((double) __double2float_rn(gs_f8(raw.x)));
	return raw.x;
}

/* One instruction, read as a single 16-byte load (the same address in every lane). */
__device__ __forceinline__ gs_dinstr
gs_load_instr(const gs_dinstr *p)
{
	const int4	raw = __ldg((const int4 *) p);
	gs_dinstr	ins;

	memcpy(&ins, &raw, sizeof(ins));
	return ins;
}

/* Whether an opcode is one of the short-circuit jumps. */
__device__ __forceinline__ bool
gs_is_jump(int op)
{
	return op == GS_OP_JUMP_IF_FALSE || op == GS_OP_JUMP_IF_TRUE ||
		op == GS_OP_JUMP_IF_NOT_TRUE;
}

/* ------------------------------------------------------------------------
 * The interpreter
 * ------------------------------------------------------------------------ */

/* One row's evaluation state: register top of stack, NULL mask, skip point, error. */
struct gs_row_state
{
	long long	top;			/* value of slot depth-1 */
	uint32_t	nulls;			/* bit i: slot i is NULL */
	int			skip_to;		/* instructions before this are skipped */
	bool		err;			/* this row raised an error */
};

/* Predicate that interprets a validated program (see filter_verify.cu). */
struct gs_program_predicate
{
	static constexpr int kThreads = GS_FILTER_INTERP_THREADS;
	static constexpr bool kCanError = true;
	static constexpr bool kRowPerThread = true;

	const gs_dinstr *code;		/* device copy, depth filled in */
	const gs_const *consts;
	const gs_dcolumn *cols;		/* device table, one entry per column */
	int			ncode;
	int			stack_slots;	/* shared slots per thread: max depth - 1, >= 1 */

	/* NULL flag of slot i. */
	__device__ __forceinline__ static bool
	is_null(const gs_row_state &s, int i)
	{
		return (s.nulls >> i) & 1u;
	}

	/* Sets the NULL flag of slot i. */
	__device__ __forceinline__ static void
	set_null(gs_row_state &s, int i, bool isnull)
	{
		s.nulls = (s.nulls & ~(1u << i)) | ((uint32_t) isnull << i);
	}

	/* Pushes a value at depth d: the old top moves to shared slot d-1. */
	__device__ __forceinline__ static void
	push(gs_row_state &s, int d, long long v, bool isnull,
		 long long *stk, int stride)
	{
		if (d > 0)
			stk[(d - 1) * stride] = s.top;
		s.top = v;
		set_null(s, d, isnull);
	}

	/* 3VL AND (is_and) or OR of the n slots ending at depth d; the result becomes slot d-n. */
	__device__ __forceinline__ static void
	and_or(gs_row_state &s, int d, int n, bool is_and,
		   const long long *stk, int stride)
	{
		bool		decided = false,
					anynull = false;

		for (int i = d - n; i < d; ++i)
		{
			const long long v = (i == d - 1) ? s.top : stk[i * stride];

			if (is_null(s, i))
				anynull = true;
			else if ((v != 0) != is_and)
				decided = true;	/* a false for AND, a true for OR */
		}
		s.top = decided ? !is_and : is_and;
		set_null(s, d - n, !decided && anynull);
	}

	/* a = ANY(consts[first .. first+count-1]) with SQL's NULL rules, a at depth d. */
	__device__ __forceinline__ void
	in_consts(gs_row_state &s, int d, int kind, int first, int count) const
	{
		bool		found = false,
					sawnull = false;

		if (count > 0 && !is_null(s, d - 1))
		{
			for (int i = 0; i < count && !found; ++i)
			{
				bool		cnull;
				long long	c = gs_load_const(consts + first + i, kind, cnull);

				if (cnull)
					sawnull = true;
				else if (gs_cmp_values(kind, s.top, c) == 0)
					found = true;
			}
		}
		else if (count > 0)
			sawnull = true;		/* NULL = ANY(non-empty list) is NULL */
		s.top = found;
		set_null(s, d - 1, !found && sawnull);
	}

	/* Executes one instruction for one row. */
	__device__ __forceinline__ void
	exec(const gs_dinstr &ins, long long row, gs_row_state &s,
		 long long *stk, int stride) const
	{
		const int	d = ins.depth;

		switch (ins.op)
		{
			case GS_OP_COLUMN:
				{
					const gs_dcolumn *c = cols + ins.arg;
					const void *vals = (const void *) __ldg((const unsigned long long *) &c->values);
					const uint8_t *nl = (const uint8_t *) __ldg((const unsigned long long *) &c->nulls);
					const bool	isnull = nl != NULL && __ldg(nl + row) != 0;

					push(s, d, isnull ? 0 : gs_load_value(vals, ins.kind, row), isnull, stk, stride);
					break;
				}
			case GS_OP_CONST:
				{
					bool		isnull;
					long long	v = gs_load_const(consts + ins.arg, ins.kind, isnull);

					push(s, d, v, isnull, stk, stride);
					break;
				}
			case GS_OP_CAST:
				if (!is_null(s, d - 1))
					s.top = gs_cast(s.top, ins.kind, ins.kind2);
				break;
			case GS_OP_EQ:
			case GS_OP_NE:
			case GS_OP_LT:
			case GS_OP_LE:
			case GS_OP_GT:
			case GS_OP_GE:
				{
					const bool	isnull = is_null(s, d - 2) || is_null(s, d - 1);

					if (!isnull)
						s.top = gs_cmp_holds(ins.op, gs_cmp_values(ins.kind, stk[(d - 2) * stride], s.top));
					set_null(s, d - 2, isnull);
					break;
				}
			case GS_OP_ADD:
			case GS_OP_SUB:
			case GS_OP_MUL:
			case GS_OP_DIV:
			case GS_OP_MOD:
				{
					/* A NULL operand makes the result NULL without evaluating (strict). */
					const bool	isnull = is_null(s, d - 2) || is_null(s, d - 1);

					if (!isnull)
						s.top = gs_arith(ins.op, ins.kind, stk[(d - 2) * stride], s.top, s.err);
					set_null(s, d - 2, isnull);
					break;
				}
			case GS_OP_NEG:
				if (!is_null(s, d - 1))
					s.top = gs_negate(ins.kind, s.top, s.err);
				break;
			case GS_OP_AND:
			case GS_OP_OR:
				and_or(s, d, ins.arg, ins.op == GS_OP_AND, stk, stride);
				break;
			case GS_OP_NOT:
				if (!is_null(s, d - 1))
					s.top = !s.top;
				break;
			case GS_OP_IS_NULL:
			case GS_OP_IS_NOT_NULL:
				s.top = is_null(s, d - 1) == (ins.op == GS_OP_IS_NULL);
				set_null(s, d - 1, false);
				break;
			case GS_OP_IS_TRUE:
			case GS_OP_IS_NOT_TRUE:
			case GS_OP_IS_FALSE:
			case GS_OP_IS_NOT_FALSE:
				{
					const bool	isnull = is_null(s, d - 1);
					const bool	want = (ins.op == GS_OP_IS_TRUE || ins.op == GS_OP_IS_NOT_TRUE);
					const bool	is = !isnull && ((s.top != 0) == want);
					const bool	negated = (ins.op == GS_OP_IS_NOT_TRUE || ins.op == GS_OP_IS_NOT_FALSE);

					s.top = is != negated;
					set_null(s, d - 1, false);
					break;
				}
			case GS_OP_IN_CONSTS:
				in_consts(s, d, ins.kind, ins.arg, ins.arg2);
				break;
			case GS_OP_RANGE_GUARD:
				if (!is_null(s, d - 1))
				{
					bool		lonull;
					bool		hinull;
					long long	lo = gs_load_const(consts + ins.arg, ins.kind, lonull);
					long long	hi = gs_load_const(consts + ins.arg2, ins.kind, hinull);

					if (s.top < lo || s.top > hi)
						s.err = true;
				}
				break;
			case GS_OP_JUMP_IF_FALSE:
				if (!is_null(s, d - 1) && s.top == 0)
					s.skip_to = ins.arg;
				break;
			case GS_OP_JUMP_IF_TRUE:
				if (!is_null(s, d - 1) && s.top != 0)
					s.skip_to = ins.arg;
				break;
			case GS_OP_JUMP_IF_NOT_TRUE:
				if (is_null(s, d - 1) || s.top == 0)
					s.skip_to = ins.arg;
				break;
			default:
				break;
		}
	}

	/*
	 * Evaluates the program for one row (inactive lanes only keep the warp
	 * company); true when it leaves a non-NULL true and raised no error.
	 * Must be called by all 32 lanes together: the jump uses a warp vote.
	 */
	__device__ __forceinline__ bool
	eval_row(long long row, bool active, long long *stk, int stride, bool &err) const
	{
		gs_row_state s;

		s.top = 0;
		s.nulls = 0;
		s.skip_to = active ? 0 : ncode;
		s.err = false;
		for (int pc = 0; pc < ncode;)
		{
			const gs_dinstr ins = gs_load_instr(code + pc);

			if (pc >= s.skip_to)
				exec(ins, row, s, stk, stride);
			/* Next pc: the first instruction some lane still executes. */
			if (gs_is_jump(ins.op))
				pc = (int) __reduce_min_sync(GS_FULL_MASK,
											 (unsigned) max(s.skip_to, pc + 1));
			else
				++pc;
		}
		err |= s.err;
		return active && !s.err && !is_null(s, 0) && s.top != 0;
	}
};

/* ------------------------------------------------------------------------
 * The fixed predicate "column op constant"
 * ------------------------------------------------------------------------ */

/* Read-once 16-byte load: streaming (evict-first) or through the read-only cache. */
__device__ __forceinline__ int4
gs_load16(const void *p)
{
#if GS_FILTER_STREAMING_LOADS
	return __ldcs((const int4 *) p);
#else
	return __ldg((const int4 *) p);
#endif
}

/* V null bytes at p (V = 2, 4 or 8, p aligned to V) as one integer. */
template <int V>
__device__ __forceinline__ unsigned long long
gs_load_null_bytes(const uint8_t *p)
{
	if constexpr (V == 8)
	{
		const uint2 v = __ldcs((const uint2 *) p);

		return ((unsigned long long) v.y << 32) | v.x;
	}
	else if constexpr (V == 4)
		return __ldcs((const unsigned int *) p);
	else
		return __ldcs((const unsigned short *) p);
}

/* Order key of a column value, in the type the range test uses. */
template <typename T> struct gs_range_key;
template <> struct gs_range_key<int16_t>
{
	typedef int type;
	__device__ __forceinline__ static int of(int16_t x) { return x; }
};
template <> struct gs_range_key<int32_t>
{
	typedef int type;
	__device__ __forceinline__ static int of(int32_t x) { return x; }
};
template <> struct gs_range_key<int64_t>
{
	typedef long long type;
	__device__ __forceinline__ static long long of(int64_t x) { return x; }
};
template <> struct gs_range_key<float>
{
	typedef long long type;
	__device__ __forceinline__ static long long of(float x) { return gs_float_key((double) x); }
};
template <> struct gs_range_key<double>
{
	typedef long long type;
	__device__ __forceinline__ static long long of(double x) { return gs_float_key(x); }
};

/*
 * Rows where lo <= key(value) <= hi, XOR invert, and not NULL.  The host
 * turns "col op const" into this (any of = <> < <= > >=, any int or float
 * type, PostgreSQL's float order through gs_float_key); an empty range is
 * stored as the full range inverted.  Values come in 16-byte vectors:
 * V = 16 / sizeof(T) consecutive rows per lane, 32 / V vectors per group,
 * all issued before the first is used.  values (and nulls) must be 16-byte
 * (V-byte) aligned.
 */
template <typename T, bool HasNulls>
struct gs_range_predicate
{
	typedef typename gs_range_key<T>::type K;
	typedef typename std::make_unsigned<K>::type UK;
	static constexpr int kThreads = GS_FILTER_P1_THREADS;
	static constexpr bool kCanError = false;
	static constexpr bool kRowPerThread = false;
	static constexpr int V = 16 / sizeof(T);
	static constexpr int ITERS = GS_FILTER_WARP_SIZE / V;

	const T    *values;
	const uint8_t *nulls;
	K			lo;
	K			hi;
	int			invert;
	int			stack_slots;	/* always 0: no stack */

	/* Whether one non-NULL value passes: one subtract, one unsigned compare. */
	__device__ __forceinline__ bool
	test(T x) const
	{
		return ((UK) ((UK) gs_range_key<T>::of(x) - (UK) lo) <= (UK) ((UK) hi - (UK) lo)) != (invert != 0);
	}

	/* Ballot word 'lane' of the group at 'base'. */
	__device__ __forceinline__ uint32_t
	group_word(long long base, long long n, bool full, long long *,
			   int, bool &) const
	{
		const int	lane = gs_lane_id();
		uint32_t	myword = 0;

		if (full)
		{
			int4		v[ITERS];
			unsigned long long nb[ITERS];

			/* All loads first, so ITERS * 16 bytes per lane are in flight. */
#pragma unroll
			for (int it = 0; it < ITERS; ++it)
			{
				const long long row = base + (long long) it * GS_FILTER_WARP_SIZE * V + lane * V;

				v[it] = gs_load16(values + row);
				nb[it] = HasNulls ? gs_load_null_bytes<V>(nulls + row) : 0;
			}
#pragma unroll
			for (int it = 0; it < ITERS; ++it)
			{
				T			x[V];
				uint32_t	bits = 0;

				memcpy(x, &v[it], sizeof(x));
#pragma unroll
				for (int j = 0; j < V; ++j)
				{
					const bool	isnull = HasNulls && ((nb[it] >> (8 * j)) & 0xff) != 0;

					bits |= (uint32_t) (!isnull && test(x[j])) << j;
				}
				gs_collect_word<V>(bits, it, myword);
			}
		}
		else
		{
			/* The batch's last, partial group: guarded scalar loads. */
			for (int it = 0; it < ITERS; ++it)
			{
				const long long row = base + (long long) it * GS_FILTER_WARP_SIZE * V + lane * V;
				uint32_t	bits = 0;

				for (int j = 0; j < V; ++j)
				{
					if (row + j < n)
					{
						const bool	isnull = HasNulls && __ldg(nulls + row + j) != 0;

						bits |= (uint32_t) (!isnull && test(values[row + j])) << j;
					}
				}
				gs_collect_word<V>(bits, it, myword);
			}
		}
		return myword;
	}
};

/* ------------------------------------------------------------------------
 * Internal entry points implemented in filter_testhooks.cu, for tests and
 * benchmarks that run a filter's compiled program on data already on the
 * device.  Not part of the C ABI (C++ linkage).
 * ------------------------------------------------------------------------ */

/* Which kernel family a filter's program runs on. */
typedef enum gs_filter_path
{
	GS_FILTER_PATH_INTERPRETER = 0,	/* gs_program_predicate */
	GS_FILTER_PATH_RANGE = 1		/* gs_range_predicate: "column op constant" */
} gs_filter_path;

/* The path gs_filter_submit takes for this filter (unless forced to the interpreter). */
gs_filter_path gs_filter_get_path(const gs_filter *filter);

/* With on != 0, every later launch uses the interpreter (tests compare both paths). */
void		gs_filter_force_interpreter(gs_filter *filter, int on);

/*
 * Runs the filter's predicate and the compaction, asynchronously on
 * 'stream', over nrows rows of columns already on the device: cols[c] (a
 * host array of ncols entries) holds column c's device values and device
 * null bytes (or NULL).  When cols differs from the slot's last table it
 * synchronises the device first (the slot's column table is reused).  Uses
 * slot 'slot''s scratch, which must not have a batch pending; positions go
 * to d_positions (room for nrows, 16-byte aligned), the count and row-error
 * flag to gs_filter_device_result(filter, slot).  Values must be 16-byte
 * aligned for the range path (otherwise the interpreter runs).
 */
gs_status	gs_filter_launch(gs_filter *filter, int slot, const gs_dcolumn *cols,
							 int64_t nrows, uint32_t *d_positions, cudaStream_t stream,
							 char *errbuf, size_t errlen);

/* Device address of the count and row-error flag written by the slot's last launch. */
const gs_compact_result *gs_filter_device_result(const gs_filter *filter, int slot);

#endif							/* GPUSEL_PREDICATE_CUH */
