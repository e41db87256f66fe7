/*
 * warp_block.cuh
 *	  The warp- and block-level primitives the kernels of cuda/ are built
 *	  from: lane masks, warp prefix sums and reductions, ballots of several
 *	  bits per lane, slots reserved with one atomic per warp, and a block
 *	  prefix sum.  Each is a small inline device function; the kernels keep
 *	  only what is particular to them.
 *
 *	  Every function here that shuffles or votes must be called by all 32
 *	  lanes of the warp together (gs_peers_reserve: by all lanes of its peer
 *	  mask), and the block functions by every thread of the block.  Blocks
 *	  are whole warps.  Nothing here is tunable: the constants are the
 *	  hardware's.
 */
#ifndef GPUSEL_WARP_BLOCK_CUH
#define GPUSEL_WARP_BLOCK_CUH

#include <stdint.h>
#include <cuda_runtime.h>

/* Lanes per warp. */
#define GS_WARP_SIZE 32

/* Mask naming every lane of a warp. */
#define GS_FULL_MASK 0xffffffffu

/* Index of the calling thread within its warp. */
__device__ __forceinline__ int
gs_lane_id(void)
{
	return threadIdx.x & (GS_WARP_SIZE - 1);
}

/* Index of the calling thread's warp within its block. */
__device__ __forceinline__ int
gs_warp_id(void)
{
	return threadIdx.x / GS_WARP_SIZE;
}

/* Mask of the lanes below the calling one (%lanemask_lt). */
__device__ __forceinline__ uint32_t
gs_lanemask_lt(void)
{
	uint32_t	m;

	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
	return m;
}

/* Warp sum by a __shfl_down tree; the total lands in lane 0. */
template <typename T>
__device__ __forceinline__ T
gs_warp_sum_down(T v)
{
#pragma unroll
	for (int off = GS_WARP_SIZE / 2; off > 0; off >>= 1)
		v += __shfl_down_sync(GS_FULL_MASK, v, off);
	return v;
}

/* Inclusive warp prefix sum by __shfl_up (Hillis-Steele, 5 steps). */
template <typename T>
__device__ __forceinline__ T
gs_warp_inclusive_sum(T v)
{
	const int	lane = gs_lane_id();

#pragma unroll
	for (int off = 1; off < GS_WARP_SIZE; off <<= 1)
	{
		const T		up = __shfl_up_sync(GS_FULL_MASK, v, off);

		if (lane >= off)
			v += up;
	}
	return v;
}

/* Exclusive warp prefix sum: the sum of v over the lanes below this one. */
template <typename T>
__device__ __forceinline__ T
gs_warp_exclusive_sum(T v)
{
	return gs_warp_inclusive_sum(v) - v;
}

/* Exclusive warp prefix sum that also gives every lane the warp's total. */
template <typename T>
__device__ __forceinline__ T
gs_warp_exclusive_sum(T v, T &total)
{
	const T		inc = gs_warp_inclusive_sum(v);

	total = __shfl_sync(GS_FULL_MASK, inc, GS_WARP_SIZE - 1);
	return inc - v;
}

/*
 * Ballot of V bits per lane (V a power of two up to 32): the warp's 32 * V
 * bits, lane by lane, bit j of lane l's 'bits' being bit l * V + j, make V
 * 32-bit words; lane l receives word l % V.  The lanes of one word OR
 * their shifted bits together with __shfl_xor (log2(32 / V) steps), then
 * each lane fetches its word from the first lane of that word's segment.
 * With V == 1 this is exactly one __ballot_sync.
 */
template <int V>
__device__ __forceinline__ uint32_t
gs_warp_ballot_bits(uint32_t bits)
{
	if (V == 1)
		return __ballot_sync(GS_FULL_MASK, bits & 1u);
	else
	{
		constexpr int L = GS_WARP_SIZE / V;
		const int	lane = gs_lane_id();
		uint32_t	seg = bits << ((lane % L) * V);

#pragma unroll
		for (int off = 1; off < L; off <<= 1)
			seg |= __shfl_xor_sync(GS_FULL_MASK, seg, off);
		return __shfl_sync(GS_FULL_MASK, seg, (lane % V) * L);
	}
}

/*
 * Reserves one slot of *counter per lane that wants one, with one atomic
 * for the whole warp (by its first wanting lane); returns the lane's slot,
 * in lane order, or 0 to a lane that wants none.
 */
template <typename T>
__device__ __forceinline__ T
gs_warp_reserve(bool want, T *counter)
{
	const uint32_t ballot = __ballot_sync(GS_FULL_MASK, want);
	const int	leader = __ffs(ballot) - 1;
	T			at = 0;

	if (ballot == 0)
		return 0;
	if (gs_lane_id() == leader)
		at = atomicAdd(counter, (T) __popc(ballot));
	at = __shfl_sync(GS_FULL_MASK, at, leader);
	return want ? at + (T) __popc(ballot & gs_lanemask_lt()) : 0;
}

/*
 * Reserves one slot of *counter per lane of 'peers' (lanes that share the
 * counter, the calling lane among them, all calling together), with one
 * atomic by the first of them; returns the lane's slot, in lane order.
 */
template <typename T>
__device__ __forceinline__ T
gs_peers_reserve(uint32_t peers, T *counter)
{
	const int	leader = __ffs(peers) - 1;
	T			at = 0;

	if (gs_lane_id() == leader)
		at = atomicAdd(counter, (T) __popc(peers));
	at = __shfl_sync(peers, at, leader);
	return at + (T) __popc(peers & gs_lanemask_lt());
}

/*
 * Exclusive prefix sum of v over the block; *total receives the block sum.
 * scratch holds GS_WARP_SIZE + 1 values in shared memory, free again when
 * it returns.  Every thread of the block must call it.
 */
template <typename T>
__device__ inline T
gs_block_exclusive_sum(T v, T *scratch, T *total)
{
	const int	lane = gs_lane_id();
	const int	warp = gs_warp_id();
	const int	nwarps = blockDim.x / GS_WARP_SIZE;
	const T		inc = gs_warp_inclusive_sum(v);

	if (lane == GS_WARP_SIZE - 1)
		scratch[warp] = inc;
	__syncthreads();
	if (warp == 0)
	{
		const T		w = lane < nwarps ? scratch[lane] : 0;
		const T		winc = gs_warp_inclusive_sum(w);

		scratch[lane] = winc - w;
		if (lane == GS_WARP_SIZE - 1)
			scratch[GS_WARP_SIZE] = winc;
	}
	__syncthreads();
	const T		result = scratch[warp] + inc - v;

	*total = scratch[GS_WARP_SIZE];
	/* scratch is reused by the next call */
	__syncthreads();
	return result;
}

#endif							/* GPUSEL_WARP_BLOCK_CUH */
