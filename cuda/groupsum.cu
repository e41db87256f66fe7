/*
 * groupsum.cu
 *	  Sums per group key on the device: after gs_batch_groups_find has
 *	  given each passing row of a batch its distinct key (groupbatch.cu),
 *	  each sum's program (sum_program.cuh) is evaluated per row in 128 bits
 *	  and added to its key's sum; the rows per key are counted beside.  Only
 *	  one result per key and sum crosses to the host, which adds them to
 *	  the groups the keys belong to.  TPC-H Q1 has this shape.
 *
 * Exactness: sums are kept as two 64-bit words added atomically, the low
 * word's carry going to the high word, which is exact modulo 2^128.  A
 * value of magnitude 2^96 or more marks the batch overflowed (as does one
 * that left 128 bits): with at most 2^30 rows per batch every partial and
 * whole sum of smaller values stays below 2^126, so the modular sum is the
 * true one.  An overflowed batch's results mean nothing; the host adds
 * that batch's rows itself.  NULL values are skipped; NaN ones are counted
 * apart and not summed, as in gs_batch_sums_run.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpusel_filter.h"
#include "groupbatch.cuh"
#include "gs_internal.cuh"
#include "sum_program.cuh"

namespace
{

/* Threads per block of the summing kernel. */
constexpr int kGroupSumThreads = 256;

/* Blocks per SM of its grid-stride loop. */
constexpr int kGroupSumBlocksPerSm = 4;

/* Up to this many (key, sum) cells a block sums in shared memory first. */
constexpr int kSharedSumCells = 1024;

/* Values below this magnitude sum exactly in two words (see the file's header). */
constexpr int kExactValueBits = 96;

/* Adds a 128-bit value to the two words at lo and hi, carrying the low word's wrap. */
__device__ inline void add_i128(unsigned long long *lo, unsigned long long *hi, gs_int128 v)
{
	unsigned long long vl = (unsigned long long) v;
	unsigned long long vh = (unsigned long long) ((gs_uint128) v >> 64);
	unsigned long long old = atomicAdd(lo, vl);

	if (old + vl < old)
		vh++;
	if (vh != 0)
		atomicAdd(hi, vh);
}

/* Whether v lies within the exact range: |v| < 2^96. */
__device__ inline bool exact_value(gs_int128 v)
{
	return v > -((gs_int128) 1 << kExactValueBits) && v < ((gs_int128) 1 << kExactValueBits);
}

/*
 * Sums every program over the passing rows by their keys into sums[k *
 * nexprs + e] and counts rows into rows[k]; in shared memory first when
 * the cells are few.
 */
__global__ void sum_by_key(GsSumPrograms progs, const uint32_t *row_key, const uint32_t *positions,
						   int64_t n, int64_t nkeys, gs_sum_result *sums,
						   unsigned long long *rows, unsigned int *overflow)
{
	__shared__ unsigned long long s_lo[kSharedSumCells];
	__shared__ unsigned long long s_hi[kSharedSumCells];
	__shared__ unsigned int s_values[kSharedSumCells];
	__shared__ unsigned int s_nans[kSharedSumCells];
	__shared__ unsigned int s_rows[kSharedSumCells];
	const int	ne = progs.nexprs;
	const bool	shared = nkeys <= kSharedSumCells && nkeys * ne <= kSharedSumCells;
	bool		unfit = false;

	if (shared)
	{
		for (int c = threadIdx.x; c < kSharedSumCells; c += blockDim.x)
		{
			s_lo[c] = s_hi[c] = 0;
			s_values[c] = s_nans[c] = s_rows[c] = 0;
		}
		__syncthreads();
	}
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		uint32_t	k = row_key[i];
		uint32_t	pos = positions[i];

		if (shared)
			atomicAdd(&s_rows[k], 1u);
		else
			atomicAdd(&rows[k], 1ull);
		for (int e = 0; e < ne; e++)
		{
			const GsSumProgram *p = &progs.prog[e];
			gs_num_columns cols = {p->values, p->nulls, p->has_nulls, p->widths};
			gs_num_value v = gs_num_eval_row(p->code, p->ncode, &cols, pos);
			int64_t		cell = (int64_t) k * ne + e;

			if (v.flags & GS_NUM_NULL)
				continue;
			if ((v.flags & GS_NUM_UNFIT) || (!(v.flags & GS_NUM_NAN) && !exact_value(v.v)))
			{
				unfit = true;
				continue;
			}
			if (shared)
			{
				atomicAdd(&s_values[cell], 1u);
				if (v.flags & GS_NUM_NAN)
					atomicAdd(&s_nans[cell], 1u);
				else
					add_i128(&s_lo[cell], &s_hi[cell], v.v);
			}
			else
			{
				atomicAdd((unsigned long long *) &sums[cell].values, 1ull);
				if (v.flags & GS_NUM_NAN)
					atomicAdd((unsigned long long *) &sums[cell].nans, 1ull);
				else
					add_i128((unsigned long long *) &sums[cell].lo,
							 (unsigned long long *) &sums[cell].hi, v.v);
			}
		}
	}
	if (unfit)
		atomicOr(overflow, 1u);
	if (!shared)
		return;
	__syncthreads();
	for (int64_t k = threadIdx.x; k < nkeys; k += blockDim.x)
		if (s_rows[k] != 0)
			atomicAdd(&rows[k], (unsigned long long) s_rows[k]);
	for (int64_t c = threadIdx.x; c < nkeys * ne; c += blockDim.x)
	{
		gs_int128	v;

		if (s_values[c] == 0)
			continue;
		atomicAdd((unsigned long long *) &sums[c].values, (unsigned long long) s_values[c]);
		if (s_nans[c] != 0)
			atomicAdd((unsigned long long *) &sums[c].nans, (unsigned long long) s_nans[c]);
		v = (gs_int128) (((gs_uint128) s_hi[c] << 64) | s_lo[c]);
		add_i128((unsigned long long *) &sums[c].lo, (unsigned long long *) &sums[c].hi, v);
	}
}

}								/* namespace */

/*
 * The sums' device and pinned buffers, grown to the most keys and cells a
 * batch of the scan needed (up to GS_GROUP_SUM_MAX_KEYS keys).
 */
struct GroupSumBuffers
{
	gs_sum_result *d_sums;		/* cells: keys x sums */
	unsigned long long *d_rows;	/* keys, then the overflow word */
	gs_sum_result *h_sums;		/* pinned */
	unsigned long long *h_rows;	/* pinned, keys + 1 */
	size_t		cells_cap;
	size_t		keys_cap;
};

/* Frees the buffers' memory, keeping the struct. */
static void
free_sum_memory(GroupSumBuffers *b)
{
	(void) gs_dev_free(b->d_sums);
	(void) gs_dev_free(b->d_rows);
	if (b->h_sums != NULL)
		gs_pinned_free(b->h_sums);
	if (b->h_rows != NULL)
		gs_pinned_free(b->h_rows);
	b->d_sums = NULL;
	b->d_rows = NULL;
	b->h_sums = NULL;
	b->h_rows = NULL;
	b->cells_cap = b->keys_cap = 0;
	(void) cudaGetLastError();
}

void
gs_group_sums_free(GroupSumBuffers *b)
{
	if (b == NULL)
		return;
	free_sum_memory(b);
	free(b);
}

/*
 * The grouping's sum buffers with room for nkeys keys and cells sums, made
 * at its first sums and grown when a batch has more keys.
 */
static cudaError_t
sum_buffers(gs_batch_groups *g, size_t nkeys, size_t cells, GroupSumBuffers **out)
{
	GroupSumBuffers *b = g->sums;
	size_t		want_keys;
	size_t		want_cells;
	cudaError_t err;

	if (b == NULL)
	{
		b = (GroupSumBuffers *) calloc(1, sizeof(GroupSumBuffers));
		if (b == NULL)
			return cudaErrorMemoryAllocation;
		g->sums = b;
	}
	if (b->keys_cap >= nkeys && b->cells_cap >= cells && b->d_rows != NULL)
	{
		*out = b;
		return cudaSuccess;
	}
	/*
	 * half as much again as asked, within the most a batch may ask (nkeys is
	 * at most GS_GROUP_SUM_MAX_KEYS): in the GPU service the pinned half
	 * comes out of the staging region every session shares
	 */
	want_keys = nkeys * 3 / 2 < (size_t) GS_GROUP_SUM_MAX_KEYS ? nkeys * 3 / 2 : (size_t) GS_GROUP_SUM_MAX_KEYS;
	want_keys = want_keys > nkeys ? want_keys : nkeys;
	want_keys = want_keys > 4096 ? want_keys : 4096;
	want_cells = cells * 3 / 2 < (size_t) GS_GROUP_SUM_MAX_KEYS * GS_SUM_MAX_EXPRS ?
		cells * 3 / 2 : (size_t) GS_GROUP_SUM_MAX_KEYS * GS_SUM_MAX_EXPRS;
	want_cells = want_cells > cells ? want_cells : cells;
	want_cells = want_cells > (size_t) 4096 * GS_SUM_MAX_EXPRS ? want_cells : (size_t) 4096 * GS_SUM_MAX_EXPRS;
	free_sum_memory(b);
	err = gs_dev_malloc((void **) &b->d_sums, want_cells * sizeof(gs_sum_result));
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &b->d_rows, (want_keys + 1) * sizeof(unsigned long long));
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &b->h_sums, want_cells * sizeof(gs_sum_result));
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &b->h_rows, (want_keys + 1) * sizeof(unsigned long long));
	if (err != cudaSuccess)
	{
		free_sum_memory(b);
		return err;
	}
	b->keys_cap = want_keys;
	b->cells_cap = want_cells;
	*out = b;
	return cudaSuccess;
}

gs_status
gs_batch_groups_sum(gs_batch_groups *g, gs_filter *filter, int nexprs, const gs_sum_expr *exprs,
					const uint64_t **rows, const gs_sum_result **results,
					char *errbuf, size_t errlen)
{
	gs_device_batch b;
	GsSumPrograms progs;
	GroupSumBuffers *buf = NULL;
	int64_t		n;
	int64_t		nkeys;
	size_t		cells;
	cudaError_t err;
	gs_status	status;

	if (g == NULL || g->slot < 0 || rows == NULL || results == NULL || nexprs < 0 ||
		nexprs > GS_SUM_MAX_EXPRS || (nexprs > 0 && exprs == NULL))
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_groups_sum");
		return GS_INVALID_ARGUMENT;
	}
	status = gs_filter_device_batch(filter, g->slot, &b, errbuf, errlen);
	if (status != GS_OK)
		return status;
	if (b.batch != g->batch)
	{
		gs_format_error(errbuf, errlen, "gs_batch_groups_sum: the slot holds another batch than the one found");
		return GS_INVALID_ARGUMENT;
	}
	nkeys = g->nkeys;
	if (nkeys > GS_GROUP_SUM_MAX_KEYS)
	{
		gs_format_error(errbuf, errlen, "gs_batch_groups_sum: %lld keys, more than %d",
						(long long) nkeys, GS_GROUP_SUM_MAX_KEYS);
		return GS_INVALID_ARGUMENT;
	}
	if (!gs_sum_programs_resolve(exprs, nexprs, &b, &progs, "gs_batch_groups_sum", errbuf, errlen))
		return GS_INVALID_ARGUMENT;
	cells = (size_t) nkeys * nexprs;
	err = sum_buffers(g, (size_t) nkeys, cells, &buf);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "allocating the sums per key", errbuf, errlen);
	n = b.npositions - g->from;
	if (cells > 0)
		err = cudaMemsetAsync(buf->d_sums, 0, cells * sizeof(gs_sum_result), b.stream);
	if (err == cudaSuccess)
		err = cudaMemsetAsync(buf->d_rows, 0, ((size_t) nkeys + 1) * sizeof(unsigned long long),
							  b.stream);
	if (err == cudaSuccess && n > 0)
	{
		int64_t		want = (n + kGroupSumThreads - 1) / kGroupSumThreads;
		int64_t		most = (int64_t) (g->num_sms > 0 ? g->num_sms : 1) * kGroupSumBlocksPerSm;

		sum_by_key<<<(unsigned int) (want < most ? want : most), kGroupSumThreads, 0, b.stream>>>(
			progs, g->t.row_key, b.positions + g->from, n, nkeys, buf->d_sums, buf->d_rows,
			(unsigned int *) &buf->d_rows[nkeys]);
		err = cudaGetLastError();
	}
	if (err == cudaSuccess && cells > 0)
		err = cudaMemcpyAsync(buf->h_sums, buf->d_sums, cells * sizeof(gs_sum_result),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(buf->h_rows, buf->d_rows, ((size_t) nkeys + 1) * sizeof(unsigned long long),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(b.stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "summing a batch's rows by key", errbuf, errlen);
	for (size_t c = 0; c < cells; c++)
	{
		buf->h_sums[c].overflow = buf->h_rows[nkeys] != 0;
		buf->h_sums[c].pad = 0;
	}
	*rows = (const uint64_t *) buf->h_rows;
	*results = buf->h_sums;
	return GS_OK;
}
