/*
 * device_pool.cu
 *	  Device memory for the buffers of one query (filter slots, groupings,
 *	  sums, selection levels), kept for the next query instead of being
 *	  given back to the driver.
 *
 *	  cudaMalloc maps fresh pages and cudaFree unmaps them: for the tens or
 *	  hundreds of megabytes a scan of a cached table asks for, the pair can
 *	  cost more than the scan's kernels.  The pool keeps freed blocks by size
 *	  class (a quarter step between powers of two, so a block is at most 25%
 *	  larger than asked) and device, up to the idle bytes per device that
 *	  gs_device_pool_enable set; a block past that goes back to the driver.
 *	  Only a process that serves many queries (the GPU service's device
 *	  process) turns the pool on: a backend that runs its own queries on
 *	  the device keeps nothing, so idle backends hold no device memory.
 *	  When the driver has no memory left, every idle block of that device
 *	  is given back and the allocation tried once more, so the pool never
 *	  makes an allocation fail that would have succeeded without it.
 *
 *	  Freeing waits for the device, as cudaFree does: a kernel still using
 *	  the block must not see it handed to the next query.  The service's
 *	  connection threads share the pool; one mutex guards it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#include "gs_internal.cuh"

/* Devices the pool tells apart; blocks of a higher ordinal are not kept. */
#define GS_POOL_MAX_DEVICES 16

/* The smallest block handed out: smaller requests share its size class. */
#define GS_POOL_MIN_BYTES ((size_t) 512)

/* A block the pool handed out or keeps. */
typedef struct PoolBlock
{
	void	   *ptr;
	size_t		bytes;			/* its size class */
	int			device;
	struct PoolBlock *next;
} PoolBlock;

static size_t pool_idle_max = 0;	/* idle bytes kept per device; 0: none */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static PoolBlock *idle_blocks[GS_POOL_MAX_DEVICES];
static size_t idle_bytes[GS_POOL_MAX_DEVICES];
static PoolBlock *busy_blocks;	/* handed out, so that a free knows the size */

/* Rounds bytes up to its size class: m * 2^k with m in 4..7. */
static size_t
size_class(size_t bytes)
{
	size_t		step;

	if (bytes <= GS_POOL_MIN_BYTES)
		return GS_POOL_MIN_BYTES;
	step = GS_POOL_MIN_BYTES / 4;
	while (step * 8 < bytes)
		step *= 2;
	return (bytes + step - 1) / step * step;
}

/* Gives every idle block of device back to the driver; the lock is held. */
static void
trim_locked(int device)
{
	PoolBlock  *b = idle_blocks[device];

	while (b != NULL)
	{
		PoolBlock  *next = b->next;

		(void) cudaFree(b->ptr);
		free(b);
		b = next;
	}
	idle_blocks[device] = NULL;
	idle_bytes[device] = 0;
}

cudaError_t
gs_dev_malloc(void **ptr, size_t bytes)
{
	size_t		want = pool_idle_max > 0 ? size_class(bytes) : bytes;
	PoolBlock  *b = NULL;
	int			device = 0;
	cudaError_t err;

	*ptr = NULL;
	if (bytes == 0)
		return cudaSuccess;		/* as cudaMalloc: no memory, a NULL pointer */
	err = cudaGetDevice(&device);
	if (err != cudaSuccess)
		return err;
	if (device < 0 || device >= GS_POOL_MAX_DEVICES)
		return cudaMalloc(ptr, bytes);

	pthread_mutex_lock(&pool_lock);
	for (PoolBlock **link = &idle_blocks[device]; *link != NULL; link = &(*link)->next)
	{
		if ((*link)->bytes == want)
		{
			b = *link;
			*link = b->next;
			idle_bytes[device] -= want;
			break;
		}
	}
	pthread_mutex_unlock(&pool_lock);

	if (b == NULL)
	{
		b = (PoolBlock *) calloc(1, sizeof(PoolBlock));
		if (b == NULL)
			return cudaErrorMemoryAllocation;
		err = cudaMalloc(&b->ptr, want);
		if (err == cudaErrorMemoryAllocation)
		{
			/* idle blocks of other sizes may be what the driver lacks */
			(void) cudaGetLastError();
			pthread_mutex_lock(&pool_lock);
			trim_locked(device);
			pthread_mutex_unlock(&pool_lock);
			err = cudaMalloc(&b->ptr, want);
		}
		if (err != cudaSuccess)
		{
			free(b);
			return err;
		}
		b->bytes = want;
		b->device = device;
	}

	pthread_mutex_lock(&pool_lock);
	b->next = busy_blocks;
	busy_blocks = b;
	pthread_mutex_unlock(&pool_lock);
	*ptr = b->ptr;
	return cudaSuccess;
}

void
gs_dev_free(void *ptr)
{
	PoolBlock  *b = NULL;

	if (ptr == NULL)
		return;
	/* what the device still runs may use the block, as cudaFree would wait for */
	(void) cudaDeviceSynchronize();
	(void) cudaGetLastError();

	pthread_mutex_lock(&pool_lock);
	for (PoolBlock **link = &busy_blocks; *link != NULL; link = &(*link)->next)
	{
		if ((*link)->ptr == ptr)
		{
			b = *link;
			*link = b->next;
			break;
		}
	}
	if (b != NULL && idle_bytes[b->device] + b->bytes <= pool_idle_max)
	{
		b->next = idle_blocks[b->device];
		idle_blocks[b->device] = b;
		idle_bytes[b->device] += b->bytes;
		b = NULL;
		ptr = NULL;
	}
	pthread_mutex_unlock(&pool_lock);

	/* past the cap, or not the pool's (a device past GS_POOL_MAX_DEVICES) */
	if (ptr != NULL)
		(void) cudaFree(ptr);
	free(b);
}

extern "C" void
gs_device_pool_enable(size_t idle_bytes_max)
{
	pool_idle_max = idle_bytes_max;
}

size_t
gs_device_pool_idle_bytes(void)
{
	int			device = 0;
	size_t		bytes;

	if (cudaGetDevice(&device) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return 0;
	}
	if (device < 0 || device >= GS_POOL_MAX_DEVICES)
		return 0;
	pthread_mutex_lock(&pool_lock);
	bytes = idle_bytes[device];
	pthread_mutex_unlock(&pool_lock);
	return bytes;
}

extern "C" void
gs_device_pool_trim(void)
{
	int			device = 0;

	if (cudaGetDevice(&device) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return;
	}
	if (device < 0 || device >= GS_POOL_MAX_DEVICES)
		return;
	pthread_mutex_lock(&pool_lock);
	trim_locked(device);
	pthread_mutex_unlock(&pool_lock);
}
