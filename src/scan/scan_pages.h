/*
 * scan_pages.h
 *	  Page-at-a-time reader of a heap relation for GpuSelScan.
 *
 * The reader walks a heap table block by block with the executor's MVCC
 * snapshot and decides the visibility of a whole page at once, as heapam's
 * page mode does.  It then either hands visible tuples to a buffer heap
 * slot one by one (the CPU path), or copies the device columns of many
 * tuples at once straight from the page into a batch's staging arrays (the
 * GPU path), without deforming them through a slot.
 */
#ifndef GPUSEL_SCAN_PAGES_H
#define GPUSEL_SCAN_PAGES_H

#include "postgres.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "qual_compile.h"
#include "scan_source.h"


/* A page-at-a-time scan of one heap relation. */
typedef struct GpuselPageReader
{
	GpuselSource source;		/* first: the reader as a source of rows */
	Relation	rel;
	Snapshot	snapshot;
	BufferAccessStrategy strategy;	/* NULL for small or temporary tables */
	BlockNumber nblocks;		/* blocks of this (re)scan */
	BlockNumber next_block;		/* next block to read */
	bool		started;		/* nblocks read for this (re)scan */
	bool		done;

	/* the current page: pinned, not locked, with its visible tuples */
	Buffer		buf;
	BlockNumber blk;
	int			ntuples;
	int			next;			/* index into vis of the next tuple */
	OffsetNumber vis[MaxHeapTuplesPerPage];
	HeapTupleData tuple;		/* the tuple last handed to a slot */

	/* a parallel scan: blocks come from the block counter all processes share */
	ParallelBlockTableScanDesc pscan;	/* NULL: blocks 0..nblocks-1 in order */
	ParallelBlockTableScanWorkerData pwork;

	/* device columns, for GpuselPagesFill */
	int			ncols;
	AttrNumber	max_attno;
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
	gs_coltype	coltypes[GS_MAX_PROGRAM_LENGTH];
	uint8		form[GS_MAX_PROGRAM_LENGTH];	/* GpuselColumnForm */
	int16		form_arg[GS_MAX_PROGRAM_LENGTH];
	uint8		read[GS_MAX_PROGRAM_LENGTH];	/* GpuselFormRead of its form */
	int			widths[GS_MAX_PROGRAM_LENGTH];
	int32		offsets[GS_MAX_PROGRAM_LENGTH];	/* in a tuple without nulls */
	bool		fixed;			/* every device column has a fixed offset */
	char	   *standin;		/* zeroes: stands in for a tuple's data */

	/*
	 * The walk over a tuple's attributes up to max_attno, for tuples off
	 * the fixed path: each attribute's length and alignment, and the device
	 * column it fills first (-1: none; walk_next chains the others).
	 * walkable is false when some device column's value is neither its
	 * stored bytes nor one the walk can encode.
	 */
	bool		walkable;
	int			walk_start;		/* a tuple without nulls: the first attribute ... */
	uint32		walk_start_off; /* ... not at a fixed offset, and where the fixed ones end */
	int16	   *walk_len;
	char	   *walk_align;
	int16	   *walk_column;
	int16		walk_next[GS_MAX_PROGRAM_LENGTH];	/* the next column of the same attribute, or -1 */
} GpuselPageReader;

extern bool GpuselPagesUsable(Relation rel, Snapshot snapshot);
extern GpuselPageReader *GpuselPagesBegin(Relation rel, Snapshot snapshot);
extern GpuselPageReader *GpuselPagesBeginParallel(Relation rel, Snapshot snapshot,
												  ParallelBlockTableScanDesc pscan);
extern void GpuselPagesSetColumns(GpuselPageReader *reader,
								  const GpuselProgram *prog);
extern void GpuselPagesSetRange(GpuselPageReader *reader, BlockNumber start,
								BlockNumber end);
extern void GpuselPagesRescan(GpuselPageReader *reader);
extern void GpuselPagesEnd(GpuselPageReader *reader);
extern GpuselSource *GpuselPagesSourceBegin(Relation rel, Snapshot snapshot,
											 const GpuselProgram *prog, int64 chunk_rows);
extern bool GpuselPagesNextSlot(GpuselPageReader *reader, TupleTableSlot *slot);
extern int64 GpuselPagesFill(GpuselPageReader *reader, GpuselStaging *staging,
							 int64 max_rows, TupleTableSlot *slot);

#endif							/* GPUSEL_SCAN_PAGES_H */
