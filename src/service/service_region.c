/*
 * service_region.c
 *	  The staging region the GPU service shares with every process of the
 *	  cluster (service_shared.h): mapped once by the postmaster.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "service_shared.h"

GpuselServiceShared *GpuselServiceRegion = NULL;

/*
 * Maps the region in the postmaster, before any child exists, and writes
 * its header.  Anonymous shared memory reserves no pages until they are
 * touched, so a machine without a GPU pays for the header alone.
 */
bool
GpuselServiceRegionCreate(uint64 bytes)
{
	void	   *base;
	GpuselServiceShared *shared;

	bytes = TYPEALIGN(GPUSEL_SERVICE_ALIGN, Max(bytes, sizeof(GpuselServiceShared) +
												  16 * GPUSEL_SERVICE_ALIGN));
	base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not map the gpusel service's staging region of %llu bytes: %m",
						(unsigned long long) bytes),
				 errdetail("The GPU service is off; each backend uses the GPU on its own.")));
		return false;
	}
	shared = (GpuselServiceShared *) base;
	memset(shared, 0, sizeof(GpuselServiceShared));
	shared->magic = GPUSEL_SERVICE_MAGIC;
	shared->region_bytes = bytes;
	shared->heap_offset = TYPEALIGN(GPUSEL_SERVICE_ALIGN, sizeof(GpuselServiceShared));
	snprintf(shared->socket_name, sizeof(shared->socket_name), "gpusel-service-%d", (int) getpid());
	pg_atomic_init_u32(&shared->state, GPUSEL_SERVICE_STOPPED);
	pg_atomic_init_u32(&shared->generation, 0);
	pg_atomic_init_u64(&shared->restarts, 0);
	pg_atomic_init_u32(&shared->clients, 0);
	pg_atomic_init_u32(&shared->in_flight, 0);
	pg_atomic_init_u64(&shared->requests, 0);
	pg_atomic_init_u64(&shared->errors, 0);
	pg_atomic_init_u64(&shared->heap_in_use, 0);
	for (int i = 0; i < GPUSEL_SERVICE_MAX_RESIDENTS; i++)
		pg_atomic_init_u64(&shared->resident_wanted[i], 0);
	for (int d = 0; d < GPUSEL_SERVICE_MAX_DEVICES; d++)
	{
		pg_atomic_init_u32(&shared->devices[d].clients, 0);
		pg_atomic_init_u64(&shared->devices[d].requests, 0);
	}
	GpuselServiceRegion = shared;
	return true;
}

/*
 * The service's socket address: the abstract AF_UNIX name in the region's
 * header (a leading NUL, then the name).  Returns its length for bind and
 * connect.  Plain C: the device process calls it too.
 */
socklen_t
GpuselServiceSocketAddress(struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	strlcpy(addr->sun_path + 1, GpuselServiceRegion->socket_name, sizeof(addr->sun_path) - 1);
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(GpuselServiceRegion->socket_name);
}

/* Whether bytes at ptr lie wholly inside the region's heap. */
bool
GpuselServiceInRegion(const void *ptr, uint64 bytes)
{
	const char *base = (const char *) GpuselServiceRegion;
	const char *p = (const char *) ptr;

	if (base == NULL || p == NULL)
		return false;
	return p >= base + GpuselServiceRegion->heap_offset &&
		p <= base + GpuselServiceRegion->region_bytes &&
		bytes <= (uint64) (base + GpuselServiceRegion->region_bytes - p);
}
