/*
 * groupbatch_test.cu
 *	  Checks the grouping of a filtered batch's rows on the device
 *	  (cuda/groupbatch.cu: gs_batch_groups_find, gs_batch_groups_add, with
 *	  gs_filter_ship_columns of cuda/filter_slots.cu) through the C ABI
 *	  against a CPU reference computed here from the staged rows:
 *	  - find: the set of distinct keys (isnull, zero-extended bytes) among
 *	    the passing rows from 'from' on, each with its exact first index and
 *	    NULL flag (keys come back in any order);
 *	  - add: per key, the tally (rows, non-NULL values, -0/+0 seen) and the
 *	    multiset of (group, value key) pairs appended to held pairs, read back
 *	    with gs_pairs_read; what was held before stays held, in its order.
 *	    Value keys are those of src/percentile/keys.h, written here from the
 *	    bit patterns (NaN -> all ones, -0 as +0);
 *	  Covered:
 *	  - key columns bool, int2, int4, int8, float4, float8 shipped with
 *	    gs_filter_ship_columns, the program's own int4 column, and key_col
 *	    -1; NULL keys (one key of their own, whatever bytes lie under them),
 *	    -0/+0 and NaNs of several patterns as distinct keys;
 *	  - values int2 and int4 as GS_KEY_INT32 and GS_KEY_INT64, int8 as
 *	    GS_KEY_INT64, float4 as GS_KEY_FLOAT4 and GS_KEY_FLOAT8, float8 as
 *	    GS_KEY_FLOAT8, with NULLs, NaNs, +-Inf, -0/+0, extremes; all-NULL
 *	    values; has_nulls 0 over stale null bytes;
 *	  - predicates keeping all rows, about half, none; from 0, a third, the
 *	    last row, the count (nothing);
 *	  - batches of 0, 1, 31, 33, 1023, 1025, 100003 rows and max_rows;
 *	    distinct keys 1, 2, 101, 1024, 1025 (the shared-memory tally limit
 *	    is 1024) and all distinct;
 *	  - both slots of a two-slot filter, the next batch in flight while one
 *	    is grouped; group numbers a random injective map of the key indexes
 *	    (a new one per add), and pairs without groups (group_of_key NULL);
 *	  - several batches appended to the same held pairs, their count growing
 *	    past the pairs' first capacity (1 << 20) with pairs already held;
 *	  - refusals (GS_INVALID_ARGUMENT): columns neither read nor shipped,
 *	    out-of-range columns, slots and 'from', key kinds that do not fit
 *	    the column or the pairs, NULL arguments, add before find or after a
 *	    refused find, a slot in flight or never submitted, more passing rows
 *	    than the groups' max_rows, shipping columns while a batch is in
 *	    flight;
 *	  - device memory in use (cudaMemGetInfo) unchanged over 50 cycles of
 *	    filter, groups and pairs created, used and destroyed.
 *
 *	  groupbatch_test [--quick] [--max-rows N] [--seed N] [--verbose]
 *	    --quick       max_rows 262147 rather than 1048583 (well under a minute)
 *	    --max-rows N  the filter's and the groups' max_rows, at least 1025
 *	                  (e.g. 1025 under compute-sanitizer); sizes above it are
 *	                  left out
 *	    --seed N      seed of the generated batches (default 1)
 *	    --verbose     print every check, not only failures and one line per run
 *
 *	  Prints "groupbatch_test: N passed, M failed" last and exits 1 on any
 *	  failure.  Without a usable GPU it prints "SKIP: no GPU (<reason>)" and
 *	  exits 0.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gpusel_cuda.h"
#include "gpusel_filter.h"
#include "test_harness.h"

namespace
{

/* gs_batch_groups_find by one key column (key_col < 0: none), as this test's cases name it. */
gs_status find_by_column(gs_batch_groups *g, gs_filter *f, int slot, int64_t from, int key_col,
						 int64_t *nkeys, const gs_batch_key **keys, char *err, size_t errlen)
{
	return gs_batch_groups_find(g, f, slot, from, key_col >= 0 ? 1 : 0, &key_col, nkeys, keys,
								err, errlen);
}


uint64_t	g_seed = 1;

/* Failed checks whose details are printed; later ones print their line only. */
constexpr int kMaxDetailed = 40;
int			g_detailed = 0;

/* Appends a detail of a failure to *why, for the first failures only. */
void note(std::string *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(std::string *why, const char *fmt, ...)
{
	char		buf[512];
	va_list		ap;

	if (!why->empty() || g_detailed >= kMaxDetailed)
		return;
	g_detailed++;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*why = std::string(": ") + buf;
}

using Rng = SplitMix64;

/* Seed of one generated thing: the run's seed mixed with a case number and a tag. */
uint64_t case_seed(int case_no, int tag)
{
	return g_seed * 0x100000001b3ull + (uint64_t) case_no * 16 + (uint64_t) tag;
}

/* Bijections of 32- and 64-bit words (MurmurHash3's finalizers). */
uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

template <typename T>
void shuffle(std::vector<T> &v, Rng &rng)
{
	for (size_t i = v.size(); i > 1; --i)
		std::swap(v[i - 1], v[rng.below(i)]);
}

/* ------------------------------------------------------------------------
 * The table every batch has
 * ------------------------------------------------------------------------ */

/*
 * Column 0 is the one the program reads (p < 500); key and value columns
 * are shipped; the last column is neither read nor shipped.
 */
enum
{
	C_PRED = 0,
	C_KBOOL, C_KI2, C_KI4, C_KI8, C_KF4, C_KF8,
	C_VI2, C_VI4, C_VI8, C_VF4, C_VF8,
	C_UNSHIPPED,
	NCOLS
};

const gs_coltype kColType[NCOLS] = {
	GS_COL_INT4,
	GS_COL_BOOL, GS_COL_INT2, GS_COL_INT4, GS_COL_INT8, GS_COL_FLOAT4, GS_COL_FLOAT8,
	GS_COL_INT2, GS_COL_INT4, GS_COL_INT8, GS_COL_FLOAT4, GS_COL_FLOAT8,
	GS_COL_INT4,
};

const char *const kColName[NCOLS] = {
	"program's int4",
	"bool", "int2", "int4", "int8", "float4", "float8",
	"int2 value", "int4 value", "int8 value", "float4 value", "float8 value",
	"unshipped int4",
};

constexpr int32_t kPredLimit = 500;

/* Key choices of gs_batch_groups_find: none, the program's column, the shipped ones. */
const int	kKeyCols[] = {-1, C_PRED, C_KBOOL, C_KI2, C_KI4, C_KI8, C_KF4, C_KF8};
constexpr int kNumKeyCols = sizeof(kKeyCols) / sizeof(kKeyCols[0]);

/* A value column and the key kind its values become. */
struct Combo
{
	int			col;
	int			kind;
	const char *name;
};

const Combo kCombos[] = {
	{C_VI2, GS_KEY_INT32, "int2 as INT32"},
	{C_VI2, GS_KEY_INT64, "int2 as INT64"},
	{C_VI4, GS_KEY_INT32, "int4 as INT32"},
	{C_VI4, GS_KEY_INT64, "int4 as INT64"},
	{C_VI8, GS_KEY_INT64, "int8 as INT64"},
	{C_VF4, GS_KEY_FLOAT4, "float4 as FLOAT4"},
	{C_VF4, GS_KEY_FLOAT8, "float4 as FLOAT8"},
	{C_VF8, GS_KEY_FLOAT8, "float8 as FLOAT8"},
	{C_PRED, GS_KEY_INT32, "program's int4 as INT32"},
};
constexpr int kNumCombos = sizeof(kCombos) / sizeof(kCombos[0]);

int kind_bytes(int kind)
{
	return kind == GS_KEY_INT32 || kind == GS_KEY_FLOAT4 ? 4 : 8;
}

const char *key_col_name(int c)
{
	return c < 0 ? "none (-1)" : kColName[c];
}

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
	code[1].arg = 0;
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

/* A filter of the table; ship: the key and value columns (and, harmlessly, the program's). */
gs_status make_filter(gs_filter **f, int64_t max_rows, int nslots, bool ship, char *err, size_t errlen)
{
	gs_program	prog = pred_program();
	gs_status	st = gs_filter_create(f, &prog, NCOLS, kColType, max_rows, nslots, err, errlen);

	if (st == GS_OK && ship)
	{
		uint8_t		cols[NCOLS] = {0};

		for (int c = C_PRED; c <= C_VF8; ++c)
			cols[c] = 1;
		st = gs_filter_ship_columns(*f, cols, err, errlen);
		if (st != GS_OK)
		{
			gs_filter_destroy(*f);
			*f = NULL;
		}
	}
	return st;
}

/* ------------------------------------------------------------------------
 * Batches
 * ------------------------------------------------------------------------ */

enum { P_ALL, P_HALF, P_NONE };
const char *const kPredName[] = {"all pass", "half pass", "none pass"};
constexpr int64_t kAllDistinct = -1;

/* How one batch is drawn. */
struct Spec
{
	int64_t		n;
	int			pred;
	int64_t		distinct;		/* non-NULL key values per key column (capped by its type) */
	int			key_nulls;		/* percent of rows whose key is NULL; 0: has_nulls off */
	int			val_nulls;		/* percent of rows whose value is NULL; 0: has_nulls off */
	bool		stale;			/* columns without NULLs: has_nulls off over null bytes of 0 and 1 */
	bool		from_zero;		/* every find from the first passing row */
};

/* One batch's rows as staged, and the rows the reference lets pass. */
struct Batch
{
	int64_t		n = 0;
	std::string desc;
	std::vector<uint8_t> vals[NCOLS];
	std::vector<uint8_t> nulls[NCOLS];
	uint8_t		has_nulls[NCOLS];
	std::vector<uint32_t> pass;

	bool is_null(int c, int64_t row) const
	{
		return has_nulls[c] && nulls[c][row];
	}
	const uint8_t *at(int c, int64_t row) const
	{
		return vals[c].data() + (size_t) row * gs_coltype_width(kColType[c]);
	}
	/* the value's bytes, zero-extended (little-endian host) */
	uint64_t bits(int c, int64_t row) const
	{
		uint64_t	b = 0;

		memcpy(&b, at(c, row), gs_coltype_width(kColType[c]));
		return b;
	}
};

/* Bit patterns of interesting keys, in the column's width; the first ones serve small pools. */
std::vector<uint64_t> key_edges(int type)
{
	switch (type)
	{
		case GS_COL_BOOL:
			return {0, 1};
		case GS_COL_INT2:
			return {0, 0xFFFF, 0x8000, 0x7FFF, 1};
		case GS_COL_INT4:
			return {0, 0xFFFFFFFFull, 0x80000000ull, 0x7FFFFFFFull, 1};
		case GS_COL_INT8:
			return {0, ~0ull, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 1};
		case GS_COL_FLOAT4:
			/* -0, +0, NaN, -NaN, a signalling NaN, NaN payload, +-Inf, denormals, 1 */
			return {0x80000000ull, 0, 0x7FC00000ull, 0xFFC00000ull, 0x7F800001ull, 0x7FFFFFFFull,
				0x7F800000ull, 0xFF800000ull, 0x00000001ull, 0x80000001ull, 0x3F800000ull};
		default:
			return {0x8000000000000000ull, 0, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
				0x7FF0000000000001ull, 0x7FFFFFFFFFFFFFFFull, 0x7FF0000000000000ull,
				0xFFF0000000000000ull, 1, 0x8000000000000001ull, 0x3FF0000000000000ull};
	}
}

/* want distinct key bit patterns of a column type (fewer where the type has fewer). */
std::vector<uint64_t> make_pool(int type, int64_t want, Rng &rng)
{
	const std::vector<uint64_t> edges = key_edges(type);
	const size_t width = gs_coltype_width(type);
	std::vector<uint64_t> pool;
	auto		is_edge = [&](uint64_t v) {
		return std::find(edges.begin(), edges.end(), v) != edges.end();
	};

	if (type == GS_COL_BOOL)
		want = std::min<int64_t>(want, 2);
	else if (type == GS_COL_INT2)
		want = std::min<int64_t>(want, 65536);
	for (uint64_t e : edges)
		if ((int64_t) pool.size() < want)
			pool.push_back(e);
	if (type == GS_COL_INT2 && (int64_t) pool.size() < want)
	{
		std::vector<uint64_t> all(65536);

		for (size_t i = 0; i < all.size(); ++i)
			all[i] = i;
		shuffle(all, rng);
		for (size_t i = 0; i < all.size() && (int64_t) pool.size() < want; ++i)
			if (!is_edge(all[i]))
				pool.push_back(all[i]);
	}
	else if ((int64_t) pool.size() < want)
	{
		const uint64_t salt = rng.next();

		/* a bijection of distinct inputs gives distinct keys */
		for (uint64_t j = 0; (int64_t) pool.size() < want; ++j)
		{
			const uint64_t v = width == 4 ? (uint64_t) fmix32((uint32_t) (salt + j)) : fmix64(salt + j);

			if (!is_edge(v))
				pool.push_back(v);
		}
	}
	return pool;
}

/* One value of a value column: edges, small values (repeats) and any bit pattern. */
void gen_value(int type, Rng &rng, uint8_t *dst)
{
	const uint64_t r = rng.next();
	const unsigned pick = (unsigned) (r % 10);
	const uint64_t any = rng.next();

	switch (type)
	{
		case GS_COL_INT2:
			{
				static const int16_t e[] = {0, -1, 1, INT16_MIN, INT16_MAX, INT16_MIN + 1};
				int16_t		v = pick < 3 ? e[any % 6] : pick < 7 ? (int16_t) (any % 201) - 100 :
					(int16_t) any;

				memcpy(dst, &v, 2);
				break;
			}
		case GS_COL_INT4:
			{
				static const int32_t e[] = {0, -1, 1, INT32_MIN, INT32_MAX, INT32_MIN + 1, 32768, -32769};
				int32_t		v = pick < 3 ? e[any % 8] : pick < 7 ? (int32_t) (any % 2001) - 1000 :
					(int32_t) any;

				memcpy(dst, &v, 4);
				break;
			}
		case GS_COL_INT8:
			{
				static const int64_t e[] = {0, -1, 1, INT64_MIN, INT64_MAX, INT64_MIN + 1,
					(int64_t) 1 << 32, -((int64_t) 1 << 31) - 1};
				int64_t		v = pick < 3 ? e[any % 8] : pick < 7 ? (int64_t) (any % 2001) - 1000 :
					(int64_t) any;

				memcpy(dst, &v, 8);
				break;
			}
		case GS_COL_FLOAT4:
			{
				/* +0, -0, NaN, -NaN, sNaN, NaN payload, +-Inf, +-FLT_MAX, FLT_MIN, denormals, +-1 */
				static const uint32_t e[] = {0, 0x80000000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
					0xFFFFFFFFu, 0x7F800000u, 0xFF800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x00800000u,
					0x00000001u, 0x80000001u, 0x3F800000u, 0xBF800000u};
				uint32_t	b;

				if (pick < 3)
					b = e[any % 15];
				else if (pick < 7)
				{
					float		f = (float) ((int) (any % 2001) - 1000) / 8.0f;

					memcpy(&b, &f, 4);
				}
				else
					b = (uint32_t) any;
				memcpy(dst, &b, 4);
				break;
			}
		default:
			{
				static const uint64_t e[] = {0, 0x8000000000000000ull, 0x7FF8000000000000ull,
					0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFFFFFFFFFFFFFFFull,
					0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FEFFFFFFFFFFFFFull,
					0xFFEFFFFFFFFFFFFFull, 0x0010000000000000ull, 1, 0x8000000000000001ull,
					0x3FF0000000000000ull, 0xBFF0000000000000ull};
				uint64_t	b;

				if (pick < 3)
					b = e[any % 15];
				else if (pick < 7)
				{
					double		d = (double) ((int) (any % 2001) - 1000) / 8.0;

					memcpy(&b, &d, 8);
				}
				else
					b = any;
				memcpy(dst, &b, 8);
				break;
			}
	}
}

/* Null bytes of a column by percent; 0 gives has_nulls off (over stale bytes when asked). */
void gen_nulls(Batch &b, int c, int percent, bool stale, Rng &rng)
{
	b.has_nulls[c] = percent > 0;
	for (int64_t i = 0; i < b.n; ++i)
	{
		if (percent > 0)
			b.nulls[c][i] = rng.below(100) < (uint64_t) percent;
		else
			b.nulls[c][i] = stale ? (uint8_t) (rng.next() & 1) : 0;
	}
}

/* Draws a batch of spec s. */
void gen_batch(Batch &b, const Spec &s, uint64_t seed)
{
	Rng			rng(seed);
	char		desc[200];

	b.n = s.n;
	for (int c = 0; c < NCOLS; ++c)
	{
		b.vals[c].assign((size_t) s.n * gs_coltype_width(kColType[c]), 0);
		b.nulls[c].assign((size_t) s.n, 0);
	}

	/* the program's column: never NULL */
	gen_nulls(b, C_PRED, 0, s.stale, rng);
	for (int64_t i = 0; i < s.n; ++i)
	{
		int32_t		p = s.pred == P_ALL ? (int32_t) rng.below(kPredLimit) :
			s.pred == P_NONE ? kPredLimit + (int32_t) rng.below(kPredLimit) :
			(int32_t) rng.below(2 * kPredLimit);

		memcpy(b.vals[C_PRED].data() + 4 * i, &p, 4);
	}

	/* key columns: NULL rows (garbage bytes under them), then the pool over the rest */
	for (int c = C_KBOOL; c <= C_KF8; ++c)
	{
		const size_t w = gs_coltype_width(kColType[c]);
		std::vector<int64_t> rows;

		gen_nulls(b, c, s.key_nulls, s.stale, rng);
		for (int64_t i = 0; i < s.n; ++i)
		{
			if (b.is_null(c, i))
			{
				const uint64_t junk = rng.next() | 0x0101010101010101ull;

				memcpy(b.vals[c].data() + w * i, &junk, w);
			}
			else
				rows.push_back(i);
		}
		if (rows.empty())
			continue;

		const int64_t want = s.distinct == kAllDistinct ? (int64_t) rows.size() : s.distinct;
		const std::vector<uint64_t> pool = make_pool(kColType[c], std::max<int64_t>(want, 1), rng);
		const int64_t d = (int64_t) pool.size();
		std::vector<uint32_t> idx(rows.size());

		/* every pool value at least once when there are rows enough */
		for (size_t j = 0; j < rows.size(); ++j)
			idx[j] = (int64_t) rows.size() >= d ? (uint32_t) (j % (size_t) d) : (uint32_t) rng.below((uint64_t) d);
		shuffle(idx, rng);
		for (size_t j = 0; j < rows.size(); ++j)
			memcpy(b.vals[c].data() + w * rows[j], &pool[idx[j]], w);
	}

	/* value columns */
	for (int c = C_VI2; c <= C_VF8; ++c)
	{
		const size_t w = gs_coltype_width(kColType[c]);

		gen_nulls(b, c, s.val_nulls, s.stale, rng);
		for (int64_t i = 0; i < s.n; ++i)
		{
			if (b.is_null(c, i))
			{
				const uint64_t junk = rng.next();

				memcpy(b.vals[c].data() + w * i, &junk, w);
			}
			else
				gen_value(kColType[c], rng, b.vals[c].data() + w * i);
		}
	}

	gen_nulls(b, C_UNSHIPPED, 10, false, rng);
	for (int64_t i = 0; i < s.n; ++i)
	{
		const uint32_t v = (uint32_t) rng.next();

		memcpy(b.vals[C_UNSHIPPED].data() + 4 * i, &v, 4);
	}

	/* the reference's passing rows */
	b.pass.clear();
	for (int64_t i = 0; i < s.n; ++i)
	{
		int32_t		p;

		memcpy(&p, b.vals[C_PRED].data() + 4 * i, 4);
		if (p < kPredLimit)
			b.pass.push_back((uint32_t) i);
	}

	snprintf(desc, sizeof(desc), "n=%lld %s, %s%lld key values, key NULLs %d%%, value NULLs %d%%%s",
			 (long long) s.n, kPredName[s.pred], s.distinct == kAllDistinct ? "all distinct, " : "",
			 (long long) (s.distinct == kAllDistinct ? s.n : s.distinct), s.key_nulls, s.val_nulls,
			 s.stale ? ", stale null bytes" : "");
	b.desc = desc;
}

/* Copies a batch into slot 'slot''s staging and submits it. */
gs_status stage_submit(gs_filter *f, int slot, const Batch &b, char *err, size_t errlen)
{
	for (int c = 0; c < NCOLS; ++c)
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

/* ------------------------------------------------------------------------
 * The reference
 * ------------------------------------------------------------------------ */

/* Key identity (NULL flag, bytes) -> index; open addressing, sized for 'expected' keys. */
struct KeyIndex
{
	std::vector<uint64_t> keys;
	std::vector<int32_t> vals;
	uint64_t	mask = 0;
	int32_t		null_val = -1;

	void init(int64_t expected)
	{
		size_t		cap = 16;

		while ((int64_t) cap < 2 * expected)
			cap <<= 1;
		keys.assign(cap, 0);
		vals.assign(cap, -1);
		mask = cap - 1;
		null_val = -1;
	}
	size_t slot_of(uint64_t k) const
	{
		size_t		h = (size_t) (fmix64(k ^ 0x5bd1e995ull) & mask);

		while (vals[h] >= 0 && keys[h] != k)
			h = (h + 1) & mask;
		return h;
	}
	int32_t find(bool isnull, uint64_t k) const
	{
		return isnull ? null_val : vals[slot_of(k)];
	}
	int32_t find_or_add(bool isnull, uint64_t k, int32_t next)
	{
		if (isnull)
		{
			if (null_val < 0)
				null_val = next;
			return null_val;
		}

		size_t		h = slot_of(k);

		if (vals[h] < 0)
		{
			keys[h] = k;
			vals[h] = next;
		}
		return vals[h];
	}
};

/*
 * keys.h's order-preserving key of a value, from its bit pattern: signed
 * integers flip the sign bit (of 32 or 64 bits); floats put every NaN last
 * (all ones) and -0 at +0, negative values inverted, others with the sign
 * bit set.  *zero: 1 for -0, 2 for +0 (float kinds only).
 */
uint64_t ref_value_key(int coltype, int kind, const uint8_t *p, uint32_t *zero)
{
	*zero = 0;
	if (kind == GS_KEY_INT32 || kind == GS_KEY_INT64)
	{
		int64_t		v;

		if (coltype == GS_COL_INT2)
		{
			int16_t		x;

			memcpy(&x, p, 2);
			v = x;
		}
		else if (coltype == GS_COL_INT4)
		{
			int32_t		x;

			memcpy(&x, p, 4);
			v = x;
		}
		else
			memcpy(&v, p, 8);
		if (kind == GS_KEY_INT32)
			return (uint64_t) ((uint32_t) v ^ 0x80000000u);
		return (uint64_t) v ^ 0x8000000000000000ull;
	}
	if (kind == GS_KEY_FLOAT4)
	{
		uint32_t	b;

		memcpy(&b, p, 4);
		if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0)
			return 0xFFFFFFFFull;
		if ((b & 0x7FFFFFFFu) == 0)
		{
			*zero = (b >> 31) ? 1 : 2;
			b = 0;
		}
		return (b >> 31) ? (uint64_t) (uint32_t) ~b : (uint64_t) (b | 0x80000000u);
	}

	uint64_t	b;

	if (coltype == GS_COL_FLOAT4)
	{
		float		f;
		double		d;

		memcpy(&f, p, 4);
		d = (double) f;
		memcpy(&b, &d, 8);
	}
	else
		memcpy(&b, p, 8);
	if ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (b & 0x000FFFFFFFFFFFFFull) != 0)
		return ~0ull;
	if ((b & 0x7FFFFFFFFFFFFFFFull) == 0)
	{
		*zero = (b >> 63) ? 1 : 2;
		b = 0;
	}
	return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

struct PairRec
{
	uint32_t	group;
	uint64_t	key;

	bool operator<(const PairRec &o) const
	{
		return group != o.group ? group < o.group : key < o.key;
	}
	bool operator==(const PairRec &o) const
	{
		return group == o.group && key == o.key;
	}
	bool operator!=(const PairRec &o) const
	{
		return !(*this == o);
	}
};

/* ------------------------------------------------------------------------
 * What the runs covered (checked at the end)
 * ------------------------------------------------------------------------ */

struct Coverage
{
	bool		nkeys1 = false, nkeys2 = false, nkeys101 = false, nkeys1024 = false, nkeys1025 = false;
	bool		nkeys_many = false;		/* over 65536, the global tally */
	bool		null_key = false, from_mid = false, from_end = false, no_key = false;
	bool		slot[2] = {false, false};
	bool		no_groups = false, grew = false;
	bool		combo[kNumCombos] = {};
};
Coverage	g_cov;

/* ------------------------------------------------------------------------
 * Held pairs and their reference
 * ------------------------------------------------------------------------ */

struct Held
{
	gs_pairs   *p = NULL;
	int			combo = 0;
	int			with_groups = 1;
	std::vector<PairRec> snapshot;	/* as read back last, in held order */
	std::vector<PairRec> pending;	/* the reference's pairs added since */
	int64_t		ref_count = 0;
	bool		touched = false;
	bool		broken = false;		/* a failed check: recreated before the next batch */
};

bool held_open(Held &h, int combo, int with_groups)
{
	char		err[512] = "";
	gs_status	st;

	gs_pairs_destroy(h.p);
	h.p = NULL;
	h.combo = combo;
	h.with_groups = with_groups;
	h.snapshot.clear();
	h.pending.clear();
	h.ref_count = 0;
	h.touched = false;
	h.broken = false;
	st = gs_pairs_create(&h.p, kind_bytes(kCombos[combo].kind), with_groups, err, sizeof(err));
	if (st != GS_OK)
	{
		report(false, std::string("gs_pairs_create for ") + kCombos[combo].name + ": status " +
			   std::to_string((int) st) + ": " + err);
		h.p = NULL;
		h.broken = true;
		return false;
	}
	return true;
}

/*
 * Reads the held pairs back: their count is the reference's, what was held
 * at the last check is still there in its order, and the pairs since are,
 * as multisets, the reference's.
 */
void held_verify(Held &h, const std::string &label)
{
	const int	kb = kind_bytes(kCombos[h.combo].kind);
	const int64_t cnt = gs_pairs_count(h.p);
	std::vector<uint8_t> kbuf((size_t) cnt * kb);
	std::vector<uint32_t> gbuf(h.with_groups ? (size_t) cnt : 0);
	std::vector<PairRec> now((size_t) cnt);
	std::string why;
	char		err[512] = "";
	bool		ok = cnt == h.ref_count;
	const size_t pre = h.snapshot.size();

	h.touched = false;
	if (!ok)
		note(&why, "count %lld, reference %lld", (long long) cnt, (long long) h.ref_count);
	if (ok)
	{
		gs_status	st = gs_pairs_read(h.p, cnt ? kbuf.data() : NULL,
									   h.with_groups && cnt ? gbuf.data() : NULL, err, sizeof(err));

		ok = st == GS_OK;
		if (!ok)
			note(&why, "gs_pairs_read: status %d: %s", (int) st, err);
	}
	if (ok)
	{
		for (int64_t i = 0; i < cnt; ++i)
		{
			uint64_t	k = 0;

			memcpy(&k, kbuf.data() + (size_t) i * kb, kb);
			now[i].group = h.with_groups ? gbuf[i] : 0;
			now[i].key = k;
		}
		for (size_t i = 0; ok && i < pre; ++i)
			if (now[i] != h.snapshot[i])
			{
				ok = false;
				note(&why, "held pair %zu changed: (%u, %llx) -> (%u, %llx)", i, h.snapshot[i].group,
					 (unsigned long long) h.snapshot[i].key, now[i].group,
					 (unsigned long long) now[i].key);
			}
	}
	if (ok)
	{
		std::vector<PairRec> tail(now.begin() + pre, now.end());

		std::sort(tail.begin(), tail.end());
		std::sort(h.pending.begin(), h.pending.end());
		for (size_t i = 0; ok && i < tail.size(); ++i)
			if (tail[i] != h.pending[i])
			{
				ok = false;
				note(&why, "new pairs differ at sorted index %zu of %zu: device (%u, %llx), "
					 "reference (%u, %llx)", i, tail.size(), tail[i].group,
					 (unsigned long long) tail[i].key, h.pending[i].group,
					 (unsigned long long) h.pending[i].key);
			}
	}
	report(ok, label + ": held pairs " + kCombos[h.combo].name +
		   (h.with_groups ? "" : " (no groups)") + ", " + std::to_string(cnt) + " held, " +
		   std::to_string(cnt - (int64_t) pre) + " new" + why);
	if (ok)
		h.snapshot.swap(now);
	else
		h.broken = true;
	h.pending.clear();
}

/* ------------------------------------------------------------------------
 * find and add against the reference
 * ------------------------------------------------------------------------ */

struct FindOut
{
	int64_t		nkeys = 0;
	std::vector<uint32_t> row_dev;	/* per passing row from 'from': its device key index */
	bool		has_null = false;
};

/* gs_batch_groups_find on a waited-for slot: status, keys, first rows, NULL flags. */
bool run_find(gs_batch_groups *g, gs_filter *f, int slot, const Batch &b, int64_t from,
			  int key_col, FindOut &out, const std::string &label)
{
	char		err[512] = "";
	int64_t		nkeys = -1;
	const gs_batch_key *keys = NULL;
	gs_status	st = find_by_column(g, f, slot, from, key_col, &nkeys, &keys, err, sizeof(err));
	const int64_t m = (int64_t) b.pass.size() - from;
	KeyIndex	index;
	std::vector<gs_batch_key> ref;
	std::vector<int32_t> row_ref((size_t) m);
	std::string why;
	bool		ok;

	if (st != GS_OK)
	{
		report(false, label + ": find: status " + std::to_string((int) st) + ": " + err);
		return false;
	}
	index.init(m);
	for (int64_t j = 0; j < m; ++j)
	{
		const uint32_t pos = b.pass[from + j];
		const bool	isnull = key_col >= 0 && b.is_null(key_col, pos);
		const uint64_t bits = key_col < 0 || isnull ? 0 : b.bits(key_col, pos);
		const int32_t r = index.find_or_add(isnull, bits, (int32_t) ref.size());

		if (r == (int32_t) ref.size())
		{
			gs_batch_key k;

			k.bits[0] = bits;
			k.first = (uint32_t) j;
			k.isnull = isnull ? 1 : 0;
			ref.push_back(k);
		}
		row_ref[j] = r;
	}

	std::vector<int32_t> ref_to_dev(ref.size(), -1);

	ok = nkeys == (int64_t) ref.size() && (nkeys == 0 || keys != NULL);
	if (!ok)
		note(&why, "%lld keys, reference %zu", (long long) nkeys, ref.size());
	for (int64_t k = 0; ok && k < nkeys; ++k)
	{
		const gs_batch_key &d = keys[k];
		const int32_t r = d.isnull > 1 ? -1 : index.find(d.isnull != 0, d.bits[0]);

		if (d.isnull > 1 || (d.isnull && d.bits[0] != 0))
			note(&why, "key %lld: isnull %u, bits %llx", (long long) k, d.isnull,
				 (unsigned long long) d.bits[0]);
		else if (r < 0)
			note(&why, "key %lld (isnull %u, bits %llx) is not among the passing rows' keys",
				 (long long) k, d.isnull, (unsigned long long) d.bits[0]);
		else if (ref_to_dev[r] >= 0)
			note(&why, "key %lld (isnull %u, bits %llx) repeats key %d", (long long) k, d.isnull,
				 (unsigned long long) d.bits[0], ref_to_dev[r]);
		else if (d.first != ref[r].first)
			note(&why, "key %lld (isnull %u, bits %llx): first %u, reference %u", (long long) k,
				 d.isnull, (unsigned long long) d.bits[0], d.first, ref[r].first);
		else
		{
			ref_to_dev[r] = (int32_t) k;
			continue;
		}
		ok = false;
	}
	if (!ok && why.empty())
		why = ": (details left out)";
	report(ok, label + ": find " + std::to_string(nkeys) + " keys of " + std::to_string(m) +
		   " rows" + why);
	if (!ok)
		return false;
	out.nkeys = nkeys;
	out.row_dev.resize((size_t) m);
	for (int64_t j = 0; j < m; ++j)
		out.row_dev[j] = (uint32_t) ref_to_dev[row_ref[j]];
	out.has_null = index.null_val >= 0;
	return true;
}

struct RefTally
{
	uint64_t	rows = 0;
	uint64_t	keys = 0;
	uint32_t	zeros = 0;
};

/*
 * gs_batch_groups_add after run_find: status, pairs count, tallies; the
 * reference's pairs go to h.pending for held_verify.  give_groups: pass a
 * group_of_key (a random injective map, new per call), else NULL.
 */
bool run_add(gs_batch_groups *g, gs_filter *f, const Batch &b, int64_t from, const FindOut &fo,
			 int combo, Held &h, bool give_groups, Rng &rng, const std::string &label)
{
	const Combo &c = kCombos[combo];
	const int64_t m = (int64_t) b.pass.size() - from;
	std::vector<uint32_t> gok;
	std::vector<RefTally> rt((size_t) fo.nkeys);
	std::vector<PairRec> pairs;
	const gs_batch_tally *tally = NULL;
	char		err[512] = "";
	std::string why;
	int64_t		before;
	int64_t		after;
	gs_status	st;
	bool		ok;

	if (h.p == NULL)
		return false;
	if (give_groups)
	{
		const uint32_t odd = (uint32_t) rng.next() | 1u;
		const uint32_t salt = (uint32_t) rng.next();

		gok.resize((size_t) std::max<int64_t>(fo.nkeys, 1));
		for (size_t k = 0; k < gok.size(); ++k)
			gok[k] = (uint32_t) k;
		shuffle(gok, rng);
		for (size_t k = 0; k < gok.size(); ++k)
			gok[k] = gok[k] * odd + salt;
	}
	before = gs_pairs_count(h.p);
	st = gs_batch_groups_add(g, f, give_groups ? gok.data() : NULL, c.col, c.kind, h.p, &tally,
							 err, sizeof(err));
	after = gs_pairs_count(h.p);

	pairs.reserve((size_t) m);
	for (int64_t j = 0; j < m; ++j)
	{
		const uint32_t pos = b.pass[from + j];
		const uint32_t k = fo.row_dev[j];

		rt[k].rows++;
		if (!b.is_null(c.col, pos))
		{
			uint32_t	zero;
			PairRec		pr;

			pr.key = ref_value_key(kColType[c.col], c.kind, b.at(c.col, pos), &zero);
			pr.group = h.with_groups ? gok[k] : 0;
			rt[k].keys++;
			rt[k].zeros |= zero;
			pairs.push_back(pr);
		}
	}

	ok = st == GS_OK;
	if (!ok)
		note(&why, "status %d: %s", (int) st, err);
	if (ok && after - before != (int64_t) pairs.size())
	{
		ok = false;
		note(&why, "%lld pairs appended, reference %zu", (long long) (after - before), pairs.size());
	}
	if (ok && fo.nkeys > 0 && tally == NULL)
	{
		ok = false;
		note(&why, "no tallies");
	}
	for (int64_t k = 0; ok && k < fo.nkeys; ++k)
		if (tally[k].rows != rt[k].rows || tally[k].keys != rt[k].keys || tally[k].zeros != rt[k].zeros)
		{
			ok = false;
			note(&why, "key %lld: rows %llu keys %llu zeros %u, reference rows %llu keys %llu zeros %u",
				 (long long) k, (unsigned long long) tally[k].rows,
				 (unsigned long long) tally[k].keys, tally[k].zeros,
				 (unsigned long long) rt[k].rows, (unsigned long long) rt[k].keys, rt[k].zeros);
		}
	if (!ok && why.empty())
		why = ": (details left out)";
	report(ok, label + ": add " + c.name + (h.with_groups ? "" : " (no groups)") + ", " +
		   std::to_string(pairs.size()) + " pairs" + why);
	if (ok)
	{
		h.pending.insert(h.pending.end(), pairs.begin(), pairs.end());
		h.ref_count += (int64_t) pairs.size();
		h.touched = true;
		g_cov.combo[combo] = true;
		if (fo.nkeys == 1)
			g_cov.nkeys1 = true;
		if (fo.nkeys == 2)
			g_cov.nkeys2 = true;
		if (fo.nkeys == 101)
			g_cov.nkeys101 = true;
		if (fo.nkeys == 1024)
			g_cov.nkeys1024 = true;
		if (fo.nkeys == 1025)
			g_cov.nkeys1025 = true;
		if (fo.nkeys > 65536)
			g_cov.nkeys_many = true;
		if (fo.has_null)
			g_cov.null_key = true;
		if (!h.with_groups)
			g_cov.no_groups = true;
		if (before > 0 && before <= (int64_t) 1 << 20 && after > (int64_t) 1 << 20)
			g_cov.grew = true;
	}
	else
		h.broken = true;
	return ok;
}

/* ------------------------------------------------------------------------
 * Runs of batches through both slots
 * ------------------------------------------------------------------------ */

struct Engine
{
	gs_filter  *f = NULL;
	gs_batch_groups *g = NULL;
	int64_t		max_rows = 0;
};

enum { MODE_SIZES, MODE_CAPACITY };

/* Capacity runs: one key column per batch, three value combos with groups, one without. */
const int	kCapKeys[] = {C_KI8, C_KF4, C_KI2, C_KF8, -1, C_KBOOL};
const int	kCapCombos[] = {2, 7, 6};
constexpr int kCapNoGroupsCombo = 4;

struct RunStats
{
	int			batches = 0;
	int			finds = 0;
	int			adds = 0;
};

/* The from-th passing row a find starts at, by a rotating choice. */
int64_t choose_from(int choice, int64_t count)
{
	switch (choice % 5)
	{
		case 2:
			return count / 3;
		case 3:
			return count > 0 ? count - 1 : 0;
		case 4:
			return count;
		default:
			return 0;
	}
}

/* Waits for a batch's slot, checks its positions, then finds and adds as the mode plans. */
void process_batch(Engine &e, const Batch &b, const Spec &spec, int slot, int bidx, int mode,
				   Held *held, Held *nog, const std::string &run, RunStats &rs)
{
	const uint32_t *positions = NULL;
	int64_t		count = -1;
	int			row_error = 0;
	double		ms = 0;
	char		err[512] = "";
	Rng			rng(case_seed(bidx, 7) ^ fmix64((uint64_t) b.n));
	const std::string label = run + " batch " + std::to_string(bidx) + " (" + b.desc + ") slot " +
		std::to_string(slot);
	gs_status	st = gs_filter_wait(e.f, slot, &positions, &count, &row_error, &ms, err, sizeof(err));
	bool		ok = st == GS_OK && count == (int64_t) b.pass.size() && row_error == 0 &&
		(count == 0 || std::equal(b.pass.begin(), b.pass.end(), positions));

	rs.batches++;
	report(ok, label + ": filter passes " + std::to_string(count) + " rows, reference " +
		   std::to_string(b.pass.size()) + (st != GS_OK ? std::string(": ") + err : std::string()));
	if (!ok)
		return;
	g_cov.slot[slot] = true;

	for (int j = 0; j < kNumKeyCols; ++j)
	{
		const int	key_col = kKeyCols[j];
		int64_t		from;
		std::vector<std::pair<Held *, int>> adds;	/* held pairs, combo */

		if (mode == MODE_CAPACITY)
		{
			if (key_col != kCapKeys[bidx % (int) (sizeof(kCapKeys) / sizeof(kCapKeys[0]))])
				continue;
			from = bidx % 3 == 2 ? count / 3 : 0;
			for (int ci : kCapCombos)
				adds.push_back({&held[ci], ci});
			adds.push_back({&nog[kCapNoGroupsCombo], kCapNoGroupsCombo});
		}
		else
		{
			const bool	small = b.n <= 1025;
			/* key_col -1 goes to pairs without groups every other batch */
			Held	   *pool = key_col < 0 && bidx % 2 == 1 ? nog : held;

			from = spec.from_zero ? 0 : choose_from(j + bidx, count);
			if (small)
			{
				for (int ci = 0; ci < kNumCombos; ++ci)
					adds.push_back({&pool[ci], ci});
			}
			else
			{
				adds.push_back({&pool[(j + bidx) % kNumCombos], (j + bidx) % kNumCombos});
				if (j == 0)
					adds.push_back({&pool[(bidx + 4) % kNumCombos], (bidx + 4) % kNumCombos});
			}
		}

		FindOut		fo;
		const std::string flabel = label + ", key " + key_col_name(key_col) + ", from " +
			std::to_string(from);

		rs.finds++;
		if (!run_find(e.g, e.f, slot, b, from, key_col, fo, flabel))
			continue;
		if (from > 0 && from < count)
			g_cov.from_mid = true;
		if (from == count && count > 0)
			g_cov.from_end = true;
		if (key_col < 0 && fo.nkeys > 0)
			g_cov.no_key = true;
		for (auto &a : adds)
		{
			Held	   &h = *a.first;
			/* groups for pairs that hold them; for the others NULL, or ignored ones every fourth batch */
			const bool	give = h.with_groups || bidx % 4 == 3;

			rs.adds++;
			run_add(e.g, e.f, b, from, fo, a.second, h, give, rng, flabel);
		}
	}
	for (int ci = 0; ci < kNumCombos; ++ci)
	{
		if (held[ci].touched)
			held_verify(held[ci], label);
		if (nog[ci].touched)
			held_verify(nog[ci], label);
	}
}

/*
 * Runs specs' batches through the engine's two slots: batch b is staged
 * and submitted on slot b % 2 while batch b - 1 is grouped on the other.
 * Held pairs live through the run; in MODE_SIZES they start afresh, at a
 * batch's start, once they hold more than recycle_at pairs.
 */
void run_batches(Engine &e, const std::string &run, const std::vector<Spec> &specs, int mode,
				 int64_t recycle_at, int *case_no)
{
	Held		held[kNumCombos];
	Held		nog[kNumCombos];
	Batch		batches[2];
	bool		submitted[2] = {false, false};
	RunStats	rs;
	const int	failed_before = g_failed;

	for (int ci = 0; ci < kNumCombos; ++ci)
	{
		held_open(held[ci], ci, 1);
		held_open(nog[ci], ci, 0);
	}
	for (size_t b = 0; b <= specs.size(); ++b)
	{
		if (b < specs.size())
		{
			const int	slot = (int) (b % 2);
			char		err[512] = "";
			gs_status	st;

			gen_batch(batches[slot], specs[b], case_seed((*case_no)++, 0));
			st = stage_submit(e.f, slot, batches[slot], err, sizeof(err));
			submitted[slot] = st == GS_OK;
			if (st != GS_OK)
				report(false, run + " batch " + std::to_string(b) + ": submit: status " +
					   std::to_string((int) st) + ": " + err);
		}
		if (b >= 1)
		{
			const int	slot = (int) ((b - 1) % 2);

			if (!submitted[slot])
				continue;
			submitted[slot] = false;
			for (int ci = 0; ci < kNumCombos; ++ci)
			{
				Held	   *hs[2] = {&held[ci], &nog[ci]};

				for (Held *h : hs)
					if (h->broken || (recycle_at > 0 && h->ref_count > recycle_at))
						held_open(*h, ci, h->with_groups);
			}
			process_batch(e, batches[slot], specs[b - 1], slot, (int) (b - 1), mode, held, nog, run, rs);
		}
	}
	for (int ci = 0; ci < kNumCombos; ++ci)
	{
		gs_pairs_destroy(held[ci].p);
		gs_pairs_destroy(nog[ci].p);
	}
	printf("%s %s: %d batches, %d finds, %d adds\n", g_failed > failed_before ? "FAIL" : "PASS",
		   run.c_str(), rs.batches, rs.finds, rs.adds);
	fflush(stdout);
}

/* Batches of up to 1025 rows: most shapes, every key column and value combo. */
std::vector<Spec> small_specs(int64_t n)
{
	const int64_t A = kAllDistinct;
	const Spec	all[] = {
		/* n, pred, distinct, key NULLs, value NULLs, stale, from_zero */
		{n, P_ALL, 1, 0, 10, false, false},
		{n, P_ALL, 1, 10, 0, true, false},
		{n, P_ALL, 1, 100, 10, false, true},
		{n, P_ALL, 2, 0, 100, true, true},
		{n, P_ALL, 2, 30, 10, false, false},
		{n, P_ALL, 101, 0, 25, false, true},
		{n, P_ALL, 101, 10, 10, false, false},
		{n, P_ALL, 1024, 0, 10, false, true},
		{n, P_ALL, 1025, 0, 0, false, true},
		{n, P_ALL, A, 0, 10, true, false},
		{n, P_ALL, A, 10, 10, false, false},
		{n, P_HALF, 1, 10, 10, false, false},
		{n, P_HALF, 101, 0, 10, true, false},
		{n, P_HALF, A, 10, 25, false, false},
		{n, P_HALF, 2, 50, 10, false, false},
		{n, P_NONE, 1, 0, 10, false, false},
		{n, P_NONE, A, 10, 10, false, false},
	};
	std::vector<Spec> out;

	for (const Spec &s : all)
		if (s.distinct == kAllDistinct || s.distinct <= std::max<int64_t>(n, 1) ||
			(s.distinct <= 2 && n > 0))
			out.push_back(s);
	return out;
}

/* Large batches: the tally limit at 1024/1025 keys (NULL key counted or not) and the rest. */
std::vector<Spec> big_specs(int64_t n)
{
	const int64_t A = kAllDistinct;

	return {
		{n, P_ALL, 1024, 0, 10, false, true},	/* 1024 keys */
		{n, P_ALL, 1023, 10, 0, true, true},	/* 1023 + NULL */
		{n, P_ALL, 1024, 10, 10, false, true},	/* 1024 + NULL */
		{n, P_ALL, 1025, 0, 10, false, true},	/* 1025 keys */
		{n, P_ALL, A, 10, 10, false, false},
		{n, P_HALF, A, 0, 25, false, false},
		{n, P_HALF, 101, 10, 10, false, false},
		{n, P_NONE, 101, 10, 10, false, false},
		{n, P_ALL, 2, 50, 10, true, false},
		{n, P_ALL, 1, 0, 100, false, true},
	};
}

/* Batches of max_rows rows appended to the same held pairs, past their first capacity. */
std::vector<Spec> capacity_specs(int64_t max_rows)
{
	return {
		{max_rows, P_ALL, 1025, 10, 10, false, true},
		{max_rows, P_ALL, kAllDistinct, 0, 0, false, true},
		{max_rows, P_HALF, 101, 10, 0, false, false},
		{max_rows, P_ALL, 1024, 0, 0, true, true},
		{max_rows, P_ALL, 2, 10, 0, false, true},
		{max_rows, P_ALL, kAllDistinct, 10, 0, false, true},
	};
}

/* ------------------------------------------------------------------------
 * Refusals
 * ------------------------------------------------------------------------ */

void check_arguments()
{
	const int	failed_before = g_failed;
	const int64_t kRows = 1000;
	char		err[512] = "";
	gs_filter  *f = NULL;
	gs_batch_groups *g = NULL;
	gs_batch_groups *g33 = NULL;
	gs_pairs   *p4 = NULL;
	gs_pairs   *p8 = NULL;
	gs_pairs   *p8n = NULL;
	std::vector<uint32_t> gok(kRows + 1);
	const gs_batch_tally *tally = NULL;
	const gs_batch_key *keys = NULL;
	int64_t		nkeys = 0;
	Batch		b;
	const uint32_t *positions = NULL;
	int64_t		count = 0;
	int			row_error = 0;
	double		ms = 0;
	gs_status	st;

	for (size_t i = 0; i < gok.size(); ++i)
		gok[i] = (uint32_t) (i * 7 + 3);

	/* runs call and checks it returned want, with a message when want is an error */
	auto		expect = [&](gs_status want, const std::string &what, auto call) {
		err[0] = '\0';
		gs_status	got = call();

		report(got == want && (want == GS_OK || err[0] != '\0'),
			   "arguments: " + what + " -> status " + std::to_string((int) got) +
			   (err[0] ? std::string(": ") + err : std::string()));
		return got == want;
	};

	{
		gs_batch_groups *x = NULL;

		expect(GS_INVALID_ARGUMENT, "create: groups pointer NULL", [&] {
			return gs_batch_groups_create(NULL, 10, err, sizeof(err));
		});
		expect(GS_INVALID_ARGUMENT, "create: max_rows 0", [&] {
			return gs_batch_groups_create(&x, 0, err, sizeof(err));
		});
		expect(GS_INVALID_ARGUMENT, "create: max_rows -1", [&] {
			return gs_batch_groups_create(&x, -1, err, sizeof(err));
		});
		expect(GS_INVALID_ARGUMENT, "create: max_rows UINT32_MAX / 2 + 1", [&] {
			return gs_batch_groups_create(&x, (int64_t) (UINT32_MAX / 2) + 1, err, sizeof(err));
		});
		report(x == NULL, "arguments: refused creates leave no groups");
		gs_batch_groups_destroy(NULL);
	}

	st = make_filter(&f, kRows, 2, true, err, sizeof(err));
	if (st == GS_OK)
		st = gs_batch_groups_create(&g, kRows, err, sizeof(err));
	if (st == GS_OK)
		st = gs_batch_groups_create(&g33, 33, err, sizeof(err));
	if (st == GS_OK)
		st = gs_pairs_create(&p4, 4, 1, err, sizeof(err));
	if (st == GS_OK)
		st = gs_pairs_create(&p8, 8, 1, err, sizeof(err));
	if (st == GS_OK)
		st = gs_pairs_create(&p8n, 8, 0, err, sizeof(err));
	report(st == GS_OK, std::string("arguments: setting up") + (st != GS_OK ? std::string(": ") + err : ""));
	if (st != GS_OK)
		goto done;

	expect(GS_INVALID_ARGUMENT, "ship columns: list NULL", [&] {
		return gs_filter_ship_columns(f, NULL, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "ship columns: filter NULL", [&] {
		static const uint8_t cols[NCOLS] = {0};

		return gs_filter_ship_columns(NULL, cols, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "add before any find", [&] {
		return gs_batch_groups_add(g, f, gok.data(), C_VF8, GS_KEY_FLOAT8, p8, &tally, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find on slot 1, never submitted", [&] {
		return find_by_column(g, f, 1, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});

	/* 100 rows, all passing, no NULL keys, 10% NULL values */
	gen_batch(b, Spec{100, P_ALL, 7, 0, 10, false, true}, case_seed(-1, 1));
	st = stage_submit(f, 0, b, err, sizeof(err));
	report(st == GS_OK, "arguments: submit slot 0");
	expect(GS_INVALID_ARGUMENT, "find on a slot submitted and not waited for", [&] {
		return find_by_column(g, f, 0, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "ship columns while a batch is in flight", [&] {
		uint8_t		cols[NCOLS] = {0};

		cols[C_UNSHIPPED] = 1;
		return gs_filter_ship_columns(f, cols, err, sizeof(err));
	});
	st = gs_filter_wait(f, 0, &positions, &count, &row_error, &ms, err, sizeof(err));
	report(st == GS_OK && count == 100, "arguments: wait slot 0: 100 rows pass");

	expect(GS_INVALID_ARGUMENT, "find: groups NULL", [&] {
		return find_by_column(NULL, f, 0, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: nkeys NULL", [&] {
		return find_by_column(g, f, 0, 0, C_KI4, NULL, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: keys NULL", [&] {
		return find_by_column(g, f, 0, 0, C_KI4, &nkeys, NULL, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: filter NULL", [&] {
		return find_by_column(g, NULL, 0, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: slot -1", [&] {
		return find_by_column(g, f, -1, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: slot 2 of two", [&] {
		return find_by_column(g, f, 2, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: key column ncols", [&] {
		return find_by_column(g, f, 0, 0, NCOLS, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: key column neither read nor shipped", [&] {
		return find_by_column(g, f, 0, 0, C_UNSHIPPED, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: from -1", [&] {
		return find_by_column(g, f, 0, -1, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find: from count + 1", [&] {
		return find_by_column(g, f, 0, 101, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	report(find_by_column(g, f, 0, 0, C_UNSHIPPED, &nkeys, &keys, NULL, 0) == GS_INVALID_ARGUMENT,
		   "arguments: find: unshipped key column with no errbuf -> GS_INVALID_ARGUMENT");
	expect(GS_INVALID_ARGUMENT, "add after a refused find", [&] {
		return gs_batch_groups_add(g, f, gok.data(), C_VF8, GS_KEY_FLOAT8, p8, &tally, err, sizeof(err));
	});

	/* from = count: no rows, no keys, nothing appended */
	nkeys = -1;
	expect(GS_OK, "find: from = count", [&] {
		return find_by_column(g, f, 0, 100, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	report(nkeys == 0, "arguments: find from = count gives no keys");
	expect(GS_OK, "add after a find of no rows", [&] {
		return gs_batch_groups_add(g, f, NULL, C_VF8, GS_KEY_FLOAT8, p8, &tally, err, sizeof(err));
	});
	report(gs_pairs_count(p8) == 0, "arguments: add of no rows appends nothing");

	nkeys = -1;
	expect(GS_OK, "find: int4 key", [&] {
		return find_by_column(g, f, 0, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	report(nkeys == 7, "arguments: find: 7 distinct int4 keys, got " + std::to_string(nkeys));

	{
		struct Bad
		{
			const char *what;
			int			col;
			int			kind;
			gs_pairs   *pairs;
			bool		tally;
			bool		groups;
		};
		const Bad	bad[] = {
			{"add: value column neither read nor shipped", C_UNSHIPPED, GS_KEY_INT32, p4, true, true},
			{"add: value column -1", -1, GS_KEY_INT64, p8, true, true},
			{"add: value column ncols", NCOLS, GS_KEY_INT64, p8, true, true},
			{"add: bool value column as INT32", C_KBOOL, GS_KEY_INT32, p4, true, true},
			{"add: bool value column as INT64", C_KBOOL, GS_KEY_INT64, p8, true, true},
			{"add: float8 column as INT32", C_VF8, GS_KEY_INT32, p4, true, true},
			{"add: float8 column as INT64", C_VF8, GS_KEY_INT64, p8, true, true},
			{"add: float8 column as FLOAT4", C_VF8, GS_KEY_FLOAT4, p4, true, true},
			{"add: float4 column as INT32", C_VF4, GS_KEY_INT32, p4, true, true},
			{"add: float4 column as INT64", C_VF4, GS_KEY_INT64, p8, true, true},
			{"add: int2 column as FLOAT4", C_VI2, GS_KEY_FLOAT4, p4, true, true},
			{"add: int4 column as FLOAT4", C_VI4, GS_KEY_FLOAT4, p4, true, true},
			{"add: int4 column as FLOAT8", C_VI4, GS_KEY_FLOAT8, p8, true, true},
			{"add: int8 column as INT32", C_VI8, GS_KEY_INT32, p4, true, true},
			{"add: int8 column as FLOAT8", C_VI8, GS_KEY_FLOAT8, p8, true, true},
			{"add: key kind 4", C_VI8, 4, p8, true, true},
			{"add: key kind -1", C_VI4, -1, p8, true, true},
			{"add: INT64 keys into 4-byte pairs", C_VI8, GS_KEY_INT64, p4, true, true},
			{"add: INT32 keys into 8-byte pairs", C_VI4, GS_KEY_INT32, p8, true, true},
			{"add: FLOAT8 keys into 4-byte pairs", C_VF8, GS_KEY_FLOAT8, p4, true, true},
			{"add: FLOAT4 keys into 8-byte pairs", C_VF4, GS_KEY_FLOAT4, p8, true, true},
			{"add: pairs NULL", C_VF8, GS_KEY_FLOAT8, NULL, true, true},
			{"add: tally NULL", C_VF8, GS_KEY_FLOAT8, p8, false, true},
			{"add: group_of_key NULL into pairs with groups", C_VF8, GS_KEY_FLOAT8, p8, true, false},
		};

		for (const Bad &x : bad)
			expect(GS_INVALID_ARGUMENT, x.what, [&] {
				return gs_batch_groups_add(g, f, x.groups ? gok.data() : NULL, x.col, x.kind, x.pairs,
										   x.tally ? &tally : NULL, err, sizeof(err));
			});
		report(gs_pairs_count(p4) == 0 && gs_pairs_count(p8) == 0,
			   "arguments: refused adds append nothing");
	}

	/* the find still stands: good adds go through */
	{
		int64_t		nonnull = 0;

		for (uint32_t r : b.pass)
			nonnull += !b.is_null(C_VF4, r);
		expect(GS_OK, "add: float4 column as FLOAT8 after the refusals", [&] {
			return gs_batch_groups_add(g, f, gok.data(), C_VF4, GS_KEY_FLOAT8, p8, &tally, err, sizeof(err));
		});
		report(gs_pairs_count(p8) == nonnull, "arguments: it appends the non-NULL values");
		nonnull = 0;
		for (uint32_t r : b.pass)
			nonnull += !b.is_null(C_VI2, r);
		expect(GS_OK, "add: int2 column as INT32", [&] {
			return gs_batch_groups_add(g, f, gok.data(), C_VI2, GS_KEY_INT32, p4, &tally, err, sizeof(err));
		});
		report(gs_pairs_count(p4) == nonnull, "arguments: int2 as INT32 appends the non-NULL values");
		expect(GS_OK, "add: group_of_key NULL into pairs without groups", [&] {
			return gs_batch_groups_add(g, f, NULL, C_VI8, GS_KEY_INT64, p8n, &tally, err, sizeof(err));
		});
		expect(GS_OK, "add: program's column as INT64", [&] {
			return gs_batch_groups_add(g, f, NULL, C_PRED, GS_KEY_INT64, p8n, &tally, err, sizeof(err));
		});
	}

	/* the slot submitted again: the find's batch is gone until it is waited for */
	st = stage_submit(f, 0, b, err, sizeof(err));
	report(st == GS_OK, "arguments: submit slot 0 again");
	expect(GS_INVALID_ARGUMENT, "add while the found slot is in flight again", [&] {
		return gs_batch_groups_add(g, f, gok.data(), C_VF8, GS_KEY_FLOAT8, p8, &tally, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "find on the slot in flight", [&] {
		return find_by_column(g, f, 0, 0, C_KI4, &nkeys, &keys, err, sizeof(err));
	});
	st = gs_filter_wait(f, 0, &positions, &count, &row_error, &ms, err, sizeof(err));
	report(st == GS_OK && count == 100, "arguments: wait slot 0 again");
	expect(GS_OK, "find on it once waited for", [&] {
		return find_by_column(g, f, 0, 0, C_KF8, &nkeys, &keys, err, sizeof(err));
	});

	/* groups for 33 passing rows: 33 go, 34 do not */
	gen_batch(b, Spec{33, P_ALL, kAllDistinct, 10, 10, false, true}, case_seed(-1, 2));
	st = stage_submit(f, 1, b, err, sizeof(err));
	if (st == GS_OK)
		st = gs_filter_wait(f, 1, &positions, &count, &row_error, &ms, err, sizeof(err));
	report(st == GS_OK && count == 33, "arguments: 33 rows on slot 1");
	expect(GS_OK, "find 33 passing rows in groups of max_rows 33", [&] {
		return find_by_column(g33, f, 1, 0, C_KI8, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_OK, "add them", [&] {
		return gs_batch_groups_add(g33, f, gok.data(), C_VI8, GS_KEY_INT64, p8, &tally, err, sizeof(err));
	});
	gen_batch(b, Spec{34, P_ALL, kAllDistinct, 10, 10, false, true}, case_seed(-1, 3));
	st = stage_submit(f, 1, b, err, sizeof(err));
	if (st == GS_OK)
		st = gs_filter_wait(f, 1, &positions, &count, &row_error, &ms, err, sizeof(err));
	report(st == GS_OK && count == 34, "arguments: 34 rows on slot 1");
	expect(GS_INVALID_ARGUMENT, "find 34 passing rows in groups of max_rows 33", [&] {
		return find_by_column(g33, f, 1, 0, C_KI8, &nkeys, &keys, err, sizeof(err));
	});
	expect(GS_INVALID_ARGUMENT, "add after that refused find", [&] {
		return gs_batch_groups_add(g33, f, gok.data(), C_VI8, GS_KEY_INT64, p8, &tally, err, sizeof(err));
	});

done:
	gs_pairs_destroy(p4);
	gs_pairs_destroy(p8);
	gs_pairs_destroy(p8n);
	gs_batch_groups_destroy(g);
	gs_batch_groups_destroy(g33);
	gs_filter_destroy(f);
	printf("%s argument checks\n", g_failed > failed_before ? "FAIL" : "PASS");
	fflush(stdout);
}

/* ------------------------------------------------------------------------
 * Device memory over cycles
 * ------------------------------------------------------------------------ */

uint64_t memory_in_use()
{
	size_t		free_bytes = 0;
	size_t		total_bytes = 0;

	cudaDeviceSynchronize();
	if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
		return 0;
	return (uint64_t) (total_bytes - free_bytes);
}

/* One cycle: filter, groups and pairs created; both slots found and added; a refusal; all destroyed. */
bool memory_cycle(const Batch &b, std::string *problem)
{
	char		err[512] = "";
	gs_filter  *f = NULL;
	gs_batch_groups *g = NULL;
	gs_pairs   *p = NULL;
	const gs_batch_tally *tally = NULL;
	const gs_batch_key *keys = NULL;
	int64_t		nkeys = 0;
	const uint32_t *positions = NULL;
	int64_t		count = 0;
	int			row_error = 0;
	double		ms = 0;
	int64_t		want = 0;
	std::vector<uint32_t> gok(b.n + 1, 5);
	gs_status	st = make_filter(&f, b.n, 2, true, err, sizeof(err));

	for (uint32_t r : b.pass)
		want += 2 * !b.is_null(C_VF8, r);
	if (st == GS_OK)
		st = gs_batch_groups_create(&g, b.n, err, sizeof(err));
	if (st == GS_OK)
		st = gs_pairs_create(&p, 8, 1, err, sizeof(err));
	for (int slot = 0; slot < 2 && st == GS_OK; ++slot)
		st = stage_submit(f, slot, b, err, sizeof(err));
	for (int slot = 0; slot < 2 && st == GS_OK; ++slot)
	{
		st = gs_filter_wait(f, slot, &positions, &count, &row_error, &ms, err, sizeof(err));
		if (st == GS_OK)
			st = find_by_column(g, f, slot, 0, C_KF4, &nkeys, &keys, err, sizeof(err));
		if (st == GS_OK && gs_batch_groups_add(g, f, gok.data(), C_VF8, GS_KEY_INT64, p, &tally,
											   err, sizeof(err)) != GS_INVALID_ARGUMENT)
		{
			*problem = "a float8 column as INT64 was not refused";
			st = GS_CUDA_ERROR;
		}
		if (st == GS_OK)
			st = gs_batch_groups_add(g, f, gok.data(), C_VF8, GS_KEY_FLOAT8, p, &tally, err, sizeof(err));
	}
	if (st == GS_OK && gs_pairs_count(p) != want)
	{
		*problem = "held " + std::to_string(gs_pairs_count(p)) + " pairs, reference " + std::to_string(want);
		st = GS_CUDA_ERROR;
	}
	else if (st != GS_OK && problem->empty())
		*problem = "status " + std::to_string((int) st) + ": " + err;
	gs_pairs_destroy(p);
	gs_batch_groups_destroy(g);
	gs_filter_destroy(f);
	return st == GS_OK;
}

void check_memory(int cycles, int64_t n)
{
	Batch		b;
	std::string problem;
	int			errors = 0;
	uint64_t	before;
	uint64_t	after;

	gen_batch(b, Spec{n, P_HALF, 1025, 10, 10, false, true}, case_seed(-2, 0));
	/* a warm-up cycle: module loading takes device memory once */
	memory_cycle(b, &problem);
	problem.clear();
	before = memory_in_use();
	for (int i = 0; i < cycles; ++i)
		errors += memory_cycle(b, &problem) ? 0 : 1;
	after = memory_in_use();
	report(errors == 0, std::to_string(cycles) + " create/find/add/destroy cycles give the reference" +
		   (errors ? " (" + std::to_string(errors) + " did not; last: " + problem + ")" : ""));
	/* in use may fall (the runtime trims its own caches); it must not grow */
	report(after <= before && before != 0, std::to_string(cycles) +
		   " cycles leave device memory in use unchanged");
	printf("%s memory: %d cycles of n=%lld, %d wrong or failed, memory in use %llu -> %llu bytes\n",
		   errors == 0 && after <= before ? "PASS" : "FAIL", cycles, (long long) n, errors,
		   (unsigned long long) before, (unsigned long long) after);
	fflush(stdout);
}

/* What the runs should have reached; a miss means the test lost coverage. */
void check_coverage(int64_t max_rows)
{
	report(g_cov.nkeys1 && g_cov.nkeys2 && g_cov.nkeys101, "coverage: batches of 1, 2 and 101 keys added");
	report(g_cov.nkeys1024 && g_cov.nkeys1025, "coverage: batches of 1024 and 1025 keys added (shared tally limit)");
	if (max_rows > 65536)
		report(g_cov.nkeys_many, "coverage: a batch of more than 65536 keys added");
	report(g_cov.null_key, "coverage: a NULL key added");
	report(g_cov.from_mid && g_cov.from_end, "coverage: from inside the batch and from its end");
	report(g_cov.no_key, "coverage: key_col -1");
	report(g_cov.slot[0] && g_cov.slot[1], "coverage: both slots");
	report(g_cov.no_groups, "coverage: pairs without groups");
	bool		all = true;

	for (int ci = 0; ci < kNumCombos; ++ci)
		all = all && g_cov.combo[ci];
	report(all, "coverage: every value column and key kind");
	if (max_rows >= 262144)
		report(g_cov.grew, "coverage: held pairs grew past 1 << 20 from fewer");
	else
		printf("SKIP coverage of held pairs growing past 1 << 20: max_rows %lld too small\n",
			   (long long) max_rows);
}

} /* namespace */

int
main(int argc, char **argv)
{
	bool		quick = false;
	int64_t		max_rows = 0;
	gs_device_info info;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--max-rows") && i + 1 < argc)
			max_rows = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			g_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--verbose"))
			g_verbose = true;
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--max-rows N] [--seed N] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	if (max_rows <= 0)
		max_rows = quick ? 262147 : ((int64_t) 1 << 20) + 7;
	if (max_rows < 1025)
	{
		fprintf(stderr, "groupbatch_test: --max-rows must be at least 1025\n");
		return 2;
	}

	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason[0] ? info.reason : "probe failed");
		return 0;
	}
	printf("device: %s, compute capability %d.%d, %.1f GiB, driver %d, runtime %d; seed %llu, "
		   "max_rows %lld\n", info.name, info.cc_major, info.cc_minor,
		   info.total_memory / 1073741824.0, info.driver_version, info.runtime_version,
		   (unsigned long long) g_seed, (long long) max_rows);
	fflush(stdout);

	check_arguments();

	{
		Engine		e;
		char		err[512] = "";
		gs_status	st = make_filter(&e.f, max_rows, 2, true, err, sizeof(err));
		int			case_no = 0;

		if (st == GS_OK)
			st = gs_batch_groups_create(&e.g, max_rows, err, sizeof(err));
		e.max_rows = max_rows;
		report(st == GS_OK, "filter and groups of max_rows " + std::to_string(max_rows) +
			   (st != GS_OK ? std::string(": ") + err : std::string()));
		if (st == GS_OK)
		{
			const int64_t sizes[] = {0, 1, 31, 33, 1023, 1025, 100003, max_rows};

			for (int64_t n : sizes)
			{
				if (n > max_rows || (n == 100003 && max_rows == 100003))
					continue;
				run_batches(e, "n=" + std::to_string(n), n <= 1025 ? small_specs(n) : big_specs(n),
							MODE_SIZES, 1 << 16, &case_no);
			}
			run_batches(e, "held pairs across batches of " + std::to_string(max_rows),
						capacity_specs(max_rows), MODE_CAPACITY, 0, &case_no);
		}
		gs_batch_groups_destroy(e.g);
		gs_filter_destroy(e.f);
	}

	check_memory(50, std::min<int64_t>(quick ? 20011 : 100003, max_rows));
	check_coverage(max_rows);

	printf("groupbatch_test: %d passed, %d failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}
