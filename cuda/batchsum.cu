/*
 * batchsum.cu
 *	  Sums over a filtered batch's passing rows on the device: after the
 *	  filter has compacted a batch (filter.cu), each sum's input, a short
 *	  program of exact integer arithmetic over int8 columns that hold scaled
 *	  numerics (v * 10^scale), is evaluated per passing row in 128 bits and
 *	  summed there; only one result per sum crosses to the host.
 *
 * Exactness: a value or a partial sum that would leave 128 bits is not
 * rounded or wrapped; the batch's results are marked overflowed and the
 * host adds that batch's rows itself.  NULL inputs give a NULL value, which
 * is skipped; a NaN input (GS_NUMERIC_NAN) gives NaN, which is counted
 * apart and not summed, as the host's numeric sums keep it.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpusel_filter.h"
#include "gs_internal.cuh"

namespace
{

/* Threads per block of the summing kernel. */
constexpr int kSumThreads = 256;

/* Blocks per SM of its grid-stride loop. */
constexpr int kSumBlocksPerSm = 4;

typedef __int128 int128_t;
typedef unsigned __int128 uint128_t;

/* One instruction as the device runs it: a column resolved to its arrays. */
struct DeviceInstr
{
	int32_t		op;
	int32_t		shift_a;
	int32_t		shift_b;
	int32_t		pad;
	int64_t		constant;
	const int64_t *values;
	const uint8_t *nulls;		/* NULL where the column has no NULLs */
};

/* Every sum's program, passed by value to the kernel. */
struct SumPrograms
{
	int			nexprs;
	int			ncode[GS_SUM_MAX_EXPRS];
	DeviceInstr code[GS_SUM_MAX_EXPRS][GS_SUM_MAX_CODE];
};

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

/* One value on the evaluation stack. */
struct Slot
{
	int128_t	v;
	bool		isnull;
	bool		nan;
};

/* a + b, false when it leaves 128 bits. */
__host__ __device__ inline bool add_checked(int128_t a, int128_t b, int128_t *r)
{
	int128_t	s = (int128_t) ((uint128_t) a + (uint128_t) b);

	if ((a < 0) == (b < 0) && (s < 0) != (a < 0))
		return false;
	*r = s;
	return true;
}

/* a * b, false when it leaves 128 bits. */
__device__ inline bool mul_checked(int128_t a, int128_t b, int128_t *r)
{
	bool		negative = (a < 0) != (b < 0);
	uint128_t	ua = a < 0 ? (uint128_t) 0 - (uint128_t) a : (uint128_t) a;
	uint128_t	ub = b < 0 ? (uint128_t) 0 - (uint128_t) b : (uint128_t) b;
	uint128_t	p;
	uint128_t	limit = ((uint128_t) 1 << 127) - (negative ? 0 : 1);

	if (ua == 0 || ub == 0)
	{
		*r = 0;
		return true;
	}
	/* both below 2^63: the product is below 2^126 (the common case) */
	if ((ua >> 63) != 0 || (ub >> 63) != 0)
	{
		if (ua > limit / ub)
			return false;
	}
	p = ua * ub;
	if (p > limit)
		return false;
	*r = negative ? (int128_t) ((uint128_t) 0 - p) : (int128_t) p;
	return true;
}

/* v * 10^k, false when it leaves 128 bits. */
__device__ inline bool scale_up(int128_t *v, int k)
{
	for (int i = 0; i < k; i++)
		if (!mul_checked(*v, 10, v))
			return false;
	return true;
}

/*
 * Evaluates one program on the row at 'pos'; false on overflow.  *out is
 * the value, NULL or NaN.
 */
__device__ bool eval_row(const DeviceInstr *code, int ncode, uint32_t pos, Slot *out)
{
	Slot		stack[GS_SUM_MAX_CODE];
	int			sp = 0;

	for (int i = 0; i < ncode; i++)
	{
		const DeviceInstr *in = &code[i];
		Slot	   *a;
		Slot	   *b;

		switch (in->op)
		{
			case GS_SUM_COLUMN:
				{
					int64_t		x = in->values[pos];

					a = &stack[sp++];
					a->isnull = in->nulls != NULL && in->nulls[pos] != 0;
					a->nan = !a->isnull && x == GS_NUMERIC_NAN;
					a->v = x;
					break;
				}
			case GS_SUM_CONST:
				a = &stack[sp++];
				a->isnull = false;
				a->nan = false;
				a->v = in->constant;
				break;
			case GS_SUM_NEG:
				a = &stack[sp - 1];
				a->v = -a->v;	/* from at most 127 bits of magnitude: never overflows */
				break;
			default:
				b = &stack[--sp];
				a = &stack[sp - 1];
				a->isnull |= b->isnull;
				a->nan |= b->nan;
				if (a->isnull || a->nan)
					break;
				if (in->op == GS_SUM_MUL)
				{
					if (!mul_checked(a->v, b->v, &a->v))
						return false;
					break;
				}
				if (!scale_up(&a->v, in->shift_a) || !scale_up(&b->v, in->shift_b))
					return false;
				if (in->op == GS_SUM_SUB)
				{
					if (b->v == (int128_t) ((uint128_t) 1 << 127))
						return false;
					b->v = -b->v;
				}
				if (!add_checked(a->v, b->v, &a->v))
					return false;
				break;
		}
	}
	*out = stack[0];
	return true;
}

/* Adds src into dst, carrying overflow. */
__host__ __device__ inline void merge_partial(Partial *dst, const Partial &src)
{
	int128_t	a = (int128_t) (((uint128_t) dst->hi << 64) | dst->lo);
	int128_t	b = (int128_t) (((uint128_t) src.hi << 64) | src.lo);
	int128_t	s = 0;

	dst->overflow |= src.overflow;
	if (!add_checked(a, b, &s))
		dst->overflow = 1;
	dst->lo = (uint64_t) s;
	dst->hi = (uint64_t) ((uint128_t) s >> 64);
	dst->values += src.values;
	dst->nans += src.nans;
}

/* One Partial moved down a warp by 'offset' lanes. */
__device__ inline Partial shuffle_down(const Partial &p, int offset)
{
	Partial		q;

	q.lo = __shfl_down_sync(0xffffffffu, p.lo, offset);
	q.hi = __shfl_down_sync(0xffffffffu, p.hi, offset);
	q.values = __shfl_down_sync(0xffffffffu, p.values, offset);
	q.nans = __shfl_down_sync(0xffffffffu, p.nans, offset);
	q.overflow = __shfl_down_sync(0xffffffffu, p.overflow, offset);
	q.pad = 0;
	return q;
}

/*
 * Each block sums its share of the passing rows for every program and
 * writes one Partial per program: partials[block * nexprs + e].
 */
__global__ void sum_rows(SumPrograms progs, const uint32_t *positions, int64_t n,
						 Partial *partials)
{
	__shared__ Partial warp_sums[GS_SUM_MAX_EXPRS][kSumThreads / 32];
	int			lane = threadIdx.x & 31;
	int			warp = threadIdx.x >> 5;

	for (int e = 0; e < progs.nexprs; e++)
	{
		Partial		mine = {0, 0, 0, 0, 0, 0};
		int128_t	sum = 0;

		for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
			 i += (int64_t) gridDim.x * blockDim.x)
		{
			Slot		v;

			if (!eval_row(progs.code[e], progs.ncode[e], positions[i], &v))
			{
				mine.overflow = 1;
				continue;
			}
			if (v.isnull)
				continue;
			mine.values++;
			if (v.nan)
			{
				mine.nans++;
				continue;
			}
			if (!add_checked(sum, v.v, &sum))
				mine.overflow = 1;
		}
		mine.lo = (uint64_t) sum;
		mine.hi = (uint64_t) ((uint128_t) sum >> 64);
		for (int offset = 16; offset > 0; offset >>= 1)
		{
			Partial		other = shuffle_down(mine, offset);

			if (lane + offset < 32)
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

		for (int w = 1; w < (int) (blockDim.x / 32); w++)
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
		err = cudaMalloc((void **) &s->d_partials, bytes);
	if (err == cudaSuccess)
		err = cudaMallocHost((void **) &s->h_partials, bytes);
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
resolve_program(const gs_sum_expr *expr, const gs_device_batch *b, DeviceInstr *code,
				char *errbuf, size_t errlen)
{
	int			depth = 0;

	if (expr->ncode < 1 || expr->ncode > GS_SUM_MAX_CODE)
	{
		gs_format_error(errbuf, errlen, "gs_batch_sums_run: a program of %d instructions", expr->ncode);
		return false;
	}
	for (int i = 0; i < expr->ncode; i++)
	{
		const gs_sum_instr *in = &expr->code[i];
		DeviceInstr *out = &code[i];

		memset(out, 0, sizeof(*out));
		out->op = in->op;
		out->shift_a = in->shift_a;
		out->shift_b = in->shift_b;
		out->constant = in->constant;
		switch (in->op)
		{
			case GS_SUM_COLUMN:
				if (in->col < 0 || in->col >= b->ncols || b->values[in->col] == NULL ||
					b->coltypes[in->col] != GS_COL_INT8)
				{
					gs_format_error(errbuf, errlen,
									"gs_batch_sums_run: column %d is not an int8 column on the device", in->col);
					return false;
				}
				out->values = static_cast<const int64_t *>(b->values[in->col]);
				out->nulls = b->nulls[in->col];
				depth++;
				break;
			case GS_SUM_CONST:
				depth++;
				break;
			case GS_SUM_NEG:
				if (depth < 1)
					depth = -100;
				break;
			case GS_SUM_ADD:
			case GS_SUM_SUB:
			case GS_SUM_MUL:
				if (in->shift_a < 0 || in->shift_a > 38 || in->shift_b < 0 || in->shift_b > 38)
					depth = -100;
				depth--;
				break;
			default:
				depth = -100;
				break;
		}
		if (depth < 1)
		{
			gs_format_error(errbuf, errlen, "gs_batch_sums_run: malformed program at instruction %d", i);
			return false;
		}
	}
	if (depth != 1)
	{
		gs_format_error(errbuf, errlen, "gs_batch_sums_run: the program leaves %d values", depth);
		return false;
	}
	return true;
}

gs_status
gs_batch_sums_run(gs_batch_sums *s, gs_filter *filter, int slot, int64_t from, int nexprs,
				  const gs_sum_expr *exprs, gs_sum_result *results, char *errbuf, size_t errlen)
{
	gs_device_batch b;
	SumPrograms progs;
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
	memset(&progs, 0, sizeof(progs));
	progs.nexprs = nexprs;
	for (int e = 0; e < nexprs; e++)
	{
		if (!resolve_program(&exprs[e], &b, progs.code[e], errbuf, errlen))
			return GS_INVALID_ARGUMENT;
		progs.ncode[e] = exprs[e].ncode;
	}
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
	(void) cudaFree(s->d_partials);
	if (s->h_partials != NULL)
		(void) cudaFreeHost(s->h_partials);
	free(s);
	(void) cudaGetLastError();
}
