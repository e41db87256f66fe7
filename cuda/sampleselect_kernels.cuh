/*
 * sampleselect_kernels.cuh
 *	  The kernels of SampleSelect (Ribizel & Anzt) over unsigned 32- and
 *	  64-bit keys, and the small device functions they are built from.
 *
 * One level of the recursion works on a set of segments, each a run of
 * keys in a level buffer whose wanted ranks lie inside it:
 *
 *   sample_kernel   one block per segment: draws kSampleSize keys, sorts
 *                   them, picks up to 255 bucket boundaries (equality
 *                   buckets for repeated values) and lays them out as an
 *                   implicit binary search tree.
 *   count_kernel    every key descends the tree to its bucket; the bucket
 *                   goes to an oracle byte and a shared-memory histogram;
 *                   each block writes its 256 bucket counts.
 *   reduce_kernel   per segment and bucket, the exclusive prefix of the
 *                   block counts (where each block writes) and the total.
 *   filter_kernel   copies the keys of the buckets that hold wanted ranks,
 *                   found through their oracle bytes, into the next level's
 *                   buffer.
 *   base_case_kernel  sorts a segment of at most kBaseCaseMax keys in one
 *                   block and reads the wanted ranks off it.
 *
 * The host driver (sampleselect.cu) sizes the launches, reads the bucket
 * totals back after each level and decides which buckets to keep.  The
 * warp and block primitives (prefix sums, lane masks, slots reserved per
 * peer group) come from warp_block.cuh.
 */
#ifndef GPUSEL_SAMPLESELECT_KERNELS_CUH
#define GPUSEL_SAMPLESELECT_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "select_tuning.cuh"
#include "warp_block.cuh"

namespace gs_select
{

using namespace gs_tuning;

constexpr unsigned kFullMask = GS_FULL_MASK;

/* A run of keys in a level buffer together with the wanted ranks it holds. */
struct SegmentDesc
{
	long long	offset;			/* first key, in keys from the buffer start */
	long long	size;			/* keys in the segment */
	long long	rank_base;		/* global rank of the segment's smallest key */
	int			block_begin;	/* first count/filter block of the segment */
	int			block_count;	/* blocks sharing its units round-robin */
	int			rank_first;		/* index of its first wanted rank */
	int			rank_count;		/* wanted ranks inside, ranks[rank_first..] */
};

/*
 * What the host reads back after a level, per segment, in one copy: the
 * bucket totals (from reduce_kernel) and the sorted boundaries (from
 * sample_kernel); bucket b holds the keys in [bounds[b-1], bounds[b]).
 */
template <typename KeyT>
struct LevelReadback
{
	unsigned long long totals[256];
	KeyT		bounds[256];
};

/* Per key type: the 16-byte vector a thread loads and the oracle store. */
template <typename KeyT> struct KeyTraits;

template <> struct KeyTraits<uint32_t>
{
	using Vec = uint4;
	using OracleVec = uint32_t;
	static constexpr int kVecKeys = 4;
};

template <> struct KeyTraits<uint64_t>
{
	using Vec = ulonglong2;
	using OracleVec = uint16_t;
	static constexpr int kVecKeys = 2;
};

/* The largest key of the type; pads trees and sort buffers. */
template <typename KeyT>
__host__ __device__ constexpr KeyT max_key()
{
	return static_cast<KeyT>(~static_cast<KeyT>(0));
}

/*
 * Position in the sorted boundary array of tree node node (1..kTreeNodes)
 * of a perfect binary search tree stored as a 1-based heap: node i has
 * children 2i and 2i+1, and an in-order walk visits the sorted boundaries.
 */
__host__ __device__ inline int tree_source_index(int node)
{
	int			level = 0;

	while (node >> (level + 1))
		++level;
	const int	pos = node - (1 << level);

	return ((2 * pos + 1) << (kTreeDepth - 1 - level)) - 1;
}

/* Bucket of key by a plain descent of the tree (1-based heap, tree[0]
 * unused): the number of boundaries <= key.  Reference for the tests. */
template <typename KeyT>
__host__ __device__ inline uint32_t classify_in_tree(KeyT key, const KeyT *tree)
{
	uint32_t	idx = 1;

	for (int level = 0; level < kTreeDepth; ++level)
		idx = 2 * idx + (key >= tree[idx] ? 1u : 0u);
	return idx - kBuckets;
}

/*
 * Descends the tree (1-based heap in shared memory) with key and returns
 * the byte offset of the leaf reached, (kBuckets + bucket) * sizeof(KeyT).
 * Stepping by byte offsets (off' = 2 off + (go right ? sizeof : 0)) keeps
 * each level at one shared load, one compare, one select and one shift-add.
 */
template <typename KeyT>
__device__ __forceinline__ uint32_t descend_tree(KeyT key, const char *tree_bytes)
{
	uint32_t	off = sizeof(KeyT);

#pragma unroll
	for (int level = 0; level < kTreeDepth; ++level)
	{
		const KeyT	node = *reinterpret_cast<const KeyT *>(tree_bytes + off);

		off = 2 * off + (key >= node ? (uint32_t) sizeof(KeyT) : 0u);
	}
	return off;
}

/* Key e of a 16-byte vector of four 32-bit keys. */
__device__ __forceinline__ uint32_t vec_key(const uint4 &v, int e)
{
	return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
}

/* Key e of a 16-byte vector of two 64-bit keys. */
__device__ __forceinline__ uint64_t vec_key(const ulonglong2 &v, int e)
{
	return e == 0 ? v.x : v.y;
}

/* Mixes a 64-bit value into a well-spread hash (splitmix64 finaliser). */
__host__ __device__ inline unsigned long long mix64(unsigned long long x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Pseudo-random position in [0, size) of sample key i of segment seg. */
__device__ __forceinline__ long long sample_position(unsigned long long seed, int seg,
													 int i, long long size)
{
	const unsigned long long h =
		mix64(seed + 0x9e3779b97f4a7c15ull * (unsigned long long) (seg + 1) +
			  0xd1b54a32d192ed03ull * (unsigned long long) i);

	/* the high half of h * size is uniform in [0, size) */
	return (long long) __umul64hi(h, (unsigned long long) size);
}

/* Puts a and b in ascending order when ascending, else in descending order. */
template <typename KeyT>
__device__ __forceinline__ void order_pair(KeyT &a, KeyT &b, bool ascending)
{
	const KeyT	lo = a < b ? a : b;
	const KeyT	hi = a < b ? b : a;

	a = ascending ? lo : hi;
	b = ascending ? hi : lo;
}

/*
 * Bitonic sort of n keys (a power of two, at least 32 * K), held K per
 * thread: thread t has positions t*K .. t*K+K-1 in v; threads with
 * t*K >= n hold none.  Every thread of the block calls it.  A stage whose
 * partners are less than K apart runs in registers, less than 32*K apart
 * through warp shuffles, and only the wider stages go through shared
 * memory (scratch, n keys) with block barriers: for 2048 keys that is 15
 * barriers instead of 66.
 */
template <typename KeyT, int K>
__device__ void block_bitonic_sort(KeyT (&v)[K], KeyT *scratch, int n)
{
	const int	t = threadIdx.x;
	const bool	active = t * K < n;

	for (int k = 2; k <= n; k <<= 1)
	{
		int			j = k >> 1;

		if (j >= 32 * K)
		{
			if (active)
			{
#pragma unroll
				for (int i = 0; i < K; ++i)
					scratch[t * K + i] = v[i];
			}
			__syncthreads();
			for (; j >= 32 * K; j >>= 1)
			{
				for (int p = t; p < (n >> 1); p += blockDim.x)
				{
					const int	lo = 2 * p - (p & (j - 1));
					KeyT		x = scratch[lo];
					KeyT		y = scratch[lo + j];

					order_pair(x, y, (lo & k) == 0);
					scratch[lo] = x;
					scratch[lo + j] = y;
				}
				__syncthreads();
			}
			if (active)
			{
#pragma unroll
				for (int i = 0; i < K; ++i)
					v[i] = scratch[t * K + i];
			}
		}
		if (!active)
			continue;
		/* partner in another lane of the same warp: lane ^ (j / K) */
		for (; j >= K; j >>= 1)
		{
#pragma unroll
			for (int i = 0; i < K; ++i)
			{
				const int	pos = t * K + i;
				const KeyT	other = __shfl_xor_sync(kFullMask, v[i], j / K);
				const bool	keep_low = ((pos & k) == 0) == ((pos & j) == 0);

				v[i] = keep_low ? (v[i] < other ? v[i] : other) : (v[i] < other ? other : v[i]);
			}
		}
		/* partner in the same thread: strides K/2 .. 1 that are below k;
		 * compile-time strides keep v in registers */
#pragma unroll
		for (int jj = K / 2; jj > 0; jj >>= 1)
		{
			if (jj < k)
			{
#pragma unroll
				for (int i = 0; i < K; ++i)
				{
					if ((i & jj) == 0)
						order_pair(v[i], v[i | jj], ((t * K + i) & k) == 0);
				}
			}
		}
	}
}

/*
 * Picks the sorted bucket boundaries from the sorted sample; run by one
 * full warp.  Candidate i (0..254) is the sample key at quantile (i+1)/256.
 * A value that fills two or more candidates is frequent: it gets the pair
 * of boundaries v, v+1, which makes [v, v+1) an equality bucket holding
 * only v, so a wanted rank there is answered without recursion.  Other
 * values get one boundary.  Unused slots are padded with the largest key,
 * which gives keys equal to it a bucket of their own (bucket 255).
 */
template <typename KeyT>
__device__ void choose_boundaries(const KeyT *sample, KeyT *bnd, int lane)
{
	constexpr int kPerLane = kBuckets / 32;
	constexpr int kStride = kSampleSize / kBuckets;
	KeyT		cand[kPerLane];
	uint32_t	emit[kPerLane];
	uint32_t	mine = 0;

#pragma unroll
	for (int k = 0; k < kPerLane; ++k)
	{
		const int	i = lane * kPerLane + k;

		emit[k] = 0;
		cand[k] = 0;
		if (i < kTreeNodes)
		{
			const KeyT	c = sample[(i + 1) * kStride];
			const bool	first = i == 0 || sample[i * kStride] != c;
			const bool	repeated = i + 1 < kTreeNodes && sample[(i + 2) * kStride] == c;

			cand[k] = c;
			if (first)
				emit[k] = (repeated && c != max_key<KeyT>()) ? 2 : 1;
		}
		mine += emit[k];
	}
	uint32_t	total;
	uint32_t	pos = gs_warp_exclusive_sum(mine, total);

#pragma unroll
	for (int k = 0; k < kPerLane; ++k)
	{
		if (emit[k] >= 1)
			bnd[pos] = cand[k];
		if (emit[k] == 2)
			bnd[pos + 1] = cand[k] + 1;
		pos += emit[k];
	}
	for (uint32_t j = total + lane; j < (uint32_t) kTreeNodes; j += 32)
		bnd[j] = max_key<KeyT>();
}

/* Index of the segment that count/filter block blk works on. */
__device__ __forceinline__ int find_segment(const SegmentDesc *segs, int nsegs, int blk)
{
	int			lo = 0;
	int			hi = nsegs - 1;

	while (lo < hi)
	{
		const int	mid = (lo + hi + 1) >> 1;

		if (segs[mid].block_begin <= blk)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Builds each segment's search tree (one block per segment): samples keys
 * at pseudo-random positions, sorts them, chooses boundaries.  trees gets
 * the boundaries as a 1-based heap for the classifier (kBuckets slots per
 * segment), readback the sorted boundaries for the host.
 */
template <typename KeyT>
__global__ void __launch_bounds__(kSampleThreads)
sample_kernel(const KeyT *__restrict__ keys, const SegmentDesc *__restrict__ segs,
			  unsigned long long seed, KeyT *__restrict__ trees,
			  LevelReadback<KeyT> *__restrict__ readback)
{
	constexpr int kPer = kSampleSize / kSampleThreads;
	__shared__ KeyT sample[kSampleSize];
	__shared__ KeyT bnd[kBuckets];
	const int	s = blockIdx.x;
	const int	t = threadIdx.x;
	const SegmentDesc seg = segs[s];
	KeyT		v[kPer];

	static_assert(kPer * kSampleThreads == kSampleSize, "the sample fills the block");
#pragma unroll
	for (int i = 0; i < kPer; ++i)
		v[i] = keys[seg.offset + sample_position(seed, s, t * kPer + i, seg.size)];
	block_bitonic_sort(v, sample, kSampleSize);
#pragma unroll
	for (int i = 0; i < kPer; ++i)
		sample[t * kPer + i] = v[i];
	__syncthreads();
	if (t < 32)
		choose_boundaries(sample, bnd, t);
	__syncthreads();
	for (int h = t; h < kBuckets; h += blockDim.x)
	{
		/* slot 0 of the heap is unused; fill it anyway */
		trees[(long long) s * kBuckets + h] = bnd[h == 0 ? 0 : tree_source_index(h)];
		readback[s].bounds[h] = bnd[h < kTreeNodes ? h : kTreeNodes - 1];
	}
}

/* Stores the packed oracle bytes of one key vector. */
template <typename KeyT>
__device__ __forceinline__ void store_oracles(uint8_t *dst, uint32_t packed)
{
	using OracleVec = typename KeyTraits<KeyT>::OracleVec;

	*reinterpret_cast<OracleVec *>(dst) = static_cast<OracleVec>(packed);
}

/*
 * Descends the tree with kN keys at once, kIlp of them interleaved level by
 * level, and leaves each key's leaf offset in off (see descend_tree).  The
 * interleaving gives every thread kIlp independent shared-memory loads in
 * flight, instead of one chain of kTreeDepth dependent ones.
 */
template <int kIlp, typename KeyT, int kN>
__device__ __forceinline__ void descend_tree_ilp(const KeyT (&key)[kN], uint32_t (&off)[kN],
												 const char *tree_bytes)
{
#pragma unroll
	for (int g = 0; g < kN; g += kIlp)
	{
#pragma unroll
		for (int i = 0; i < kIlp; ++i)
			off[g + i] = sizeof(KeyT);
#pragma unroll
		for (int level = 0; level < kTreeDepth; ++level)
		{
#pragma unroll
			for (int i = 0; i < kIlp; ++i)
			{
				const KeyT	node = *reinterpret_cast<const KeyT *>(tree_bytes + off[g + i]);

				off[g + i] = (off[g + i] << 1) | (key[g + i] >= node ? (uint32_t) sizeof(KeyT) : 0u);
			}
		}
	}
}

/*
 * Classifies every key of the block's units: writes its bucket as an oracle
 * byte and counts buckets in shared memory, then stores the block's 256
 * counts bucket-major (counts[b * total_blocks + blk]) for reduce_kernel.
 *
 * A segment is cut into units of kUnitKeys keys, dealt to its blocks
 * round-robin (the filter kernel deals them the same way), so a run of
 * kept keys, such as one bucket of sorted input, spreads over many blocks.
 * Keys are read as 16-byte vectors, striped over the block so that each
 * load instruction of a warp covers 512 contiguous bytes, all of a
 * thread's vectors before its first descent.  The histogram has kCopies
 * columns, bucket-major: with 32, every lane owns a column and a bank, so
 * no two lanes collide; with 1, lanes that hit one bucket are merged by the
 * hardware (ATOMS.POPC.INC) and only different buckets in one bank
 * conflict.
 */
template <typename KeyT, int kCopies, int kIlp>
__global__ void __launch_bounds__(kCountThreads)
count_kernel(const KeyT *__restrict__ keys, uint8_t *__restrict__ oracles,
			 const SegmentDesc *__restrict__ segs, int nsegs,
			 const KeyT *__restrict__ trees, uint32_t *__restrict__ counts,
			 int total_blocks)
{
	using Traits = KeyTraits<KeyT>;
	using Vec = typename Traits::Vec;
	constexpr int kVecKeys = Traits::kVecKeys;
	constexpr int kKeys = kCountKeysPerThread;
	constexpr int kVecs = kKeys / kVecKeys;
	constexpr int kTile = kCountThreads * kKeys;
	constexpr uint32_t kKeyShift = sizeof(KeyT) == 8 ? 3 : 2;

	static_assert(kUnitKeys % kTile == 0, "a unit is a whole number of tiles");
	static_assert(kKeys % kIlp == 0, "keys per thread come in groups of kIlp");

	__shared__ KeyT tree[kBuckets];
	__shared__ uint32_t hist[kBuckets * kCopies];

	const int	tid = threadIdx.x;
	const int	blk = blockIdx.x;
	const int	s = find_segment(segs, nsegs, blk);
	const SegmentDesc seg = segs[s];
	const long long nfull = seg.size / kUnitKeys;
	const int	mine = blk - seg.block_begin;
	/* hist[leaf * kCopies + col] is bucket (leaf - kBuckets)'s counter in this lane's column */
	const int	col = (tid & (kCopies - 1)) - kBuckets * kCopies;
	const char *tree_bytes = reinterpret_cast<const char *>(tree);

	for (int i = tid; i < kBuckets; i += kCountThreads)
		tree[i] = trees[(long long) s * kBuckets + i];
	for (int i = tid; i < kBuckets * kCopies; i += kCountThreads)
		hist[i] = 0;
	__syncthreads();

	for (long long u = mine; u < nfull; u += seg.block_count)
	{
#pragma unroll 1
		for (int tile = 0; tile < kUnitKeys / kTile; ++tile)
		{
			const long long t0 = seg.offset + u * kUnitKeys + (long long) tile * kTile;
			const Vec  *src = reinterpret_cast<const Vec *>(keys + t0);
			Vec			v[kVecs];
			KeyT		key[kKeys];
			uint32_t	off[kKeys];

#pragma unroll
			for (int k = 0; k < kVecs; ++k)
				v[k] = __ldcs(src + k * kCountThreads + tid);
#pragma unroll
			for (int k = 0; k < kVecs; ++k)
#pragma unroll
				for (int e = 0; e < kVecKeys; ++e)
					key[k * kVecKeys + e] = static_cast<KeyT>(vec_key(v[k], e));
			descend_tree_ilp<kIlp>(key, off, tree_bytes);
#pragma unroll
			for (int k = 0; k < kVecs; ++k)
			{
				uint32_t	packed = 0;

#pragma unroll
				for (int e = 0; e < kVecKeys; ++e)
				{
					const uint32_t leaf = off[k * kVecKeys + e] >> kKeyShift;

					atomicAdd(&hist[(int) leaf * kCopies + col], 1u);
					packed |= (leaf & 0xffu) << (8 * e);
				}
				store_oracles<KeyT>(oracles + t0 + (long long) (k * kCountThreads + tid) * kVecKeys,
									packed);
			}
		}
	}
	/* the segment's last unit, when partial, goes to the block next in turn */
	if (nfull % seg.block_count == mine)
	{
		for (long long i = seg.offset + nfull * kUnitKeys + tid; i < seg.offset + seg.size;
			 i += kCountThreads)
		{
			const uint32_t leaf = descend_tree(keys[i], tree_bytes) >> kKeyShift;

			atomicAdd(&hist[(int) leaf * kCopies + col], 1u);
			oracles[i] = static_cast<uint8_t>(leaf & 0xffu);
		}
	}
	__syncthreads();

	for (int b = tid; b < kBuckets; b += kCountThreads)
	{
		uint32_t	sum = 0;

		/* start each thread at a different column: no bank conflicts */
#pragma unroll 8
		for (int c = 0; c < kCopies; ++c)
			sum += hist[b * kCopies + ((c + b) & (kCopies - 1))];
		counts[(long long) b * total_blocks + blk] = sum;
	}
}

/*
 * For one bucket (blockIdx.x) of one segment (blockIdx.y): replaces the
 * segment's block counts by where each block's keys of that bucket start
 * (exclusive prefix, into prefix[]) and writes the bucket's total.
 */
template <typename KeyT>
__global__ void __launch_bounds__(kReduceThreads)
reduce_kernel(const uint32_t *__restrict__ counts, unsigned long long *__restrict__ prefix,
			  LevelReadback<KeyT> *__restrict__ readback,
			  const SegmentDesc *__restrict__ segs, int total_blocks)
{
	constexpr int kItems = kReduceItemsPerThread;
	constexpr int kStep = kReduceThreads * kItems;
	__shared__ unsigned long long scratch[GS_WARP_SIZE + 1];
	const int	b = blockIdx.x;
	const int	s = blockIdx.y;
	const SegmentDesc seg = segs[s];
	const long long row = (long long) b * total_blocks + seg.block_begin;
	unsigned long long carry = 0;

	for (int base = 0; base < seg.block_count; base += kStep)
	{
		const int	first = base + threadIdx.x * kItems;
		uint32_t	c[kItems];
		unsigned long long sum = 0;
		unsigned long long step_total;

#pragma unroll
		for (int k = 0; k < kItems; ++k)
		{
			c[k] = first + k < seg.block_count ? counts[row + first + k] : 0;
			sum += c[k];
		}
		unsigned long long at = gs_block_exclusive_sum(sum, scratch, &step_total) + carry;

#pragma unroll
		for (int k = 0; k < kItems; ++k)
		{
			if (first + k < seg.block_count)
				prefix[row + first + k] = at;
			at += c[k];
		}
		carry += step_total;
	}
	if (threadIdx.x == 0)
		readback[s].totals[b] = carry;
}

/*
 * Bit 7 of each byte of w that equals the byte-replicated target t, 0
 * elsewhere.  Exact per byte: adding 0x7f to the low seven bits of a byte
 * never carries into the next one.
 */
__device__ __forceinline__ uint32_t match_bytes(uint32_t w, uint32_t t)
{
	const uint32_t x = w ^ t;

	return ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) & 0x80808080u;
}

/* Writes key idx, of kept bucket b, to its slot in out. */
template <typename KeyT>
__device__ __forceinline__ void emit_key(uint32_t b, long long idx, const KeyT *__restrict__ keys,
										 const long long *base, uint32_t *ctr,
										 KeyT *__restrict__ out)
{
	const uint32_t slot = atomicAdd(&ctr[b], 1u);

	out[base[b] + slot] = keys[idx];
}

/*
 * Writes every key whose bit is set in m (bit j: oracle byte j of this
 * thread's 16, whose buckets are in lo and hi) to its slot in out, one key
 * per lane per round.  Lanes of a round that write the same bucket are
 * found with __match_any_sync and take their slots with one atomic by
 * their first lane: a warp spends one atomic per bucket and round instead
 * of one per key.  Every lane of the warp must call it.
 */
template <typename KeyT>
__device__ __forceinline__ void emit_keys_aggregated(uint32_t m, unsigned long long lo,
													 unsigned long long hi, long long first,
													 const KeyT *__restrict__ keys,
													 const long long *base, uint32_t *ctr,
													 KeyT *__restrict__ out)
{
	for (;;)
	{
		const bool	has = m != 0;
		const unsigned act = __ballot_sync(kFullMask, has);

		if (act == 0)
			break;
		if (has)
		{
			const int	j = __ffs(m) - 1;

			m &= m - 1;
			const uint32_t b = (uint32_t) ((j < 8 ? lo >> (8 * j) : hi >> (8 * (j - 8))) & 0xffu);
			const unsigned peers = __match_any_sync(act, b);

			out[base[b] + gs_peers_reserve(peers, &ctr[b])] = keys[first + j];
		}
	}
}

/* Shared tables of filter_block. */
struct FilterShared
{
	long long	base[kBuckets];	/* where this block's keys of bucket b start in out, or -1 */
	uint32_t	ctr[kBuckets];	/* keys of bucket b written so far */
	uint32_t	kept_bits[kBuckets / 32];
	uint32_t	targets[kFilterMaxTargets];	/* kept buckets, byte-replicated */
};

/*
 * Copies the keys of kept buckets of count block blk into the next level's
 * buffer.  Reads the oracle bytes of blk's units (the units count_kernel
 * gave blk: its prefix offsets hold only for them), 16 per thread and
 * kFilterUnitsInFlight units at a time, and touches a key only when its
 * bucket is kept, so a level reads n bytes of oracles plus the kept keys
 * instead of all keys again.  When at most kFilterMaxTargets buckets are
 * kept, each 4 oracle bytes are matched against them at once (SWAR);
 * otherwise byte by byte against the kept-bucket bitmap.  Each thread then
 * walks only its kept keys: with kAggregate, warp-wide rounds that take one
 * atomic per bucket (emit_keys_aggregated); without, one shared-memory
 * atomic per key, which is cheapest when kept keys come in runs (sorted
 * input) but serialises on the counter when they are scattered.  dest[s *
 * kBuckets + b] is where
 * bucket b of segment s goes in out, or -1 when it is not kept.  The whole
 * block calls it; it returns early only for the whole block.
 */
template <typename KeyT, bool kAggregate>
__device__ void filter_block(int blk, const KeyT *__restrict__ keys,
							 const uint8_t *__restrict__ oracles,
							 const SegmentDesc *__restrict__ segs, int nsegs,
							 const long long *__restrict__ dest,
							 const unsigned long long *__restrict__ prefix, int total_blocks,
							 KeyT *__restrict__ out, FilterShared &sh)
{
	constexpr int kPer = kUnitKeys / kFilterThreads;
	constexpr int kAhead = kFilterUnitsInFlight;
	long long  *base = sh.base;
	uint32_t   *ctr = sh.ctr;
	uint32_t   *kept_bits = sh.kept_bits;
	uint32_t   *targets = sh.targets;

	static_assert(kPer == 16, "one 16-byte load of oracles per thread and unit");
	static_assert(kFilterThreads == kBuckets, "one thread per bucket sets up the tables");

	const int	tid = threadIdx.x;
	const int	lane = gs_lane_id();
	const int	s = find_segment(segs, nsegs, blk);
	const SegmentDesc seg = segs[s];
	const long long nfull = seg.size / kUnitKeys;
	const int	mine = blk - seg.block_begin;
	const long long *seg_dest = dest + (long long) s * kBuckets;
	bool		kept_here = false;

	for (int b = tid; b < kBuckets; b += kFilterThreads)
	{
		const long long d = seg_dest[b];

		kept_here = d >= 0;
		base[b] = d < 0 ? -1 : d + (long long) prefix[(long long) b * total_blocks + blk];
		ctr[b] = 0;
		const unsigned bits = __ballot_sync(kFullMask, kept_here);

		if (lane == 0)
			kept_bits[b >> 5] = bits;
	}
	__syncthreads();

	int			nkept = 0;

#pragma unroll
	for (int w = 0; w < kBuckets / 32; ++w)
		nkept += __popc(kept_bits[w]);
	if (nkept == 0)
		return;					/* the same answer for the whole block */
	/* the kept buckets, each byte-replicated, when they are few */
	if (tid < kBuckets && kept_here && nkept <= kFilterMaxTargets)
	{
		int			index = __popc(kept_bits[tid >> 5] & gs_lanemask_lt());

		for (int w = 0; w < (tid >> 5); ++w)
			index += __popc(kept_bits[w]);
		targets[index] = (uint32_t) tid * 0x01010101u;
	}
	__syncthreads();

	for (long long u0 = mine; u0 < nfull; u0 += (long long) kAhead * seg.block_count)
	{
		uint4		o[kAhead];

		/* all loads first: kAhead * 16 bytes in flight per thread */
#pragma unroll
		for (int q = 0; q < kAhead; ++q)
		{
			const long long u = u0 + (long long) q * seg.block_count;

			if (u < nfull)
				o[q] = __ldcs(reinterpret_cast<const uint4 *>(oracles + seg.offset + u * kUnitKeys) + tid);
		}
#pragma unroll
		for (int q = 0; q < kAhead; ++q)
		{
			const long long u = u0 + (long long) q * seg.block_count;

			if (u >= nfull)
				break;			/* the same for the whole block */
			const uint32_t words[4] = {o[q].x, o[q].y, o[q].z, o[q].w};
			const long long first = seg.offset + u * kUnitKeys + (long long) tid * kPer;
			uint32_t	hit[4] = {0, 0, 0, 0};

			/* hit: bit 7 of each oracle byte whose bucket is kept */
			if (nkept <= kFilterMaxTargets)
			{
				for (int i = 0; i < nkept; ++i)
				{
					const uint32_t t = targets[i];

#pragma unroll
					for (int w = 0; w < 4; ++w)
						hit[w] |= match_bytes(words[w], t);
				}
			}
			else
			{
#pragma unroll
				for (int j = 0; j < kPer; ++j)
				{
					const uint32_t b = (words[j >> 2] >> (8 * (j & 3))) & 0xffu;

					hit[j >> 2] |= ((kept_bits[b >> 5] >> (b & 31)) & 1u) << (8 * (j & 3) + 7);
				}
			}
			if (kAggregate)
			{
				uint32_t	m = 0;

				/* bit 7 of each byte -> bit j of a 16-bit mask (multiply gathers 4 bits) */
#pragma unroll
				for (int w = 0; w < 4; ++w)
					m |= ((((hit[w] >> 7) * 0x00204081u) >> 21) & 0xfu) << (4 * w);
				emit_keys_aggregated(m, (unsigned long long) words[0] | ((unsigned long long) words[1] << 32),
									 (unsigned long long) words[2] | ((unsigned long long) words[3] << 32),
									 first, keys, base, ctr, out);
			}
			else
			{
#pragma unroll
				for (int w = 0; w < 4; ++w)
				{
					uint32_t	bits = hit[w];

					while (bits != 0)
					{
						const int	bit = __ffs(bits) - 1;

						bits &= bits - 1;
						emit_key((words[w] >> (bit - 7)) & 0xffu, first + w * 4 + (bit >> 3), keys,
								 base, ctr, out);
					}
				}
			}
		}
	}
	/* the segment's last unit, when partial */
	if (nfull % seg.block_count == mine)
	{
		for (long long i = seg.offset + nfull * kUnitKeys + tid; i < seg.offset + seg.size;
			 i += kFilterThreads)
		{
			const uint32_t b = oracles[i];

			if ((kept_bits[b >> 5] >> (b & 31)) & 1u)
				emit_key(b, i, keys, base, ctr, out);
		}
	}
}

/*
 * The filter over all count blocks of a level: each filter block takes the
 * work of count blocks blockIdx.x, + gridDim.x, ..., so its grid can be
 * sized for the filter's own occupancy.  kAggregate picks how kept keys
 * take their slots (see filter_block).
 */
template <typename KeyT, bool kAggregate>
__global__ void __launch_bounds__(kFilterThreads, kFilterMinBlocks)
filter_kernel(const KeyT *__restrict__ keys, const uint8_t *__restrict__ oracles,
			  const SegmentDesc *__restrict__ segs, int nsegs,
			  const long long *__restrict__ dest,
			  const unsigned long long *__restrict__ prefix, int total_blocks,
			  KeyT *__restrict__ out)
{
	__shared__ FilterShared sh;

	for (int blk = blockIdx.x; blk < total_blocks; blk += gridDim.x)
	{
		/* the previous count block's tables are no longer read */
		__syncthreads();
		filter_block<KeyT, kAggregate>(blk, keys, oracles, segs, nsegs, dest, prefix, total_blocks,
									   out, sh);
	}
}

/*
 * Finishes a segment of at most kBaseCaseMax keys (one block each): sorts
 * it, padded with the largest key to a power of two (at least 32 * 4),
 * four keys per thread, and writes the keys at its wanted ranks to
 * results[rank index].
 */
template <typename KeyT>
__global__ void __launch_bounds__(kBaseThreads)
base_case_kernel(const KeyT *__restrict__ keys, const SegmentDesc *__restrict__ segs,
				 const long long *__restrict__ ranks, KeyT *__restrict__ results)
{
	constexpr int kPer = 4;
	__shared__ KeyT buf[kBaseCaseMax];
	const SegmentDesc seg = segs[blockIdx.x];
	const int	t = threadIdx.x;
	const int	n = (int) seg.size;
	int			p = 32 * kPer;
	KeyT		v[kPer];

	static_assert(kBaseCaseMax <= kPer * kBaseThreads, "base case fits the block");
	while (p < n)
		p <<= 1;
#pragma unroll
	for (int i = 0; i < kPer; ++i)
	{
		const int	pos = t * kPer + i;

		v[i] = pos < n ? keys[seg.offset + pos] : max_key<KeyT>();
	}
	block_bitonic_sort(v, buf, p);
	if (t * kPer < p)
	{
#pragma unroll
		for (int i = 0; i < kPer; ++i)
			buf[t * kPer + i] = v[i];
	}
	__syncthreads();
	for (int r = t; r < seg.rank_count; r += blockDim.x)
	{
		const int	idx = seg.rank_first + r;

		results[idx] = buf[ranks[idx] - seg.rank_base];
	}
}

} /* namespace gs_select */

#endif							/* GPUSEL_SAMPLESELECT_KERNELS_CUH */
