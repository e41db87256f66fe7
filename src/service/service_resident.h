/*
 * service_resident.h
 *	  Device memory the GPU service keeps across connections: the column
 *	  cache's device copies (service_resident.c).  Device process only.
 */
#ifndef GPUSEL_SERVICE_RESIDENT_H
#define GPUSEL_SERVICE_RESIDENT_H

#include "gpusel_filter.h"
#include "service_shared.h"

/* Pieces one gathered write copies at most: a chunk's values and null bytes of every column. */
#define GPUSEL_RESIDENT_MAX_PIECES	(2 * GS_MAX_PROGRAM_LENGTH)

extern void GpuselResidentSetDevices(int ndevices);
extern gs_status GpuselResidentCreate(int key, uint64 bytes, int home_device, uint64 *id,
									  char *errbuf, size_t errlen);
extern gs_status GpuselResidentWrite(uint64 id, uint64 offset, const void *src, uint64 bytes,
									 int home_device, char *errbuf, size_t errlen);
extern gs_status GpuselResidentWritePieces(uint64 id, int n, const int64 *desc, int home_device,
										   char *errbuf, size_t errlen);
extern gs_status GpuselResidentRepack(uint64 id, uint64 new_bytes, int nmoves, const int64 *moves,
									  int home_device, char *errbuf, size_t errlen);
extern void GpuselResidentSweep(int home_device);
extern gs_status GpuselResidentColumns(uint64 id, int device, int64 nrows, int ncols,
									   const gs_coltype *coltypes, const int64 *offsets,
									   gs_device_column *cols, char *errbuf, size_t errlen);

#endif							/* GPUSEL_SERVICE_RESIDENT_H */
