/*
 * service_heap.h
 *	  The device process's allocator of the staging region (service_heap.c).
 */
#ifndef GPUSEL_SERVICE_HEAP_H
#define GPUSEL_SERVICE_HEAP_H

#include "service_shared.h"

extern void GpuselServiceHeapRecover(void);
extern void *GpuselServiceHeapAlloc(uint64 bytes, pid_t owner, uint64 conn);
extern bool GpuselServiceHeapFree(void *ptr, uint64 conn);
extern void GpuselServiceHeapFreeConnection(uint64 conn);
extern void GpuselServiceHeapFreeOrphans(pid_t owner, uint32 generation);
extern void GpuselServiceHeapSetOwner(pid_t owner, uint64 conn);
extern void *GpuselServiceHeapAllocForCuda(size_t bytes);
extern void GpuselServiceHeapFreeForCuda(void *ptr);

#endif							/* GPUSEL_SERVICE_HEAP_H */
