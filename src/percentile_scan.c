/*
 * percentile_scan.c
 *	  gpu_percentile over a whole table, collected by the GPU scan's page
 *	  reader instead of the executor.
 *
 * An ordinary aggregate receives its input one row at a time through the
 * executor: a scan slot, an expression, a transition call.  For
 *
 *	   SELECT gpu_percentile(<constant>) WITHIN GROUP (ORDER BY col) FROM t
 *
 * with no WHERE clause and no GROUP BY, that per-row work is most of the
 * query's time (DESIGN.md: the floor of a tuple-at-a-time scan).  This
 * custom scan (EXPLAIN: Custom Scan (GpuSelPercentile)) replaces the
 * Aggregate and its scan: it reads heap pages with the executor's snapshot,
 * copies the column straight from the tuple bytes into a column buffer,
 * turns the values into keys, and then selects exactly as the aggregate
 * does (percentile.c), on the GPU or the CPU as gpusel.device says.  It
 * returns one row holding the aggregate's value.
 */
#include "postgres.h"

#include "access/tableam.h"
#include "catalog/pg_aggregate_d.h"
#include "catalog/dependency.h"
#include "catalog/pg_proc_d.h"
#include "commands/extension.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "groupagg.h"
#include "guc.h"
#include "keys.h"
#include "percentile.h"
#include "qual_compile.h"
#include "scan_pages.h"
#include "scan_plan.h"

#define PERCENTILE_SCAN_NAME "GpuSelPercentile"
/* rows the page reader copies per call */
#define PERCENTILE_SCAN_CHUNK_ROWS 65536

/* Positions in CustomScan.custom_private. */
#define PSCAN_PRIV_ATTNO		0	/* Integer: the ORDER BY column */
#define PSCAN_PRIV_TYPID		1	/* Integer: its type */
#define PSCAN_PRIV_DESCENDING	2	/* Integer: 1 for ORDER BY ... DESC */
#define PSCAN_PRIV_FRACTION		3	/* Const: the fraction, float8 or float8[] */

/* Execution state. */
typedef struct PercentileScanState
{
	CustomScanState css;
	Relation	rel;			/* the relation read */
	AttrNumber	attno;
	Oid			typid;
	gs_coltype	coltype;
	bool		descending;
	Const	   *fraction;
	TupleTableSlot *heapslot;	/* tuples that need deforming */
	MemoryContext cxt;			/* keys and the result; reset on rescan */
	bool		done;
	int64		rows_in;
} PercentileScanState;

static Plan *plan_percentile_path(PlannerInfo *root, RelOptInfo *rel,
								  CustomPath *best_path, List *tlist,
								  List *clauses, List *custom_plans);
static Node *percentile_create_state(CustomScan *cscan);
static void percentile_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *percentile_exec(CustomScanState *node);
static void percentile_end(CustomScanState *node);
static void percentile_rescan(CustomScanState *node);
static void percentile_explain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

static CustomPathMethods percentile_path_methods = {
	.CustomName = PERCENTILE_SCAN_NAME,
	.PlanCustomPath = plan_percentile_path,
};

static CustomScanMethods percentile_scan_methods = {
	.CustomName = PERCENTILE_SCAN_NAME,
	.CreateCustomScanState = percentile_create_state,
};

static CustomExecMethods percentile_exec_methods = {
	.CustomName = PERCENTILE_SCAN_NAME,
	.BeginCustomScan = percentile_begin,
	.ExecCustomScan = percentile_exec,
	.EndCustomScan = percentile_end,
	.ReScanCustomScan = percentile_rescan,
	.ExplainCustomScan = percentile_explain,
};

/* Registers the plan node's methods, so plans can be copied and read back. */
void
GpuselPercentileScanInit(void)
{
	RegisterCustomScanMethods(&percentile_scan_methods);
}

/*
 * The Aggref the scan can compute: the grouping step's only output, a
 * gpu_percentile with a constant fraction ordered by a column of the
 * relation whose type has keys, in that type's default order.
 */
static Aggref *
percentile_aggref(PlannerInfo *root, RelOptInfo *rel, Var **var, bool *descending)
{
	PathTarget *target = root->upper_targets[UPPERREL_GROUP_AGG];
	Aggref	   *agg;
	Node	   *direct;
	SortGroupClause *sortcl;
	TargetEntry *tle;
	TypeCacheEntry *tc;
	gs_coltype	coltype;

	if (target == NULL || list_length(target->exprs) != 1 ||
		!IsA(linitial(target->exprs), Aggref))
		return NULL;
	agg = linitial_node(Aggref, target->exprs);
	if (agg->aggkind != AGGKIND_ORDERED_SET || agg->aggfilter != NULL || agg->aggdistinct != NIL ||
		agg->agglevelsup != 0 || agg->aggsplit != AGGSPLIT_SIMPLE ||
		list_length(agg->aggdirectargs) != 1 || list_length(agg->args) != 1 ||
		list_length(agg->aggorder) != 1 || !GpuselIsExtensionFunction(agg->aggfnoid, "gpu_percentile"))
		return NULL;
	direct = linitial(agg->aggdirectargs);
	if (!IsA(direct, Const) ||
		(((Const *) direct)->consttype != FLOAT8OID &&
		 ((Const *) direct)->consttype != FLOAT8ARRAYOID))
		return NULL;

	tle = linitial_node(TargetEntry, agg->args);
	if (!IsA(tle->expr, Var))
		return NULL;
	*var = (Var *) tle->expr;
	if ((*var)->varno != rel->relid || (*var)->varattno <= 0 || (*var)->varlevelsup != 0)
		return NULL;
	if (KeyTypeLookup((*var)->vartype) == NULL ||
		!GpuselTypeIsDeviceable((*var)->vartype, &coltype))
		return NULL;

	sortcl = linitial_node(SortGroupClause, agg->aggorder);
	tc = lookup_type_cache((*var)->vartype, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	if (sortcl->sortop == tc->lt_opr)
		*descending = false;
	else if (sortcl->sortop == tc->gt_opr)
		*descending = true;
	else
		return NULL;
	return agg;
}

/*
 * From the create_upper_paths_hook: offers the scan for a whole-table
 * gpu_percentile.  It costs half a sequential scan of the relation, which
 * is below the Aggregate over a scan it replaces: it does the same page
 * reads without the per-row executor work.
 */
void
GpuselAddPercentilePath(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	RangeTblEntry *rte = planner_rt_fetch(input_rel->relid, root);
	Aggref	   *agg;
	Var		   *var;
	bool		descending;

	if (!gpusel_enable_scan || input_rel->baserestrictinfo != NIL ||
		!GpuselRelIsReadable(input_rel, rte) || input_rel->cheapest_total_path == NULL)
		return;
	agg = percentile_aggref(root, input_rel, &var, &descending);
	if (agg == NULL)
		return;

	GpuselAddUpperPath(output_rel, root->upper_targets[UPPERREL_GROUP_AGG],
					   input_rel->cheapest_total_path->total_cost / 2,
					   list_make4(input_rel, agg, var, makeInteger(descending ? 1 : 0)),
					   &percentile_path_methods);
}

/*
 * PlanCustomPath: a CustomScan with no scan relation of its own, whose
 * one-row output is the aggregate; the column travels in custom_private,
 * and the relation is the one of the Var the aggregate orders by (see
 * GpuselUpperScanRelid).
 */
static Plan *
plan_percentile_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					 List *tlist, List *clauses, List *custom_plans)
{
	Aggref	   *agg = (Aggref *) lsecond(best_path->custom_private);
	Var		   *var = (Var *) lthird(best_path->custom_private);
	int			descending = intVal(lfourth(best_path->custom_private));
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make4(makeInteger(var->varattno),
									   makeInteger((int) var->vartype),
									   makeInteger(descending),
									   copyObject(linitial(agg->aggdirectargs)));
	cscan->custom_scan_tlist = tlist;
	cscan->methods = &percentile_scan_methods;
	return &cscan->scan.plan;
}

/* CreateCustomScanState. */
static Node *
percentile_create_state(CustomScan *cscan)
{
	PercentileScanState *state = palloc0(sizeof(PercentileScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.flags = cscan->flags;
	state->css.methods = &percentile_exec_methods;
	return (Node *) state;
}

/* BeginCustomScan: opens the relation the plan reads. */
static void
percentile_begin(CustomScanState *node, EState *estate, int eflags)
{
	PercentileScanState *state = (PercentileScanState *) node;
	List	   *priv = ((CustomScan *) node->ss.ps.plan)->custom_private;
	Index		relid;
	Relation	rel;

	relid = GpuselUpperScanRelid((CustomScan *) node->ss.ps.plan);
	/* not ss_currentRelation: WHERE CURRENT OF must not take this for a scan */
	rel = ExecOpenScanRelation(estate, relid, eflags);
	state->rel = rel;
	state->attno = intVal(list_nth(priv, PSCAN_PRIV_ATTNO));
	state->typid = (Oid) intVal(list_nth(priv, PSCAN_PRIV_TYPID));
	state->descending = intVal(list_nth(priv, PSCAN_PRIV_DESCENDING)) != 0;
	state->fraction = (Const *) list_nth(priv, PSCAN_PRIV_FRACTION);
	if (!GpuselTypeIsDeviceable(state->typid, &state->coltype))
		elog(ERROR, "gpusel cannot read a column of type %s", format_type_be(state->typid));
	state->heapslot = ExecInitExtraTupleSlot(estate, RelationGetDescr(rel),
											 &TTSOpsBufferHeapTuple);
	state->cxt = AllocSetContextCreate(estate->es_query_cxt, "gpusel percentile scan",
									   ALLOCSET_DEFAULT_SIZES);
}

/* Collects the column of every visible row, page by page, into the state. */
static void
collect_pages(PercentileScanState *state, PercentileState *pstate, Relation rel,
			  Snapshot snapshot)
{
	GpuselPageReader *reader = GpuselPagesBegin(rel, snapshot);
	GpuselProgram *columns = palloc0(sizeof(GpuselProgram));
	GpuselStaging staging;
	int64		n;

	/* the page reader copies the columns a device program reads */
	columns->ncols = 1;
	columns->attnos[0] = state->attno;
	columns->coltypes[0] = state->coltype;
	GpuselPagesSetColumns(reader, columns);

	memset(&staging, 0, sizeof(staging));
	staging.values[0] = palloc(PERCENTILE_SCAN_CHUNK_ROWS * sizeof(int64));
	staging.nulls[0] = palloc(PERCENTILE_SCAN_CHUNK_ROWS);
	staging.has_nulls = palloc0(1);
	staging.tids = palloc(PERCENTILE_SCAN_CHUNK_ROWS * sizeof(ItemPointerData));
	do
	{
		staging.has_nulls[0] = 0;
		n = GpuselPagesFill(reader, &staging, PERCENTILE_SCAN_CHUNK_ROWS, state->heapslot);
		ExecClearTuple(state->heapslot);
		for (int64 i = 0; i < n; i++)
		{
			if (staging.has_nulls[0] && staging.nulls[0][i])
				continue;		/* NULL inputs are skipped, as the aggregate skips them */
			GpuselPercentileAdd(pstate, GpuselLoadValue(staging.values[0], i, state->coltype));
		}
		state->rows_in += n;
	} while (n == PERCENTILE_SCAN_CHUNK_ROWS);
	GpuselPagesEnd(reader);
}

/* Collects the column through the table access method, one slot at a time. */
static void
collect_slots(PercentileScanState *state, PercentileState *pstate, Relation rel,
			  Snapshot snapshot)
{
	TableScanDesc scan = table_beginscan(rel, snapshot, 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	bool		isnull;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		Datum		value = slot_getattr(slot, state->attno, &isnull);

		CHECK_FOR_INTERRUPTS();
		state->rows_in++;
		if (!isnull)
			GpuselPercentileAdd(pstate, value);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
}

/*
 * ExecCustomScan: reads the whole relation, selects, and returns one row
 * whose every column is the aggregate's value, projected into the plan's
 * targetlist.
 */
static TupleTableSlot *
percentile_exec(CustomScanState *node)
{
	PercentileScanState *state = (PercentileScanState *) node;
	ScanState  *ss = &node->ss;
	Relation	rel = state->rel;
	Snapshot	snapshot = ss->ps.state->es_snapshot;
	MemoryContext old;
	PercentileState *pstate;
	Datum		value;
	bool		isnull;

	if (state->done)
		return NULL;
	state->done = true;

	old = MemoryContextSwitchTo(state->cxt);
	pstate = GpuselPercentileCreate(state->cxt, state->typid, state->descending);
	if (GpuselPagesUsable(rel, snapshot))
		collect_pages(state, pstate, rel, snapshot);
	else
		collect_slots(state, pstate, rel, snapshot);
	value = GpuselPercentileResult(pstate, state->fraction->constvalue,
								   state->fraction->constisnull,
								   state->fraction->consttype == FLOAT8ARRAYOID, false, &isnull);
	GpuselPercentileRelease(pstate);
	MemoryContextSwitchTo(old);

	return GpuselReturnAggregateRow(ss, value, isnull);
}

/* ReScanCustomScan: the next call reads the relation again. */
static void
percentile_rescan(CustomScanState *node)
{
	PercentileScanState *state = (PercentileScanState *) node;

	state->done = false;
	state->rows_in = 0;
	MemoryContextReset(state->cxt);
}

/* EndCustomScan: frees the keys; page pins were released by the reader. */
static void
percentile_end(CustomScanState *node)
{
	PercentileScanState *state = (PercentileScanState *) node;

	if (state->cxt != NULL)
		MemoryContextDelete(state->cxt);
	state->cxt = NULL;
}

/* ExplainCustomScan: the relation, the column, and the rows read. */
static void
percentile_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PercentileScanState *state = (PercentileScanState *) node;
	Relation	rel = state->rel;

	ExplainPropertyText("Relation", RelationGetRelationName(rel), es);
	ExplainPropertyText("Device Aggregate",
						psprintf("gpu_percentile(...) WITHIN GROUP (ORDER BY %s%s)",
								 get_attname(RelationGetRelid(rel), state->attno, false),
								 state->descending ? " DESC" : ""),
						es);
	if (es->analyze)
		ExplainPropertyInteger("Rows Scanned", NULL, state->rows_in, es);
}
