/*
 * select_tuning.cuh
 *	  Every tuning constant of gpusel's SampleSelect in one place.  The
 *	  kernels and the host driver read them from here; nothing else in
 *	  cuda/ hard-codes a bucket count, a block size or a sample size.
 */
#ifndef GPUSEL_SELECT_TUNING_CUH
#define GPUSEL_SELECT_TUNING_CUH

namespace gs_tuning
{

/* Buckets per level.  One oracle byte per key limits this to 256. */
constexpr int kBuckets = 256;

/* Boundaries in the search tree: a perfect binary tree over the buckets. */
constexpr int kTreeNodes = kBuckets - 1;

/* Levels of the search tree (log2 of kBuckets). */
constexpr int kTreeDepth = 8;

/*
 * Keys drawn per segment to choose splitters.  2048 gives each of the 255
 * candidate splitters 8 sample keys, so a bucket rarely exceeds twice its
 * share, and the sample still sorts in one block in a few microseconds.
 */
constexpr int kSampleSize = 2048;
constexpr int kSampleThreads = 1024;

/* Count kernel: threads per block and keys per thread per tile. */
constexpr int kCountThreads = 256;
constexpr int kCountKeysPerThread = 8;

/*
 * Keys whose tree descents a count-kernel thread interleaves (a divisor of
 * kCountKeysPerThread): independent shared-memory loads in flight.
 */
constexpr int kCountIlp = 8;

/*
 * Copies of the bucket histogram in the count kernel's shared memory.  With
 * 32 copies every lane owns a column, so concurrent increments of one
 * bucket (all-equal or sorted input) never collide on a bank or an address.
 * Measured on an H200 (select_bench --variants): 1 copy was 0-10% faster
 * (the hardware merges same-address increments, and 6 KB less shared
 * memory per block raises occupancy), but only 32 has been through the
 * whole test suite; run select_test --count-variant 1 before switching.
 */
constexpr int kHistCopies = 32;

/*
 * Count and filter kernels deal each segment to its blocks in units of
 * this many keys, round-robin.  The filter reads a unit's oracles with one
 * 16-byte load per thread.
 */
constexpr int kUnitKeys = 4096;

/* Filter kernel: threads per block (kUnitKeys / 16) and units in flight. */
constexpr int kFilterThreads = 256;
constexpr int kFilterUnitsInFlight = 4;

/*
 * Filter blocks per SM that the register budget must allow.  The filter
 * grid is sized from its own occupancy (each filter block takes several
 * count blocks' units), and 4 blocks of 256 threads with 4 units of
 * oracles in flight per thread keep 64 KB per SM in flight.
 */
constexpr int kFilterMinBlocks = 4;

/*
 * Up to this many kept buckets, the filter matches 4 oracle bytes at a time
 * against each (about 5 instructions per bucket and word); beyond, a
 * bitmap lookup per byte is cheaper.
 */
constexpr int kFilterMaxTargets = 4;

/* Each segment of a level buffer starts at a multiple of this (keys), so
 * 16-byte vector loads of keys and oracles stay aligned. */
constexpr int kSegmentAlign = 32;

/* Reduce kernel: threads per block and block counts per thread per step. */
constexpr int kReduceThreads = 256;
constexpr int kReduceItemsPerThread = 4;

/* Segments at most this long are finished by sorting them in one block. */
constexpr int kBaseCaseMax = 4096;
constexpr int kBaseThreads = 1024;

/* Ranks handled by one pass; larger requests run in groups of this many. */
constexpr int kMaxRanksPerPass = 1024;

/*
 * Capacity of each of the two level buffers, as a fraction of n (1/16):
 * one rank keeps about n/200 keys after the first level, nine ranks about
 * n/25.  A level that keeps more allocates a larger buffer on the spot.
 */
constexpr int kLevelBufferShift = 4;
constexpr long long kLevelBufferMin = 1 << 16;

} /* namespace gs_tuning */

#endif /* GPUSEL_SELECT_TUNING_CUH */
