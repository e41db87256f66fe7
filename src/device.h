/*
 * device.h
 *	  gpusel's device layer: lazy GPU probe, the choice between GPU and CPU,
 *	  page-locked host memory, and translation of cuda/ status codes into
 *	  PostgreSQL errors.
 */
#ifndef GPUSEL_DEVICE_H
#define GPUSEL_DEVICE_H

#include "postgres.h"

#include "device_calls.h"
#include "gpusel_cuda.h"

extern void GpuselDeviceInit(void);
extern bool GpuselGpuUsable(void);
extern bool GpuselWantGpu(int64 nrows);
extern bool GpuselMayUseGpu(void);
extern bool GpuselMayPin(void);
extern bool GpuselPlanForGpu(double nrows);
extern void GpuselCountSelection(bool on_gpu);
extern void GpuselCountFallback(void);
extern bool GpuselDeviceIsService(void);
extern double GpuselDeviceWaitMs(void);
extern bool GpuselDeviceKeepsResident(void);
extern bool GpuselDeviceAwaitKeepsResident(void);
extern bool GpuselDeviceResidentCurrent(uint64 handle);

/* a grouped scan's group selects on the GPU from this many keys */
#define GPUSEL_SEGMENT_GPU_MIN_KEYS 65536
extern void *GpuselHostAlloc(Size bytes);
extern void GpuselHostFree(void *ptr);
extern void GpuselCheckStatus(gs_status status, const char *errbuf,
							  const char *what);

#endif							/* GPUSEL_DEVICE_H */
