/*
 * filter_test.cu
 *	  Tests of the device WHERE filter (cuda/filter_*.cu) against the CPU
 *	  reference evaluator of filter_ref.h, written independently of the
 *	  device code.
 *
 *	  - compaction: sizes 0 .. 2^20 (2^24, 2^28 with --big), selectivities
 *	    0, one row, 1%, 50%, 99%, 100%, on the range path (with and without
 *	    NULLs) and the interpreter; exact positions and order;
 *	  - predicates: every opcode and kind over a table of edge values (NULL,
 *	    NaN, +-Infinity, -0, denormals, integer extremes), both paths;
 *	  - validation, slots, device-pointer entry point, memory release.
 *
 *	  Prints one line per case and "N passed, M failed"; exits 1 on failure.
 *	  Without a GPU prints "SKIP: no GPU (<reason>)" and exits 0.
 *	  Usage: filter_test [--big | --big-only | --quick] [--seed N] [--quiet]
 *	  (--quick: a subset for compute-sanitizer; --quiet: failure lines only)
 */
#include <float.h>
#include <math.h>
#include <cmath>
#include <limits>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gpusel_filter.h"
#include "predicate.cuh"
#include "filter_ref.h"

static int	g_passed, g_failed, g_verbose = 1;

/* Records one case's outcome and prints its line. */
static void
report(bool ok, const char *fmt, ...)
{
	va_list		ap;

	ok ? ++g_passed : ++g_failed;
	if (ok && !g_verbose)
		return;
	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* splitmix64: small deterministic generator. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static uint64_t
rnd(void)
{
	uint64_t	z = (g_rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------
 * Running on the device
 * ------------------------------------------------------------------------ */

/* Creates a filter for t, stages t, submits, waits; positions and flags out. */
static gs_status
gpu_filter(const Prog &p, Table &t, bool force_interp, std::vector<uint32_t> &pos,
		   int &rowerr, int &path, char *err, size_t errlen)
{
	gs_filter  *f;
	gs_program	prog = p.prog();
	gs_status	st = gs_filter_create(&f, &prog, (int) t.types.size(), t.types.data(), t.n, 1, err, errlen);

	if (st != GS_OK)
		return st;
	gs_filter_force_interpreter(f, force_interp);
	path = force_interp ? GS_FILTER_PATH_INTERPRETER : gs_filter_get_path(f);
	for (size_t c = 0; c < t.types.size(); ++c)
	{
		memcpy(gs_filter_values(f, 0, (int) c), t.vals[c].data(), (size_t) t.n * width_of(t.types[c]));
		memcpy(gs_filter_nulls(f, 0, (int) c), t.nulls[c].data(), (size_t) t.n);
	}
	st = gs_filter_submit(f, 0, t.n, t.has_nulls.data(), err, errlen);
	if (st == GS_OK)
	{
		const uint32_t *dp;
		int64_t		cnt;
		double		ms;

		st = gs_filter_wait(f, 0, &dp, &cnt, &rowerr, &ms, err, errlen);
		if (st == GS_OK)
			pos.assign(dp, dp + cnt);
	}
	gs_filter_destroy(f);
	return st;
}

/* Describes the first difference between two position lists. */
static std::string
diff_positions(const std::vector<uint32_t> &g, const std::vector<uint32_t> &r)
{
	char		buf[160];
	size_t		i = 0;

	while (i < g.size() && i < r.size() && g[i] == r[i])
		++i;
	if (i == g.size() && i == r.size())
		return "";
	snprintf(buf, sizeof(buf), "gpu %zu rows, ref %zu rows, first difference at index %zu (gpu %lld, ref %lld)",
			 g.size(), r.size(), i, i < g.size() ? (long long) g[i] : -1LL,
			 i < r.size() ? (long long) r[i] : -1LL);
	return buf;
}

/* Runs p on the device (default path, and the interpreter when that differs) and compares with the reference. */
static void
check_program(const Prog &p, Table &t, const char *tag, const std::vector<uint32_t> *given = NULL)
{
	std::vector<uint32_t> ref, gpu;
	bool		referr = false;

	if (given)
		ref = *given;
	else
		ref_filter(p, t, ref, referr);
	for (int forced = 0; forced < 2; ++forced)
	{
		char		err[512] = "";
		int			rowerr = 0, path = 0;
		gs_status	st = gpu_filter(p, t, forced, gpu, rowerr, path, err, sizeof(err));

		if (st != GS_OK)
		{
			report(false, "%s %-46s status %d: %s", tag, p.name.c_str(), (int) st, err);
			return;
		}
		std::string d = diff_positions(gpu, ref);

		report(d.empty() && (rowerr != 0) == referr,
			   "%s %-46s %-6s n=%lld pass=%zu row_error gpu=%d ref=%d %s", tag, p.name.c_str(),
			   path == GS_FILTER_PATH_RANGE ? "range" : "interp", (long long) t.n, ref.size(),
			   rowerr, (int) referr, d.c_str());
		if (path == GS_FILTER_PATH_INTERPRETER)
			break;				/* both runs would be the interpreter */
	}
}

/* ------------------------------------------------------------------------
 * Compaction: sizes x selectivities
 * ------------------------------------------------------------------------ */

static void
test_compaction(const std::vector<int64_t> &sizes)
{
	for (int64_t n : sizes)
	{
		Table		t;

		t.n = n;
		t.add(GS_COL_INT4, false);
		t.add(GS_COL_INT4, true);
		for (int64_t r = 0; r < n; ++r)
		{
			int32_t		x = (int32_t) (rnd() % 10000);

			t.v<int32_t>(0)[r] = x;
			t.v<int32_t>(1)[r] = x;
			t.nulls[1][r] = rnd() % 7 == 0;
		}
		/* thresholds: 0%, 1%, 50%, 99%, 100% of values below */
		const int	thr[] = {0, 100, 5000, 9900, 10000};

		for (int c = 0; c < 2; ++c)
			for (int th : thr)
			{
				Prog		p("x<" + std::to_string(th) + (c ? " nulls" : ""));
				std::vector<uint32_t> ref;

				for (int64_t r = 0; r < n; ++r)
					if (!t.isnull(c, r) && t.v<int32_t>(c)[r] < th)
						ref.push_back((uint32_t) r);
				p.col(c, GS_VK_INT4).ci(GS_VK_INT4, th).bin(GS_OP_LT, GS_VK_INT4);
				check_program(p, t, "compact", &ref);
			}
		/* exactly one row: first, last, somewhere */
		if (n > 0)
		{
			int64_t		spots[3] = {0, n - 1, (int64_t) (rnd() % n)};

			for (int64_t spot : spots)
			{
				int32_t		save = t.v<int32_t>(0)[spot];
				Prog		p("one row at " + std::to_string(spot));
				std::vector<uint32_t> ref(1, (uint32_t) spot);

				t.v<int32_t>(0)[spot] = -5;
				p.col(0, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_LT, GS_VK_INT4);
				check_program(p, t, "compact", &ref);
				t.v<int32_t>(0)[spot] = save;
			}
		}
	}
}

/* ------------------------------------------------------------------------
 * Predicates over edge values
 * ------------------------------------------------------------------------ */

enum { C_B = 0, C_I2, C_I4, C_I8, C_F4, C_F8, C_I4N, C_F8N, C_F4B, NCOLS };

/* Table of random and edge values, NULLs in the nullable columns. */
static void
make_edge_table(Table &t, int64_t n)
{
	static const int16_t e2[] = {0, 1, -1, 2, 7, -7, 100, 32767, -32768, 181, -182, 255, 256};
	static const int32_t e4[] = {0, 1, -1, 2, 7, -7, INT32_MAX, INT32_MIN, INT32_MIN + 1, 46341, -46341,
	16777217, 65536, 3};
	static const int64_t e8[] = {0, 1, -1, 2, 7, -7, INT64_MAX, INT64_MIN, INT64_MIN + 1, 3037000500LL,
	-3037000500LL, 9007199254740993LL, 4294967296LL};
	const float fi = INFINITY;
	const double di = INFINITY;
	static const float e4f[] = {0.0f, -0.0f, 1.0f, -1.0f, NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX,
	FLT_MIN, 1e-45f, -1e-45f, 1e20f, 1e-20f, 0.1f, 3.0f, 16777216.0f};
	static const double e8f[] = {0.0, -0.0, 1.0, -1.0, NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX,
	DBL_MIN, 5e-324, -5e-324, 1e300, 1e-300, 0.1, 3.0, 1.0000000000000002, 16777216.0, 1e-8};

	(void) fi;
	(void) di;
	t.n = n;
	t.add(GS_COL_BOOL, true);
	t.add(GS_COL_INT2, true);
	t.add(GS_COL_INT4, true);
	t.add(GS_COL_INT8, true);
	t.add(GS_COL_FLOAT4, true);
	t.add(GS_COL_FLOAT8, true);
	t.add(GS_COL_INT4, false);
	t.add(GS_COL_FLOAT8, false);
	t.add(GS_COL_FLOAT4, false);
#define PICK(arr) arr[rnd() % (sizeof(arr) / sizeof(arr[0]))]
	for (int64_t r = 0; r < n; ++r)
	{
		const bool	edge = rnd() % 10 < 4;

		t.v<uint8_t>(C_B)[r] = rnd() & 1;
		t.v<int16_t>(C_I2)[r] = edge ? PICK(e2) : (int16_t) (rnd() % 2001 - 1000);
		t.v<int32_t>(C_I4)[r] = edge ? PICK(e4) : (int32_t) (rnd() % 200001 - 100000);
		t.v<int64_t>(C_I8)[r] = edge ? PICK(e8) : (int64_t) (rnd() % 2000000001ULL) - 1000000000LL;
		t.v<float>(C_F4)[r] = edge ? PICK(e4f) : (float) ((double) (rnd() % 2000001) / 1000.0 - 1000.0);
		t.v<double>(C_F8)[r] = edge ? PICK(e8f) : (double) (rnd() % 2000001) / 1000.0 - 1000.0;
		t.v<int32_t>(C_I4N)[r] = rnd() % 10 < 2 ? 0 : (rnd() % 10 < 2 ? PICK(e4) : (int32_t) (rnd() % 201) - 100);
		t.v<double>(C_F8N)[r] = rnd() % 10 < 2 ? PICK(e8f) : (double) (rnd() % 2001) / 10.0 - 100.0;
		t.v<float>(C_F4B)[r] = rnd() % 10 < 3 ? PICK(e4f) : (float) ((double) (rnd() % 2001) / 10.0 - 100.0);
		for (int c = 0; c < NCOLS; ++c)
			t.nulls[c][r] = t.has_nulls[c] && rnd() % 10 == 0;
	}
#undef PICK
}

static const char *const opname[] = {"col", "const", "cast", "=", "<>", "<", "<=", ">", ">=",
"+", "-", "*", "/", "%", "neg", "and", "or", "not", "isnull", "notnull", "istrue", "isnottrue",
"isfalse", "isnotfalse", "in", "jf", "jt", "jnt"};

/* One "a op b" comparison program from a column and a constant, either order. */
static void
cmp_case(Table &t, int col, int ckind, int kind, int op, bool isf, double f, int64_t i, bool flip)
{
	char		nm[128];
	Prog		p("");

	if (isf)
		snprintf(nm, sizeof(nm), "c%d %s %g (k%d,c%d)%s", col, opname[op], f, kind, ckind, flip ? " flip" : "");
	else
		snprintf(nm, sizeof(nm), "c%d %s %lld (k%d,c%d)%s", col, opname[op], (long long) i, kind, ckind, flip ? " flip" : "");
	p.name = nm;
	if (flip)
		isf ? p.cf(kind, f) : p.ci(kind, i);
	p.col(col, ckind);
	if (!flip)
		isf ? p.cf(kind, f) : p.ci(kind, i);
	p.bin(op, kind);
	check_program(p, t, "cmp");
}

static void
test_comparisons(Table &t)
{
	const int64_t i2c[] = {0, -1, 7, -32768, 32767, 40000, -40000};
	const int64_t i4c[] = {0, -1, 7, INT32_MIN, INT32_MAX, 3000000000LL, -3000000000LL};
	const int64_t i8c[] = {0, -1, 7, INT64_MIN, INT64_MAX, 9007199254740993LL};
	const double fc[] = {0.0, -0.0, 1.0, NAN, INFINITY, -INFINITY, 0.1, 1e-45, FLT_MAX, DBL_MAX, 3.0};

	for (int op = GS_OP_EQ; op <= GS_OP_GE; ++op)
	{
		for (int64_t k : i2c)
			if (k >= -32768 && k <= 32767)
				cmp_case(t, C_I2, GS_VK_INT2, GS_VK_INT2, op, false, 0, k, false);
		for (int64_t k : i2c)
			cmp_case(t, C_I2, GS_VK_INT2, GS_VK_INT8, op, false, 0, k, k == 7);
		for (int64_t k : i4c)
			if (k >= INT32_MIN && k <= INT32_MAX)
				cmp_case(t, C_I4, GS_VK_INT4, GS_VK_INT4, op, false, 0, k, k == -1);
		for (int64_t k : i4c)
			cmp_case(t, C_I4, GS_VK_INT4, GS_VK_INT8, op, false, 0, k, false);
		for (int64_t k : i8c)
			cmp_case(t, C_I8, GS_VK_INT8, GS_VK_INT8, op, false, 0, k, k == 7);
		for (double k : fc)
		{
			cmp_case(t, C_F4, GS_VK_FLOAT4, GS_VK_FLOAT4, op, true, k, 0, false);
			cmp_case(t, C_F4, GS_VK_FLOAT4, GS_VK_FLOAT8, op, true, k, 0, k == 0.1);
			cmp_case(t, C_F8, GS_VK_FLOAT8, GS_VK_FLOAT8, op, true, k, 0, k == 3.0);
			cmp_case(t, C_F4B, GS_VK_FLOAT4, GS_VK_FLOAT4, op, true, k, 0, false);
		}
		cmp_case(t, C_B, GS_VK_BOOL, GS_VK_BOOL, op, false, 0, 1, false);
		cmp_case(t, C_B, GS_VK_BOOL, GS_VK_BOOL, op, false, 0, 0, true);

		/* column against column, mixed widths */
		Prog		a(std::string("c2 ") + opname[op] + " c6 int4"), b(std::string("c4 ") + opname[op] + " c5 f48"),
					c(std::string("c1 ") + opname[op] + " c3 int28"), d(std::string("c5 ") + opname[op] + " c7 f8");

		a.col(C_I4, GS_VK_INT4).col(C_I4N, GS_VK_INT4).bin(op, GS_VK_INT4);
		b.col(C_F4, GS_VK_FLOAT4).col(C_F8, GS_VK_FLOAT8).bin(op, GS_VK_FLOAT8);
		c.col(C_I2, GS_VK_INT2).col(C_I8, GS_VK_INT8).bin(op, GS_VK_INT8);
		d.col(C_F8, GS_VK_FLOAT8).col(C_F8N, GS_VK_FLOAT8).bin(op, GS_VK_FLOAT8);
		check_program(a, t, "cmp");
		check_program(b, t, "cmp");
		check_program(c, t, "cmp");
		check_program(d, t, "cmp");
	}
}

/* "(a op b) cmp k" for an arithmetic op over two columns of a kind. */
static void
arith_case(Table &t, const char *nm, int ca, int ka, int cb, int kb, int op, int kind, int cmpop, double k)
{
	Prog		p(nm);

	p.col(ca, ka).col(cb, kb).bin(op, kind);
	if (is_f(kind))
		p.cf(kind, k);
	else
		p.ci(kind, (int64_t) k);
	p.bin(cmpop, kind);
	check_program(p, t, "arith");
}

static void
test_arithmetic(Table &t)
{
	for (int op = GS_OP_ADD; op <= GS_OP_MOD; ++op)
	{
		std::string o = opname[op];

		arith_case(t, ("i2 " + o + " i2 > 3").c_str(), C_I2, GS_VK_INT2, C_I2, GS_VK_INT2, op, GS_VK_INT2, GS_OP_GT, 3);
		arith_case(t, ("i2 " + o + " i4n >= 0 (k4)").c_str(), C_I2, GS_VK_INT2, C_I4N, GS_VK_INT4, op, GS_VK_INT4, GS_OP_GE, 0);
		arith_case(t, ("i4 " + o + " i4n < 5").c_str(), C_I4, GS_VK_INT4, C_I4N, GS_VK_INT4, op, GS_VK_INT4, GS_OP_LT, 5);
		arith_case(t, ("i4 " + o + " i4 = 0").c_str(), C_I4, GS_VK_INT4, C_I4, GS_VK_INT4, op, GS_VK_INT4, GS_OP_EQ, 0);
		arith_case(t, ("i8 " + o + " i4n > -3 (k8)").c_str(), C_I8, GS_VK_INT8, C_I4N, GS_VK_INT4, op, GS_VK_INT8, GS_OP_GT, -3);
		arith_case(t, ("i8 " + o + " i8 <> 1").c_str(), C_I8, GS_VK_INT8, C_I8, GS_VK_INT8, op, GS_VK_INT8, GS_OP_NE, 1);
		if (op == GS_OP_MOD)
			continue;
		arith_case(t, ("f4 " + o + " f4b > 1").c_str(), C_F4, GS_VK_FLOAT4, C_F4B, GS_VK_FLOAT4, op, GS_VK_FLOAT4, GS_OP_GT, 1);
		arith_case(t, ("f4 " + o + " f4 <= 0").c_str(), C_F4, GS_VK_FLOAT4, C_F4, GS_VK_FLOAT4, op, GS_VK_FLOAT4, GS_OP_LE, 0);
		arith_case(t, ("f8 " + o + " f8n > 1").c_str(), C_F8, GS_VK_FLOAT8, C_F8N, GS_VK_FLOAT8, op, GS_VK_FLOAT8, GS_OP_GT, 1);
		arith_case(t, ("f8 " + o + " f8 = 1").c_str(), C_F8, GS_VK_FLOAT8, C_F8, GS_VK_FLOAT8, op, GS_VK_FLOAT8, GS_OP_EQ, 1);
		arith_case(t, ("f4 " + o + " f8 < 2 (k8)").c_str(), C_F4, GS_VK_FLOAT4, C_F8, GS_VK_FLOAT8, op, GS_VK_FLOAT8, GS_OP_LT, 2);
	}
	/* constants: MIN / -1 overflows, MIN % -1 is 0, truncation, rounding in float4 */
	{
		Prog		a("i4 / -1 > 0"), b("i4 % -1 = 0"), c("i4 / 7 = -1"), d("i4 % 7 = -3"), e("f4 + 1e-8 = 1 (float4)"),
					f("f4 + 1e-8 = 1 (float8)"), g("i2 * 1000 > 0 (k2)"), h("i2 * 1000 > 0 (k4)");

		a.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, -1).bin(GS_OP_DIV, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_GT, GS_VK_INT4);
		b.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, -1).bin(GS_OP_MOD, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_EQ, GS_VK_INT4);
		c.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, 7).bin(GS_OP_DIV, GS_VK_INT4).ci(GS_VK_INT4, -1).bin(GS_OP_EQ, GS_VK_INT4);
		d.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, 7).bin(GS_OP_MOD, GS_VK_INT4).ci(GS_VK_INT4, -3).bin(GS_OP_EQ, GS_VK_INT4);
		e.col(C_F4, GS_VK_FLOAT4).cf(GS_VK_FLOAT4, 1e-8).bin(GS_OP_ADD, GS_VK_FLOAT4).cf(GS_VK_FLOAT4, 1.0).bin(GS_OP_EQ, GS_VK_FLOAT4);
		f.col(C_F4, GS_VK_FLOAT4).cf(GS_VK_FLOAT8, 1e-8).bin(GS_OP_ADD, GS_VK_FLOAT8).cf(GS_VK_FLOAT8, 1.0).bin(GS_OP_EQ, GS_VK_FLOAT8);
		g.col(C_I2, GS_VK_INT2).ci(GS_VK_INT2, 1000).bin(GS_OP_MUL, GS_VK_INT2).ci(GS_VK_INT2, 0).bin(GS_OP_GT, GS_VK_INT2);
		h.col(C_I2, GS_VK_INT2).ci(GS_VK_INT4, 1000).bin(GS_OP_MUL, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_GT, GS_VK_INT4);
		for (Prog *p : {&a, &b, &c, &d, &e, &f, &g, &h})
			check_program(*p, t, "arith");
	}
	/* unary minus */
	{
		const int	cols[] = {C_I2, C_I4, C_I8, C_F4, C_F8};
		const int	kinds[] = {GS_VK_INT2, GS_VK_INT4, GS_VK_INT8, GS_VK_FLOAT4, GS_VK_FLOAT8};

		for (int i = 0; i < 5; ++i)
		{
			Prog		p("-c" + std::to_string(cols[i]) + " < 0");

			p.col(cols[i], kinds[i]).un(GS_OP_NEG, kinds[i]);
			is_f(kinds[i]) ? p.cf(kinds[i], 0) : p.ci(kinds[i], 0);
			p.bin(GS_OP_LT, kinds[i]);
			check_program(p, t, "neg");
		}
		Prog		q("-(i2) in int4 > 32767");

		q.col(C_I2, GS_VK_INT2).un(GS_OP_NEG, GS_VK_INT4).ci(GS_VK_INT4, 32767).bin(GS_OP_GT, GS_VK_INT4);
		check_program(q, t, "neg");
	}
	/* range guards: a row error outside the bounds, NULL passing, the value unchanged */
	{
		Prog		a("guard(i8, -5e8 .. 5e8) > 0"), b("guard(i4n, -100 .. 100) <= 7"),
					c("guard(i2 in int8, min .. max) < 50"), d("guard(i8 * 3, -1e9 .. 2e9) = 0 or i4 > 0");

		a.col(C_I8, GS_VK_INT8).guard(GS_VK_INT8, -500000000, 500000000).ci(GS_VK_INT8, 0).bin(GS_OP_GT, GS_VK_INT8);
		b.col(C_I4N, GS_VK_INT4).guard(GS_VK_INT4, -100, 100).ci(GS_VK_INT4, 7).bin(GS_OP_LE, GS_VK_INT4);
		c.col(C_I2, GS_VK_INT2).guard(GS_VK_INT8, INT64_MIN, INT64_MAX).ci(GS_VK_INT8, 50).bin(GS_OP_LT, GS_VK_INT8);
		d.col(C_I8, GS_VK_INT8).ci(GS_VK_INT8, 3).bin(GS_OP_MUL, GS_VK_INT8)
			.guard(GS_VK_INT8, -1000000000, 2000000000).ci(GS_VK_INT8, 0).bin(GS_OP_EQ, GS_VK_INT8)
			.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_GT, GS_VK_INT4).orn(2);
		for (Prog *p : {&a, &b, &c, &d})
			check_program(*p, t, "guard");
	}
}

static void
test_casts(Table &t)
{
	struct
	{
		int			col, from, to, cmpop;
		double		k;
		const char *nm;
	}			cs[] = {
		{C_I2, GS_VK_INT2, GS_VK_INT4, GS_OP_GT, 100, "i2::int4 > 100"},
		{C_I2, GS_VK_INT2, GS_VK_INT8, GS_OP_LT, -100, "i2::int8 < -100"},
		{C_I4, GS_VK_INT4, GS_VK_INT8, GS_OP_GE, 46341, "i4::int8 >= 46341"},
		{C_I4, GS_VK_INT4, GS_VK_FLOAT4, GS_OP_EQ, 16777216.0, "i4::float4 = 16777216"},
		{C_I4, GS_VK_INT4, GS_VK_FLOAT8, GS_OP_EQ, 16777217.0, "i4::float8 = 16777217"},
		{C_I8, GS_VK_INT8, GS_VK_FLOAT8, GS_OP_EQ, 9007199254740992.0, "i8::float8 = 2^53"},
		{C_I8, GS_VK_INT8, GS_VK_FLOAT4, GS_OP_GT, 1e9, "i8::float4 > 1e9"},
		{C_I2, GS_VK_INT2, GS_VK_FLOAT4, GS_OP_LE, -7, "i2::float4 <= -7"},
		{C_I2, GS_VK_INT2, GS_VK_FLOAT8, GS_OP_GT, 255.5, "i2::float8 > 255.5"},
		{C_F4, GS_VK_FLOAT4, GS_VK_FLOAT8, GS_OP_EQ, 0.1, "f4::float8 = 0.1"},
		{C_F4, GS_VK_FLOAT4, GS_VK_FLOAT8, GS_OP_EQ, (double) 0.1f, "f4::float8 = (float)0.1"},
	};

	for (auto &c : cs)
	{
		Prog		p(c.nm);

		p.col(c.col, c.from).cast(c.from, c.to);
		is_f(c.to) ? p.cf(c.to, c.k) : p.ci(c.to, (int64_t) c.k);
		p.bin(c.cmpop, c.to);
		check_program(p, t, "cast");
	}
	Prog		q("i4::float4 * 3 > 1e5 (float4 math)");

	q.col(C_I4, GS_VK_INT4).cast(GS_VK_INT4, GS_VK_FLOAT4).cf(GS_VK_FLOAT4, 3).bin(GS_OP_MUL, GS_VK_FLOAT4)
		.cf(GS_VK_FLOAT4, 1e5).bin(GS_OP_GT, GS_VK_FLOAT4);
	check_program(q, t, "cast");
}

static void
test_logic(Table &t)
{
	/* three nullable conditions combined with AND/OR/NOT, wrapped in every IS test */
	for (int wrap = -1; wrap <= GS_OP_IS_NOT_FALSE; ++wrap)
	{
		if (wrap >= 0 && wrap < GS_OP_NOT)
			continue;
		for (int comb = 0; comb < 4; ++comb)
		{
			Prog		p(std::string(comb == 0 ? "and3" : comb == 1 ? "or3" : comb == 2 ? "not(and2)" : "or(b, and(..))") +
						  " wrapped " + (wrap < 0 ? "none" : opname[wrap]));

			p.col(C_B, GS_VK_BOOL);
			p.col(C_I2, GS_VK_INT2).ci(GS_VK_INT2, 0).bin(GS_OP_GT, GS_VK_INT2);
			if (comb == 2)
				p.andn(2).un(GS_OP_NOT);
			else
			{
				p.col(C_F8, GS_VK_FLOAT8).cf(GS_VK_FLOAT8, 0).bin(GS_OP_LT, GS_VK_FLOAT8);
				if (comb == 0)
					p.andn(3);
				else if (comb == 1)
					p.orn(3);
				else
					p.andn(2).orn(2);
			}
			if (wrap >= 0)
				p.un(wrap);
			check_program(p, t, "logic");
		}
	}
	const int	cols[] = {C_B, C_I2, C_I4, C_I8, C_F4, C_F8, C_I4N};
	const int	kinds[] = {GS_VK_BOOL, GS_VK_INT2, GS_VK_INT4, GS_VK_INT8, GS_VK_FLOAT4, GS_VK_FLOAT8, GS_VK_INT4};

	for (int i = 0; i < 7; ++i)
		for (int op = GS_OP_IS_NULL; op <= GS_OP_IS_NOT_NULL; ++op)
		{
			Prog		p(std::string(opname[op]) + " c" + std::to_string(cols[i]));

			p.col(cols[i], kinds[i]).un(op);
			check_program(p, t, "null");
		}
	/* bare bool column, NOT of it, constants */
	{
		Prog		a("c0"), b("not c0"), c("const true"), d("const null"), e("null = c2 is null"), f("const false or c0");

		a.col(C_B, GS_VK_BOOL);
		b.col(C_B, GS_VK_BOOL).un(GS_OP_NOT);
		c.ci(GS_VK_BOOL, 1);
		d.cnull(GS_VK_BOOL);
		e.cnull(GS_VK_INT4).col(C_I4, GS_VK_INT4).bin(GS_OP_EQ, GS_VK_INT4).un(GS_OP_IS_NULL);
		f.ci(GS_VK_BOOL, 0).col(C_B, GS_VK_BOOL).orn(2);
		for (Prog *p : {&a, &b, &c, &d, &e, &f})
			check_program(*p, t, "logic");
	}
}

static void
test_in_lists(Table &t)
{
	struct Case
	{
		const char *nm;
		int			col, ckind, kind;
		std::vector<double> fv;
		std::vector<int64_t> iv;
		std::vector<int> nulls;
		int			wrap;
	};
	std::vector<Case> cs = {
		{"i4 in (1,2,MIN)", C_I4, GS_VK_INT4, GS_VK_INT4, {}, {1, 2, INT32_MIN}, {}, -1},
		{"i4 in (1,NULL)", C_I4, GS_VK_INT4, GS_VK_INT4, {}, {1, 0}, {0, 1}, -1},
		{"i4 in (1,NULL) is null", C_I4, GS_VK_INT4, GS_VK_INT4, {}, {1, 0}, {0, 1}, GS_OP_IS_NULL},
		{"not i4 in (1,NULL)", C_I4, GS_VK_INT4, GS_VK_INT4, {}, {1, 0}, {0, 1}, GS_OP_NOT},
		{"i4 in () is false", C_I4, GS_VK_INT4, GS_VK_INT4, {}, {}, {}, GS_OP_IS_FALSE},
		{"not i4 in ()", C_I4, GS_VK_INT4, GS_VK_INT4, {}, {}, {}, GS_OP_NOT},
		{"i4 in (big int8) k8", C_I4, GS_VK_INT4, GS_VK_INT8, {}, {3000000000LL, -1, INT32_MAX}, {}, -1},
		{"i2 in (-32768, 7, 256)", C_I2, GS_VK_INT2, GS_VK_INT2, {}, {-32768, 7, 256}, {}, -1},
		{"i8 in (MAX, MIN, 0)", C_I8, GS_VK_INT8, GS_VK_INT8, {}, {INT64_MAX, INT64_MIN, 0}, {}, -1},
		{"f8 in (NaN, -0)", C_F8, GS_VK_FLOAT8, GS_VK_FLOAT8, {NAN, -0.0}, {}, {}, -1},
		{"f8 in (inf, NULL) is not false", C_F8, GS_VK_FLOAT8, GS_VK_FLOAT8, {INFINITY, 0}, {}, {0, 1}, GS_OP_IS_NOT_FALSE},
		{"f4 in (0.1, NaN, 1e-45) k4", C_F4, GS_VK_FLOAT4, GS_VK_FLOAT4, {0.1, NAN, 1e-45}, {}, {}, -1},
		{"f4 in (0.1, -inf) k8", C_F4, GS_VK_FLOAT4, GS_VK_FLOAT8, {0.1, -INFINITY}, {}, {}, -1},
		{"b in (true)", C_B, GS_VK_BOOL, GS_VK_BOOL, {}, {1}, {}, -1},
	};

	for (auto &c : cs)
	{
		Prog		p(c.nm);

		p.col(c.col, c.ckind).in(c.kind, c.fv, c.iv, c.nulls);
		if (c.wrap >= 0)
			p.un(c.wrap);
		check_program(p, t, "in");
	}
	/* a long list (linear scan on the device) */
	{
		Prog		p("i4n in (200 values)");
		std::vector<int64_t> iv;

		for (int k = 0; k < 200; ++k)
			iv.push_back(k * 3 - 300);
		p.col(C_I4N, GS_VK_INT4).in(GS_VK_INT4, {}, iv, {});
		check_program(p, t, "in");
	}
}

static void
test_short_circuit(Table &t)
{
	/* a <> 0 AND b / a > 1: the jump keeps the division by zero unevaluated */
	{
		Prog		p("c6<>0 jf; c2/c6 > 1; and");
		Prog		q("c2/c6 > 1 (no guard: errors)");
		int			j;

		p.col(C_I4N, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_NE, GS_VK_INT4);
		j = p.jump(GS_OP_JUMP_IF_FALSE);
		p.col(C_I4, GS_VK_INT4).col(C_I4N, GS_VK_INT4).bin(GS_OP_DIV, GS_VK_INT4).ci(GS_VK_INT4, 1)
			.bin(GS_OP_GT, GS_VK_INT4).andn(2).land(j);
		q.col(C_I4, GS_VK_INT4).col(C_I4N, GS_VK_INT4).bin(GS_OP_DIV, GS_VK_INT4).ci(GS_VK_INT4, 1)
			.bin(GS_OP_GT, GS_VK_INT4);
		check_program(p, t, "short");
		check_program(q, t, "short");
	}
	/* c6 = 0 OR c2 % c6 = 1 with JUMP_IF_TRUE */
	{
		Prog		p("c6=0 jt; c2%c6 = 1; or");
		int			j;

		p.col(C_I4N, GS_VK_INT4).ci(GS_VK_INT4, 0).bin(GS_OP_EQ, GS_VK_INT4);
		j = p.jump(GS_OP_JUMP_IF_TRUE);
		p.col(C_I4, GS_VK_INT4).col(C_I4N, GS_VK_INT4).bin(GS_OP_MOD, GS_VK_INT4).ci(GS_VK_INT4, 1)
			.bin(GS_OP_EQ, GS_VK_INT4).orn(2).land(j);
		check_program(p, t, "short");
	}
	/* ExecQual chain: q1 jnt; q2 and jnt; q3 and; the float overflow in q3 only where q1, q2 true */
	{
		Prog		p("quals: c7<>0; c2 > 0; c5*c7 > 1 (jnt)");
		int			j1, j2;

		p.col(C_F8N, GS_VK_FLOAT8).cf(GS_VK_FLOAT8, 0).bin(GS_OP_NE, GS_VK_FLOAT8);
		j1 = p.jump(GS_OP_JUMP_IF_NOT_TRUE);
		p.col(C_I2, GS_VK_INT2).ci(GS_VK_INT2, 0).bin(GS_OP_GT, GS_VK_INT2).andn(2);
		j2 = p.jump(GS_OP_JUMP_IF_NOT_TRUE);
		p.col(C_F8, GS_VK_FLOAT8).col(C_F8N, GS_VK_FLOAT8).bin(GS_OP_DIV, GS_VK_FLOAT8)
			.cf(GS_VK_FLOAT8, 1).bin(GS_OP_GT, GS_VK_FLOAT8).andn(2).land(j1).land(j2);
		check_program(p, t, "short");
	}
	/* nested: (c0 AND (c1 > 0 OR c8 / c7 < 0)) with both jumps, NULL not short-circuiting */
	{
		Prog		p("c0 jf (c1>0 jt c8/c7<0 or) and");
		int			ja, jo;

		p.col(C_B, GS_VK_BOOL);
		ja = p.jump(GS_OP_JUMP_IF_FALSE);
		p.col(C_I2, GS_VK_INT2).ci(GS_VK_INT2, 0).bin(GS_OP_GT, GS_VK_INT2);
		jo = p.jump(GS_OP_JUMP_IF_TRUE);
		p.col(C_F4B, GS_VK_FLOAT4).col(C_F8N, GS_VK_FLOAT8).bin(GS_OP_DIV, GS_VK_FLOAT8).cf(GS_VK_FLOAT8, 0)
			.bin(GS_OP_LT, GS_VK_FLOAT8).orn(2).land(jo).andn(2).land(ja);
		check_program(p, t, "short");
	}
	/* overflow guarded by a range check: i4 < 46341 AND i4 > -46341 AND i4*i4 > 100 */
	{
		Prog		p("|i4|<46341 guards i4*i4");
		int			j1, j2;

		p.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, 46341).bin(GS_OP_LT, GS_VK_INT4);
		j1 = p.jump(GS_OP_JUMP_IF_FALSE);
		p.col(C_I4, GS_VK_INT4).ci(GS_VK_INT4, -46341).bin(GS_OP_GT, GS_VK_INT4);
		j2 = p.jump(GS_OP_JUMP_IF_FALSE);
		p.col(C_I4, GS_VK_INT4).col(C_I4, GS_VK_INT4).bin(GS_OP_MUL, GS_VK_INT4).ci(GS_VK_INT4, 100)
			.bin(GS_OP_GT, GS_VK_INT4).andn(2).land(j2).andn(2).land(j1);
		check_program(p, t, "short");
	}
}

/* ------------------------------------------------------------------------
 * Validation, slots, device entry point, memory
 * ------------------------------------------------------------------------ */

static void
expect_invalid(const char *nm, const Prog &p, int ncols, const gs_coltype *types, int64_t rows = 100, int nslots = 1)
{
	gs_filter  *f = (gs_filter *) 0x1;
	char		err[256] = "";
	gs_program	prog = p.prog();
	gs_status	st = gs_filter_create(&f, &prog, ncols, types, rows, nslots, err, sizeof(err));

	report(st == GS_INVALID_ARGUMENT && f == NULL && err[0] != '\0', "invalid %-34s -> %d: %s", nm, (int) st, err);
	if (st == GS_OK)
		gs_filter_destroy(f);
}

static void
test_validation(void)
{
	const gs_coltype ty[] = {GS_COL_INT4, GS_COL_FLOAT8, GS_COL_BOOL};

	{ Prog p("bad opcode"); p.col(0, GS_VK_INT4).emit(99, 0, 0, 0, 0); expect_invalid("unknown opcode", p, 3, ty); }
	{ Prog p("col range"); p.col(5, GS_VK_INT4).ci(GS_VK_INT4, 1).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("column out of range", p, 3, ty); }
	{ Prog p("col kind"); p.col(0, GS_VK_INT8).ci(GS_VK_INT8, 1).bin(GS_OP_LT, GS_VK_INT8); expect_invalid("column kind mismatch", p, 3, ty); }
	{ Prog p("underflow"); p.col(0, GS_VK_INT4).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("stack underflow", p, 3, ty); }
	{ Prog p("const range"); p.ci(GS_VK_INT4, 1).emit(GS_OP_CONST, GS_VK_INT4, 7, 0, 1).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("constant index", p, 3, ty); }
	{ Prog p("int2 const"); p.col(0, GS_VK_INT4).ci(GS_VK_INT2, 70000).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("int2 constant out of range", p, 3, ty); }
	{ Prog p("kinds"); p.col(0, GS_VK_INT4).cf(GS_VK_FLOAT8, 1).bin(GS_OP_LT, GS_VK_FLOAT8); expect_invalid("int operand in float op", p, 3, ty); }
	{ Prog p("narrow"); p.col(0, GS_VK_INT4).ci(GS_VK_INT2, 1).bin(GS_OP_LT, GS_VK_INT2); expect_invalid("int4 operand in int2 op", p, 3, ty); }
	{ Prog p("fmod"); p.col(1, GS_VK_FLOAT8).cf(GS_VK_FLOAT8, 1).bin(GS_OP_MOD, GS_VK_FLOAT8).cf(GS_VK_FLOAT8, 1).bin(GS_OP_LT, GS_VK_FLOAT8); expect_invalid("float modulo", p, 3, ty); }
	{ Prog p("cast"); p.col(1, GS_VK_FLOAT8).cast(GS_VK_FLOAT8, GS_VK_INT4).ci(GS_VK_INT4, 1).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("float8 -> int4 cast", p, 3, ty); }
	{ Prog p("not bool"); p.col(0, GS_VK_INT4); expect_invalid("result not bool", p, 3, ty); }
	{ Prog p("two left"); p.col(2, GS_VK_BOOL).col(2, GS_VK_BOOL); expect_invalid("two values left", p, 3, ty); }
	{ Prog p("and1"); p.col(2, GS_VK_BOOL).col(2, GS_VK_BOOL).andn(1); expect_invalid("AND of 1", p, 3, ty); }
	{ Prog p("and int"); p.col(2, GS_VK_BOOL).col(0, GS_VK_INT4).andn(2); expect_invalid("AND of an int", p, 3, ty); }
	{ Prog p("back jump"); p.col(2, GS_VK_BOOL).emit(GS_OP_JUMP_IF_FALSE, 0, 0, 0, 0); expect_invalid("backward jump", p, 3, ty); }
	{ Prog p("far jump"); p.col(2, GS_VK_BOOL).emit(GS_OP_JUMP_IF_FALSE, 0, 9, 0, 0); expect_invalid("jump past the end", p, 3, ty); }
	{ Prog p("join"); p.col(2, GS_VK_BOOL); int j = p.jump(GS_OP_JUMP_IF_FALSE); p.col(2, GS_VK_BOOL).land(j).andn(2); expect_invalid("stack differs at jump target", p, 3, ty); }
	{ Prog p("in range"); p.col(0, GS_VK_INT4).emit(GS_OP_IN_CONSTS, GS_VK_INT4, 0, 3, 0); expect_invalid("IN list out of range", p, 3, ty); }
	{ Prog p("guard float"); p.col(1, GS_VK_FLOAT8).guard(GS_VK_FLOAT8, 0, 1).cf(GS_VK_FLOAT8, 1).bin(GS_OP_LT, GS_VK_FLOAT8); expect_invalid("range guard of a float", p, 3, ty); }
	{ Prog p("guard const"); p.col(0, GS_VK_INT4).emit(GS_OP_RANGE_GUARD, GS_VK_INT4, 0, 9, 0).ci(GS_VK_INT4, 1).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("range guard bound out of range", p, 3, ty); }
	{ Prog p("guard null"); int l = p.addc(0, 0, false, true); int h = p.addc(5, 0, false, false); p.col(0, GS_VK_INT4).emit(GS_OP_RANGE_GUARD, GS_VK_INT4, l, h, 0).ci(GS_VK_INT4, 1).bin(GS_OP_LT, GS_VK_INT4); expect_invalid("range guard with a NULL bound", p, 3, ty); }
	{ Prog p("max_stack"); p.col(0, GS_VK_INT4).ci(GS_VK_INT4, 1).bin(GS_OP_LT, GS_VK_INT4); p.maxd = 1; expect_invalid("max_stack too small", p, 3, ty); }
	{ Prog p("deep"); for (int k = 0; k < 33; ++k) p.col(2, GS_VK_BOOL); p.andn(33); p.maxd = 32; expect_invalid("stack deeper than 32", p, 3, ty); }
	{ Prog p("ok"); p.col(2, GS_VK_BOOL); expect_invalid("nslots 3", p, 3, ty, 100, 3); expect_invalid("max_rows -1", p, 3, ty, -1, 1); }
	{
		gs_filter  *f = (gs_filter *) 0x1;
		char		err[256] = "";
		gs_status	st = gs_filter_create(&f, NULL, 3, ty, 100, 1, err, sizeof(err));

		report(st == GS_INVALID_ARGUMENT && f == NULL, "invalid %-34s -> %d: %s", "NULL program", (int) st, err);
	}
}

/* Two slots in flight at once, then misuse of the slot protocol. */
static void
test_slots(void)
{
	const gs_coltype ty[] = {GS_COL_INT8};
	Prog		p("c0 > 10");
	gs_program	prog;
	gs_filter  *f;
	char		err[256] = "";
	const int64_t n[2] = {5000, 77777};
	bool		ok = true;

	p.col(0, GS_VK_INT8).ci(GS_VK_INT8, 10).bin(GS_OP_GT, GS_VK_INT8);
	prog = p.prog();
	if (gs_filter_create(&f, &prog, 1, ty, 100000, 2, err, sizeof(err)) != GS_OK)
	{
		report(false, "slots create: %s", err);
		return;
	}
	for (int round = 0; round < 3; ++round)
	{
		for (int s = 0; s < 2; ++s)
		{
			int64_t    *v = (int64_t *) gs_filter_values(f, s, 0);

			for (int64_t r = 0; r < n[s]; ++r)
				v[r] = (r * (s + 3) + round) % 20;
			ok &= gs_filter_submit(f, s, n[s], NULL, err, sizeof(err)) == GS_OK;
		}
		for (int s = 1; s >= 0; --s)
		{
			const uint32_t *pos;
			int64_t		cnt, want = 0;
			int			re;
			double		ms;

			ok &= gs_filter_wait(f, s, &pos, &cnt, &re, &ms, err, sizeof(err)) == GS_OK;
			for (int64_t r = 0, k = 0; r < n[s]; ++r)
				if ((r * (s + 3) + round) % 20 > 10)
				{
					ok &= k < cnt && pos[k] == (uint32_t) r;
					++k;
					++want;
				}
			ok &= cnt == want && re == 0 && ms > 0;
		}
	}
	report(ok, "slots: two batches in flight, 3 rounds %s", err);
	report(gs_filter_wait(f, 0, NULL, NULL, NULL, NULL, err, sizeof(err)) == GS_INVALID_ARGUMENT, "slots: wait without submit refused");
	gs_filter_submit(f, 0, 10, NULL, err, sizeof(err));
	report(gs_filter_submit(f, 0, 10, NULL, err, sizeof(err)) == GS_INVALID_ARGUMENT, "slots: double submit refused");
	gs_filter_wait(f, 0, NULL, NULL, NULL, NULL, err, sizeof(err));
	report(gs_filter_submit(f, 0, 100001, NULL, err, sizeof(err)) == GS_INVALID_ARGUMENT, "slots: too many rows refused");
	report(gs_filter_submit(f, 2, 10, NULL, err, sizeof(err)) == GS_INVALID_ARGUMENT, "slots: bad slot refused");
	report(gs_filter_values(f, 0, 1) == NULL && gs_filter_nulls(f, 5, 0) == NULL, "slots: bad staging requests give NULL");
	gs_filter_destroy(f);
	gs_filter_destroy(NULL);
}

/* gs_filter_launch on columns already on the device. */
static void
test_device_entry(void)
{
	const int64_t n = 300001;
	const gs_coltype ty[] = {GS_COL_FLOAT4};
	Prog		p("c0 >= 0.5 (device entry)");
	gs_program	prog;
	gs_filter  *f;
	char		err[256] = "";
	std::vector<float> h(n);
	std::vector<uint32_t> got, want;
	float	   *d = NULL;
	uint32_t   *dpos = NULL;
	gs_compact_result res;

	for (int64_t r = 0; r < n; ++r)
	{
		h[r] = (float) (rnd() % 1000) / 1000.0f;
		if (h[r] >= 0.5f)
			want.push_back((uint32_t) r);
	}
	p.col(0, GS_VK_FLOAT4).cf(GS_VK_FLOAT4, 0.5).bin(GS_OP_GE, GS_VK_FLOAT4);
	prog = p.prog();
	const bool	created = gs_filter_create(&f, &prog, 1, ty, n, 1, err, sizeof(err)) == GS_OK;
	bool		ok = created;

	ok = ok && cudaMalloc(&d, n * sizeof(float)) == cudaSuccess && cudaMalloc(&dpos, n * sizeof(uint32_t)) == cudaSuccess;
	ok = ok && cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
	for (int forced = 0; forced < 2 && ok; ++forced)
	{
		gs_dcolumn	c = {d, NULL};

		gs_filter_force_interpreter(f, forced);
		ok = gs_filter_launch(f, 0, &c, n, dpos, 0, err, sizeof(err)) == GS_OK;
		ok = ok && cudaMemcpy(&res, gs_filter_device_result(f, 0), sizeof(res), cudaMemcpyDeviceToHost) == cudaSuccess;
		got.assign(res.count, 0);
		ok = ok && cudaMemcpy(got.data(), dpos, res.count * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess;
		report(ok && got == want, "device entry %s: %u rows %s", forced ? "interp" : "range", res.count, err);
	}
	if (!ok)
		report(false, "device entry setup: %s", err);
	cudaFree(d);
	cudaFree(dpos);
	if (created)
		gs_filter_destroy(f);
}

/* Device memory in use before create equals that after destroy, also when create fails. */
static void
test_memory(void)
{
	size_t		free0, free1, total;
	const gs_coltype ty[] = {GS_COL_INT8, GS_COL_INT8, GS_COL_INT8, GS_COL_INT8, GS_COL_INT8, GS_COL_INT8};
	Prog		p("c0=c1 and c2=c3 and c4=c5");
	gs_program	prog;
	char		err[256];
	gs_status	st = GS_OK;

	for (int c = 0; c < 6; c += 2)
		p.col(c, GS_VK_INT8).col(c + 1, GS_VK_INT8).bin(GS_OP_EQ, GS_VK_INT8);
	p.andn(3);
	prog = p.prog();
	{
		/* warm-up cycle: first-use allocations of the runtime stay out of the count */
		gs_filter  *f;

		if (gs_filter_create(&f, &prog, 6, ty, 1 << 20, 2, err, sizeof(err)) == GS_OK)
			gs_filter_destroy(f);
	}
	cudaDeviceSynchronize();
	cudaMemGetInfo(&free0, &total);
	for (int k = 0; k < 10; ++k)
	{
		gs_filter  *f;

		st = gs_filter_create(&f, &prog, 6, ty, 1 << 20, 2, err, sizeof(err));
		if (st != GS_OK)
			break;
		gs_filter_destroy(f);
	}
	cudaMemGetInfo(&free1, &total);
	report(st == GS_OK && free0 == free1, "memory: 10 create/destroy cycles leave %lld bytes behind",
		   (long long) free0 - (long long) free1);

	/* 6 int8 columns of ~2^32 rows need > 200 GB on the device: create fails cleanly */
	{
		gs_filter  *f = (gs_filter *) 0x1;

		err[0] = '\0';
		st = gs_filter_create(&f, &prog, 6, ty, 0xffffffffLL - 4096, 2, err, sizeof(err));
		cudaMemGetInfo(&free1, &total);
		/* free memory may grow (the runtime trims its own caches); it must not shrink */
		report(st == GS_OUT_OF_MEMORY && f == NULL && free1 >= free0,
			   "memory: oversized create -> status %d, %lld bytes left behind: %s", (int) st,
			   (long long) free0 - (long long) free1, err);
		if (st == GS_OK)
			gs_filter_destroy(f);
	}
}

int
main(int argc, char **argv)
{
	int			ndev = 0;
	bool		big = false, big_only = false, quick = false;
	cudaError_t e;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--big"))
			big = true;
		else if (!strcmp(argv[i], "--big-only"))
			big = big_only = true;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--quiet"))
			g_verbose = 0;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			g_rng = strtoull(argv[++i], NULL, 0);
	}
	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev == 0)
	{
		printf("SKIP: no GPU (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "no device");
		return 0;
	}
	{
		cudaDeviceProp prop;

		cudaGetDeviceProperties(&prop, 0);
		printf("device: %s, %d SMs, seed 0x%llx\n", prop.name, prop.multiProcessorCount,
			   (unsigned long long) g_rng);
	}

	if (big_only)
		goto big_tests;
	if (quick)
	{
		/* a subset small enough for compute-sanitizer */
		Table		t;

		test_validation();
		make_edge_table(t, 5003);
		test_arithmetic(t);
		test_casts(t);
		test_logic(t);
		test_in_lists(t);
		test_short_circuit(t);
		test_compaction({0, 1, 33, 1025, 100007});
		test_slots();
		test_device_entry();
		printf("%d passed, %d failed\n", g_passed, g_failed);
		return g_failed ? 1 : 0;
	}
	test_validation();
	printf("-- validation done: %d passed, %d failed\n", g_passed, g_failed);
	{
		Table		t;

		make_edge_table(t, 100007);
		test_comparisons(t);
		printf("-- comparisons done: %d passed, %d failed\n", g_passed, g_failed);
		test_arithmetic(t);
		test_casts(t);
		test_logic(t);
		test_in_lists(t);
		test_short_circuit(t);
		printf("-- predicates done: %d passed, %d failed\n", g_passed, g_failed);
		Table		small;

		make_edge_table(small, 1000);
		test_short_circuit(small);
		test_arithmetic(small);
	}
	test_compaction({0, 1, 31, 32, 33, 1023, 1024, 1025, 100007, 1 << 20});
	printf("-- compaction done: %d passed, %d failed\n", g_passed, g_failed);
	test_slots();
	test_device_entry();
	test_memory();
big_tests:
	if (big)
	{
		test_compaction({(1 << 24) + 5, 1 << 28});
		printf("-- big compaction done: %d passed, %d failed\n", g_passed, g_failed);
	}
	printf("%d passed, %d failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}
