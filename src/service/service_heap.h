/*
 * service_heap.h
 *	  The device process's allocator of the staging region (service_heap.c).
 */
#ifndef GPUSEL_SERVICE_HEAP_H
#define GPUSEL_SERVICE_HEAP_H

#include "service_shared.h"

extern void GpuselServiceHeapRecover(void);
extern void *GpuselServiceHeapAlloc(uint64 bytes, pid_t owner);
extern bool GpuselServiceHeapFree(void *ptr, pid_t owner);
extern void GpuselServiceHeapFreeOwner(pid_t owner);
extern void GpuselServiceHeapSetOwner(pid_t owner);
extern void *GpuselServiceHeapAllocForCuda(size_t bytes);
extern void GpuselServiceHeapFreeForCuda(void *ptr);

#endif							/* GPUSEL_SERVICE_HEAP_H */
