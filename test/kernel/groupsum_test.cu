/*
 * groupsum_test.cu
 *	  Checks gs_batch_groups_find by 0..GS_GROUP_MAX_KEYS key columns
 *	  (cuda/groupbatch.cu) and gs_batch_groups_sum (cuda/groupsum.cu, with
 *	  the programs of cuda/batchsum.cu) through the C ABI against a CPU
 *	  reference computed here from the staged rows:
 *	  - find: the distinct keys (per column its zero-extended bytes, 0 under
 *	    NULL; bit c of isnull for a NULL in column c) of the passing rows
 *	    from 'from' on, each once, with its exact first row;
 *	  - sum: per key the passing rows; per key and program the non-NULL
 *	    values, the NaN ones and the exact sum of the rest (lo/hi), or
 *	    overflow in every result where a row's value has a magnitude of
 *	    2^96 or more or leaves 128 bits.
 *	  Covered: key columns int2 + int8 (and swapped), int4 + bool, int4
 *	  twice, one column, none, NULLs in either and both (all four isnull
 *	  combinations checked to occur); programs a, a * a, (1 - b) * a, b,
 *	  -a + c, a - c * 10^3, a constant, b * c over int8 columns with NULL
 *	  and NaN values, 0, 3 and GS_SUM_MAX_EXPRS per call; in a call of
 *	  their own, programs over the int2 and int4 key columns (sign-extended
 *	  integers of scale 0 with NULLs, never NaN) alone and with int8 ones;
 *	  overflow at and past 2^96 and past 128 bits, none for a big value
 *	  under a NULL, on a failing row or before 'from'; batches of 0 ..
 *	  100003 rows (not multiples of 32), all, half or none passing, from
 *	  0, a third and the count; one key for all rows; 600 keys x 1..8
 *	  programs and 1024/1025 keys (the kernel's 1024 shared-memory cells);
 *	  4096 keys summed, 4097 refused; both slots, the next batch in
 *	  flight; refusals (a bool column, one not on the device, malformed
 *	  programs, ...); device memory unchanged over 20 groups created,
 *	  summed and destroyed.
 *
 *	  groupsum_test [--seed N] [--verbose]
 *
 *	  Prints "groupsum_test: N passed, M failed" last and exits 1 on any
 *	  failure.  Without a usable GPU it prints "SKIP: no GPU (<reason>)" and
 *	  exits 0.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gpusel_cuda.h"
#include "gpusel_filter.h"
#include "test_harness.h"

namespace
{

typedef __int128 int128_t;
typedef unsigned __int128 uint128_t;

uint64_t	g_seed = 1;

uint64_t case_seed(int case_no, int tag)
{
	return g_seed * 0x100000001b3ull + (uint64_t) (int64_t) case_no * 16 + (uint64_t) tag;
}

/* A bijection of 64-bit words (MurmurHash3's finalizer). */
uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	return k ^ (k >> 33);
}

std::string hex(uint64_t v)
{
	char		buf[24];

	snprintf(buf, sizeof(buf), "%llx", (unsigned long long) v);
	return buf;
}

/* A 128-bit value as its two words in hex. */
std::string i128_str(int128_t v)
{
	return hex((uint64_t) ((uint128_t) v >> 64)) + ":" + hex((uint64_t) v);
}

/* The program's int4; key columns int2, int4, bool, int8; value columns a, b, c (int8); one never shipped. */
enum { C_PRED, C_K2, C_K4, C_KB, C_K8, C_A, C_B, C_C, C_UNSHIPPED, NCOLS };
const gs_coltype kColType[NCOLS] = {GS_COL_INT4, GS_COL_INT2, GS_COL_INT4, GS_COL_BOOL, GS_COL_INT8,
									GS_COL_INT8, GS_COL_INT8, GS_COL_INT8, GS_COL_INT4};
const char *const kColName[NCOLS] = {"program's int4", "int2", "int4", "bool", "int8", "a", "b", "c",
									 "unshipped"};
constexpr int32_t kPredLimit = 500;	/* rows with p < 500 pass */
constexpr int64_t kMaxRows = 131075;
constexpr int64_t kAllDistinct = -1;

enum { P_ALL, P_HALF, P_NONE };
const char *const kPredName[] = {"all pass", "half pass", "none pass"};

/* A two-slot filter of the program "p < 500" with every column but C_UNSHIPPED on the device. */
gs_status make_filter(gs_filter **f, int64_t max_rows, char *err, size_t errlen)
{
	static const gs_instr code[3] = {{GS_OP_COLUMN, GS_VK_INT4, 0, 0, C_PRED, 0},
									 {GS_OP_CONST, GS_VK_INT4, 0, 0, 0, 0}, {GS_OP_LT, GS_VK_INT4, 0, 0, 0, 0}};
	static const gs_const consts[1] = {{{kPredLimit}, 0, 0}};
	const gs_program prog = {code, 3, consts, 1, 2};
	uint8_t		cols[NCOLS];
	gs_status	st = gs_filter_create(f, &prog, NCOLS, kColType, max_rows, 2, err, errlen);

	for (int c = 0; c < NCOLS; c++)
		cols[c] = c != C_UNSHIPPED;
	if (st == GS_OK && (st = gs_filter_ship_columns(*f, cols, err, errlen)) != GS_OK)
	{
		gs_filter_destroy(*f);
		*f = NULL;
	}
	return st;
}

/* ------------------------------------------------------------------------
 * Batches
 * ------------------------------------------------------------------------ */

struct Spec
{
	int64_t		n;
	int			pred;
	int64_t		distinct;		/* key ids 0 .. distinct-1, each once where rows suffice */
	int			key_nulls;		/* percent NULL in each key column, independently */
	int			val_nulls;		/* percent NULL in each value column */
	int			nans;			/* percent NaN in each value column */
};

struct Batch
{
	int64_t		n = 0;
	std::string desc;
	std::vector<uint8_t> vals[NCOLS];
	std::vector<uint8_t> nulls[NCOLS];
	uint8_t		has_nulls[NCOLS] = {0};
	std::vector<uint32_t> pass;

	size_t width(int c) const { return gs_coltype_width(kColType[c]); }
	bool is_null(int c, int64_t r) const { return has_nulls[c] && nulls[c][(size_t) r]; }
	/* the value's bytes, zero-extended (little-endian host) */
	uint64_t bits(int c, int64_t r) const
	{
		uint64_t	v = 0;

		memcpy(&v, &vals[c][(size_t) r * width(c)], width(c));
		return v;
	}
	int64_t i64(int c, int64_t r) const { return (int64_t) bits(c, r); }
	/* an int2, int4 or int8 column's value, sign-extended */
	int64_t value(int c, int64_t r) const
	{
		const int	shift = 64 - 8 * (int) width(c);

		return (int64_t) (bits(c, r) << shift) >> shift;
	}
	void set(int c, int64_t r, uint64_t v) { memcpy(&vals[c][(size_t) r * width(c)], &v, width(c)); }
	void set_null(int c, int64_t r) { nulls[c][(size_t) r] = has_nulls[c] = 1; }
	void find_passing()
	{
		pass.clear();
		for (int64_t i = 0; i < n; i++)
			if ((int32_t) (uint32_t) bits(C_PRED, i) < kPredLimit)
				pass.push_back((uint32_t) i);
	}
};

/*
 * Draws a batch: each row gets a key id, and the key columns are functions
 * of it that keep (int2, int8) and (int4, anything) injective in the id;
 * NULLs lie over junk bytes.  Values: small ones and ones below 10^12.
 */
void gen_batch(Batch &b, const Spec &s, uint64_t seed)
{
	SplitMix64	rng(seed);
	const uint64_t salt = rng.next();
	const int64_t d = s.distinct == kAllDistinct ? std::max<int64_t>(s.n, 1) : s.distinct;
	std::vector<uint64_t> ids((size_t) s.n);
	char		desc[200];

	b.n = s.n;
	for (int c = 0; c < NCOLS; c++)
	{
		b.vals[c].assign((size_t) s.n * b.width(c), 0);
		b.nulls[c].assign((size_t) s.n, 0);
		b.has_nulls[c] = 0;
	}
	for (int64_t i = 0; i < s.n; i++)
		ids[(size_t) i] = (uint64_t) (i < d ? i : (int64_t) rng.below((uint64_t) d));
	for (size_t i = ids.size(); i > 1; --i)
		std::swap(ids[i - 1], ids[rng.below(i)]);
	for (int64_t i = 0; i < s.n; i++)
	{
		const uint64_t id = ids[(size_t) i];
		const uint64_t p = s.pred == P_ALL ? rng.below(kPredLimit) :
			s.pred == P_NONE ? kPredLimit + rng.below(kPredLimit) : rng.below(2 * kPredLimit);

		b.set(C_PRED, i, p);
		b.set(C_K2, i, (uint16_t) (int16_t) ((int) (id % 97) * 331 - 16000));
		b.set(C_K4, i, (uint32_t) id * 0x9E3779B1u + (uint32_t) salt);	/* a bijection of ids */
		b.set(C_KB, i, id & 1);
		b.set(C_K8, i, fmix64(id / 97 + salt));
		for (int c = C_K2; c <= C_K8; c++)
			if (rng.below(100) < (uint64_t) s.key_nulls)
			{
				b.set_null(c, i);
				b.set(c, i, rng.next() | 1);	/* bytes under a NULL mean nothing */
			}
		for (int c = C_A; c <= C_C; c++)
		{
			const uint64_t r = rng.below(100);
			int64_t		v = rng.below(4) == 0 ? (int64_t) rng.below(2001) - 1000 :
				(int64_t) rng.below(2000000000001ull) - 1000000000000ll;

			if (r < (uint64_t) s.nans)
				v = GS_NUMERIC_NAN;
			else if (r < (uint64_t) (s.nans + s.val_nulls))
			{
				b.set_null(c, i);
				v = (int64_t) rng.next();
			}
			b.set(c, i, (uint64_t) v);
		}
		b.set(C_UNSHIPPED, i, rng.next());
	}
	b.find_passing();
	snprintf(desc, sizeof(desc), "n=%lld %s, %lld key ids, key NULLs %d%%, value NULLs %d%%, NaN %d%%",
			 (long long) s.n, kPredName[s.pred], (long long) d, s.key_nulls, s.val_nulls, s.nans);
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
		if (b.n > 0)
		{
			memcpy(v, b.vals[c].data(), b.vals[c].size());
			memcpy(nl, b.nulls[c].data(), (size_t) b.n);
		}
	}
	return gs_filter_submit(f, slot, b.n, b.has_nulls, err, errlen);
}

/* Waits for a slot; false (reported) on failure or a count the reference does not have. */
bool wait_slot(gs_filter *f, int slot, const Batch &b)
{
	const uint32_t *positions;
	int64_t		count = -1;
	int			row_error = 0;
	double		ms;
	char		err[512] = "";
	gs_status	st = gs_filter_wait(f, slot, &positions, &count, &row_error, &ms, err, sizeof(err));
	bool		ok = st == GS_OK && count == (int64_t) b.pass.size() && !row_error;

	if (!ok)
		report(false, b.desc + ": filter wait: status " + std::to_string((int) st) + ", " +
			   std::to_string(count) + " rows " + err);
	return ok;
}

bool submit_wait(gs_filter *f, int slot, const Batch &b)
{
	char		err[512] = "";
	bool		ok = stage_submit(f, slot, b, err, sizeof(err)) == GS_OK;

	if (!ok)
		report(false, b.desc + ": submit: " + err);
	return ok && wait_slot(f, slot, b);
}

/* ------------------------------------------------------------------------
 * Programs and the reference
 * ------------------------------------------------------------------------ */

gs_num_step ins(int op, int col = 0, int shift_a = 0, int shift_b = 0, int64_t constant = 0)
{
	return gs_num_step{op, col, shift_a, shift_b, constant};
}

struct NamedExpr
{
	const char *name;
	gs_sum_expr e;
};

NamedExpr expr(const char *name, std::initializer_list<gs_num_step> code)
{
	NamedExpr	x;

	memset(&x, 0, sizeof(x));
	x.name = name;
	for (const gs_num_step &i : code)
		x.e.code[x.e.ncode++] = i;
	return x;
}

/* The first n of GS_SUM_MAX_EXPRS programs. */
std::vector<NamedExpr> programs(int n = GS_SUM_MAX_EXPRS)
{
	std::vector<NamedExpr> all = {
		expr("a", {ins(GS_NUM_COLUMN, C_A)}),
		expr("a * a", {ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_MUL)}),
		expr("(1 - b) * a", {ins(GS_NUM_CONST, 0, 0, 0, 1), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_SUB, 0, 2, 0),
							 ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_MUL)}),
		expr("b", {ins(GS_NUM_COLUMN, C_B)}),
		expr("-a + c", {ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_NEG), ins(GS_NUM_COLUMN, C_C), ins(GS_ARITH_ADD)}),
		expr("a - c (c shifted 10^3)", {ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_C), ins(GS_ARITH_SUB, 0, 0, 3)}),
		expr("constant 7", {ins(GS_NUM_CONST, 0, 0, 0, 7)}),
		expr("b * c", {ins(GS_NUM_COLUMN, C_B), ins(GS_NUM_COLUMN, C_C), ins(GS_ARITH_MUL)}),
	};

	all.resize((size_t) n);
	return all;
}

/* Programs over the int2 and int4 key columns, alone and with int8 ones. */
std::vector<NamedExpr> narrow_programs()
{
	return {
		expr("k2", {ins(GS_NUM_COLUMN, C_K2)}),
		expr("k4", {ins(GS_NUM_COLUMN, C_K4)}),
		expr("k4 * a", {ins(GS_NUM_COLUMN, C_K4), ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_MUL)}),
		expr("a - k2 (k2 shifted 10^2)", {ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_K2), ins(GS_ARITH_SUB, 0, 0, 2)}),
		expr("-k4 + k2 * k2", {ins(GS_NUM_COLUMN, C_K4), ins(GS_ARITH_NEG), ins(GS_NUM_COLUMN, C_K2),
							   ins(GS_NUM_COLUMN, C_K2), ins(GS_ARITH_MUL), ins(GS_ARITH_ADD)}),
		expr("k2 * k4 * c", {ins(GS_NUM_COLUMN, C_K2), ins(GS_NUM_COLUMN, C_K4), ins(GS_ARITH_MUL),
							 ins(GS_NUM_COLUMN, C_C), ins(GS_ARITH_MUL)}),
		expr("k4 * k4 * k4", {ins(GS_NUM_COLUMN, C_K4), ins(GS_NUM_COLUMN, C_K4), ins(GS_ARITH_MUL),
							  ins(GS_NUM_COLUMN, C_K4), ins(GS_ARITH_MUL)}),
		expr("p - k4 (the program's int4, no NULLs)", {ins(GS_NUM_COLUMN, C_PRED), ins(GS_NUM_COLUMN, C_K4),
														ins(GS_ARITH_SUB)}),
	};
}

bool scale_ok(int128_t *v, int k)
{
	for (int i = 0; i < k; i++)
		if (__builtin_mul_overflow(*v, (int128_t) 10, v))
			return false;
	return true;
}

/* A value of a program's stack: NULL, NaN, past 128 bits, or v. */
struct RefVal
{
	int128_t	v;
	bool		null;
	bool		nan;
	bool		of;
};

/*
 * One row's value as the program defines it; false when it leaves 128
 * bits.  NULL wins over the rest (the operators are strict), then NaN,
 * which only an int8 column holds.
 */
bool ref_row(const gs_sum_expr &e, const Batch &b, uint32_t row, RefVal *out)
{
	RefVal		st[GS_SUM_MAX_CODE];
	int			sp = 0;

	for (int i = 0; i < e.ncode; i++)
	{
		const gs_num_step &in = e.code[i];

		if (in.op == GS_NUM_COLUMN)
		{
			const bool	nl = b.is_null(in.col, row);
			const int64_t v = b.value(in.col, row);

			st[sp++] = {v, nl, !nl && b.width(in.col) == 8 && v == GS_NUMERIC_NAN, false};
		}
		else if (in.op == GS_NUM_CONST)
			st[sp++] = {in.constant, false, false, false};
		else if (in.op == GS_ARITH_NEG)
		{
			RefVal	   &x = st[sp - 1];

			if (!x.null && !x.nan && !x.of)
				x.of = __builtin_sub_overflow((int128_t) 0, x.v, &x.v);
		}
		else
		{
			RefVal		y = st[--sp];
			RefVal	   &x = st[sp - 1];

			x.null = x.null || y.null;
			x.nan = x.nan || y.nan;
			x.of = x.of || y.of;
			if (x.null || x.nan || x.of)
				continue;
			if (in.op == GS_ARITH_MUL)
				x.of = __builtin_mul_overflow(x.v, y.v, &x.v);
			else if (!scale_ok(&x.v, in.shift_a) || !scale_ok(&y.v, in.shift_b))
				x.of = true;
			else
				x.of = in.op == GS_ARITH_SUB ? __builtin_sub_overflow(x.v, y.v, &x.v) :
					__builtin_add_overflow(x.v, y.v, &x.v);
		}
	}
	*out = st[0];
	return st[0].null || !st[0].of;
}

/* Key column choices of a find. */
struct KeySet
{
	int			n;
	int			cols[GS_GROUP_MAX_KEYS];
};

const KeySet kKeySets[] = {
	{0, {0, 0}}, {1, {C_K4, 0}}, {1, {C_K2, 0}}, {1, {C_PRED, 0}},
	{2, {C_K2, C_K8}}, {2, {C_K8, C_K2}}, {2, {C_K4, C_KB}}, {2, {C_K4, C_K4}},
};

std::string keyset_name(const KeySet &ks)
{
	std::string s = ks.n == 0 ? "no key columns" : "keys (";

	for (int c = 0; c < ks.n; c++)
		s += std::string(c > 0 ? ", " : "") + kColName[ks.cols[c]];
	return ks.n == 0 ? s : s + ")";
}

/* What a find gave: per passing row from 'from', its device key index. */
struct FindOut
{
	int64_t		nkeys = 0;
	std::vector<uint32_t> row_dev;
};

/* gs_batch_groups_find on a waited-for slot against the reference's keys. */
bool run_find(gs_batch_groups *g, gs_filter *f, int slot, const Batch &b, int64_t from,
			  const KeySet &ks, FindOut &out, const std::string &label)
{
	typedef std::tuple<uint32_t, uint64_t, uint64_t> Key;
	char		err[512] = "";
	int64_t		nkeys = -1;
	const gs_batch_key *keys = NULL;
	gs_status	st = gs_batch_groups_find(g, f, slot, from, ks.n, ks.cols, &nkeys, &keys, err, sizeof(err));
	const int64_t m = (int64_t) b.pass.size() - from;
	std::map<Key, int32_t> index;
	std::vector<uint32_t> first;	/* per reference key */
	std::vector<int32_t> row_ref((size_t) m);
	uint32_t	combos = 0;
	std::string why;

	if (st != GS_OK)
	{
		report(false, label + ": find: status " + std::to_string((int) st) + ": " + err);
		return false;
	}
	for (int64_t j = 0; j < m; j++)
	{
		const uint32_t pos = b.pass[(size_t) (from + j)];
		uint32_t	isnull = 0;
		uint64_t	bits[GS_GROUP_MAX_KEYS] = {0, 0};

		for (int c = 0; c < ks.n; c++)
		{
			if (b.is_null(ks.cols[c], pos))
				isnull |= 1u << c;
			else
				bits[c] = b.bits(ks.cols[c], pos);
		}
		auto		in = index.emplace(Key(isnull, bits[0], bits[1]), (int32_t) first.size());

		if (in.second)
			first.push_back((uint32_t) j);
		row_ref[(size_t) j] = in.first->second;
		combos |= 1u << isnull;
	}

	std::vector<int32_t> ref_to_dev(first.size(), -1);
	bool		ok = nkeys == (int64_t) first.size() && (nkeys == 0 || keys != NULL);

	if (!ok)
		why = ": " + std::to_string(nkeys) + " keys, reference " + std::to_string(first.size());
	for (int64_t k = 0; ok && k < nkeys; k++)
	{
		const gs_batch_key &d = keys[k];
		const std::string what = ": key " + std::to_string(k) + " (isnull " + std::to_string(d.isnull) +
			", bits " + hex(d.bits[0]) + " " + hex(d.bits[1]) + ")";
		auto		it = index.find(Key(d.isnull, d.bits[0], d.bits[1]));
		bool		shape = (d.isnull >> ks.n) == 0;

		for (int c = 0; c < GS_GROUP_MAX_KEYS; c++)
			if ((c >= ks.n || ((d.isnull >> c) & 1) != 0) && d.bits[c] != 0)
				shape = false;
		if (!shape)
			why = what + ": NULL flags past the key columns, or bytes under a NULL or past them";
		else if (it == index.end())
			why = what + " is not among the passing rows' keys";
		else if (ref_to_dev[(size_t) it->second] >= 0)
			why = what + " repeats key " + std::to_string(ref_to_dev[(size_t) it->second]);
		else if (d.first != first[(size_t) it->second])
			why = what + ": first " + std::to_string(d.first) + ", reference " +
				std::to_string(first[(size_t) it->second]);
		else
		{
			ref_to_dev[(size_t) it->second] = (int32_t) k;
			continue;
		}
		ok = false;
	}
	report(ok, label + ": find " + std::to_string(nkeys) + " keys of " + std::to_string(m) + " rows" + why);
	if (ok && ks.n == 2 && ks.cols[0] != ks.cols[1] && m >= 1000 && b.has_nulls[ks.cols[0]] &&
		b.has_nulls[ks.cols[1]])
		report(combos == 0xF, label + ": the rows hold all four NULL combinations of the key columns");
	if (!ok)
		return false;
	out.nkeys = nkeys;
	out.row_dev.resize((size_t) m);
	for (int64_t j = 0; j < m; j++)
		out.row_dev[(size_t) j] = (uint32_t) ref_to_dev[(size_t) row_ref[(size_t) j]];
	return true;
}

/* One key's sum of one program, as the reference has it. */
struct RefCell
{
	int128_t	sum = 0;
	uint64_t	values = 0;
	uint64_t	nans = 0;
};

/*
 * gs_batch_groups_sum after run_find against the reference: rows per key,
 * then each program's sums per key; more than GS_GROUP_SUM_MAX_KEYS keys
 * must be refused.  expect_overflow (0 or 1; -1: none) is what the case
 * means the reference to find.
 */
void run_sum(gs_batch_groups *g, gs_filter *f, const Batch &b, int64_t from, const FindOut &fo,
			 const std::vector<NamedExpr> &ex, const std::string &label, int expect_overflow = -1)
{
	const int	ne = (int) ex.size();
	const int128_t limit = (int128_t) 1 << 96;
	gs_sum_expr exprs[GS_SUM_MAX_EXPRS];
	const uint64_t *rows = NULL;
	const gs_sum_result *res = NULL;
	char		err[512] = "";
	std::vector<uint64_t> ref_rows((size_t) fo.nkeys, 0);
	std::vector<RefCell> cells((size_t) fo.nkeys * ne);
	bool		overflow = false;
	std::string why;
	const std::string what = label + ", " + std::to_string(ne) + " sums over " +
		std::to_string(fo.nkeys) + " keys";
	gs_status	st;

	for (int e = 0; e < ne; e++)
		exprs[e] = ex[(size_t) e].e;
	st = gs_batch_groups_sum(g, f, ne, ne > 0 ? exprs : NULL, &rows, &res, err, sizeof(err));
	if (fo.nkeys > GS_GROUP_SUM_MAX_KEYS)
	{
		report(st == GS_INVALID_ARGUMENT, what + ": refused (more than GS_GROUP_SUM_MAX_KEYS): status " +
			   std::to_string((int) st));
		return;
	}
	if (st != GS_OK || (fo.nkeys > 0 && rows == NULL) || (fo.nkeys * ne > 0 && res == NULL))
	{
		report(false, what + ": status " + std::to_string((int) st) + ": " + err);
		return;
	}
	for (size_t j = 0; j < fo.row_dev.size(); j++)
	{
		const uint32_t k = fo.row_dev[j];

		ref_rows[k]++;
		for (int e = 0; e < ne; e++)
		{
			RefCell    &c = cells[(size_t) k * ne + e];
			RefVal		v;

			if (!ref_row(exprs[e], b, b.pass[(size_t) from + j], &v))
				overflow = true;
			else if (v.null)
				continue;
			else if (!v.nan && (v.v <= -limit || v.v >= limit))
				overflow = true;
			else
			{
				c.values++;
				c.nans += v.nan;
				c.sum += v.nan ? 0 : v.v;
			}
		}
	}
	if (expect_overflow >= 0)
		report(overflow == (expect_overflow != 0), what + ": the reference " +
			   (overflow ? "overflows" : "does not overflow") + " as the case means");
	for (int64_t k = 0; k < fo.nkeys && why.empty(); k++)
		if (rows[k] != ref_rows[(size_t) k])
			why = ": key " + std::to_string(k) + ": " + std::to_string(rows[k]) + " rows, reference " +
				std::to_string(ref_rows[(size_t) k]);
	report(why.empty(), what + ": rows per key" + why);
	for (int e = 0; e < ne; e++)
	{
		why.clear();
		for (int64_t k = 0; k < fo.nkeys && why.empty(); k++)
		{
			const gs_sum_result &r = res[(size_t) k * ne + e];
			const RefCell &c = cells[(size_t) k * ne + e];
			const int128_t got = (int128_t) (((uint128_t) r.hi << 64) | r.lo);

			if (overflow ? r.overflow == 1 :
				r.overflow == 0 && got == c.sum && r.values == c.values && r.nans == c.nans)
				continue;
			why = ": key " + std::to_string(k) + ": device " + (r.overflow ? "overflow, " : "") +
				i128_str(got) + " over " + std::to_string(r.values) + " (" + std::to_string(r.nans) +
				" NaN), reference " + (overflow ? "overflow" : i128_str(c.sum) + " over " +
				std::to_string(c.values) + " (" + std::to_string(c.nans) + " NaN)");
		}
		report(why.empty(), what + ": sum(" + ex[(size_t) e].name + ")" + (overflow ? " overflows" : "") + why);
	}
}

/* In run_case's nexprs: narrow_programs() rather than the first n of programs(). */
constexpr int kNarrow = -1;

/* A find and, when it is right, sums with each count of programs in nexprs (or kNarrow). */
void run_case(gs_batch_groups *g, gs_filter *f, int slot, const Batch &b, int64_t from, const KeySet &ks,
			  const std::vector<int> &nexprs, const std::string &label, int64_t want_keys = -1)
{
	FindOut		fo;
	const std::string l = label + ", from " + std::to_string(from) + ", " + keyset_name(ks);

	if (!run_find(g, f, slot, b, from, ks, fo, l))
		return;
	if (want_keys >= 0)
		report(fo.nkeys == want_keys, l + ": " + std::to_string(fo.nkeys) + " keys, the case means " +
			   std::to_string(want_keys));
	for (int n : nexprs)
		run_sum(g, f, b, from, fo, n == kNarrow ? narrow_programs() : programs(n), l);
}

/* ------------------------------------------------------------------------
 * The cases
 * ------------------------------------------------------------------------ */

/* Batch after batch on alternate slots, the next in flight while one is grouped and summed. */
void check_batches(gs_batch_groups *g, gs_filter *f)
{
	const std::vector<Spec> specs = {
		{0, P_ALL, 1, 10, 10, 5},
		{1, P_ALL, 1, 0, 0, 0},
		{31, P_ALL, 7, 20, 10, 5},
		{33, P_HALF, kAllDistinct, 20, 10, 5},
		{1000, P_ALL, 150, 15, 10, 5},
		{1000, P_NONE, 10, 15, 10, 5},		/* no passing rows */
		{1025, P_HALF, 600, 15, 10, 5},
		{4099, P_ALL, 1, 0, 10, 5},			/* one key for every row */
		{4099, P_HALF, 1030, 10, 10, 5},
		{100003, P_ALL, 3000, 15, 10, 5},
		{100003, P_HALF, 1, 0, 10, 5},
		{100003, P_ALL, kAllDistinct, 5, 5, 5},	/* most key sets: more than 4096 keys */
	};
	Batch		batches[2];
	bool		submitted[2] = {false, false};

	for (size_t i = 0; i <= specs.size(); i++)
	{
		if (i < specs.size())
		{
			char		err[512] = "";

			gen_batch(batches[i % 2], specs[i], case_seed((int) i, 0));
			submitted[i % 2] = stage_submit(f, (int) (i % 2), batches[i % 2], err, sizeof(err)) == GS_OK;
			if (!submitted[i % 2])
				report(false, batches[i % 2].desc + ": submit: " + err);
		}
		if (i == 0)
			continue;

		const int	slot = (int) ((i - 1) % 2);
		const Batch &b = batches[slot];
		const int64_t m = (int64_t) b.pass.size();
		std::vector<int64_t> froms = {0};

		if (!submitted[slot] || !wait_slot(f, slot, b))
			continue;
		if (m / 3 > 0)
			froms.push_back(m / 3);
		if (m > m / 3)
			froms.push_back(m);	/* nothing from there on */
		for (int64_t from : froms)
			for (const KeySet &ks : kKeySets)
				run_case(g, f, slot, b, from, ks, {0, 3, GS_SUM_MAX_EXPRS, kNarrow}, b.desc);
		printf("%s: %d checks passed, %d failed so far\n", b.desc.c_str(), g_passed, g_failed);
		fflush(stdout);
	}
}

/* Keys and programs around the kernel's 1024 shared-memory cells and the 4096 keys' limit. */
void check_key_counts(gs_batch_groups *g, gs_filter *f)
{
	const KeySet k2k8 = {2, {C_K2, C_K8}};
	const KeySet k4 = {1, {C_K4, 0}};
	struct Case
	{
		Spec		s;
		KeySet		ks;
		int64_t		keys;
		std::vector<int> nexprs;
	};
	const std::vector<Case> cases = {
		{{6007, P_ALL, 600, 0, 10, 5}, k2k8, 600, {1, 2, 4, GS_SUM_MAX_EXPRS, kNarrow}},
		{{3001, P_ALL, 1024, 0, 10, 5}, k4, 1024, {0, 1, 2}},
		{{3001, P_ALL, 1025, 0, 10, 5}, k4, 1025, {0, 1}},
		{{8197, P_ALL, 4096, 0, 10, 5}, k4, 4096, {0, 1, GS_SUM_MAX_EXPRS}},
		{{8197, P_ALL, 4097, 0, 10, 5}, k4, 4097, {0, 1}},
		{{8197, P_ALL, 4097, 0, 10, 5}, {1, {C_K2, 0}}, 97, {3}},	/* after the refusals */
	};

	for (size_t i = 0; i < cases.size(); i++)
	{
		Batch		b;
		const int	slot = (int) (i % 2);

		gen_batch(b, cases[i].s, case_seed(100 + (int) i, 1));
		if (submit_wait(f, slot, b))
			run_case(g, f, slot, b, 0, cases[i].ks, cases[i].nexprs, "key counts: " + b.desc, cases[i].keys);
	}
}

/* Batches of 1000 rows of small values but row 500, set as a scenario wants. */
void check_overflow(gs_batch_groups *g, gs_filter *f)
{
	const int64_t two48 = (int64_t) 1 << 48;
	const int64_t big = 3000000000000000000ll;
	const std::vector<NamedExpr> all = programs();
	const NamedExpr ab = expr("a * b", {ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL)});
	const NamedExpr aab = expr("a * a * b", {ins(GS_NUM_COLUMN, C_A), ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_MUL),
											 ins(GS_NUM_COLUMN, C_B), ins(GS_ARITH_MUL)});
	const KeySet k2 = {1, {C_K2, 0}};
	const int64_t row = 500;
	struct Scenario
	{
		const char *what;
		int64_t		a;
		int64_t		b;
		bool		b_null;
		bool		fails;			/* the row fails the predicate */
		bool		before_from;	/* found from the row after it */
		bool		unfit;			/* a * a * b rather than a * b */
		int			overflow;
	}			sc[] = {
		{"a * b = 2^96 - 2^48", two48, two48 - 1, false, false, false, false, 0},
		{"a * b = 2^96", two48, two48, false, false, false, false, 1},
		{"a * b = -2^96", -two48, two48, false, false, false, false, 1},
		{"a * b = -(2^96 + 2^48)", -two48, two48 + 1, false, false, false, false, 1},
		{"a * b = -9e36", big, -big, false, false, false, false, 1},
		{"a * a * b past 128 bits", big, big, false, false, false, true, 1},
		{"a * b with b NULL", big, big, true, false, false, false, 0},
		{"a * b = 9e36 on a failing row", big, big, false, true, false, false, 0},
		{"a * b = 9e36 before 'from'", big, big, false, false, true, false, 0},
	};
	int			case_no = 200;

	for (const Scenario &s : sc)
	{
		Batch		b;
		FindOut		fo;
		const int	slot = case_no % 2;

		gen_batch(b, Spec{1000, P_ALL, 40, 10, 5, 2}, case_seed(case_no++, 2));
		for (int64_t i = 0; i < b.n; i++)
			for (int c = C_A; c <= C_C; c++)
				if (b.i64(c, i) != GS_NUMERIC_NAN)
					b.set(c, i, (uint64_t) (b.i64(c, i) % 1000));
		b.set(C_A, row, (uint64_t) s.a);
		b.set(C_B, row, (uint64_t) s.b);
		b.nulls[C_A][row] = b.nulls[C_B][row] = 0;
		if (s.b_null)
			b.set_null(C_B, row);
		b.set(C_PRED, row, s.fails ? kPredLimit : 0);
		b.find_passing();
		b.desc = std::string("overflow: ") + s.what;
		if (!submit_wait(f, slot, b))
			continue;

		const int64_t from = s.before_from ?
			(int64_t) (std::lower_bound(b.pass.begin(), b.pass.end(), (uint32_t) row) - b.pass.begin()) + 1 : 0;

		if (run_find(g, f, slot, b, from, k2, fo, b.desc))
			run_sum(g, f, b, from, fo, {all[0], s.unfit ? aab : ab, all[3]}, b.desc, s.overflow);
	}
}

/* Calls that must be refused, and the ones after them that must work. */
void check_refusals(gs_batch_groups *g, gs_filter *f)
{
	gs_batch_groups *fresh = NULL;
	Batch		b;
	FindOut		fo;
	char		err[512] = "";
	int64_t		nkeys;
	const gs_batch_key *keys;
	const uint64_t *rows;
	const gs_sum_result *res;
	const int	three[3] = {C_K2, C_K4, C_K8};
	const KeySet k4k2 = {2, {C_K4, C_K2}};
	const std::vector<NamedExpr> all = programs();
	gs_sum_expr ex[GS_SUM_MAX_EXPRS + 1];
	auto		expect = [&](gs_status want, const std::string &what, gs_status got) {
		report(got == want, "refusals: " + what + ": status " + std::to_string((int) got) + ", want " +
			   std::to_string((int) want) + (got != want ? std::string(" ") + err : ""));
	};
	auto		find = [&](int nk, const int *cols) {
		return gs_batch_groups_find(g, f, 0, 0, nk, cols, &nkeys, &keys, err, sizeof(err));
	};
	auto		sum = [&](gs_batch_groups *on, int n, const gs_sum_expr *e) {
		return gs_batch_groups_sum(on, f, n, e, &rows, &res, err, sizeof(err));
	};

	for (int e = 0; e <= GS_SUM_MAX_EXPRS; e++)
		ex[e] = all[(size_t) e % all.size()].e;
	gen_batch(b, Spec{100, P_ALL, 7, 10, 10, 5}, case_seed(-1, 3));
	b.desc = "refusals";
	if (gs_batch_groups_create(&fresh, kMaxRows, err, sizeof(err)) != GS_OK || !submit_wait(f, 0, b))
	{
		report(false, std::string("refusals: setting up: ") + err);
		gs_batch_groups_destroy(fresh);
		return;
	}
	expect(GS_INVALID_ARGUMENT, "sum before any find", sum(fresh, 1, ex));
	expect(GS_INVALID_ARGUMENT, "sum of no programs before any find", sum(fresh, 0, NULL));
	gs_batch_groups_destroy(fresh);
	if (!run_find(g, f, 0, b, 0, k4k2, fo, "refusals"))
		return;
	expect(GS_INVALID_ARGUMENT, "find by 3 key columns", find(3, three));
	expect(GS_INVALID_ARGUMENT, "sum after a good find, then one refused for 3 key columns", sum(g, 1, ex));
	expect(GS_INVALID_ARGUMENT, "find by -1 key columns", find(-1, three));
	expect(GS_INVALID_ARGUMENT, "find by 1 key column, key_cols NULL", find(1, NULL));
	for (int bad : {-1, (int) NCOLS, (int) C_UNSHIPPED})
		for (int at = 0; at < 2; at++)
		{
			const int	cols[2] = {at == 0 ? bad : C_K4, at == 1 ? bad : C_K4};

			expect(GS_INVALID_ARGUMENT, "find: key column " + std::to_string(bad) + " as column " +
				   std::to_string(at), find(2, cols));
		}
	expect(GS_INVALID_ARGUMENT, "sum after a good find, then one refused for its key column", sum(g, 1, ex));
	if (!run_find(g, f, 0, b, 0, k4k2, fo, "refusals: found again"))
		return;
	expect(GS_INVALID_ARGUMENT, "sum of GS_SUM_MAX_EXPRS + 1 programs", sum(g, GS_SUM_MAX_EXPRS + 1, ex));
	expect(GS_INVALID_ARGUMENT, "sum of -1 programs", sum(g, -1, ex));
	expect(GS_INVALID_ARGUMENT, "sum of 1 program, exprs NULL", sum(g, 1, NULL));
	expect(GS_INVALID_ARGUMENT, "sum: groups NULL", sum(NULL, 1, ex));
	expect(GS_INVALID_ARGUMENT, "sum: filter NULL", gs_batch_groups_sum(g, NULL, 1, ex, &rows, &res, err, sizeof(err)));
	expect(GS_INVALID_ARGUMENT, "sum: rows NULL", gs_batch_groups_sum(g, f, 1, ex, NULL, &res, err, sizeof(err)));
	expect(GS_INVALID_ARGUMENT, "sum: results NULL", gs_batch_groups_sum(g, f, 1, ex, &rows, NULL, err, sizeof(err)));
	for (const NamedExpr &bad : {expr("a bool column", {ins(GS_NUM_COLUMN, C_KB)}),
								 expr("a column not on the device", {ins(GS_NUM_COLUMN, C_UNSHIPPED)}),
								 expr("a column past the table", {ins(GS_NUM_COLUMN, NCOLS)}),
								 expr("ADD of one value", {ins(GS_NUM_COLUMN, C_A), ins(GS_ARITH_ADD)}),
								 expr("no steps", {})})
	{
		const gs_sum_expr two[2] = {ex[0], bad.e};

		expect(GS_INVALID_ARGUMENT, std::string("sum: a program of ") + bad.name, sum(g, 2, two));
	}
	run_sum(g, f, b, 0, fo, all, "refusals: sums after the refused ones");
	run_sum(g, f, b, 0, fo, narrow_programs(), "refusals: int2 and int4 sums after the refused ones");

	/* the slot submitted again: the batch found is gone */
	if (stage_submit(f, 0, b, err, sizeof(err)) != GS_OK)
		report(false, std::string("refusals: submit again: ") + err);
	expect(GS_INVALID_ARGUMENT, "sum while the found slot is in flight again", sum(g, 1, ex));
	if (wait_slot(f, 0, b))
		expect(GS_INVALID_ARGUMENT, "sum on the slot's next batch, not found", sum(g, 1, ex));
	run_case(g, f, 0, b, 0, k4k2, {1, GS_SUM_MAX_EXPRS}, "refusals: found once more");
	expect(GS_INVALID_ARGUMENT, "find on slot 1, never submitted",
		   gs_batch_groups_find(g, f, 1, 0, 0, NULL, &nkeys, &keys, err, sizeof(err)));
}

/* Groups created, found, summed (their sums' buffers made) and destroyed. */
void check_memory(gs_filter *f)
{
	Batch		b;
	const int	cols[2] = {C_K2, C_K8};
	const std::vector<NamedExpr> ex = programs(2);
	const gs_sum_expr e[2] = {ex[0].e, ex[1].e};
	auto		in_use = [] {
		size_t		free_b = 0;
		size_t		total_b = 0;

		cudaMemGetInfo(&free_b, &total_b);
		return total_b - free_b;
	};
	size_t		before;
	bool		ok = true;

	gen_batch(b, Spec{4099, P_HALF, 300, 10, 5, 5}, case_seed(-2, 0));
	if (!submit_wait(f, 0, b))
		return;
	before = in_use();
	for (int cycle = 0; cycle < 20 && ok; cycle++)
	{
		gs_batch_groups *g = NULL;
		char		err[512] = "";
		int64_t		nkeys;
		const gs_batch_key *keys;
		const uint64_t *rows;
		const gs_sum_result *res;

		ok = gs_batch_groups_create(&g, 8192, err, sizeof(err)) == GS_OK &&
			gs_batch_groups_find(g, f, 0, 0, 2, cols, &nkeys, &keys, err, sizeof(err)) == GS_OK &&
			gs_batch_groups_sum(g, f, 2, e, &rows, &res, err, sizeof(err)) == GS_OK;
		gs_batch_groups_destroy(g);
		if (!ok)
			report(false, "memory cycle " + std::to_string(cycle) + ": " + err);
	}
	report(ok && in_use() == before, "device memory unchanged over 20 cycles (" +
		   std::to_string(before) + " -> " + std::to_string(in_use()) + " bytes)");
}

}								/* namespace */

int
main(int argc, char **argv)
{
	gs_device_info info;
	gs_filter  *f = NULL;
	gs_batch_groups *g = NULL;
	char		err[512] = "";
	gs_status	st;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			g_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--verbose"))
			g_verbose = true;
		else
		{
			fprintf(stderr, "usage: %s [--seed N] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason[0] ? info.reason : "probe failed");
		return 0;
	}
	printf("device: %s, compute capability %d.%d; seed %llu, max_rows %lld\n", info.name,
		   info.cc_major, info.cc_minor, (unsigned long long) g_seed, (long long) kMaxRows);
	fflush(stdout);
	st = make_filter(&f, kMaxRows, err, sizeof(err));
	if (st == GS_OK)
		st = gs_batch_groups_create(&g, kMaxRows, err, sizeof(err));
	report(st == GS_OK, std::string("filter and groups") + (st != GS_OK ? std::string(": ") + err : ""));
	if (st == GS_OK)
	{
		check_refusals(g, f);
		check_batches(g, f);
		check_key_counts(g, f);
		check_overflow(g, f);
		check_memory(f);
	}
	gs_batch_groups_destroy(g);
	gs_filter_destroy(f);
	printf("groupsum_test: %d passed, %d failed\n", g_passed, g_failed);
	return g_failed > 0 ? 1 : 0;
}
