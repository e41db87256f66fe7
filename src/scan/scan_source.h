/*
 * scan_source.h
 *	  Where a GpuSelScan's rows come from: one small interface that every
 *	  source of rows implements.
 *
 * A source hands out the visible rows of one relation for the executor's
 * snapshot.  It may do so in three ways, and implements those it can:
 *
 *	next_slot	one visible tuple in a slot (the CPU path's row at a time);
 *	fill		the device columns and TIDs of many rows, copied into
 *				memory the caller owns (the device path's page-locked
 *				staging, so the rows are copied once);
 *	next_chunk	a chunk lent until the next call: rows as columns, possibly
 *				filtered already, or records of a parallel worker's partial
 *				aggregate;
 *	next_device_run  rows whose columns lie in device memory already, lent
 *				by where they are there (the device path filters them in
 *				place; the TIDs and host columns of the rows it keeps
 *				come from the source afterwards).
 *
 * A source without next_chunk lends chunks through fill into a staging
 * area of its own (GpuselSourceNextChunk).  The sources today are the heap
 * page reader (scan_pages.c), any other table access method
 * (scan_source_tableam.c) and, under Gather, the chunks that parallel
 * workers read or aggregate (parallel_feed.c).  The scan (scan_exec.c)
 * and the grouped scan (groupagg_scan.c) read through this interface only,
 * so a further source, such as columns kept in device memory, is one more
 * implementation.
 */
#ifndef GPUSEL_SCAN_SOURCE_H
#define GPUSEL_SCAN_SOURCE_H

#include "postgres.h"

#include "access/relscan.h"
#include "executor/tuptable.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "qual_compile.h"

/* Where the device columns of a batch go. */
typedef struct GpuselStaging
{
	void	   *values[GS_MAX_PROGRAM_LENGTH];	/* per device column */
	uint8	   *nulls[GS_MAX_PROGRAM_LENGTH];	/* one byte per row and column */
	uint8	   *has_nulls;		/* per device column: some row is NULL */
	ItemPointerData *tids;		/* per row */
} GpuselStaging;

/*
 * What a chunk holds: rows as columns, or records of a worker's partial
 * aggregate (groupagg_partial.c), in the order the worker sent them.
 */
typedef enum GpuselChunkKind
{
	GPUSEL_CHUNK_ROWS,
	GPUSEL_CHUNK_GROUPS,		/* a worker's groups: keys and cells */
	GPUSEL_CHUNK_PAIRS,			/* a worker's (group, key) pairs of a collection */
	GPUSEL_CHUNK_BUCKETS,		/* a worker's key counts by bucket of its groups, a collection's */
	GPUSEL_CHUNK_DICT			/* a piece of a worker's dictionary of a group key */
} GpuselChunkKind;

/* Rows or records lent by a source until its next call. */
typedef struct GpuselChunk
{
	GpuselChunkKind kind;
	GpuselStaging staging;		/* rows */
	int64		nrows;			/* rows in staging, or records in data */
	int64		nscanned;		/* rows read for it, before a worker's filter */
	bool		filtered;		/* the device quals ran: every row passes them */
	char	   *data;			/* records */
	int			producer;		/* records: the worker that sent them, from 1 */
	int			collection;		/* pairs: their collection; a dictionary: its key */
	int64		first;			/* groups: the worker's number of the first;
								 * a dictionary: 0 for its first piece */
	int64		naggregated;	/* records: rows the worker aggregated, once */
} GpuselChunk;

/*
 * A run of rows whose columns already lie in device memory (the column
 * cache's device copy, which the GPU service holds): the copy, where each
 * batch column's values and null bytes for the run's first row lie in
 * it, and how many rows follow.
 */
typedef struct GpuselDeviceRun
{
	uint64		resident;		/* the copy, as the GPU service names it */
	int64		first;			/* the run's first row, as the source numbers them */
	int64		nrows;
	int64		offsets[2 * GS_MAX_PROGRAM_LENGTH];	/* per column: values, null bytes (-1: none) */
	uint8		has_nulls[GS_MAX_PROGRAM_LENGTH];
} GpuselDeviceRun;

typedef struct GpuselSource GpuselSource;
struct ExplainState;

/* What a source can do; a NULL member is a way it does not hand out rows. */
typedef struct GpuselSourceMethods
{
	const char *name;			/* what it reads, in words */
	/* its rows lie in memory: reading them again costs no I/O (a second pass) */
	bool		in_memory;

	/* Puts the next visible tuple in slot; false at the end. */
	bool		(*next_slot) (GpuselSource *source, TupleTableSlot *slot);

	/*
	 * Copies the next visible rows' device columns and TIDs into staging;
	 * fewer than max_rows only at the end.  slot is scratch space.
	 */
	int64		(*fill) (GpuselSource *source, GpuselStaging *staging,
						 int64 max_rows, TupleTableSlot *slot);

	/* Lends the next chunk; false at the end. */
	bool		(*next_chunk) (GpuselSource *source, GpuselChunk *chunk,
							   TupleTableSlot *slot);

	/*
	 * Whether some of its rows lie in device memory, so the device path
	 * asks next_device_run before each fill; NULL: none do.
	 */
	bool		(*has_device_runs) (GpuselSource *source);

	/*
	 * Lends the next rows when they lie in device memory: their number
	 * (> 0), 0 when the next rows come by fill (which then stops where the
	 * next run in device memory begins, so it may return fewer than asked
	 * without being at the end), or -1 at the end.
	 */
	int64		(*next_device_run) (GpuselSource *source, int64 max_rows, GpuselDeviceRun *run);

	/* The TID of row 'row' of a run it lent. */
	ItemPointer (*device_run_tid) (GpuselSource *source, const GpuselDeviceRun *run, int64 row);

	/*
	 * Copies rows 'positions' (ascending; NULL: the first n) of a run it
	 * lent into staging, one after another, with their TIDs.
	 */
	void		(*device_run_rows) (GpuselSource *source, const GpuselDeviceRun *run,
									const uint32 *positions, int64 n, GpuselStaging *staging);

	/* Starts again from the first row; NULL: the scan opens it anew. */
	void		(*rescan) (GpuselSource *source);

	/*
	 * A parallel part: reads again, in the same order, exactly the blocks
	 * the shared allocator handed this process (a second pass of this
	 * process's share); NULL: it cannot.
	 */
	void		(*replay) (GpuselSource *source);

	/*
	 * Copies up to n values of batch column 'column', spread evenly over
	 * all the rows it holds whatever their visibility, with their null
	 * bytes; returns how many.  NULL: it cannot (a sample is a hint, such
	 * as splitters, never an answer).
	 */
	int64		(*sample) (GpuselSource *source, int column, int64 n, void *values,
						   uint8 *nulls);

	/* Releases what it holds. */
	void		(*end) (GpuselSource *source);
	/* EXPLAIN ANALYZE's lines about what it read; NULL: none */
	void		(*explain) (GpuselSource *source, struct ExplainState *es);
} GpuselSourceMethods;

/*
 * A source beside the heap that a module registers when the library loads
 * (the column cache), so that the scan names no module above it: the scan
 * asks the provider first for each (re)scan, and reads the heap when it
 * declines.
 */
typedef struct GpuselSourceProvider
{
	/* the source for this scan, or NULL */
	GpuselSource *(*begin) (Relation rel, Snapshot snapshot, const GpuselProgram *prog,
							int64 chunk_rows);
	/*
	 * The source for this process's part of a parallel scan, whose blocks
	 * come from the shared block allocator, or NULL; it fills, and lends
	 * chunks of at most chunk_rows rows.
	 */
	GpuselSource *(*begin_parallel) (Relation rel, Snapshot snapshot, const GpuselProgram *prog,
									 ParallelBlockTableScanDesc pscan, int64 chunk_rows);
	/* whether it holds the relation, for the planner's costs and plain EXPLAIN */
	bool		(*holds) (Oid relid);
	/* whether its rows of the relation lie in device memory, for the device path's costs */
	bool		(*holds_on_device) (Oid relid);
	/* plain EXPLAIN's line about a relation it holds */
	void		(*explain_plan) (Oid relid, struct ExplainState *es);
} GpuselSourceProvider;

/* The part every source shares; each source embeds it first. */
struct GpuselSource
{
	const GpuselSourceMethods *methods;
	/* the staging area of GpuselSourceNextChunk for a source without next_chunk */
	int			ncols;
	gs_coltype	coltypes[GS_MAX_PROGRAM_LENGTH];
	int64		chunk_rows;
	GpuselStaging own;
	bool		own_allocated;
};

extern void GpuselSourceInit(GpuselSource *source, const GpuselSourceMethods *methods,
							 const GpuselProgram *prog, int64 chunk_rows);
extern bool GpuselSourceNextSlot(GpuselSource *source, TupleTableSlot *slot);
extern int64 GpuselSourceFill(GpuselSource *source, GpuselStaging *staging,
							  int64 max_rows, TupleTableSlot *slot);
extern bool GpuselSourceNextChunk(GpuselSource *source, GpuselChunk *chunk,
								  TupleTableSlot *slot);
extern bool GpuselSourceHasDeviceRuns(GpuselSource *source);
extern int64 GpuselSourceNextDeviceRun(GpuselSource *source, int64 max_rows,
									   GpuselDeviceRun *run);
extern ItemPointer GpuselSourceDeviceRunTid(GpuselSource *source, const GpuselDeviceRun *run,
											int64 row);
extern void GpuselSourceDeviceRunRows(GpuselSource *source, const GpuselDeviceRun *run,
									  const uint32 *positions, int64 n, GpuselStaging *staging);
extern bool GpuselSourceRescan(GpuselSource *source);
extern bool GpuselSourceCanReplay(GpuselSource *source);
extern void GpuselSourceReplay(GpuselSource *source);
extern int64 GpuselSourceSample(GpuselSource *source, int column, int64 n, void *values,
								uint8 *nulls);
extern bool GpuselSourceInMemory(GpuselSource *source);
extern void GpuselSourceEnd(GpuselSource *source);

extern void GpuselSourceRegisterProvider(const GpuselSourceProvider *provider);
extern GpuselSource *GpuselSourceFromProvider(Relation rel, Snapshot snapshot,
											  const GpuselProgram *prog, int64 chunk_rows);
extern GpuselSource *GpuselSourceFromProviderParallel(Relation rel, Snapshot snapshot,
													  const GpuselProgram *prog,
													  ParallelBlockTableScanDesc pscan,
													  int64 chunk_rows);
extern bool GpuselSourceProvided(Oid relid);
extern bool GpuselSourceProvidedOnDevice(Oid relid);
extern void GpuselSourceExplain(GpuselSource *source, struct ExplainState *es);
extern void GpuselSourceExplainPlan(Oid relid, struct ExplainState *es);
extern void GpuselStagingAlloc(GpuselStaging *staging, int ncols,
							   const gs_coltype *coltypes, int64 rows);
extern void GpuselStagingFree(GpuselStaging *staging, int ncols);

/* scan_source_tableam.c */
extern GpuselSource *GpuselTableAmSourceBegin(Relation rel, Snapshot snapshot,
											  const GpuselProgram *prog);

#endif							/* GPUSEL_SCAN_SOURCE_H */
