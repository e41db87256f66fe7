/*
 * service_resident.c
 *	  The device process's table of resident device memory: one copy per
 *	  GPU of each cached table's columns, which outlives the connection that
 *	  wrote it and serves every connection.
 *
 * A copy is named by an id that carries the device process's generation,
 * so an id from before a restart names nothing.  Each carries the cache's
 * key (the registry slot that owns it): a new copy for a key frees any
 * older one of that key, so a copy whose owner could not free it (its
 * backend died) is freed at the latest when the slot is built again.
 * Threads of different connections call in at once: a mutex guards the
 * table.  The cache gives a copy up by clearing its key's wanted id in
 * the region (GpuselServiceShared.resident_wanted), which any process can
 * do at any time, even while it aborts; the memory is read by kernels only
 * while a scan pins its cache entry, so it is unwanted only after the
 * entry is unpinned, and a sweep frees it.  A scan that fails may unpin
 * before its filter is destroyed, with a batch still running over the
 * copy: the free is cudaFree, which waits for the device's work in flight,
 * so that batch ends first (a stream-ordered free would not do).
 */
#include "postgres.h"

#include <pthread.h>

#include "gpusel_cuda.h"
#include "service_resident.h"

typedef struct Resident
{
	uint64		id;				/* 0: the entry is free */
	int			key;
	uint64		bytes;
	void	   *ptr[GPUSEL_SERVICE_MAX_DEVICES];
} Resident;

static pthread_mutex_t resident_lock = PTHREAD_MUTEX_INITIALIZER;
static Resident residents[GPUSEL_SERVICE_MAX_RESIDENTS];
static int	resident_devices = 0;
static uint32 resident_serial = 0;

/* How many devices each copy goes to; set once at the process's start. */
void
GpuselResidentSetDevices(int ndevices)
{
	resident_devices = ndevices;
}

/* Frees an entry's device memory on every device; the caller holds the lock. */
static void
free_resident(Resident *r, int home_device)
{
	for (int d = 0; d < resident_devices; d++)
	{
		if (r->ptr[d] == NULL)
			continue;
		(void) gs_use_device(d, NULL, 0);
		gs_device_free(r->ptr[d]);
		r->ptr[d] = NULL;
	}
	if (resident_devices > 0)
		(void) gs_use_device(home_device, NULL, 0);
	memset(r, 0, sizeof(*r));
}

/* The entry of id, or NULL; the caller holds the lock. */
static Resident *
find_resident(uint64 id)
{
	for (int i = 0; i < GPUSEL_SERVICE_MAX_RESIDENTS; i++)
		if (id != 0 && residents[i].id == id)
			return &residents[i];
	return NULL;
}

/*
 * Allocates bytes on every device for key's new copy, freeing an older
 * copy of the same key first; the calling thread stays on home_device.
 */
gs_status
GpuselResidentCreate(int key, uint64 bytes, int home_device, uint64 *id,
					 char *errbuf, size_t errlen)
{
	Resident   *r = NULL;
	gs_status	st = GS_OK;

	*id = 0;
	if (key < 0 || key >= GPUSEL_SERVICE_MAX_RESIDENTS)
	{
		snprintf(errbuf, errlen, "the GPU service refused a request: cache key %d out of range", key);
		return GS_INVALID_ARGUMENT;
	}
	if (resident_devices == 0)
	{
		snprintf(errbuf, errlen, "the GPU service has no usable GPU");
		return GS_NO_DEVICE;
	}
	pthread_mutex_lock(&resident_lock);
	for (int i = 0; i < GPUSEL_SERVICE_MAX_RESIDENTS; i++)
		if (residents[i].id != 0 && residents[i].key == key)
			free_resident(&residents[i], home_device);
	for (int i = 0; i < GPUSEL_SERVICE_MAX_RESIDENTS && r == NULL; i++)
		if (residents[i].id == 0)
			r = &residents[i];
	if (r == NULL)
	{
		pthread_mutex_unlock(&resident_lock);
		snprintf(errbuf, errlen, "the GPU service holds %d cached tables already",
				 GPUSEL_SERVICE_MAX_RESIDENTS);
		return GS_OUT_OF_MEMORY;
	}
	for (int d = 0; d < resident_devices && st == GS_OK; d++)
	{
		st = gs_use_device(d, errbuf, errlen);
		if (st == GS_OK)
			st = gs_device_alloc(&r->ptr[d], bytes, errbuf, errlen);
		/* zeros where no write comes: a parallel build writes null bytes only where there are NULLs */
		if (st == GS_OK)
			st = gs_device_zero(r->ptr[d], bytes, errbuf, errlen);
	}
	r->key = key;
	r->bytes = bytes;
	r->id = ((uint64) pg_atomic_read_u32(&GpuselServiceRegion->generation) << 32) | ++resident_serial;
	if (st != GS_OK)
		free_resident(r, home_device);
	else
	{
		(void) gs_use_device(home_device, NULL, 0);
		*id = r->id;
		pg_atomic_write_u64(&GpuselServiceRegion->resident_wanted[key], r->id);
	}
	pthread_mutex_unlock(&resident_lock);
	return st;
}

/* Copies bytes at src (in the staging region) to offset of copy id, on every device. */
gs_status
GpuselResidentWrite(uint64 id, uint64 offset, const void *src, uint64 bytes, int home_device,
					char *errbuf, size_t errlen)
{
	Resident   *r;
	gs_status	st = GS_OK;

	pthread_mutex_lock(&resident_lock);
	r = find_resident(id);
	if (r == NULL || offset > r->bytes || bytes > r->bytes - offset)
	{
		pthread_mutex_unlock(&resident_lock);
		snprintf(errbuf, errlen, "the GPU service refused a request: a write outside cached device memory");
		return GS_INVALID_ARGUMENT;
	}
	for (int d = 0; d < resident_devices && st == GS_OK; d++)
	{
		st = gs_use_device(d, errbuf, errlen);
		if (st == GS_OK)
			st = gs_device_write((char *) r->ptr[d] + offset, src, bytes, errbuf, errlen);
	}
	(void) gs_use_device(home_device, NULL, 0);
	pthread_mutex_unlock(&resident_lock);
	return st;
}

/*
 * Copies n pieces (desc: offset, bytes, source address in the staging
 * region, for each) into copy id, on every device, queued together.
 */
gs_status
GpuselResidentWritePieces(uint64 id, int n, const int64 *desc, int home_device,
						  char *errbuf, size_t errlen)
{
	Resident   *r;
	gs_status	st = GS_OK;
	/* a thread of the device process: no palloc */
	uint64		offsets[GPUSEL_RESIDENT_MAX_PIECES];
	uint64		bytes[GPUSEL_RESIDENT_MAX_PIECES];
	const void *srcs[GPUSEL_RESIDENT_MAX_PIECES];

	if (n < 0 || n > GPUSEL_RESIDENT_MAX_PIECES)
	{
		snprintf(errbuf, errlen, "the GPU service refused a request: %d pieces", n);
		return GS_INVALID_ARGUMENT;
	}
	pthread_mutex_lock(&resident_lock);
	r = find_resident(id);
	for (int i = 0; i < n && r != NULL; i++)
	{
		offsets[i] = (uint64) desc[3 * i];
		bytes[i] = (uint64) desc[3 * i + 1];
		srcs[i] = (const void *) (uintptr_t) desc[3 * i + 2];
		if (desc[3 * i] < 0 || desc[3 * i + 1] < 0 || offsets[i] > r->bytes ||
			bytes[i] > r->bytes - offsets[i])
			r = NULL;
	}
	if (r == NULL)
	{
		pthread_mutex_unlock(&resident_lock);
		snprintf(errbuf, errlen, "the GPU service refused a request: a write outside cached device memory");
		return GS_INVALID_ARGUMENT;
	}
	for (int d = 0; d < resident_devices && st == GS_OK; d++)
	{
		st = gs_use_device(d, errbuf, errlen);
		if (st == GS_OK)
			st = gs_device_write_many(r->ptr[d], n, offsets, srcs, bytes, errbuf, errlen);
	}
	(void) gs_use_device(home_device, NULL, 0);
	pthread_mutex_unlock(&resident_lock);
	return st;
}

/*
 * Moves copy id into new memory of new_bytes on every device: move i copies
 * moves[3i + 2] bytes at offset moves[3i] of the old memory to offset
 * moves[3i + 1] of the new; then the old memory is freed.  On failure the
 * copy keeps its old memory and layout.
 */
gs_status
GpuselResidentRepack(uint64 id, uint64 new_bytes, int nmoves, const int64 *moves,
					 int home_device, char *errbuf, size_t errlen)
{
	Resident   *r;
	void	   *fresh[GPUSEL_SERVICE_MAX_DEVICES] = {0};
	gs_status	st = GS_OK;

	pthread_mutex_lock(&resident_lock);
	r = find_resident(id);
	if (r == NULL || new_bytes == 0 || nmoves < 0)
	{
		pthread_mutex_unlock(&resident_lock);
		snprintf(errbuf, errlen, "the GPU service refused a request: no such cached device memory");
		return GS_INVALID_ARGUMENT;
	}
	for (int i = 0; i < nmoves; i++)
	{
		int64		from = moves[3 * i];
		int64		to = moves[3 * i + 1];
		int64		bytes = moves[3 * i + 2];

		if (from < 0 || to < 0 || bytes < 0 ||
			(uint64) from > r->bytes || (uint64) bytes > r->bytes - (uint64) from ||
			(uint64) to > new_bytes || (uint64) bytes > new_bytes - (uint64) to)
		{
			pthread_mutex_unlock(&resident_lock);
			snprintf(errbuf, errlen, "the GPU service refused a request: a move outside cached device memory");
			return GS_INVALID_ARGUMENT;
		}
	}
	for (int d = 0; d < resident_devices && st == GS_OK; d++)
	{
		st = gs_use_device(d, errbuf, errlen);
		if (st == GS_OK)
			st = gs_device_alloc(&fresh[d], new_bytes, errbuf, errlen);
		if (st == GS_OK)
			st = gs_device_zero(fresh[d], new_bytes, errbuf, errlen);
		for (int i = 0; i < nmoves && st == GS_OK; i++)
			st = gs_device_copy((char *) fresh[d] + moves[3 * i + 1],
								(const char *) r->ptr[d] + moves[3 * i], (size_t) moves[3 * i + 2],
								errbuf, errlen);
	}
	for (int d = 0; d < resident_devices; d++)
	{
		void	   *unused = st == GS_OK ? r->ptr[d] : fresh[d];

		if (unused == NULL)
			continue;
		(void) gs_use_device(d, NULL, 0);
		gs_device_free(unused);
		if (st == GS_OK)
			r->ptr[d] = fresh[d];
	}
	if (st == GS_OK)
		r->bytes = new_bytes;
	(void) gs_use_device(home_device, NULL, 0);
	pthread_mutex_unlock(&resident_lock);
	return st;
}

/* Frees every copy whose key no longer wants it. */
void
GpuselResidentSweep(int home_device)
{
	pthread_mutex_lock(&resident_lock);
	for (int i = 0; i < GPUSEL_SERVICE_MAX_RESIDENTS; i++)
	{
		Resident   *r = &residents[i];

		if (r->id != 0 &&
			pg_atomic_read_u64(&GpuselServiceRegion->resident_wanted[r->key]) != r->id)
			free_resident(r, home_device);
	}
	pthread_mutex_unlock(&resident_lock);
}

/*
 * The device columns of a batch of nrows rows of copy id on device:
 * offsets[2c] is column c's first value, offsets[2c + 1] its first null
 * byte (-1: no NULLs), -1 and -1 a column the batch does not have.  Every
 * column must lie inside the copy.
 */
gs_status
GpuselResidentColumns(uint64 id, int device, int64 nrows, int ncols, const gs_coltype *coltypes,
					  const int64 *offsets, gs_device_column *cols, char *errbuf, size_t errlen)
{
	Resident   *r;

	pthread_mutex_lock(&resident_lock);
	r = find_resident(id);
	if (r == NULL || device < 0 || device >= resident_devices || r->ptr[device] == NULL || nrows < 0)
	{
		pthread_mutex_unlock(&resident_lock);
		/* its device process restarted since the scan began: as any request of a lost service */
		snprintf(errbuf, errlen, "the GPU service no longer holds this table's cached columns");
		return GS_NO_DEVICE;
	}
	for (int c = 0; c < ncols; c++)
	{
		int64		voff = offsets[2 * c];
		int64		noff = offsets[2 * c + 1];
		uint64		width = gs_coltype_width(coltypes[c]);

		cols[c].values = NULL;
		cols[c].nulls = NULL;
		if (voff < 0)
			continue;
		/* a misaligned load would be a sticky error: every session's queries would fail */
		if ((uint64) voff % width != 0 ||
			(uint64) voff > r->bytes || (uint64) nrows * width > r->bytes - (uint64) voff ||
			(noff >= 0 && ((uint64) noff > r->bytes || (uint64) nrows > r->bytes - (uint64) noff)))
		{
			pthread_mutex_unlock(&resident_lock);
			snprintf(errbuf, errlen, "the GPU service refused a request: a column outside cached device memory");
			return GS_INVALID_ARGUMENT;
		}
		cols[c].values = (const char *) r->ptr[device] + voff;
		cols[c].nulls = noff >= 0 ? (const uint8_t *) r->ptr[device] + noff : NULL;
	}
	pthread_mutex_unlock(&resident_lock);
	return GS_OK;
}
