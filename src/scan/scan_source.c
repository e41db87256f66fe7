/*
 * scan_source.c
 *	  The calls every source of rows answers (scan_source.h), and the
 *	  staging areas sources fill.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "column_form.h"
#include "scan_source.h"

/*
 * Allocates host staging for 'rows' rows of ncols columns of the given
 * types: values at their device width, null bytes, has_nulls and TIDs.
 */
void
GpuselStagingAlloc(GpuselStaging *staging, int ncols, const gs_coltype *coltypes, int64 rows)
{
	memset(staging, 0, sizeof(*staging));
	for (int c = 0; c < ncols; c++)
	{
		staging->values[c] = palloc(rows * GpuselColumnWidth(coltypes[c]));
		staging->nulls[c] = palloc(rows);
	}
	staging->has_nulls = palloc0(Max(ncols, 1));
	staging->tids = palloc(rows * sizeof(ItemPointerData));
}

/* Frees what GpuselStagingAlloc allocated. */
void
GpuselStagingFree(GpuselStaging *staging, int ncols)
{
	for (int c = 0; c < ncols; c++)
	{
		pfree(staging->values[c]);
		pfree(staging->nulls[c]);
	}
	pfree(staging->has_nulls);
	pfree(staging->tids);
}

/*
 * Sets up the shared part of a source: its methods, and the columns and
 * chunk size of the staging area GpuselSourceNextChunk lends from when the
 * source has no next_chunk of its own (prog may be NULL: no columns).
 */
void
GpuselSourceInit(GpuselSource *source, const GpuselSourceMethods *methods,
				 const GpuselProgram *prog, int64 chunk_rows)
{
	source->methods = methods;
	source->ncols = prog != NULL ? prog->ncols : 0;
	for (int c = 0; c < source->ncols; c++)
		source->coltypes[c] = prog->coltypes[c];
	source->chunk_rows = chunk_rows;
	source->own_allocated = false;
}

/* Puts the next visible tuple of the source in slot; false at its end. */
bool
GpuselSourceNextSlot(GpuselSource *source, TupleTableSlot *slot)
{
	if (source->methods->next_slot == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpusel source \"%s\" does not return tuples", source->methods->name)));
	return source->methods->next_slot(source, slot);
}

/* Copies the next rows' device columns into the caller's staging. */
int64
GpuselSourceFill(GpuselSource *source, GpuselStaging *staging, int64 max_rows,
				 TupleTableSlot *slot)
{
	if (source->methods->fill == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpusel source \"%s\" does not copy rows", source->methods->name)));
	return source->methods->fill(source, staging, max_rows, slot);
}

/*
 * Lends the next chunk: the source's own, or rows filled into the
 * source's staging area.  False at the end.
 */
bool
GpuselSourceNextChunk(GpuselSource *source, GpuselChunk *chunk, TupleTableSlot *slot)
{
	if (source->methods->next_chunk != NULL)
		return source->methods->next_chunk(source, chunk, slot);

	if (!source->own_allocated)
	{
		GpuselStagingAlloc(&source->own, source->ncols, source->coltypes, source->chunk_rows);
		source->own_allocated = true;
	}
	memset(source->own.has_nulls, 0, Max(source->ncols, 1));
	memset(chunk, 0, sizeof(*chunk));
	chunk->kind = GPUSEL_CHUNK_ROWS;
	chunk->staging = source->own;
	chunk->nrows = GpuselSourceFill(source, &chunk->staging, source->chunk_rows, slot);
	ExecClearTuple(slot);
	chunk->nscanned = chunk->nrows;
	chunk->filtered = false;
	return chunk->nrows > 0;
}

/*
 * Starts the source again from its first row.  False when it cannot: the
 * caller ends it and opens a new one.
 */
bool
GpuselSourceRescan(GpuselSource *source)
{
	if (source->methods->rescan == NULL)
		return false;
	source->methods->rescan(source);
	return true;
}

/* Whether the source can read this process's blocks of a parallel scan again. */
bool
GpuselSourceCanReplay(GpuselSource *source)
{
	return source->methods->replay != NULL;
}

/* Reads this process's blocks of a parallel scan again, from the first. */
void
GpuselSourceReplay(GpuselSource *source)
{
	if (source->methods->replay == NULL)
		elog(ERROR, "gpusel: source \"%s\" cannot read its blocks again", source->methods->name);
	source->methods->replay(source);
}

/* Up to n values of a batch column spread over the source's rows; 0 when it cannot. */
int64
GpuselSourceSample(GpuselSource *source, int column, int64 n, void *values, uint8 *nulls)
{
	if (source->methods->sample == NULL || n <= 0)
		return 0;
	return source->methods->sample(source, column, n, values, nulls);
}

/* Whether the source's rows lie in memory, so that reading them again is cheap. */
bool
GpuselSourceInMemory(GpuselSource *source)
{
	return source->methods->in_memory;
}

/* Releases the source and its staging area. */
void
GpuselSourceEnd(GpuselSource *source)
{
	if (source->own_allocated)
		GpuselStagingFree(&source->own, source->ncols);
	source->own_allocated = false;
	if (source->methods->end != NULL)
		source->methods->end(source);
}

/* The one provider of sources beside the heap; NULL: none registered. */
static const GpuselSourceProvider *source_provider = NULL;

/* Registers the provider the scan asks before reading the heap. */
void
GpuselSourceRegisterProvider(const GpuselSourceProvider *provider)
{
	source_provider = provider;
}

/* The provider's source for this scan, or NULL to read the heap. */
GpuselSource *
GpuselSourceFromProvider(Relation rel, Snapshot snapshot, const GpuselProgram *prog,
						 int64 chunk_rows)
{
	if (source_provider == NULL)
		return NULL;
	return source_provider->begin(rel, snapshot, prog, chunk_rows);
}

/* The provider's source for this process's part of a parallel scan, or NULL. */
GpuselSource *
GpuselSourceFromProviderParallel(Relation rel, Snapshot snapshot, const GpuselProgram *prog,
								 ParallelBlockTableScanDesc pscan, int64 chunk_rows)
{
	if (source_provider == NULL || source_provider->begin_parallel == NULL)
		return NULL;
	return source_provider->begin_parallel(rel, snapshot, prog, pscan, chunk_rows);
}

/* Whether the provider holds the relation: scans of it will likely read no heap. */
bool
GpuselSourceProvided(Oid relid)
{
	return source_provider != NULL && source_provider->holds(relid);
}

/* Whether the provider's rows of the relation lie in device memory. */
bool
GpuselSourceProvidedOnDevice(Oid relid)
{
	return source_provider != NULL && source_provider->holds_on_device != NULL &&
		source_provider->holds_on_device(relid);
}

/* EXPLAIN ANALYZE's lines about what the source read. */
void
GpuselSourceExplain(GpuselSource *source, struct ExplainState *es)
{
	if (source != NULL && source->methods->explain != NULL)
		source->methods->explain(source, es);
}

/* Plain EXPLAIN's line about a relation's provided source. */
void
GpuselSourceExplainPlan(Oid relid, struct ExplainState *es)
{
	if (GpuselSourceProvided(relid))
		source_provider->explain_plan(relid, es);
}

/* Whether the source lends runs of rows in device memory to the device path. */
bool
GpuselSourceHasDeviceRuns(GpuselSource *source)
{
	return source->methods->has_device_runs != NULL && source->methods->has_device_runs(source);
}

/* The next run in device memory: rows, 0 (fill next) or -1 (the end). */
int64
GpuselSourceNextDeviceRun(GpuselSource *source, int64 max_rows, GpuselDeviceRun *run)
{
	return source->methods->next_device_run(source, max_rows, run);
}

/* The TID of a row of a run in device memory. */
ItemPointer
GpuselSourceDeviceRunTid(GpuselSource *source, const GpuselDeviceRun *run, int64 row)
{
	return source->methods->device_run_tid(source, run, row);
}

/* Copies rows of a run in device memory into staging, packed. */
void
GpuselSourceDeviceRunRows(GpuselSource *source, const GpuselDeviceRun *run,
						  const uint32 *positions, int64 n, GpuselStaging *staging)
{
	source->methods->device_run_rows(source, run, positions, n, staging);
}
