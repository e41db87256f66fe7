/*
 * gs_internal.cuh
 *	  Helpers shared by the CUDA files of cuda/ (not part of the C ABI):
 *	  error messages and the mapping of cudart errors to gs_status.
 */
#ifndef GPUSEL_GS_INTERNAL_CUH
#define GPUSEL_GS_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "gpusel_cuda.h"

/* Writes a formatted message into errbuf; never overflows, always ends it. */
void		gs_format_error(char *errbuf, size_t errlen, const char *fmt, ...)
			__attribute__((format(printf, 3, 4)));

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

#endif							/* GPUSEL_GS_INTERNAL_CUH */
