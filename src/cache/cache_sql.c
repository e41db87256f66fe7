/*
 * cache_sql.c
 *	  gpusel_cached_tables: what the column cache holds, table by table.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "cache_internal.h"

PG_FUNCTION_INFO_V1(gpusel_cached_tables_info);

/* One row of the view, copied out of the registry. */
typedef struct CachedTableRow
{
	Oid			relid;
	int			ncols;
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
	int64		nrows;
	int64		bytes;
	int64		device_bytes;	/* 0: no copy on the GPUs */
	bool		building;
	TimestampTz built_at;
	BlockNumber nblocks;
	uint32		changed;
	int64		hits;
	const char *state;
} CachedTableRow;

/* The state of an entry in words. */
static const char *
state_name(GpuselCacheEntry *e)
{
	if (pg_atomic_read_u32(&e->truncated) != 0)
		return "truncated";
	switch (e->state)
	{
		case GPUSEL_CACHE_BUILDING:
			return "building";
		case GPUSEL_CACHE_READY:
			return "ready";
		case GPUSEL_CACHE_RETIRED:
			return "retired";
		default:
			return "free";
	}
}

/*
 * SQL: one row per cached table of this database: its columns, rows,
 * bytes, when it was built, how many of its blocks were written since (the
 * share still current), scans that read it, and its state.
 */
Datum
gpusel_cached_tables_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GpuselCacheShared *reg = GpuselCacheRegistry();
	CachedTableRow *rows;
	int			nrows = 0;

	InitMaterializedSRF(fcinfo, 0);
	if (reg == NULL)
		return (Datum) 0;
	GpuselCacheForgetDropped();

	/* copied under the lock; names are looked up after it, as they may read the catalogs */
	rows = palloc(sizeof(CachedTableRow) * GPUSEL_CACHE_MAX_TABLES);
	LWLockAcquire(reg->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &reg->entries[i];
		CachedTableRow *r = &rows[nrows];

		if (e->state == GPUSEL_CACHE_FREE || e->state == GPUSEL_CACHE_RETIRED || e->dbid != MyDatabaseId)
			continue;
		r->relid = e->relid;
		r->ncols = e->ncols;
		memcpy(r->attnos, e->attnos, sizeof(AttrNumber) * e->ncols);
		r->nrows = e->nrows;
		r->bytes = (int64) e->bytes;
		r->device_bytes = GpuselCacheOnDevice(e) ? (int64) e->device_bytes : 0;
		r->building = e->state == GPUSEL_CACHE_BUILDING;
		r->built_at = e->built_at;
		r->nblocks = e->nblocks;
		r->changed = pg_atomic_read_u32(&e->changed_blocks);
		r->hits = (int64) pg_atomic_read_u64(&e->hits);
		r->state = state_name(e);
		nrows++;
	}
	LWLockRelease(reg->lock);

	for (int i = 0; i < nrows; i++)
	{
		CachedTableRow *r = &rows[i];
		Datum		values[11];
		bool		nulls[11] = {0};
		Datum	   *names = palloc(sizeof(Datum) * Max(r->ncols, 1));

		for (int c = 0; c < r->ncols; c++)
		{
			char	   *name = get_attname(r->relid, r->attnos[c], true);

			names[c] = CStringGetTextDatum(name != NULL ? name : "?");
		}
		values[0] = ObjectIdGetDatum(r->relid);
		values[1] = PointerGetDatum(construct_array(names, r->ncols, TEXTOID, -1, false, TYPALIGN_INT));
		values[2] = Int64GetDatum(r->nrows);
		values[3] = Int64GetDatum(r->bytes);
		values[4] = Int64GetDatum(r->device_bytes);
		if (r->building)
			nulls[5] = true;
		else
			values[5] = TimestampTzGetDatum(r->built_at);
		values[6] = Int64GetDatum((int64) r->nblocks);
		values[7] = Int64GetDatum((int64) r->changed);
		values[8] = Float8GetDatum(r->nblocks == 0 ? 1.0 : 1.0 - (double) r->changed / r->nblocks);
		values[9] = Int64GetDatum(r->hits);
		values[10] = CStringGetTextDatum(r->state);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
