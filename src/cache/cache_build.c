/*
 * cache_build.c
 *	  gpusel_cache() and gpusel_uncache(): building a table's column cache
 *	  and dropping it, and the triggers that keep scans of it exact.
 *
 * The first build takes SHARE ROW EXCLUSIVE on the table, as CREATE TRIGGER
 * does: writers wait while the table is read (readers do not).  Later
 * builds take SHARE UPDATE EXCLUSIVE, start marking their new entry, then
 * wait for the writers already running (as CREATE INDEX CONCURRENTLY
 * does); either way every write the build's snapshot does not see as
 * committed is marked in the new entry.  The old cache serves scans until
 * the new one replaces it.  Every write afterwards
 * fires gpusel_cache_track, which marks the written blocks (cache_registry.c);
 * the triggers fire ALWAYS, so session_replication_role cannot skip them,
 * and a trigger changed since the build (DISABLE, ENABLE) has a new xmin,
 * which retires the cache for scans (GpuselCacheTriggerCurrent).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "cache_internal.h"
#include "column_form.h"
#include "device.h"
#include "guc.h"
#include "scan_pages.h"

PG_FUNCTION_INFO_V1(gpusel_cache);
PG_FUNCTION_INFO_V1(gpusel_uncache);
PG_FUNCTION_INFO_V1(gpusel_cache_track);

/* The builds of this transaction, undone if it aborts: each entry with its generation. */
static struct
{
	GpuselCacheEntry *entry;
	uint64		generation;
}			builds_in_xact[GPUSEL_CACHE_MAX_TABLES];
static int	nbuilds_in_xact = 0;
static bool xact_callback_registered = false;

/*
 * Undoes the builds of a transaction that aborted (their triggers may be
 * gone with it); an entry another build has claimed since is left alone.
 */
static void
cache_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		for (int i = 0; i < nbuilds_in_xact; i++)
			GpuselCacheDiscardBuild(builds_in_xact[i].entry, builds_in_xact[i].generation);
		nbuilds_in_xact = 0;
	}
	else if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
			 event == XACT_EVENT_PREPARE)
		nbuilds_in_xact = 0;
}

/* Remembers a build of this transaction. */
static void
remember_build(GpuselCacheEntry *entry)
{
	/* the same slot built twice: its latest generation is the one to undo */
	for (int i = 0; i < nbuilds_in_xact; i++)
		if (builds_in_xact[i].entry == entry)
		{
			builds_in_xact[i].generation = entry->generation;
			return;
		}
	builds_in_xact[nbuilds_in_xact].entry = entry;
	builds_in_xact[nbuilds_in_xact].generation = entry->generation;
	nbuilds_in_xact++;
}

/* Raises the error for a server without the cache's shared memory. */
static void
require_registry(void)
{
	if (!GpuselCacheConfigured())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the gpusel column cache needs gpusel in shared_preload_libraries"),
				 errdetail("The cache lives in shared memory that is set up when the server starts."),
				 errhint("Add gpusel to shared_preload_libraries and restart the server.")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the gpusel column cache cannot be built during recovery")));
}

/* Opens a table the caller owns, checking that the cache can hold it. */
static Relation
open_cacheable(Oid relid, LOCKMODE mode)
{
	Relation	rel = table_open(relid, mode);

	if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a heap table", RelationGetRelationName(rel)),
				 errdetail("The column cache holds ordinary tables of the heap access method; cache a partitioned table's partitions.")));
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("temporary table \"%s\" cannot be cached", RelationGetRelationName(rel)),
				 errdetail("The column cache is shared by every session; a temporary table is seen by one.")));
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, RelationGetRelationName(rel));
	return rel;
}


/* Runs one SQL command that changes the catalogs, through SPI. */
static void
run_sql(const char *sql)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "gpusel could not run: %s", sql);
	SPI_finish();
	CommandCounterIncrement();
}

/* Whether both triggers exist and fire ALWAYS: a build then needs no strong lock. */
static bool
triggers_ready(Oid relid)
{
	for (int i = 0; i < 2; i++)
	{
		HeapTuple	tup = GpuselCacheFindTrigger(relid, i == 0 ? GPUSEL_CACHE_ROW_TRIGGER :
												 GPUSEL_CACHE_TRUNCATE_TRIGGER);

		if (!HeapTupleIsValid(tup) ||
			((Form_pg_trigger) GETSTRUCT(tup))->tgenabled != TRIGGER_FIRES_ALWAYS)
			return false;
	}
	return true;
}

/*
 * Creates the table's two triggers where they are missing, and makes both
 * fire ALWAYS; the row trigger's oid and xmin as they are now.
 */
static void
ensure_triggers(Relation rel, Oid ext_namespace, GpuselCacheEntry *entry)
{
	const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   RelationGetRelationName(rel));
	const char *schema = quote_identifier(get_namespace_name(ext_namespace));
	HeapTuple	tup;

	tup = GpuselCacheFindTrigger(RelationGetRelid(rel), GPUSEL_CACHE_ROW_TRIGGER);
	if (!HeapTupleIsValid(tup))
		run_sql(psprintf("CREATE TRIGGER " GPUSEL_CACHE_ROW_TRIGGER
						 " AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION %s.gpusel_cache_track()",
						 table, schema));
	tup = GpuselCacheFindTrigger(RelationGetRelid(rel), GPUSEL_CACHE_TRUNCATE_TRIGGER);
	if (!HeapTupleIsValid(tup))
		run_sql(psprintf("CREATE TRIGGER " GPUSEL_CACHE_TRUNCATE_TRIGGER
						 " AFTER TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION %s.gpusel_cache_track()",
						 table, schema));
	/* ALWAYS: session_replication_role = replica must not skip them */
	for (int i = 0; i < 2; i++)
	{
		const char *name = i == 0 ? GPUSEL_CACHE_ROW_TRIGGER : GPUSEL_CACHE_TRUNCATE_TRIGGER;

		tup = GpuselCacheFindTrigger(RelationGetRelid(rel), name);
		if (((Form_pg_trigger) GETSTRUCT(tup))->tgenabled != TRIGGER_FIRES_ALWAYS)
		{
			EnableDisableTrigger(rel, name, TRIGGER_FIRES_ALWAYS, false, ShareRowExclusiveLock);
			CommandCounterIncrement();
		}
	}
	tup = GpuselCacheFindTrigger(RelationGetRelid(rel), GPUSEL_CACHE_ROW_TRIGGER);
	entry->trigger_oid = ((Form_pg_trigger) GETSTRUCT(tup))->oid;
	entry->trigger_xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
	tup = GpuselCacheFindTrigger(RelationGetRelid(rel), GPUSEL_CACHE_TRUNCATE_TRIGGER);
	entry->truncate_trigger_oid = ((Form_pg_trigger) GETSTRUCT(tup))->oid;
	entry->truncate_trigger_xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
}


/*
 * The form a column is cached in: one batch column chosen by its type
 * alone, the same in every process: the form quals read, else (char(n),
 * which quals compare by collation; text and uuid keys) the one group keys
 * read.  False for a type the cache does not hold (wide numerics take two
 * batch columns), and for text and uuid columns not named: their codes
 * take a dictionary, which a column of many distinct values would
 * outgrow (cache_dict.c).
 */
static bool
cacheable_form(Form_pg_attribute att, bool named, GpuselFormChoice *choice)
{
	const GpuselFormInfo *info;

	if (!GpuselChooseForm(att->atttypid, att->atttypmod, att->attcollation, GPUSEL_USE_QUAL,
						  -1, choice) &&
		!GpuselChooseForm(att->atttypid, att->atttypmod, att->attcollation, GPUSEL_USE_GROUP,
						  -1, choice))
		return false;
	info = GpuselFormLookup(choice->form);
	if (info->ncolumns != 1)
		return false;
	if (info->dictionary)
		return named;
	return info->crosses == GPUSEL_CROSS_AS_IS;
}

/* Picks the columns to cache: the named ones, or every one the cache can hold. */
static void
choose_columns(Relation rel, ArrayType *names, GpuselCacheEntry *entry, GpuselProgram *prog)
{
	TupleDesc	desc = RelationGetDescr(rel);
	GpuselFormChoice choice;
	Datum	   *name_elems = NULL;
	bool	   *name_nulls = NULL;
	int			nnames = 0;

	memset(prog, 0, sizeof(GpuselProgram));
	if (names != NULL)
		deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &name_elems, &name_nulls, &nnames);
	entry->ncols = 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		wanted = names == NULL;

		if (att->attisdropped)
			continue;
		for (int k = 0; k < nnames && !wanted; k++)
			wanted = !name_nulls[k] && strcmp(TextDatumGetCString(name_elems[k]), NameStr(att->attname)) == 0;
		if (!wanted)
			continue;
		if (!cacheable_form(att, names != NULL, &choice))
		{
			if (names != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column \"%s\" of type %s cannot be cached", NameStr(att->attname),
								format_type_be(att->atttypid)),
						 errdetail("The column cache holds fixed-width numbers, dates, times, booleans, chars, numerics with a declared scale, and text, varchar and uuid columns under a deterministic collation.")));
			continue;
		}
		if (entry->ncols == GS_MAX_PROGRAM_LENGTH)
			ereport(ERROR,
					(errcode(ERRCODE_TOO_MANY_COLUMNS),
					 errmsg("the column cache holds at most %d columns of a table", GS_MAX_PROGRAM_LENGTH),
					 errhint("Name the columns to cache in gpusel_cache's second argument.")));
		entry->attnos[entry->ncols] = att->attnum;
		entry->typids[entry->ncols] = att->atttypid;
		entry->typmods[entry->ncols] = att->atttypmod;
		entry->form[entry->ncols] = choice.form;
		entry->form_arg[entry->ncols] = choice.arg;
		entry->coltypes[entry->ncols] = choice.coltype;
		entry->has_nulls[entry->ncols] = 0;
		prog->attnos[entry->ncols] = att->attnum;
		prog->coltypes[entry->ncols] = choice.coltype;
		prog->form[entry->ncols] = choice.form;
		prog->form_arg[entry->ncols] = choice.arg;
		entry->ncols++;
	}
	prog->ncols = entry->ncols;
	if (entry->ncols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has no column the cache can hold", RelationGetRelationName(rel))));
	/* a segment: each column's values then its null bytes, then the TIDs */
	entry->segment_bytes = 0;
	for (int c = 0; c < entry->ncols; c++)
	{
		entry->values_off[c] = entry->segment_bytes;
		entry->segment_bytes += MAXALIGN((Size) GPUSEL_CACHE_SEGMENT_ROWS * GpuselColumnWidth(entry->coltypes[c]));
		entry->nulls_off[c] = entry->segment_bytes;
		entry->segment_bytes += MAXALIGN((Size) GPUSEL_CACHE_SEGMENT_ROWS);
	}
	entry->tids_off = entry->segment_bytes;
	entry->segment_bytes += MAXALIGN((Size) GPUSEL_CACHE_SEGMENT_ROWS * sizeof(ItemPointerData));
}

/* Whether the build makes a device copy: the GPU service keeps such memory and the budget allows some. */
static bool
wants_device_copy(void)
{
	return gpusel_cache_device_memory_mb > 0 && GpuselDeviceKeepsResident();
}

/*
 * The rows the table's statistics promise at most (reltuples per page
 * over the blocks there are now, with room to spare); 0 without them.
 */
static int64
expected_rows(Relation rel, BlockNumber nblocks)
{
	double		reltuples = rel->rd_rel->reltuples;
	BlockNumber relpages = rel->rd_rel->relpages;
	double		rows;

	if (reltuples < 0 || relpages == 0 || nblocks == 0)
		return 0;
	rows = reltuples / relpages * nblocks * 1.05 + GPUSEL_CACHE_SEGMENT_ROWS;
	return (int64) Min(rows, (double) PG_INT32_MAX * 16);
}

/*
 * Before the read: begins a device copy that the build's processes write
 * as they read, with room for the rows the statistics promise; a table
 * without statistics, or one whose rows outgrow them, is copied after the
 * read.
 */
static void
begin_device_copy(GpuselCacheEntry *entry, int64 capacity, GpuselCacheDeviceStream *stream)
{
	Size		in_use;

	memset(stream, 0, sizeof(*stream));
	pg_atomic_init_u32(&stream->stopped, 0);
	if (!wants_device_copy() || capacity <= 0)
		return;
	if (!GpuselCacheReserveDevice(entry, GpuselCacheStreamLayout(entry, capacity, stream), &in_use))
		stream->resident = 0;
	else if (!GpuselCacheStreamBegin(entry, (int) (entry - GpuselCacheRegistry()->entries), stream))
		GpuselCacheReleaseDevice(entry);
}

/*
 * After the build has read the table: finishes the device copy written
 * while reading, or copies its columns to device memory now (cache_device.c)
 * when the GPU service keeps such memory and the copy fits
 * gpusel.cache_device_memory; else the table stays in shared memory only,
 * and a notice says why.  Returns whether the copy was written while reading.
 */
static bool
to_device(GpuselCacheEntry *entry, GpuselCacheDeviceStream *stream)
{
	Size		bytes;
	Size		in_use;
	char		errbuf[512];

	if (stream->resident != 0 && pg_atomic_read_u32(&stream->stopped) == 0)
	{
		bytes = GpuselCacheStreamFinish(entry, stream);
		/* the copy shrank to its rows: count what it holds now */
		(void) GpuselCacheReserveDevice(entry, bytes, &in_use);
		return true;
	}
	if (stream->resident != 0)
		GpuselCacheReleaseDevice(entry);
	entry->resident = 0;
	entry->device_bytes = 0;

	/*
	 * A device process killed just before or during the read may have
	 * looked up while it died: its successor, a moment away, takes the
	 * copy instead of leaving the table in shared memory only.
	 */
	if (gpusel_cache_device_memory_mb > 0 && gpusel_device_mode != GPUSEL_DEVICE_CPU)
		(void) GpuselDeviceAwaitKeepsResident();
	if (!wants_device_copy())
		return false;
	bytes = GpuselCacheDeviceLayout(entry);
	if (!GpuselCacheReserveDevice(entry, bytes, &in_use))
	{
		ereport(NOTICE,
				(errmsg("table's column cache kept in shared memory only"),
				 errdetail("Its device copy would take %zu MB; cached tables hold %zu MB of the %d MB gpusel.cache_device_memory allows.",
						   bytes / (1024 * 1024), in_use / (1024 * 1024), gpusel_cache_device_memory_mb),
				 errhint("Raise gpusel.cache_device_memory, or cache fewer columns.")));
		return false;
	}
	errbuf[0] = '\0';
	if (GpuselCacheCopyToDevice(entry, (int) (entry - GpuselCacheRegistry()->entries), GpuselCacheArea(),
								bytes, errbuf, sizeof(errbuf)) != GS_OK)
	{
		GpuselCacheReleaseDevice(entry);
		ereport(NOTICE,
				(errmsg("table's column cache kept in shared memory only"),
				 errdetail("The GPU service could not keep its columns in device memory: %s", errbuf)));
	}
	return false;
}

/*
 * SQL gpusel_cache(table regclass, columns text[] DEFAULT NULL): caches the
 * table's columns (those named, or every one the cache can hold) and
 * returns the rows cached.  Replaces the table's earlier cache.
 */
Datum
gpusel_cache(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ArrayType  *names = PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1);
	Relation	rel;
	GpuselCacheEntry *entry;
	GpuselProgram *prog = palloc(sizeof(GpuselProgram));
	Snapshot	snapshot;
	BlockNumber nblocks;
	bool		refresh;
	int64		nrows;
	TimestampTz started;
	TimestampTz read_done;
	GpuselCacheDeviceStream stream;
	bool		streamed;
	int64		expected;

	require_registry();
	GpuselCacheForgetDropped();

	/*
	 * A GPU service that is starting (just after the server started) or
	 * restarting is the GPU in a moment: wait for it once, before any lock
	 * is taken, rather than leave the table in shared memory only.
	 */
	if (gpusel_cache_device_memory_mb > 0 && gpusel_device_mode != GPUSEL_DEVICE_CPU)
		(void) GpuselDeviceAwaitKeepsResident();

	/*
	 * Once the triggers are in place, a build lets writers go on: it takes
	 * SHARE UPDATE EXCLUSIVE (one build at a time) and waits instead for
	 * the writers already running.  The first build creates the triggers,
	 * which takes SHARE ROW EXCLUSIVE: writers wait for it.
	 */
	rel = open_cacheable(relid, ShareUpdateExclusiveLock);
	refresh = triggers_ready(relid);
	if (!refresh)
	{
		table_close(rel, NoLock);
		rel = open_cacheable(relid, ShareRowExclusiveLock);
	}
	/* its own writes would be cached as if committed, and nothing marks their undoing */
	if (CheckRelationLockedByMe(rel, RowExclusiveLock, false))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot cache table \"%s\" in a transaction that has written it",
						RelationGetRelationName(rel)),
				 errhint("Commit the writes first, then call gpusel_cache().")));
	if (!xact_callback_registered)
	{
		RegisterXactCallback(cache_xact_callback, NULL);
		xact_callback_registered = true;
	}
	entry = GpuselCacheClaim(relid);
	remember_build(entry);
	PG_TRY();
	{
		/* the trigger function lives beside this one, in the extension's schema */
		ensure_triggers(rel, get_func_namespace(fcinfo->flinfo->fn_oid), entry);
		choose_columns(rel, names, entry, prog);
		entry->relfilenode = rel->rd_node.relNode;
		nblocks = RelationGetNumberOfBlocks(rel);
		GpuselCacheReserveOrFail(rel, entry, sizeof(uint32) * ((Size) nblocks / 32 + 1));
		GpuselCacheStartMarking(entry, nblocks,
								GpuselCacheAreaAlloc(sizeof(pg_atomic_uint32) * ((Size) nblocks / 32 + 1)));

		/*
		 * Every write from here on marks this entry.  A writer that wrote
		 * before may still be running: wait until none is, so the snapshot
		 * sees each such write as committed or aborted, never in progress.
		 */
		if (refresh)
		{
			LOCKTAG		tag;

			SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
			WaitForLockers(tag, ShareLock, false);
		}
		snapshot = RegisterSnapshot(GetLatestSnapshot());
		entry->build_xmax = snapshot->xmax;
		entry->build_xcnt = snapshot->xcnt <= GPUSEL_CACHE_MAX_XIP ? (int) snapshot->xcnt : -1;
		if (entry->build_xcnt > 0)
			memcpy(entry->build_xip, snapshot->xip, sizeof(TransactionId) * entry->build_xcnt);
		started = GetCurrentTimestamp();
		expected = expected_rows(rel, nblocks);
		begin_device_copy(entry, expected, &stream);
		nrows = GpuselCacheReadTable(rel, refresh ? ShareUpdateExclusiveLock : ShareRowExclusiveLock,
									 snapshot, entry, prog, expected, &stream);
		UnregisterSnapshot(snapshot);
		entry->nrows = nrows;
		read_done = GetCurrentTimestamp();
		streamed = to_device(entry, &stream);
		ereport(DEBUG1,
				(errmsg_internal("gpusel: cached \"%s\": %lld rows read in %ld ms%s, then %ld ms %s",
								 RelationGetRelationName(rel), (long long) nrows,
								 TimestampDifferenceMilliseconds(started, read_done),
								 streamed ? " (the device copy written while reading)" : "",
								 TimestampDifferenceMilliseconds(read_done, GetCurrentTimestamp()),
								 entry->resident != 0 ? "to finish the device copy" : "without a device copy")));
	}
	PG_CATCH();
	{
		/* at once: a subtransaction's error does not abort the transaction */
		GpuselCacheAbandon(entry);
		PG_RE_THROW();
	}
	PG_END_TRY();

	entry->nrows = nrows;
	entry->built_at = GetCurrentTimestamp();
	/* the new cache replaces the old one at once: scans never go without */
	GpuselCachePublish(entry);
	table_close(rel, NoLock);
	PG_RETURN_INT64(nrows);
}

/* SQL gpusel_uncache(table regclass): drops the table's cache and triggers. */
Datum
gpusel_uncache(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	bool		had;
	const char *table;

	require_registry();
	rel = open_cacheable(relid, ShareRowExclusiveLock);
	had = GpuselCacheHolds(relid);
	GpuselCacheRetire(relid);
	table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
									   RelationGetRelationName(rel));
	if (HeapTupleIsValid(GpuselCacheFindTrigger(relid, GPUSEL_CACHE_ROW_TRIGGER)))
		run_sql(psprintf("DROP TRIGGER " GPUSEL_CACHE_ROW_TRIGGER " ON %s", table));
	if (HeapTupleIsValid(GpuselCacheFindTrigger(relid, GPUSEL_CACHE_TRUNCATE_TRIGGER)))
		run_sql(psprintf("DROP TRIGGER " GPUSEL_CACHE_TRUNCATE_TRIGGER " ON %s", table));
	table_close(rel, NoLock);
	PG_RETURN_BOOL(had);
}

/*
 * The triggers' function: a row written marks its block (both blocks of an
 * update); a TRUNCATE retires the table's cache.
 */
Datum
gpusel_cache_track(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			relid;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gpusel_cache_track() must be called as a trigger")));
	relid = RelationGetRelid(td->tg_relation);
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		GpuselCacheMarkTruncated(relid);
	else if (TRIGGER_FIRED_FOR_ROW(td->tg_event))
	{
		if (td->tg_trigslot != NULL && ItemPointerIsValid(&td->tg_trigslot->tts_tid))
			GpuselCacheMarkChanged(relid, ItemPointerGetBlockNumber(&td->tg_trigslot->tts_tid));
		if (TRIGGER_FIRED_BY_UPDATE(td->tg_event) && td->tg_newslot != NULL &&
			ItemPointerIsValid(&td->tg_newslot->tts_tid))
			GpuselCacheMarkChanged(relid, ItemPointerGetBlockNumber(&td->tg_newslot->tts_tid));
	}
	return PointerGetDatum(NULL);
}
