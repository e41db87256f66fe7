/*
 * groupbatch.cu
 *	  Rows into groups on the device: after the filter has compacted a
 *	  batch's passing rows (filter_*.cu), the batch's group key columns are
 *	  hashed on the device to find their distinct keys (gs_batch_groups_find);
 *	  the host numbers them as its groups, in the order their first rows
 *	  come, and the device then appends each passing row's (group, key) pair
 *	  to the pairs held for the results (gs_pairs, groupsort.cu), with a
 *	  tally per distinct key (gs_batch_groups_add).  Only the distinct keys
 *	  and the tallies cross to the host: its per-row work on the batch ends.
 *
 * The hash table is rebuilt per batch: a batch holds at most max_rows
 * passing rows, so a table of twice that many slots never fills.  A key
 * is its columns' bytes and NULL flags together; two byte patterns
 * PostgreSQL holds equal (-0 and +0, NaNs) are two distinct keys here and
 * the host puts both in one group.
 */
#include <cuda_runtime.h>

#include <algorithm>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpusel_filter.h"
#include "groupbatch.cuh"
#include "gs_internal.cuh"
#include "warp_block.cuh"

namespace
{

/* Threads per block of both kernels. */
constexpr int kGroupThreads = 256;

/* Blocks per SM of the append kernel's grid-stride loop. */
constexpr int kAddBlocksPerSm = 8;

/* Up to this many distinct keys a block tallies in shared memory first. */
constexpr int kSharedTallyKeys = 1024;

/* Slot states of the hash table. */
constexpr int kSlotEmpty = 0;
constexpr int kSlotClaimed = 1;
constexpr int kSlotReady = 2;

/* The key columns of one find, passed by value. */
struct KeyColumns
{
	int			n;
	const void *col[GS_GROUP_MAX_KEYS];
	const uint8_t *nulls[GS_GROUP_MAX_KEYS];
	int			width[GS_GROUP_MAX_KEYS];
	gs_key_transform transform[GS_GROUP_MAX_KEYS];
};

/* Distinct keys of a batch the host's copies hold at first; they grow when a batch has more. */
constexpr int64_t kFirstHostKeys = 65536;

/* Bits of the table's capacity. */
int table_bits(int64_t max_rows)
{
	int			bits = 4;

	while ((int64_t(1) << bits) < 2 * max_rows)
		bits++;
	return bits;
}

/* A key column value's bytes, zero-extended. */
__device__ unsigned long long load_bits(const void *col, int width, uint32_t pos)
{
	switch (width)
	{
		case 1:
			return static_cast<const uint8_t *>(col)[pos];
		case 2:
			return static_cast<const uint16_t *>(col)[pos];
		case 4:
			return static_cast<const uint32_t *>(col)[pos];
		default:
			return static_cast<const unsigned long long *>(col)[pos];
	}
}

/*
 * a op c as int4 or int8's operators compute it (gs_arith.h); false where
 * PostgreSQL raises an error: overflow, a zero divisor, MIN / -1.
 */
__device__ bool transform_key(const gs_key_transform &t, long long a, long long *r)
{
	long long	c = t.constant;
	long long	lo = t.is_int8 ? LLONG_MIN : INT_MIN;
	long long	hi = t.is_int8 ? LLONG_MAX : INT_MAX;

	switch (t.op)
	{
		case GS_ARITH_ADD:
			*r = (long long) ((unsigned long long) a + (unsigned long long) c);
			if (t.is_int8 && ((a ^ *r) & (c ^ *r)) < 0)
				return false;
			break;
		case GS_ARITH_SUB:
			*r = (long long) ((unsigned long long) a - (unsigned long long) c);
			if (t.is_int8 && ((a ^ c) & (a ^ *r)) < 0)
				return false;
			break;
		case GS_ARITH_MUL:
			{
				__int128	p = (__int128) a * c;

				if (p < lo || p > hi)
					return false;
				*r = (long long) p;
				return true;
			}
		case GS_ARITH_DIV:
			if (c == 0 || (c == -1 && a == lo))
				return false;
			*r = a / c;
			return true;
		case GS_ARITH_MOD:
			if (c == 0)
				return false;
			*r = c == -1 ? 0 : a % c;
			return true;
		case GS_KEY_FLOOR:
			if (a == LLONG_MIN || a == LLONG_MAX || c <= 0)
				*r = a;
			else
				*r = (a / c - (a % c < 0 ? 1 : 0)) * c;
			return true;
		default:
			*r = a;
			return true;
	}
	/* int4 + - * in 64 bits: the result must fit int4 */
	return *r >= lo && *r <= hi;
}

/* A composite key's hash: each column's bytes and the NULL flags mixed. */
__device__ unsigned long long key_hash(const unsigned long long *bits, int n, uint32_t isnull)
{
	unsigned long long h = 0x9E3779B97F4A7C15ull * (isnull + 1);

	for (int c = 0; c < n; c++)
	{
		h ^= bits[c] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
		h *= 0xBF58476D1CE4E5B9ull;
	}
	return h ^ (h >> 31);
}

/* The slot a hash's probe sequence starts at. */
__device__ uint32_t home_slot(unsigned long long hash, int tbits)
{
	return (uint32_t) ((hash * 0x9E3779B97F4A7C15ull) >> (64 - tbits));
}

/* Whether key k of the table holds these columns' bytes and NULL flags. */
__device__ bool same_key(BatchTable t, uint32_t k, const unsigned long long *bits, int n,
						 uint32_t isnull)
{
	volatile gs_batch_key *key = &t.keys[k];

	if (key->isnull != isnull)
		return false;
	for (int c = 0; c < n; c++)
		if (key->bits[c] != bits[c])
			return false;
	return true;
}

/*
 * Finds or inserts a key's slot and returns its key index.  The thread
 * that claims an empty slot writes the key, then marks it ready; others
 * reading a claimed slot wait for that (independent thread scheduling
 * lets the claimant progress).  Without key columns every row takes
 * slot 0.
 */
__device__ uint32_t find_or_insert(BatchTable t, uint32_t mask, const unsigned long long *bits,
								   int n, uint32_t isnull, unsigned long long hash, int tbits,
								   uint32_t row)
{
	uint32_t	slot = n == 0 ? 0 : home_slot(hash, tbits);

	for (;;)
	{
		int			st = ((volatile int *) t.state)[slot];

		if (st == kSlotEmpty && atomicCAS(&t.state[slot], kSlotEmpty, kSlotClaimed) == kSlotEmpty)
		{
			uint32_t	k = (uint32_t) atomicAdd(&t.counters[0], 1ull);

			for (int c = 0; c < GS_GROUP_MAX_KEYS; c++)
				t.keys[k].bits[c] = c < n ? bits[c] : 0;
			t.keys[k].first = row;
			t.keys[k].isnull = isnull;
			t.slot_bits[slot] = hash;
			t.slot_key[slot] = k;
			__threadfence();
			atomicExch(&t.state[slot], kSlotReady);
			return k;
		}
		if (st != kSlotReady)
			continue;			/* empty but lost the race, or claimed: look again */
		__threadfence();
		if (n == 0)
			return ((volatile uint32_t *) t.slot_key)[slot];
		if (((volatile unsigned long long *) t.slot_bits)[slot] == hash)
		{
			uint32_t	k = ((volatile uint32_t *) t.slot_key)[slot];

			if (same_key(t, k, bits, n, isnull))
				return k;
		}
		slot = (slot + 1) & mask;
	}
}

/* Each passing row's key index; each key's first row. */
__global__ void find_keys(BatchTable t, int tbits, const uint32_t *positions, int64_t n,
						  KeyColumns kc)
{
	int64_t		i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long bits[GS_GROUP_MAX_KEYS];
	uint32_t	isnull = 0;
	uint32_t	pos;
	uint32_t	k;
	uint32_t	mask = (uint32_t) ((1ull << tbits) - 1);

	if (i >= n)
		return;
	pos = positions[i];
	for (int c = 0; c < kc.n; c++)
	{
		if (kc.nulls[c] != NULL && kc.nulls[c][pos])
		{
			isnull |= 1u << c;
			bits[c] = 0;
		}
		else
			bits[c] = load_bits(kc.col[c], kc.width[c], pos);
		if (kc.transform[c].op >= 0 && !(isnull & (1u << c)))
		{
			long long	a = kc.width[c] == 4 ? (long long) (int32_t) (uint32_t) bits[c] :
				(long long) bits[c];
			long long	r;

			if (!transform_key(kc.transform[c], a, &r))
			{
				/* every such row shares one key the host refuses */
				isnull = GS_BATCH_KEY_ERROR;
				for (int z = 0; z < kc.n; z++)
					bits[z] = 0;
				break;
			}
			bits[c] = kc.width[c] == 4 ? (unsigned long long) (uint32_t) (int32_t) r :
				(unsigned long long) r;
		}
	}
	k = find_or_insert(t, mask, bits, kc.n, isnull, kc.n == 0 ? 0 : key_hash(bits, kc.n, isnull),
					   tbits, (uint32_t) i);
	/* first only falls: most rows find it already below theirs */
	if (((volatile uint32_t *) &t.keys[k].first)[0] > (uint32_t) i)
		atomicMin(&t.keys[k].first, (uint32_t) i);
	t.row_key[i] = k;
}

/* A value as its order-preserving key, as src/percentile/keys.h maps it; -0 and +0 noted. */
__device__ unsigned long long value_key(const void *col, int coltype, int kind, uint32_t pos,
										uint32_t *zero)
{
	*zero = 0;
	if (kind == GS_KEY_INT32 || kind == GS_KEY_INT64)
	{
		long long	v;

		if (coltype == GS_COL_INT2)
			v = static_cast<const int16_t *>(col)[pos];
		else if (coltype == GS_COL_INT4)
			v = static_cast<const int32_t *>(col)[pos];
		else
			v = static_cast<const long long *>(col)[pos];
		if (kind == GS_KEY_INT32)
			return (unsigned long long) ((uint32_t) (int32_t) v ^ 0x80000000u);
		return (unsigned long long) v ^ 0x8000000000000000ull;
	}
	if (kind == GS_KEY_FLOAT4)
	{
		float		f = static_cast<const float *>(col)[pos];
		uint32_t	b;

		if (isnan(f))
			return 0xFFFFFFFFull;
		if (f == 0.0f)
		{
			*zero = signbit(f) ? 1 : 2;
			f = 0.0f;
		}
		b = __float_as_uint(f);
		return (b & 0x80000000u) ? (unsigned long long) (uint32_t) ~b :
			(unsigned long long) (b | 0x80000000u);
	}
	{
		double		d = coltype == GS_COL_FLOAT4 ? (double) static_cast<const float *>(col)[pos] :
			static_cast<const double *>(col)[pos];
		unsigned long long b;

		if (isnan(d))
			return 0xFFFFFFFFFFFFFFFFull;
		if (d == 0.0)
		{
			*zero = signbit(d) ? 1 : 2;
			d = 0.0;
		}
		b = (unsigned long long) __double_as_longlong(d);
		return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
	}
}

/*
 * Appends each passing row's (group, key) pair, warp by warp at offsets
 * one atomic per warp reserves (gs_warp_reserve; the order within the
 * pairs does not matter: the results sort them), and tallies rows and keys
 * per distinct key, in shared memory first when the keys are few.
 */
template <typename KeyT>
__global__ void add_pairs(BatchTable t, int64_t nkeys, const uint32_t *positions, int64_t n,
						  const void *col, const uint8_t *nulls, int coltype, int kind,
						  KeyT *out_keys, uint32_t *out_groups)
{
	__shared__ unsigned int s_rows[kSharedTallyKeys];
	__shared__ unsigned int s_keys[kSharedTallyKeys];
	bool		shared = nkeys <= kSharedTallyKeys;

	if (shared)
	{
		for (int k = threadIdx.x; k < nkeys; k += blockDim.x)
			s_rows[k] = s_keys[k] = 0;
		__syncthreads();
	}
	for (int64_t base = (int64_t) blockIdx.x * blockDim.x; base < n;
		 base += (int64_t) gridDim.x * blockDim.x)
	{
		int64_t		i = base + threadIdx.x;
		bool		valid = false;
		uint32_t	k = 0;
		unsigned long long key = 0;
		unsigned long long at;

		if (i < n)
		{
			uint32_t	pos = positions[i];
			uint32_t	zero;

			k = t.row_key[i];
			valid = nulls == NULL || !nulls[pos];
			if (valid)
			{
				key = value_key(col, coltype, kind, pos, &zero);
				if (zero != 0)
					atomicOr(&t.tally[k].zeros, zero);
			}
			if (shared)
			{
				atomicAdd(&s_rows[k], 1u);
				if (valid)
					atomicAdd(&s_keys[k], 1u);
			}
			else
			{
				atomicAdd((unsigned long long *) &t.tally[k].rows, 1ull);
				if (valid)
					atomicAdd((unsigned long long *) &t.tally[k].keys, 1ull);
			}
		}
		at = gs_warp_reserve(valid, &t.counters[1]);
		if (valid)
		{
			out_keys[at] = (KeyT) key;
			if (out_groups != NULL)
				out_groups[at] = t.group_of_key[k];
		}
	}
	if (shared)
	{
		__syncthreads();
		for (int k = threadIdx.x; k < nkeys; k += blockDim.x)
		{
			if (s_rows[k] != 0)
				atomicAdd((unsigned long long *) &t.tally[k].rows, (unsigned long long) s_rows[k]);
			if (s_keys[k] != 0)
				atomicAdd((unsigned long long *) &t.tally[k].keys, (unsigned long long) s_keys[k]);
		}
	}
}

} /* namespace */

/*
 * Room in the host's copies for a batch of 'need' distinct keys: most
 * batches have far fewer keys than rows, so the pinned copies start small
 * instead of taking max_rows keys' worth of the staging memory.
 */
static cudaError_t
grow_host_keys(gs_batch_groups *g, int64_t need)
{
	int64_t		cap = std::max(g->h_cap, kFirstHostKeys);
	gs_batch_key *keys = NULL;
	gs_batch_tally *tally = NULL;
	cudaError_t err;

	while (cap < need)
		cap *= 2;
	cap = std::min(cap, g->max_rows + 1);
	/* the new copies first: short of memory, the old ones stay as they were */
	err = gs_pinned_alloc((void **) &keys, cap * sizeof(gs_batch_key));
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &tally, cap * sizeof(gs_batch_tally));
	if (err != cudaSuccess)
	{
		gs_pinned_free(keys);
		return err;
	}
	gs_pinned_free(g->h_keys);
	gs_pinned_free(g->h_tally);
	g->h_keys = keys;
	g->h_tally = tally;
	g->h_cap = cap;
	return cudaSuccess;
}

gs_status
gs_batch_groups_create(gs_batch_groups **groups, int64_t max_rows, char *errbuf, size_t errlen)
{
	gs_batch_groups *g;
	size_t		cap;
	size_t		nk;
	int			dev = 0;
	cudaError_t err;

	if (groups == NULL || max_rows < 1 || max_rows > (int64_t(1) << 30))
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_groups_create");
		return GS_INVALID_ARGUMENT;
	}
	*groups = NULL;
	g = static_cast<gs_batch_groups *>(calloc(1, sizeof(gs_batch_groups)));
	if (g == NULL)
	{
		gs_format_error(errbuf, errlen, "out of host memory");
		return GS_OUT_OF_MEMORY;
	}
	g->max_rows = max_rows;
	for (int c = 0; c < GS_GROUP_MAX_KEYS; c++)
		g->transforms[c].op = -1;
	g->tbits = table_bits(max_rows);
	g->slot = -1;
	cap = (size_t) 1 << g->tbits;
	nk = (size_t) max_rows + 1;
	err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&g->num_sms, cudaDevAttrMultiProcessorCount, dev);
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.state, cap * sizeof(int));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.slot_bits, cap * sizeof(unsigned long long));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.slot_key, cap * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.keys, nk * sizeof(gs_batch_key));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.row_key, nk * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.group_of_key, nk * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.tally, nk * sizeof(gs_batch_tally));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &g->t.counters, 2 * sizeof(unsigned long long));
	g->h_cap = std::min((int64_t) nk, kFirstHostKeys);
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &g->h_keys, g->h_cap * sizeof(gs_batch_key));
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &g->h_tally, g->h_cap * sizeof(gs_batch_tally));
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &g->h_counters, 2 * sizeof(unsigned long long));
	if (err != cudaSuccess)
	{
		gs_status	status = gs_status_from_cuda(err, "allocating the batch grouping",
												 errbuf, errlen);

		gs_batch_groups_destroy(g);
		return status;
	}
	*groups = g;
	return GS_OK;
}

gs_status
gs_batch_groups_find(gs_batch_groups *g, gs_filter *filter, int slot, int64_t from, int nkey_cols,
					 const int *key_cols, int64_t *nkeys, const gs_batch_key **keys,
					 char *errbuf, size_t errlen)
{
	gs_device_batch b;
	KeyColumns	kc;
	int64_t		n;
	cudaError_t err;
	gs_status	status;

	/* a refused find leaves nothing found: no add or sum reads an older batch's keys */
	if (g != NULL)
		g->slot = -1;
	if (g == NULL || nkeys == NULL || keys == NULL || nkey_cols < 0 ||
		nkey_cols > GS_GROUP_MAX_KEYS || (nkey_cols > 0 && key_cols == NULL))
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_groups_find");
		return GS_INVALID_ARGUMENT;
	}
	status = gs_filter_device_batch(filter, slot, &b, errbuf, errlen);
	if (status != GS_OK)
		return status;
	memset(&kc, 0, sizeof(kc));
	kc.n = nkey_cols;
	for (int c = 0; c < nkey_cols; c++)
	{
		int			col = key_cols[c];

		if (col < 0 || col >= b.ncols || b.values[col] == NULL)
		{
			gs_format_error(errbuf, errlen, "invalid key column %d for gs_batch_groups_find", col);
			return GS_INVALID_ARGUMENT;
		}
		kc.col[c] = b.values[col];
		kc.nulls[c] = b.nulls[col];
		kc.width[c] = (int) gs_coltype_width(b.coltypes[col]);
		kc.transform[c] = g->transforms[c];
		/* int4 and int8 columns only: the value is read signed at its width */
		if (kc.transform[c].op >= 0 &&
			kc.width[c] != (kc.transform[c].is_int8 ? 8 : 4))
		{
			gs_format_error(errbuf, errlen, "a key transform of another width than its column");
			return GS_INVALID_ARGUMENT;
		}
	}
	if (from < 0 || from > b.npositions || b.npositions > g->max_rows)
	{
		gs_format_error(errbuf, errlen, "invalid batch for gs_batch_groups_find");
		return GS_INVALID_ARGUMENT;
	}
	n = b.npositions - from;
	err = cudaMemsetAsync(g->t.state, 0, ((size_t) 1 << g->tbits) * sizeof(int), b.stream);
	if (err == cudaSuccess)
		err = cudaMemsetAsync(g->t.counters, 0, 2 * sizeof(unsigned long long), b.stream);
	if (err == cudaSuccess && n > 0)
	{
		find_keys<<<(unsigned int) ((n + kGroupThreads - 1) / kGroupThreads), kGroupThreads, 0,
			b.stream>>>(g->t, g->tbits, b.positions + from, n, kc);
		err = cudaGetLastError();
	}
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(g->h_counters, g->t.counters, sizeof(unsigned long long),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(b.stream);
	if (err == cudaSuccess && g->h_counters[0] > (unsigned long long) n)
		err = cudaErrorUnknown;
	if (err == cudaSuccess && (int64_t) g->h_counters[0] > g->h_cap)
		err = grow_host_keys(g, (int64_t) g->h_counters[0]);
	if (err == cudaSuccess && g->h_counters[0] > 0)
		err = cudaMemcpyAsync(g->h_keys, g->t.keys, g->h_counters[0] * sizeof(gs_batch_key),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(b.stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "finding a batch's group keys", errbuf, errlen);
	g->slot = slot;
	g->batch = b.batch;
	g->from = from;
	g->nkeys = (int64_t) g->h_counters[0];
	*nkeys = g->nkeys;
	*keys = g->h_keys;
	return GS_OK;
}

gs_status
gs_batch_groups_set_transforms(gs_batch_groups *g, int nkey_cols,
							   const gs_key_transform *transforms, char *errbuf, size_t errlen)
{
	if (g == NULL || nkey_cols < 0 || nkey_cols > GS_GROUP_MAX_KEYS)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_groups_set_transforms");
		return GS_INVALID_ARGUMENT;
	}
	for (int c = 0; c < GS_GROUP_MAX_KEYS; c++)
	{
		gs_key_transform t = {-1, 0, 0};

		if (transforms != NULL && c < nkey_cols)
			t = transforms[c];
		if (t.op >= 0 && !GS_ARITH_IS_BINARY(t.op) &&
			!(t.op == GS_KEY_FLOOR && t.is_int8 && t.constant > 0))
		{
			gs_format_error(errbuf, errlen, "invalid key transform %d", (int) t.op);
			return GS_INVALID_ARGUMENT;
		}
		g->transforms[c] = t.op >= 0 ? t : gs_key_transform{-1, 0, 0};
	}
	return GS_OK;
}

gs_status
gs_batch_groups_add(gs_batch_groups *g, gs_filter *filter, const uint32_t *group_of_key,
					int val_col, int key_kind, gs_pairs *pairs,
					const gs_batch_tally **tally, char *errbuf, size_t errlen)
{
	gs_device_batch b;
	int64_t		n;
	unsigned int blocks;
	cudaError_t err;
	gs_status	status;
	int			kb = (key_kind == GS_KEY_INT32 || key_kind == GS_KEY_FLOAT4) ? 4 : 8;
	int			coltype;

	if (g == NULL || g->slot < 0 || pairs == NULL || tally == NULL ||
		(pairs->with_groups && g->nkeys > 0 && group_of_key == NULL) ||
		pairs->key_bytes != kb || key_kind < GS_KEY_INT32 || key_kind > GS_KEY_FLOAT8)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_groups_add");
		return GS_INVALID_ARGUMENT;
	}
	status = gs_filter_device_batch(filter, g->slot, &b, errbuf, errlen);
	if (status != GS_OK)
		return status;
	if (b.batch != g->batch)
	{
		gs_format_error(errbuf, errlen, "gs_batch_groups_add: the slot holds another batch than the one found");
		return GS_INVALID_ARGUMENT;
	}
	if (val_col < 0 || val_col >= b.ncols || b.values[val_col] == NULL)
	{
		gs_format_error(errbuf, errlen, "gs_batch_groups_add: column %d is not on the device",
						val_col);
		return GS_INVALID_ARGUMENT;
	}
	coltype = b.coltypes[val_col];
	if (coltype == GS_COL_BOOL ||
		((coltype == GS_COL_FLOAT4 || coltype == GS_COL_FLOAT8) !=
		 (key_kind == GS_KEY_FLOAT4 || key_kind == GS_KEY_FLOAT8)) ||
		(key_kind == GS_KEY_FLOAT4 && coltype != GS_COL_FLOAT4) ||
		(key_kind == GS_KEY_INT32 && coltype == GS_COL_INT8))
	{
		gs_format_error(errbuf, errlen, "gs_batch_groups_add: column type %d does not map to key kind %d",
						coltype, key_kind);
		return GS_INVALID_ARGUMENT;
	}
	n = b.npositions - g->from;
	err = gs_pairs_reserve(pairs, n);
	if (err == cudaSuccess && g->nkeys > 0)
		err = cudaMemsetAsync(g->t.tally, 0, g->nkeys * sizeof(gs_batch_tally), b.stream);
	if (err == cudaSuccess)
		err = cudaMemsetAsync(&g->t.counters[1], 0, sizeof(unsigned long long), b.stream);
	if (err == cudaSuccess && pairs->with_groups && g->nkeys > 0)
		err = cudaMemcpyAsync(g->t.group_of_key, group_of_key, g->nkeys * sizeof(uint32_t),
							  cudaMemcpyHostToDevice, b.stream);
	/* the pairs' own stream may still copy into them: the batch's stream waits */
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(pairs->stream);
	if (err == cudaSuccess && n > 0)
	{
		int64_t		want = (n + kGroupThreads - 1) / kGroupThreads;
		int64_t		most = (int64_t) (g->num_sms > 0 ? g->num_sms : 1) * kAddBlocksPerSm;

		blocks = (unsigned int) (want < most ? want : most);
		if (kb == 4)
			add_pairs<uint32_t><<<blocks, kGroupThreads, 0, b.stream>>>(
				g->t, g->nkeys, b.positions + g->from, n, b.values[val_col], b.nulls[val_col],
				coltype, key_kind, static_cast<uint32_t *>(pairs->keys) + pairs->count,
				pairs->with_groups ? pairs->groups + pairs->count : NULL);
		else
			add_pairs<unsigned long long><<<blocks, kGroupThreads, 0, b.stream>>>(
				g->t, g->nkeys, b.positions + g->from, n, b.values[val_col], b.nulls[val_col],
				coltype, key_kind, static_cast<unsigned long long *>(pairs->keys) + pairs->count,
				pairs->with_groups ? pairs->groups + pairs->count : NULL);
		err = cudaGetLastError();
	}
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(&g->h_counters[1], &g->t.counters[1], sizeof(unsigned long long),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess && g->nkeys > 0)
		err = cudaMemcpyAsync(g->h_tally, g->t.tally, g->nkeys * sizeof(gs_batch_tally),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(b.stream);
	if (err == cudaSuccess && g->h_counters[1] > (unsigned long long) n)
		err = cudaErrorUnknown;
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "adding a batch's keys to their groups", errbuf, errlen);
	pairs->count += (int64_t) g->h_counters[1];
	*tally = g->h_tally;
	return GS_OK;
}

void
gs_batch_groups_destroy(gs_batch_groups *g)
{
	if (g == NULL)
		return;
	(void) gs_dev_free(g->t.state);
	(void) gs_dev_free(g->t.slot_bits);
	(void) gs_dev_free(g->t.slot_key);
	(void) gs_dev_free(g->t.keys);
	(void) gs_dev_free(g->t.row_key);
	(void) gs_dev_free(g->t.group_of_key);
	(void) gs_dev_free(g->t.tally);
	(void) gs_dev_free(g->t.counters);
	if (g->h_keys != NULL)
		(void) gs_pinned_free(g->h_keys);
	if (g->h_tally != NULL)
		(void) gs_pinned_free(g->h_tally);
	if (g->h_counters != NULL)
		(void) gs_pinned_free(g->h_counters);
	gs_group_sums_free(g->sums);
	free(g);
	(void) cudaGetLastError();
}
