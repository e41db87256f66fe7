/*
 * sampleselect.cuh
 *	  The device-pointer entry point of gpusel's SampleSelect, below the C
 *	  ABI of gpusel_cuda.h.  gs_select_keys() copies host chunks to the
 *	  device and calls gs_select_device(); the kernel benchmark calls it
 *	  directly on keys already on the device, so that its timings leave the
 *	  host-to-device transfer out.  C++ only; not for src/.
 */
#ifndef GPUSEL_SAMPLESELECT_CUH
#define GPUSEL_SAMPLESELECT_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpusel_cuda.h"

/* Knobs for experiments; a zeroed struct (or NULL) means the tuned default. */
struct gs_select_options
{
	/*
	 * Count kernel variant: 0 = default (select_tuning.cuh), 1 = one
	 * histogram column instead of kHistCopies, 2 = half the interleaved
	 * descents (kCountIlp / 2), 3 = both of 1 and 2.
	 */
	int			count_variant;
	/*
	 * Filter kernel variant: 0 = default, warp-aggregated slots
	 * (__match_any_sync), one shared atomic per bucket and warp round;
	 * 1 = one atomic per kept key.  On an H200, 2^27 float64 uniform keys,
	 * 0 took 0.697 ms for one rank and 0.933 ms for nine, against 0.782 and
	 * 1.541 ms for 1; both pass the whole kernel test.
	 */
	int			filter_variant;
	/* nonzero: time each kernel and copy with events into stats->phase_ms */
	int			collect_timing;
};

/*
 * Sets the options used when a call passes none (gs_select_keys always
 * does): for tests and benchmarks only; NULL restores the tuned defaults.
 * Not thread-safe.
 */
void		gs_select_set_defaults(const gs_select_options *options);

/* Phases that gs_select_stats times when options ask for it. */
enum gs_select_phase
{
	GS_PHASE_SAMPLE,			/* sample_kernel: splitters and trees */
	GS_PHASE_COUNT,				/* count_kernel: oracles and histograms */
	GS_PHASE_REDUCE,			/* reduce_kernel: block prefixes, totals */
	GS_PHASE_READBACK,			/* device-to-host copy of totals and bounds */
	GS_PHASE_FILTER,			/* filter_kernel: extracting kept buckets */
	GS_PHASE_BASE,				/* base_case_kernel: sorting small segments */
	GS_NPHASES
};

/* What one selection did, for benchmarks and tests. */
struct gs_select_stats
{
	int			passes;			/* rank groups (kMaxRanksPerPass ranks each) */
	int			levels;			/* count/filter levels, summed over passes */
	int			base_segments;	/* segments finished by a block sort */
	int64_t		kept_after_first_level; /* keys copied by the first filter */
	int			buffer_grows;	/* level buffers allocated beyond the workspace */
	float		phase_ms[GS_NPHASES];	/* device time per phase (collect_timing) */
};

/*
 * Device workspace gs_select_device() needs for n keys of key_bytes and
 * nranks ranks (oracles, counters, level buffers), in bytes.
 */
gs_status	gs_select_workspace_bytes(int key_bytes, int64_t n, int nranks,
									  size_t *bytes, char *errbuf, size_t errlen);

/*
 * gs_select_keys() for keys already in device memory at d_keys (read, never
 * written).  d_workspace holds at least gs_select_workspace_bytes() bytes.
 * Work is queued on stream; the call returns once out_keys (host memory) is
 * filled.  Device memory it has to allocate beyond the workspace (a level
 * that keeps unusually many keys) is freed before it returns.
 */
gs_status	gs_select_device(int key_bytes, const void *d_keys, int64_t n,
							 const int64_t *ranks, int nranks, void *out_keys,
							 void *d_workspace, size_t workspace_bytes,
							 cudaStream_t stream, const volatile int *cancel,
							 const gs_select_options *options,
							 gs_select_stats *stats,
							 char *errbuf, size_t errlen);

/* cudaSuccess when the selection kernels have an image for the current
 * device; the probe calls this. */
cudaError_t gs_select_check_kernels(void);

#endif							/* GPUSEL_SAMPLESELECT_CUH */
