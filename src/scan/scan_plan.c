/*
 * scan_plan.c
 *	  Planner side of GpuSelScan: a set_rel_pathlist_hook that offers a
 *	  custom path for heap tables and partitions when part of the WHERE
 *	  clause can run on the device, its cost, and the plan node.
 *
 * Quals are split clause by clause.  A clause goes to the device when the
 * compiler accepts it (qual_compile.c) and either it is wrapped in
 * gpu_filter() or gpusel.enable_scan is on; the rest stay on the CPU, and
 * run after the device quals on the surviving rows.  The device runs its
 * quals ahead of every host qual, so a clause may go there only if it
 * could legally run first: its security_level is the lowest among the
 * relation's quals (row-level security and security-barrier quals), or it
 * is leakproof.  Otherwise it stays on the host, in PostgreSQL's order.
 *
 * A path with a gpu_filter() clause replaces the relation's unparameterized
 * paths, whatever the device: that is what the marker asks for, and it lets
 * a server without a GPU run the same plans on the CPU.  A relation with a
 * WHERE CURRENT OF qual gets no path: only a Tid Scan can run that.  Without a marker
 * the path competes on cost, and only where the GPU would run it: a usable
 * GPU with gpusel.device = auto and at least gpusel.min_rows rows,
 * gpusel.device = gpu, which costs it for the GPU without probing (and
 * raises its error at execution when there is none), or
 * gpusel.plan_as_gpu, with which a server without a GPU plans as one with
 * a GPU would and runs those plans on the CPU.  gpusel.device = gpu
 * does not force the path for ordinary quals: plans of small tables stay
 * PostgreSQL's, so a test suite gives the same plans in every mode.
 */
#include "postgres.h"

#include <math.h>

#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "parser/parsetree.h"
#include "optimizer/restrictinfo.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/spccache.h"

#include "device.h"
#include "guc.h"
#include "qual_compile.h"
#include "scan_plan.h"
#include "scan_source.h"

/*
 * Cost constants, in the planner's units (1.0 = one sequential page read),
 * from measured figures (a serial scan reads about 30 MB of heap
 * per 100 ms: one unit is roughly 1.7 us) and from measurements of this
 * scan on an H200 (10M rows): deforming and staging one column costs about
 * as much as one comparison on the CPU, so the device only pays where the
 * predicate does more work per row than reading its columns.
 */
#define GPUSEL_BATCH_COST		50.0	/* submit, synchronise, result copy per batch */
#define GPUSEL_BYTE_COST		0.00002 /* host-to-device copy, ~25 GB/s pinned */
#define GPUSEL_INSTR_COST		0.00001 /* one program instruction for one row */
#define GPUSEL_COLUMN_FACTOR	1.0		/* deform and store one column value, in cpu_operator_cost */
#define GPUSEL_EMIT_FACTOR		1.0		/* hand on one surviving row, in cpu_operator_cost */
#define GPUSEL_REFETCH_FACTOR	0.25	/* re-reading a surviving tuple, in cpu_tuple_cost */
#define GPUSEL_CACHED_READ		0.05	/* reading a cached table, as a share of its heap read */
#define GPUSEL_CACHED_TEST		0.1		/* a qual over cached columns on the CPU, as a share of its cost */
#define GPUSEL_CACHED_WORKERS	4.0		/* workers started for a cached read, in parallel_setup_cost */
#define GPUSEL_DEVICE_READ		0.005	/* the device reading its own copy of a cached table */

/* One qual of the scan with where it runs. */
typedef struct QualItem
{
	RestrictInfo *rinfo;		/* the clause this qual is, or is a conjunct of */
	Expr	   *clause;			/* as written, gpu_filter() included */
	Expr	   *expr;			/* as the executor evaluates it */
	bool		device;
} QualItem;

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

static List *order_quals_as_postgres(PlannerInfo *root, List *rinfos);
static Plan *plan_gpusel_path(PlannerInfo *root, RelOptInfo *rel,
							  CustomPath *best_path, List *tlist,
							  List *clauses, List *custom_plans);

static CustomPathMethods gpusel_path_methods = {
	.CustomName = GPUSEL_SCAN_NAME,
	.PlanCustomPath = plan_gpusel_path,
};

/* Whether the relation is a heap table (or partition) the scan can read. */
bool
GpuselRelIsReadable(RelOptInfo *rel, RangeTblEntry *rte)
{
	Relation	relation;
	bool		heap;

	if (rel->reloptkind != RELOPT_BASEREL &&
		rel->reloptkind != RELOPT_OTHER_MEMBER_REL)
		return false;
	if (rte->rtekind != RTE_RELATION || rte->inh || rte->tablesample != NULL)
		return false;
	if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW)
		return false;
	if (IS_DUMMY_REL(rel) || IsCatalogRelationOid(rte->relid))
		return false;
	/* LATERAL references need parameterized paths, which the scan has not */
	if (!bms_is_empty(rel->lateral_relids))
		return false;

	/* the planner holds a lock already */
	relation = table_open(rte->relid, NoLock);
	heap = relation->rd_rel->relam == HEAP_TABLE_AM_OID;
	table_close(relation, NoLock);
	return heap;
}

/* Expression walker: whether a node with the tag *context appears in the tree. */
static bool
contains_node_tag(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (nodeTag(node) == *(NodeTag *) context)
		return true;
	return expression_tree_walker(node, contains_node_tag, context);
}

/* Whether the relation is readable and has quals the device might run. */
static bool
rel_is_candidate(RelOptInfo *rel, RangeTblEntry *rte)
{
	NodeTag		current_of = T_CurrentOfExpr;
	ListCell   *lc;

	if (rel->baserestrictinfo == NIL || !GpuselRelIsReadable(rel, rte))
		return false;
	/* WHERE CURRENT OF runs only in a Tid Scan, which a marked path would remove */
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (contains_node_tag((Node *) rinfo->clause, &current_of))
			return false;
	}
	return true;
}

/* check_functions_in_node callback: whether a function is not leakproof. */
static bool
function_may_fail(Oid funcid, void *context)
{
	return !get_func_leakproof(funcid);
}

/*
 * Expression walker: whether evaluating the expression might raise an
 * error, for any row or parameter value.  Only leakproof functions are
 * known never to fail; every node type not listed as harmless counts as
 * one that may fail (subplans, coercions to domains, row comparisons...).
 */
bool
GpuselExprMayFail(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Param:
			/* an initplan's output runs its subquery on first use */
			if (((Param *) node)->paramkind == PARAM_EXEC)
				return true;
			break;
		case T_Var:
		case T_Const:
		case T_List:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CaseTestExpr:
		case T_CoalesceExpr:
			break;
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
			if (check_functions_in_node(node, function_may_fail, NULL))
				return true;
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, GpuselExprMayFail, context);
}

/*
 * The conjuncts of a clause, in order: gpu_filter(A AND B AND C) becomes
 * gpu_filter(A), gpu_filter(B), gpu_filter(C), so that one term the device
 * cannot run does not keep the others on the host.  In a WHERE clause a row
 * passes the AND exactly when it passes every term, and PostgreSQL's AND
 * evaluates its terms left to right as a list of quals does.  Any other
 * clause is its own only conjunct.
 */
static List *
marked_conjuncts(Expr *clause, Oid marker)
{
	FuncExpr   *f;
	BoolExpr   *b;
	List	   *out = NIL;
	ListCell   *lc;

	if (!IsA(clause, FuncExpr))
		return list_make1(clause);
	f = (FuncExpr *) clause;
	if (f->funcid != marker || list_length(f->args) != 1 ||
		!is_andclause(linitial(f->args)))
		return list_make1(clause);
	b = (BoolExpr *) linitial(f->args);
	foreach(lc, b->args)
	{
		FuncExpr   *term = (FuncExpr *) copyObject(f);

		term->args = list_make1(lfirst(lc));
		out = list_concat(out, marked_conjuncts((Expr *) term, marker));
	}
	return out;
}

/*
 * Splits the scan's RestrictInfos, in the given order (PostgreSQL's
 * evaluation order), into device and host quals.  *any_marked tells whether a device qual carries
 * gpu_filter().  When the device quals together exceed the program's
 * limits, the last ones move to the host until the rest fit.
 */
static List *
split_quals(RelOptInfo *rel, List *rinfos, bool *any_marked)
{
	List	   *items = NIL;
	List	   *device = NIL;
	bool		blocked = false;
	ListCell   *lc;

	*any_marked = false;
	foreach(lc, rinfos)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		ListCell   *tc;

		if (rinfo->pseudoconstant)
			continue;			/* a gating Result node checks these */
		foreach(tc, marked_conjuncts(rinfo->clause, GpuselFilterFuncOid()))
		{
			Expr	   *clause = (Expr *) lfirst(tc);
			QualItem   *item = palloc0(sizeof(QualItem));
			bool		marked;

			marked = GpuselExprHasMarker((Node *) clause);
			item->rinfo = rinfo;
			item->clause = clause;
			item->expr = clause;
			item->device = !blocked && (marked || gpusel_enable_scan) &&
				(rinfo->security_level <= rel->baserestrict_min_security ||
				 rinfo->leakproof) &&
				GpuselQualIsDeviceable(clause, rel->relid);

			/*
			 * Device quals run before every host qual.  A host qual that
			 * PostgreSQL evaluates earlier may be skipped for the rows the
			 * device rejects only if skipping it cannot hide an error or a
			 * side effect; after any other host qual, the rest stay on the
			 * host.  A qual that fails only through a parameter or constant
			 * counts too: PostgreSQL raises its error on the first row it
			 * evaluates.
			 */
			if (!item->device &&
				(GpuselExprMayFail((Node *) clause, NULL) ||
				 contain_volatile_functions((Node *) clause)))
				blocked = true;
			if (item->device)
			{
				item->expr = GpuselStripMarker(clause);
				device = lappend(device, item);
				*any_marked |= marked;
			}
			items = lappend(items, item);
		}
	}

	/* the whole program must fit too */
	while (device != NIL)
	{
		List	   *exprs = NIL;
		GpuselProgram *prog;

		foreach(lc, device)
			exprs = lappend(exprs, ((QualItem *) lfirst(lc))->expr);
		prog = GpuselCompileQuals(exprs, rel->relid);
		if (prog != NULL)
			break;
		((QualItem *) llast(device))->device = false;
		device = list_delete_last(device);
	}

	/* a clause moved back keeps its original form, marker included */
	foreach(lc, items)
	{
		QualItem   *item = lfirst(lc);

		if (!item->device)
			item->expr = item->clause;
	}
	if (device == NIL)
		*any_marked = false;
	return items;
}

/* The expressions of the items that run on the device (or on the host). */
static List *
item_exprs(List *items, bool device)
{
	List	   *exprs = NIL;
	ListCell   *lc;

	foreach(lc, items)
	{
		QualItem   *item = lfirst(lc);

		if (item->device == device)
			exprs = lappend(exprs, item->expr);
	}
	return exprs;
}

/* Whether the relation's rows come from the column cache. */
static bool
rel_is_cached(PlannerInfo *root, RelOptInfo *rel)
{
	return GpuselSourceProvided(planner_rt_fetch(rel->relid, root)->relid);
}

/*
 * The share of a heap read that reading the relation costs: less for a
 * table in the column cache, read as columns in memory, not as pages.
 */
double
GpuselReadCostFactor(PlannerInfo *root, RelOptInfo *rel)
{
	return rel_is_cached(root, rel) ? GPUSEL_CACHED_READ : 1.0;
}

/*
 * What starting a parallel plan's workers costs beyond parallel_setup_cost:
 * a cached table's read is fast enough that the workers' start (forks, an
 * attach to the cache each, runs staged for the leader; 10-15 ms measured
 * on a small machine) outweighs it on small tables.  Workers start side by
 * side, so the charge is once, in shares of parallel_setup_cost; nothing
 * for a heap read.
 */
double
GpuselParallelWorkersCost(PlannerInfo *root, RelOptInfo *rel)
{
	return rel_is_cached(root, rel) ? GPUSEL_CACHED_WORKERS * parallel_setup_cost : 0.0;
}

/*
 * The cost of reading every tuple of the relation and filtering it.  Both
 * sides read every page and pay for every tuple the table access method
 * returns.  On the GPU a row then costs the stores of its device columns,
 * their bytes over the bus and the program's instructions, plus a setup and
 * a per-batch charge, instead of evaluating the device quals; surviving rows
 * are re-read when a column is needed above the scan, and pay for the host
 * quals.  The CPU path evaluates all quals per row, as a sequential scan
 * does.
 */
static void
cost_filtered_read(PlannerInfo *root, RelOptInfo *rel, List *device_quals,
				   List *host_quals, bool on_gpu, bool needs_tuples,
				   Cost *startup_cost, Cost *run_cost)
{
	double		tuples = rel->tuples;
	double		spc_seq_page_cost;
	QualCost	dcost;
	QualCost	hcost;
	Selectivity sel;
	double		survivors;
	Cost		startup = 0;
	Cost		run;
	bool		cached = rel_is_cached(root, rel);
	bool		resident;

	get_tablespace_page_costs(rel->reltablespace, NULL, &spc_seq_page_cost);
	cost_qual_eval(&dcost, device_quals, root);
	cost_qual_eval(&hcost, host_quals, root);
	sel = clauselist_selectivity(root, device_quals, rel->relid, JOIN_INNER, NULL);
	survivors = clamp_row_est(tuples * sel);

	resident = on_gpu && device_quals != NIL &&
		GpuselSourceProvidedOnDevice(planner_rt_fetch(rel->relid, root)->relid);
	run = spc_seq_page_cost * rel->pages + cpu_tuple_cost * tuples;
	run *= resident ? GPUSEL_DEVICE_READ : cached ? GPUSEL_CACHED_READ : 1.0;
	/* it reads every page as a sequential scan does, and is disabled with it */
	if (!enable_seqscan)
		startup += disable_cost;
	if (on_gpu && device_quals != NIL)
	{
		GpuselProgram *prog = GpuselCompileQuals(device_quals, rel->relid);
		double		row_bytes = 0;
		double		batches = Max(1.0, ceil(tuples / gpusel_batch_rows));

		Assert(prog != NULL);
		for (int c = 0; c < prog->ncols; c++)
			row_bytes += GpuselColumnWidth(prog->coltypes[c]) + 1;
		startup += gpusel_device_setup_cost;
		/* columns in device memory already are neither stored nor moved */
		if (resident)
			row_bytes = 0;
		run += tuples * ((resident ? 0 : prog->ncols * GPUSEL_COLUMN_FACTOR * cpu_operator_cost) +
						 (row_bytes + sel * sizeof(uint32)) * GPUSEL_BYTE_COST +
						 prog->ncode * GPUSEL_INSTR_COST);
		run += batches * GPUSEL_BATCH_COST;
		run += survivors * GPUSEL_EMIT_FACTOR * cpu_operator_cost;
		if (needs_tuples)
			run += survivors * GPUSEL_REFETCH_FACTOR * cpu_tuple_cost;
		startup += dcost.startup;
	}
	else
	{
		/* over cached columns the CPU runs its column tests straight through a block */
		startup += dcost.startup;
		run += tuples * dcost.per_tuple * (cached ? GPUSEL_CACHED_TEST : 1.0);
	}
	startup += hcost.startup;
	run += survivors * hcost.per_tuple;
	*startup_cost = startup;
	*run_cost = run;
}

/* Costs the scan's path: the filtered read, then its projection. */
static void
cost_gpusel_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *cpath,
				 List *device_quals, List *host_quals, bool on_gpu,
				 bool needs_tuples)
{
	Path	   *path = &cpath->path;
	Cost		startup;
	Cost		run;

	cost_filtered_read(root, rel, device_quals, host_quals, on_gpu, needs_tuples,
					   &startup, &run);
	startup += path->pathtarget->cost.startup;
	run += path->pathtarget->cost.per_tuple * path->rows;
	path->startup_cost = startup;
	path->total_cost = startup + run;
}

/*
 * The cost of the grouped scan's read of the whole relation with 'quals',
 * those flagged in 'device_flags' running as device quals and the rest on
 * the host per surviving row.  The grouped scan decides at execution
 * whether a batch goes to the GPU (gpusel.min_rows), so where the planner
 * plans for a GPU the read costs the cheaper of the two paths: a small
 * table does not pay the device's setup.
 */
Cost
GpuselFilteredReadCost(PlannerInfo *root, RelOptInfo *rel, List *quals,
					   List *device_flags)
{
	List	   *device_quals = NIL;
	List	   *host_quals = NIL;
	ListCell   *lq;
	ListCell   *lf;
	Cost		startup;
	Cost		run;
	Cost		best;

	forboth(lq, quals, lf, device_flags)
	{
		if (lfirst_int(lf))
			device_quals = lappend(device_quals, lfirst(lq));
		else
			host_quals = lappend(host_quals, lfirst(lq));
	}
	cost_filtered_read(root, rel, device_quals, host_quals, false, host_quals != NIL,
					   &startup, &run);
	best = startup + run;
	if (GpuselPlanForGpu(rel->tuples))
	{
		cost_filtered_read(root, rel, device_quals, host_quals, true, host_quals != NIL,
						   &startup, &run);
		best = Min(best, startup + run);
	}
	return best;
}

/* Whether any column of the relation is read above the device filter. */
static bool
scan_needs_tuples(RelOptInfo *rel, List *host_quals)
{
	Bitmapset  *attrs = NULL;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	pull_varattnos((Node *) host_quals, rel->relid, &attrs);
	return attrs != NULL;
}

/*
 * Whether the scan can return every column the query reads: its virtual
 * output slot carries user columns, ctid and tableoid, but not xmin, xmax,
 * cmin or cmax.
 */
static bool
output_supported(RelOptInfo *rel)
{
	Bitmapset  *attrs = NULL;
	int			k = -1;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	while ((k = bms_next_member(attrs, k)) >= 0)
	{
		AttrNumber	attno = k + FirstLowInvalidHeapAttributeNumber;

		if (attno < 0 && attno != SelfItemPointerAttributeNumber &&
			attno != TableOidAttributeNumber)
			return false;
	}
	return true;
}

/* Drops the paths a marked scan replaces: all unparameterized and partial ones. */
static void
remove_competing_paths(RelOptInfo *rel)
{
	List	   *keep = NIL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if (path->param_info != NULL)
			keep = lappend(keep, path);
	}
	rel->pathlist = keep;
	rel->partial_pathlist = NIL;
}

/*
 * Whether an EvalPlanQual recheck can fetch this relation's row.  A table
 * that is read but not locked (UPDATE ... FROM, a MERGE source, FOR UPDATE
 * OF another table) has its row re-fetched into the scan node's own scan
 * slot, which is virtual for a custom scan in PostgreSQL 15: the heap cannot
 * store a tuple there, so such a relation keeps PostgreSQL's paths.
 */
static bool
epq_fetch_supported(PlannerInfo *root, Index rti)
{
	PlanRowMark *rc = get_plan_rowmark(root->rowMarks, rti);

	return rc == NULL ||
		(rc->markType != ROW_MARK_REFERENCE && rc->markType != ROW_MARK_COPY);
}

/* set_rel_pathlist_hook: offers a GpuSelScan path for a heap relation. */
static void
gpusel_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
						RangeTblEntry *rte)
{
	List	   *items;
	List	   *device_quals;
	List	   *host_quals;
	bool		any_marked;
	bool		forced;
	bool		on_gpu;
	CustomPath *cpath;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (!rel_is_candidate(rel, rte) || !OidIsValid(GpuselFilterFuncOid()) ||
		!output_supported(rel) || !epq_fetch_supported(root, rti))
		return;

	items = split_quals(rel, order_quals_as_postgres(root, rel->baserestrictinfo),
						&any_marked);
	device_quals = item_exprs(items, true);
	if (device_quals == NIL)
		return;
	host_quals = item_exprs(items, false);

	forced = any_marked;
	on_gpu = GpuselPlanForGpu(rel->tuples);
	if (!forced && !on_gpu)
		return;

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	/* one CUDA context per backend: workers would each pay for their own */
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = rel->rows;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = NIL;
	cpath->custom_private = NIL;
	cpath->methods = &gpusel_path_methods;
	cost_gpusel_path(root, rel, cpath, device_quals, host_quals, on_gpu,
					 scan_needs_tuples(rel, host_quals));

	if (forced)
		remove_competing_paths(rel);
	add_path(rel, &cpath->path);
}

/*
 * PlanCustomPath: builds the CustomScan.  The clauses arrive sorted into
 * PostgreSQL's execution order; the split is redone on that order, so the
 * executor sees the quals as a sequential scan would evaluate them.
 */
static Plan *
plan_gpusel_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				 List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *items;
	List	   *exprs = NIL;
	List	   *device_flags = NIL;
	bool		any_marked;
	int			flags = 0;
	ListCell   *lc;

	items = split_quals(rel, clauses, &any_marked);
	foreach(lc, items)
	{
		QualItem   *item = lfirst(lc);

		exprs = lappend(exprs, item->expr);
		device_flags = lappend_int(device_flags, item->device ? 1 : 0);
	}
	if (scan_needs_tuples(rel, item_exprs(items, false)))
		flags |= GPUSEL_SCAN_NEEDS_TUPLES;
	if (any_marked)
		flags |= GPUSEL_SCAN_MARKED;

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = exprs;
	cscan->custom_private = list_make3(device_flags,
									   makeInteger(flags),
									   makeFloat(psprintf("%.1f", rel->tuples)));
	cscan->custom_scan_tlist = NIL;
	cscan->methods = &gpusel_scan_methods;
	return &cscan->scan.plan;
}

/*
 * Puts RestrictInfos into the order PostgreSQL evaluates a scan's quals in
 * (createplan.c's order_qual_clauses): by security level, then by cost,
 * stably; a cheap leakproof clause counts as level 0.
 */
static List *
order_quals_as_postgres(PlannerInfo *root, List *rinfos)
{
	int			n = list_length(rinfos);
	RestrictInfo **items = palloc(sizeof(RestrictInfo *) * Max(n, 1));
	Index	   *levels = palloc(sizeof(Index) * Max(n, 1));
	Cost	   *costs = palloc(sizeof(Cost) * Max(n, 1));
	List	   *result = NIL;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, rinfos)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		QualCost	qcost;
		int			j = i;

		cost_qual_eval_node(&qcost, (Node *) rinfo, root);
		/* insertion sort on (level, cost) keeps equal items in order */
		while (j > 0 &&
			   ((rinfo->leakproof && qcost.per_tuple < 10 * cpu_operator_cost ? 0 :
				 rinfo->security_level) < levels[j - 1] ||
				((rinfo->leakproof && qcost.per_tuple < 10 * cpu_operator_cost ? 0 :
				  rinfo->security_level) == levels[j - 1] &&
				 qcost.per_tuple < costs[j - 1])))
		{
			items[j] = items[j - 1];
			levels[j] = levels[j - 1];
			costs[j] = costs[j - 1];
			j--;
		}
		items[j] = rinfo;
		levels[j] = (rinfo->leakproof && qcost.per_tuple < 10 * cpu_operator_cost) ?
			0 : rinfo->security_level;
		costs[j] = qcost.per_tuple;
		i++;
	}
	for (i = 0; i < n; i++)
		result = lappend(result, items[i]);
	return result;
}

/*
 * The quals of a scan planned at the grouping step (scanrelid 0), in
 * PostgreSQL's order, with a 1 in *device_flags where a qual runs on the
 * device, as split_quals decides.  Returns false where such a scan cannot take them: a
 * pseudoconstant, WHERE CURRENT OF, or a subplan, which would need setrefs
 * to see the quals.
 */
bool
GpuselUpperQuals(PlannerInfo *root, RelOptInfo *rel, List **exprs, List **device_flags,
				 bool *any_marked)
{
	NodeTag		current_of = T_CurrentOfExpr;
	List	   *items;
	ListCell   *lc;

	*exprs = NIL;
	*device_flags = NIL;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant || contain_subplans((Node *) rinfo->clause) ||
			contains_node_tag((Node *) rinfo->clause, &current_of))
			return false;
	}
	items = split_quals(rel, order_quals_as_postgres(root, rel->baserestrictinfo), any_marked);
	foreach(lc, items)
	{
		QualItem   *item = lfirst(lc);

		*exprs = lappend(*exprs, item->expr);
		*device_flags = lappend_int(*device_flags, item->device ? 1 : 0);
	}
	return true;
}

/* Installs the planner hook and registers the scan's methods. */
void
GpuselScanInit(void)
{
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = gpusel_set_rel_pathlist;
	GpuselScanExecInit();
}
