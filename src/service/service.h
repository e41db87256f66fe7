/*
 * service.h
 *	  The GPU service: with gpusel in shared_preload_libraries, one process
 *	  of the cluster owns the GPUs and every backend sends it its device
 *	  work.  Its parts: the staging region (service_region.c), the
 *	  supervisor background worker (service_worker.c), the device process
 *	  (service_device.c), a backend's client (service_client.c, service_calls.c) and the SQL
 *	  functions that show its state (service_sql.c).
 */
#ifndef GPUSEL_SERVICE_H
#define GPUSEL_SERVICE_H

#include "postgres.h"

#include "device_calls.h"
#include "service_shared.h"

/* how long gpusel.device = gpu waits for a service that is starting */
#define GPUSEL_SERVICE_START_WAIT_MS 30000

extern void GpuselServiceInit(void);
extern bool GpuselServiceConfigured(void);
extern bool GpuselServiceUsable(gs_device_info *info);
extern bool GpuselServiceAwaitUp(int timeout_ms);
extern const GpuselDeviceCalls *GpuselServiceCalls(void);
extern int	GpuselServiceTestRequest(GpuselServiceOp op, int64 arg);
extern double GpuselServiceWaitMs;
extern bool GpuselServiceHasGpu(void);
extern bool GpuselServiceResidentCurrent(uint64 handle);

#endif							/* GPUSEL_SERVICE_H */
