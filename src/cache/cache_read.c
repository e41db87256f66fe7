/*
 * cache_read.c
 *	  Reading a table into its cache entry's segments: the building backend
 *	  and up to max_parallel_maintenance_workers parallel workers together.
 *
 * Each process takes the next chunk of GPUSEL_CACHE_CHUNK_BLOCKS blocks and
 * stages its visible rows in memory of its own.  Chunks are placed in
 * block order: a chunk's turn comes when every earlier chunk has taken its
 * rows.  In its turn a process takes the next rows of the cache for the
 * chunk, notes where each of its blocks' rows begin, and hands the turn
 * on; it copies the rows into place (and to the device copy, where the
 * build makes one as it reads) afterwards, while others read.  Rows stay
 * in heap order, as a scan of the cache expects, whichever process read
 * them.  A process holds up to GPUSEL_CACHE_CHUNKS_AHEAD chunks read and
 * waiting for their turns, so it reads on while an earlier chunk is still
 * being read elsewhere.
 *
 * The segments the rows go into are made under a lock of the build: the
 * leader makes those the table's statistics promise while the workers
 * start reading, a turn makes what is still missing, and those no row
 * filled are freed after the read.  An error in any process ends the
 * build: the leader destroys the parallel context (its workers exit)
 * before the entry's segments are freed.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/parallel.h"
#include "access/table.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "cache_internal.h"
#include "column_form.h"
#include "device_calls.h"
#include "guc.h"
#include "scan_pages.h"

/*
 * Tuning: blocks a process reads at a time; chunks a process holds read
 * and waiting for their turns at most; fewer chunks than this many per
 * worker read alone.
 */
#define GPUSEL_CACHE_CHUNK_BLOCKS		256
#define GPUSEL_CACHE_CHUNKS_AHEAD		3
#define GPUSEL_CACHE_CHUNKS_PER_WORKER	4

/* The key of the build's shared state in the parallel context's table of contents. */
#define GPUSEL_CACHE_READ_KEY			UINT64CONST(0xC0C0000000000001)

/* What the processes of one build share. */
typedef struct CacheReadShared
{
	Oid			relid;
	LOCKMODE	lockmode;		/* the leader's: the lock group shares it */
	int			entry_index;	/* in the registry */
	BlockNumber nblocks;
	uint32		nchunks;
	GpuselProgram prog;			/* the cached columns (no program) */
	pg_atomic_uint32 next_chunk;	/* the next chunk to read */

	LWLock		segments_lock;	/* the entry's segments: made by the leader ahead, or in a turn */
	slock_t		mutex;			/* protects placed and rows */
	uint32		placed;			/* chunks that took their rows: chunk 'placed' is next */
	int64		rows;			/* rows taken */
	ConditionVariable turn;		/* signalled when placed grows */

	GpuselCacheDeviceStream stream; /* the device copy written while reading */

	/* where the processes' time went, summed over them, for DEBUG1 (microseconds) */
	pg_atomic_uint64 reading_us;
	pg_atomic_uint64 waiting_us;
	pg_atomic_uint64 placing_us;
	pg_atomic_uint64 device_us;
} CacheReadShared;

/* One process's rows of its current chunk, before they go into place. */
typedef struct ChunkRows
{
	int			ncols;
	int			widths[GS_MAX_PROGRAM_LENGTH];
	int64		capacity;
	GpuselStaging staging;
	uint8		has_nulls[GS_MAX_PROGRAM_LENGTH];
	void	  **pinned;			/* the values and null bytes in the GPU service's region, or NULL */
} ChunkRows;

PGDLLEXPORT void gpusel_cache_read_worker(dsm_segment *seg, shm_toc *toc);

/* Gives a chunk's page-locked block back when its memory context goes (after an error). */
static void
free_pinned_chunk(void *arg)
{
	void	  **pinned = (void **) arg;

	if (*pinned != NULL)
		GpuselDev->host_free(*pinned);
	*pinned = NULL;
}

/* Gives back the chunk's memory: a refresh runs many builds in one statement. */
static void
chunk_rows_free(ChunkRows *cr)
{
	if (cr->pinned != NULL)
	{
		GpuselDev->host_free(*cr->pinned);
		*cr->pinned = NULL;
	}
	else
		for (int c = 0; c < cr->ncols; c++)
		{
			pfree(cr->staging.values[c]);
			pfree(cr->staging.nulls[c]);
		}
	pfree(cr->staging.tids);
}

/*
 * Memory of this process for one chunk's rows, zeroed: where the build
 * writes the device copy as it reads, page-locked memory the GPU service
 * copies from where it lies (one block, if the service has room).
 */
static void
chunk_rows_init(ChunkRows *cr, const GpuselCacheEntry *entry, bool to_device)
{
	Size		bytes = 0;

	cr->ncols = entry->ncols;
	cr->capacity = (int64) GPUSEL_CACHE_CHUNK_BLOCKS * MaxHeapTuplesPerPage + 1;
	cr->pinned = NULL;
	for (int c = 0; c < entry->ncols; c++)
	{
		cr->widths[c] = GpuselColumnWidth(entry->coltypes[c]);
		bytes += MAXALIGN(cr->capacity * cr->widths[c]) + MAXALIGN(cr->capacity);
	}
	/* at most a 64th of the staging region a process, so that queries beside the build find room */
	if (to_device && (Size) GPUSEL_CACHE_CHUNKS_AHEAD * bytes <= (Size) gpusel_service_staging_mb * 1024 * 1024 / 64)
	{
		/* an error frees the block with the memory context */
		MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));

		cr->pinned = palloc0(sizeof(void *));
		if (GpuselDev->host_alloc(cr->pinned, bytes) != GS_OK || *cr->pinned == NULL)
			cr->pinned = NULL;
		else
		{
			cb->func = free_pinned_chunk;
			cb->arg = cr->pinned;
			MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
		}
	}
	if (cr->pinned != NULL)
	{
		char	   *at = *cr->pinned;

		memset(at, 0, bytes);
		for (int c = 0; c < entry->ncols; c++)
		{
			cr->staging.values[c] = at;
			at += MAXALIGN(cr->capacity * cr->widths[c]);
			cr->staging.nulls[c] = (uint8 *) at;
			at += MAXALIGN(cr->capacity);
		}
	}
	else
		for (int c = 0; c < entry->ncols; c++)
		{
			cr->staging.values[c] = palloc_extended(cr->capacity * cr->widths[c], MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
			cr->staging.nulls[c] = palloc_extended(cr->capacity, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		}
	cr->staging.tids = palloc_extended(cr->capacity * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	cr->staging.has_nulls = cr->has_nulls;
}

/*
 * Clears the null bytes the last chunk's n rows left in columns that had
 * NULLs: the reader writes none in a column until its first NULL.
 */
static void
chunk_rows_clear(ChunkRows *cr, int64 n)
{
	for (int c = 0; c < cr->ncols; c++)
	{
		if (cr->has_nulls[c])
			memset(cr->staging.nulls[c], 0, n);
		cr->has_nulls[c] = 0;
	}
}

/*
 * Zeroes the values under the chunk's NULLs, which the reader leaves as
 * they were: the cache holds zeros there.
 */
static void
chunk_rows_zero_nulls(ChunkRows *cr, int64 n)
{
	for (int c = 0; c < cr->ncols; c++)
	{
		const uint8 *nulls = cr->staging.nulls[c];
		char	   *values = cr->staging.values[c];
		int			w = cr->widths[c];

		if (!cr->has_nulls[c])
			continue;
		for (int64 r = 0; r < n; r++)
			if (nulls[r])
				memset(values + r * w, 0, w);
	}
}

/* The first row of chunk 'chunk' when its turn has come, else -1. */
static int64
try_turn(CacheReadShared *shared, uint32 chunk)
{
	int64		first = -1;

	SpinLockAcquire(&shared->mutex);
	if (shared->placed == chunk)
		first = shared->rows;
	SpinLockRelease(&shared->mutex);
	return first;
}

/* Waits until chunk 'chunk' may take rows; returns the first of them. */
static int64
wait_for_turn(CacheReadShared *shared, uint32 chunk)
{
	int64		first;

	ConditionVariablePrepareToSleep(&shared->turn);
	while ((first = try_turn(shared, chunk)) < 0)
		ConditionVariableSleep(&shared->turn, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	return first;
}

/* Hands the turn on to the next chunk, after this one's n rows. */
static void
pass_turn(CacheReadShared *shared, int64 n)
{
	SpinLockAcquire(&shared->mutex);
	shared->rows += n;
	shared->placed++;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->turn);
}

/*
 * In the chunk's turn: makes the segments rows first..first+n-1 need and
 * returns their addresses from the one holding row first, under the
 * build's segments lock (the leader may be adding segments, and the
 * array of them moves as it grows).
 */
static int
take_segments(Relation rel, GpuselCacheEntry *entry, dsa_area *a, LWLock *lock, int64 first,
			  int64 n, char **bases)
{
	int			s0 = (int) (first / GPUSEL_CACHE_SEGMENT_ROWS);
	int			s1 = (int) ((first + n - 1) / GPUSEL_CACHE_SEGMENT_ROWS);
	dsa_pointer *segs;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	while (entry->nsegments <= s1)
	{
		dsa_pointer segment;

		GpuselCacheReserveOrFail(rel, entry, entry->segment_bytes + sizeof(dsa_pointer));
		/* every byte a scan reads is written: no need to zero it */
		segment = dsa_allocate_extended(a, entry->segment_bytes, DSA_ALLOC_HUGE);
		GpuselCacheAddSegment(entry, segment);
	}
	segs = dsa_get_address(a, entry->segments);
	for (int s = s0; s <= s1; s++)
		bases[s - s0] = dsa_get_address(a, segs[s]);
	LWLockRelease(lock);
	return s1 - s0 + 1;
}

/*
 * The leader's first work while the workers start reading: makes the
 * segments the expected rows need, so that a chunk's turn seldom waits
 * for new shared memory (made and cleared by the kernel, a few GB a
 * second).  Stops quietly where gpusel.cache_memory would be passed: the
 * turns then make what is missing, or raise the error.
 */
static void
make_segments_ahead(LWLock *lock, GpuselCacheEntry *entry, int64 expected_rows)
{
	dsa_area   *a = GpuselCacheArea();
	int			want = (int) Min((expected_rows + GPUSEL_CACHE_SEGMENT_ROWS - 1) / GPUSEL_CACHE_SEGMENT_ROWS,
								 (int64) INT_MAX / 2);

	for (;;)
	{
		Size		in_use;
		dsa_pointer segment;
		bool		wanted;

		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(lock, LW_SHARED);
		wanted = entry->nsegments < want;
		LWLockRelease(lock);
		if (!wanted || !GpuselCacheReserve(entry, entry->segment_bytes + sizeof(dsa_pointer), &in_use))
			break;
		/* made outside the lock: the kernel's clearing of new shared memory holds up no turn */
		segment = dsa_allocate_extended(a, entry->segment_bytes, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
		if (!DsaPointerIsValid(segment))
		{
			GpuselCacheUnreserve(entry, entry->segment_bytes + sizeof(dsa_pointer));
			break;
		}
		LWLockAcquire(lock, LW_EXCLUSIVE);
		GpuselCacheAddSegment(entry, segment);
		LWLockRelease(lock);
	}
}

/*
 * Maps the pages of [p, p + bytes) into this process writable before they
 * are written: one call instead of a page fault per page of shared memory.
 * A kernel without MADV_POPULATE_WRITE (5.14) faults them in as before.
 */
static inline void
populate_for_writing(void *p, Size bytes)
{
#ifdef MADV_POPULATE_WRITE
	static uintptr_t page = 0;
	uintptr_t	start;
	uintptr_t	end;

	if (page == 0)
		page = (uintptr_t) sysconf(_SC_PAGESIZE);
	start = TYPEALIGN_DOWN(page, (uintptr_t) p);
	end = TYPEALIGN(page, (uintptr_t) p + bytes);

	if (bytes > 0)
		(void) madvise((void *) start, end - start, MADV_POPULATE_WRITE);
#endif
}

/* Where each block of the chunk [b0, b1) begins among the cache's rows. */
static void
note_block_starts(int64 *block_first, BlockNumber b0, BlockNumber b1,
				  const ItemPointerData *tids, int64 n, int64 first)
{
	int64		r = 0;

	for (BlockNumber b = b0; b < b1; b++)
	{
		while (r < n && ItemPointerGetBlockNumber(&tids[r]) < b)
			r++;
		block_first[b] = first + r;
	}
}

/* Copies the chunk's n rows to cache rows first.. in the segments at bases. */
static void
copy_into_place(GpuselCacheEntry *entry, ChunkRows *cr, int64 n, int64 first, char **bases)
{
	int64		done = 0;

	while (done < n)
	{
		int64		row = first + done;
		char	   *base = bases[row / GPUSEL_CACHE_SEGMENT_ROWS - first / GPUSEL_CACHE_SEGMENT_ROWS];
		int64		at = row % GPUSEL_CACHE_SEGMENT_ROWS;
		int64		k = Min(n - done, GPUSEL_CACHE_SEGMENT_ROWS - at);

		for (int c = 0; c < cr->ncols; c++)
		{
			populate_for_writing(base + entry->values_off[c] + at * cr->widths[c], k * cr->widths[c]);
			populate_for_writing(base + entry->nulls_off[c] + at, k);
		}
		populate_for_writing(base + entry->tids_off + at * sizeof(ItemPointerData),
							 k * sizeof(ItemPointerData));
		for (int c = 0; c < cr->ncols; c++)
		{
			memcpy(base + entry->values_off[c] + at * cr->widths[c],
				   (char *) cr->staging.values[c] + done * cr->widths[c], k * cr->widths[c]);
			memcpy(base + entry->nulls_off[c] + at, cr->staging.nulls[c] + done, k);
		}
		memcpy(base + entry->tids_off + at * sizeof(ItemPointerData),
			   cr->staging.tids + done, k * sizeof(ItemPointerData));
		done += k;
	}
}

/* One process's state while it reads: its chunks read and not placed yet, oldest first. */
typedef struct ChunkReader
{
	CacheReadShared *shared;
	Relation	rel;
	GpuselCacheEntry *entry;
	int64	   *block_first;
	GpuselCacheDictCoder *coder;	/* NULL: no column holds dictionary codes */
	ChunkRows	bufs[GPUSEL_CACHE_CHUNKS_AHEAD];
	uint32		chunk[GPUSEL_CACHE_CHUNKS_AHEAD];	/* each buffer's chunk */
	int64		nrows[GPUSEL_CACHE_CHUNKS_AHEAD];	/* and its rows */
	int			oldest;			/* the buffer of the oldest chunk not placed */
	int			npending;
	instr_time	waiting;
	instr_time	placing;
	instr_time	device;
} ChunkReader;

/* Places the oldest chunk read, whose turn starts at row 'first' (-1: wait for it). */
static void
place_oldest(ChunkReader *r, int64 first)
{
	CacheReadShared *shared = r->shared;
	ChunkRows  *cr = &r->bufs[r->oldest];
	uint32		chunk = r->chunk[r->oldest];
	int64		n = r->nrows[r->oldest];
	BlockNumber b0 = chunk * GPUSEL_CACHE_CHUNK_BLOCKS;
	BlockNumber b1 = Min(b0 + GPUSEL_CACHE_CHUNK_BLOCKS, shared->nblocks);
	char	   *bases[GPUSEL_CACHE_CHUNK_BLOCKS * MaxHeapTuplesPerPage / GPUSEL_CACHE_SEGMENT_ROWS + 2];
	instr_time	t0;
	instr_time	t1;

	INSTR_TIME_SET_CURRENT(t0);
	if (first < 0)
		first = wait_for_turn(shared, chunk);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_ACCUM_DIFF(r->waiting, t1, t0);
	if (n > 0)
		(void) take_segments(r->rel, r->entry, GpuselCacheArea(), &shared->segments_lock, first, n,
							 bases);
	note_block_starts(r->block_first, b0, b1, cr->staging.tids, n, first);
	if (r->coder != NULL)
		GpuselCacheDictTakeCodes(r->coder, r->rel, r->entry);
	pass_turn(shared, n);
	if (r->coder != NULL)
		GpuselCacheDictRecode(r->coder, &cr->staging, cr->has_nulls, n);

	for (int c = 0; c < cr->ncols; c++)
		if (cr->has_nulls[c])
			r->entry->has_nulls[c] = 1;
	copy_into_place(r->entry, cr, n, first, bases);
	INSTR_TIME_SET_CURRENT(t0);
	INSTR_TIME_ACCUM_DIFF(r->placing, t0, t1);
	GpuselCacheStreamRows(&shared->stream, r->entry, &cr->staging, cr->has_nulls, n, first);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_ACCUM_DIFF(r->device, t1, t0);
	r->oldest = (r->oldest + 1) % GPUSEL_CACHE_CHUNKS_AHEAD;
	r->npending--;
}

/* Places the chunks read whose turns have come, oldest first, without waiting. */
static void
place_ready(ChunkReader *r)
{
	int64		first;

	while (r->npending > 0 && (first = try_turn(r->shared, r->chunk[r->oldest])) >= 0)
		place_oldest(r, first);
}

/*
 * Reads chunks until none is left: this process's part of the build.  A
 * process keeps up to GPUSEL_CACHE_CHUNKS_AHEAD chunks read and waiting
 * for their turns, placing each as its turn comes, so that it reads on
 * while an earlier chunk of another process is still being read; it waits
 * only when all of them wait.  It never waits for a chunk of its own but
 * its oldest, and the process holding the oldest chunk not placed always
 * gets its turn: no process waits for ever.
 */
static void
read_chunks(CacheReadShared *shared, Relation rel, Snapshot snapshot, GpuselCacheEntry *entry)
{
	GpuselPageReader *reader = GpuselPagesBegin(rel, snapshot);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsBufferHeapTuple);
	ChunkReader *r = palloc0(sizeof(ChunkReader));
	GpuselProgram *prog = palloc(sizeof(GpuselProgram));
	int64		last_n[GPUSEL_CACHE_CHUNKS_AHEAD] = {0};
	instr_time	reading;
	instr_time	t0;
	instr_time	t1;

	r->shared = shared;
	r->rel = rel;
	r->entry = entry;
	r->block_first = dsa_get_address(GpuselCacheArea(), entry->block_first);
	INSTR_TIME_SET_ZERO(reading);
	INSTR_TIME_SET_ZERO(r->waiting);
	INSTR_TIME_SET_ZERO(r->placing);
	INSTR_TIME_SET_ZERO(r->device);
	for (int i = 0; i < GPUSEL_CACHE_CHUNKS_AHEAD; i++)
		chunk_rows_init(&r->bufs[i], entry, shared->stream.resident != 0);
	/* this process's dictionaries number the text columns' values as they are read */
	memcpy(prog, &shared->prog, sizeof(GpuselProgram));
	r->coder = GpuselCacheDictCoderBegin(entry, prog);
	GpuselPagesSetColumns(reader, prog);
	for (;;)
	{
		uint32		chunk;
		int			b;
		ChunkRows  *cr;
		BlockNumber b0;
		int64		n;

		place_ready(r);
		if (r->npending == GPUSEL_CACHE_CHUNKS_AHEAD)
		{
			place_oldest(r, -1);
			continue;
		}
		chunk = pg_atomic_fetch_add_u32(&shared->next_chunk, 1);
		if (chunk >= shared->nchunks)
			break;
		CHECK_FOR_INTERRUPTS();
		b = (r->oldest + r->npending) % GPUSEL_CACHE_CHUNKS_AHEAD;
		cr = &r->bufs[b];
		b0 = chunk * GPUSEL_CACHE_CHUNK_BLOCKS;
		INSTR_TIME_SET_CURRENT(t0);
		chunk_rows_clear(cr, last_n[b]);
		GpuselPagesSetRange(reader, b0, Min(b0 + GPUSEL_CACHE_CHUNK_BLOCKS, shared->nblocks));
		n = GpuselPagesFill(reader, &cr->staging, cr->capacity, slot);
		ExecClearTuple(slot);
		chunk_rows_zero_nulls(cr, n);
		Assert(n < cr->capacity);
		last_n[b] = n;
		INSTR_TIME_SET_CURRENT(t1);
		INSTR_TIME_ACCUM_DIFF(reading, t1, t0);
		r->chunk[b] = chunk;
		r->nrows[b] = n;
		r->npending++;
	}
	while (r->npending > 0)
		place_oldest(r, -1);
	pg_atomic_fetch_add_u64(&shared->reading_us, INSTR_TIME_GET_MICROSEC(reading));
	pg_atomic_fetch_add_u64(&shared->waiting_us, INSTR_TIME_GET_MICROSEC(r->waiting));
	pg_atomic_fetch_add_u64(&shared->placing_us, INSTR_TIME_GET_MICROSEC(r->placing));
	pg_atomic_fetch_add_u64(&shared->device_us, INSTR_TIME_GET_MICROSEC(r->device));
	ExecDropSingleTupleTableSlot(slot);
	GpuselPagesEnd(reader);
	for (int i = 0; i < GPUSEL_CACHE_CHUNKS_AHEAD; i++)
		chunk_rows_free(&r->bufs[i]);
	if (r->coder != NULL)
		GpuselCacheDictCoderEnd(r->coder);
	pfree(prog);
	pfree(r);
}

/* A parallel worker's part of a build. */
void
gpusel_cache_read_worker(dsm_segment *seg, shm_toc *toc)
{
	CacheReadShared *shared = shm_toc_lookup(toc, GPUSEL_CACHE_READ_KEY, false);
	Relation	rel = table_open(shared->relid, shared->lockmode);

	read_chunks(shared, rel, GetActiveSnapshot(),
				&GpuselCacheRegistry()->entries[shared->entry_index]);
	table_close(rel, shared->lockmode);
}

/* Workers to ask for: none for a small table, a temporary one, or within parallel work. */
static int
workers_for(Relation rel, uint32 nchunks)
{
	if (IsInParallelMode() || RelationUsesLocalBuffers(rel) || max_parallel_maintenance_workers <= 0)
		return 0;
	return Min(max_parallel_maintenance_workers, (int) (nchunks / GPUSEL_CACHE_CHUNKS_PER_WORKER));
}

/*
 * Reads the table's rows visible to snapshot into the entry's segments, with
 * parallel workers where the table is large enough; notes where each block's
 * rows begin; returns the rows.  lockmode is the lock the caller holds.
 * Where stream holds a device copy begun, every process writes its rows
 * there too; stream->stopped tells afterwards whether the copy is whole.
 */
int64
GpuselCacheReadTable(Relation rel, LOCKMODE lockmode, Snapshot snapshot,
					 GpuselCacheEntry *entry, const GpuselProgram *prog, int64 expected_rows,
					 GpuselCacheDeviceStream *stream)
{
	dsa_area   *a = GpuselCacheArea();
	uint32		nchunks = (entry->nblocks + GPUSEL_CACHE_CHUNK_BLOCKS - 1) / GPUSEL_CACHE_CHUNK_BLOCKS;
	int			nworkers = workers_for(rel, nchunks);
	ParallelContext *pcxt = NULL;
	CacheReadShared *volatile shared = NULL;
	int64	   *block_first;
	int64		nrows;

	GpuselCacheReserveOrFail(rel, entry, sizeof(int64) * ((Size) entry->nblocks + 1));
	entry->block_first = GpuselCacheAreaAlloc(sizeof(int64) * ((Size) entry->nblocks + 1));
	GpuselCacheDictsCreate(rel, entry);

	PushActiveSnapshot(snapshot);
	PG_TRY();
	{
		if (nworkers > 0)
		{
			EnterParallelMode();
			pcxt = CreateParallelContext("gpusel", "gpusel_cache_read_worker", nworkers);
			shm_toc_estimate_chunk(&pcxt->estimator, sizeof(CacheReadShared));
			shm_toc_estimate_keys(&pcxt->estimator, 1);
			InitializeParallelDSM(pcxt);
			shared = shm_toc_allocate(pcxt->toc, sizeof(CacheReadShared));
			shm_toc_insert(pcxt->toc, GPUSEL_CACHE_READ_KEY, shared);
		}
		else
			shared = palloc(sizeof(CacheReadShared));
		memset(shared, 0, sizeof(CacheReadShared));
		shared->relid = RelationGetRelid(rel);
		shared->lockmode = lockmode;
		shared->entry_index = (int) (entry - GpuselCacheRegistry()->entries);
		shared->nblocks = entry->nblocks;
		shared->nchunks = nchunks;
		shared->prog.ncols = prog->ncols;
		memcpy(shared->prog.attnos, prog->attnos, sizeof(prog->attnos));
		memcpy(shared->prog.coltypes, prog->coltypes, sizeof(prog->coltypes));
		memcpy(shared->prog.form, prog->form, sizeof(prog->form));
		memcpy(shared->prog.form_arg, prog->form_arg, sizeof(prog->form_arg));
		pg_atomic_init_u32(&shared->next_chunk, 0);
		LWLockInitialize(&shared->segments_lock, GpuselCacheRegistry()->area_tranche);
		SpinLockInit(&shared->mutex);
		ConditionVariableInit(&shared->turn);
		pg_atomic_init_u64(&shared->reading_us, 0);
		pg_atomic_init_u64(&shared->waiting_us, 0);
		pg_atomic_init_u64(&shared->placing_us, 0);
		pg_atomic_init_u64(&shared->device_us, 0);
		memcpy(&shared->stream, stream, sizeof(GpuselCacheDeviceStream));
		pg_atomic_init_u32(&shared->stream.stopped, pg_atomic_read_u32(&stream->stopped));
		if (pcxt != NULL)
		{
			LaunchParallelWorkers(pcxt);
			ereport(DEBUG1,
					(errmsg_internal("gpusel: reading \"%s\" into the column cache with %d parallel workers",
									 RelationGetRelationName(rel), pcxt->nworkers_launched)));
		}

		if (pcxt != NULL && pcxt->nworkers_launched > 0)
			make_segments_ahead(&shared->segments_lock, entry, expected_rows);
		read_chunks(shared, rel, snapshot, entry);

		if (pcxt != NULL)
			WaitForParallelWorkersToFinish(pcxt);
		nrows = shared->rows;
		/* segments made ahead for rows that did not come */
		GpuselCacheTrimSegments(entry, (int) ((nrows + GPUSEL_CACHE_SEGMENT_ROWS - 1) / GPUSEL_CACHE_SEGMENT_ROWS));
		pg_atomic_write_u32(&stream->stopped, pg_atomic_read_u32(&shared->stream.stopped));
		ereport(DEBUG1,
				(errmsg_internal("gpusel: the build's %d processes read for %.0f ms, waited for their turns %.0f ms, placed rows %.0f ms, wrote the device copy %.0f ms (in all)",
								 1 + (pcxt != NULL ? pcxt->nworkers_launched : 0),
								 pg_atomic_read_u64(&shared->reading_us) / 1000.0,
								 pg_atomic_read_u64(&shared->waiting_us) / 1000.0,
								 pg_atomic_read_u64(&shared->placing_us) / 1000.0,
								 pg_atomic_read_u64(&shared->device_us) / 1000.0)));
		if (pcxt != NULL)
		{
			DestroyParallelContext(pcxt);
			pcxt = NULL;
			ExitParallelMode();
		}
		else
			pfree(shared);
	}
	PG_CATCH();
	{
		/* the turn's condition variable goes with the context: stop waiting on it first */
		ConditionVariableCancelSleep();
		/* a worker waiting for the segments' lock must get it, to see the error and exit */
		if (shared != NULL && LWLockHeldByMe(&shared->segments_lock))
			LWLockRelease(&shared->segments_lock);
		/* no worker may write into the segments the caller frees next */
		if (pcxt != NULL)
			DestroyParallelContext(pcxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PopActiveSnapshot();

	block_first = dsa_get_address(a, entry->block_first);
	block_first[entry->nblocks] = nrows;
	return nrows;
}
