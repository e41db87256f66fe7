/*
 * compact.cuh
 *	  Three-phase order-preserving compaction (Bakunas-Milanowski et al.,
 *	  seeds 000/001), with the predicate fused into phase 1:
 *
 *	  phase 1  every warp owns groups of 1024 rows; it evaluates the
 *	           predicate, keeps one 32-bit ballot word per 32 rows (bit i of
 *	           word w = row 32w+i of the group passes) and the group's count
 *	           (__popc, then a __shfl_down reduction);
 *	  phase 2  exclusive scan of the group counts (cub::DeviceScan; the
 *	           extra last element yields the total);
 *	  phase 3  every warp turns a group's 32 words into row positions: a
 *	           __shfl_up prefix sum of the words' popcounts gives each word's
 *	           offset, __popc(word & lanemask_lt) each row's place in it;
 *	           positions are staged in shared memory and written out with
 *	           aligned 16-byte stores.
 *
 *	  Output is ascending row positions (uint32, 0-based), i.e. input order.
 *	  Pass flags never go to memory except as ballot words.
 *
 *	  A predicate type Pred provides:
 *	    static constexpr int  kThreads;      block size of its phase 1
 *	    static constexpr bool kCanError;     whether rows can raise errors
 *	    static constexpr bool kRowPerThread; which phase 1 it runs (below)
 *	    int stack_slots;                     8-byte shared slots per thread
 *	  and, when kRowPerThread is false (fixed predicates, vector loads):
 *	    __device__ uint32_t group_word(long long base, long long n, bool full,
 *	                                   long long *stack, int stride,
 *	                                   bool &err) const;
 *	  called by all 32 lanes of a warp for the group starting at row 'base',
 *	  returning in lane w ballot word w of the group (rows >= n contribute
 *	  zero bits; full means base + 1024 <= n; gs_collect_word builds the
 *	  words); or, when kRowPerThread is true (the interpreter):
 *	    __device__ bool eval_row(long long row, bool active,
 *	                             long long *stack, int stride,
 *	                             bool &err) const;
 *	  called by all 32 lanes together, one row each, one warp per ballot
 *	  word: many more warps in flight for a long-latency evaluation.
 *
 *	  Everything here works on device pointers, so benchmarks can time the
 *	  kernels on data already on the device (see gs_compact_run).  The
 *	  warp primitives (lane masks, warp sums, multi-bit ballots) come from
 *	  warp_block.cuh.
 */
#ifndef GPUSEL_COMPACT_CUH
#define GPUSEL_COMPACT_CUH

#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include "filter_tuning.cuh"
#include "gs_internal.cuh"
#include "warp_block.cuh"

static_assert(GS_FILTER_WARP_SIZE == GS_WARP_SIZE, "a ballot word covers one warp");

/* Count of passing rows and the row-error flag of one compaction (device memory). */
typedef struct gs_compact_result
{
	uint32_t	count;
	int32_t		row_error;
} gs_compact_result;

/* Device scratch of the three phases, sized for up to max_rows rows. */
typedef struct gs_compact_workspace
{
	long long	max_rows;
	long long	max_groups;
	uint32_t   *words;			/* max_groups * 32 ballot words */
	uint32_t   *counts;			/* max_groups + 1 group counts (last is 0) */
	uint32_t   *offsets;		/* max_groups + 1 exclusive prefix sums */
	void	   *scan_temp;		/* cub::DeviceScan temporary storage */
	size_t		scan_temp_bytes;
	gs_compact_result *result;
} gs_compact_workspace;

/* ------------------------------------------------------------------------
 * Ballot words (the warp primitives themselves are in warp_block.cuh)
 * ------------------------------------------------------------------------ */

/*
 * Adds iteration 'it' of a group to the lane's ballot word, V rows per lane.
 *
 * In iteration it, lane l holds the pass bits of rows it*32*V + l*V + j
 * (j < V) of the group, bit j of 'bits'.  Those 32*V rows are V ballot
 * words, it*V .. it*V+V-1 (gs_warp_ballot_bits); lane w keeps word w,
 * which this iteration makes when w/V == it.
 */
template <int V>
__device__ __forceinline__ void
gs_collect_word(uint32_t bits, int it, uint32_t &myword)
{
	const uint32_t w = gs_warp_ballot_bits<V>(bits);

	if (gs_lane_id() / V == it)
		myword = w;
}

/* ------------------------------------------------------------------------
 * The three phases
 * ------------------------------------------------------------------------ */

/*
 * Phase 1 for fixed predicates: predicate, ballot words and per-group
 * counts, one group per warp (warp-stride).
 */
template <class Pred>
__global__ void __launch_bounds__(Pred::kThreads)
gs_phase1_kernel(const Pred pred, long long n, long long ngroups,
				 uint32_t *__restrict__ words, uint32_t *__restrict__ counts,
				 gs_compact_result *result)
{
	extern __shared__ long long gs_stack_smem[];
	const int	lane = gs_lane_id();
	const long long nwarps = ((long long) gridDim.x * Pred::kThreads) / GS_FILTER_WARP_SIZE;
	bool		err = false;

	for (long long g = ((long long) blockIdx.x * Pred::kThreads + threadIdx.x) / GS_FILTER_WARP_SIZE;
		 g < ngroups; g += nwarps)
	{
		const long long base = g * GS_FILTER_GROUP_ROWS;
		const bool	full = base + GS_FILTER_GROUP_ROWS <= n;
		uint32_t	myword = pred.group_word(base, n, full,
											 gs_stack_smem + threadIdx.x,
											 Pred::kThreads, err);

		words[g * GS_FILTER_GROUP_WORDS + lane] = myword;
		uint32_t	c = gs_warp_sum_down((uint32_t) __popc(myword));

		if (lane == 0)
			counts[g] = c;
	}
	/* One flag store per warp that saw an error; all writers store 1. */
	if (Pred::kCanError && __any_sync(GS_FULL_MASK, err) && lane == 0)
		result->row_error = 1;
	/* Sentinel so the exclusive scan's last element is the total. */
	if (blockIdx.x == 0 && threadIdx.x == 0)
		counts[ngroups] = 0;
}

/*
 * Phase 1 for row-per-thread predicates (the interpreter): one warp per
 * ballot word, 32 rows, one per lane; lane 0 stores the word and adds its
 * popcount to its group's count (counts zeroed beforehand).  The block's
 * dynamic shared memory is the predicate's stack.
 */
template <class Pred>
__global__ void __launch_bounds__(Pred::kThreads)
gs_phase1_rows_kernel(const Pred pred, long long n, long long nwords,
					  uint32_t *__restrict__ words, uint32_t *__restrict__ counts,
					  gs_compact_result *result)
{
	extern __shared__ long long gs_stack_smem[];
	const int	lane = gs_lane_id();
	const long long nwarps = ((long long) gridDim.x * Pred::kThreads) / GS_FILTER_WARP_SIZE;
	bool		err = false;

	for (long long w = ((long long) blockIdx.x * Pred::kThreads + threadIdx.x) / GS_FILTER_WARP_SIZE;
		 w < nwords; w += nwarps)
	{
		const long long row = w * GS_FILTER_WARP_SIZE + lane;
		const uint32_t word = __ballot_sync(GS_FULL_MASK,
											pred.eval_row(row, row < n, gs_stack_smem + threadIdx.x,
														  Pred::kThreads, err));

		if (lane == 0)
		{
			words[w] = word;
			if (word != 0)
				atomicAdd(&counts[w / GS_FILTER_GROUP_WORDS], (uint32_t) __popc(word));
		}
	}
	if (Pred::kCanError && __any_sync(GS_FULL_MASK, err) && lane == 0)
		result->row_error = 1;
}

/* One 16-byte store of four positions, streaming (evict-first) or plain. */
template <bool STREAM>
__device__ __forceinline__ void
gs_store4(uint32_t *p, uint4 v)
{
	if (STREAM)
		__stcs((uint4 *) p, v);
	else
		*(uint4 *) p = v;
}

/*
 * Puts the positions of one group's passing rows into wbuf (wbuf[i] = the
 * i-th passing row of the group), one warp, lane w holding word w.  The
 * __shfl_up scan of the words' popcounts gives each word's offset 'excl'.
 *
 * Sparse groups (no word with more than GS_FILTER_P3_SPARSE_MAX bits):
 * each lane walks the set bits of its own word, so a group costs a few
 * iterations rather than one per non-zero word.  Dense groups: the seed's
 * scheme, word by word for the whole warp, the passing lane writing at
 * excl[w] + __popc(word & lanemask_lt); the (word, excl) pairs come from
 * shared memory as broadcast 16-byte loads, two words per load, instead
 * of two shuffles per word.  Measured: the shuffle loop, not bandwidth,
 * bounded the seed's phase 3.
 */
__device__ __forceinline__ void
gs_group_positions(uint32_t myword, uint32_t first_row, uint32_t *wbuf, uint2 *pairs)
{
	const int	lane = gs_lane_id();
	const uint32_t cnt = __popc(myword);
	const uint32_t excl = gs_warp_exclusive_sum(cnt);
	const uint32_t maxcnt = __reduce_max_sync(GS_FULL_MASK, cnt);

	if (maxcnt <= GS_FILTER_P3_SPARSE_MAX)
	{
		uint32_t	bits = myword;
		uint32_t   *dst = wbuf + excl;
		const uint32_t row = first_row + (uint32_t) lane * 32u;

		for (uint32_t k = 0; k < maxcnt; ++k)
		{
			if (bits)
			{
				dst[k] = row + (uint32_t) (__ffs(bits) - 1);
				bits &= bits - 1;
			}
		}
		return;
	}

	const uint32_t lt = gs_lanemask_lt();
	const uint32_t lanebit = 1u << lane;
	const uint4 *pairs4 = (const uint4 *) pairs;

	pairs[lane] = make_uint2(myword, excl);
	__syncwarp();
#pragma unroll
	for (int w = 0; w < GS_FILTER_GROUP_WORDS; w += 2)
	{
		const uint4 p = pairs4[w / 2];	/* words w, w+1 and their offsets */

		if (p.x & lanebit)
			wbuf[p.y + __popc(p.x & lt)] = first_row + (uint32_t) w * 32u + lane;
		if (p.z & lanebit)
			wbuf[p.w + __popc(p.z & lt)] = first_row + (uint32_t) (w + 1) * 32u + lane;
	}
	__syncwarp();				/* pairs is reused by the warp's next group */
}

/*
 * Phase 3: positions from ballot words.
 *
 * A block takes a tile of WARPS consecutive groups, one group per warp
 * (gs_group_positions).  Rows go to shared memory first, laid out with the
 * same 16-byte alignment as their final place, and the block then streams
 * the tile's whole output range out with aligned 16-byte stores (scalar
 * ones only for the partial chunks at either end, which the neighbouring
 * tiles share).  Measured: direct 4-byte writes per word reached about
 * half the copy bandwidth at 99% kept.
 *
 * With GS_FILTER_P3_WAVES > 0 the grid is persistent and each block loads
 * the next tile's words while it works on the current one.
 */
template <int THREADS, bool STREAM>
__global__ void __launch_bounds__(THREADS)
gs_phase3_kernel(const uint32_t *__restrict__ words,
				 const uint32_t *__restrict__ offsets, long long ngroups,
				 uint32_t *__restrict__ positions, gs_compact_result *result,
				 int clear_error)
{
	constexpr int WARPS = THREADS / GS_FILTER_WARP_SIZE;
	__shared__ __align__(16) uint32_t buf[WARPS * GS_FILTER_GROUP_ROWS + 4];
	__shared__ __align__(16) uint2 pairs[WARPS][GS_FILTER_GROUP_WORDS];
	const int	lane = gs_lane_id();
	const int	warp = threadIdx.x / GS_FILTER_WARP_SIZE;
	const long long ntiles = (ngroups + WARPS - 1) / WARPS;
	uint32_t	nword = 0, ngoff = 0, nlo = 0, nhi = 0;

	/* Loads what tile t needs: this warp's word and offset, the tile's output range. */
	auto		fetch = [&](long long t) {
		const long long g = t * WARPS + warp;
		const long long last = t * WARPS + WARPS < ngroups ? t * WARPS + WARPS : ngroups;

		nword = g < ngroups ? words[g * GS_FILTER_GROUP_WORDS + lane] : 0;
		ngoff = offsets[g < ngroups ? g : ngroups];
		nlo = offsets[t * WARPS];
		nhi = offsets[last];
	};

	if (blockIdx.x < ntiles)
		fetch(blockIdx.x);
	for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x)
	{
		const uint32_t myword = nword, goff = ngoff, lo = nlo, hi = nhi;
		const uint32_t base = lo & ~3u;	/* buf[0] stands for position base */

		if (tile + gridDim.x < ntiles)
			fetch(tile + gridDim.x);	/* in flight while this tile is done */

		gs_group_positions(myword, (uint32_t) ((tile * WARPS + warp) * GS_FILTER_GROUP_ROWS),
						   buf + (goff - base), pairs[warp]);
		__syncthreads();

		/* Positions [lo, hi) of the tile, in 4-element chunks aligned like buf. */
		const uint32_t nchunks = (hi - base + 3) / 4;

		for (uint32_t c = threadIdx.x; c < nchunks; c += THREADS)
		{
			const uint32_t p = base + 4 * c;

			if (p >= lo && p + 4 <= hi)
				gs_store4<STREAM>(positions + p, *(const uint4 *) (buf + 4 * c));
			else
				for (uint32_t k = 0; k < 4; ++k)
					if (p + k >= lo && p + k < hi)
						positions[p + k] = buf[4 * c + k];
		}
		__syncthreads();		/* buf is reused by the next tile */
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
	{
		result->count = offsets[ngroups];
		if (clear_error)
			result->row_error = 0;	/* saves a memset when rows cannot fail */
	}
}

/*
 * The seed's phase 3 without staging: each word's passing lanes write
 * their positions straight to global memory (coalesced but unaligned).
 * Not used by gs_compact_run; kept so the benchmark can show the
 * difference.  One group per warp, warp-stride.
 */
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
gs_phase3_direct_kernel(const uint32_t *__restrict__ words,
						const uint32_t *__restrict__ offsets, long long ngroups,
						uint32_t *__restrict__ positions, gs_compact_result *result,
						int clear_error)
{
	const int	lane = gs_lane_id();
	const uint32_t lt = gs_lanemask_lt();
	const long long nwarps = ((long long) gridDim.x * THREADS) / GS_FILTER_WARP_SIZE;

	for (long long g = ((long long) blockIdx.x * THREADS + threadIdx.x) / GS_FILTER_WARP_SIZE;
		 g < ngroups; g += nwarps)
	{
		const uint32_t myword = words[g * GS_FILTER_GROUP_WORDS + lane];
		const uint32_t cnt = __popc(myword);
		const uint32_t excl = gs_warp_exclusive_sum(cnt);
		uint32_t   *out = positions + offsets[g];
		const uint32_t row = (uint32_t) (g * GS_FILTER_GROUP_ROWS) + lane;
		uint32_t	nonzero = __ballot_sync(GS_FULL_MASK, myword != 0);

		while (nonzero)
		{
			const int	w = __ffs(nonzero) - 1;
			const uint32_t word = __shfl_sync(GS_FULL_MASK, myword, w);
			const uint32_t off = __shfl_sync(GS_FULL_MASK, excl, w);

			nonzero &= nonzero - 1;
			if (word & (1u << lane))
				out[off + __popc(word & lt)] = row + (uint32_t) w * 32u;
		}
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
	{
		result->count = offsets[ngroups];
		if (clear_error)
			result->row_error = 0;
	}
}

/* ------------------------------------------------------------------------
 * Host side
 * ------------------------------------------------------------------------ */

/* Frees a workspace; safe on a zeroed or partly built one. */
static inline void
gs_compact_workspace_free(gs_compact_workspace *ws)
{
	if (ws == NULL)
		return;
	gs_dev_free(ws->words);
	gs_dev_free(ws->counts);
	gs_dev_free(ws->offsets);
	gs_dev_free(ws->scan_temp);
	gs_dev_free(ws->result);
	memset(ws, 0, sizeof(*ws));
}

/*
 * Allocates the scratch for compactions of up to max_rows rows; frees all on
 * failure.  A template only so that a file that includes this header but
 * never allocates a workspace does not compile CUB's scan kernels too.
 */
template <typename CountT = uint32_t>
static inline cudaError_t
gs_compact_workspace_alloc(gs_compact_workspace *ws, long long max_rows)
{
	cudaError_t err;
	long long	groups;

	memset(ws, 0, sizeof(*ws));
	if (max_rows < 1)
		max_rows = 1;
	groups = (max_rows + GS_FILTER_GROUP_ROWS - 1) / GS_FILTER_GROUP_ROWS;
	ws->max_rows = max_rows;
	ws->max_groups = groups;

	err = cub::DeviceScan::ExclusiveSum(NULL, ws->scan_temp_bytes,
										(const CountT *) NULL, (CountT *) NULL,
										(int) (groups + 1));
	if (err == cudaSuccess)
		err = gs_dev_malloc(&ws->scan_temp, ws->scan_temp_bytes > 0 ? ws->scan_temp_bytes : 16);
	if (err == cudaSuccess)
		err = gs_dev_malloc(&ws->words, (size_t) groups * GS_FILTER_GROUP_WORDS * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc(&ws->counts, (size_t) (groups + 1) * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc(&ws->offsets, (size_t) (groups + 1) * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc(&ws->result, sizeof(gs_compact_result));
	if (err != cudaSuccess)
		gs_compact_workspace_free(ws);
	return err;
}

/*
 * Grid size for a kernel that loops over 'units' work units of
 * units_per_block each: one block per unit, or, when waves > 0, at most
 * 'waves' full waves of resident blocks (blocks_per_sm from the occupancy
 * calculator).
 */
static inline unsigned int
gs_compact_grid(long long units, int units_per_block, int num_sms, int blocks_per_sm, int waves)
{
	long long	blocks = (units + units_per_block - 1) / units_per_block;

	if (waves > 0 && num_sms > 0 && blocks_per_sm > 0)
	{
		long long	cap = (long long) num_sms * blocks_per_sm * waves;

		if (blocks > cap)
			blocks = cap;
	}
	if (blocks > 0x7fffffffLL)
		blocks = 0x7fffffffLL;
	return (unsigned int) (blocks > 0 ? blocks : 1);
}

/* Resident blocks per SM of kernel K (occupancy calculator, asked once per kernel). */
template <auto K>
static int
gs_blocks_per_sm(int threads, size_t smem)
{
	static int	cached = 0;

	if (cached <= 0 && cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached, K, threads, smem) != cudaSuccess)
	{
		(void) cudaGetLastError();
		cached = 1;
	}
	return cached;
}

/*
 * Runs the whole compaction on the device, asynchronously on 'stream':
 * positions of the n rows where pred holds go to d_positions (room for n),
 * the count and the row-error flag to ws->result.  n <= ws->max_rows,
 * n < 2^32, d_positions 16-byte aligned.  Returns the launch status (cudaGetLastError).
 */
template <class Pred>
static cudaError_t
gs_compact_run(const Pred &pred, long long n, uint32_t *d_positions,
			   const gs_compact_workspace *ws, int num_sms, cudaStream_t stream)
{
	cudaError_t err;
	long long	ngroups;
	size_t		smem;
	size_t		temp_bytes = ws->scan_temp_bytes;

	/* Phase 3 resets the error flag itself when rows cannot fail. */
	if (n <= 0 || Pred::kCanError)
	{
		err = cudaMemsetAsync(ws->result, 0, sizeof(gs_compact_result), stream);
		if (err != cudaSuccess || n <= 0)
			return err;
	}
	ngroups = (n + GS_FILTER_GROUP_ROWS - 1) / GS_FILTER_GROUP_ROWS;
	smem = (size_t) pred.stack_slots * Pred::kThreads * sizeof(long long);

	if constexpr (Pred::kRowPerThread)
	{
		/* counts[ngroups] stays 0: the scan's last element is the total */
		err = cudaMemsetAsync(ws->counts, 0, (size_t) (ngroups + 1) * sizeof(uint32_t), stream);
		if (err != cudaSuccess)
			return err;
		gs_phase1_rows_kernel<Pred>
			<<<gs_compact_grid(ngroups * GS_FILTER_GROUP_WORDS, Pred::kThreads / GS_FILTER_WARP_SIZE,
							   num_sms, 0, 0),
			Pred::kThreads, smem, stream>>>(pred, n, ngroups * GS_FILTER_GROUP_WORDS,
											ws->words, ws->counts, ws->result);
	}
	else
		gs_phase1_kernel<Pred>
			<<<gs_compact_grid(ngroups, Pred::kThreads / GS_FILTER_WARP_SIZE, num_sms,
							   2048 / Pred::kThreads, GS_FILTER_P1_WAVES),
			Pred::kThreads, smem, stream>>>(pred, n, ngroups, ws->words,
											ws->counts, ws->result);
	err = cudaGetLastError();
	if (err != cudaSuccess)
		return err;

	err = cub::DeviceScan::ExclusiveSum(ws->scan_temp, temp_bytes,
										(const uint32_t *) ws->counts, ws->offsets,
										(int) (ngroups + 1), stream);
	if (err != cudaSuccess)
		return err;

	{
		constexpr auto k3 = gs_phase3_kernel<GS_FILTER_P3_THREADS, GS_FILTER_STREAMING_STORES != 0>;

		k3<<<gs_compact_grid(ngroups, GS_FILTER_P3_THREADS / GS_FILTER_WARP_SIZE, num_sms,
							 gs_blocks_per_sm<k3>(GS_FILTER_P3_THREADS, 0), GS_FILTER_P3_WAVES),
			GS_FILTER_P3_THREADS, 0, stream>>>(ws->words, ws->offsets, ngroups,
											   d_positions, ws->result, !Pred::kCanError);
	}
	return cudaGetLastError();
}

#endif							/* GPUSEL_COMPACT_CUH */
