/*
 * device.cu
 *	  Device probe, memory helpers and CUDA error mapping of gpusel's C ABI
 *	  (gpusel_cuda.h).
 *
 * Nothing here runs before a backend asks: gs_probe() is the first CUDA
 * call of a process, and a machine without a driver or a device gets
 * GS_NO_DEVICE and a reason, never a crash (cudart is linked statically,
 * and cudaGetDeviceCount then reports error 35 or 100).
 */
#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpusel_cuda.h"
#include "gs_internal.cuh"
#include "sampleselect.cuh"

/* The lowest compute capability the kernels are built and tuned for. */
#define GS_MIN_CC_MAJOR 8

void
gs_format_error(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list		ap;

	if (errbuf == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
	errbuf[errlen - 1] = '\0';
}

bool
gs_error_is_sticky(cudaError_t err)
{
	switch (err)
	{
		case cudaErrorIllegalAddress:
		case cudaErrorLaunchFailure:
		case cudaErrorHardwareStackError:
		case cudaErrorIllegalInstruction:
		case cudaErrorMisalignedAddress:
		case cudaErrorInvalidAddressSpace:
		case cudaErrorInvalidPc:
		case cudaErrorLaunchTimeout:
		case cudaErrorAssert:
		case cudaErrorECCUncorrectable:
		case cudaErrorNvlinkUncorrectable:
		case cudaErrorContextIsDestroyed:
			return true;
		default:
			return false;
	}
}

/* Reports whether err means there is no driver or no device at all. */
static bool
error_means_no_device(cudaError_t err)
{
	return err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice;
}

gs_status
gs_status_from_cuda(cudaError_t err, const char *what, char *errbuf, size_t errlen)
{
	cudaError_t after;

	/* clears err if it is recoverable; a sticky error stays */
	(void) cudaGetLastError();
	after = cudaPeekAtLastError();

	if (err == cudaErrorMemoryAllocation)
	{
		gs_format_error(errbuf, errlen, "%s: out of device memory", what);
		return GS_OUT_OF_MEMORY;
	}
	if (error_means_no_device(err))
	{
		gs_format_error(errbuf, errlen, "%s: %s (cudart error %d)",
						what, cudaGetErrorString(err), (int) err);
		return GS_NO_DEVICE;
	}
	if (!gs_error_is_sticky(err) && after == cudaSuccess)
	{
		/*
		 * A failed launch or copy can be the first sign of a fault in an
		 * earlier kernel; synchronising shows whether the context survived.
		 */
		cudaError_t sync = cudaDeviceSynchronize();

		if (sync != cudaSuccess && gs_error_is_sticky(sync))
		{
			gs_format_error(errbuf, errlen, "%s: %s (cudart error %d), and then %s (cudart error %d)",
							what, cudaGetErrorString(err), (int) err,
							cudaGetErrorString(sync), (int) sync);
			return GS_STICKY_ERROR;
		}
		(void) cudaGetLastError();
		gs_format_error(errbuf, errlen, "%s: %s (%s, cudart error %d)",
						what, cudaGetErrorString(err), cudaGetErrorName(err), (int) err);
		return GS_CUDA_ERROR;
	}
	gs_format_error(errbuf, errlen, "%s: %s (%s, cudart error %d); the CUDA context is unusable",
					what, cudaGetErrorString(err), cudaGetErrorName(err), (int) err);
	return GS_STICKY_ERROR;
}

/* Fills info->reason for a failed initialisation step and returns GS_NO_DEVICE. */
static gs_status
probe_failed(gs_device_info *info, cudaError_t err, const char *step)
{
	info->usable = 0;
	info->cuda_error = (int) err;
	if (err == cudaErrorInsufficientDriver)
		snprintf(info->reason, sizeof(info->reason),
				 "no NVIDIA driver, or one older than the CUDA runtime gpusel was built with "
				 "(cudart error 35 while %s)", step);
	else if (err == cudaErrorNoDevice)
		snprintf(info->reason, sizeof(info->reason),
				 "no CUDA device found (cudart error 100 while %s)", step);
	else
		snprintf(info->reason, sizeof(info->reason), "%s failed: %s (cudart error %d)",
				 step, cudaGetErrorString(err), (int) err);
	(void) cudaGetLastError();
	return GS_NO_DEVICE;
}

extern "C" gs_status
gs_probe(gs_device_info *info)
{
	cudaError_t err;
	int			count = 0;
	int			major = 0;
	int			minor = 0;
	size_t		free_bytes = 0;
	size_t		total_bytes = 0;
	cudaDeviceProp prop;

	if (info == NULL)
		return GS_INVALID_ARGUMENT;
	memset(info, 0, sizeof(*info));
	(void) cudaRuntimeGetVersion(&info->runtime_version);
	/* reports 0 and succeeds where there is no driver */
	(void) cudaDriverGetVersion(&info->driver_version);

	err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess)
		return probe_failed(info, err, "counting devices");
	info->device_count = count;
	if (count == 0)
		return probe_failed(info, cudaErrorNoDevice, "counting devices");

	err = cudaSetDevice(0);
	if (err != cudaSuccess)
		return probe_failed(info, err, "selecting device 0");
	err = cudaGetDeviceProperties(&prop, 0);
	if (err != cudaSuccess)
		return probe_failed(info, err, "reading device properties");
	gs_format_error(info->name, sizeof(info->name), "%.*s", (int) sizeof(info->name) - 1, prop.name);
	err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
	if (err != cudaSuccess)
		return probe_failed(info, err, "reading the compute capability");
	info->cc_major = major;
	info->cc_minor = minor;

	/* creates the context now, so its cost (100s of ms) lands in the probe */
	err = cudaFree(NULL);
	if (err != cudaSuccess)
		return probe_failed(info, err, "creating the CUDA context");
	err = cudaMemGetInfo(&free_bytes, &total_bytes);
	if (err != cudaSuccess)
		return probe_failed(info, err, "reading device memory");
	info->free_memory = free_bytes;
	info->total_memory = total_bytes;

	if (major < GS_MIN_CC_MAJOR)
	{
		gs_format_error(info->reason, sizeof(info->reason),
						"%.200s has compute capability %d.%d; gpusel needs %d.0 or higher",
						info->name, major, minor, GS_MIN_CC_MAJOR);
		return GS_NO_DEVICE;
	}
	/* a device newer than the build runs the PTX; an image must exist */
	err = gs_select_check_kernels();
	if (err != cudaSuccess)
		return probe_failed(info, err, "loading gpusel's kernels");

	info->usable = 1;
	return GS_OK;
}

extern "C" gs_status
gs_device_memory_in_use(uint64_t *used_bytes)
{
	size_t		free_bytes = 0;
	size_t		total_bytes = 0;
	cudaError_t err;

	if (used_bytes == NULL)
		return GS_INVALID_ARGUMENT;
	*used_bytes = 0;
	err = cudaMemGetInfo(&free_bytes, &total_bytes);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "reading device memory", NULL, 0);
	*used_bytes = (uint64_t) (total_bytes - free_bytes);
	return GS_OK;
}

static gs_host_allocator host_allocator = NULL;
static gs_host_releaser host_releaser = NULL;

extern "C" void
gs_set_host_allocator(gs_host_allocator alloc, gs_host_releaser release)
{
	host_allocator = alloc;
	host_releaser = release;
}

cudaError_t
gs_pinned_alloc(void **ptr, size_t bytes)
{
	if (host_allocator == NULL)
		return cudaHostAlloc(ptr, bytes, cudaHostAllocDefault);
	*ptr = host_allocator(bytes);
	return *ptr != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}

void
gs_pinned_free(void *ptr)
{
	if (ptr == NULL)
		return;
	if (host_releaser != NULL)
		host_releaser(ptr);
	else
		(void) cudaFreeHost(ptr);
}

extern "C" gs_status
gs_host_register(void *ptr, size_t bytes, char *errbuf, size_t errlen)
{
	cudaError_t err = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable);

	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "page-locking the shared staging region", errbuf, errlen);
	return GS_OK;
}

extern "C" gs_status
gs_use_device(int ordinal, char *errbuf, size_t errlen)
{
	cudaError_t err = cudaSetDevice(ordinal);

	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "selecting a device", errbuf, errlen);
	return GS_OK;
}

extern "C" gs_status
gs_host_alloc(void **ptr, size_t bytes)
{
	cudaError_t err;

	if (ptr == NULL)
		return GS_INVALID_ARGUMENT;
	*ptr = NULL;
	if (bytes == 0)
		return GS_INVALID_ARGUMENT;
	err = gs_pinned_alloc(ptr, bytes);
	if (err != cudaSuccess)
	{
		*ptr = NULL;
		return gs_status_from_cuda(err, "allocating page-locked host memory", NULL, 0);
	}
	return GS_OK;
}

extern "C" void
gs_host_free(void *ptr)
{
	if (ptr != NULL)
	{
		gs_pinned_free(ptr);
		(void) cudaGetLastError();
	}
}

extern "C" gs_status
gs_device_alloc(void **dptr, size_t bytes, char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (dptr == NULL || bytes == 0)
		return GS_INVALID_ARGUMENT;
	*dptr = NULL;
	err = cudaMalloc(dptr, bytes);
	if (err == cudaErrorMemoryAllocation)
	{
		/* the pool's idle blocks of per-query buffers give way to the cache */
		(void) cudaGetLastError();
		gs_device_pool_trim();
		err = cudaMalloc(dptr, bytes);
	}
	if (err != cudaSuccess)
	{
		*dptr = NULL;
		return gs_status_from_cuda(err, "allocating device memory for cached columns", errbuf, errlen);
	}
	return GS_OK;
}

extern "C" gs_status
gs_device_write(void *dptr, const void *src, size_t bytes, char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (dptr == NULL || (src == NULL && bytes > 0))
		return GS_INVALID_ARGUMENT;
	if (bytes == 0)
		return GS_OK;
	err = cudaMemcpy(dptr, src, bytes, cudaMemcpyHostToDevice);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "copying cached columns to the device", errbuf, errlen);
	return GS_OK;
}

/*
 * Copies n pieces of host memory (page-locked, for the copies to overlap)
 * to offsets of the device memory at dbase, all queued on the calling
 * thread's stream and waited for once.
 */
extern "C" gs_status
gs_device_write_many(void *dbase, int n, const uint64_t *offsets, const void *const *srcs,
					 const uint64_t *bytes, char *errbuf, size_t errlen)
{
	cudaError_t err = cudaSuccess;

	if (dbase == NULL || n < 0 || (n > 0 && (offsets == NULL || srcs == NULL || bytes == NULL)))
		return GS_INVALID_ARGUMENT;
	for (int i = 0; i < n && err == cudaSuccess; i++)
		if (bytes[i] > 0)
			err = cudaMemcpyAsync(static_cast<char *>(dbase) + offsets[i], srcs[i], bytes[i],
								  cudaMemcpyHostToDevice, cudaStreamPerThread);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(cudaStreamPerThread);
	else
		(void) cudaStreamSynchronize(cudaStreamPerThread);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "copying cached columns to the device", errbuf, errlen);
	return GS_OK;
}

/* Sets bytes of device memory at dptr to zero, synchronously. */
extern "C" gs_status
gs_device_zero(void *dptr, size_t bytes, char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (dptr == NULL && bytes > 0)
		return GS_INVALID_ARGUMENT;
	if (bytes == 0)
		return GS_OK;
	/* on this thread's own stream: the service's other connections go on */
	err = cudaMemsetAsync(dptr, 0, bytes, cudaStreamPerThread);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(cudaStreamPerThread);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "clearing device memory for cached columns", errbuf, errlen);
	return GS_OK;
}

/* Copies bytes from src to dst, both device memory of the calling thread's device, synchronously. */
extern "C" gs_status
gs_device_copy(void *dst, const void *src, size_t bytes, char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (dst == NULL || src == NULL)
		return bytes == 0 ? GS_OK : GS_INVALID_ARGUMENT;
	if (bytes == 0)
		return GS_OK;
	err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(cudaStreamPerThread);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "moving cached columns in device memory", errbuf, errlen);
	return GS_OK;
}

extern "C" void
gs_device_free(void *dptr)
{
	if (dptr != NULL)
	{
		(void) cudaFree(dptr);
		(void) cudaGetLastError();
	}
}
