/*
 * batchsum.cu
 *	  Sums over a filtered batch's passing rows on the device: after the
 *	  filter has compacted a batch (filter.cu), each sum's input, a program
 *	  of numeric_core.h's steps over int8 columns that hold scaled numerics
 *	  (v * 10^scale), is evaluated per passing row in 128 bits by the
 *	  interpreter the host's numeric expressions use, and summed there; only
 *	  one result per sum crosses to the host.
 *
 * Exactness: a value (marked unfit) or a partial sum that would leave 128
 * bits is not rounded or wrapped; the batch's results are marked
 * overflowed and the host adds that batch's rows itself.  NULL inputs give
 * a NULL value, which is skipped; a NaN input (GS_NUMERIC_NAN) gives NaN,
 * which is counted apart and not summed, as the host's numeric sums keep
 * it.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpusel_filter.h"
#include "gs_internal.cuh"
#include "sum_program.cuh"
#include "warp_block.cuh"

namespace
{

/* Threads per block of the summing kernel. */
constexpr int kSumThreads = 256;

/* Blocks per SM of its grid-stride loop. */
constexpr int kSumBlocksPerSm = 4;

/* One sum's running state: a thread's, a block's, the batch's. */
struct Partial
{
	uint64_t	lo;
	uint64_t	hi;
	unsigned long long values;
	unsigned long long nans;
	uint32_t	overflow;
	uint32_t	pad;
};

/* Adds src into dst, carrying overflow. */
__host__ __device__ inline void merge_partial(Partial *dst, const Partial &src)
{
	gs_int128	a = (gs_int128) (((gs_uint128) dst->hi << 64) | dst->lo);
	gs_int128	b = (gs_int128) (((gs_uint128) src.hi << 64) | src.lo);
	gs_int128	s = 0;

	dst->overflow |= src.overflow;
	if (!gs_i128_add(a, b, &s))
		dst->overflow = 1;
	dst->lo = (uint64_t) s;
	dst->hi = (uint64_t) ((gs_uint128) s >> 64);
	dst->values += src.values;
	dst->nans += src.nans;
}

/* One Partial moved down a warp by 'offset' lanes. */
__device__ inline Partial shuffle_down(const Partial &p, int offset)
{
	Partial		q;

	q.lo = __shfl_down_sync(GS_FULL_MASK, p.lo, offset);
	q.hi = __shfl_down_sync(GS_FULL_MASK, p.hi, offset);
	q.values = __shfl_down_sync(GS_FULL_MASK, p.values, offset);
	q.nans = __shfl_down_sync(GS_FULL_MASK, p.nans, offset);
	q.overflow = __shfl_down_sync(GS_FULL_MASK, p.overflow, offset);
	q.pad = 0;
	return q;
}

/*
 * Each block sums its share of the passing rows for every program and
 * writes one Partial per program: partials[block * nexprs + e].
 */
__global__ void sum_rows(GsSumPrograms progs, const uint32_t *positions, int64_t n,
						 Partial *partials)
{
	__shared__ Partial warp_sums[GS_SUM_MAX_EXPRS][kSumThreads / GS_WARP_SIZE];
	int			lane = gs_lane_id();
	int			warp = gs_warp_id();

	for (int e = 0; e < progs.nexprs; e++)
	{
		const GsSumProgram *p = &progs.prog[e];
		gs_num_columns cols = {p->values, p->nulls, p->has_nulls, p->widths};
		Partial		mine = {0, 0, 0, 0, 0, 0};
		gs_int128	sum = 0;

		for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
			 i += (int64_t) gridDim.x * blockDim.x)
		{
			gs_num_value v = gs_num_eval_row(p->code, p->ncode, &cols, positions[i]);

			if (v.flags & GS_NUM_NULL)
				continue;
			if (v.flags & GS_NUM_UNFIT)
			{
				mine.overflow = 1;
				continue;
			}
			mine.values++;
			if (v.flags & GS_NUM_NAN)
			{
				mine.nans++;
				continue;
			}
			if (!gs_i128_add(sum, v.v, &sum))
				mine.overflow = 1;
		}
		mine.lo = (uint64_t) sum;
		mine.hi = (uint64_t) ((gs_uint128) sum >> 64);
		for (int offset = GS_WARP_SIZE / 2; offset > 0; offset >>= 1)
		{
			Partial		other = shuffle_down(mine, offset);

			if (lane + offset < GS_WARP_SIZE)
				merge_partial(&mine, other);
		}
		if (lane == 0)
			warp_sums[e][warp] = mine;
	}
	__syncthreads();
	if (threadIdx.x < progs.nexprs)
	{
		int			e = threadIdx.x;
		Partial		total = warp_sums[e][0];

		for (int w = 1; w < (int) (blockDim.x / GS_WARP_SIZE); w++)
			merge_partial(&total, warp_sums[e][w]);
		partials[(int64_t) blockIdx.x * progs.nexprs + e] = total;
	}
}

}								/* namespace */

/* The device's summing buffers, made once per scan. */
struct gs_batch_sums
{
	int			max_blocks;
	Partial    *d_partials;		/* max_blocks x GS_SUM_MAX_EXPRS */
	Partial    *h_partials;		/* pinned */
};

gs_status
gs_batch_sums_create(gs_batch_sums **sums, char *errbuf, size_t errlen)
{
	gs_batch_sums *s;
	cudaError_t err;
	int			dev = 0;
	int			num_sms = 0;
	size_t		bytes;

	if (sums == NULL)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_sums_create");
		return GS_INVALID_ARGUMENT;
	}
	*sums = NULL;
	s = (gs_batch_sums *) calloc(1, sizeof(gs_batch_sums));
	if (s == NULL)
	{
		gs_format_error(errbuf, errlen, "out of host memory for the batch sums");
		return GS_OUT_OF_MEMORY;
	}
	err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, dev);
	s->max_blocks = (num_sms > 0 ? num_sms : 1) * kSumBlocksPerSm;
	bytes = (size_t) s->max_blocks * GS_SUM_MAX_EXPRS * sizeof(Partial);
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &s->d_partials, bytes);
	if (err == cudaSuccess)
		err = gs_pinned_alloc((void **) &s->h_partials, bytes);
	if (err != cudaSuccess)
	{
		gs_batch_sums_destroy(s);
		return gs_status_from_cuda(err, "allocating the batch sums", errbuf, errlen);
	}
	*sums = s;
	return GS_OK;
}

/* Checks one program and resolves its columns against the batch; false with a message when it is malformed. */
static bool
resolve_program(const gs_sum_expr *expr, const gs_device_batch *b, GsSumProgram *out,
				const char *caller, char *errbuf, size_t errlen)
{
	if (!gs_num_program_ok(expr->code, expr->ncode))
	{
		gs_format_error(errbuf, errlen, "%s: a malformed program of %d steps", caller, expr->ncode);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->ncode = expr->ncode;
	for (int i = 0; i < expr->ncode; i++)
	{
		gs_num_step st = expr->code[i];

		if (st.op == GS_NUM_COLUMN)
		{
			if (st.col < 0 || st.col >= b->ncols || b->values[st.col] == NULL ||
				(b->coltypes[st.col] != GS_COL_INT8 && b->coltypes[st.col] != GS_COL_INT4 &&
				 b->coltypes[st.col] != GS_COL_INT2))
			{
				gs_format_error(errbuf, errlen,
								"%s: column %d is not an integer column on the device", caller, st.col);
				return false;
			}
			out->values[i] = b->values[st.col];
			out->widths[i] = (uint8_t) gs_coltype_width(b->coltypes[st.col]);
			out->nulls[i] = b->nulls[st.col];
			out->has_nulls[i] = b->nulls[st.col] != NULL;
			st.col = i;
		}
		out->code[i] = st;
	}
	return true;
}

bool
gs_sum_programs_resolve(const gs_sum_expr *exprs, int nexprs, const gs_device_batch *b,
						GsSumPrograms *out, const char *caller, char *errbuf, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->nexprs = nexprs;
	for (int e = 0; e < nexprs; e++)
		if (!resolve_program(&exprs[e], b, &out->prog[e], caller, errbuf, errlen))
			return false;
	return true;
}

gs_status
gs_batch_sums_run(gs_batch_sums *s, gs_filter *filter, int slot, int64_t from, int nexprs,
				  const gs_sum_expr *exprs, gs_sum_result *results, char *errbuf, size_t errlen)
{
	gs_device_batch b;
	GsSumPrograms progs;
	int64_t		n;
	unsigned int blocks = 0;
	cudaError_t err = cudaSuccess;
	gs_status	status;

	if (s == NULL || exprs == NULL || results == NULL || nexprs < 1 || nexprs > GS_SUM_MAX_EXPRS)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_batch_sums_run");
		return GS_INVALID_ARGUMENT;
	}
	status = gs_filter_device_batch(filter, slot, &b, errbuf, errlen);
	if (status != GS_OK)
		return status;
	if (from < 0 || from > b.npositions)
	{
		gs_format_error(errbuf, errlen, "gs_batch_sums_run: row %lld is beyond the batch", (long long) from);
		return GS_INVALID_ARGUMENT;
	}
	if (!gs_sum_programs_resolve(exprs, nexprs, &b, &progs, "gs_batch_sums_run", errbuf, errlen))
		return GS_INVALID_ARGUMENT;
	memset(results, 0, sizeof(gs_sum_result) * nexprs);
	n = b.npositions - from;
	if (n == 0)
		return GS_OK;

	{
		int64_t		want = (n + kSumThreads - 1) / kSumThreads;

		blocks = (unsigned int) (want < s->max_blocks ? want : s->max_blocks);
	}
	sum_rows<<<blocks, kSumThreads, 0, b.stream>>>(progs, b.positions + from, n, s->d_partials);
	err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(s->h_partials, s->d_partials,
							  (size_t) blocks * nexprs * sizeof(Partial),
							  cudaMemcpyDeviceToHost, b.stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(b.stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "summing a batch's rows", errbuf, errlen);

	for (int e = 0; e < nexprs; e++)
	{
		Partial		total = {0, 0, 0, 0, 0, 0};

		for (unsigned int k = 0; k < blocks; k++)
			merge_partial(&total, s->h_partials[(size_t) k * nexprs + e]);
		results[e].lo = total.lo;
		results[e].hi = total.hi;
		results[e].values = total.values;
		results[e].nans = total.nans;
		results[e].overflow = total.overflow;
	}
	return GS_OK;
}

void
gs_batch_sums_destroy(gs_batch_sums *s)
{
	if (s == NULL)
		return;
	(void) gs_dev_free(s->d_partials);
	if (s->h_partials != NULL)
		(void) gs_pinned_free(s->h_partials);
	free(s);
	(void) cudaGetLastError();
}
