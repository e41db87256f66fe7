/*
 * gs_internal.cuh
 *	  Helpers shared by the CUDA files of cuda/ (not part of the C ABI):
 *	  error messages and the mapping of cudart errors to gs_status.
 */
#ifndef GPUSEL_GS_INTERNAL_CUH
#define GPUSEL_GS_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpusel_cuda.h"
#include "gpusel_filter.h"

/* Writes a formatted message into errbuf; never overflows, always ends it. */
void		gs_format_error(char *errbuf, size_t errlen, const char *fmt, ...)
			__attribute__((format(printf, 3, 4)));

/*
 * Page-locked host memory for cuda/'s own buffers: cudaHostAlloc, or a
 * piece of a region the process registered (gs_set_host_allocator), so that
 * other processes that map the region read and write those buffers.
 */
cudaError_t gs_pinned_alloc(void **ptr, size_t bytes);
void		gs_pinned_free(void *ptr);

/*
 * Device memory for one query's buffers, from the pool of device_pool.cu:
 * freed blocks are kept for the next query instead of unmapped.  Freeing
 * waits for the device, as cudaFree does.
 */
cudaError_t gs_dev_malloc(void **ptr, size_t bytes);
void		gs_dev_free(void *ptr);

/* Bytes the pool keeps idle on the calling thread's device: free for the next gs_dev_malloc. */
size_t		gs_device_pool_idle_bytes(void);

/* gs_dev_malloc for a typed pointer, as cudaMalloc's template is. */
template <typename T>
static inline cudaError_t
gs_dev_malloc(T **ptr, size_t bytes)
{
	return gs_dev_malloc(reinterpret_cast<void **>(ptr), bytes);
}

/* Reports whether err leaves the CUDA context unusable for the process. */
bool		gs_error_is_sticky(cudaError_t err);

/*
 * Turns a failed CUDA call into a status and a message naming what failed.
 * Clears a recoverable error so that later calls in the process work;
 * cudaErrorMemoryAllocation becomes GS_OUT_OF_MEMORY, no driver or device
 * GS_NO_DEVICE, an error that cannot be cleared GS_STICKY_ERROR.
 */
gs_status	gs_status_from_cuda(cudaError_t err, const char *what,
								char *errbuf, size_t errlen);

/* Pairs held on the device (gpusel_cuda.h); groupsort.cu and groupbatch.cu fill them. */
struct gs_pairs
{
	int			key_bytes;
	int			with_groups;
	void	   *keys;			/* cap keys */
	uint32_t   *groups;			/* cap group numbers, when with_groups */
	int64_t		count;
	int64_t		cap;
	cudaStream_t stream;
};

/*
 * Makes room for n more pairs, growing the device arrays (and copying what
 * they hold) when needed; the held pairs are unchanged on failure.
 */
cudaError_t gs_pairs_reserve(gs_pairs *p, int64_t n);

/* A waited-for batch of the device filter as it lies in device memory. */
typedef struct gs_device_batch
{
	cudaStream_t stream;		/* the slot's stream: work on the batch goes here */
	void	   *const *values;	/* per column; NULL where the column is not on the device */
	const uint8_t *nulls[GS_MAX_PROGRAM_LENGTH];	/* NULL where a column has no NULLs */
	const uint32_t *positions;	/* the passing rows' positions, ascending */
	int64_t		npositions;
	unsigned long long batch;	/* which of the slot's batches: changes with every submit */
	int			ncols;
	const gs_coltype *coltypes;
} gs_device_batch;

/*
 * The device side of slot 'slot' after gs_filter_wait, valid until the slot
 * is submitted again; GS_INVALID_ARGUMENT for a slot with no batch.
 */
gs_status	gs_filter_device_batch(gs_filter *filter, int slot, gs_device_batch *out,
								   char *errbuf, size_t errlen);

#endif							/* GPUSEL_GS_INTERNAL_CUH */
