/*
 * cache_registry.c
 *	  The column cache's registry: which tables are cached, in the main
 *	  shared memory, and the dynamic shared memory area their columns live
 *	  in; pins that keep a table's columns while scans read them; the marks
 *	  the row trigger leaves on written blocks.
 *
 * The registry needs gpusel in shared_preload_libraries.  An entry goes
 * FREE -> BUILDING -> READY -> RETIRED -> FREE; a retired entry's memory
 * is freed by whoever drops its last pin.  A restart empties the registry:
 * the cache is simply gone.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/fmgroids.h"

#include "cache_internal.h"
#include "guc.h"

static GpuselCacheShared *registry = NULL;
static dsa_area *area = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Asks for the registry's shared memory and its lock. */
static void
cache_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GpuselCacheShared)));
	RequestNamedLWLockTranche("gpusel cache", 1);
}

/* Lays out the registry once, in the postmaster. */
static void
cache_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	registry = ShmemInitStruct("gpusel column cache", sizeof(GpuselCacheShared), &found);
	if (!found)
	{
		memset(registry, 0, sizeof(GpuselCacheShared));
		registry->lock = &(GetNamedLWLockTranche("gpusel cache"))->lock;
		registry->area_tranche = LWLockNewTrancheId();
		registry->area = GPUSEL_CACHE_NO_AREA;
		for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
		{
			GpuselCacheEntry *e = &registry->entries[i];

			pg_atomic_init_u32(&e->truncated, 0);
			pg_atomic_init_u32(&e->pins, 0);
			pg_atomic_init_u32(&e->changed_blocks, 0);
			pg_atomic_init_u64(&e->hits, 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

/* Installs the shared memory hooks when gpusel is preloaded. */
void
GpuselCacheShmemInit(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = cache_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = cache_shmem_startup;
}

/* Whether this server has the cache's registry (gpusel preloaded). */
bool
GpuselCacheConfigured(void)
{
	return registry != NULL;
}

/* The registry; NULL without preload. */
GpuselCacheShared *
GpuselCacheRegistry(void)
{
	return registry;
}

/*
 * This process's mapping of the columns' area, created by the first build
 * (the caller then holds the registry's lock exclusively); NULL before it.
 */
static dsa_area *
attach_area(bool create)
{
	MemoryContext old;

	if (area != NULL)
		return area;
	if (registry->area == GPUSEL_CACHE_NO_AREA && !create)
		return NULL;
	LWLockRegisterTranche(registry->area_tranche, "gpusel cache area");
	old = MemoryContextSwitchTo(TopMemoryContext);
	if (registry->area == GPUSEL_CACHE_NO_AREA)
	{
		area = dsa_create(registry->area_tranche);
		dsa_pin(area);
		registry->area = dsa_get_handle(area);
	}
	else
		area = dsa_attach(registry->area);
	dsa_pin_mapping(area);
	MemoryContextSwitchTo(old);
	return area;
}

/* The columns' area, mapped into this process. */
dsa_area *
GpuselCacheArea(void)
{
	return attach_area(false);
}

/* Gives the entry's device copy and its budget up; the caller holds the lock exclusively. */
static void
release_device_locked(GpuselCacheEntry *entry)
{
	GpuselCacheDropDevice(entry);
	entry->device_bytes = 0;
}

/* Gives the entry's device copy and its budget up, after a copy that failed. */
void
GpuselCacheReleaseDevice(GpuselCacheEntry *entry)
{
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	release_device_locked(entry);
	LWLockRelease(registry->lock);
}

/*
 * Takes bytes of the per-GPU device budget (gpusel.cache_device_memory) for
 * the entry's device copy; false, with the bytes in use, when they do not
 * fit.  What is in use is counted afresh: the copies the service holds now
 * (a restart lost the others) and the builds under way, but not the copy
 * of the same table this build replaces, which goes when it is published.
 */
bool
GpuselCacheReserveDevice(GpuselCacheEntry *entry, Size bytes, Size *in_use)
{
	Size		limit = (Size) gpusel_cache_device_memory_mb * 1024 * 1024;
	Size		used = 0;
	bool		fits;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		if (e == entry || e->device_bytes == 0 || e->state == GPUSEL_CACHE_FREE)
			continue;
		if (e->state == GPUSEL_CACHE_READY && e->dbid == entry->dbid && e->relid == entry->relid)
			continue;
		if (e->resident != 0 && !GpuselCacheOnDevice(e))
			continue;
		used += e->device_bytes;
	}
	*in_use = used;
	fits = used + bytes <= limit;
	if (fits)
		entry->device_bytes = bytes;
	LWLockRelease(registry->lock);
	return fits;
}

/* Frees an entry's columns and arrays; the caller holds the lock exclusively. */
void
GpuselCacheFreeParts(GpuselCacheEntry *entry)
{
	dsa_area   *a = attach_area(false);

	if (a != NULL)
	{
		if (DsaPointerIsValid(entry->segments))
		{
			dsa_pointer *segs = dsa_get_address(a, entry->segments);

			/* a build that failed part way frees what it had, too */

			for (int i = 0; i < entry->nsegments; i++)
				if (DsaPointerIsValid(segs[i]))
					dsa_free(a, segs[i]);
			dsa_free(a, entry->segments);
		}
		if (DsaPointerIsValid(entry->block_first))
			dsa_free(a, entry->block_first);
		if (DsaPointerIsValid(entry->changed))
			dsa_free(a, entry->changed);
		if (DsaPointerIsValid(entry->dicts))
		{
			GpuselCacheDict *dicts = dsa_get_address(a, entry->dicts);

			/* the text columns' dictionaries (cache_dict.c): their streams, then the array */
			for (int c = 0; c < entry->ncols; c++)
				if (DsaPointerIsValid(dicts[c].stream))
					dsa_free(a, dicts[c].stream);
			dsa_free(a, entry->dicts);
		}
	}
	registry->bytes_in_use -= Min(registry->bytes_in_use, entry->bytes);
	release_device_locked(entry);
	entry->segments = entry->block_first = entry->changed = entry->dicts = InvalidDsaPointer;
	entry->nsegments = 0;
	entry->segments_capacity = 0;
	entry->bytes = 0;
	entry->state = GPUSEL_CACHE_FREE;
}

/* Retires an entry, freeing it now if no scan has it pinned; the caller locks exclusively. */
static void
retire_locked(GpuselCacheEntry *e)
{
	e->state = GPUSEL_CACHE_RETIRED;
	if (pg_atomic_read_u32(&e->pins) == 0)
		GpuselCacheFreeParts(e);
}

/*
 * Appends a built segment to the entry's array, growing it, so that a
 * build that fails later frees every segment it made.
 */
void
GpuselCacheAddSegment(GpuselCacheEntry *entry, dsa_pointer segment)
{
	dsa_area   *a = attach_area(false);

	if (entry->nsegments == entry->segments_capacity)
	{
		int			capacity = Max(16, entry->segments_capacity * 2);
		dsa_pointer grown = dsa_allocate_extended(a, sizeof(dsa_pointer) * capacity, DSA_ALLOC_HUGE);

		if (DsaPointerIsValid(entry->segments))
		{
			memcpy(dsa_get_address(a, grown), dsa_get_address(a, entry->segments),
				   sizeof(dsa_pointer) * entry->nsegments);
			dsa_free(a, entry->segments);
		}
		entry->segments = grown;
		entry->segments_capacity = capacity;
	}
	((dsa_pointer *) dsa_get_address(a, entry->segments))[entry->nsegments++] = segment;
}

/* Frees the entry's segments past the first 'keep' and gives their bytes back to gpusel.cache_memory. */
void
GpuselCacheTrimSegments(GpuselCacheEntry *entry, int keep)
{
	dsa_area   *a = attach_area(false);
	dsa_pointer *segs;
	Size		freed = 0;

	if (keep >= entry->nsegments)
		return;
	segs = dsa_get_address(a, entry->segments);
	for (int s = keep; s < entry->nsegments; s++)
	{
		dsa_free(a, segs[s]);
		freed += entry->segment_bytes + sizeof(dsa_pointer);
	}
	entry->nsegments = keep;
	GpuselCacheUnreserve(entry, freed);
}

/*
 * Undoes a build of an aborted transaction, if the entry is still that
 * build (the generation says): frees it while building, retires it once
 * ready.  An entry claimed since by another build is left alone.
 */
void
GpuselCacheDiscardBuild(GpuselCacheEntry *entry, uint64 generation)
{
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if (entry->generation == generation)
	{
		if (entry->state == GPUSEL_CACHE_BUILDING)
			GpuselCacheFreeParts(entry);
		else if (entry->state == GPUSEL_CACHE_READY)
			retire_locked(entry);
	}
	LWLockRelease(registry->lock);
}

/* The entry of this database's table, in any state but FREE; the caller locks. */
static GpuselCacheEntry *
find_entry(Oid relid, GpuselCacheState state)
{
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		if (e->state == state && e->relid == relid && e->dbid == MyDatabaseId)
			return e;
	}
	return NULL;
}

/* Whether the table has a cache ready and, when on_device, its copy in device memory for this process. */
static bool
holds(Oid relid, bool on_device)
{
	GpuselCacheEntry *e;
	bool		found;

	if (registry == NULL)
		return false;
	LWLockAcquire(registry->lock, LW_SHARED);
	e = find_entry(relid, GPUSEL_CACHE_READY);
	found = e != NULL && (!on_device || GpuselCacheOnDevice(e));
	LWLockRelease(registry->lock);
	return found;
}

/* Whether the table has a cache ready (for EXPLAIN without ANALYZE). */
bool
GpuselCacheHolds(Oid relid)
{
	return holds(relid, false);
}

/* Whether the table's ready cache has its copy in device memory, for this process to read. */
bool
GpuselCacheHoldsOnDevice(Oid relid)
{
	return holds(relid, true);
}

/* Pins the table's ready cache for a scan; NULL when there is none. */
GpuselCacheEntry *
GpuselCachePin(Oid relid)
{
	GpuselCacheEntry *e;

	if (registry == NULL || registry->area == GPUSEL_CACHE_NO_AREA)
		return NULL;
	(void) attach_area(false);
	LWLockAcquire(registry->lock, LW_SHARED);
	e = find_entry(relid, GPUSEL_CACHE_READY);
	if (e != NULL)
		pg_atomic_fetch_add_u32(&e->pins, 1);
	LWLockRelease(registry->lock);
	return e;
}

/* Drops a scan's pin; the last pin of a retired entry frees it. */
void
GpuselCacheUnpin(GpuselCacheEntry *entry)
{
	if (pg_atomic_sub_fetch_u32(&entry->pins, 1) != 0)
		return;
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if (entry->state == GPUSEL_CACHE_RETIRED && pg_atomic_read_u32(&entry->pins) == 0)
		GpuselCacheFreeParts(entry);
	LWLockRelease(registry->lock);
}

/* Retires the table's cache; scans reading it finish first. */
void
GpuselCacheRetire(Oid relid)
{
	GpuselCacheEntry *e;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	while ((e = find_entry(relid, GPUSEL_CACHE_READY)) != NULL)
		retire_locked(e);
	LWLockRelease(registry->lock);
}

/* A free entry for a build, marked BUILDING; the columns' area exists after. */
GpuselCacheEntry *
GpuselCacheClaim(Oid relid)
{
	GpuselCacheEntry *claimed = NULL;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	(void) attach_area(true);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES && claimed == NULL; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		if (e->state != GPUSEL_CACHE_FREE)
			continue;
		claimed = e;
		e->generation++;
		e->state = GPUSEL_CACHE_BUILDING;
		e->dbid = MyDatabaseId;
		e->relid = relid;
		e->segments = e->block_first = e->changed = e->dicts = InvalidDsaPointer;
		e->nblocks = 0;
		e->nsegments = 0;
		e->segments_capacity = 0;
		e->bytes = 0;
		pg_atomic_write_u32(&e->truncated, 0);
		pg_atomic_write_u32(&e->changed_blocks, 0);
		pg_atomic_write_u64(&e->hits, 0);
	}
	LWLockRelease(registry->lock);
	if (claimed == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many cached tables"),
				 errdetail("The column cache holds at most %d tables.", GPUSEL_CACHE_MAX_TABLES),
				 errhint("Drop a table's cache with gpusel_uncache().")));
	return claimed;
}

/* Gives up a build: frees what it allocated. */
void
GpuselCacheAbandon(GpuselCacheEntry *entry)
{
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if (entry->state == GPUSEL_CACHE_BUILDING)
		GpuselCacheFreeParts(entry);
	LWLockRelease(registry->lock);
}

/*
 * Counts 'bytes' more against gpusel.cache_memory for a build; false, with
 * the memory in use, when they do not fit.
 */
bool
GpuselCacheReserve(GpuselCacheEntry *entry, Size bytes, Size *in_use)
{
	Size		limit = (Size) gpusel_cache_memory_mb * 1024 * 1024;
	bool		fits;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	*in_use = registry->bytes_in_use;
	fits = registry->bytes_in_use + bytes <= limit;
	if (fits)
	{
		registry->bytes_in_use += bytes;
		entry->bytes += bytes;
	}
	LWLockRelease(registry->lock);
	return fits;
}

/* Gives back bytes a build counted and did not use. */
void
GpuselCacheUnreserve(GpuselCacheEntry *entry, Size bytes)
{
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	registry->bytes_in_use -= bytes;
	entry->bytes -= bytes;
	LWLockRelease(registry->lock);
}

/* Counts bytes against gpusel.cache_memory, or ends the build with the error. */
void
GpuselCacheReserveOrFail(Relation rel, GpuselCacheEntry *entry, Size bytes)
{
	Size		in_use;

	if (GpuselCacheReserve(entry, bytes, &in_use))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("table \"%s\" does not fit in the column cache", RelationGetRelationName(rel)),
			 errdetail("gpusel.cache_memory allows %d MB; %zu MB are in use and this table needs more than %zu MB.",
					   gpusel_cache_memory_mb, in_use / (1024 * 1024), entry->bytes / (1024 * 1024) + bytes / (1024 * 1024)),
			 errhint("Raise gpusel.cache_memory, or cache fewer columns.")));
}

/* A fresh allocation in the cache's area, zeroed. */
dsa_pointer
GpuselCacheAreaAlloc(Size bytes)
{
	return dsa_allocate_extended(GpuselCacheArea(), bytes, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);
}

/* Whether block blk of a cached table was written since the build. */
bool
GpuselCacheBlockChanged(GpuselCacheEntry *entry, pg_atomic_uint32 *changed, BlockNumber blk)
{
	return blk >= entry->nblocks ||
		(pg_atomic_read_u32(&changed[blk / 32]) & ((uint32) 1 << (blk % 32))) != 0;
}

/*
 * The end of the stretch of blocks from start (before limit) that are all
 * changed, or all unchanged, as start is (*stretch_changed says which): the
 * first block that differs, or limit.  Reads the marks a word of 32 blocks
 * at a time, as a scan of a large unchanged table would otherwise spend
 * more time here than on the device.
 */
BlockNumber
GpuselCacheStretchEnd(GpuselCacheEntry *entry, pg_atomic_uint32 *changed,
					  BlockNumber start, BlockNumber limit, bool *stretch_changed)
{
	bool		want_changed = GpuselCacheBlockChanged(entry, changed, start);
	BlockNumber cached_end = Min(limit, entry->nblocks);
	BlockNumber blk = start;

	*stretch_changed = want_changed;
	/* blocks past the build's are all changed */
	while (blk < cached_end)
	{
		uint32		word = pg_atomic_read_u32(&changed[blk / 32]);
		uint32		differs = (want_changed ? ~word : word) >> (blk % 32);

		if (differs != 0)
		{
			blk += pg_rightmost_one_pos32(differs);
			break;
		}
		blk = (blk / 32 + 1) * 32;
	}
	if (blk >= cached_end)
		return want_changed ? limit : cached_end;
	return blk;
}

/*
 * The row trigger's mark: block blk of the table was written, so scans
 * read it from the heap.  Marks every entry of the table, a build's too.
 */
void
GpuselCacheMarkChanged(Oid relid, BlockNumber blk)
{
	dsa_area   *a;

	if (registry == NULL || registry->area == GPUSEL_CACHE_NO_AREA)
		return;
	a = attach_area(false);
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];
		pg_atomic_uint32 *changed;
		uint32		bit = (uint32) 1 << (blk % 32);

		if ((e->state != GPUSEL_CACHE_READY && e->state != GPUSEL_CACHE_BUILDING) ||
			e->relid != relid || e->dbid != MyDatabaseId || blk >= e->nblocks ||
			!DsaPointerIsValid(e->changed))
			continue;
		changed = dsa_get_address(a, e->changed);
		if ((pg_atomic_read_u32(&changed[blk / 32]) & bit) == 0 &&
			(pg_atomic_fetch_or_u32(&changed[blk / 32], bit) & bit) == 0)
			pg_atomic_fetch_add_u32(&e->changed_blocks, 1);
	}
	LWLockRelease(registry->lock);
}

/* The truncate trigger's mark: no scan uses the table's cache again. */
void
GpuselCacheMarkTruncated(Oid relid)
{
	if (registry == NULL)
		return;
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		if ((e->state == GPUSEL_CACHE_READY || e->state == GPUSEL_CACHE_BUILDING) &&
			e->relid == relid && e->dbid == MyDatabaseId)
			pg_atomic_write_u32(&e->truncated, 1);
	}
	LWLockRelease(registry->lock);
}

/* Retires entry i if it is still the ready cache of (dbid, relid). */
static void
retire_if_still(int i, Oid dbid, Oid relid)
{
	GpuselCacheEntry *e = &registry->entries[i];

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if (e->state == GPUSEL_CACHE_READY && e->dbid == dbid && e->relid == relid)
		retire_locked(e);
	LWLockRelease(registry->lock);
}

/*
 * Retires the caches of tables that were dropped: this database's tables,
 * and every table of a database that was dropped.
 */
void
GpuselCacheForgetDropped(void)
{
	Oid			dbids[GPUSEL_CACHE_MAX_TABLES];
	Oid			relids[GPUSEL_CACHE_MAX_TABLES];

	if (registry == NULL)
		return;
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		dbids[i] = e->state == GPUSEL_CACHE_READY ? e->dbid : InvalidOid;
		relids[i] = e->relid;
	}
	LWLockRelease(registry->lock);
	/* the catalogs are read without the lock */
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		bool		gone;

		if (!OidIsValid(dbids[i]))
			continue;
		if (dbids[i] == MyDatabaseId)
			gone = !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relids[i]));
		else
			gone = !SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(dbids[i]));
		if (gone)
			retire_if_still(i, dbids[i], relids[i]);
	}
}

/* The pg_trigger row of the table's trigger 'name', copied; NULL if none. */
HeapTuple
GpuselCacheFindTrigger(Oid relid, const char *name)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;

	ScanKeyInit(&keys[0], Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	ScanKeyInit(&keys[1], Anum_pg_trigger_tgname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum(name));
	scan = systable_beginscan(tgrel, TriggerRelidNameIndexId, true, NULL, 2, keys);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		tup = heap_copytuple(tup);
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return tup;
}

/*
 * Whether both triggers are still the ones the build saw: present, firing
 * ALWAYS, their rows unchanged since.  Any ALTER TABLE ... TRIGGER in between
 * would have let writes go unmarked.
 */
bool
GpuselCacheTriggerCurrent(GpuselCacheEntry *entry)
{
	HeapTuple	tup = GpuselCacheFindTrigger(entry->relid, GPUSEL_CACHE_ROW_TRIGGER);
	bool		current;

	if (!HeapTupleIsValid(tup))
		return false;
	current = ((Form_pg_trigger) GETSTRUCT(tup))->oid == entry->trigger_oid &&
		((Form_pg_trigger) GETSTRUCT(tup))->tgenabled == TRIGGER_FIRES_ALWAYS &&
		HeapTupleHeaderGetRawXmin(tup->t_data) == entry->trigger_xmin;
	heap_freetuple(tup);
	if (!current)
		return false;
	tup = GpuselCacheFindTrigger(entry->relid, GPUSEL_CACHE_TRUNCATE_TRIGGER);
	if (!HeapTupleIsValid(tup))
		return false;
	current = ((Form_pg_trigger) GETSTRUCT(tup))->oid == entry->truncate_trigger_oid &&
		((Form_pg_trigger) GETSTRUCT(tup))->tgenabled == TRIGGER_FIRES_ALWAYS &&
		HeapTupleHeaderGetRawXmin(tup->t_data) == entry->truncate_trigger_xmin;
	heap_freetuple(tup);
	return current;
}

/*
 * Sizes a build's bitmap and makes it visible to the row trigger, under
 * the lock, so that a mark never sees one without the other.
 */
void
GpuselCacheStartMarking(GpuselCacheEntry *entry, BlockNumber nblocks, dsa_pointer changed)
{
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	entry->changed = changed;
	entry->nblocks = nblocks;
	LWLockRelease(registry->lock);
}

/* Makes a build the table's cache, retiring the one it replaces, in one step. */
void
GpuselCachePublish(GpuselCacheEntry *entry)
{
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < GPUSEL_CACHE_MAX_TABLES; i++)
	{
		GpuselCacheEntry *e = &registry->entries[i];

		if (e == entry || e->state != GPUSEL_CACHE_READY || e->relid != entry->relid ||
			e->dbid != entry->dbid)
			continue;
		retire_locked(e);
	}
	entry->state = GPUSEL_CACHE_READY;
	LWLockRelease(registry->lock);
}
