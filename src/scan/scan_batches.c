/*
 * scan_batches.c
 *	  The device batches of a GpuSelScan: staging slots filled from the
 *	  source's rows, or runs of rows the source holds in device memory,
 *	  submitted to the device filter two at a time (one filled while the
 *	  other is filtered), waited for, and their passing rows' positions,
 *	  TIDs and columns handed to the scan (scan_exec.c) and its sink.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "device.h"
#include "scan_exec.h"

static int64 fill_staging(GpuselScanState *state, int s);

/*
 * Submits slot s over the next run of rows the source lends in device
 * memory; false when the next rows are to be filled instead (the end of
 * the scan, too, sets scan_done).
 */
static bool
submit_device_run(GpuselScanState *state, int s)
{
	GpuselProgram *prog = state->program;
	BatchSlot  *b = &state->slots[s];
	int64		n;
	char		errbuf[512];
	gs_status	status;

	if (b->run == NULL)
		b->run = MemoryContextAlloc(state->css.ss.ps.state->es_query_cxt, sizeof(GpuselDeviceRun));
	n = GpuselSourceNextDeviceRun(state->source, state->filter_rows, b->run);
	if (n < 0)
		state->scan_done = true;
	if (n <= 0)
		return false;
	errbuf[0] = '\0';
	status = GpuselDev->filter_submit_resident(state->filter, s, n, b->run->resident,
											   b->run->offsets, errbuf, sizeof(errbuf));
	GpuselCheckStatus(status, errbuf, "the GPU scan of cached columns");
	memcpy(b->has_nulls, b->run->has_nulls, Max(prog->ncols, 1));
	b->nrows = n;
	b->in_device = true;
	b->submitted = true;
	state->batches++;
	state->rows_in += n;
	return true;
}

/*
 * Fills staging slot s with the next batch of visible tuples (device
 * columns and TIDs) and submits it, or submits the next run of rows the
 * source lends in device memory; a slot left empty is not submitted.
 */
static void
fill_and_submit(GpuselScanState *state, int s)
{
	BatchSlot  *b = &state->slots[s];

	b->in_device = false;
	b->submitted = false;
	b->nrows = 0;
	if (state->device_runs)
	{
		/* runs in device memory and filled batches of the heap's rows, in order */
		for (;;)
		{
			if (submit_device_run(state, s) || state->scan_done)
				return;
			if (fill_staging(state, s) > 0)
				return;
		}
	}
	if (fill_staging(state, s) < state->batch_rows)
		state->scan_done = true;
}

/* Fills slot s from the source and submits it when it got rows; returns them. */
static int64
fill_staging(GpuselScanState *state, int s)
{
	GpuselProgram *prog = state->program;
	BatchSlot  *b = &state->slots[s];
	GpuselStaging staging;
	int64		n;
	char		errbuf[512];
	gs_status	status;

	for (int c = 0; c < prog->ncols; c++)
	{
		staging.values[c] = GpuselDev->filter_values(state->filter, s, c);
		staging.nulls[c] = GpuselDev->filter_nulls(state->filter, s, c);
		if (staging.values[c] == NULL || staging.nulls[c] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpusel device filter has no staging for column %d", c)));
		b->has_nulls[c] = 0;
	}
	staging.has_nulls = b->has_nulls;
	staging.tids = b->tids;

	n = GpuselSourceFill(state->source, &staging, state->batch_rows, state->heapslot);
	ExecClearTuple(state->heapslot);
	b->nrows = n;
	b->submitted = false;
	if (n == 0)
		return 0;

	errbuf[0] = '\0';
	status = GpuselDev->filter_submit(state->filter, s, n, b->has_nulls, errbuf, sizeof(errbuf));
	GpuselCheckStatus(status, errbuf, "the GPU scan");
	b->submitted = true;
	state->batches++;
	state->rows_in += n;
	for (int c = 0; c < prog->ncols; c++)
		state->bytes_moved += n * GpuselColumnWidth(prog->coltypes[c]) + (b->has_nulls[c] ? n : 0);
	return n;
}

/* Waits for slot s and makes its result the batch being returned. */
static void
wait_batch(GpuselScanState *state, int s)
{
	BatchSlot  *b = &state->slots[s];
	const uint32_t *positions = NULL;
	int64_t		count = 0;
	int			row_error = 0;
	double		ms = 0;
	char		errbuf[512];
	gs_status	status;

	errbuf[0] = '\0';
	b->submitted = false;
	/* a run in device memory is mostly taken on the device: its positions come back when asked */
	status = GpuselDev->filter_wait(state->filter, s, b->in_device ? NULL : &positions, &count,
									&row_error, &ms, errbuf, sizeof(errbuf));
	GpuselCheckStatus(status, errbuf, "the GPU scan");
	state->device_ms += ms;
	state->out_slot = s;
	state->out_next = 0;
	state->out_recheck = row_error != 0;
	if (state->out_recheck)
	{
		/* PostgreSQL decides which row fails, and how */
		state->rechecks++;
		state->positions = NULL;
		state->npositions = 0;
	}
	else
	{
		state->positions = positions;
		state->npositions = count;
		state->removed_device += b->nrows - count;
		if (!b->in_device)
			state->bytes_moved += count * sizeof(uint32);
	}
}

/* The host positions of the batch being returned, copied back now where the device kept them. */
const uint32 *
GpuselScanBatchPositions(GpuselScanState *state)
{
	char		errbuf[512];
	gs_status	status;

	if (state->positions == NULL && state->npositions > 0)
	{
		errbuf[0] = '\0';
		status = GpuselDev->filter_positions(state->filter, state->out_slot, &state->positions,
											 errbuf, sizeof(errbuf));
		GpuselCheckStatus(status, errbuf, "the GPU scan");
		state->bytes_moved += state->npositions * sizeof(uint32);
	}
	return state->positions;
}

/*
 * Advances to the next device batch: submits the first one on a fresh
 * scan, then builds and submits the following one before waiting for the
 * current, so the host and the device work at the same time.
 */
bool
GpuselScanNextBatch(GpuselScanState *state)
{
	int			cur;

	/* a scan whose batches the device takes whole returns no row in between */
	CHECK_FOR_INTERRUPTS();
	if (!state->started)
	{
		state->started = true;
		state->wait_slot = 0;
		state->device_runs = GpuselSourceHasDeviceRuns(state->source);
		fill_and_submit(state, 0);
	}
	cur = state->wait_slot;
	if (!state->slots[cur].submitted)
		return false;
	if (!state->scan_done)
		fill_and_submit(state, 1 - cur);
	wait_batch(state, cur);
	state->wait_slot = 1 - cur;
	return true;
}

/*
 * The host columns of the next rows of the batch being returned, from
 * out_next on, for the host's aggregates, advancing out_next past them: a
 * filled batch's staging with its positions, or, for a run in device
 * memory, up to a staging's worth of those rows copied from the source
 * into the slot's staging (which the run left unused), packed (*positions
 * NULL).  Returns how many rows; 0 at the batch's end.
 */
int64
GpuselScanBatchColumns(GpuselScanState *state, GpuselStaging *staging, const uint32 **positions)
{
	GpuselProgram *prog = state->program;
	int			s = state->out_slot;
	BatchSlot  *b = &state->slots[s];
	int64		n = state->npositions - state->out_next;

	if (b->in_device)
		n = Min(n, state->batch_rows);

	for (int c = 0; c < prog->ncols; c++)
	{
		staging->values[c] = GpuselDev->filter_values(state->filter, s, c);
		staging->nulls[c] = GpuselDev->filter_nulls(state->filter, s, c);
	}
	staging->has_nulls = b->has_nulls;
	staging->tids = b->tids;
	*positions = GpuselScanBatchPositions(state) + state->out_next;
	if (b->in_device && n > 0)
	{
		GpuselSourceDeviceRunRows(state->source, b->run, *positions, n, staging);
		*positions = NULL;
	}
	state->out_next += n;
	return n;
}

/* Waits for device work still pending, discarding its results. */
void
GpuselScanDrainSlots(GpuselScanState *state, bool report)
{
	for (int s = 0; s < GPUSEL_NSLOTS; s++)
	{
		if (state->slots[s].submitted && state->filter != NULL)
		{
			const uint32_t *positions;
			int64_t		count;
			int			row_error;
			double		ms;
			char		errbuf[512];
			gs_status	status;

			errbuf[0] = '\0';
			state->slots[s].submitted = false;
			status = GpuselDev->filter_wait(state->filter, s, &positions, &count, &row_error,
									&ms, errbuf, sizeof(errbuf));
			if (report)
				GpuselCheckStatus(status, errbuf, "the GPU scan");
		}
		state->slots[s].submitted = false;
	}
	state->out_slot = -1;
}

