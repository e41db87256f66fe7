/*
 * cache_refresh.c
 *	  Bringing cached tables current: gpusel_cache_refresh() rebuilds this
 *	  database's cached tables that writes have left stale, and the "gpusel
 *	  cache refresh" background worker calls it in every database that has
 *	  a cache, every gpusel.cache_refresh_naptime.
 *
 * A table is stale when its cache cannot serve scans (TRUNCATE, a rewrite,
 * its triggers changed), when its device copy was lost with the GPU
 * service's device process, or when at least gpusel.cache_refresh_threshold
 * of its blocks were written since the build.  A rebuild is gpusel_cache on
 * the same columns: it takes SHARE UPDATE EXCLUSIVE, so writers go on, and
 * the old cache serves scans until the new one replaces it.  Each rebuild
 * runs in a subtransaction of its own: one that fails (the table no longer
 * fits) is reported as a WARNING and the others go on.
 *
 * The launcher connects to no database (the shared catalogs tell it which
 * still exist): it reads the registry, and for each database with a cache
 * starts a worker connected there, one at a time.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/tupdesc.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "cache_internal.h"
#include "device.h"
#include "guc.h"

PG_FUNCTION_INFO_V1(gpusel_cache_refresh);
PGDLLEXPORT void GpuselCacheRefreshLauncherMain(Datum arg);
PGDLLEXPORT void GpuselCacheRefreshDatabaseMain(Datum arg);

/* A ready cached table of this database, as the registry described it. */
typedef struct StaleTable
{
	int			index;			/* in the registry */
	uint64		generation;		/* the entry's, when copied: another build changes it */
	Oid			relid;
	Oid			relfilenode;
	BlockNumber nblocks;
	uint32		changed;
	bool		truncated;
	bool		lost_device;	/* it had a device copy that the GPU service no longer holds */
	int			ncols;
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
} StaleTable;

/* Whether entry t->index still is the build t was copied from. */
static bool
entry_unchanged(const StaleTable *t)
{
	GpuselCacheShared *registry = GpuselCacheRegistry();
	GpuselCacheEntry *e = &registry->entries[t->index];
	bool		same;

	LWLockAcquire(registry->lock, LW_SHARED);
	same = e->state == GPUSEL_CACHE_READY && e->generation == t->generation && e->relid == t->relid;
	LWLockRelease(registry->lock);
	return same;
}

/*
 * Whether a ready table is stale: unusable for scans, without the device
 * copy it had, or with at least min_changed of its blocks written since
 * the build.
 */
static bool
table_is_stale(const StaleTable *t, double min_changed)
{
	GpuselCacheEntry *e = &GpuselCacheRegistry()->entries[t->index];
	Relation	rel;
	bool		rewritten;

	if (t->truncated || !GpuselCacheTriggerCurrent(e))
		return true;
	/* its device process restarted since the build, and the service could hold a copy again */
	if (t->lost_device && GpuselDeviceKeepsResident())
		return true;
	rel = try_relation_open(t->relid, AccessShareLock);
	if (rel == NULL)
		return false;			/* dropped: its cache goes with the next build or view */
	rewritten = rel->rd_node.relNode != t->relfilenode;
	relation_close(rel, AccessShareLock);
	if (rewritten)
		return true;
	return t->changed > 0 && t->changed >= min_changed * (double) Max(t->nblocks, 1);
}

/* This database's stale cached tables, copied out of the registry under its lock. */
static List *
stale_tables(double min_changed)
{
	GpuselCacheShared *registry = GpuselCacheRegistry();
	List	   *ready = NIL;
	List	   *stale = NIL;
	ListCell   *lc;

	if (registry == NULL)
		return NIL;
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];
		StaleTable *t;

		if (e->state != GPUSEL_CACHE_READY || e->dbid != MyDatabaseId)
			continue;
		t = palloc(sizeof(StaleTable));
		t->index = i;
		t->generation = e->generation;
		t->relid = e->relid;
		t->relfilenode = e->relfilenode;
		t->nblocks = e->nblocks;
		t->changed = pg_atomic_read_u32(&e->changed_blocks);
		t->truncated = pg_atomic_read_u32(&e->truncated) != 0;
		t->lost_device = e->resident != 0 && !GpuselCacheOnDevice(e);
		t->ncols = e->ncols;
		memcpy(t->attnos, e->attnos, sizeof(t->attnos));
		ready = lappend(ready, t);
	}
	LWLockRelease(registry->lock);
	/* judged after: that opens the relations (and the triggers' entry may change meanwhile) */
	foreach(lc, ready)
	{
		StaleTable *t = lfirst(lc);

		if (table_is_stale(t, min_changed) && entry_unchanged(t))
			stale = lappend(stale, t);
		else
			pfree(t);
	}
	list_free(ready);
	return stale;
}

/* The cached columns' names as a text[]; NULL when none is left (every column then). */
static Datum
column_names(const StaleTable *t, bool *isnull)
{
	Datum		names[GS_MAX_PROGRAM_LENGTH];
	int			n = 0;

	for (int c = 0; c < t->ncols; c++)
	{
		char	   *name = get_attname(t->relid, t->attnos[c], true);

		if (name != NULL)
			names[n++] = CStringGetTextDatum(name);
	}
	*isnull = n == 0;
	if (n == 0)
		return (Datum) 0;
	return PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * Rebuilds one table's cache with gpusel_cache (fn_oid) in a subtransaction;
 * false, after a WARNING with the error, when the rebuild failed.
 */
static bool
rebuild(Oid build_fn, const StaleTable *t)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		bool		names_null;
		Datum		names = column_names(t, &names_null);
		LOCAL_FCINFO(fcinfo, 2);
		FmgrInfo	flinfo;

		fmgr_info(build_fn, &flinfo);
		InitFunctionCallInfoData(*fcinfo, &flinfo, 2, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = ObjectIdGetDatum(t->relid);
		fcinfo->args[0].isnull = false;
		fcinfo->args[1].value = names;
		fcinfo->args[1].isnull = names_null;
		(void) FunctionCallInvoke(fcinfo);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		/* a cancel or a timeout ends the refresh, as it would any statement */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(edata);
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("could not refresh the column cache of table \"%s\": %s",
						get_rel_name(t->relid) ? get_rel_name(t->relid) : "?", edata->message),
				 edata->detail ? errdetail_internal("%s", edata->detail) : 0));
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * SQL gpusel_cache_refresh(min_changed float8 DEFAULT NULL): rebuilds this
 * database's stale cached tables (min_changed, or
 * gpusel.cache_refresh_threshold, the share of blocks written that makes
 * a table stale) and returns those rebuilt.
 */
Datum
gpusel_cache_refresh(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double		min_changed = PG_ARGISNULL(0) ? gpusel_cache_refresh_threshold : PG_GETARG_FLOAT8(0);
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			argtypes[2] = {REGCLASSOID, TEXTARRAYOID};
	Oid			build_fn;
	MemoryContext oldcxt;
	MemoryContext per_table;
	TupleDesc	desc;
	List	   *stale;
	ListCell   *lc;

	if (min_changed < 0 || min_changed > 1 || isnan(min_changed))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_changed must be between 0 and 1"),
				 errdetail("It is the share of a table's blocks written since its build that makes it stale.")));
	/* gpusel_cache beside this function, wherever the extension lives */
	build_fn = LookupFuncName(list_make2(makeString(get_namespace_name(nsp)), makeString("gpusel_cache")),
							  2, argtypes, false);
	/* a set of regclass, materialized: InitMaterializedSRF wants a row type */
	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) || !(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	oldcxt = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	desc = CreateTemplateTupleDesc(1);
	TupleDescInitEntry(desc, (AttrNumber) 1, "gpusel_cache_refresh", REGCLASSOID, -1, 0);
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap(true, false, work_mem);
	rsinfo->setDesc = desc;
	MemoryContextSwitchTo(oldcxt);

	stale = stale_tables(min_changed);
	/* each rebuild's memory goes when it is done: a build's staging is large */
	per_table = AllocSetContextCreate(CurrentMemoryContext, "gpusel cache refresh", ALLOCSET_DEFAULT_SIZES);
	foreach(lc, stale)
	{
		StaleTable *t = lfirst(lc);
		Datum		value = ObjectIdGetDatum(t->relid);
		bool		isnull = false;
		bool		rebuilt;

		CHECK_FOR_INTERRUPTS();
		oldcxt = MemoryContextSwitchTo(per_table);
		rebuilt = rebuild(build_fn, t);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(per_table);
		if (rebuilt)
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	MemoryContextDelete(per_table);
	return (Datum) 0;
}

/*
 * Databases with a ready cached table, from the registry, less those
 * dropped since (their entries go when a build or the view next runs).
 */
static List *
databases_with_caches(void)
{
	GpuselCacheShared *registry = GpuselCacheRegistry();
	MemoryContext cxt = CurrentMemoryContext;
	List	   *cached = NIL;
	List	   *dbs = NIL;
	ListCell   *lc;

	if (registry == NULL)
		return NIL;
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		if (e->state == GPUSEL_CACHE_READY)
			cached = list_append_unique_oid(cached, e->dbid);
	}
	LWLockRelease(registry->lock);
	if (cached == NIL)
		return NIL;
	StartTransactionCommand();
	foreach(lc, cached)
	{
		if (SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(lfirst_oid(lc))))
		{
			/* the list outlives the transaction */
			MemoryContext old = MemoryContextSwitchTo(cxt);

			dbs = lappend_oid(dbs, lfirst_oid(lc));
			MemoryContextSwitchTo(old);
		}
	}
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	list_free(cached);
	return dbs;
}

/* Starts the worker that refreshes database dbid's caches, and waits for it to end. */
static void
refresh_database(Oid dbid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	pid_t		pid;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpusel");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "GpuselCacheRefreshDatabaseMain");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpusel cache refresh of database %u", dbid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpusel cache refresh");
	worker.bgw_main_arg = ObjectIdGetDatum(dbid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		ereport(LOG,
				(errmsg("gpusel cache refresh could not start a worker for database %u", dbid),
				 errhint("Raise max_worker_processes.")));
		return;
	}
	if (WaitForBackgroundWorkerStartup(handle, &pid) == BGWH_STARTED)
		(void) WaitForBackgroundWorkerShutdown(handle);
	pfree(handle);
}

/*
 * The launcher: every gpusel.cache_refresh_naptime (0: it only waits for a
 * new setting), a refresh in each database that has a cache.
 */
void
GpuselCacheRefreshLauncherMain(Datum arg)
{
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	/* no database: the shared catalogs only, to know which databases still exist */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	for (;;)
	{
		long		naptime_ms = (long) gpusel_cache_refresh_naptime_s * 1000L;
		int			rc;

		rc = WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | (naptime_ms > 0 ? WL_TIMEOUT : 0),
					   naptime_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		/* a barrier (DROP DATABASE waits for every process to absorb it) */
		CHECK_FOR_INTERRUPTS();
		if (ShutdownRequestPending)
			proc_exit(0);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			continue;
		}
		if ((rc & WL_TIMEOUT) && gpusel_cache_refresh_naptime_s > 0)
		{
			List	   *dbs = databases_with_caches();
			ListCell   *lc;

			foreach(lc, dbs)
			{
				if (ShutdownRequestPending)
					break;
				refresh_database(lfirst_oid(lc));
			}
			list_free(dbs);
		}
	}
}

/* A worker of the launcher: gpusel_cache_refresh() in its database, where gpusel is installed. */
void
GpuselCacheRefreshDatabaseMain(Datum arg)
{
	Oid			dbid = DatumGetObjectId(arg);

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dbid, InvalidOid, 0);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	/* where the extension lives in this database, if it does */
	if (SPI_execute("SELECT n.nspname FROM pg_catalog.pg_extension e "
					"JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace "
					"WHERE e.extname = 'gpusel'", true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		char	   *nsp = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		StringInfoData sql;

		pgstat_report_activity(STATE_RUNNING, "gpusel_cache_refresh()");
		initStringInfo(&sql);
		appendStringInfo(&sql, "SELECT %s.gpusel_cache_refresh()", quote_identifier(nsp));
		if (SPI_execute(sql.data, false, 0) != SPI_OK_SELECT)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpusel cache refresh could not run gpusel_cache_refresh() in database %u", dbid)));
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}

/*
 * _PG_init's part, while the postmaster loads shared_preload_libraries:
 * registers the launcher.
 */
void
GpuselCacheRefreshInit(void)
{
	BackgroundWorker worker;

	if (!process_shared_preload_libraries_in_progress)
		return;
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpusel");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "GpuselCacheRefreshLauncherMain");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpusel cache refresh launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpusel cache refresh launcher");
	RegisterBackgroundWorker(&worker);
}
