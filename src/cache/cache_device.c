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
 * A copy that does not fit gpusel.cache_device_memory, or the device, is
 * not made and a notice says so; the host copy serves alone.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "cache_internal.h"
#include "device.h"
#include "device_calls.h"
#include "guc.h"

#define GPUSEL_CACHE_DEVICE_ALIGN	256

/* Lays the entry's columns out for the device; returns the copy's bytes. */
static Size
layout(GpuselCacheEntry *e)
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

/* Takes bytes of the per-GPU budget for the entry; false when they do not fit. */
static bool
reserve_device(GpuselCacheEntry *e, Size bytes, Size *in_use)
{
	GpuselCacheShared *reg = GpuselCacheRegistry();
	Size		limit = (Size) gpusel_cache_device_memory_mb * 1024 * 1024;
	bool		fits;

	LWLockAcquire(reg->lock, LW_EXCLUSIVE);
	*in_use = reg->device_bytes_in_use;
	fits = reg->device_bytes_in_use + bytes <= limit;
	if (fits)
	{
		reg->device_bytes_in_use += bytes;
		e->device_bytes = bytes;
	}
	LWLockRelease(reg->lock);
	return fits;
}

/* Copies every segment's columns to their places in the device copy. */
static gs_status
copy_segments(GpuselCacheEntry *e, char *errbuf, size_t errlen)
{
	dsa_area   *area = GpuselCacheArea();
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
 * After a build has read the table: copies its columns to device memory
 * when the GPU service keeps such memory and the copy fits; else the
 * entry has no device copy, and a notice says why when that was not the
 * user's choice.
 */
void
GpuselCacheToDevice(GpuselCacheEntry *e)
{
	GpuselCacheShared *reg = GpuselCacheRegistry();
	Size		bytes;
	Size		in_use;
	char		errbuf[512];
	gs_status	st;

	e->resident = 0;
	e->device_bytes = 0;
	if (gpusel_cache_device_memory_mb == 0 || !GpuselDeviceKeepsResident())
		return;
	bytes = layout(e);
	if (!reserve_device(e, bytes, &in_use))
	{
		ereport(NOTICE,
				(errmsg("table's column cache kept in shared memory only"),
				 errdetail("Its device copy would take %zu MB; cached tables hold %zu MB of the %d MB gpusel.cache_device_memory allows.",
						   bytes / (1024 * 1024), in_use / (1024 * 1024), gpusel_cache_device_memory_mb),
				 errhint("Raise gpusel.cache_device_memory, or cache fewer columns.")));
		return;
	}
	errbuf[0] = '\0';
	st = GpuselDev->resident_create(&e->resident, (int) (e - reg->entries), bytes,
									errbuf, sizeof(errbuf));
	if (st == GS_OK)
		st = copy_segments(e, errbuf, sizeof(errbuf));
	if (st != GS_OK)
	{
		LWLockAcquire(reg->lock, LW_EXCLUSIVE);
		GpuselCacheReleaseDevice(e);
		LWLockRelease(reg->lock);
		ereport(NOTICE,
				(errmsg("table's column cache kept in shared memory only"),
				 errdetail("The GPU service could not keep its columns in device memory: %s", errbuf)));
	}
}

/* Gives the entry's device copy up; the caller holds the registry's lock exclusively. */
void
GpuselCacheReleaseDevice(GpuselCacheEntry *e)
{
	GpuselCacheShared *reg = GpuselCacheRegistry();

	if (e->resident != 0)
		GpuselDev->resident_destroy(e->resident);
	reg->device_bytes_in_use -= Min(reg->device_bytes_in_use, e->device_bytes);
	e->resident = 0;
	e->device_bytes = 0;
}

/* Whether the entry's device copy is held now, for this process to read. */
bool
GpuselCacheOnDevice(const GpuselCacheEntry *e)
{
	return e->resident != 0 && GpuselDeviceResidentCurrent(e->resident);
}
