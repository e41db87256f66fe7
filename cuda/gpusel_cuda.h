/*
 * gpusel_cuda.h
 *	  The C interface between gpusel's PostgreSQL code (src/) and its CUDA
 *	  code (cuda/).  Nothing here depends on PostgreSQL: functions report
 *	  through status codes and a caller-supplied message buffer, and never
 *	  throw or longjmp.  A build without CUDA links cuda/nocuda.c, which
 *	  implements the same functions by answering GS_NO_DEVICE.
 */
#ifndef GPUSEL_CUDA_H
#define GPUSEL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of every call into cuda/. */
typedef enum gs_status
{
	GS_OK = 0,
	GS_NO_DEVICE,				/* no usable GPU (no driver, no device, CPU build) */
	GS_OUT_OF_MEMORY,			/* device or pinned memory exhausted; caller may fall back */
	GS_INTERRUPTED,				/* *cancel became nonzero; all memory released */
	GS_CUDA_ERROR,				/* a recoverable CUDA error; message in errbuf */
	GS_STICKY_ERROR,			/* the context is unusable for the rest of the process */
	GS_INVALID_ARGUMENT
} gs_status;

/* What gs_probe found out about the device. */
typedef struct gs_device_info
{
	int			usable;			/* 1 when a GPU can run gpusel's kernels */
	int			device_count;
	char		name[256];
	int			cc_major;
	int			cc_minor;
	uint64_t	total_memory;	/* bytes */
	uint64_t	free_memory;	/* bytes, at probe time */
	int			driver_version; /* as cudaDriverGetVersion: 1000*major + 10*minor */
	int			runtime_version;
	int			cuda_error;		/* cudart error code behind usable == 0, else 0 */
	char		reason[256];	/* why not usable; empty when usable */
} gs_device_info;

/* Initialises the CUDA runtime on device 0 and describes it.  Never crashes
 * when there is no driver: returns GS_NO_DEVICE with info->reason set. */
gs_status	gs_probe(gs_device_info *info);

/* Bytes of device memory in use right now (total minus free). */
gs_status	gs_device_memory_in_use(uint64_t *used_bytes);

/*
 * Makes the calling process keep up to idle_bytes_max bytes per device of
 * the buffers its queries free, for its next queries (the GPU service's
 * device process); 0, the default, keeps none.
 */
void		gs_device_pool_enable(size_t idle_bytes_max);

/*
 * Gives the idle blocks of the calling thread's device that the pool of
 * per-query buffers keeps back to the driver (before memory is measured,
 * or when the column cache needs the room).
 */
void		gs_device_pool_trim(void);

/* Page-locked host memory for staging; *ptr is NULL on failure. */
gs_status	gs_host_alloc(void **ptr, size_t bytes);
void		gs_host_free(void *ptr);

/*
 * Makes every page-locked host buffer of cuda/ (staging, positions, results,
 * gs_host_alloc) come from alloc and go back through release, instead of
 * cudaHostAlloc: the GPU service hands out pieces of a shared region it
 * registered with gs_host_register, so backends write into them directly.
 * alloc returns NULL when it has no room.  Set before any other call.
 */
typedef void *(*gs_host_allocator) (size_t bytes);
typedef void (*gs_host_releaser) (void *ptr);
void		gs_set_host_allocator(gs_host_allocator alloc, gs_host_releaser release);

/* Page-locks bytes of existing host memory at ptr for every device. */
gs_status	gs_host_register(void *ptr, size_t bytes, char *errbuf, size_t errlen);

/* Makes device 'ordinal' the calling thread's device for later calls. */
gs_status	gs_use_device(int ordinal, char *errbuf, size_t errlen);

/*
 * Device memory that outlives any one query (the column cache's device
 * copy), on the calling thread's device: allocated, written from host
 * memory (page-locked preferred) synchronously, freed.
 */
gs_status	gs_device_alloc(void **dptr, size_t bytes, char *errbuf, size_t errlen);
gs_status	gs_device_write(void *dptr, const void *src, size_t bytes,
							char *errbuf, size_t errlen);
/* Copies n pieces of host memory to dbase + offsets[i], waiting once for all. */
gs_status	gs_device_write_many(void *dbase, int n, const uint64_t *offsets,
								 const void *const *srcs, const uint64_t *bytes,
								 char *errbuf, size_t errlen);

/* Sets device memory to zero; copies device memory to device memory (both synchronous). */
gs_status	gs_device_zero(void *dptr, size_t bytes, char *errbuf, size_t errlen);
gs_status	gs_device_copy(void *dst, const void *src, size_t bytes,
						   char *errbuf, size_t errlen);
void		gs_device_free(void *dptr);

/*
 * Exact multiselection over unsigned integer keys (key_bytes 4 or 8) held in
 * nchunks host chunks (pinned memory preferred, pageable accepted);
 * chunk_counts[i] keys live at chunks[i], n keys in all.  ranks holds nranks
 * 0-based ranks in nondecreasing order, each < n; out_keys receives the key
 * of each rank (out_keys[i] is the key at ranks[i] in ascending order).
 * Runs SampleSelect on the device and owns every device allocation it makes:
 * all are freed before it returns, whatever the outcome.  *cancel is polled
 * between phases; when nonzero the call stops with GS_INTERRUPTED.
 */
gs_status	gs_select_keys(int key_bytes,
						   const void *const *chunks, const int64_t *chunk_counts,
						   int nchunks, int64_t n,
						   const int64_t *ranks, int nranks, void *out_keys,
						   const volatile int *cancel,
						   char *errbuf, size_t errlen);

/*
 * A grouped scan's percentile keys held in device memory, appended while
 * the scan runs: keys (key_bytes 4 or 8 each) and, with groups, a group
 * number per key.  Everything it holds is freed by gs_pairs_destroy.
 */
typedef struct gs_pairs gs_pairs;

gs_status	gs_pairs_create(gs_pairs **pairs, int key_bytes, int with_groups,
							char *errbuf, size_t errlen);

/* Appends n keys (and group numbers) from host memory, pageable accepted;
 * the host arrays may be reused when it returns.  GS_OUT_OF_MEMORY when
 * the device cannot hold them; what was held stays held. */
gs_status	gs_pairs_append(gs_pairs *pairs, const void *keys, const uint32_t *groups,
							int64_t n, char *errbuf, size_t errlen);

/* Keys held. */
int64_t		gs_pairs_count(const gs_pairs *pairs);

/* Copies every held key (and group number) into host memory, in the order
 * held; the pairs stay held.  keys and groups hold gs_pairs_count() each. */
gs_status	gs_pairs_read(gs_pairs *pairs, void *keys, uint32_t *groups,
						  char *errbuf, size_t errlen);

/*
 * With groups (all < ngroups): sorts the held pairs by group and key,
 * consuming them, and copies back the keys at the npositions 0-based
 * positions of that order (any order, each < the count held): out_keys[i]
 * is the key at positions[i].  GS_OUT_OF_MEMORY when the sort does not fit.
 * *cancel is polled between the two sorts.
 */
gs_status	gs_pairs_sort_pick(gs_pairs *pairs, int64_t ngroups,
							   const int64_t *positions, int64_t npositions,
							   void *out_keys, const volatile int *cancel,
							   char *errbuf, size_t errlen);

/* Without groups: the keys of ranks (nondecreasing) among those held, as
 * gs_select_keys gives them; the held keys are left as they are. */
gs_status	gs_pairs_select(gs_pairs *pairs, const int64_t *ranks, int nranks,
							void *out_keys, const volatile int *cancel,
							char *errbuf, size_t errlen);

/* Frees the pairs and their device memory; safe on NULL. */
void		gs_pairs_destroy(gs_pairs *pairs);

/*
 * Sorts n (group, key) pairs by group, then by key: out_keys receives the
 * keys (key_bytes 4 or 8 each) of group 0 in ascending order, then group
 * 1's, and so on; groups[i] < ngroups is the group of keys[i].  Host
 * arrays may be pageable.  Owns every device allocation it makes; returns
 * GS_OUT_OF_MEMORY, with nothing changed, when the pairs do not fit in the
 * device memory it may take, so the caller sorts on the host instead.
 * *cancel is polled between the two sorts.
 */
gs_status	gs_sort_by_group(int key_bytes, const void *keys, const uint32_t *groups,
							 int64_t n, int64_t ngroups, void *out_keys,
							 const volatile int *cancel,
							 char *errbuf, size_t errlen);

/*
 * gs_sort_by_group, but out_keys receives only the keys at the npositions
 * given 0-based positions of the sorted order (each < n, in any order):
 * out_keys[i] is the key at positions[i].
 */
gs_status	gs_sort_by_group_pick(int key_bytes, const void *keys, const uint32_t *groups,
								  int64_t n, int64_t ngroups,
								  const int64_t *positions, int64_t npositions,
								  void *out_keys, const volatile int *cancel,
								  char *errbuf, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSEL_CUDA_H */
