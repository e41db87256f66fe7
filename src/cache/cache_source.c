/*
 * cache_source.c
 *	  A cached table as a source of rows: unchanged blocks from the cache,
 *	  changed and new ones from the heap, in block order.
 *
 * The rule a scan follows, in full: it uses the table's cache only when
 * (1) its snapshot is an MVCC snapshot no older than the build's, that is,
 * every transaction the build saw as committed it sees as committed too;
 * (2) the table's relfilenode is the build's and no TRUNCATE ran since;
 * (3) the row trigger is the one the build created, unchanged and firing
 * ALWAYS; (4) every column the scan reads is cached in the form it reads
 * (a text column's codes become the numbers of the scan's dictionary of
 * it, which must not number other values first: cache_dict.c).
 * It then reads from the heap every block a write has marked since the
 * build and every block past the build's last, and the rest from the
 * cache.  A block's cached rows are the rows the build's snapshot saw in
 * it; a write marks its block before its transaction commits, so any row
 * a later snapshot sees differently lies in a marked block.
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "storage/lmgr.h"
#include "commands/explain.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "cache_internal.h"
#include "column_form.h"
#include "scan_pages.h"

typedef struct CacheSource
{
	GpuselSource source;		/* first */
	MemoryContext cxt;			/* holds this struct and its readers */
	GpuselCacheEntry *entry;	/* pinned */
	dsa_area   *area;
	dsa_pointer *segments;
	const int64 *block_first;
	pg_atomic_uint32 *changed;
	int			ncols;
	int			cached_col[GS_MAX_PROGRAM_LENGTH];	/* the entry's column of each batch column */
	int			widths[GS_MAX_PROGRAM_LENGTH];
	uint8		has_nulls[GS_MAX_PROGRAM_LENGTH];
	GpuselPageReader *blocks;	/* changed and new blocks, by ranges */
	GpuselPageReader *rows;		/* the whole table, tuple by tuple (next_slot) */
	BlockNumber nblocks;		/* the table's blocks when the scan began */
	BlockNumber next_block;		/* the next block not yet planned */
	int64		run_next;		/* a run of cached rows: the next one ... */
	int64		run_end;		/* ... and the end */
	bool		in_heap;		/* reading a range of blocks from the heap */
	bool		on_device;		/* cached runs go to the device path in place */
	/* a parallel scan: blocks one at a time from the allocator all processes share */
	ParallelBlockTableScanDesc pscan;
	ParallelBlockTableScanWorkerData pwork;
	bool		pstarted;
	BlockNumber pending;		/* a block drawn from the allocator and not yet planned */
	/* the blocks the allocator handed this process, in order, to read again (replay) */
	BlockNumber *drawn;
	int64		ndrawn;
	int64		drawn_cap;
	int64		replay_next;	/* reading them again: the next one; -1: not */
	MemoryContextCallback unpin;
	bool		pinned;
	struct
	{
		int64		rows_from_cache;
		int64		rows_on_device;	/* of them, read by the device where they lie */
		int64		blocks_from_heap;
	}			use;			/* for EXPLAIN ANALYZE */
} CacheSource;

/* Whether a transaction the build saw as committed may be invisible to the snapshot. */
static bool
snapshot_older_than_build(Snapshot snapshot, GpuselCacheEntry *entry)
{
	if (snapshot->takenDuringRecovery)
		return true;
	if (TransactionIdPrecedes(snapshot->xmax, entry->build_xmax))
		return true;
	if (entry->build_xcnt < 0)
		return TransactionIdPrecedes(snapshot->xmin, entry->build_xmax);
	/* a transaction running for this snapshot ran for the build too */
	for (uint32 i = 0; i < snapshot->xcnt; i++)
	{
		TransactionId xid = snapshot->xip[i];
		bool		ran = false;

		if (!TransactionIdPrecedes(xid, entry->build_xmax))
			continue;
		for (int k = 0; k < entry->build_xcnt && !ran; k++)
			ran = TransactionIdEquals(entry->build_xip[k], xid);
		if (!ran)
			return true;
	}
	return false;
}

/* Maps the program's columns to the entry's; false when one is not cached as read. */
static bool
map_columns(CacheSource *cs, Relation rel, const GpuselProgram *prog)
{
	GpuselCacheEntry *e = cs->entry;
	TupleDesc	desc = RelationGetDescr(rel);

	cs->ncols = prog->ncols;
	for (int c = 0; c < prog->ncols; c++)
	{
		int			found = -1;

		for (int k = 0; k < e->ncols && found < 0; k++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, e->attnos[k] - 1);

			/* a dictionary form's argument is the scan's dictionary: its kind must match */
			if (e->attnos[k] == prog->attnos[c] && e->form[k] == prog->form[c] &&
				(GpuselFormLookup(e->form[k])->dictionary ||
				 e->form_arg[k] == prog->form_arg[c]) && e->coltypes[k] == prog->coltypes[c] &&
				!att->attisdropped && att->atttypid == e->typids[k] && att->atttypmod == e->typmods[k])
				found = k;
		}
		if (found < 0)
			return false;
		cs->cached_col[c] = found;
		cs->widths[c] = GpuselColumnWidth(prog->coltypes[c]);
		cs->has_nulls[c] = e->has_nulls[found];
	}
	return true;
}

/*
 * The last check of a scan that may read the cache: the scan's numbers of a
 * text column's values become the cache's codes (cache_dict.c); false when
 * a dictionary of the scan cannot take them.
 */
static bool
preset_dictionaries(CacheSource *cs, const GpuselProgram *prog)
{
	for (int c = 0; c < cs->ncols; c++)
	{
		int			col = cs->cached_col[c];

		if (GpuselFormLookup(cs->entry->form[col])->dictionary &&
			!GpuselCacheDictPreset(cs->entry, col, prog->form_arg[c]))
			return false;
	}
	return true;
}

/* Drops the pin when the scan's memory goes, at its end or on an error. */
static void
unpin_callback(void *arg)
{
	CacheSource *cs = (CacheSource *) arg;

	if (cs->pinned)
	{
		cs->pinned = false;
		GpuselCacheUnpin(cs->entry);
	}
}

/* Notes a block the allocator handed this process, for replay. */
static void
note_drawn(CacheSource *cs, BlockNumber blk)
{
	if (cs->ndrawn == cs->drawn_cap)
	{
		int64		cap = Max(cs->drawn_cap * 2, 256);

		if (cs->drawn == NULL)
			cs->drawn = MemoryContextAllocHuge(cs->cxt, sizeof(BlockNumber) * cap);
		else
			cs->drawn = repalloc_huge(cs->drawn, sizeof(BlockNumber) * cap);
		cs->drawn_cap = cap;
	}
	cs->drawn[cs->ndrawn++] = blk;
}

/*
 * The next block the shared allocator hands this process, or one drawn
 * before; in a replay, the next of those it handed the first time.
 */
static BlockNumber
next_parallel_block(CacheSource *cs)
{
	BlockNumber blk = cs->pending;

	cs->pending = InvalidBlockNumber;
	if (BlockNumberIsValid(blk))
		return blk;
	if (cs->replay_next >= 0)
		return cs->replay_next < cs->ndrawn ? cs->drawn[cs->replay_next++] : InvalidBlockNumber;
	if (!cs->pstarted)
	{
		table_block_parallelscan_startblock_init(cs->blocks->rel, &cs->pwork, cs->pscan);
		cs->pstarted = true;
	}
	blk = table_block_parallelscan_nextpage(cs->blocks->rel, &cs->pwork, cs->pscan);
	if (BlockNumberIsValid(blk))
		note_drawn(cs, blk);
	return blk;
}

/*
 * A parallel scan's next stretch from the shared allocator: a heap block,
 * or the cached rows of as many unchanged blocks in a row as it hands this
 * process (its chunk of blocks), up to a chunk's rows, so that the rows are
 * lent in runs of thousands rather than a block's worth at a time.
 */
static bool
plan_next_parallel(CacheSource *cs)
{
	GpuselCacheEntry *e = cs->entry;
	BlockNumber blk = next_parallel_block(cs);

	if (!BlockNumberIsValid(blk))
		return false;
	if (!GpuselCacheBlockChanged(e, cs->changed, blk))
	{
		BlockNumber end = blk + 1;

		while (cs->block_first[end] - cs->block_first[blk] < cs->source.chunk_rows)
		{
			BlockNumber next = next_parallel_block(cs);

			if (next != end || GpuselCacheBlockChanged(e, cs->changed, next))
			{
				cs->pending = next;
				break;
			}
			end++;
		}
		cs->run_next = cs->block_first[blk];
		cs->run_end = cs->block_first[end];
		cs->in_heap = false;
	}
	else
	{
		GpuselPagesSetRange(cs->blocks, blk, blk + 1);
		if (cs->replay_next < 0)
			cs->use.blocks_from_heap++;
		cs->in_heap = true;
	}
	return true;
}

/* Plans the next stretch of blocks: a run of cached rows or a heap range. */
static bool
plan_next(CacheSource *cs)
{
	GpuselCacheEntry *e = cs->entry;
	BlockNumber start = cs->next_block;
	BlockNumber end;
	bool		changed;

	if (cs->pscan != NULL)
		return plan_next_parallel(cs);
	if (start >= cs->nblocks)
		return false;
	end = GpuselCacheStretchEnd(e, cs->changed, start, cs->nblocks, &changed);
	if (!changed)
	{
		cs->run_next = cs->block_first[start];
		cs->run_end = cs->block_first[end];
		cs->in_heap = false;
	}
	else
	{
		GpuselPagesSetRange(cs->blocks, start, end);
		cs->use.blocks_from_heap += end - start;
		cs->in_heap = true;
	}
	cs->next_block = end;
	return true;
}

/* Cached rows available at once from run_next: up to its segment's end. */
static int64
run_stretch(CacheSource *cs, int64 max_rows)
{
	int64		seg_left = GPUSEL_CACHE_SEGMENT_ROWS - cs->run_next % GPUSEL_CACHE_SEGMENT_ROWS;

	return Min(Min(max_rows, cs->run_end - cs->run_next), seg_left);
}

/*
 * Takes up to max_rows rows of the current run, within one segment: points
 * 'run' at their columns, null bytes and TIDs in the cache, and returns
 * how many.
 */
static int64
take_cached_run(CacheSource *cs, int64 max_rows, GpuselStaging *run)
{
	GpuselCacheEntry *e = cs->entry;
	int64		k = run_stretch(cs, max_rows);
	char	   *base = dsa_get_address(cs->area, cs->segments[cs->run_next / GPUSEL_CACHE_SEGMENT_ROWS]);
	int64		i = cs->run_next % GPUSEL_CACHE_SEGMENT_ROWS;

	for (int c = 0; c < cs->ncols; c++)
	{
		run->values[c] = base + e->values_off[cs->cached_col[c]] + i * cs->widths[c];
		run->nulls[c] = (uint8 *) (base + e->nulls_off[cs->cached_col[c]]) + i;
	}
	run->has_nulls = cs->has_nulls;
	run->tids = (ItemPointerData *) (base + e->tids_off) + i;
	cs->run_next += k;
	if (cs->replay_next < 0)
		cs->use.rows_from_cache += k;
	return k;
}

/* Copies the next rows' columns and TIDs into the caller's staging. */
static int64
cache_fill(GpuselSource *source, GpuselStaging *staging, int64 max_rows, TupleTableSlot *slot)
{
	CacheSource *cs = (CacheSource *) source;
	int64		n = 0;

	while (n < max_rows)
	{
		if (cs->in_heap)
		{
			GpuselStaging at = *staging;
			uint8		heap_nulls[GS_MAX_PROGRAM_LENGTH] = {0};
			int64		want = max_rows - n;
			int64		got;

			for (int c = 0; c < cs->ncols; c++)
			{
				at.values[c] = (char *) staging->values[c] + n * cs->widths[c];
				at.nulls[c] = staging->nulls[c] + n;
			}
			at.has_nulls = heap_nulls;
			at.tids = staging->tids + n;
			got = GpuselPagesFill(cs->blocks, &at, want, slot);

			/*
			 * The page reader writes a column's null bytes only once it meets
			 * a NULL; rows before and after these may have NULLs, so every
			 * row this call hands out gets its null bytes.
			 */
			for (int c = 0; c < cs->ncols; c++)
			{
				if (heap_nulls[c])
					staging->has_nulls[c] = 1;
				else
					memset(at.nulls[c], 0, got);
			}
			n += got;
			if (got < want)
				cs->in_heap = false;
			continue;
		}
		if (cs->run_next >= cs->run_end && !plan_next(cs))
			break;
		/* cached rows in device memory are the device's to read: stop before them */
		if (cs->on_device && !cs->in_heap && cs->run_next < cs->run_end)
			break;
		if (!cs->in_heap && cs->run_next < cs->run_end)
		{
			GpuselStaging run;
			int64		k = take_cached_run(cs, max_rows - n, &run);

			for (int c = 0; c < cs->ncols; c++)
			{
				memcpy((char *) staging->values[c] + n * cs->widths[c], run.values[c], k * cs->widths[c]);
				memcpy(staging->nulls[c] + n, run.nulls[c], k);
				staging->has_nulls[c] |= run.has_nulls[c];
			}
			memcpy(staging->tids + n, run.tids, k * sizeof(ItemPointerData));
			n += k;
		}
	}
	return n;
}

/* Whether the table's cached runs lie in device memory for this scan's device path. */
static bool
cache_has_device_runs(GpuselSource *source)
{
	CacheSource *cs = (CacheSource *) source;

	cs->on_device = GpuselCacheOnDevice(cs->entry);
	return cs->on_device;
}

/*
 * Lends the next cached rows where they lie in device memory, up to
 * max_rows of one run of unchanged blocks (the device copy has no
 * segments); 0 when the heap's rows come first, -1 at the end.
 */
static int64
cache_next_device_run(GpuselSource *source, int64 max_rows, GpuselDeviceRun *run)
{
	CacheSource *cs = (CacheSource *) source;
	GpuselCacheEntry *e = cs->entry;
	int64		k;

	if (cs->in_heap)
		return 0;
	if (cs->run_next >= cs->run_end && !plan_next(cs))
		return -1;
	if (cs->in_heap)
		return 0;
	k = Min(max_rows, cs->run_end - cs->run_next);
	run->resident = e->resident;
	run->first = cs->run_next;
	run->nrows = k;
	for (int c = 0; c < cs->ncols; c++)
	{
		int			col = cs->cached_col[c];

		run->offsets[2 * c] = e->dev_values_off[col] + cs->run_next * cs->widths[c];
		run->offsets[2 * c + 1] = e->dev_nulls_off[col] < 0 ? -1 :
			e->dev_nulls_off[col] + cs->run_next;
		run->has_nulls[c] = e->dev_nulls_off[col] >= 0;
	}
	cs->run_next += k;
	cs->use.rows_from_cache += k;
	cs->use.rows_on_device += k;
	return k;
}

/* The segment's base and the row's index in it, for cached row 'row'. */
static inline char *
cached_row(CacheSource *cs, int64 row, int64 *index)
{
	*index = row % GPUSEL_CACHE_SEGMENT_ROWS;
	return dsa_get_address(cs->area, cs->segments[row / GPUSEL_CACHE_SEGMENT_ROWS]);
}

/* The TID of row 'row' of a run lent in device memory, from the host copy. */
static ItemPointer
cache_device_run_tid(GpuselSource *source, const GpuselDeviceRun *run, int64 row)
{
	CacheSource *cs = (CacheSource *) source;
	int64		i;
	char	   *base = cached_row(cs, run->first + row, &i);

	return (ItemPointer) (base + cs->entry->tids_off) + i;
}

/* Copies values at 'width' bytes: src[idx[r]] to dst[r], for n rows. */
static inline void
gather_values(char *dst, const char *src, const int64 *idx, int64 n, int width)
{
	switch (width)
	{
		case 8:
			for (int64 r = 0; r < n; r++)
				((int64 *) dst)[r] = ((const int64 *) src)[idx[r]];
			break;
		case 4:
			for (int64 r = 0; r < n; r++)
				((int32 *) dst)[r] = ((const int32 *) src)[idx[r]];
			break;
		case 2:
			for (int64 r = 0; r < n; r++)
				((int16 *) dst)[r] = ((const int16 *) src)[idx[r]];
			break;
		default:
			for (int64 r = 0; r < n; r++)
				memcpy(dst + r * width, src + idx[r] * width, width);
			break;
	}
}

/*
 * Copies rows of a run lent in device memory into staging, from the host
 * copy: segment by segment, a column at a time.
 */
static void
cache_device_run_rows(GpuselSource *source, const GpuselDeviceRun *run,
					  const uint32 *positions, int64 n, GpuselStaging *staging)
{
	CacheSource *cs = (CacheSource *) source;
	GpuselCacheEntry *e = cs->entry;
	int64	   *idx = palloc(sizeof(int64) * Min(n, (int64) GPUSEL_CACHE_SEGMENT_ROWS));
	int64		r = 0;

	for (int c = 0; c < cs->ncols; c++)
		staging->has_nulls[c] = cs->has_nulls[c];
	while (r < n)
	{
		int64		row = run->first + (positions != NULL ? positions[r] : r);
		int64		seg = row / GPUSEL_CACHE_SEGMENT_ROWS;
		char	   *base = dsa_get_address(cs->area, cs->segments[seg]);
		int64		k = 0;

		/* the rows of this segment: positions ascend */
		while (r + k < n)
		{
			int64		rk = run->first + (positions != NULL ? positions[r + k] : r + k);

			if (rk / GPUSEL_CACHE_SEGMENT_ROWS != seg)
				break;
			idx[k++] = rk % GPUSEL_CACHE_SEGMENT_ROWS;
		}
		for (int c = 0; c < cs->ncols; c++)
		{
			int			col = cs->cached_col[c];
			int			w = cs->widths[c];

			gather_values((char *) staging->values[c] + r * w, base + e->values_off[col], idx, k, w);
			if (cs->has_nulls[c])
				gather_values((char *) staging->nulls[c] + r, base + e->nulls_off[col], idx, k, 1);
		}
		gather_values((char *) (staging->tids + r), base + e->tids_off, idx, k, sizeof(ItemPointerData));
		r += k;
	}
	pfree(idx);
}

/*
 * Lends the next chunk: cached rows in place, without a copy, or a heap
 * range's rows through the source's own staging.
 */
static bool
cache_next_chunk(GpuselSource *source, GpuselChunk *chunk, TupleTableSlot *slot)
{
	CacheSource *cs = (CacheSource *) source;

	for (;;)
	{
		if (cs->in_heap)
		{
			int64		got;

			if (!source->own_allocated)
			{
				GpuselStagingAlloc(&source->own, source->ncols, source->coltypes, source->chunk_rows);
				source->own_allocated = true;
			}
			memset(source->own.has_nulls, 0, Max(source->ncols, 1));
			got = GpuselPagesFill(cs->blocks, &source->own, source->chunk_rows, slot);
			if (got < source->chunk_rows)
				cs->in_heap = false;
			if (got == 0)
				continue;
			chunk->staging = source->own;
			chunk->nrows = got;
			break;
		}
		if (cs->run_next >= cs->run_end && !plan_next(cs))
			return false;
		if (!cs->in_heap && cs->run_next < cs->run_end)
		{
			chunk->nrows = take_cached_run(cs, source->chunk_rows, &chunk->staging);
			break;
		}
	}
	chunk->kind = GPUSEL_CHUNK_ROWS;
	chunk->nscanned = chunk->nrows;
	chunk->filtered = false;
	return true;
}

/* One tuple at a time: the heap, as the page reader hands them. */
static bool
cache_next_slot(GpuselSource *source, TupleTableSlot *slot)
{
	return GpuselPagesNextSlot(((CacheSource *) source)->rows, slot);
}

/* A parallel scan starts over: the allocator was reset by the leader. */
static void
cache_rescan_parallel(GpuselSource *source)
{
	CacheSource *cs = (CacheSource *) source;

	cs->pstarted = false;
	cs->pending = InvalidBlockNumber;
	cs->run_next = cs->run_end = 0;
	cs->in_heap = false;
	cs->ndrawn = 0;
	cs->replay_next = -1;
}

/*
 * Reads this process's blocks again, in the order the allocator handed
 * them, once it has handed it no more: each block as the rule at the top
 * of this file says now (a block changed since is read from the heap),
 * under the same snapshot, so the same rows.
 */
static void
cache_replay(GpuselSource *source)
{
	CacheSource *cs = (CacheSource *) source;

	cs->pending = InvalidBlockNumber;
	cs->run_next = cs->run_end = 0;
	cs->in_heap = false;
	cs->replay_next = 0;
}

/*
 * Up to n values of batch column 'column' at rows spread evenly over the
 * cache (every row the build placed, visible or not), with null bytes.
 */
static int64
cache_sample(GpuselSource *source, int column, int64 n, void *values, uint8 *nulls)
{
	CacheSource *cs = (CacheSource *) source;
	GpuselCacheEntry *e = cs->entry;
	int			col = cs->cached_col[column];
	int			w = cs->widths[column];
	int64		rows = e->nrows;

	n = Min(n, rows);
	for (int64 i = 0; i < n; i++)
	{
		int64		row = i * rows / n;
		int64		at;
		char	   *base = cached_row(cs, row, &at);

		memcpy((char *) values + i * w, base + e->values_off[col] + at * w, w);
		nulls[i] = cs->has_nulls[column] ? ((uint8 *) (base + e->nulls_off[col]))[at] : 0;
	}
	return n;
}

/* Releases the readers and the pin. */
static void
cache_end(GpuselSource *source)
{
	CacheSource *cs = (CacheSource *) source;

	GpuselPagesEnd(cs->blocks);
	if (cs->rows != NULL)
		GpuselPagesEnd(cs->rows);
	/* frees the source and its readers; the reset callback unpins */
	MemoryContextDelete(cs->cxt);
}

/* EXPLAIN ANALYZE: the cache was the source; its rows and the heap blocks beside them. */
static void
cache_explain(GpuselSource *source, ExplainState *es)
{
	CacheSource *cs = (CacheSource *) source;

	ExplainPropertyText("Source", "column cache", es);
	ExplainPropertyInteger("Rows From Cache", NULL, cs->use.rows_from_cache, es);
	if (cs->use.rows_on_device > 0 || es->format != EXPLAIN_FORMAT_TEXT)
		ExplainPropertyInteger("Rows Read In Device Memory", NULL, cs->use.rows_on_device, es);
	ExplainPropertyInteger("Blocks From Heap", NULL, cs->use.blocks_from_heap, es);
}

static const GpuselSourceMethods cache_methods = {
	.name = "column cache",
	.in_memory = true,
	.next_slot = cache_next_slot,
	.fill = cache_fill,
	.next_chunk = cache_next_chunk,
	.has_device_runs = cache_has_device_runs,
	.next_device_run = cache_next_device_run,
	.device_run_tid = cache_device_run_tid,
	.device_run_rows = cache_device_run_rows,
	.rescan = NULL,
	.end = cache_end,
	.explain = cache_explain,
};

/* A process's part of a parallel scan: it fills, or lends its cached rows in place. */
static const GpuselSourceMethods cache_parallel_methods = {
	.name = "column cache, a parallel part",
	.next_slot = NULL,
	.fill = cache_fill,
	.next_chunk = cache_next_chunk,
	.rescan = cache_rescan_parallel,
	.replay = cache_replay,
	.sample = cache_sample,
	.end = cache_end,
	.explain = cache_explain,
};

/*
 * Pins the table's cache and checks the rule at the top of this file for
 * this scan; NULL, with nothing pinned, when the scan is to read the heap.
 */
static CacheSource *
open_cache(Relation rel, Snapshot snapshot, const GpuselProgram *prog)
{
	GpuselCacheEntry *entry;
	CacheSource *cs;

	MemoryContext cxt;
	MemoryContext old;

	if (!GpuselCacheConfigured() || prog == NULL || snapshot->snapshot_type != SNAPSHOT_MVCC)
		return NULL;
	/*
	 * SERIALIZABLE checks each tuple it reads for conflicts, which cached
	 * rows cannot; a transaction that writes the table sees its own rows
	 * before the end of the statement marks their blocks.
	 */
	if (IsolationIsSerializable() || CheckRelationLockedByMe(rel, RowExclusiveLock, false))
		return NULL;
	entry = GpuselCachePin(RelationGetRelid(rel));
	if (entry == NULL)
		return NULL;
	/* the source's own memory: deleting it at the scan's end, or with the query's, unpins */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel column cache source",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	cs = palloc0(sizeof(CacheSource));
	cs->cxt = cxt;
	cs->entry = entry;
	cs->pinned = true;
	cs->replay_next = -1;
	cs->unpin.func = unpin_callback;
	cs->unpin.arg = cs;
	MemoryContextRegisterResetCallback(cxt, &cs->unpin);
	if (entry->relfilenode != rel->rd_node.relNode || pg_atomic_read_u32(&entry->truncated) != 0 ||
		snapshot_older_than_build(snapshot, entry) || !map_columns(cs, rel, prog) ||
		!GpuselCacheTriggerCurrent(entry) || !preset_dictionaries(cs, prog))
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return NULL;
	}
	cs->area = GpuselCacheArea();
	cs->segments = dsa_get_address(cs->area, entry->segments);
	cs->block_first = dsa_get_address(cs->area, entry->block_first);
	cs->changed = dsa_get_address(cs->area, entry->changed);
	cs->blocks = GpuselPagesBegin(rel, snapshot);
	GpuselPagesSetColumns(cs->blocks, prog);
	MemoryContextSwitchTo(old);
	pg_atomic_fetch_add_u64(&entry->hits, 1);
	return cs;
}

/*
 * The table's cache as the scan's source, where the rule at the top of this
 * file allows it; NULL otherwise, and the scan reads the heap.
 */
GpuselSource *
GpuselCacheSourceBegin(Relation rel, Snapshot snapshot, const GpuselProgram *prog,
					   int64 chunk_rows)
{
	CacheSource *cs = open_cache(rel, snapshot, prog);
	MemoryContext old;

	if (cs == NULL)
		return NULL;
	cs->nblocks = RelationGetNumberOfBlocks(rel);
	old = MemoryContextSwitchTo(cs->cxt);
	cs->rows = GpuselPagesBegin(rel, snapshot);
	MemoryContextSwitchTo(old);
	GpuselSourceInit(&cs->source, &cache_methods, prog, chunk_rows);
	return &cs->source;
}

/*
 * This process's part of a parallel scan through the cache: the blocks the
 * shared allocator hands it, each from the cache or, changed or new, from
 * the heap.  Every process applies the rule for itself; a block is read by
 * one process only, whichever way.
 */
static GpuselSource *
cache_source_begin_parallel(Relation rel, Snapshot snapshot, const GpuselProgram *prog,
							ParallelBlockTableScanDesc pscan, int64 chunk_rows)
{
	CacheSource *cs = open_cache(rel, snapshot, prog);

	if (cs == NULL)
		return NULL;
	cs->pscan = pscan;
	cs->pending = InvalidBlockNumber;
	cs->nblocks = pscan->phs_nblocks;
	GpuselSourceInit(&cs->source, &cache_parallel_methods, prog, chunk_rows);
	return &cs->source;
}

/* Plain EXPLAIN: the table has a cache, which the scan reads where it is current. */
static void
cache_explain_plan(Oid relid, ExplainState *es)
{
	ExplainPropertyText("Column Cache", "held", es);
}

static const GpuselSourceProvider cache_provider = {
	.begin = GpuselCacheSourceBegin,
	.begin_parallel = cache_source_begin_parallel,
	.holds = GpuselCacheHolds,
	.holds_on_device = GpuselCacheHoldsOnDevice,
	.explain_plan = cache_explain_plan,
};

/* Offers the cache to the scan as a source of rows; sets up its shared memory when preloaded. */
void
GpuselCacheInit(void)
{
	GpuselSourceRegisterProvider(&cache_provider);
	GpuselCacheShmemInit();
	GpuselCacheRefreshInit();
}
