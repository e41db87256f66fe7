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

	InitMaterializedSRF(fcinfo, 0);
	if (reg == NULL)
		return (Datum) 0;
	GpuselCacheForgetDropped();
	LWLockAcquire(reg->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &reg->entries[i];
		Datum		values[10];
		bool		nulls[10] = {0};
		Datum		names[GS_MAX_PROGRAM_LENGTH];
		uint32		changed;

		if (e->state == GPUSEL_CACHE_FREE || e->state == GPUSEL_CACHE_RETIRED || e->dbid != MyDatabaseId)
			continue;
		for (int c = 0; c < e->ncols; c++)
		{
			char	   *name = get_attname(e->relid, e->attnos[c], true);

			names[c] = CStringGetTextDatum(name != NULL ? name : "?");
		}
		changed = pg_atomic_read_u32(&e->changed_blocks);
		values[0] = ObjectIdGetDatum(e->relid);
		values[1] = PointerGetDatum(construct_array(names, e->ncols, TEXTOID, -1, false, TYPALIGN_INT));
		values[2] = Int64GetDatum(e->nrows);
		values[3] = Int64GetDatum((int64) e->bytes);
		if (e->state == GPUSEL_CACHE_BUILDING)
			nulls[4] = true;
		else
			values[4] = TimestampTzGetDatum(e->built_at);
		values[5] = Int64GetDatum((int64) e->nblocks);
		values[6] = Int64GetDatum((int64) changed);
		values[7] = Float8GetDatum(e->nblocks == 0 ? 1.0 : 1.0 - (double) changed / e->nblocks);
		values[8] = Int64GetDatum((int64) pg_atomic_read_u64(&e->hits));
		values[9] = CStringGetTextDatum(state_name(e));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(reg->lock);
	return (Datum) 0;
}
