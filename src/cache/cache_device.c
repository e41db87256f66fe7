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

/*
 * Lays out a device copy that the build's processes write while they read
 * (GpuselCacheStreamRows), with room for capacity rows and null bytes for
 * every column; returns its bytes, for the build to count against the
 * device budget before it begins the copy.
 */
Size
GpuselCacheStreamLayout(const GpuselCacheEntry *e, int64 capacity, GpuselCacheDeviceStream *ds)
{
	Size		at = 0;

	memset(ds, 0, sizeof(*ds));
	pg_atomic_init_u32(&ds->stopped, 0);
	for (int k = 0; k < e->ncols; k++)
	{
		ds->values_off[k] = at;
		at = TYPEALIGN(GPUSEL_CACHE_DEVICE_ALIGN, at + (Size) capacity * gs_coltype_width(e->coltypes[k]));
		ds->nulls_off[k] = at;
		at = TYPEALIGN(GPUSEL_CACHE_DEVICE_ALIGN, at + (Size) capacity);
	}
	ds->capacity = capacity;
	ds->bytes = Max(at, GPUSEL_CACHE_DEVICE_ALIGN);
	return ds->bytes;
}

/*
 * Has the GPU service make the copy laid out, zeroed, under its key 'key'
 * (the entry's registry slot), and gives it to the entry; false, and no
 * copy, where the service cannot.
 */
bool
GpuselCacheStreamBegin(GpuselCacheEntry *e, int key, GpuselCacheDeviceStream *ds)
{
	char		errbuf[256];

	errbuf[0] = '\0';
	if (GpuselDev->resident_create(&ds->resident, key, ds->bytes, errbuf, sizeof(errbuf)) != GS_OK)
	{
		ereport(DEBUG1, (errmsg_internal("gpusel: no device copy while reading: %s", errbuf)));
		ds->resident = 0;
		return false;
	}
	/* the entry owns it now: an error in the build frees it with the entry's other parts */
	e->resident = ds->resident;
	return true;
}

/*
 * Writes a chunk's n rows, cache rows first.., to the copy being made
 * while reading.  A failure (or rows past its capacity) stops the copy for
 * every process, without an error: the build copies after the read.
 */
void
GpuselCacheStreamRows(GpuselCacheDeviceStream *ds, const GpuselCacheEntry *e,
					  const GpuselStaging *rows, const uint8 *has_nulls, int64 n, int64 first)
{
	char		errbuf[256];
	gs_status	st;
	uint64		offsets[2 * GS_MAX_PROGRAM_LENGTH];
	uint64		bytes[2 * GS_MAX_PROGRAM_LENGTH];
	const void *srcs[2 * GS_MAX_PROGRAM_LENGTH];
	int			npieces = 0;

	if (ds->resident == 0 || n == 0 || pg_atomic_read_u32(&ds->stopped) != 0)
		return;
	if (first + n > ds->capacity)
	{
		pg_atomic_write_u32(&ds->stopped, 1);
		return;
	}
	/* every column's values, and null bytes where there are NULLs, in one call */
	errbuf[0] = '\0';
	for (int c = 0; c < e->ncols; c++)
	{
		Size		w = gs_coltype_width(e->coltypes[c]);

		offsets[npieces] = ds->values_off[c] + first * w;
		srcs[npieces] = rows->values[c];
		bytes[npieces++] = n * w;
		if (has_nulls[c])
		{
			offsets[npieces] = ds->nulls_off[c] + first;
			srcs[npieces] = rows->nulls[c];
			bytes[npieces++] = n;
		}
	}
	st = GpuselDev->resident_write_pieces(ds->resident, npieces, offsets, srcs, bytes,
										  errbuf, sizeof(errbuf));
	if (st != GS_OK)
	{
		ereport(DEBUG1, (errmsg_internal("gpusel: device copy while reading stopped: %s", errbuf)));
		pg_atomic_write_u32(&ds->stopped, 1);
	}
}

/*
 * After a read whose copy was written whole: moves it into the entry's own
 * layout for its rows (GpuselCacheDeviceLayout), in device memory, or,
 * where the device has no room for the move, keeps it where it was
 * written.  Returns the copy's bytes.
 */
Size
GpuselCacheStreamFinish(GpuselCacheEntry *e, GpuselCacheDeviceStream *ds)
{
	int64		moves[GS_MAX_PROGRAM_LENGTH * 2 * 3];
	int			nmoves = 0;
	Size		bytes = GpuselCacheDeviceLayout(e);
	char		errbuf[256];

	for (int k = 0; k < e->ncols; k++)
	{
		moves[3 * nmoves] = ds->values_off[k];
		moves[3 * nmoves + 1] = e->dev_values_off[k];
		moves[3 * nmoves + 2] = e->nrows * gs_coltype_width(e->coltypes[k]);
		nmoves++;
		if (e->dev_nulls_off[k] >= 0)
		{
			moves[3 * nmoves] = ds->nulls_off[k];
			moves[3 * nmoves + 1] = e->dev_nulls_off[k];
			moves[3 * nmoves + 2] = e->nrows;
			nmoves++;
		}
	}
	errbuf[0] = '\0';
	if (GpuselDev->resident_repack(ds->resident, bytes, nmoves, moves, errbuf, sizeof(errbuf)) == GS_OK)
		return bytes;
	ereport(DEBUG1, (errmsg_internal("gpusel: device copy kept as written: %s", errbuf)));
	for (int k = 0; k < e->ncols; k++)
	{
		e->dev_values_off[k] = ds->values_off[k];
		e->dev_nulls_off[k] = e->has_nulls[k] ? ds->nulls_off[k] : -1;
	}
	return ds->bytes;
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
