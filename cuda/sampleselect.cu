/*
 * sampleselect.cu
 *	  Exact multiselection on the GPU with SampleSelect (Ribizel & Anzt):
 *	  the host driver of the kernels in sampleselect_kernels.cuh, the
 *	  device-pointer entry point gs_select_device() and the C ABI function
 *	  gs_select_keys().
 *
 * One pass handles up to kMaxRanksPerPass ranks.  Level by level it keeps a
 * list of segments (runs of keys that hold wanted ranks):
 *   - segments of at most kBaseCaseMax keys are sorted in one block each;
 *   - for the others: sample and build trees, count buckets (oracle bytes),
 *     prefix the block counts, copy the bucket totals to the host;
 *   - the host walks each segment's buckets with its ranks: a rank in a
 *     bucket that holds a single value is answered at once (equality
 *     buckets, and the bucket of the largest key); other buckets with ranks
 *     become the next level's segments, which the filter kernel extracts
 *     into the other of two level buffers.
 * All ranks of a pass move through a level together, so a level costs one
 * launch of each kernel and one device-to-host synchronisation.
 */
#include <cuda_runtime.h>

#include <atomic>

#include <stdlib.h>
#include <string.h>

#include "gpusel_cuda.h"
#include "gs_internal.cuh"
#include "sampleselect.cuh"
#include "sampleselect_kernels.cuh"

using namespace gs_select;

namespace
{

/* Seed of the sample positions; fixed, so runs are reproducible. */
constexpr unsigned long long kSampleSeed = 0x67707573656c3031ull;

/* No input should need more levels than this (each level shrinks segments
 * strictly); reaching it means a bug, reported instead of looping. */
constexpr int kMaxLevels = 64;

/* Rounds v up to a multiple of m. */
inline long long round_up(long long v, long long m)
{
	return (v + m - 1) / m * m;
}

/*
 * Page-locked host memory for the small copies of every level (segment
 * tables, bucket destinations, the readback), kept from one call to the
 * next: allocating page-locked memory costs far more than a selection
 * level, and copies from pageable memory are slower and synchronous.  It
 * grows to the largest request and lives as long as the process.  A call
 * that finds it in use (another thread) falls back to malloc.
 */
void	   *g_staging = NULL;
size_t		g_staging_bytes = 0;
std::atomic<bool> g_staging_busy(false);

/* Smallest staging allocation, so that most calls never grow it. */
constexpr size_t kStagingMinBytes = 256 * 1024;

/* Hands out bytes of host staging; *pinned says which kind it is. */
void	   *staging_acquire(size_t bytes, bool *pinned)
{
	*pinned = false;
	if (!g_staging_busy.exchange(true))
	{
		if (g_staging_bytes < bytes)
		{
			size_t		want = bytes < kStagingMinBytes ? kStagingMinBytes : bytes;

			/*
			 * the process's own cache, never shared with another process: not
			 * gs_pinned_alloc, whose blocks may belong to one client of the
			 * GPU service and go with it
			 */
			if (g_staging != NULL)
				(void) cudaFreeHost(g_staging);
			g_staging = NULL;
			g_staging_bytes = 0;
			if (cudaHostAlloc(&g_staging, want, cudaHostAllocPortable) == cudaSuccess)
				g_staging_bytes = want;
			else
			{
				g_staging = NULL;
				(void) cudaGetLastError();
			}
		}
		if (g_staging != NULL)
		{
			*pinned = true;
			return g_staging;
		}
		g_staging_busy.store(false);
	}
	return malloc(bytes);
}

/* Gives back what staging_acquire handed out. */
void staging_release(void *ptr, bool pinned)
{
	if (pinned)
		g_staging_busy.store(false);
	else
		free(ptr);
}

/* Events a timed selection may record (two per timed phase). */
constexpr int kMaxTimerEvents = 512;

/* Byte offsets of the workspace's parts, each 256-byte aligned. */
struct WorkspaceLayout
{
	size_t		oracles, counts, prefix, readback, trees, dest;
	size_t		segs_level, segs_base, ranks, results, buf0, buf1, total;
	int			max_blocks;		/* count/filter blocks in one level */
	int			max_segs;		/* segments in one level */
	long long	level_cap;		/* keys in each level buffer */
};

/* Appends a part of bytes to the layout and returns its offset. */
size_t take(size_t *at, size_t bytes)
{
	const size_t off = *at;

	*at += (size_t) round_up((long long) bytes, 256);
	return off;
}

/* Multiprocessors of the current device. */
gs_status device_sm_count(int *sms, char *errbuf, size_t errlen)
{
	int			dev = 0;
	cudaError_t err = cudaGetDevice(&dev);

	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "querying the device", errbuf, errlen);
	return GS_OK;
}

/* Workspace layout for n keys of key_bytes and nranks ranks on sms SMs. */
WorkspaceLayout plan_workspace(int key_bytes, long long n, int nranks, int sms)
{
	WorkspaceLayout w;
	size_t		at = 0;
	const int	max_segs = nranks < kMaxRanksPerPass ? nranks : kMaxRanksPerPass;
	/* 2048 threads per SM at most, so no more than this many resident blocks */
	const int	max_blocks = sms * (2048 / kCountThreads) + max_segs;
	long long	cap = (n >> kLevelBufferShift) + kLevelBufferMin;

	if (cap > n + kSegmentAlign * (long long) max_segs)
		cap = n + kSegmentAlign * (long long) max_segs;
	w.max_segs = max_segs;
	w.max_blocks = max_blocks;
	w.level_cap = cap;
	w.oracles = take(&at, (size_t) n);
	w.counts = take(&at, sizeof(uint32_t) * kBuckets * (size_t) max_blocks);
	w.prefix = take(&at, sizeof(unsigned long long) * kBuckets * (size_t) max_blocks);
	w.readback = take(&at, (sizeof(unsigned long long) + (size_t) key_bytes) * kBuckets * max_segs);
	w.trees = take(&at, (size_t) key_bytes * kBuckets * max_segs);
	w.dest = take(&at, sizeof(long long) * kBuckets * (size_t) max_segs);
	w.segs_level = take(&at, sizeof(SegmentDesc) * (size_t) max_segs);
	w.segs_base = take(&at, sizeof(SegmentDesc) * (size_t) max_segs);
	w.ranks = take(&at, sizeof(long long) * (size_t) max_segs);
	w.results = take(&at, (size_t) key_bytes * max_segs);
	w.buf0 = take(&at, (size_t) key_bytes * cap);
	w.buf1 = take(&at, (size_t) key_bytes * cap);
	w.total = at;
	return w;
}

/* Options in force when a call passes none (gs_select_set_defaults). */
gs_select_options g_default_options;

/* The filter kernel variant that options ask for (0: warp-aggregated slots). */
template <typename KeyT>
auto filter_kernel_for(int variant)
{
	return variant == 1 ? &filter_kernel<KeyT, false> : &filter_kernel<KeyT, true>;
}

/* The count kernel variant that options ask for. */
template <typename KeyT>
auto count_kernel_for(int variant)
{
	switch (variant)
	{
		case 1:
			return &count_kernel<KeyT, 1, kCountIlp>;
		case 2:
			return &count_kernel<KeyT, kHistCopies, kCountIlp / 2>;
		case 3:
			return &count_kernel<KeyT, 1, kCountIlp / 2>;
		default:
			return &count_kernel<KeyT, kHistCopies, kCountIlp>;
	}
}

/* State of one selection: device pointers into the workspace, host mirrors. */
template <typename KeyT>
struct Selection
{
	/* device */
	const KeyT *input;
	long long	n;
	uint8_t    *oracles;
	uint32_t   *counts;
	unsigned long long *prefix;
	LevelReadback<KeyT> *readback;
	KeyT	   *trees;
	long long  *dest;
	SegmentDesc *segs_level;
	SegmentDesc *segs_base;
	long long  *ranks;
	KeyT	   *results;
	KeyT	   *buf[2];
	long long	cap[2];
	void	   *owned[2];		/* buffers allocated beyond the workspace */
	cudaStream_t stream;
	int			target_blocks;	/* count blocks resident at once */
	int			filter_blocks;	/* filter blocks resident at once */
	int			variant;		/* count kernel variant */
	int			filter_variant;

	/* host, max_segs entries or max_segs * kBuckets; all but the last three
	 * in the staging memory */
	int			max_segs;
	void	   *staging;
	bool		staging_pinned;
	SegmentDesc *h_cur;
	SegmentDesc *h_next;
	SegmentDesc *h_small;
	LevelReadback<KeyT> *h_readback;
	long long  *h_dest;
	KeyT	   *h_results;		/* answers found on the host */
	KeyT	   *h_dev_results;	/* answers from base_case_kernel */
	unsigned char *h_resolved;	/* 1 where h_results holds the answer */

	const volatile int *cancel;
	gs_select_stats *stats;
	char	   *errbuf;
	size_t		errlen;

	/* phase timing (options->collect_timing): event pairs and their phases */
	bool		timing;
	int			nevents;
	cudaEvent_t events[kMaxTimerEvents];
	int			event_phase[kMaxTimerEvents / 2];
};

/* Starts timing phase on the stream; returns the pair's index or -1. */
template <typename KeyT>
int phase_begin(Selection<KeyT> &sel, int phase)
{
	const int	i = sel.nevents;

	if (!sel.timing || i + 2 > kMaxTimerEvents)
		return -1;
	if (cudaEventCreate(&sel.events[i]) != cudaSuccess)
		return -1;
	if (cudaEventCreate(&sel.events[i + 1]) != cudaSuccess)
	{
		cudaEventDestroy(sel.events[i]);
		return -1;
	}
	sel.nevents = i + 2;
	sel.event_phase[i / 2] = phase;
	cudaEventRecord(sel.events[i], sel.stream);
	return i;
}

/* Ends the phase that phase_begin started. */
template <typename KeyT>
void phase_end(Selection<KeyT> &sel, int i)
{
	if (i >= 0)
		cudaEventRecord(sel.events[i + 1], sel.stream);
}

/* Adds the recorded phases to stats (the stream must be idle) and frees the events. */
template <typename KeyT>
void phase_collect(Selection<KeyT> &sel)
{
	for (int i = 0; i + 1 < sel.nevents; i += 2)
	{
		float		ms = 0;

		if (sel.stats && cudaEventElapsedTime(&ms, sel.events[i], sel.events[i + 1]) == cudaSuccess)
			sel.stats->phase_ms[sel.event_phase[i / 2]] += ms;
		cudaEventDestroy(sel.events[i]);
		cudaEventDestroy(sel.events[i + 1]);
	}
	sel.nevents = 0;
	(void) cudaGetLastError();
}

#define GS_CUDA_TRY(sel, expr, what) \
	do { \
		cudaError_t gs_err_ = (expr); \
		if (gs_err_ != cudaSuccess) \
			return gs_status_from_cuda(gs_err_, (what), (sel).errbuf, (sel).errlen); \
	} while (0)

/* GS_INTERRUPTED once *cancel is set, else GS_OK. */
template <typename KeyT>
gs_status poll_cancel(const Selection<KeyT> &sel)
{
	if (sel.cancel != NULL && *sel.cancel != 0)
	{
		gs_format_error(sel.errbuf, sel.errlen, "selection interrupted");
		return GS_INTERRUPTED;
	}
	return GS_OK;
}

/*
 * Reports whether bucket b (bounded by the sorted boundaries bnd) can hold
 * one value only, and which: its range [bnd[b-1], bnd[b]) has width one,
 * or it is the last bucket and starts at the largest key.
 */
template <typename KeyT>
bool bucket_single_value(const KeyT *bnd, int b, KeyT *value)
{
	const KeyT	lo = b == 0 ? KeyT(0) : bnd[b - 1];

	*value = lo;
	if (b == kBuckets - 1)
		return lo == max_key<KeyT>();
	return bnd[b] > lo && bnd[b] - lo == 1;
}

/* Makes level buffer slot hold at least need keys, allocating if it must. */
template <typename KeyT>
gs_status ensure_level_buffer(Selection<KeyT> &sel, int slot, long long need)
{
	void	   *p = NULL;

	if (need <= sel.cap[slot])
		return GS_OK;
	if (sel.owned[slot] != NULL)
	{
		/* gs_dev_free waits for the device; nothing reads this buffer now */
		(void) gs_dev_free(sel.owned[slot]);
		sel.owned[slot] = NULL;
		sel.buf[slot] = NULL;
		sel.cap[slot] = 0;
	}
	GS_CUDA_TRY(sel, gs_dev_malloc(&p, sizeof(KeyT) * (size_t) need),
				"allocating a level buffer");
	sel.owned[slot] = p;
	sel.buf[slot] = static_cast<KeyT *>(p);
	sel.cap[slot] = need;
	if (sel.stats)
		sel.stats->buffer_grows++;
	return GS_OK;
}

/* Sorts the small segments h_small[0..nsmall) of src in one block each. */
template <typename KeyT>
gs_status launch_base_cases(Selection<KeyT> &sel, const KeyT *src, int nsmall)
{
	int			t;

	GS_CUDA_TRY(sel, cudaMemcpyAsync(sel.segs_base, sel.h_small, sizeof(SegmentDesc) * nsmall,
									 cudaMemcpyHostToDevice, sel.stream),
				"copying base-case segments");
	t = phase_begin(sel, GS_PHASE_BASE);
	base_case_kernel<KeyT><<<nsmall, kBaseThreads, 0, sel.stream>>>(src, sel.segs_base,
																   sel.ranks, sel.results);
	phase_end(sel, t);
	GS_CUDA_TRY(sel, cudaGetLastError(), "launching the base-case kernel");
	if (sel.stats)
		sel.stats->base_segments += nsmall;
	return GS_OK;
}

/*
 * Gives each of h_cur[0..nlarge) a share of about target_blocks count and
 * filter blocks, in proportion to its size (at least one, at most one per
 * unit of kUnitKeys keys), and returns the number of blocks.
 */
template <typename KeyT>
int assign_blocks(Selection<KeyT> &sel, int nlarge)
{
	long long	total = 0;
	int			blocks = 0;

	for (int s = 0; s < nlarge; ++s)
		total += sel.h_cur[s].size;
	for (int s = 0; s < nlarge; ++s)
	{
		SegmentDesc *seg = &sel.h_cur[s];
		const long long units = (seg->size + kUnitKeys - 1) / kUnitKeys;
		long long	share = (long long) ((double) sel.target_blocks * (double) seg->size / (double) total);

		if (share < 1)
			share = 1;
		if (share > units)
			share = units;
		seg->block_begin = blocks;
		seg->block_count = (int) share;
		blocks += (int) share;
	}
	return blocks;
}

/*
 * Walks the buckets of the level's segments with their ranks.  Answers the
 * ranks that fall into single-value buckets, turns the other buckets with
 * ranks into h_next[] (packed from offset 0, each aligned to
 * kSegmentAlign), fills h_dest, and returns the keys the next level needs.
 */
template <typename KeyT>
gs_status route_ranks(Selection<KeyT> &sel, const long long *ranks, int nlarge,
					  int *nnext, long long *next_keys)
{
	long long	fill = 0;
	int			count = 0;

	for (int s = 0; s < nlarge; ++s)
	{
		const SegmentDesc *seg = &sel.h_cur[s];
		const unsigned long long *tot = sel.h_readback[s].totals;
		const KeyT *bnd = sel.h_readback[s].bounds;
		long long  *dst = sel.h_dest + (size_t) s * kBuckets;
		const int	rend = seg->rank_first + seg->rank_count;
		int			r = seg->rank_first;
		long long	cum = 0;

		for (int b = 0; b < kBuckets; ++b)
		{
			const long long cnt = (long long) tot[b];

			dst[b] = -1;
			if (r < rend && ranks[r] - seg->rank_base < cum + cnt)
			{
				const int	rfirst = r;
				KeyT		value;

				while (r < rend && ranks[r] - seg->rank_base < cum + cnt)
					++r;
				if (bucket_single_value(bnd, b, &value))
				{
					for (int q = rfirst; q < r; ++q)
					{
						sel.h_results[q] = value;
						sel.h_resolved[q] = 1;
					}
				}
				else
				{
					SegmentDesc *next = &sel.h_next[count++];

					fill = round_up(fill, kSegmentAlign);
					memset(next, 0, sizeof(*next));
					next->offset = fill;
					next->size = cnt;
					next->rank_base = seg->rank_base + cum;
					next->rank_first = rfirst;
					next->rank_count = r - rfirst;
					dst[b] = fill;
					fill += cnt;
				}
			}
			cum += cnt;
		}
		if (cum != seg->size || r != rend)
		{
			gs_format_error(sel.errbuf, sel.errlen,
							"internal error in SampleSelect: bucket counts add up to %lld of %lld keys",
							cum, seg->size);
			return GS_CUDA_ERROR;
		}
	}
	*nnext = count;
	*next_keys = fill;
	return GS_OK;
}

/*
 * Runs one level over the large segments h_cur[0..nlarge) of src: builds
 * trees, counts, routes the ranks, and extracts the kept buckets into level
 * buffer dst_slot.  On return h_next[0..*nnext) are the next segments.
 */
template <typename KeyT>
gs_status run_level(Selection<KeyT> &sel, const KeyT *src, const long long *ranks,
					int nlarge, int level, int dst_slot, int *nnext)
{
	const int	blocks = assign_blocks(sel, nlarge);
	gs_status	status;
	long long	next_keys = 0;
	int			t;

	GS_CUDA_TRY(sel, cudaMemcpyAsync(sel.segs_level, sel.h_cur, sizeof(SegmentDesc) * nlarge,
									 cudaMemcpyHostToDevice, sel.stream),
				"copying segments");
	t = phase_begin(sel, GS_PHASE_SAMPLE);
	sample_kernel<KeyT><<<nlarge, kSampleThreads, 0, sel.stream>>>(
		src, sel.segs_level, kSampleSeed + 0x1000193ull * (unsigned long long) level,
		sel.trees, sel.readback);
	phase_end(sel, t);
	GS_CUDA_TRY(sel, cudaGetLastError(), "launching the sample kernel");
	t = phase_begin(sel, GS_PHASE_COUNT);
	count_kernel_for<KeyT>(sel.variant)<<<blocks, kCountThreads, 0, sel.stream>>>(
		src, sel.oracles, sel.segs_level, nlarge, sel.trees, sel.counts, blocks);
	phase_end(sel, t);
	GS_CUDA_TRY(sel, cudaGetLastError(), "launching the count kernel");
	t = phase_begin(sel, GS_PHASE_REDUCE);
	reduce_kernel<KeyT><<<dim3(kBuckets, nlarge), kReduceThreads, 0, sel.stream>>>(
		sel.counts, sel.prefix, sel.readback, sel.segs_level, blocks);
	phase_end(sel, t);
	GS_CUDA_TRY(sel, cudaGetLastError(), "launching the reduce kernel");
	/* one copy brings back every segment's totals and boundaries */
	t = phase_begin(sel, GS_PHASE_READBACK);
	GS_CUDA_TRY(sel, cudaMemcpyAsync(sel.h_readback, sel.readback,
									 sizeof(LevelReadback<KeyT>) * nlarge,
									 cudaMemcpyDeviceToHost, sel.stream),
				"copying bucket counts");
	phase_end(sel, t);
	GS_CUDA_TRY(sel, cudaStreamSynchronize(sel.stream), "counting buckets");

	status = route_ranks(sel, ranks, nlarge, nnext, &next_keys);
	if (status != GS_OK)
		return status;
	if (sel.stats)
	{
		sel.stats->levels++;
		if (level == 0)
			sel.stats->kept_after_first_level += next_keys;
	}
	if (*nnext == 0)
		return GS_OK;
	status = poll_cancel(sel);
	if (status != GS_OK)
		return status;
	status = ensure_level_buffer(sel, dst_slot, next_keys);
	if (status != GS_OK)
		return status;
	GS_CUDA_TRY(sel, cudaMemcpyAsync(sel.dest, sel.h_dest, sizeof(long long) * kBuckets * nlarge,
									 cudaMemcpyHostToDevice, sel.stream),
				"copying bucket destinations");
	t = phase_begin(sel, GS_PHASE_FILTER);
	filter_kernel_for<KeyT>(sel.filter_variant)<<<blocks < sel.filter_blocks ? blocks : sel.filter_blocks,
												  kFilterThreads, 0, sel.stream>>>(
		src, sel.oracles, sel.segs_level, nlarge, sel.dest, sel.prefix, blocks,
		sel.buf[dst_slot]);
	phase_end(sel, t);
	GS_CUDA_TRY(sel, cudaGetLastError(), "launching the filter kernel");
	return GS_OK;
}

/*
 * Selects ranks[0..nranks) (nranks <= max_segs) from the whole input and
 * writes them to out.  Level 0 reads the input; later levels alternate
 * between the two level buffers.
 */
template <typename KeyT>
gs_status run_pass(Selection<KeyT> &sel, const long long *ranks, int nranks, KeyT *out)
{
	const KeyT *src = sel.input;
	int			ncur = 1;
	int			dst_slot = 0;
	bool		any_base = false;
	gs_status	status;

	if (sel.stats)
		sel.stats->passes++;
	memset(sel.h_resolved, 0, (size_t) nranks);
	memset(&sel.h_cur[0], 0, sizeof(SegmentDesc));
	sel.h_cur[0].size = sel.n;
	sel.h_cur[0].rank_count = nranks;
	GS_CUDA_TRY(sel, cudaMemcpyAsync(sel.ranks, ranks, sizeof(long long) * nranks,
									 cudaMemcpyHostToDevice, sel.stream),
				"copying ranks");

	for (int level = 0; ncur > 0; ++level)
	{
		int			nsmall = 0;
		int			nlarge = 0;
		int			nnext = 0;

		if (level == kMaxLevels)
		{
			gs_format_error(sel.errbuf, sel.errlen,
							"internal error in SampleSelect: no result after %d levels", level);
			return GS_CUDA_ERROR;
		}
		status = poll_cancel(sel);
		if (status != GS_OK)
			return status;

		/* small segments go to the base case, large ones stay in h_cur */
		for (int s = 0; s < ncur; ++s)
		{
			if (sel.h_cur[s].size <= kBaseCaseMax)
				sel.h_small[nsmall++] = sel.h_cur[s];
			else
				sel.h_cur[nlarge++] = sel.h_cur[s];
		}
		if (nsmall > 0)
		{
			status = launch_base_cases(sel, src, nsmall);
			if (status != GS_OK)
				return status;
			any_base = true;
		}
		if (nlarge == 0)
			break;

		status = run_level(sel, src, ranks, nlarge, level, dst_slot, &nnext);
		if (status != GS_OK)
			return status;

		SegmentDesc *t = sel.h_cur;

		sel.h_cur = sel.h_next;
		sel.h_next = t;
		ncur = nnext;
		src = sel.buf[dst_slot];
		dst_slot ^= 1;
	}

	if (any_base)
	{
		GS_CUDA_TRY(sel, cudaMemcpyAsync(sel.h_dev_results, sel.results, sizeof(KeyT) * nranks,
										 cudaMemcpyDeviceToHost, sel.stream),
					"copying results");
	}
	GS_CUDA_TRY(sel, cudaStreamSynchronize(sel.stream), "finishing the selection");
	phase_collect(sel);
	for (int i = 0; i < nranks; ++i)
		out[i] = sel.h_resolved[i] ? sel.h_results[i] : sel.h_dev_results[i];
	return GS_OK;
}

/* Checks the ranks: nondecreasing, each in [0, n). */
gs_status check_ranks(int64_t n, const int64_t *ranks, int nranks, char *errbuf, size_t errlen)
{
	for (int i = 0; i < nranks; ++i)
	{
		if (ranks[i] < 0 || ranks[i] >= n)
		{
			gs_format_error(errbuf, errlen, "rank %lld is outside [0, %lld)",
							(long long) ranks[i], (long long) n);
			return GS_INVALID_ARGUMENT;
		}
		if (i > 0 && ranks[i] < ranks[i - 1])
		{
			gs_format_error(errbuf, errlen, "ranks are not in nondecreasing order at %d", i);
			return GS_INVALID_ARGUMENT;
		}
	}
	return GS_OK;
}

/* gs_select_device() for one key type, after the arguments are checked. */
template <typename KeyT>
gs_status select_typed(const KeyT *d_keys, long long n, const int64_t *ranks, int nranks,
					   KeyT *out, void *d_workspace, size_t workspace_bytes,
					   cudaStream_t stream, const volatile int *cancel,
					   const gs_select_options *options, gs_select_stats *stats,
					   char *errbuf, size_t errlen)
{
	Selection<KeyT> sel;
	WorkspaceLayout w;
	char	   *ws = static_cast<char *>(d_workspace);
	int			sms = 0;
	int			per_sm = 0;
	gs_status	status;
	cudaError_t err;

	memset(&sel, 0, sizeof(sel));
	status = device_sm_count(&sms, errbuf, errlen);
	if (status != GS_OK)
		return status;
	w = plan_workspace((int) sizeof(KeyT), n, nranks, sms);
	if (d_workspace == NULL || workspace_bytes < w.total)
	{
		gs_format_error(errbuf, errlen, "workspace of %zu bytes is smaller than the %zu needed",
						workspace_bytes, w.total);
		return GS_INVALID_ARGUMENT;
	}

	if (options == NULL)
		options = &g_default_options;
	sel.variant = options->count_variant;
	sel.filter_variant = options->filter_variant;
	err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count_kernel_for<KeyT>(sel.variant),
														kCountThreads, 0);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "sizing the count kernel", errbuf, errlen);
	if (per_sm < 1)
		per_sm = 1;
	sel.target_blocks = sms * per_sm;
	err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, filter_kernel_for<KeyT>(sel.filter_variant),
														kFilterThreads, 0);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "sizing the filter kernel", errbuf, errlen);
	sel.filter_blocks = sms * (per_sm < 1 ? 1 : per_sm);

	sel.input = d_keys;
	sel.n = n;
	sel.oracles = reinterpret_cast<uint8_t *>(ws + w.oracles);
	sel.counts = reinterpret_cast<uint32_t *>(ws + w.counts);
	sel.prefix = reinterpret_cast<unsigned long long *>(ws + w.prefix);
	sel.readback = reinterpret_cast<LevelReadback<KeyT> *>(ws + w.readback);
	sel.trees = reinterpret_cast<KeyT *>(ws + w.trees);
	sel.dest = reinterpret_cast<long long *>(ws + w.dest);
	sel.segs_level = reinterpret_cast<SegmentDesc *>(ws + w.segs_level);
	sel.segs_base = reinterpret_cast<SegmentDesc *>(ws + w.segs_base);
	sel.ranks = reinterpret_cast<long long *>(ws + w.ranks);
	sel.results = reinterpret_cast<KeyT *>(ws + w.results);
	sel.buf[0] = reinterpret_cast<KeyT *>(ws + w.buf0);
	sel.buf[1] = reinterpret_cast<KeyT *>(ws + w.buf1);
	sel.cap[0] = sel.cap[1] = w.level_cap;
	sel.stream = stream;
	sel.cancel = cancel;
	sel.stats = stats;
	sel.errbuf = errbuf;
	sel.errlen = errlen;
	sel.max_segs = w.max_segs;
	sel.timing = options->collect_timing != 0;

	/* host mirrors; sized by the segments of one level, not by n */
	{
		const size_t ms = (size_t) w.max_segs;
		const size_t segs_bytes = (size_t) round_up((long long) (sizeof(SegmentDesc) * ms), 256);
		const size_t rb_bytes = sizeof(LevelReadback<KeyT>) * ms;
		char	   *p;

		sel.staging = staging_acquire(3 * segs_bytes + rb_bytes + sizeof(long long) * kBuckets * ms,
									  &sel.staging_pinned);
		p = static_cast<char *>(sel.staging);
		if (p != NULL)
		{
			sel.h_readback = reinterpret_cast<LevelReadback<KeyT> *>(p);
			sel.h_dest = reinterpret_cast<long long *>(p + rb_bytes);
			p += rb_bytes + sizeof(long long) * kBuckets * ms;
			sel.h_cur = reinterpret_cast<SegmentDesc *>(p);
			sel.h_next = reinterpret_cast<SegmentDesc *>(p + segs_bytes);
			sel.h_small = reinterpret_cast<SegmentDesc *>(p + 2 * segs_bytes);
		}
		sel.h_results = (KeyT *) malloc(sizeof(KeyT) * ms);
		sel.h_dev_results = (KeyT *) malloc(sizeof(KeyT) * ms);
		sel.h_resolved = (unsigned char *) malloc(ms);
	}
	if (!sel.staging || !sel.h_results || !sel.h_dev_results || !sel.h_resolved)
	{
		gs_format_error(errbuf, errlen, "out of host memory for the selection's bookkeeping");
		status = GS_OUT_OF_MEMORY;
		goto cleanup;
	}

	/* ranks in groups of at most max_segs, each a full pass over the input */
	for (int first = 0; first < nranks; first += w.max_segs)
	{
		const int	count = nranks - first < w.max_segs ? nranks - first : w.max_segs;

		status = run_pass(sel, reinterpret_cast<const long long *>(ranks + first), count,
						  out + first);
		if (status != GS_OK)
			goto cleanup;
	}
	status = GS_OK;

cleanup:
	if (status != GS_OK && status != GS_STICKY_ERROR)
	{
		/* let queued work finish before its buffers go away */
		(void) cudaStreamSynchronize(stream);
		(void) cudaGetLastError();
	}
	for (int i = 0; i < 2; ++i)
		if (sel.owned[i] != NULL)
			(void) gs_dev_free(sel.owned[i]);
	for (int i = 0; i < sel.nevents; ++i)
		(void) cudaEventDestroy(sel.events[i]);
	if (sel.staging != NULL)
		staging_release(sel.staging, sel.staging_pinned);
	free(sel.h_results);
	free(sel.h_dev_results);
	free(sel.h_resolved);
	return status;
}

/* Checks what gs_select_keys and gs_select_device have in common. */
gs_status check_common(int key_bytes, int64_t n, const int64_t *ranks, int nranks,
					   const void *out_keys, char *errbuf, size_t errlen)
{
	if (key_bytes != 4 && key_bytes != 8)
	{
		gs_format_error(errbuf, errlen, "key_bytes is %d, not 4 or 8", key_bytes);
		return GS_INVALID_ARGUMENT;
	}
	if (n < 0 || nranks < 0)
	{
		gs_format_error(errbuf, errlen, "negative key or rank count");
		return GS_INVALID_ARGUMENT;
	}
	if (nranks > 0 && (ranks == NULL || out_keys == NULL))
	{
		gs_format_error(errbuf, errlen, "ranks or out_keys is NULL");
		return GS_INVALID_ARGUMENT;
	}
	return check_ranks(n, ranks, nranks, errbuf, errlen);
}

} /* namespace */

gs_status
gs_select_workspace_bytes(int key_bytes, int64_t n, int nranks, size_t *bytes,
						  char *errbuf, size_t errlen)
{
	int			sms = 0;
	gs_status	status;

	if ((key_bytes != 4 && key_bytes != 8) || n < 0 || nranks < 0 || bytes == NULL)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_select_workspace_bytes");
		return GS_INVALID_ARGUMENT;
	}
	status = device_sm_count(&sms, errbuf, errlen);
	if (status != GS_OK)
		return status;
	*bytes = plan_workspace(key_bytes, n, nranks > 0 ? nranks : 1, sms).total;
	return GS_OK;
}

gs_status
gs_select_device(int key_bytes, const void *d_keys, int64_t n,
				 const int64_t *ranks, int nranks, void *out_keys,
				 void *d_workspace, size_t workspace_bytes,
				 cudaStream_t stream, const volatile int *cancel,
				 const gs_select_options *options, gs_select_stats *stats,
				 char *errbuf, size_t errlen)
{
	gs_status	status;

	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	status = check_common(key_bytes, n, ranks, nranks, out_keys, errbuf, errlen);
	if (status != GS_OK || nranks == 0)
		return status;
	if (d_keys == NULL)
	{
		gs_format_error(errbuf, errlen, "d_keys is NULL");
		return GS_INVALID_ARGUMENT;
	}
	if (cancel != NULL && *cancel != 0)
	{
		gs_format_error(errbuf, errlen, "selection interrupted");
		return GS_INTERRUPTED;
	}
	if (key_bytes == 4)
		return select_typed(static_cast<const uint32_t *>(d_keys), n, ranks, nranks,
							static_cast<uint32_t *>(out_keys), d_workspace, workspace_bytes,
							stream, cancel, options, stats, errbuf, errlen);
	return select_typed(static_cast<const uint64_t *>(d_keys), n, ranks, nranks,
						static_cast<uint64_t *>(out_keys), d_workspace, workspace_bytes,
						stream, cancel, options, stats, errbuf, errlen);
}

void
gs_select_set_defaults(const gs_select_options *options)
{
	if (options != NULL)
		g_default_options = *options;
	else
		memset(&g_default_options, 0, sizeof(g_default_options));
}

cudaError_t
gs_select_check_kernels(void)
{
	cudaFuncAttributes attr;

	return cudaFuncGetAttributes(&attr, count_kernel<uint64_t, kHistCopies, kCountIlp>);
}

extern "C" gs_status
gs_select_keys(int key_bytes,
			   const void *const *chunks, const int64_t *chunk_counts,
			   int nchunks, int64_t n,
			   const int64_t *ranks, int nranks, void *out_keys,
			   const volatile int *cancel,
			   char *errbuf, size_t errlen)
{
	gs_status	status;
	cudaError_t err;
	cudaStream_t stream = NULL;
	char	   *d_mem = NULL;
	size_t		input_bytes;
	size_t		ws_bytes = 0;
	int64_t		sum = 0;

	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	status = check_common(key_bytes, n, ranks, nranks, out_keys, errbuf, errlen);
	if (status != GS_OK || nranks == 0)
		return status;
	if (nchunks < 0 || (nchunks > 0 && (chunks == NULL || chunk_counts == NULL)))
	{
		gs_format_error(errbuf, errlen, "invalid chunk list");
		return GS_INVALID_ARGUMENT;
	}
	for (int i = 0; i < nchunks; ++i)
	{
		if (chunk_counts[i] < 0 || (chunk_counts[i] > 0 && chunks[i] == NULL))
		{
			gs_format_error(errbuf, errlen, "chunk %d is invalid", i);
			return GS_INVALID_ARGUMENT;
		}
		sum += chunk_counts[i];
	}
	if (sum != n)
	{
		gs_format_error(errbuf, errlen, "chunks hold %lld keys, not n = %lld",
						(long long) sum, (long long) n);
		return GS_INVALID_ARGUMENT;
	}
	if (cancel != NULL && *cancel != 0)
	{
		gs_format_error(errbuf, errlen, "selection interrupted");
		return GS_INTERRUPTED;
	}

	status = gs_select_workspace_bytes(key_bytes, n, nranks, &ws_bytes, errbuf, errlen);
	if (status != GS_OK)
		return status;
	input_bytes = (size_t) round_up((long long) key_bytes * n, 256);

	err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
	if (err != cudaSuccess)
	{
		stream = NULL;
		status = gs_status_from_cuda(err, "creating a stream", errbuf, errlen);
		goto cleanup;
	}
	/* one allocation for the input and the workspace */
	err = gs_dev_malloc((void **) &d_mem, input_bytes + ws_bytes);
	if (err != cudaSuccess)
	{
		d_mem = NULL;
		status = gs_status_from_cuda(err, "allocating device memory for the selection",
									 errbuf, errlen);
		goto cleanup;
	}
	{
		size_t		at = 0;

		for (int i = 0; i < nchunks; ++i)
		{
			const size_t bytes = (size_t) key_bytes * (size_t) chunk_counts[i];

			if (bytes == 0)
				continue;
			err = cudaMemcpyAsync(d_mem + at, chunks[i], bytes, cudaMemcpyHostToDevice, stream);
			if (err != cudaSuccess)
			{
				status = gs_status_from_cuda(err, "copying keys to the device", errbuf, errlen);
				goto cleanup;
			}
			at += bytes;
		}
	}
	status = gs_select_device(key_bytes, d_mem, n, ranks, nranks, out_keys,
							  d_mem + input_bytes, ws_bytes, stream, cancel, NULL, NULL,
							  errbuf, errlen);

cleanup:
	if (stream != NULL)
	{
		if (status != GS_STICKY_ERROR)
			(void) cudaStreamSynchronize(stream);
		(void) cudaStreamDestroy(stream);
	}
	if (d_mem != NULL)
		(void) gs_dev_free(d_mem);
	if (status != GS_STICKY_ERROR)
		(void) cudaGetLastError();
	return status;
}
