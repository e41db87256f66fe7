/*
 * batchsum_test.cu
 *	  Checks the sums over a filtered batch's passing rows on the device
 *	  (cuda/batchsum.cu: gs_batch_sums_run, with gs_filter_ship_columns of
 *	  cuda/filter.cu) through the C ABI against a CPU reference computed
 *	  here from the staged rows:
 *	  - per program, the rows with a non-NULL value, those of them NaN, and
 *	    the exact sum of the rest, which the reference keeps in more than
 *	    128 bits;
 *	  - overflow: a row whose value leaves 128 bits, or an exact sum that
 *	    does not fit them, must be reported; where the values' magnitudes
 *	    add up to less than 2^127 no partial sum can overflow, and the
 *	    device must not report one;
 *	  Covered:
 *	  - programs: a column; a product of two and of three columns; (1 - a)
 *	    * b with the scales met by shifts; -a + b; a - b shifted by 10^3;
 *	    a constant alone; a product past 128 bits meeting a NULL (NULL);
 *	    the negation of -2^127 (past 128 bits) and a - (-2^127) (exact
 *	    for a < 0); the int4 column p (the predicate's; read sign-extended
 *	    as an integer of scale 0, never NaN) alone and with the int8 ones:
 *	    p * a, a - p shifted by 10^3, -(p * p) + b, p * a * b (past 128
 *	    bits near the limits); up to GS_SUM_MAX_EXPRS programs in one run;
 *	  - values of numeric(15,2)'s range, small ones, ones near +-10^18 and
 *	    the int8 limits (products and sums that leave 128 bits), NaN
 *	    (GS_NUMERIC_NAN) and NULL inputs, has_nulls 0; p from INT32_MIN to
 *	    999, NULL in some rows (which fail the predicate);
 *	  - predicates keeping all rows, about half, none; from 0, a third, the
 *	    count (nothing);
 *	  - batches of 0, 1, 31, 33, 1023, 1025, 100003 rows and max_rows, in
 *	    both slots of a two-slot filter;
 *	  - refusals (GS_INVALID_ARGUMENT): a column not on the device or past
 *	    the table, malformed programs, 0 or too many programs, 'from' past
 *	    the batch, a slot in flight or out of range;
 *	  - device memory in use (cudaMemGetInfo) unchanged over 50 cycles of
 *	    buffers created, used and destroyed.
 *
 *	  batchsum_test [--quick] [--seed N] [--verbose]
 *	    --quick       max_rows 262147 rather than 1048583
 *
 *	  Prints "batchsum_test: N passed, M failed" last and exits 1 on any
 *	  failure.  Without a usable GPU it prints "SKIP: no GPU (<reason>)" and
 *	  exits 0.
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpusel_cuda.h"
#include "gpusel_filter.h"
#include "test_harness.h"

namespace
{

typedef __int128 int128_t;
typedef unsigned __int128 uint128_t;

uint64_t	g_seed = 1;

/* The table's columns: the predicate's int4, three scaled-numeric int8s, one int8 never shipped. */
enum { C_PRED, C_A, C_B, C_C, C_UNSHIPPED, NCOLS };
const gs_coltype kColType[NCOLS] = {GS_COL_INT4, GS_COL_INT8, GS_COL_INT8, GS_COL_INT8, GS_COL_INT8};
constexpr int32_t kPredLimit = 500;	/* rows with p < 500 pass */

/* How the value columns are drawn. */
enum { V_DECIMAL15, V_SMALL, V_EXTREME, V_COUNT };
const char *const kValName[] = {"numeric(15,2) range", "small", "near the int8 limits"};
enum { P_ALL, P_HALF, P_NONE };
const char *const kPredName[] = {"all pass", "half pass", "none pass"};

struct Batch
{
	int64_t		n = 0;
	std::vector<int32_t> pred;	/* C_PRED's values (its NULLs in nulls[C_PRED]) */
	std::vector<int64_t> vals[NCOLS];	/* the int8 columns' (vals[C_PRED] unused) */
	std::vector<uint8_t> nulls[NCOLS];
	uint8_t		has_nulls[NCOLS] = {0};
	std::vector<uint32_t> pass;
	std::string desc;
};

/* The program "p < 500" over column C_PRED. */
gs_program pred_program()
{
	static gs_instr code[3];
	static gs_const consts[1];
	gs_program	p;

	memset(code, 0, sizeof(code));
	memset(consts, 0, sizeof(consts));
	code[0].op = GS_OP_COLUMN;
	code[0].kind = GS_VK_INT4;
	code[0].arg = C_PRED;
	code[1].op = GS_OP_CONST;
	code[1].kind = GS_VK_INT4;
	code[2].op = GS_OP_LT;
	code[2].kind = GS_VK_INT4;
	consts[0].v.i = kPredLimit;
	p.code = code;
	p.ncode = 3;
	p.consts = consts;
	p.nconsts = 1;
	p.max_stack = 2;
	return p;
}

/* A two-slot filter with the value columns shipped (not C_UNSHIPPED). */
gs_status make_filter(gs_filter **f, int64_t max_rows, char *err, size_t errlen)
{
	gs_program	prog = pred_program();
	gs_status	st = gs_filter_create(f, &prog, NCOLS, kColType, max_rows, 2, err, errlen);

	if (st == GS_OK)
	{
		uint8_t		cols[NCOLS] = {1, 1, 1, 1, 0};

		st = gs_filter_ship_columns(*f, cols, err, errlen);
		if (st != GS_OK)
		{
			gs_filter_destroy(*f);
			*f = NULL;
		}
	}
	return st;
}

/* One value of a column drawn as 'mode'. */
int64_t draw_value(SplitMix64 &rng, int mode)
{
	switch (mode)
	{
		case V_DECIMAL15:
			return (int64_t) (rng.below(2000000000000001ull)) - 1000000000000000ll;
		case V_SMALL:
			return (int64_t) rng.below(10001);
		default:
			switch (rng.below(4))
			{
				case 0:
					return INT64_MAX - 1 - (int64_t) rng.below(1000);
				case 1:
					return INT64_MIN + (int64_t) rng.below(1000);
				case 2:
					return 999999999999999999ll - (int64_t) rng.below(1000);
				default:
					return -999999999999999999ll + (int64_t) rng.below(1000);
			}
	}
}

/*
 * Draws a batch of n rows; nan_pct and null_pct of the value columns' rows
 * are NaN and NULL.  p: all rows from INT32_MIN to 499 (P_ALL), -250 ..
 * -1 and 250 .. 999 with null_pct of them NULL over junk (P_HALF), or 500
 * (P_NONE).
 */
void make_batch(Batch &b, int64_t n, int pred, int mode, int nan_pct, int null_pct, uint64_t seed)
{
	SplitMix64	rng(seed);
	char		desc[256];

	b.n = n;
	b.pred.assign((size_t) n, 0);
	for (int c = 0; c < NCOLS; c++)
	{
		b.vals[c].assign((size_t) n, 0);
		b.nulls[c].assign((size_t) n, 0);
		b.has_nulls[c] = 0;
	}
	for (int64_t i = 0; i < n; i++)
	{
		if (pred == P_ALL)
			b.pred[i] = (int32_t) (kPredLimit - 1 - (int64_t) rng.below((uint64_t) kPredLimit + 2147483648ull));
		else if (pred == P_NONE)
			b.pred[i] = kPredLimit;
		else
		{
			int32_t		p = (int32_t) rng.below(1000);

			b.pred[i] = p < 250 ? p - 250 : p;
			if ((int) rng.below(100) < null_pct)
			{
				b.nulls[C_PRED][i] = 1;
				b.has_nulls[C_PRED] = 1;
				b.pred[i] = (int32_t) (uint32_t) rng.next();	/* the predicate is NULL: the row fails */
			}
		}
		for (int c = C_A; c < NCOLS; c++)
		{
			uint64_t	r = rng.below(100);

			b.vals[c][i] = draw_value(rng, mode);
			if ((int) r < nan_pct)
				b.vals[c][i] = GS_NUMERIC_NAN;
			else if ((int) r < nan_pct + null_pct)
			{
				b.nulls[c][i] = 1;
				b.has_nulls[c] = 1;
				b.vals[c][i] = (int64_t) rng.next();	/* bytes under a NULL mean nothing */
			}
		}
	}
	b.pass.clear();
	for (int64_t i = 0; i < n; i++)
		if (!b.nulls[C_PRED][i] && b.pred[i] < kPredLimit)
			b.pass.push_back((uint32_t) i);
	snprintf(desc, sizeof(desc), "n=%lld %s, values %s, NaN %d%%, NULL %d%%", (long long) n,
			 kPredName[pred], kValName[mode], nan_pct, null_pct);
	b.desc = desc;
}

/* Copies a batch into slot 'slot''s staging and submits it. */
gs_status stage_submit(gs_filter *f, int slot, const Batch &b, char *err, size_t errlen)
{
	for (int c = 0; c < NCOLS; c++)
	{
		void	   *v = gs_filter_values(f, slot, c);
		uint8_t    *nl = gs_filter_nulls(f, slot, c);

		if (v == NULL || nl == NULL)
		{
			snprintf(err, errlen, "no staging for slot %d column %d", slot, c);
			return GS_INVALID_ARGUMENT;
		}
		if (b.n == 0)
			continue;
		if (c == C_PRED)
			memcpy(v, b.pred.data(), sizeof(int32_t) * b.n);
		else
			memcpy(v, b.vals[c].data(), sizeof(int64_t) * b.n);
		memcpy(nl, b.nulls[c].data(), (size_t) b.n);
	}
	return gs_filter_submit(f, slot, b.n, b.has_nulls, err, errlen);
}

/* ------------------------------------------------------------------------
 * Programs and the reference
 * ------------------------------------------------------------------------ */

gs_num_step ins(int op, int col = 0, int shift_a = 0, int shift_b = 0, int64_t constant = 0)
{
	gs_num_step i;

	memset(&i, 0, sizeof(i));
	i.op = op;
	i.col = col;
	i.shift_a = shift_a;
	i.shift_b = shift_b;
	i.constant = constant;
	return i;
}

gs_sum_expr expr(std::initializer_list<gs_num_step> code)
{
	gs_sum_expr e;

	memset(&e, 0, sizeof(e));
	for (const gs_num_step &i : code)
		e.code[e.ncode++] = i;
	return e;
}

struct NamedExpr
{
	const char *name;
	gs_sum_expr e;
};

/* The programs the runs draw from. */
std::vector<NamedExpr> programs()
{
	return {
		{"a", expr({ins(GS_NUM_COLUMN, C_A)})},
		{"a * b", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL)})},
		{"(1 - a) * b", expr({ins(GS_NUM_CONST, 0, 0, 0, 1), ins(GS_NUM_COLUMN, C_A),
							  ins(GS_ARITH_SUB, 0, 2, 0), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL)})},
		{"a * b * c", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL),
							ins(GS_NUM_COLUMN, C_C), ins(GS_ARITH_MUL)})},
		{"-a + b", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_NEG), ins(GS_NUM_COLUMN, C_B),
						 ins(GS_ARITH_ADD)})},
		{"a - b (b shifted 10^3)", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B),
										 ins(GS_ARITH_SUB, 0, 0, 3)})},
		{"constant 7", expr({ins(GS_NUM_CONST, 0, 0, 0, 7)})},
		{"b * c * b * c + a", expr({ins(GS_NUM_COLUMN, C_B), ins(GS_NUM_COLUMN, C_C), ins(GS_ARITH_MUL),
									ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL), ins(GS_NUM_COLUMN, C_C),
									ins(GS_ARITH_MUL), ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_ADD)})},
		{"-(min * min * -2)", expr({ins(GS_NUM_CONST, 0, 0, 0, INT64_MIN), ins(GS_NUM_CONST, 0, 0, 0, INT64_MIN),
									ins(GS_ARITH_MUL), ins(GS_NUM_CONST, 0, 0, 0, -2), ins(GS_ARITH_MUL),
									ins(GS_ARITH_NEG)})},
		{"a - min * min * -2", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_CONST, 0, 0, 0, INT64_MIN),
									 ins(GS_NUM_CONST, 0, 0, 0, INT64_MIN), ins(GS_ARITH_MUL),
									 ins(GS_NUM_CONST, 0, 0, 0, -2), ins(GS_ARITH_MUL), ins(GS_ARITH_SUB)})},
		{"p (int4)", expr({ins(GS_NUM_COLUMN, C_PRED)})},
		{"p * a", expr({ins(GS_NUM_COLUMN, C_PRED), ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_MUL)})},
		{"a - p (p shifted 10^3)", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_PRED),
										 ins(GS_ARITH_SUB, 0, 0, 3)})},
		{"-(p * p) + b", expr({ins(GS_NUM_COLUMN, C_PRED), ins(GS_NUM_COLUMN, C_PRED), ins(GS_ARITH_MUL),
							   ins(GS_ARITH_NEG), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_ADD)})},
		{"p * a * b", expr({ins(GS_NUM_COLUMN, C_PRED), ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_MUL),
							ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL)})},
	};
}

bool add_ok(int128_t a, int128_t b, int128_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

bool mul_ok(int128_t a, int128_t b, int128_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

bool scale_ok(int128_t *v, int k)
{
	for (int i = 0; i < k; i++)
		if (!mul_ok(*v, 10, v))
			return false;
	return true;
}

/*
 * One row's value as the program defines it; false when it leaves 128 bits.
 * NULL wins over the rest (the operators are strict): a row whose value
 * left 128 bits before a NULL met it is NULL.
 */
bool ref_row(const gs_sum_expr &e, const Batch &b, uint32_t row, int128_t *v, bool *isnull,
			 bool *nan)
{
	int128_t	st[GS_SUM_MAX_CODE];
	bool		nl[GS_SUM_MAX_CODE];
	bool		na[GS_SUM_MAX_CODE];
	bool		of[GS_SUM_MAX_CODE];
	int			sp = 0;

	for (int i = 0; i < e.ncode; i++)
	{
		const gs_num_step &in = e.code[i];

		if (in.op == GS_NUM_COLUMN && kColType[in.col] == GS_COL_INT4)
		{
			/* C_PRED: an int32, sign-extended, of scale 0; never NaN */
			nl[sp] = b.nulls[in.col][row] != 0;
			na[sp] = of[sp] = false;
			st[sp++] = b.pred[row];
		}
		else if (in.op == GS_NUM_COLUMN)
		{
			nl[sp] = b.nulls[in.col][row] != 0;
			na[sp] = !nl[sp] && b.vals[in.col][row] == GS_NUMERIC_NAN;
			of[sp] = false;
			st[sp++] = b.vals[in.col][row];
		}
		else if (in.op == GS_NUM_CONST)
		{
			nl[sp] = na[sp] = of[sp] = false;
			st[sp++] = in.constant;
		}
		else if (in.op == GS_ARITH_NEG)
		{
			if (nl[sp - 1] || na[sp - 1] || of[sp - 1])
				continue;
			if (__builtin_sub_overflow((int128_t) 0, st[sp - 1], &st[sp - 1]))
				of[sp - 1] = true;
		}
		else
		{
			int128_t	y = st[--sp];
			int128_t   *x = &st[sp - 1];

			nl[sp - 1] = nl[sp - 1] || nl[sp];
			na[sp - 1] = na[sp - 1] || na[sp];
			of[sp - 1] = of[sp - 1] || of[sp];
			if (nl[sp - 1] || na[sp - 1] || of[sp - 1])
				continue;
			if (in.op == GS_ARITH_MUL)
				of[sp - 1] = !mul_ok(*x, y, x);
			else if (!scale_ok(x, in.shift_a) || !scale_ok(&y, in.shift_b))
				of[sp - 1] = true;
			else
				of[sp - 1] = in.op == GS_ARITH_SUB ? __builtin_sub_overflow(*x, y, x) : !add_ok(*x, y, x);
		}
	}
	*v = st[0];
	*isnull = nl[0];
	*nan = na[0];
	return nl[0] || !of[0];
}

/* What the device must report for one program over the rows from 'from' on. */
struct RefSum
{
	bool		row_overflow = false;
	bool		total_fits = true;
	bool		magnitudes_fit = true;	/* no partial sum can overflow */
	int128_t	total = 0;
	uint64_t	values = 0;
	uint64_t	nans = 0;
};

RefSum reference(const gs_sum_expr &e, const Batch &b, int64_t from)
{
	RefSum		r;
	int128_t	high = 0;		/* sum of the values' high 64 bits, signed */
	uint128_t	low = 0;		/* sum of their low 64 bits */
	uint128_t	magnitude = 0;
	const uint128_t limit = (uint128_t) 1 << 127;

	for (size_t k = (size_t) from; k < b.pass.size(); k++)
	{
		int128_t	v;
		bool		isnull;
		bool		nan;
		uint128_t	m;

		if (!ref_row(e, b, b.pass[k], &v, &isnull, &nan))
		{
			r.row_overflow = true;
			continue;
		}
		if (isnull)
			continue;
		r.values++;
		if (nan)
		{
			r.nans++;
			continue;
		}
		high += (int128_t) (v >> 64);
		low += (uint64_t) v;
		m = v < 0 ? (uint128_t) 0 - (uint128_t) v : (uint128_t) v;
		if (magnitude >= limit || m >= limit - magnitude)
			magnitude = limit;
		else
			magnitude += m;
	}
	high += (int128_t) (low >> 64);
	r.total_fits = high >= INT64_MIN && high <= INT64_MAX;
	r.total = (int128_t) (((uint128_t) high << 64) | (uint64_t) low);
	r.magnitudes_fit = magnitude < limit;
	return r;
}

std::string i128_str(int128_t v)
{
	char		buf[64];
	int			p = 63;
	bool		neg = v < 0;
	uint128_t	u = neg ? (uint128_t) 0 - (uint128_t) v : (uint128_t) v;

	buf[p] = '\0';
	do
	{
		buf[--p] = (char) ('0' + (int) (u % 10));
		u /= 10;
	} while (u != 0);
	if (neg)
		buf[--p] = '-';
	return std::string(buf + p);
}

/* Runs every program set over the waited-for batch in 'slot' and checks the results. */
void check_batch(gs_batch_sums *s, gs_filter *f, int slot, const Batch &b, int64_t from)
{
	std::vector<NamedExpr> all = programs();
	char		err[512];

	for (size_t first = 0; first < all.size(); first += GS_SUM_MAX_EXPRS)
	{
		gs_sum_expr exprs[GS_SUM_MAX_EXPRS];
		gs_sum_result res[GS_SUM_MAX_EXPRS];
		int			n = 0;
		gs_status	st;

		for (size_t k = first; k < all.size() && n < GS_SUM_MAX_EXPRS; k++)
			exprs[n++] = all[k].e;
		err[0] = '\0';
		st = gs_batch_sums_run(s, f, slot, from, n, exprs, res, err, sizeof(err));
		if (st != GS_OK)
		{
			report(false, b.desc + ": gs_batch_sums_run " + std::to_string(st) + " " + err);
			continue;
		}
		for (int k = 0; k < n; k++)
		{
			RefSum		r = reference(exprs[k], b, from);
			int128_t	got = (int128_t) (((uint128_t) res[k].hi << 64) | res[k].lo);
			std::string what = b.desc + ", from " + std::to_string(from) + ", sum(" +
				all[first + k].name + ")";
			bool		must_overflow = r.row_overflow || !r.total_fits;
			bool		ok;

			if (res[k].overflow)
				ok = must_overflow || !r.magnitudes_fit;
			else
				ok = !must_overflow && got == r.total && res[k].values == r.values &&
					res[k].nans == r.nans;
			report(ok, what + ": device " + (res[k].overflow ? std::string("overflow") :
											  i128_str(got) + " over " + std::to_string(res[k].values) +
											  " (" + std::to_string(res[k].nans) + " NaN)") +
				   ", reference " + (must_overflow ? std::string("overflow") :
									 i128_str(r.total) + " over " + std::to_string(r.values) +
									 " (" + std::to_string(r.nans) + " NaN)"));
		}
	}
}

/* Waits for a slot; false (reported) on failure. */
bool wait_slot(gs_filter *f, int slot, const Batch &b)
{
	const uint32_t *positions;
	int64_t		count;
	int			row_error;
	double		ms;
	char		err[512] = "";
	gs_status	st = gs_filter_wait(f, slot, &positions, &count, &row_error, &ms, err, sizeof(err));

	if (st != GS_OK || count != (int64_t) b.pass.size())
	{
		report(false, b.desc + ": filter wait " + std::to_string(st) + " " + err);
		return false;
	}
	return true;
}

/* Calls gs_batch_sums_run in ways it must refuse. */
void check_refusals(gs_batch_sums *s, gs_filter *f, int waited_slot, int64_t npass)
{
	char		err[512];
	gs_sum_result res[GS_SUM_MAX_EXPRS + 1];
	gs_sum_expr e[GS_SUM_MAX_EXPRS + 1];
	struct Bad
	{
		const char *what;
		gs_sum_expr e;
	}			bad[] = {
		{"a column not on the device", expr({ins(GS_NUM_COLUMN, C_UNSHIPPED)})},
		{"a column past the table", expr({ins(GS_NUM_COLUMN, NCOLS)})},
		{"ADD of one value", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_ADD)})},
		{"two values left", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B)})},
		{"a shift of 39", expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B),
								ins(GS_ARITH_ADD, 0, 39, 0)})},
		{"an unknown opcode", expr({ins(GS_NUM_COLUMN, C_A), ins(99)})},
		{"no instructions", expr({})},
	};

	for (const Bad &x : bad)
		report(gs_batch_sums_run(s, f, waited_slot, 0, 1, &x.e, res, err, sizeof(err)) ==
			   GS_INVALID_ARGUMENT, std::string("refused: ") + x.what);
	for (int k = 0; k <= GS_SUM_MAX_EXPRS; k++)
		e[k] = expr({ins(GS_NUM_COLUMN, C_A)});
	report(gs_batch_sums_run(s, f, waited_slot, 0, 0, e, res, err, sizeof(err)) == GS_INVALID_ARGUMENT,
		   "refused: no programs");
	report(gs_batch_sums_run(s, f, waited_slot, 0, GS_SUM_MAX_EXPRS + 1, e, res, err, sizeof(err)) ==
		   GS_INVALID_ARGUMENT, "refused: more programs than GS_SUM_MAX_EXPRS");
	report(gs_batch_sums_run(s, f, waited_slot, npass + 1, 1, e, res, err, sizeof(err)) ==
		   GS_INVALID_ARGUMENT, "refused: 'from' past the batch");
	report(gs_batch_sums_run(s, f, 1 - waited_slot, 0, 1, e, res, err, sizeof(err)) ==
		   GS_INVALID_ARGUMENT, "refused: a slot in flight");
	report(gs_batch_sums_run(s, f, 2, 0, 1, e, res, err, sizeof(err)) == GS_INVALID_ARGUMENT,
		   "refused: a slot the filter does not have");
	report(gs_batch_sums_run(NULL, f, waited_slot, 0, 1, e, res, err, sizeof(err)) ==
		   GS_INVALID_ARGUMENT, "refused: no buffers");
}

/* Device memory in use, bytes. */
size_t memory_in_use()
{
	size_t		free_b = 0;
	size_t		total_b = 0;

	cudaMemGetInfo(&free_b, &total_b);
	return total_b - free_b;
}

}								/* namespace */

int
main(int argc, char **argv)
{
	bool		quick = false;
	gs_device_info info;
	int64_t		max_rows;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			g_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--verbose"))
			g_verbose = true;
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--seed N] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	max_rows = quick ? 262147 : ((int64_t) 1 << 20) + 7;
	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason[0] ? info.reason : "probe failed");
		return 0;
	}
	printf("device: %s, compute capability %d.%d; seed %llu, max_rows %lld\n", info.name,
		   info.cc_major, info.cc_minor, (unsigned long long) g_seed, (long long) max_rows);
	fflush(stdout);

	{
		gs_filter  *f = NULL;
		gs_batch_sums *s = NULL;
		char		err[512] = "";
		gs_status	st = make_filter(&f, max_rows, err, sizeof(err));
		const int64_t sizes[] = {0, 1, 31, 33, 1023, 1025, 100003, max_rows};
		int			case_no = 0;

		if (st == GS_OK)
			st = gs_batch_sums_create(&s, err, sizeof(err));
		report(st == GS_OK, std::string("filter and sums") + (st != GS_OK ? std::string(": ") + err : ""));
		if (st != GS_OK)
			return 1;
		for (int64_t n : sizes)
			for (int pred = P_ALL; pred <= P_NONE; pred++)
				for (int mode = 0; mode < V_COUNT; mode++)
				{
					Batch		b;
					int			slot = case_no % 2;
					int			nan_pct = case_no % 3 == 0 ? 0 : 5;
					int			null_pct = case_no % 4 == 0 ? 0 : 10;

					make_batch(b, n, pred, mode, nan_pct, null_pct, g_seed * 1000003 + case_no);
					case_no++;
					err[0] = '\0';
					st = stage_submit(f, slot, b, err, sizeof(err));
					if (st != GS_OK)
					{
						report(false, b.desc + ": submit " + err);
						continue;
					}
					if (!wait_slot(f, slot, b))
						continue;
					check_batch(s, f, slot, b, 0);
					check_batch(s, f, slot, b, (int64_t) b.pass.size() / 3);
					check_batch(s, f, slot, b, (int64_t) b.pass.size());
					if (n == 1025 && pred == P_HALF && mode == V_SMALL)
					{
						/* the other slot in flight: submitted, not waited for */
						Batch		next;

						make_batch(next, 33, P_ALL, V_SMALL, 0, 0, 7);
						if (stage_submit(f, 1 - slot, next, err, sizeof(err)) != GS_OK)
							report(false, std::string("submit for the refusals: ") + err);
						check_refusals(s, f, slot, (int64_t) b.pass.size());
						wait_slot(f, 1 - slot, next);
					}
				}
		gs_batch_sums_destroy(s);
		gs_filter_destroy(f);
	}

	{
		size_t		before = memory_in_use();
		bool		ok = true;

		for (int cycle = 0; cycle < 50 && ok; cycle++)
		{
			gs_filter  *f = NULL;
			gs_batch_sums *s = NULL;
			char		err[512] = "";
			Batch		b;
			gs_sum_expr e = expr({ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL)});
			gs_sum_result r;

			make_batch(b, 4099, P_HALF, V_DECIMAL15, 1, 1, cycle);
			ok = make_filter(&f, 8192, err, sizeof(err)) == GS_OK &&
				gs_batch_sums_create(&s, err, sizeof(err)) == GS_OK &&
				stage_submit(f, 0, b, err, sizeof(err)) == GS_OK && wait_slot(f, 0, b) &&
				gs_batch_sums_run(s, f, 0, 0, 1, &e, &r, err, sizeof(err)) == GS_OK;
			gs_batch_sums_destroy(s);
			gs_filter_destroy(f);
			if (!ok)
				report(false, std::string("memory cycle ") + std::to_string(cycle) + ": " + err);
		}
		report(ok && memory_in_use() == before,
			   "device memory unchanged over 50 cycles (" + std::to_string(before) + " -> " +
			   std::to_string(memory_in_use()) + " bytes)");
	}

	printf("batchsum_test: %d passed, %d failed\n", g_passed, g_failed);
	return g_failed > 0 ? 1 : 0;
}
