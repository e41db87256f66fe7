/*
 * service_client.h
 *	  A backend's connection to the GPU service (service_client.c), for the
 *	  calls that go through it (service_calls.c).
 */
#ifndef GPUSEL_SERVICE_CLIENT_H
#define GPUSEL_SERVICE_CLIENT_H

#include "postgres.h"

#include "gpusel_cuda.h"
#include "gpusel_filter.h"
#include "service_shared.h"

/* The bounce block: a call's scratch space in the region, before blocks of its own. */
#define GPUSEL_CLIENT_BOUNCE_BYTES	(1024 * 1024)

/* A handle of an object the service holds, tagged with its connection. */
typedef struct RemoteObject
{
	uint64		remote;			/* the service's handle */
	uint64		serial;			/* the connection it belongs to */
	int			ncols;			/* filters */
	int			nslots;
	void	   *values[2][GS_MAX_PROGRAM_LENGTH];
	uint8	   *nulls[2][GS_MAX_PROGRAM_LENGTH];
} RemoteObject;

extern bool GpuselClientBegin(GpuselServiceRequest *req, GpuselServiceOp op);
extern bool GpuselClientBeginOn(GpuselServiceRequest *req, GpuselServiceOp op, const void *obj,
								char *errbuf, size_t errlen);
extern void GpuselClientRoundtrip(GpuselServiceRequest *req, GpuselServiceReply *rep);
extern gs_status GpuselClientCall(GpuselServiceRequest *req, GpuselServiceReply *rep,
								  char *errbuf, size_t errlen);
extern gs_status GpuselClientNoService(char *errbuf, size_t errlen);
extern gs_status GpuselClientNoRoom(char *errbuf, size_t errlen);
extern bool GpuselClientCurrent(const RemoteObject *obj);
extern void GpuselClientArenaBegin(void);
extern void *GpuselClientArenaGet(Size bytes);
extern void GpuselClientArenaEnd(void);
extern uint64 GpuselClientArenaInput(const void *ptr, Size bytes);
extern RemoteObject *GpuselClientNewObject(uint64 remote);
extern void GpuselClientDestroyObject(RemoteObject *obj, GpuselServiceOp op);
extern gs_status GpuselClientProbe(gs_device_info *info);
extern gs_status GpuselClientHostAlloc(void **ptr, size_t bytes);
extern void GpuselClientHostFree(void *ptr);

#endif							/* GPUSEL_SERVICE_CLIENT_H */
