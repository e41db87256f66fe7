/*
 * scan_exec.h
 *	  Execution state of GpuSelScan, shared by its executor (scan_exec.c)
 *	  and its EXPLAIN output (scan_explain.c).
 */
#ifndef GPUSEL_SCAN_EXEC_H
#define GPUSEL_SCAN_EXEC_H

#include "postgres.h"

#include "access/relscan.h"
#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"

#include "gpusel_filter.h"
#include "qual_compile.h"
#include "scan_pages.h"
#include "scan_sink.h"
#include "scan_source.h"

#define GPUSEL_NSLOTS 2

/*
 * Rows per device batch of a parallel worker: smaller than a serial
 * scan's, so that a worker's share of the table makes enough batches to
 * overlap reading with the device, and eight workers' staging stays a
 * small part of the service's region.
 */
#define GPUSEL_WORKER_BATCH_ROWS 262144

/* How a tuple's quals are evaluated. */
typedef enum EvalOrder
{
	EVAL_PG_ORDER,				/* every qual in PostgreSQL's order */
	EVAL_DEVICE_FIRST,			/* device quals, then host quals */
	EVAL_HOST_ONLY				/* host quals: the device passed the tuple */
} EvalOrder;

/* A run of consecutive quals (in PostgreSQL's order) on the same side. */
typedef struct QualRun
{
	bool		device;
	ExprState  *qual;
} QualRun;

/* A process's part in a parallel grouped scan (scan_parallel.c). */
typedef enum GpuselFeedRole
{
	GPUSEL_FEED_UNDECIDED,
	GPUSEL_FEED_CONSUMER,		/* filters and groups every row */
	GPUSEL_FEED_PRODUCER		/* reads blocks into the feed */
} GpuselFeedRole;

/* One staging slot's batch on the host side. */
/*
 * Rows of a batch the device reads where it lies (the column cache's
 * device copy): no staging of that size is needed, only its positions
 * (4 bytes a row, page-locked, per slot), so fewer round trips to the
 * service go with it.  A grouped scan's device tables take about 130
 * bytes of device memory per row of such a batch.
 */
#define GPUSEL_DEVICE_RUN_ROWS	(4 * 1024 * 1024)

typedef struct BatchSlot
{
	int64		nrows;
	ItemPointerData *tids;		/* scan order */
	uint8	   *has_nulls;		/* per device column */
	bool		submitted;		/* device work pending on this slot */
	bool		in_device;		/* its rows are a run the source lent in device memory */
	GpuselDeviceRun *run;		/* that run: the rows' TIDs and columns come from the source */
} BatchSlot;

/* Execution state of a GpuSelScan. */
typedef struct GpuselScanState
{
	CustomScanState css;

	/* from the plan */
	List	   *device_quals;
	List	   *host_quals;
	int			nruns;
	QualRun    *runs;
	bool		needs_tuples;
	bool		has_host_quals;
	double		rel_tuples;
	EvalOrder	cpu_order;		/* the CPU path's order */
	int			out_natts;		/* columns the targetlist reads: 1..out_natts */
	Index		relid;			/* range table index of the scanned relation */
	Relation	rel;			/* the scanned relation */
	List	   *upper_quals;	/* grouped scan: its quals, Vars at relid */
	bool		group_mode;		/* returns the rows of its sink (scan_sink.h) */
	const GpuselSinkMethods *sink_methods;
	void	   *sink;			/* grouped scan: the groups */
	bool		groups_filled;	/* every row went into its group in this (re)scan */
	TupleTableSlot *colslot;	/* grouped scan on the CPU: a row of the columns */
	struct ColumnFilter *column_filter;	/* CPU: column tests of device quals */
	ExprState  *column_qual;	/* CPU: the other device quals, compiled for colslot */
	bool		empty_output;	/* every row projects to the same empty tuple */

	/* device program and the parameters it reads */
	GpuselProgram *program;
	ExprState **param_states;
	gs_const   *filter_consts;	/* constants the current filter holds */
	AttrNumber	max_attno;

	/* where and how */
	bool		use_gpu;
	int64		batch_rows;
	GpuselSource *source;		/* where this (re)scan's rows come from */
	struct GpuselFeed *feed;	/* under Gather: chunks from the workers */
	uint32	   *worker_positions;	/* a producer's filter: rows that pass */
	GpuselFeedRole feed_role;	/* this (re)scan's role, decided at its first row */
	bool		worker_device;	/* as a producer, filters its blocks on the device */
	bool		scan_done;
	bool		device_runs;	/* the source lends runs of rows in device memory */
	int64		filter_rows;	/* rows of a device batch: batch_rows, more for runs in device memory */
	/* a sink's way to take a device batch whole before its rows are returned one by one */
	void		(*take_batch) (struct GpuselScanState *state);
	int64		scan_rows;		/* rows read since the last (re)scan */

	TupleTableSlot *heapslot;	/* tuples as read from the heap */

	/* GPU path */
	gs_filter  *filter;
	MemoryContextCallback cleanup;
	BatchSlot	slots[GPUSEL_NSLOTS];
	bool		started;		/* first batch of this (re)scan submitted */
	bool		consts_ready;	/* parameters evaluated for this (re)scan */
	int			wait_slot;		/* next slot to wait for */

	/* the batch being returned */
	int			out_slot;		/* -1: none */
	bool		out_recheck;	/* every row through every qual on the CPU */
	const uint32 *positions;
	int64		npositions;
	int64		out_next;
	Buffer		buf;			/* heap page of the last re-read tuple */
	BlockNumber blk;
	HeapTupleData tuple;
	BufferAccessStrategy strategy;

	/* EXPLAIN ANALYZE */
	int64		batches;
	int64		rows_in;
	int64		removed_device;
	int64		removed_host;	/* not nfiltered1: a grouped scan counts HAVING there */
	int64		bytes_moved;
	int64		rechecks;
	double		device_ms;
	double		service_wait_ms;	/* waiting for the GPU service, beyond device_ms */
	bool		times_service;	/* the scan may use the GPU service: time its waits */
	double		fill_ms;		/* grouped scan: reading rows into groups */
	double		second_pass_ms; /* of fill_ms: choosing the buckets and the second pass */
	double		results_ms;		/* grouped scan: segments, selection, final values */
} GpuselScanState;

extern ExprState *GpuselInitExprForSlot(Expr *expr, bool is_qual, PlanState *ps,
										TupleDesc desc,
										const TupleTableSlotOps *ops);
extern void GpuselScanExplain(CustomScanState *node, List *ancestors,
							  ExplainState *es);
extern TupleTableSlot *GpuselScanNextRow(GpuselScanState *state);
extern bool GpuselScanDeviceReady(GpuselScanState *state);
extern GpuselSource *GpuselScanOpenSource(GpuselScanState *state, bool reads_chunks);
extern GpuselSource *GpuselScanOpenSecondSource(GpuselScanState *state);

/* scan_batches.c */
extern bool GpuselScanNextBatch(GpuselScanState *state);
extern const uint32 *GpuselScanBatchPositions(GpuselScanState *state);
extern void GpuselScanDrainSlots(GpuselScanState *state, bool report);
extern int64 GpuselScanBatchColumns(GpuselScanState *state, GpuselStaging *staging,
									 const uint32 **positions);

/* The TID of row 'row' of a batch: its staging's, or the source's for a run in device memory (inline: per row). */
static inline ItemPointer
GpuselScanBatchTid(GpuselScanState *state, BatchSlot *b, int64 row)
{
	if (b->in_device)
		return GpuselSourceDeviceRunTid(state->source, b->run, row);
	return &b->tids[row];
}

/* scan_parallel.c */
extern void GpuselScanParallelMethods(CustomExecMethods *methods);
extern bool GpuselScanTakeRole(GpuselScanState *state);
extern bool GpuselScanFeeding(GpuselScanState *state);


#endif							/* GPUSEL_SCAN_EXEC_H */
