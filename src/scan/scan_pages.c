/*
 * scan_pages.c
 *	  Page-at-a-time reader of a heap relation for GpuSelScan.
 *
 * Visibility follows heapam's page mode (heapgetpage): each block is read
 * in order, pruned opportunistically, share-locked while every normal line
 * pointer is checked against the snapshot (all at once when the page is
 * all-visible and the snapshot was not taken during recovery), checked for
 * serializable conflicts, and unlocked.  The visible tuples are then read
 * under the pin alone: with an MVCC snapshot their visibility cannot
 * change, and a pinned page is never pruned or defragmented, so their line
 * pointers and bytes stay where they are.
 *
 * Blocks are read from 0 to the relation's length at the start of the
 * (re)scan, like a sequential scan without synchronized scanning, or, in a
 * parallel scan, as PostgreSQL's block allocator hands them out, through
 * a bulk-read ring where heapam would use one (tables larger than a
 * quarter of shared_buffers), so a large scan does not flush the cache.
 *
 * The GPU path copies the device columns of each visible tuple into the
 * batch's staging.  When a tuple has no nulls and all its device columns
 * lie in the fixed-width prefix of the row (their offsets then depend on
 * the descriptor only, computed once per scan), each value is one copy
 * from the page.  Other tuples are walked attribute by attribute up to the
 * last device column (nulls, alignment, variable lengths), numerics turned
 * into scaled integers on the way; a tuple that lacks columns added after
 * it was written is deformed through a slot, which supplies their values.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/parallel.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "catalog/pg_am_d.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "scan_pages.h"

static void set_walk(GpuselPageReader *reader, TupleDesc desc);

/*
 * Whether the page reader can scan this relation with this snapshot: heap
 * tables only, and MVCC snapshots only, because tuples are read after the
 * page lock is gone, which is safe only when their visibility is fixed.
 */
bool
GpuselPagesUsable(Relation rel, Snapshot snapshot)
{
	return rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		snapshot != NULL && IsMVCCSnapshot(snapshot);
}

/* Starts a page-at-a-time scan; takes the predicate lock a seqscan takes. */
GpuselPageReader *
GpuselPagesBegin(Relation rel, Snapshot snapshot)
{
	GpuselPageReader *reader = palloc0(sizeof(GpuselPageReader));

	reader->rel = rel;
	reader->snapshot = snapshot;
	reader->buf = InvalidBuffer;

	/* a serializable transaction reading the whole table conflicts with any write */
	PredicateLockRelation(rel, snapshot);
	return reader;
}

/*
 * Starts this process's part of a parallel page-at-a-time scan: its blocks
 * come from pscan, the block allocator in the parallel query's shared
 * memory, which every process of the scan draws from.
 */
GpuselPageReader *
GpuselPagesBeginParallel(Relation rel, Snapshot snapshot, ParallelBlockTableScanDesc pscan)
{
	GpuselPageReader *reader = GpuselPagesBegin(rel, snapshot);

	reader->pscan = pscan;
	return reader;
}

/*
 * Records the device columns and, when every one of them lies in the
 * fixed-width prefix of the row with the width of its device type, their
 * offsets from the start of a tuple's data in a tuple without nulls.
 */
void
GpuselPagesSetColumns(GpuselPageReader *reader, const GpuselProgram *prog)
{
	TupleDesc	desc = RelationGetDescr(reader->rel);
	int32		offsets[MaxTupleAttributeNumber];
	int			nfixed = 0;
	int32		off = 0;

	reader->ncols = prog->ncols;
	reader->max_attno = 0;
	for (int c = 0; c < prog->ncols; c++)
		reader->max_attno = Max(reader->max_attno, prog->attnos[c]);

	/* attributes before the first variable-width one sit at fixed offsets */
	while (nfixed < reader->max_attno && nfixed < desc->natts)
	{
		Form_pg_attribute att = TupleDescAttr(desc, nfixed);

		if (att->attlen <= 0)
			break;
		off = att_align_nominal(off, att->attalign);
		offsets[nfixed++] = off;
		off += att->attlen;
	}

	reader->fixed = true;
	for (int c = 0; c < prog->ncols; c++)
	{
		AttrNumber	attno = prog->attnos[c];

		/* a form of several columns (a 128-bit numeric's halves) fills the next ones */
		for (int k = 1; k < GpuselFormLookup(prog->form[c])->ncolumns; k++)
			if (c + k >= prog->ncols || GpuselFormLookup(prog->form[c + k])->ncolumns != 0 ||
				prog->attnos[c + k] != attno)
				elog(ERROR, "gpusel program holds the first column of a form without the rest");

		reader->attnos[c] = attno;
		reader->coltypes[c] = prog->coltypes[c];
		reader->form[c] = prog->form[c];
		reader->form_arg[c] = prog->form_arg[c];
		reader->read[c] = GpuselFormLookup(prog->form[c])->read;
		reader->widths[c] = GpuselColumnWidth(prog->coltypes[c]);
		reader->offsets[c] = -1;
		if (attno >= 1 && attno <= nfixed)
		{
			Form_pg_attribute att = TupleDescAttr(desc, attno - 1);

			/*
			 * the column loops copy stored bytes that are the device value
			 * itself; a date read as its midnight, or a fixed-length value
			 * passed by reference, is encoded from the bytes at its offset
			 * by the walk
			 */
			if (reader->read[c] == GPUSEL_READ_BYTES ?
				att->attbyval && att->attlen == reader->widths[c] :
				reader->read[c] == GPUSEL_READ_DATE || reader->read[c] == GPUSEL_READ_BYREF)
				reader->offsets[c] = offsets[attno - 1];
		}
		if (reader->offsets[c] < 0 || reader->read[c] != GPUSEL_READ_BYTES)
			reader->fixed = false;
	}

	/* what the column loops read for a tuple that takes the slow path */
	if (reader->fixed)
		reader->standin = palloc0(off + sizeof(int64));
	set_walk(reader, desc);
	reader->walk_start = nfixed;
	reader->walk_start_off = off;
}

/* Drops the pin on the current page and forgets its tuples. */
static void
drop_page(GpuselPageReader *reader)
{
	if (BufferIsValid(reader->buf))
		ReleaseBuffer(reader->buf);
	reader->buf = InvalidBuffer;
	reader->ntuples = 0;
	reader->next = 0;
}

/*
 * Sets up a (re)scan: the relation's current length and, as heapam
 * decides it, whether to read through a bulk-read ring.
 */
static void
start_scan(GpuselPageReader *reader)
{
	Relation	rel = reader->rel;

	if (reader->pscan != NULL)
	{
		table_block_parallelscan_startblock_init(rel, &reader->pwork, reader->pscan);
		reader->nblocks = reader->pscan->phs_nblocks;
	}
	else
		reader->nblocks = RelationGetNumberOfBlocks(rel);
	reader->next_block = 0;
	reader->started = true;
	if (!RelationUsesLocalBuffers(rel) && reader->nblocks > (BlockNumber) (NBuffers / 4))
	{
		if (reader->strategy == NULL)
			reader->strategy = GetAccessStrategy(BAS_BULKREAD);
	}
	else if (reader->strategy != NULL)
	{
		FreeAccessStrategy(reader->strategy);
		reader->strategy = NULL;
	}
	/* a parallel scan counts once, in the leader, as heapam does */
	if (!IsParallelWorker())
		pgstat_count_heap_scan(rel);
}

/*
 * Limits a serial reader's next reads to blocks [start, end), for a source
 * that takes only some blocks from the heap (the column cache).
 */
void
GpuselPagesSetRange(GpuselPageReader *reader, BlockNumber start, BlockNumber end)
{
	Assert(reader->pscan == NULL);
	if (!reader->started)
		start_scan(reader);
	drop_page(reader);
	reader->next_block = start;
	reader->nblocks = end;
	reader->done = false;
}

/* Restarts the scan at block 0; the next read measures the relation again. */
void
GpuselPagesRescan(GpuselPageReader *reader)
{
	drop_page(reader);
	reader->started = false;
	reader->done = false;
}

/* Ends the scan: drops the page pin and the buffer ring. */
void
GpuselPagesEnd(GpuselPageReader *reader)
{
	drop_page(reader);
	if (reader->strategy != NULL)
		FreeAccessStrategy(reader->strategy);
	reader->strategy = NULL;
}

/*
 * Reads block blk, keeps it pinned, and collects the offsets of the tuples
 * visible to the snapshot, deciding visibility under a share lock.
 */
static void
load_page(GpuselPageReader *reader, BlockNumber blk)
{
	Relation	rel = reader->rel;
	Snapshot	snapshot = reader->snapshot;
	HeapTupleData tuple;
	Page		page;
	OffsetNumber maxoff;
	bool		all_visible;
	bool		check_serializable;
	int			n = 0;

	reader->buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, reader->strategy);
	reader->blk = blk;

	/* pruning needs the pin but not the lock, and may take a cleanup lock */
	heap_page_prune_opt(rel, reader->buf);

	LockBuffer(reader->buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(reader->buf);
	TestForOldSnapshot(snapshot, rel, page);
	maxoff = PageGetMaxOffsetNumber(page);

	/*
	 * A standby's snapshot may not see everything the primary considered
	 * all-visible, so the page bit counts only for snapshots taken outside
	 * recovery.
	 */
	all_visible = PageIsAllVisible(page) && !snapshot->takenDuringRecovery;

	/*
	 * Whether this transaction must look for serializable conflicts is the
	 * same for every tuple of the page (heapam asks once per page too, from
	 * PostgreSQL 17 on), so the common answer "no" costs one call a page.
	 */
	check_serializable = CheckForSerializableConflictOutNeeded(rel, snapshot);

	if (all_visible && !check_serializable)
	{
		/* every tuple the page holds is visible: only line pointers to read */
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
			if (ItemIdIsNormal(PageGetItemId(page, off)))
				reader->vis[n++] = off;
	}
	else
	{
		tuple.t_tableOid = RelationGetRelid(rel);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
		{
			ItemId		lp = PageGetItemId(page, off);
			bool		valid;

			if (!ItemIdIsNormal(lp))
				continue;
			tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
			tuple.t_len = ItemIdGetLength(lp);
			ItemPointerSet(&tuple.t_self, blk, off);
			valid = all_visible || HeapTupleSatisfiesVisibility(&tuple, snapshot, reader->buf);
			if (check_serializable)
				HeapCheckForSerializableConflictOut(valid, rel, &tuple, reader->buf, snapshot);
			if (valid)
				reader->vis[n++] = off;
		}
	}
	LockBuffer(reader->buf, BUFFER_LOCK_UNLOCK);

	reader->ntuples = n;
	reader->next = 0;

	/* heapam counts tuples as it returns them; a page at a time is the same sum */
	if (n > 0 && pgstat_should_count_relation(rel))
		rel->pgstat_info->t_counts.t_tuples_returned += n;
}

/*
 * Moves to the next page with at least one visible tuple.  Returns false at
 * the end of the relation.  Checks for interrupts once per page.
 */
static bool
next_page(GpuselPageReader *reader)
{
	if (reader->done)
		return false;
	if (!reader->started)
		start_scan(reader);
	for (;;)
	{
		BlockNumber blk;

		CHECK_FOR_INTERRUPTS();
		drop_page(reader);
		if (reader->pscan != NULL)
			blk = table_block_parallelscan_nextpage(reader->rel, &reader->pwork, reader->pscan);
		else
			blk = reader->next_block < reader->nblocks ? reader->next_block++ : InvalidBlockNumber;
		if (!BlockNumberIsValid(blk))
		{
			reader->done = true;
			return false;
		}
		load_page(reader, blk);
		if (reader->ntuples > 0)
			return true;
	}
}

/* Points reader->tuple at visible tuple i of the current page. */
static inline void
set_tuple(GpuselPageReader *reader, Page page, int i)
{
	OffsetNumber off = reader->vis[i];
	ItemId		lp = PageGetItemId(page, off);

	reader->tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	reader->tuple.t_len = ItemIdGetLength(lp);
	reader->tuple.t_tableOid = RelationGetRelid(reader->rel);
	ItemPointerSet(&reader->tuple.t_self, reader->blk, off);
}

/*
 * Stores the next visible tuple in a buffer heap slot (which pins its
 * page).  Returns false, with the slot cleared, at the end of the scan.
 */
bool
GpuselPagesNextSlot(GpuselPageReader *reader, TupleTableSlot *slot)
{
	while (reader->next >= reader->ntuples)
	{
		if (!next_page(reader))
		{
			ExecClearTuple(slot);
			return false;
		}
	}
	set_tuple(reader, BufferGetPage(reader->buf), reader->next++);
	ExecStoreBufferHeapTuple(&reader->tuple, slot, reader->buf);
	return true;
}

/*
 * Marks row 'row' of device column c NULL.  Until a column's first NULL of
 * the batch its null bytes are left unwritten (the device ignores them
 * while has_nulls is 0), so the rows before, up to the end of the chunk
 * being staged, are cleared first.
 */
static inline void
set_null(GpuselStaging *staging, int c, int64 row, int64 chunk_end)
{
	if (!staging->has_nulls[c])
	{
		memset(staging->nulls[c], 0, chunk_end);
		staging->has_nulls[c] = 1;
	}
	staging->nulls[c][row] = 1;
}

/*
 * Stores row 'row' of the staging from a tuple that needs deforming (it
 * has nulls, lacks columns added later, or a device column has no fixed
 * offset), through the slot, which fills in missing columns.
 */
static void
stage_slow(GpuselPageReader *reader, GpuselStaging *staging, int64 row,
		   int64 chunk_end, TupleTableSlot *slot)
{
	ExecStoreBufferHeapTuple(&reader->tuple, slot, reader->buf);
	slot_getsomeattrs(slot, reader->max_attno);
	for (int c = 0; c < reader->ncols; c++)
	{
		int			att = reader->attnos[c] - 1;

		if (slot->tts_isnull[att])
			set_null(staging, c, row, chunk_end);
		else
		{
			if (staging->has_nulls[c])
				staging->nulls[c][row] = 0;
			if (reader->form[c] != GPUSEL_FORM_PLAIN)
				GpuselStoreEncoded(staging->values, c, row, reader->form[c], reader->form_arg[c],
								   slot->tts_values[att]);
			else
				GpuselStoreValue(staging->values[c], row, reader->coltypes[c],
								 slot->tts_values[att]);
		}
	}
}

/*
 * Copies device column c of 'count' tuples, whose data start at data[k],
 * into rows first.. of its staging: one typed loop per column, so the
 * compiler sees a plain gather of fixed-size values.
 */
static void
copy_column(GpuselPageReader *reader, GpuselStaging *staging, int c,
			const char *const *data, int64 first, int count)
{
	int32		off = reader->offsets[c];

	switch (reader->widths[c])
	{
		case 1:
			{
				uint8	   *dst = (uint8 *) staging->values[c] + first;

				/* bool: the device wants exactly 0 or 1, as DatumGetBool reads it */
				for (int k = 0; k < count; k++)
					dst[k] = data[k][off] != 0;
				break;
			}
		case 2:
			{
				int16	   *dst = (int16 *) staging->values[c] + first;

				for (int k = 0; k < count; k++)
					memcpy(&dst[k], data[k] + off, sizeof(int16));
				break;
			}
		case 4:
			{
				int32	   *dst = (int32 *) staging->values[c] + first;

				for (int k = 0; k < count; k++)
					memcpy(&dst[k], data[k] + off, sizeof(int32));
				break;
			}
		default:
			{
				int64	   *dst = (int64 *) staging->values[c] + first;

				for (int k = 0; k < count; k++)
					memcpy(&dst[k], data[k] + off, sizeof(int64));
				break;
			}
	}
}

/*
 * Prepares the walk over a tuple's attributes (walk_tuple): every
 * attribute up to the last device column must be a plain one (no dropped
 * column matters: it still occupies its place), and each device column
 * either a by-value attribute whose bytes are the device value, a varlena
 * (numeric or char(n)) encoded as int8, or a date read as its midnight in
 * the TimeZone.
 */
static void
set_walk(GpuselPageReader *reader, TupleDesc desc)
{
	int			n = reader->max_attno;

	reader->walkable = n <= desc->natts;
	if (!reader->walkable)
		return;
	reader->walk_len = palloc(sizeof(int16) * n);
	reader->walk_align = palloc(sizeof(char) * n);
	reader->walk_column = palloc(sizeof(int16) * n);
	for (int a = 0; a < n; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);

		reader->walk_len[a] = att->attlen;
		reader->walk_align[a] = att->attalign;
		reader->walk_column[a] = -1;
	}
	/* an attribute may fill several columns (a 128-bit numeric's halves): chained */
	for (int c = reader->ncols - 1; c >= 0; c--)
	{
		int			a = reader->attnos[c] - 1;
		Form_pg_attribute att = TupleDescAttr(desc, a);

		reader->walk_next[c] = reader->walk_column[a];
		reader->walk_column[a] = (int16) c;
		if (reader->read[c] == GPUSEL_READ_DATE ?
			!(att->attbyval && att->attlen == sizeof(DateADT)) :
			reader->read[c] == GPUSEL_READ_VARLENA ? att->attlen != -1 :
			reader->read[c] == GPUSEL_READ_BYREF ? att->attbyval || att->attlen <= 0 :
			!(att->attbyval && att->attlen == reader->widths[c]))
			reader->walkable = false;
	}
}

/*
 * Stores the value of device column c at 'src' as row 'row': an encoded
 * numeric, char(n) or date, or the stored bytes (a bool as exactly 0 or 1).
 */
static inline void
store_walked(GpuselPageReader *reader, GpuselStaging *staging, int c, int64 row,
			 const char *src)
{
	if (reader->read[c] == GPUSEL_READ_DATE)
		GpuselStoreEncoded(staging->values, c, row, reader->form[c], reader->form_arg[c],
						   fetch_att(src, true, sizeof(DateADT)));
	else if (reader->read[c] == GPUSEL_READ_VARLENA || reader->read[c] == GPUSEL_READ_BYREF)
		GpuselStoreEncoded(staging->values, c, row, reader->form[c], reader->form_arg[c],
						   PointerGetDatum(src));
	else if (reader->coltypes[c] == GS_COL_BOOL)
		((uint8 *) staging->values[c])[row] = *src != 0;
	else
	{
		char	   *dst = (char *) staging->values[c] + row * reader->widths[c];

		/* a fixed-size copy per width, not a call to memcpy per value */
		switch (reader->widths[c])
		{
			case 2:
				memcpy(dst, src, 2);
				break;
			case 4:
				memcpy(dst, src, 4);
				break;
			case 8:
				memcpy(dst, src, 8);
				break;
			default:
				memcpy(dst, src, reader->widths[c]);
				break;
		}
	}
}

/*
 * Stores row 'row' of the staging from a tuple that has at least
 * max_attno attributes, walking them as heap_deform_tuple does (nulls from
 * the bitmap, alignment, variable lengths) but keeping only the device
 * columns, with no slot in between.
 */
static void
walk_tuple(GpuselPageReader *reader, GpuselStaging *staging, HeapTupleHeader tup,
		   int64 row, int64 chunk_end)
{
	const char *tp = (const char *) tup + tup->t_hoff;
	const bits8 *bits = (tup->t_infomask & HEAP_HASNULL) ? tup->t_bits : NULL;
	uint32		off = 0;
	int			a = 0;

	/* without nulls, the fixed-width prefix's columns sit at known offsets */
	if (bits == NULL)
	{
		for (int c = 0; c < reader->ncols; c++)
			if (reader->attnos[c] <= reader->walk_start)
				store_walked(reader, staging, c, row, tp + reader->offsets[c]);
		a = reader->walk_start;
		off = reader->walk_start_off;
	}
	for (; a < reader->max_attno; a++)
	{
		int			c = reader->walk_column[a];
		int16		len = reader->walk_len[a];

		if (bits != NULL && att_isnull(a, bits))
		{
			for (; c >= 0; c = reader->walk_next[c])
				set_null(staging, c, row, chunk_end);
			continue;
		}
		if (len == -1)
			off = att_align_pointer(off, reader->walk_align[a], -1, tp + off);
		else
			off = att_align_nominal(off, reader->walk_align[a]);
		for (; c >= 0; c = reader->walk_next[c])
		{
			if (staging->has_nulls[c])
				staging->nulls[c][row] = 0;
			store_walked(reader, staging, c, row, tp + off);
		}
		off = att_addlength_pointer(off, len, tp + off);
	}
}

/*
 * Stages 'count' visible tuples of the current page, from index 'next' of
 * its visible list, as rows first.. of the batch.  Tuples with fixed
 * offsets go column by column; the others are walked (or, lacking
 * attributes or walkable columns, deformed through the slot) one by one
 * after, overwriting whatever the column loops read for them from a zeroed
 * stand-in.
 */
static void
stage_chunk(GpuselPageReader *reader, GpuselStaging *staging, int64 first,
			int next, int count, TupleTableSlot *slot)
{
	Page		page = BufferGetPage(reader->buf);
	const char *data[MaxHeapTuplesPerPage];
	HeapTupleHeader walk[MaxHeapTuplesPerPage];
	int			walk_rows[MaxHeapTuplesPerPage];
	int			nwalk = 0;
	int			slow[MaxHeapTuplesPerPage];
	int			nslow = 0;
	AttrNumber	max_attno = reader->max_attno;
	int64		chunk_end = first + count;

	for (int k = 0; k < count; k++)
	{
		OffsetNumber off = reader->vis[next + k];
		HeapTupleHeader tup = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off));
		bool		all_atts;

		/* the tuples lie from the page's end down: ask for a few ahead */
		if (k + 4 < count)
			__builtin_prefetch(PageGetItem(page, PageGetItemId(page, reader->vis[next + k + 4])));
		all_atts = HeapTupleHeaderGetNatts(tup) >= max_attno;

		ItemPointerSet(&staging->tids[first + k], reader->blk, off);
		if (reader->fixed && !(tup->t_infomask & HEAP_HASNULL) && all_atts)
		{
			data[k] = (const char *) tup + tup->t_hoff;
			continue;
		}
		data[k] = reader->standin;
		if (reader->walkable && all_atts)
		{
			walk[nwalk] = tup;
			walk_rows[nwalk++] = k;
		}
		else
			slow[nslow++] = k;
	}

	for (int c = 0; c < reader->ncols; c++)
	{
		if (reader->fixed)
			copy_column(reader, staging, c, data, first, count);
		if (staging->has_nulls[c])
			memset(staging->nulls[c] + first, 0, count);
	}

	for (int i = 0; i < nwalk; i++)
		walk_tuple(reader, staging, walk[i], first + walk_rows[i], chunk_end);
	for (int i = 0; i < nslow; i++)
	{
		set_tuple(reader, page, next + slow[i]);
		stage_slow(reader, staging, first + slow[i], chunk_end, slot);
	}
}

/*
 * Appends up to max_rows visible tuples to a batch: their device columns
 * into the staging and their TIDs.  Stops mid-page when the batch is full;
 * the next call resumes there.  Returns the number of rows appended, less
 * than max_rows only at the end of the scan.  The caller has reset
 * has_nulls, and clears 'slot', the scratch slot of tuples that need
 * deforming, when done with the batch.
 */
int64
GpuselPagesFill(GpuselPageReader *reader, GpuselStaging *staging,
				int64 max_rows, TupleTableSlot *slot)
{
	int64		n = 0;

	while (n < max_rows)
	{
		int			count;

		if (reader->next >= reader->ntuples)
		{
			if (!next_page(reader))
				break;
			continue;
		}
		count = reader->ntuples - reader->next;
		if (count > max_rows - n)
			count = (int) (max_rows - n);
		stage_chunk(reader, staging, n, reader->next, count, slot);
		reader->next += count;
		n += count;
	}
	return n;
}

/* The page reader's next visible tuple, as a source. */
static bool
pages_next_slot(GpuselSource *source, TupleTableSlot *slot)
{
	return GpuselPagesNextSlot((GpuselPageReader *) source, slot);
}

/* The page reader's next rows' columns, as a source. */
static int64
pages_fill(GpuselSource *source, GpuselStaging *staging, int64 max_rows,
		   TupleTableSlot *slot)
{
	return GpuselPagesFill((GpuselPageReader *) source, staging, max_rows, slot);
}

/* Restarts the page reader, as a source. */
static void
pages_rescan(GpuselSource *source)
{
	GpuselPagesRescan((GpuselPageReader *) source);
}

/* Ends the page reader and frees it, as a source. */
static void
pages_end(GpuselSource *source)
{
	GpuselPagesEnd((GpuselPageReader *) source);
	pfree(source);
}

static const GpuselSourceMethods pages_methods = {
	.name = "heap pages",
	.next_slot = pages_next_slot,
	.fill = pages_fill,
	.next_chunk = NULL,
	.rescan = pages_rescan,
	.end = pages_end,
};

/*
 * Begins a page-at-a-time scan of a heap table as a source of rows that
 * copies prog's device columns and lends chunks of chunk_rows rows.
 */
GpuselSource *
GpuselPagesSourceBegin(Relation rel, Snapshot snapshot, const GpuselProgram *prog,
					   int64 chunk_rows)
{
	GpuselPageReader *reader = GpuselPagesBegin(rel, snapshot);

	GpuselPagesSetColumns(reader, prog);
	GpuselSourceInit(&reader->source, &pages_methods, prog, chunk_rows);
	return &reader->source;
}
