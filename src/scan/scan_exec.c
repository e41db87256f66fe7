/*
 * scan_exec.c
 *	  Executor side of GpuSelScan.
 *
 * GPU path: the heap is read with the executor's snapshot (so MVCC
 * visibility stays PostgreSQL's), batch by batch.  A heap table is read a
 * page at a time (scan_pages.c), its device columns copied straight from
 * the page; any other table AM goes through the table AM, a tuple at a
 * time.  For each visible tuple the device columns go into the filter's
 * pinned staging (values plus one null byte per row) and its TID into the
 * batch;
 * the batch goes to the device, and while the device works, the next batch
 * is built in the other staging slot.  The device returns the positions of
 * the rows where the device quals are true, in order; those tuples are
 * re-read by TID from their (pinned) heap pages, the host quals run on
 * them, and they leave in their original order.  When nothing above the
 * scan reads a column (count(*)), no tuple is re-read at all.
 *
 * When the device reports that some row raised an error (overflow,
 * division by zero), the whole batch is evaluated again on the CPU with
 * every qual in PostgreSQL's order, which raises PostgreSQL's own error
 * for exactly the row and qual a sequential scan would have failed on, or
 * none, where an earlier qual rejects that row.
 *
 * CPU path (no usable GPU, gpusel.device = cpu, small tables in auto
 * mode): tuples stream from the same page reader (or the table AM) and the
 * quals run with ExecQual,
 * as in a sequential scan: device quals first when none of them can fail
 * (as on the device, so host quals see the same rows on both paths),
 * otherwise every qual in PostgreSQL's order.  Batches are still counted
 * the same way, so EXPLAIN ANALYZE shows the same figures.
 *
 * Slots: PostgreSQL 15 gives a custom scan a virtual scan slot, and the
 * node's projection (or its parent) reads values from it without
 * deforming.  The scan therefore reads heap tuples into its own buffer
 * slot, evaluates its quals there (compiled for that slot type), and
 * returns a virtual copy of the columns the targetlist reads, with ctid and
 * tableoid; the values still point into the pinned heap page.
 *
 * The device filter is freed in EndCustomScan and, on error or cancel, by
 * a callback on the executor's memory context.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "device.h"
#include "guc.h"
#include "qual_compile.h"
#include "scan_pages.h"
#include "scan_plan.h"

#include "parallel_feed.h"
#include "scan_exec.h"

static Node *gpusel_create_state(CustomScan *cscan);
static void gpusel_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpusel_exec(CustomScanState *node);
static void gpusel_end(CustomScanState *node);
static void gpusel_rescan(CustomScanState *node);
static TupleTableSlot *exec_node(GpuselScanState *state);

CustomScanMethods gpusel_scan_methods = {
	.CustomName = GPUSEL_SCAN_NAME,
	.CreateCustomScanState = gpusel_create_state,
};

static CustomExecMethods gpusel_exec_methods = {
	.CustomName = GPUSEL_SCAN_NAME,
	.BeginCustomScan = gpusel_begin,
	.ExecCustomScan = gpusel_exec,
	.EndCustomScan = gpusel_end,
	.ReScanCustomScan = gpusel_rescan,
	.ExplainCustomScan = GpuselScanExplain,
};

/* Registers the plan node's methods, so plans can be copied and read back. */
void
GpuselScanExecInit(void)
{
	RegisterCustomScanMethods(&gpusel_scan_methods);
	GpuselScanParallelMethods(&gpusel_exec_methods);
}

/* CreateCustomScanState: a GpuselScanState reading heap tuples. */
static Node *
gpusel_create_state(CustomScan *cscan)
{
	GpuselScanState *state = palloc0(sizeof(GpuselScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.flags = cscan->flags;
	state->css.methods = &gpusel_exec_methods;
	state->out_slot = -1;
	state->buf = InvalidBuffer;
	return (Node *) state;
}

/* Frees the device filter; safe to call more than once. */
static void
release_filter(GpuselScanState *state)
{
	if (state->filter != NULL)
	{
		gs_filter *filter = state->filter;

		state->filter = NULL;
		GpuselDev->filter_destroy(filter);
	}
	for (int s = 0; s < GPUSEL_NSLOTS; s++)
		state->slots[s].submitted = false;
}

/* Memory context callback: frees the device filter on error or cancel. */
static void
cleanup_callback(void *arg)
{
	release_filter((GpuselScanState *) arg);
}

/*
 * Compiles an expression (a qual when is_qual) for tuples of the given
 * descriptor in slots of the given type.  ExecInitExpr takes both from the
 * node's scan slot, and JIT deforms by them; a scan whose own scan slot is
 * not what its quals read (the count(*) form's is its one-row output) would
 * get code that reads the wrong attributes.
 */
ExprState *
GpuselInitExprForSlot(Expr *expr, bool is_qual, PlanState *ps, TupleDesc desc,
					  const TupleTableSlotOps *ops)
{
	TupleDesc	save_desc = ps->scandesc;
	const TupleTableSlotOps *save_ops = ps->scanops;
	bool		save_fixed = ps->scanopsfixed;
	bool		save_set = ps->scanopsset;
	ExprState  *result;

	ps->scandesc = desc;
	ps->scanops = ops;
	ps->scanopsfixed = true;
	ps->scanopsset = true;
	PG_TRY();
	{
		result = is_qual ? ExecInitQual((List *) expr, ps) : ExecInitExpr(expr, ps);
	}
	PG_FINALLY();
	{
		ps->scandesc = save_desc;
		ps->scanops = save_ops;
		ps->scanopsfixed = save_fixed;
		ps->scanopsset = save_set;
	}
	PG_END_TRY();
	return result;
}

/* Compiles quals for the heap tuples the scan reads into its heap slot. */
static ExprState *
init_heap_qual(GpuselScanState *state, List *quals)
{
	return GpuselInitExprForSlot((Expr *) quals, true, &state->css.ss.ps,
								 state->heapslot->tts_tupleDescriptor,
								 &TTSOpsBufferHeapTuple);
}

/*
 * Groups the plan's quals into runs of consecutive device or host quals,
 * each compiled into one ExprState, in PostgreSQL's order.
 */
static void
init_runs(GpuselScanState *state, CustomScan *cscan)
{
	List	   *flags = (List *) list_nth(cscan->custom_private, GPUSEL_PRIV_DEVICE_FLAGS);
	List	   *quals = state->group_mode ? state->upper_quals : cscan->custom_exprs;
	List	   *current = NIL;
	bool		current_device = false;
	ListCell   *lc,
			   *lf;

	state->runs = palloc0(sizeof(QualRun) * Max(list_length(quals), 1));
	forboth(lc, quals, lf, flags)
	{
		bool		device = lfirst_int(lf) != 0;

		if (device)
			state->device_quals = lappend(state->device_quals, lfirst(lc));
		else
			state->host_quals = lappend(state->host_quals, lfirst(lc));
		if (current != NIL && device != current_device)
		{
			state->runs[state->nruns].device = current_device;
			state->runs[state->nruns].qual = init_heap_qual(state, current);
			state->nruns++;
			current = NIL;
		}
		current = lappend(current, lfirst(lc));
		current_device = device;
	}
	if (current != NIL)
	{
		state->runs[state->nruns].device = current_device;
		state->runs[state->nruns].qual = init_heap_qual(state, current);
		state->nruns++;
	}
}

/* The highest column the plan's targetlist reads (all of them for a whole-row Var). */
static int
targetlist_natts(CustomScan *cscan, Relation rel)
{
	Bitmapset  *attrs = NULL;
	int			natts = 0;
	int			k = -1;

	pull_varattnos((Node *) cscan->scan.plan.targetlist, cscan->scan.scanrelid, &attrs);
	while ((k = bms_next_member(attrs, k)) >= 0)
	{
		AttrNumber	attno = k + FirstLowInvalidHeapAttributeNumber;

		if (attno == InvalidAttrNumber)
			return RelationGetDescr(rel)->natts;
		natts = Max(natts, attno);
	}
	return natts;
}

/*
 * The range table index of the relation that a scan without a scan
 * relation of its own (scanrelid 0: count(*), gpu_percentile) reads: the
 * varno of the first Var of its custom_scan_tlist, which setrefs moved with
 * the range table as it flattened it.
 */
Index
GpuselUpperScanRelid(CustomScan *cscan)
{
	List	   *vars = pull_var_clause((Node *) cscan->custom_scan_tlist,
									   PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS);

	if (vars == NIL)
		elog(ERROR, "gpusel could not find the relation of its scan");
	return ((Var *) linitial(vars))->varno;
}

/* The grouped scan's sink, registered by its module (scan_sink.h). */
static const GpuselSinkMethods *group_sink = NULL;

/* Registers the sink a grouped scan feeds. */
void
GpuselRegisterGroupSink(const GpuselSinkMethods *methods)
{
	group_sink = methods;
}

/* The sink a grouped scan feeds, NULL when none is registered. */
const GpuselSinkMethods *
GpuselGroupSink(void)
{
	return group_sink;
}

/* BeginCustomScan: reads the plan, compiles the device program, picks the device. */
static void
gpusel_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuselScanState *state = (GpuselScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	int			flags = intVal(list_nth(cscan->custom_private, GPUSEL_PRIV_FLAGS));
	GpuselProgram *prog;

	/* a grouped scan has no scan relation of its own: open the one it reads */
	state->group_mode = (flags & GPUSEL_SCAN_GROUP) != 0;
	state->relid = cscan->scan.scanrelid;
	if (state->group_mode)
	{
		Index		planned = intVal(list_nth(cscan->custom_private, GPUSEL_PRIV_BASE_RELID));

		state->relid = GpuselUpperScanRelid(cscan);
		state->upper_quals = copyObject(list_nth(cscan->custom_private, GPUSEL_PRIV_QUALS));
		if (state->relid != planned)
			OffsetVarNodes((Node *) state->upper_quals, state->relid - planned, 0);
		/*
		 * Not the node's ss_currentRelation: WHERE CURRENT OF would take
		 * this one-row aggregate for a scan positioned on a row of it.
		 */
		rel = ExecOpenScanRelation(estate, state->relid, eflags);
	}
	state->rel = rel;
	state->needs_tuples = (flags & GPUSEL_SCAN_NEEDS_TUPLES) != 0;
	state->rel_tuples = floatVal(list_nth(cscan->custom_private, GPUSEL_PRIV_REL_TUPLES));
	state->out_natts = targetlist_natts(cscan, rel);

	/* quals and parameters read heap tuples: they are compiled for that slot */
	state->heapslot = ExecInitExtraTupleSlot(estate, RelationGetDescr(rel),
											 &TTSOpsBufferHeapTuple);
	init_runs(state, cscan);
	state->has_host_quals = state->host_quals != NIL;
	state->empty_output = cscan->scan.plan.targetlist == NIL && !state->has_host_quals &&
		node->ss.ps.qual == NULL && node->ss.ps.ps_ProjInfo != NULL &&
		node->ss.ps.ps_ResultTupleSlot != NULL &&
		node->ss.ps.ps_ResultTupleSlot->tts_tupleDescriptor->natts == 0;
	if (state->group_mode)
	{
		state->sink_methods = GpuselGroupSink();
		if (state->sink_methods == NULL)
			elog(ERROR, "gpusel's grouped scan has no sink registered");
		state->sink = state->sink_methods->create(state, cscan, estate);
	}
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;

	/* a grouped scan may have no device quals: its program only names columns */
	if (state->group_mode && state->device_quals == NIL)
		prog = palloc0(sizeof(GpuselProgram));
	else
		prog = GpuselCompileQuals(state->device_quals, state->relid);
	if (prog == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpusel could not compile the device quals of its scan"),
				 errdetail("The planner accepted quals that the executor cannot compile.")));
	state->program = prog;
	state->param_states = palloc0(sizeof(ExprState *) * Max(prog->nparams, 1));
	for (int i = 0; i < prog->nparams; i++)
		state->param_states[i] =
			GpuselInitExprForSlot(prog->param_exprs[i], false, &node->ss.ps,
								  RelationGetDescr(rel), &TTSOpsBufferHeapTuple);

	/*
	 * Quals that cannot fail and have no side effects can run first, as on
	 * the device, so both paths call the host quals on the same rows; quals
	 * that can fail keep PostgreSQL's order, which decides which error, if
	 * any, a row raises.
	 */
	state->cpu_order = GpuselProgramCanError(prog) ? EVAL_PG_ORDER : EVAL_DEVICE_FIRST;
	if (state->group_mode)
		state->sink_methods->begin(state, prog, estate);
	state->max_attno = 0;
	for (int c = 0; c < prog->ncols; c++)
		state->max_attno = Max(state->max_attno, prog->attnos[c]);

	state->batch_rows = gpusel_batch_rows;
	/* a grouped scan without device quals has nothing for the device to filter */
	state->use_gpu = (!state->group_mode || state->device_quals != NIL) &&
		GpuselWantGpu((int64) state->rel_tuples);
	state->times_service = state->use_gpu && GpuselDeviceIsService();
	if (state->use_gpu)
	{
		state->strategy = GetAccessStrategy(BAS_BULKREAD);
		state->cleanup.func = cleanup_callback;
		state->cleanup.arg = state;
		MemoryContextRegisterResetCallback(estate->es_query_cxt, &state->cleanup);
	}
}

/*
 * The tuple to return: a virtual copy of the heap slot's first out_natts
 * columns (the rest NULL, as nothing reads them), with its ctid and
 * tableoid.  By-reference values stay in the pinned heap page.
 */
static TupleTableSlot *
emit_tuple(GpuselScanState *state, TupleTableSlot *heapslot)
{
	TupleTableSlot *out = state->css.ss.ss_ScanTupleSlot;
	int			natts = out->tts_tupleDescriptor->natts;
	int			n = Min(state->out_natts, natts);

	ExecClearTuple(out);
	if (n > 0)
	{
		slot_getsomeattrs(heapslot, n);
		memcpy(out->tts_values, heapslot->tts_values, sizeof(Datum) * n);
		memcpy(out->tts_isnull, heapslot->tts_isnull, sizeof(bool) * n);
	}
	for (int i = n; i < natts; i++)
		out->tts_isnull[i] = true;
	ExecStoreVirtualTuple(out);
	out->tts_tid = heapslot->tts_tid;
	out->tts_tableOid = heapslot->tts_tableOid;
	return out;
}

/* Evaluates the runs on one side (or both), in order; counts a rejection. */
static bool
eval_runs(GpuselScanState *state, ExprContext *econtext, bool device, bool host)
{
	for (int i = 0; i < state->nruns; i++)
	{
		QualRun    *run = &state->runs[i];

		if (run->device ? !device : !host)
			continue;
		if (!ExecQual(run->qual, econtext))
		{
			if (run->device)
				state->removed_device++;
			else
				state->removed_host++;
			return false;
		}
	}
	return true;
}

/* Whether one tuple passes the quals, evaluated as 'order' says. */
static bool
eval_quals(GpuselScanState *state, TupleTableSlot *slot, EvalOrder order)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	econtext->ecxt_scantuple = slot;
	switch (order)
	{
		case EVAL_PG_ORDER:
			return eval_runs(state, econtext, true, true);
		case EVAL_DEVICE_FIRST:
			return eval_runs(state, econtext, true, false) &&
				eval_runs(state, econtext, false, true);
		case EVAL_HOST_ONLY:
			return eval_runs(state, econtext, false, true);
	}
	return false;
}

/*
 * Counts one more scanned row, opening a new batch every batch_rows rows of
 * this (re)scan, as the GPU path cuts them.
 */
static inline void
count_cpu_row(GpuselScanState *state)
{
	if (state->scan_rows % state->batch_rows == 0)
		state->batches++;
	state->scan_rows++;
	state->rows_in++;
}

/* Next tuple of the CPU path: a sequential scan with every qual in order. */
static TupleTableSlot *
cpu_next(GpuselScanState *state)
{
	TupleTableSlot *slot = state->heapslot;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	while (!state->scan_done)
	{
		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		if (!GpuselSourceNextSlot(state->source, slot))
		{
			state->scan_done = true;
			break;
		}
		count_cpu_row(state);
		if (eval_quals(state, slot, state->cpu_order))
			return emit_tuple(state, slot);
	}
	ExecClearTuple(slot);
	return NULL;
}

/*
 * Evaluates the program's parameters for this (re)scan and makes sure a
 * filter holding those constants exists.  Returns false, having switched
 * the scan to the CPU, when the device has no memory for it in auto mode.
 */
static bool
ensure_filter(GpuselScanState *state)
{
	GpuselProgram *prog = state->program;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	gs_program	program;
	char		errbuf[512];
	gs_status	status;
	Size		constbytes = sizeof(gs_const) * Max(prog->nconsts, 1);

	for (int i = 0; i < prog->nparams; i++)
	{
		bool		isnull;
		Datum		value = ExecEvalExprSwitchContext(state->param_states[i], econtext, &isnull);

		GpuselDatumToConst(value, isnull, exprType((Node *) prog->param_exprs[i]),
						   &prog->consts[prog->param_slots[i]]);
	}
	state->consts_ready = true;

	/* a rescan with the same parameter values keeps its filter */
	if (state->filter != NULL &&
		memcmp(state->filter_consts, prog->consts, sizeof(gs_const) * prog->nconsts) == 0)
		return true;
	release_filter(state);

	program.code = prog->code;
	program.ncode = prog->ncode;
	program.consts = prog->consts;
	program.nconsts = prog->nconsts;
	program.max_stack = prog->max_stack;
	errbuf[0] = '\0';
	/*
	 * Runs of rows already in device memory need no staging: a batch of
	 * them may be larger, and each batch costs requests and, when grouped
	 * on the device, a lookup of its distinct keys on the host.
	 */
	state->filter_rows = state->batch_rows;
	if (state->source != NULL && GpuselSourceHasDeviceRuns(state->source))
		state->filter_rows = Max(state->batch_rows, GPUSEL_DEVICE_RUN_ROWS);
	status = GpuselDev->filter_create(&state->filter, &program, prog->ncols, prog->coltypes,
									  state->filter_rows, state->batch_rows, GPUSEL_NSLOTS,
									  errbuf, sizeof(errbuf));
	/* a worker's use of the device is its own choice, never gpusel.device's promise */
	if (status == GS_OUT_OF_MEMORY &&
		(gpusel_device_mode != GPUSEL_DEVICE_GPU || state->worker_device))
	{
		ereport(DEBUG1,
				(errmsg("gpusel: scan does not fit in GPU memory, using the CPU"),
				 errdetail("%s", errbuf)));
		state->filter = NULL;
		state->use_gpu = false;
		return false;
	}
	if (status != GS_OK)
		state->filter = NULL;
	GpuselCheckStatus(status, errbuf, "the GPU scan setup");
	if (state->sink != NULL)
		state->sink_methods->filter_ready(state);

	if (state->filter_consts == NULL)
		state->filter_consts = MemoryContextAlloc(state->css.ss.ps.state->es_query_cxt, constbytes);
	memcpy(state->filter_consts, prog->consts, sizeof(gs_const) * prog->nconsts);
	if (state->slots[0].tids == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(state->css.ss.ps.state->es_query_cxt);

		for (int s = 0; s < GPUSEL_NSLOTS; s++)
		{
			state->slots[s].tids = palloc(sizeof(ItemPointerData) * state->batch_rows);
			state->slots[s].has_nulls = palloc0(Max(prog->ncols, 1));
		}
		MemoryContextSwitchTo(old);
	}
	return true;
}

/*
 * The source of this (re)scan's rows, opened at its first row: for a
 * reader of chunks under Gather, the parallel grouped scan's feed when
 * this process consumes it; else the heap's pages, or the table AM for
 * other tables and snapshots the page reader does not take.
 */
GpuselSource *
GpuselScanOpenSource(GpuselScanState *state, bool reads_chunks)
{
	Relation	rel = state->rel;
	Snapshot	snapshot = state->css.ss.ps.state->es_snapshot;

	if (state->source != NULL)
		return state->source;
	if (reads_chunks && GpuselScanFeeding(state))
		state->source = GpuselFeedSource(state->feed);
	else if (GpuselPagesUsable(rel, snapshot) &&
			 (state->source = GpuselSourceFromProvider(rel, snapshot, state->program,
													   Min(state->batch_rows, 65536))) != NULL)
		 /* the column cache, where it is current for this snapshot */ ;
	else if (GpuselPagesUsable(rel, snapshot))
		state->source = GpuselPagesSourceBegin(rel, snapshot, state->program,
											   Min(state->batch_rows, 65536));
	else
		state->source = GpuselTableAmSourceBegin(rel, snapshot, state->program);
	return state->source;
}

/*
 * A second source over the same rows of the scan's relation for its
 * snapshot, beside the one open (the grouped scan's second pass, which
 * ends it): the column cache where it is current, else the heap.
 */
GpuselSource *
GpuselScanOpenSecondSource(GpuselScanState *state)
{
	Relation	rel = state->rel;
	Snapshot	snapshot = state->css.ss.ps.state->es_snapshot;
	GpuselSource *source = NULL;

	if (GpuselPagesUsable(rel, snapshot))
		source = GpuselSourceFromProvider(rel, snapshot, state->program,
										  Min(state->batch_rows, 65536));
	if (source == NULL && GpuselPagesUsable(rel, snapshot))
		source = GpuselPagesSourceBegin(rel, snapshot, state->program,
										Min(state->batch_rows, 65536));
	if (source == NULL)
		source = GpuselTableAmSourceBegin(rel, snapshot, state->program);
	return source;
}

/* Drops the pin on the page of the last re-read tuple. */
static void
release_page(GpuselScanState *state)
{
	if (BufferIsValid(state->buf))
		ReleaseBuffer(state->buf);
	state->buf = InvalidBuffer;
}

/*
 * Re-reads a tuple the scan has already found visible.  The page may have
 * been unpinned since, but pruning never removes a tuple that a registered
 * MVCC snapshot still sees, and defragmenting keeps line pointers, so no
 * visibility check is needed.  The one exception is old_snapshot_threshold,
 * under which pruning may remove such tuples: TestForOldSnapshot raises
 * "snapshot too old" then, as heapam does.
 */
static void
fetch_tuple(GpuselScanState *state, ItemPointer tid, TupleTableSlot *slot)
{
	Relation	rel = state->rel;
	BlockNumber blk = ItemPointerGetBlockNumber(tid);
	Page		page;
	ItemId		lp;

	if (!BufferIsValid(state->buf) || state->blk != blk)
	{
		release_page(state);
		state->buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, state->strategy);
		state->blk = blk;
		if (old_snapshot_threshold >= 0)
		{
			LockBuffer(state->buf, BUFFER_LOCK_SHARE);
			TestForOldSnapshot(state->css.ss.ps.state->es_snapshot, rel,
							   BufferGetPage(state->buf));
			LockBuffer(state->buf, BUFFER_LOCK_UNLOCK);
		}
	}
	page = BufferGetPage(state->buf);
	lp = PageGetItemId(page, ItemPointerGetOffsetNumber(tid));
	if (!ItemIdIsNormal(lp))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gpusel lost tuple (%u,%u) of relation \"%s\" during its scan",
						blk, ItemPointerGetOffsetNumber(tid), RelationGetRelationName(rel))));
	state->tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	state->tuple.t_len = ItemIdGetLength(lp);
	state->tuple.t_self = *tid;
	state->tuple.t_tableOid = RelationGetRelid(rel);
	ExecStoreBufferHeapTuple(&state->tuple, slot, state->buf);
}

/* Next tuple of the GPU path. */
static TupleTableSlot *
gpu_next(GpuselScanState *state)
{
	TupleTableSlot *slot = state->heapslot;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		if (state->out_slot >= 0)
		{
			BatchSlot  *b = &state->slots[state->out_slot];
			int64		limit = state->out_recheck ? b->nrows : state->npositions;

			while (state->out_next < limit)
			{
				int64		row = state->out_recheck ? state->out_next :
					(int64) GpuselScanBatchPositions(state)[state->out_next];

				state->out_next++;
				CHECK_FOR_INTERRUPTS();

				/*
				 * Only a row that evaluates something here needs a fresh
				 * context; count(*) rows skip the reset.
				 */
				if (state->needs_tuples || state->has_host_quals || state->out_recheck)
					ResetExprContext(econtext);
				if (!state->needs_tuples && !state->out_recheck)
				{
					/*
					 * Nothing reads a column (count(*)): every surviving row
					 * is the same all-NULL tuple, stored once.
					 */
					TupleTableSlot *out = state->css.ss.ss_ScanTupleSlot;

					if (TTS_EMPTY(out))
						ExecStoreAllNullTuple(out);
					/* WHERE CURRENT OF reads the row's identity from this slot */
					out->tts_tid = *GpuselScanBatchTid(state, b, row);
					out->tts_tableOid = RelationGetRelid(state->rel);
					if (!state->has_host_quals || eval_quals(state, out, EVAL_HOST_ONLY))
						return out;
					continue;
				}
				fetch_tuple(state, GpuselScanBatchTid(state, b, row), slot);
				if (eval_quals(state, slot, state->out_recheck ? EVAL_PG_ORDER : EVAL_HOST_ONLY))
					return emit_tuple(state, slot);
			}
			state->out_slot = -1;
			ExecClearTuple(slot);
			release_page(state);
		}
		if (!GpuselScanNextBatch(state))
			return NULL;
		/* a sink may take the whole batch where it lies (the grouped scan on the device) */
		if (state->take_batch != NULL)
			state->take_batch(state);
	}
}

/* Access method for ExecScan: the next tuple that passes every qual. */
static TupleTableSlot *
gpusel_next(ScanState *ss)
{
	GpuselScanState *state = (GpuselScanState *) ss;

	(void) GpuselScanOpenSource(state, false);
	if (state->use_gpu && !state->consts_ready)
		(void) ensure_filter(state);
	if (state->use_gpu)
		return gpu_next(state);
	return cpu_next(state);
}

/*
 * Readies the device filter for the source already open, as the first row
 * would; false when the scan runs on the CPU instead (no device memory for
 * it in auto mode).
 */
bool
GpuselScanDeviceReady(GpuselScanState *state)
{
	if (state->use_gpu && !state->consts_ready)
		(void) ensure_filter(state);
	return state->use_gpu;
}

/* The next row that passes every qual, for the grouped scan (groupagg_scan.c). */
TupleTableSlot *
GpuselScanNextRow(GpuselScanState *state)
{
	return gpusel_next(&state->css.ss);
}

/* Recheck method for ExecScan (EvalPlanQual): every qual on the given tuple. */
static bool
gpusel_recheck(ScanState *ss, TupleTableSlot *slot)
{
	GpuselScanState *state = (GpuselScanState *) ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;

	/*
	 * ExecScan returns this slot as it is, to a projection compiled for
	 * the virtual scan slot, which does not deform: deform it here.
	 */
	slot_getallattrs(slot);
	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < state->nruns; i++)
		if (!ExecQual(state->runs[i].qual, econtext))
			return false;
	return true;
}

/*
 * ExecCustomScan: ExecScan does EvalPlanQual and projection.  When the
 * targetlist is empty (count(*)) and no host qual runs, every row projects
 * to the same empty tuple: it is returned directly, without ExecScan's
 * per-row projection, except under EvalPlanQual.
 */
static TupleTableSlot *
gpusel_exec(CustomScanState *node)
{
	GpuselScanState *state = (GpuselScanState *) node;
	double		waited;
	TupleTableSlot *slot;

	/* only a scan that may use the GPU service waits for it: no cost per row otherwise */
	if (!state->times_service)
		return exec_node(state);
	waited = GpuselDeviceWaitMs();
	slot = exec_node(state);
	state->service_wait_ms += GpuselDeviceWaitMs() - waited;
	return slot;
}

/* The node's next row: a group, or a row that passes every qual. */
static TupleTableSlot *
exec_node(GpuselScanState *state)
{
	CustomScanState *node = &state->css;

	if (state->group_mode)
		return state->sink_methods->next(state);
	if (state->empty_output && node->ss.ps.state->es_epq_active == NULL)
	{
		TupleTableSlot *result = node->ss.ps.ps_ResultTupleSlot;
		TupleTableSlot *slot = gpusel_next(&node->ss);

		if (TupIsNull(slot))
			return ExecClearTuple(result);
		if (TTS_EMPTY(result))
			ExecStoreVirtualTuple(result);
		return result;
	}
	return ExecScan(&node->ss, gpusel_next, gpusel_recheck);
}

/* ReScanCustomScan: starts over; parameters are evaluated again. */
static void
gpusel_rescan(CustomScanState *node)
{
	GpuselScanState *state = (GpuselScanState *) node;

	GpuselScanDrainSlots(state, true);
	release_page(state);
	if (state->source != NULL && !GpuselSourceRescan(state->source))
	{
		GpuselSourceEnd(state->source);
		state->source = NULL;
	}
	if (state->feed != NULL)
		GpuselFeedRescan(state->feed);
	state->feed_role = GPUSEL_FEED_UNDECIDED;
	state->scan_done = false;
	state->scan_rows = 0;
	state->started = false;
	state->consts_ready = false;
	if (state->sink != NULL)
		state->sink_methods->rescan(state->sink);
	state->groups_filled = false;
	ExecScanReScan(&node->ss);
}

/* EndCustomScan: frees the device filter, the page pins and the table scan. */
static void
gpusel_end(CustomScanState *node)
{
	GpuselScanState *state = (GpuselScanState *) node;

	GpuselScanDrainSlots(state, false);
	release_page(state);
	release_filter(state);
	if (state->sink != NULL)
		state->sink_methods->end(state->sink);
	if (state->source != NULL)
		GpuselSourceEnd(state->source);
	state->source = NULL;
	if (state->feed != NULL && state->feed->reader != NULL)
		GpuselPagesEnd(state->feed->reader);
	if (state->feed != NULL && state->feed->cached != NULL)
		GpuselSourceEnd(state->feed->cached);
	state->feed = NULL;
	if (state->strategy != NULL)
		FreeAccessStrategy(state->strategy);
	state->strategy = NULL;
}
