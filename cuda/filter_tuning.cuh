/*
 * filter_tuning.cuh
 *	  Every tuning constant of the device-side WHERE filter in one place:
 *	  block sizes, rows per group, grid caps, load flavour.  The compaction
 *	  layout (one 32-bit ballot word per 32 rows, 32 words per group) is
 *	  fixed by the algorithm, not tunable, and is defined here only so that
 *	  every file agrees on it.
 *
 *	  Measured with these values (H200, 2^28 int32, "x < k", median of 20,
 *	  test/kernel/filter_bench, 2026-11-22): 1% / 50% / 99% kept in 0.330 /
 *	  0.441 / 0.565 ms, against cub::DeviceSelect::If on a counting iterator
 *	  0.576 / 0.692 / 0.837 ms and a 1.07 GB device copy 0.513 ms.
 *	  Phase 1 reads at ~4.0 TB/s; phase 3 was the bottleneck until it was
 *	  staged in shared memory and split into sparse/dense paths.
 */
#ifndef GPUSEL_FILTER_TUNING_CUH
#define GPUSEL_FILTER_TUNING_CUH

/* Lanes per warp; the ballot words assume it. */
#define GS_FILTER_WARP_SIZE 32

/*
 * Rows whose passing count phase 1 records together (seed 001's 1024-row
 * group).  One warp owns a whole group in phase 1 and phase 3, and in
 * phase 3 lane i holds the group's ballot word i, so this must be
 * 32 * 32.
 */
#define GS_FILTER_GROUP_ROWS 1024
#define GS_FILTER_GROUP_WORDS (GS_FILTER_GROUP_ROWS / 32)

/* Threads per block of phase 1 on a fixed (range) predicate. */
#define GS_FILTER_P1_THREADS 256

/*
 * Threads per block of phase 1 running the stack interpreter.  Smaller,
 * because every thread keeps its evaluation stack in shared memory
 * (GS_MAX_STACK * 8 bytes per thread at worst: 32 KB with 128 threads,
 * under the 48 KB that needs no opt-in).
 */
#define GS_FILTER_INTERP_THREADS 128

/*
 * Threads per block of phase 3 (positions from ballot words): one warp per
 * group, so a block stages THREADS/32 groups' positions (4 KB each) in
 * shared memory before writing them out.
 */
#define GS_FILTER_P3_THREADS 256

/*
 * Grid caps, in full waves of resident blocks (0: one unit of work per
 * warp or block, no cap).  Phase 1 reads at copy bandwidth uncapped.
 * Phase 3 can run persistent (1) and prefetch the next tile, but on an
 * H200 that was 10-20% slower than one tile per block (2026-11-22).
 */
#define GS_FILTER_P1_WAVES 0
#define GS_FILTER_P3_WAVES 0

/*
 * Most distinct columns one program may reference: their device pointers
 * travel as a kernel parameter (16 bytes each, under the 4 KB classic
 * parameter limit).  src/ falls back to the CPU beyond this.
 */
#define GS_FILTER_MAX_REF_COLS 128

/*
 * 1: read column data with ld.global.cs (streaming, evict-first), since it
 * is read exactly once; 0: through the read-only cache (__ldg).
 */
#ifndef GS_FILTER_STREAMING_LOADS
#define GS_FILTER_STREAMING_LOADS 1
#endif

/*
 * Phase 3 groups whose words all have at most this many bits set are
 * done lane by lane (each lane walks its own word), denser ones word by
 * word for the whole warp.  Lane by lane, a warp's shared-memory stores
 * land about 32 * density words apart, so bank conflicts rise with
 * density: keep this low.
 */
#define GS_FILTER_P3_SPARSE_MAX 8

/* 1: write positions with st.global.cs (evict-first); 0: plain stores. */
#ifndef GS_FILTER_STREAMING_STORES
#define GS_FILTER_STREAMING_STORES 0
#endif

#endif							/* GPUSEL_FILTER_TUNING_CUH */
