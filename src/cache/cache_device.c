/*
 * cache_device.c
 *	  A cached table's copy in device memory: with the GPU service, the
 *	  build also copies every cached column to each GPU, where the service
 *	  keeps it for every connection, so scans filter and aggregate it
 *	  without moving it again.
 *
 * The copy is laid out for the kernels, not in segments: each column's
 * values for all the rows, then its null bytes (only where the column has
 * NULLs), each part on a 256-byte boundary; so any run of rows is one
 * stretch of each column.  The host copy stays: it answers the CPU path,
 * hands the scan its rows' TIDs, and serves while the service restarts.
 * This file knows the entry and the device; the registry accounts for the
 * copies' memory (GpuselCacheReserveDevice) and the build decides when to
 * make one (cache_build.c).
 */
#include "postgres.h"

#include "miscadmin.h"

#include "cache_internal.h"
#include "device.h"
#include "device_calls.h"

#define GPUSEL_CACHE_DEVICE_ALIGN	256

/* Lays the entry's columns out for the device; returns the copy's bytes. */
Size
GpuselCacheDeviceLayout(GpuselCacheEntry *e)
{
	Size		at = 0;

	for (int k = 0; k < e->ncols; k++)
	{
		e->dev_values_off[k] = at;
		at = TYPEALIGN(GPUSEL_CACHE_DEVICE_ALIGN, at + (Size) e->nrows * gs_coltype_width(e->coltypes[k]));
		e->dev_nulls_off[k] = -1;
		if (e->has_nulls[k])
		{
			e->dev_nulls_off[k] = at;
			at = TYPEALIGN(GPUSEL_CACHE_DEVICE_ALIGN, at + (Size) e->nrows);
		}
	}
	return Max(at, GPUSEL_CACHE_DEVICE_ALIGN);
}

/* Copies every segment's columns to their places in the device copy. */
static gs_status
copy_segments(GpuselCacheEntry *e, dsa_area *area, char *errbuf, size_t errlen)
{
	dsa_pointer *segs = dsa_get_address(area, e->segments);

	for (int s = 0; s < e->nsegments; s++)
	{
		char	   *base = dsa_get_address(area, segs[s]);
		int64		first = (int64) s * GPUSEL_CACHE_SEGMENT_ROWS;
		int64		n = Min((int64) GPUSEL_CACHE_SEGMENT_ROWS, e->nrows - first);

		CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < e->ncols && n > 0; k++)
		{
			Size		w = gs_coltype_width(e->coltypes[k]);
			gs_status	st;

			st = GpuselDev->resident_write(e->resident, e->dev_values_off[k] + first * w,
										   base + e->values_off[k], n * w, errbuf, errlen);
			if (st == GS_OK && e->dev_nulls_off[k] >= 0)
				st = GpuselDev->resident_write(e->resident, e->dev_nulls_off[k] + first,
											   base + e->nulls_off[k], n, errbuf, errlen);
			if (st != GS_OK)
				return st;
		}
	}
	return GS_OK;
}

/*
 * Makes the entry's device copy, laid out already, under the service's
 * key 'key' (its registry slot), from the host copy in 'area'.  On failure
 * the entry has no copy and errbuf says why.
 */
gs_status
GpuselCacheCopyToDevice(GpuselCacheEntry *e, int key, dsa_area *area, Size bytes,
						char *errbuf, size_t errlen)
{
	gs_status	st;

	st = GpuselDev->resident_create(&e->resident, key, bytes, errbuf, errlen);
	if (st == GS_OK)
		st = copy_segments(e, area, errbuf, errlen);
	if (st != GS_OK)
		GpuselCacheDropDevice(e);
	return st;
}

/* Gives the entry's device copy up (the service frees it at its next sweep). */
void
GpuselCacheDropDevice(GpuselCacheEntry *e)
{
	if (e->resident != 0)
		GpuselDev->resident_destroy(e->resident);
	e->resident = 0;
}

/* Whether the entry's device copy is held now, for this process to read. */
bool
GpuselCacheOnDevice(const GpuselCacheEntry *e)
{
	return e->resident != 0 && GpuselDeviceResidentCurrent(e->resident);
}
