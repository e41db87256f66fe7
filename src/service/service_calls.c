/*
 * service_calls.c
 *	  cuda/'s calls (device_calls.h) as requests to the GPU service: each
 *	  stub puts its arguments in the staging region (in place when they lie
 *	  there already, else copied into the call's scratch space), sends the
 *	  request on the backend's connection (service_client.c), and copies
 *	  results out.  Objects the service holds are handles tagged with their
 *	  connection; one of a connection that is gone is left alone.
 */
#include "postgres.h"

#include "device_calls.h"
#include "service.h"
#include "service_client.h"

static gs_status
svc_memory_in_use(uint64_t *used_bytes)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*used_bytes = 0;
	if (!GpuselClientBegin(&req, GSVC_MEMORY_IN_USE))
		return GS_NO_DEVICE;
	st = GpuselClientCall(&req, &rep, NULL, 0);
	*used_bytes = rep.r[0];
	return st;
}

static gs_status
svc_select_keys(int key_bytes, const void *const *chunks, const int64_t *chunk_counts,
				int nchunks, int64_t n, const int64_t *ranks, int nranks, void *out_keys,
				const volatile int *cancel, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	void	  **chunk_table;
	gs_status	st;

	if (!GpuselClientBegin(&req, GSVC_SELECT_KEYS))
		return GpuselClientNoService(errbuf, errlen);
	GpuselClientArenaBegin();
	chunk_table = GpuselClientArenaGet(sizeof(void *) * Max(nchunks, 1));
	if (chunk_table == NULL)
		return GpuselClientNoRoom(errbuf, errlen);
	for (int i = 0; i < nchunks; i++)
		if ((chunk_table[i] = (void *) (uintptr_t) GpuselClientArenaInput(chunks[i], chunk_counts[i] * key_bytes)) == NULL)
			return GpuselClientNoRoom(errbuf, errlen);
	req.a[0] = key_bytes;
	req.a[1] = nchunks;
	req.a[2] = n;
	req.a[3] = nranks;
	req.p[0] = (uint64) (uintptr_t) chunk_table;
	req.p[1] = GpuselClientArenaInput(chunk_counts, sizeof(int64) * nchunks);
	req.p[2] = GpuselClientArenaInput(ranks, sizeof(int64) * nranks);
	req.p[3] = (uint64) (uintptr_t) GpuselClientArenaGet((Size) key_bytes * nranks);
	if (req.p[1] == 0 || req.p[2] == 0 || req.p[3] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[3], (Size) key_bytes * nranks);
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_pairs_create(gs_pairs **pairs, int key_bytes, int with_groups, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*pairs = NULL;
	if (!GpuselClientBegin(&req, GSVC_PAIRS_CREATE))
		return GpuselClientNoService(errbuf, errlen);
	req.a[0] = key_bytes;
	req.a[1] = with_groups;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
	{
		RemoteObject *obj = GpuselClientNewObject(rep.p[0]);

		obj->ncols = key_bytes;	/* pairs: their key width */
		obj->nslots = with_groups;
		*pairs = (gs_pairs *) obj;
	}
	return st;
}

static gs_status
svc_pairs_append(gs_pairs *pairs, const void *keys, const uint32_t *groups, int64_t n,
				 char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	int64		step = (GPUSEL_CLIENT_BOUNCE_BYTES / 2) / 8;

	/* in pieces that fit the bounce block */
	for (int64 done = 0; done < n; done += step)
	{
		GpuselServiceRequest req;
		GpuselServiceReply rep;
		int64		count = Min(step, n - done);
		gs_status	st;

		if (!GpuselClientBeginOn(&req, GSVC_PAIRS_APPEND, obj, errbuf, errlen))
			return GS_CUDA_ERROR;
		GpuselClientArenaBegin();
		req.a[0] = count;
		req.p[0] = GpuselClientArenaInput((const char *) keys + done * obj->ncols, count * obj->ncols);
		if (groups != NULL)
			req.p[1] = GpuselClientArenaInput(groups + done, count * sizeof(uint32));
		if (req.p[0] == 0 || (groups != NULL && req.p[1] == 0))
			return GpuselClientNoRoom(errbuf, errlen);
		st = GpuselClientCall(&req, &rep, errbuf, errlen);
		GpuselClientArenaEnd();
		if (st != GS_OK)
			return st;
	}
	return GS_OK;
}

static int64_t
svc_pairs_count(const gs_pairs *pairs)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;

	if (!GpuselClientBeginOn(&req, GSVC_PAIRS_COUNT, pairs, NULL, 0))
		return 0;
	GpuselClientRoundtrip(&req, &rep);
	return rep.r[0];
}

static gs_status
svc_pairs_read(gs_pairs *pairs, void *keys, uint32_t *groups, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	int64		n = svc_pairs_count(pairs);
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_PAIRS_READ, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.p[0] = (uint64) (uintptr_t) GpuselClientArenaGet(n * obj->ncols);
	if (groups != NULL)
		req.p[1] = (uint64) (uintptr_t) GpuselClientArenaGet(n * sizeof(uint32));
	if (req.p[0] == 0 || (groups != NULL && req.p[1] == 0))
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
	{
		memcpy(keys, (void *) (uintptr_t) req.p[0], n * obj->ncols);
		if (groups != NULL)
			memcpy(groups, (void *) (uintptr_t) req.p[1], n * sizeof(uint32));
	}
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_pairs_sort_pick(gs_pairs *pairs, int64_t ngroups, const int64_t *positions,
					int64_t npositions, void *out_keys, const volatile int *cancel,
					char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_PAIRS_SORT_PICK, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.a[0] = ngroups;
	req.a[1] = npositions;
	req.p[0] = GpuselClientArenaInput(positions, sizeof(int64) * npositions);
	req.p[1] = (uint64) (uintptr_t) GpuselClientArenaGet(8 * npositions);
	if (req.p[0] == 0 || req.p[1] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[1], (Size) obj->ncols * npositions);
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_pairs_select(gs_pairs *pairs, const int64_t *ranks, int nranks, void *out_keys,
				 const volatile int *cancel, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_PAIRS_SELECT, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.a[0] = nranks;
	req.p[0] = GpuselClientArenaInput(ranks, sizeof(int64) * nranks);
	req.p[1] = (uint64) (uintptr_t) GpuselClientArenaGet(8 * (Size) nranks);
	if (req.p[0] == 0 || req.p[1] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[1], (Size) obj->ncols * nranks);
	GpuselClientArenaEnd();
	return st;
}

static void
svc_pairs_destroy(gs_pairs *pairs)
{
	GpuselClientDestroyObject((RemoteObject *) pairs, GSVC_PAIRS_DESTROY);
}

/* gs_sort_by_group and gs_sort_by_group_pick: npositions < 0 for the first. */
static gs_status
sort_pairs(int key_bytes, const void *keys, const uint32_t *groups, int64_t n, int64_t ngroups,
		   const int64_t *positions, int64_t npositions, void *out_keys,
		   const volatile int *cancel, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	int64		nout = npositions < 0 ? n : npositions;
	gs_status	st;

	if (!GpuselClientBegin(&req, npositions < 0 ? GSVC_SORT_BY_GROUP : GSVC_SORT_BY_GROUP_PICK))
		return GpuselClientNoService(errbuf, errlen);
	GpuselClientArenaBegin();
	req.a[0] = key_bytes;
	req.a[1] = n;
	req.a[2] = ngroups;
	req.p[0] = GpuselClientArenaInput(keys, (Size) key_bytes * n);
	req.p[1] = GpuselClientArenaInput(groups, sizeof(uint32) * n);
	req.p[2] = (uint64) (uintptr_t) GpuselClientArenaGet((Size) key_bytes * nout);
	if (npositions >= 0)
	{
		req.a[3] = npositions;
		req.p[3] = GpuselClientArenaInput(positions, sizeof(int64) * npositions);
	}
	if (req.p[0] == 0 || req.p[1] == 0 || req.p[2] == 0 || (npositions > 0 && req.p[3] == 0))
		return GpuselClientNoRoom(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[2], (Size) key_bytes * nout);
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_sort_by_group(int key_bytes, const void *keys, const uint32_t *groups, int64_t n,
				  int64_t ngroups, void *out_keys, const volatile int *cancel,
				  char *errbuf, size_t errlen)
{
	return sort_pairs(key_bytes, keys, groups, n, ngroups, NULL, -1, out_keys, cancel,
					  errbuf, errlen);
}

static gs_status
svc_sort_by_group_pick(int key_bytes, const void *keys, const uint32_t *groups, int64_t n,
					   int64_t ngroups, const int64_t *positions, int64_t npositions,
					   void *out_keys, const volatile int *cancel, char *errbuf, size_t errlen)
{
	return sort_pairs(key_bytes, keys, groups, n, ngroups, positions, npositions, out_keys,
					  cancel, errbuf, errlen);
}

static gs_status
svc_filter_create(gs_filter **filter, const gs_program *program, int ncols,
				  const gs_coltype *coltypes, int64_t max_rows, int64_t staging_rows, int nslots,
				  char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	void	  **table;
	gs_status	st;

	*filter = NULL;
	if (ncols < 0 || ncols > GS_MAX_PROGRAM_LENGTH || nslots < 1 || nslots > 2)
		return GS_INVALID_ARGUMENT;
	if (!GpuselClientBegin(&req, GSVC_FILTER_CREATE))
		return GpuselClientNoService(errbuf, errlen);
	GpuselClientArenaBegin();
	req.a[0] = program->ncode;
	req.a[1] = program->nconsts;
	req.a[2] = program->max_stack;
	req.a[3] = ncols;
	req.a[4] = max_rows;
	req.a[5] = nslots;
	req.a[6] = staging_rows;
	req.p[0] = GpuselClientArenaInput(program->code, sizeof(gs_instr) * Max(program->ncode, 1));
	if (program->nconsts > 0)
		req.p[1] = GpuselClientArenaInput(program->consts, sizeof(gs_const) * program->nconsts);
	req.p[2] = GpuselClientArenaInput(coltypes, sizeof(gs_coltype) * Max(ncols, 1));
	table = GpuselClientArenaGet(sizeof(void *) * 2 * nslots * Max(ncols, 1));
	req.p[3] = (uint64) (uintptr_t) table;
	if (req.p[0] == 0 || (program->nconsts > 0 && req.p[1] == 0) || req.p[2] == 0 || table == NULL)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
	{
		RemoteObject *obj = GpuselClientNewObject(rep.p[0]);

		obj->ncols = ncols;
		obj->nslots = nslots;
		for (int s = 0; s < nslots; s++)
			for (int c = 0; c < ncols; c++)
			{
				obj->values[s][c] = table[2 * (s * ncols + c)];
				obj->nulls[s][c] = table[2 * (s * ncols + c) + 1];
			}
		*filter = (gs_filter *) obj;
	}
	GpuselClientArenaEnd();
	return st;
}

static void *
svc_filter_values(gs_filter *filter, int slot, int col)
{
	RemoteObject *obj = (RemoteObject *) filter;

	if (obj == NULL || slot < 0 || slot >= obj->nslots || col < 0 || col >= obj->ncols)
		return NULL;
	return obj->values[slot][col];
}

static uint8_t *
svc_filter_nulls(gs_filter *filter, int slot, int col)
{
	RemoteObject *obj = (RemoteObject *) filter;

	if (obj == NULL || slot < 0 || slot >= obj->nslots || col < 0 || col >= obj->ncols)
		return NULL;
	return obj->nulls[slot][col];
}

static gs_status
svc_filter_ship_columns(gs_filter *filter, const uint8_t *cols, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) filter;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_FILTER_SHIP, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.p[0] = GpuselClientArenaInput(cols, Max(obj->ncols, 1));
	if (req.p[0] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_filter_submit(gs_filter *filter, int slot, int64_t nrows, const uint8_t *has_nulls,
				  char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) filter;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_FILTER_SUBMIT, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.a[0] = slot;
	req.a[1] = nrows;
	req.p[0] = GpuselClientArenaInput(has_nulls, Max(obj->ncols, 1));
	if (req.p[0] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_filter_wait(gs_filter *filter, int slot, const uint32_t **positions, int64_t *count,
				int *row_error, double *device_ms, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_FILTER_WAIT, filter, errbuf, errlen))
		return GS_CUDA_ERROR;
	req.a[0] = slot;
	req.a[1] = positions == NULL;	/* they stay on the device */
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (positions != NULL)
		*positions = (const uint32_t *) (uintptr_t) rep.p[0];
	*count = rep.r[0];
	*row_error = (int) rep.r[1];
	*device_ms = rep.device_ms;
	return st;
}

static gs_status
svc_filter_positions(gs_filter *filter, int slot, const uint32_t **positions,
					 char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*positions = NULL;
	if (!GpuselClientBeginOn(&req, GSVC_FILTER_POSITIONS, filter, errbuf, errlen))
		return GS_CUDA_ERROR;
	req.a[0] = slot;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		*positions = (const uint32_t *) (uintptr_t) rep.p[0];
	return st;
}

static gs_status
svc_filter_submit_resident(gs_filter *filter, int slot, int64_t nrows, uint64_t handle,
						   const int64_t *offsets, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) filter;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_FILTER_SUBMIT_RESIDENT, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.h[1] = handle;
	req.a[0] = slot;
	req.a[1] = nrows;
	req.p[0] = GpuselClientArenaInput(offsets, sizeof(int64) * 2 * Max(obj->ncols, 1));
	if (req.p[0] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_resident_create(uint64_t *handle, int key, uint64_t bytes, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*handle = 0;
	if (!GpuselClientBegin(&req, GSVC_RESIDENT_CREATE))
		return GpuselClientNoService(errbuf, errlen);
	req.a[0] = key;
	req.a[1] = (int64) bytes;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		*handle = (uint64) rep.r[0];
	return st;
}

static gs_status
svc_resident_write(uint64_t handle, uint64_t offset, const void *src, uint64_t bytes,
				   char *errbuf, size_t errlen)
{
	/* in pieces that fit the bounce block: no block of their own per call */
	for (uint64 done = 0; done < bytes;)
	{
		GpuselServiceRequest req;
		GpuselServiceReply rep;
		uint64		piece = Min(bytes - done, (uint64) GPUSEL_CLIENT_BOUNCE_BYTES);
		gs_status	st;

		if (!GpuselClientBegin(&req, GSVC_RESIDENT_WRITE))
			return GpuselClientNoService(errbuf, errlen);
		GpuselClientArenaBegin();
		req.h[0] = handle;
		req.a[0] = (int64) (offset + done);
		req.a[1] = (int64) piece;
		req.p[0] = GpuselClientArenaInput((const char *) src + done, piece);
		if (req.p[0] == 0)
			return GpuselClientNoRoom(errbuf, errlen);
		st = GpuselClientCall(&req, &rep, errbuf, errlen);
		GpuselClientArenaEnd();
		if (st != GS_OK)
			return st;
		done += piece;
	}
	return GS_OK;
}

/* Sends pieces [from, to) of a gathered write; their sources already lie in the region. */
static gs_status
send_pieces(uint64_t handle, const int64 *desc, int from, int to, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBegin(&req, GSVC_RESIDENT_WRITE_PIECES))
		return GpuselClientNoService(errbuf, errlen);
	req.h[0] = handle;
	req.a[0] = to - from;
	req.p[0] = GpuselClientArenaInput(desc + 3 * from, sizeof(int64) * 3 * Max(to - from, 1));
	if (req.p[0] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	return st;
}

/*
 * Writes n pieces to copy handle in as few requests as the staging region
 * allows: a piece already in the region is sent where it lies, others are
 * copied into the call's scratch space first.
 */
static gs_status
svc_resident_write_pieces(uint64_t handle, int n, const uint64_t *offsets,
						  const void *const *srcs, const uint64_t *bytes,
						  char *errbuf, size_t errlen)
{
	int64	   *desc = palloc(sizeof(int64) * 3 * Max(n, 1));
	int			first = 0;
	gs_status	st = GS_OK;

	GpuselClientArenaBegin();
	for (int i = 0; i < n && st == GS_OK;)
	{
		uint64		src = GpuselClientArenaInput(srcs[i], bytes[i]);

		if (src == 0 && bytes[i] > 0)
		{
			/* the scratch space is full: send what it holds, then start again */
			if (i == first)
			{
				st = GpuselClientNoRoom(errbuf, errlen);
				break;
			}
			st = send_pieces(handle, desc, first, i, errbuf, errlen);
			GpuselClientArenaEnd();
			GpuselClientArenaBegin();
			first = i;
			continue;
		}
		desc[3 * i] = (int64) offsets[i];
		desc[3 * i + 1] = (int64) bytes[i];
		desc[3 * i + 2] = (int64) src;
		i++;
	}
	if (st == GS_OK && first < n)
		st = send_pieces(handle, desc, first, n, errbuf, errlen);
	GpuselClientArenaEnd();
	pfree(desc);
	return st;
}

static gs_status
svc_resident_repack(uint64_t handle, uint64_t bytes, int nmoves, const int64_t *moves,
					char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBegin(&req, GSVC_RESIDENT_REPACK))
		return GpuselClientNoService(errbuf, errlen);
	GpuselClientArenaBegin();
	req.h[0] = handle;
	req.a[0] = (int64) bytes;
	req.a[1] = nmoves;
	req.p[0] = GpuselClientArenaInput(moves, sizeof(int64) * 3 * Max(nmoves, 1));
	if (req.p[0] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	GpuselClientArenaEnd();
	return st;
}

/* Gives a copy up: its key no longer wants it, and the service frees it at its next sweep. */
static void
svc_resident_destroy(uint64_t handle)
{
	GpuselServiceShared *shared = GpuselServiceRegion;

	if (shared == NULL || handle == 0)
		return;
	for (int k = 0; k < GPUSEL_SERVICE_MAX_RESIDENTS; k++)
	{
		uint64		expected = handle;

		(void) pg_atomic_compare_exchange_u64(&shared->resident_wanted[k], &expected, 0);
	}
}

static void
svc_filter_destroy(gs_filter *filter)
{
	GpuselClientDestroyObject((RemoteObject *) filter, GSVC_FILTER_DESTROY);
}

static gs_status
svc_groups_create(gs_batch_groups **groups, int64_t max_rows, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*groups = NULL;
	if (!GpuselClientBegin(&req, GSVC_GROUPS_CREATE))
		return GpuselClientNoService(errbuf, errlen);
	req.a[0] = max_rows;
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		*groups = (gs_batch_groups *) GpuselClientNewObject(rep.p[0]);
	return st;
}

static gs_status
svc_groups_find(gs_batch_groups *groups, gs_filter *filter, int slot, int64_t from,
				int nkey_cols, const int *key_cols, int64_t *nkeys, const gs_batch_key **keys,
				char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*nkeys = 0;
	*keys = NULL;
	if (!GpuselClientBeginOn(&req, GSVC_GROUPS_FIND, groups, errbuf, errlen) || !GpuselClientCurrent((RemoteObject *) filter))
		return GS_CUDA_ERROR;
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.a[0] = slot;
	req.a[1] = from;
	req.a[2] = nkey_cols;
	for (int c = 0; c < nkey_cols && c < GS_GROUP_MAX_KEYS; c++)
		req.a[3 + c] = key_cols[c];
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	*nkeys = rep.r[0];
	*keys = (const gs_batch_key *) (uintptr_t) rep.p[0];
	/* the number of keys, for the group numbers of gs_batch_groups_add */
	((RemoteObject *) groups)->ncols = (int) Min(rep.r[0], INT_MAX);
	return st;
}

static gs_status
svc_groups_set_transforms(gs_batch_groups *groups, int nkey_cols,
						  const gs_key_transform *transforms, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;

	if (!GpuselClientBeginOn(&req, GSVC_GROUPS_TRANSFORMS, (RemoteObject *) groups, errbuf, errlen))
		return GS_CUDA_ERROR;
	req.a[0] = transforms == NULL ? 0 : nkey_cols;
	for (int c = 0; c < req.a[0] && c < GS_GROUP_MAX_KEYS; c++)
	{
		/* op and width in one argument, the constant in the next */
		req.a[1 + 2 * c] = ((int64) transforms[c].op << 1) | (transforms[c].is_int8 ? 1 : 0);
		req.a[2 + 2 * c] = transforms[c].constant;
	}
	return GpuselClientCall(&req, &rep, errbuf, errlen);
}

static gs_status
svc_groups_add(gs_batch_groups *groups, gs_filter *filter, const uint32_t *group_of_key,
			   int val_col, int key_kind, gs_pairs *pairs, const gs_batch_tally **tally,
			   char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) groups;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*tally = NULL;
	if (!GpuselClientBeginOn(&req, GSVC_GROUPS_ADD, obj, errbuf, errlen) ||
		!GpuselClientCurrent((RemoteObject *) filter) || !GpuselClientCurrent((RemoteObject *) pairs))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.h[2] = ((RemoteObject *) pairs)->remote;
	req.a[0] = val_col;
	req.a[1] = key_kind;
	req.a[2] = obj->ncols;
	if (group_of_key != NULL)
	{
		req.p[0] = GpuselClientArenaInput(group_of_key, sizeof(uint32) * Max(obj->ncols, 1));
		if (req.p[0] == 0)
			return GpuselClientNoRoom(errbuf, errlen);
	}
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	*tally = (const gs_batch_tally *) (uintptr_t) rep.p[0];
	GpuselClientArenaEnd();
	return st;
}

static gs_status
svc_groups_sum(gs_batch_groups *groups, gs_filter *filter, int nexprs, const gs_sum_expr *exprs,
			   const uint64_t **rows, const gs_sum_result **results, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*rows = NULL;
	*results = NULL;
	if (!GpuselClientBeginOn(&req, GSVC_GROUPS_SUM, groups, errbuf, errlen) ||
		!GpuselClientCurrent((RemoteObject *) filter))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.a[0] = nexprs;
	if (nexprs > 0)
	{
		req.p[0] = GpuselClientArenaInput(exprs, sizeof(gs_sum_expr) * nexprs);
		if (req.p[0] == 0)
			return GpuselClientNoRoom(errbuf, errlen);
	}
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	*rows = (const uint64_t *) (uintptr_t) rep.p[0];
	*results = (const gs_sum_result *) (uintptr_t) rep.p[1];
	GpuselClientArenaEnd();
	return st;
}

static void
svc_groups_destroy(gs_batch_groups *groups)
{
	GpuselClientDestroyObject((RemoteObject *) groups, GSVC_GROUPS_DESTROY);
}

static gs_status
svc_sums_create(gs_batch_sums **sums, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*sums = NULL;
	if (!GpuselClientBegin(&req, GSVC_SUMS_CREATE))
		return GpuselClientNoService(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		*sums = (gs_batch_sums *) GpuselClientNewObject(rep.p[0]);
	return st;
}

static gs_status
svc_sums_run(gs_batch_sums *sums, gs_filter *filter, int slot, int64_t from, int nexprs,
			 const gs_sum_expr *exprs, gs_sum_result *results, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!GpuselClientBeginOn(&req, GSVC_SUMS_RUN, sums, errbuf, errlen) || !GpuselClientCurrent((RemoteObject *) filter))
		return GS_CUDA_ERROR;
	GpuselClientArenaBegin();
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.a[0] = slot;
	req.a[1] = from;
	req.a[2] = nexprs;
	req.p[0] = GpuselClientArenaInput(exprs, sizeof(gs_sum_expr) * Max(nexprs, 1));
	req.p[1] = (uint64) (uintptr_t) GpuselClientArenaGet(sizeof(gs_sum_result) * Max(nexprs, 1));
	if (req.p[0] == 0 || req.p[1] == 0)
		return GpuselClientNoRoom(errbuf, errlen);
	st = GpuselClientCall(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(results, (void *) (uintptr_t) req.p[1], sizeof(gs_sum_result) * nexprs);
	GpuselClientArenaEnd();
	return st;
}

static void
svc_sums_destroy(gs_batch_sums *sums)
{
	GpuselClientDestroyObject((RemoteObject *) sums, GSVC_SUMS_DESTROY);
}

static const GpuselDeviceCalls service_calls = {
	.name = "the gpusel service",
	.probe = GpuselClientProbe,
	.memory_in_use = svc_memory_in_use,
	.host_alloc = GpuselClientHostAlloc,
	.host_free = GpuselClientHostFree,
	.select_keys = svc_select_keys,
	.pairs_create = svc_pairs_create,
	.pairs_append = svc_pairs_append,
	.pairs_count = svc_pairs_count,
	.pairs_read = svc_pairs_read,
	.pairs_sort_pick = svc_pairs_sort_pick,
	.pairs_select = svc_pairs_select,
	.pairs_destroy = svc_pairs_destroy,
	.sort_by_group = svc_sort_by_group,
	.sort_by_group_pick = svc_sort_by_group_pick,
	.filter_create = svc_filter_create,
	.filter_values = svc_filter_values,
	.filter_nulls = svc_filter_nulls,
	.filter_ship_columns = svc_filter_ship_columns,
	.filter_submit = svc_filter_submit,
	.filter_wait = svc_filter_wait,
	.filter_destroy = svc_filter_destroy,
	.filter_submit_resident = svc_filter_submit_resident,
	.filter_positions = svc_filter_positions,
	.resident_create = svc_resident_create,
	.resident_write = svc_resident_write,
	.resident_write_pieces = svc_resident_write_pieces,
	.resident_repack = svc_resident_repack,
	.resident_destroy = svc_resident_destroy,
	.groups_create = svc_groups_create,
	.groups_find = svc_groups_find,
	.groups_set_transforms = svc_groups_set_transforms,
	.groups_add = svc_groups_add,
	.groups_sum = svc_groups_sum,
	.groups_destroy = svc_groups_destroy,
	.sums_create = svc_sums_create,
	.sums_run = svc_sums_run,
	.sums_destroy = svc_sums_destroy,
};

/* The table that sends cuda/'s calls to the service. */
const GpuselDeviceCalls *
GpuselServiceCalls(void)
{
	return &service_calls;
}

