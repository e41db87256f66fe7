/*
 * filter_slots.cu
 *	  The device WHERE filter's life (gpusel_filter.h): creation, which
 *	  verifies the program and uploads it, and destruction; the staging
 *	  slots, each with page-locked columns, device buffers, a stream and
 *	  events; and submit / wait.
 *
 *	  A submitted batch runs, in order on the slot's stream: host-to-device
 *	  copies of the referenced columns (null bytes only where the batch has
 *	  NULLs), phase 1 with the predicate fused in, the scan, phase 3, and a
 *	  copy of the count and error flag back.  gs_filter_wait then copies
 *	  exactly 'count' positions back: the size is known only on the device,
 *	  and copying all nrows slots would move up to 100x more at low
 *	  selectivity.
 *
 *	  Every CUDA error becomes a gs_status with a message; nothing throws.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "filter_internal.cuh"

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

/* Writes a message into errbuf (if any) and returns st. */
gs_status
gs_fail(gs_status st, char *errbuf, size_t errlen, const char *fmt, ...)
{
	if (errbuf != NULL && errlen > 0)
	{
		va_list		ap;

		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return st;
}

/* Maps a CUDA error to a status and a message naming what failed. */
gs_status
gs_cuda_fail(cudaError_t e, const char *what, char *errbuf, size_t errlen)
{
	char		what_here[160];

	snprintf(what_here, sizeof(what_here), "gpusel filter: %s", what);
	return gs_status_from_cuda(e, what_here, errbuf, errlen);
}

/* ------------------------------------------------------------------------
 * Creation and destruction
 * ------------------------------------------------------------------------ */

/* Frees one slot's resources; safe on a partly built slot. */
static void
gs_slot_free(gs_filter *f, gs_slot *s)
{
	if (s->stream != NULL)
		(void) cudaStreamSynchronize(s->stream);	/* nothing may still use the buffers */
	for (int c = 0; c < f->ncols; ++c)
	{
		if (s->h_values)
			gs_pinned_free(s->h_values[c]);
		if (s->h_nulls)
			gs_pinned_free(s->h_nulls[c]);
		if (s->d_values)
			gs_dev_free(s->d_values[c]);
		if (s->d_nulls)
			gs_dev_free(s->d_nulls[c]);
	}
	free(s->h_values);
	free(s->h_nulls);
	free(s->d_values);
	free(s->d_nulls);
	free(s->cur_values);
	free(s->next_table);
	gs_pinned_free(s->h_table);
	gs_dev_free(s->d_table);
	gs_dev_free(s->d_positions);
	gs_pinned_free(s->h_positions);
	gs_pinned_free(s->h_result);
	gs_compact_workspace_free(&s->ws);
	if (s->ev_start)
		cudaEventDestroy(s->ev_start);
	if (s->ev_done)
		cudaEventDestroy(s->ev_done);
	if (s->ev_end)
		cudaEventDestroy(s->ev_end);
	if (s->stream)
		cudaStreamDestroy(s->stream);
	memset(s, 0, sizeof(*s));
}

/* Allocates one slot: stream, events, pinned staging, device buffers, scratch. */
static gs_status
gs_slot_create(gs_filter *f, gs_slot *s, char *errbuf, size_t errlen)
{
	const size_t rows = (size_t) (f->max_rows > 0 ? f->max_rows : 1);
	const size_t staged = (size_t) (f->staging_rows > 0 ? f->staging_rows : 1);
	const size_t nc = (size_t) (f->ncols > 0 ? f->ncols : 1);
	cudaError_t e;

#define GS_TRY(call, what) do { e = (call); if (e != cudaSuccess) return gs_cuda_fail(e, what, errbuf, errlen); } while (0)

	s->npass = -1;
	GS_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "creating a stream");
	GS_TRY(cudaEventCreate(&s->ev_start), "creating an event");
	GS_TRY(cudaEventCreate(&s->ev_done), "creating an event");
	GS_TRY(cudaEventCreate(&s->ev_end), "creating an event");

	s->h_values = (void **) calloc(nc, sizeof(void *));
	s->h_nulls = (uint8_t **) calloc(nc, sizeof(uint8_t *));
	s->d_values = (void **) calloc(nc, sizeof(void *));
	s->d_nulls = (uint8_t **) calloc(nc, sizeof(uint8_t *));
	s->cur_values = (void **) calloc(nc, sizeof(void *));
	s->next_table = (gs_dcolumn *) calloc(nc, sizeof(gs_dcolumn));
	if (!s->h_values || !s->h_nulls || !s->d_values || !s->d_nulls || !s->cur_values || !s->next_table)
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");

	/* Device memory first: a too-large filter fails before pinning host memory. */
	for (int c = 0; c < f->ncols; ++c)
	{
		if (!f->col_used[c])
			continue;
		GS_TRY(gs_dev_malloc(&s->d_values[c], (staged * gs_coltype_width(f->coltypes[c]) + 15) & ~(size_t) 15),
			   "allocating a device column");
		GS_TRY(gs_dev_malloc((void **) &s->d_nulls[c], (staged + 15) & ~(size_t) 15), "allocating a device column");
	}
	GS_TRY(gs_dev_malloc((void **) &s->d_table, nc * sizeof(gs_dcolumn)), "allocating device memory");
	GS_TRY(gs_dev_malloc((void **) &s->d_positions, rows * sizeof(uint32_t)), "allocating device positions");
	GS_TRY(gs_compact_workspace_alloc(&s->ws, (long long) rows), "allocating compaction scratch");

	for (int c = 0; c < f->ncols; ++c)
	{
		GS_TRY(gs_pinned_alloc(&s->h_values[c], (staged * gs_coltype_width(f->coltypes[c]) + 15) & ~(size_t) 15), "allocating pinned staging");
		GS_TRY(gs_pinned_alloc((void **) &s->h_nulls[c], (staged + 15) & ~(size_t) 15),
			   "allocating pinned staging");
	}
	GS_TRY(gs_pinned_alloc((void **) &s->h_table, nc * sizeof(gs_dcolumn)), "allocating pinned memory");
	memset(s->h_table, 0, nc * sizeof(gs_dcolumn));
	GS_TRY(gs_pinned_alloc((void **) &s->h_positions, rows * sizeof(uint32_t)), "allocating pinned positions");
	GS_TRY(gs_pinned_alloc((void **) &s->h_result, sizeof(gs_compact_result)), "allocating pinned memory");
#undef GS_TRY
	return GS_OK;
}

gs_status
gs_filter_create(gs_filter **filter, const gs_program *program,
				 int ncols, const gs_coltype *coltypes,
				 int64_t max_rows, int nslots,
				 char *errbuf, size_t errlen)
{
	return gs_filter_create_ex(filter, program, ncols, coltypes, max_rows, max_rows, nslots,
							   errbuf, errlen);
}

gs_status
gs_filter_create_ex(gs_filter **filter, const gs_program *program,
					int ncols, const gs_coltype *coltypes,
					int64_t max_rows, int64_t staging_rows, int nslots,
					char *errbuf, size_t errlen)
{
	gs_filter  *f;
	gs_dinstr	code[GS_MAX_PROGRAM_LENGTH];
	int			max_depth = 0;
	int			dev;
	gs_status	st;
	cudaError_t e;

	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	if (filter == NULL)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: filter pointer is NULL");
	*filter = NULL;
	if (ncols < 0 || (ncols > 0 && coltypes == NULL))
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad column list");
	for (int c = 0; c < ncols; ++c)
		if ((int) coltypes[c] < GS_COL_BOOL || (int) coltypes[c] > GS_COL_FLOAT8)
			return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: column %d has unknown type %d", c, (int) coltypes[c]);
	if (max_rows < 0 || max_rows > GS_FILTER_MAX_ROWS)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: max_rows %lld out of range 0..%lld",
					   (long long) max_rows, (long long) GS_FILTER_MAX_ROWS);
	if (staging_rows < 0 || staging_rows > max_rows)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: staging_rows %lld out of range 0..%lld",
					   (long long) staging_rows, (long long) max_rows);
	if (nslots != 1 && nslots != 2)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: nslots must be 1 or 2, not %d", nslots);

	f = (gs_filter *) calloc(1, sizeof(gs_filter));
	if (f == NULL)
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");
	f->ncols = ncols;
	f->max_rows = max_rows;
	f->staging_rows = staging_rows;
	f->nslots = nslots;
	f->coltypes = (gs_coltype *) calloc(ncols > 0 ? ncols : 1, sizeof(gs_coltype));
	f->col_used = (unsigned char *) calloc(ncols > 0 ? ncols : 1, 1);
	if (f->coltypes == NULL || f->col_used == NULL)
	{
		gs_filter_destroy(f);
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");
	}
	if (ncols > 0)
		memcpy(f->coltypes, coltypes, ncols * sizeof(gs_coltype));

	st = gs_compile_program(program, ncols, coltypes, code, &max_depth, f->col_used, errbuf, errlen);
	if (st != GS_OK)
	{
		gs_filter_destroy(f);
		return st;
	}
	f->ncode = program->ncode;
	f->stack_slots = max_depth > 1 ? max_depth - 1 : 1;	/* top lives in a register */
	gs_detect_range(f, program);

	e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&f->num_sms, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = gs_dev_malloc((void **) &f->d_code, f->ncode * sizeof(gs_dinstr));
	if (e == cudaSuccess)
		e = cudaMemcpy(f->d_code, code, f->ncode * sizeof(gs_dinstr), cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = gs_dev_malloc((void **) &f->d_consts, (program->nconsts > 0 ? program->nconsts : 1) * sizeof(gs_const));
	if (e == cudaSuccess && program->nconsts > 0)
		e = cudaMemcpy(f->d_consts, program->consts, program->nconsts * sizeof(gs_const), cudaMemcpyHostToDevice);
	if (e != cudaSuccess)
	{
		st = gs_cuda_fail(e, "setting up the device program", errbuf, errlen);
		gs_filter_destroy(f);
		return st;
	}
	for (int i = 0; i < nslots; ++i)
	{
		st = gs_slot_create(f, &f->slots[i], errbuf, errlen);
		if (st != GS_OK)
		{
			gs_filter_destroy(f);
			return st;
		}
	}
	*filter = f;
	return GS_OK;
}

void
gs_filter_destroy(gs_filter *f)
{
	if (f == NULL)
		return;
	for (int i = 0; i < 2; ++i)
		gs_slot_free(f, &f->slots[i]);
	gs_dev_free(f->d_code);
	gs_dev_free(f->d_consts);
	free(f->coltypes);
	free(f->col_used);
	free(f);
	(void) cudaGetLastError();	/* frees after a failure may leave a non-sticky error */
}

/* ------------------------------------------------------------------------
 * Staging, submit, wait
 * ------------------------------------------------------------------------ */

void *
gs_filter_values(gs_filter *f, int slot, int col)
{
	if (f == NULL || slot < 0 || slot >= f->nslots || col < 0 || col >= f->ncols)
		return NULL;
	return f->slots[slot].h_values[col];
}

uint8_t *
gs_filter_nulls(gs_filter *f, int slot, int col)
{
	if (f == NULL || slot < 0 || slot >= f->nslots || col < 0 || col >= f->ncols)
		return NULL;
	return f->slots[slot].h_nulls[col];
}

gs_status
gs_filter_ship_columns(gs_filter *f, const uint8_t *cols, char *errbuf, size_t errlen)
{
	cudaError_t e;

	if (f == NULL || cols == NULL)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or column list");
	for (int i = 0; i < f->nslots; ++i)
		if (f->slots[i].pending)
			return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: columns must be added before a batch is submitted");
	for (int c = 0; c < f->ncols; ++c)
	{
		size_t		rows = (size_t) (f->staging_rows > 0 ? f->staging_rows : 1);

		if (!cols[c] || f->col_used[c])
			continue;
		for (int i = 0; i < f->nslots; ++i)
		{
			gs_slot    *s = &f->slots[i];

			/* the slot owns what it allocated here: gs_slot_free frees every column */
			e = gs_dev_malloc(&s->d_values[c], (rows * gs_coltype_width(f->coltypes[c]) + 15) & ~(size_t) 15);
			if (e == cudaSuccess)
				e = gs_dev_malloc((void **) &s->d_nulls[c], (rows + 15) & ~(size_t) 15);
			if (e != cudaSuccess)
				return gs_cuda_fail(e, "allocating a device column", errbuf, errlen);
			s->table_valid = 0;
		}
		f->col_used[c] = 1;
	}
	return GS_OK;
}

/* Checks a submit's slot and row count; starts the batch's bookkeeping. */
static gs_status
begin_submit(gs_filter *f, int slot, int64_t nrows, bool staged, char *errbuf, size_t errlen)
{
	gs_slot    *s;

	if (f == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (nrows < 0 || nrows > (staged ? f->staging_rows : f->max_rows))
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: %lld rows, the filter holds at most %lld",
					   (long long) nrows, staged ? f->staging_rows : f->max_rows);
	if (s->pending)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d was submitted and not waited for", slot);
	s->npass = -1;				/* the columns change now: the last batch is gone */
	s->submits++;
	return GS_OK;
}

/* Enqueues the predicate over s->next_table and the copy of its result back. */
static gs_status
finish_submit(gs_filter *f, gs_slot *s, int64_t nrows, char *errbuf, size_t errlen)
{
	cudaError_t e;
	gs_status	st;

	for (int c = 0; c < f->ncols; ++c)
		s->cur_values[c] = (void *) s->next_table[c].values;
	/* The slot is idle (waited for), so h_table is free to change. */
	st = gs_launch_slot(f, s, s->next_table, nrows, s->d_positions, s->stream, errbuf, errlen);
	if (st != GS_OK)
		return st;
	e = cudaMemcpyAsync(s->h_result, s->ws.result, sizeof(gs_compact_result),
						cudaMemcpyDeviceToHost, s->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(s->ev_done, s->stream);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "queueing the result copy", errbuf, errlen);
	s->nrows = nrows;
	s->pending = 1;
	return GS_OK;
}

gs_status
gs_filter_submit(gs_filter *f, int slot, int64_t nrows, const uint8_t *has_nulls,
				 char *errbuf, size_t errlen)
{
	gs_slot    *s;
	cudaError_t e;
	gs_status	st;

	st = begin_submit(f, slot, nrows, true, errbuf, errlen);
	if (st != GS_OK)
		return st;
	s = &f->slots[slot];
	e = cudaEventRecord(s->ev_start, s->stream);
	for (int c = 0; c < f->ncols && e == cudaSuccess; ++c)
	{
		const int	nulls = has_nulls == NULL || has_nulls[c] != 0;

		s->next_table[c].values = NULL;
		s->next_table[c].nulls = NULL;
		if (!f->col_used[c])
			continue;
		s->next_table[c].values = s->d_values[c];
		s->next_table[c].nulls = nulls ? s->d_nulls[c] : NULL;
		if (nrows == 0)
			continue;
		e = cudaMemcpyAsync(s->d_values[c], s->h_values[c], (size_t) nrows * gs_coltype_width(f->coltypes[c]),
							cudaMemcpyHostToDevice, s->stream);
		if (e == cudaSuccess && nulls)
			e = cudaMemcpyAsync(s->d_nulls[c], s->h_nulls[c], (size_t) nrows,
								cudaMemcpyHostToDevice, s->stream);
	}
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "copying a batch to the device", errbuf, errlen);
	return finish_submit(f, s, nrows, errbuf, errlen);
}

gs_status
gs_filter_submit_device(gs_filter *f, int slot, int64_t nrows, const gs_device_column *cols,
						char *errbuf, size_t errlen)
{
	gs_slot    *s;
	cudaError_t e;
	gs_status	st;

	for (int c = 0; f != NULL && c < f->ncols; ++c)
		if (f->col_used[c] && nrows > 0 && (cols == NULL || cols[c].values == NULL))
			return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen,
						   "gpusel filter: column %d of a device batch is not in device memory", c);
	st = begin_submit(f, slot, nrows, false, errbuf, errlen);
	if (st != GS_OK)
		return st;
	s = &f->slots[slot];
	for (int c = 0; c < f->ncols; ++c)
	{
		s->next_table[c].values = cols != NULL ? cols[c].values : NULL;
		s->next_table[c].nulls = cols != NULL ? cols[c].nulls : NULL;
	}
	e = cudaEventRecord(s->ev_start, s->stream);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "starting a device batch", errbuf, errlen);
	return finish_submit(f, s, nrows, errbuf, errlen);
}

gs_status
gs_filter_wait(gs_filter *f, int slot, const uint32_t **positions, int64_t *count,
			   int *row_error, double *device_ms, char *errbuf, size_t errlen)
{
	gs_slot    *s;
	cudaError_t e;
	uint32_t	n;
	float		ms = 0.0f;
	float		copy_ms = 0.0f;

	if (f == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (!s->pending)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d has no batch submitted", slot);
	s->pending = 0;

	e = cudaEventSynchronize(s->ev_done);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "running the filter", errbuf, errlen);
	/*
	 * Device time is the batch's own work: from its first copy to its
	 * result, then the positions' copy, not the host's time between
	 * submitting and waiting (it fills the other slot meanwhile).
	 */
	e = cudaEventElapsedTime(&ms, s->ev_start, s->ev_done);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "timing the filter", errbuf, errlen);
	n = s->h_result->count;
	if ((long long) n > s->nrows)
		return gs_fail(GS_CUDA_ERROR, errbuf, errlen, "gpusel filter: device counted %u of %lld rows", n, s->nrows);
	s->positions_on_host = positions != NULL;
	e = cudaEventRecord(s->ev_start, s->stream);
	if (e == cudaSuccess && n > 0 && positions != NULL)
		e = cudaMemcpyAsync(s->h_positions, s->d_positions, (size_t) n * sizeof(uint32_t),
							cudaMemcpyDeviceToHost, s->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(s->ev_end, s->stream);
	if (e == cudaSuccess)
		e = cudaEventSynchronize(s->ev_end);
	if (e == cudaSuccess)
		e = cudaEventElapsedTime(&copy_ms, s->ev_start, s->ev_end);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "copying positions back", errbuf, errlen);
	ms += copy_ms;

	s->npass = n;
	if (positions)
		*positions = s->h_positions;
	if (count)
		*count = n;
	if (row_error)
		*row_error = s->h_result->row_error != 0;
	if (device_ms)
		*device_ms = ms;
	return GS_OK;
}

gs_status
gs_filter_positions(gs_filter *f, int slot, const uint32_t **positions, char *errbuf, size_t errlen)
{
	gs_slot    *s;
	cudaError_t e = cudaSuccess;

	if (f == NULL || positions == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (s->pending || s->npass < 0)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d holds no waited-for batch", slot);
	if (!s->positions_on_host && s->npass > 0)
	{
		e = cudaMemcpyAsync(s->h_positions, s->d_positions, (size_t) s->npass * sizeof(uint32_t),
							cudaMemcpyDeviceToHost, s->stream);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(s->stream);
		if (e != cudaSuccess)
			return gs_cuda_fail(e, "copying positions back", errbuf, errlen);
	}
	s->positions_on_host = 1;
	*positions = s->h_positions;
	return GS_OK;
}

gs_status
gs_filter_device_batch(gs_filter *f, int slot, gs_device_batch *out, char *errbuf, size_t errlen)
{
	gs_slot    *s;

	if (f == NULL || out == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (s->pending || s->npass < 0)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d holds no waited-for batch", slot);
	out->stream = s->stream;
	out->values = s->cur_values;
	for (int c = 0; c < f->ncols && c < GS_MAX_PROGRAM_LENGTH; ++c)
		out->nulls[c] = s->next_table[c].nulls;	/* as the last submit set them */
	out->positions = s->d_positions;
	out->npositions = s->npass;
	out->batch = s->submits;
	out->ncols = f->ncols;
	out->coltypes = f->coltypes;
	return GS_OK;
}
