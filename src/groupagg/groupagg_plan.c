/*
 * groupagg_plan.c
 *	  Planner side of GpuSelScan's aggregate sink: recognises
 *
 *	   SELECT <keys>, <aggregates> FROM <one table> [WHERE ...]
 *	   GROUP BY <keys> [HAVING ...]
 *
 * at the grouping step and offers one path that scans, filters, groups and
 * aggregates, costed against PostgreSQL's own grouping paths.
 *
 * What it takes: group keys and aggregate inputs that are expressions over
 * the one relation of a type the scan reads natively (bool, int2/4/8,
 * float4/8, date, timestamp, timestamptz), grouped by the type's default
 * equality; count(*), count(x), sum, avg, min and max of those types;
 * gpu_percentile and gpu_percentile_cont (also the built-ins, through
 * gpusel.replace_builtin_percentiles) with a constant fraction and the
 * type's default order.  Anything else (DISTINCT, FILTER, ORDER BY inside
 * an ordinary aggregate, grouping sets, other types or aggregates, a
 * volatile or set-returning expression, a column that is neither a key nor
 * inside an aggregate) leaves the query to PostgreSQL's plan.
 */
#include "postgres.h"

#include <math.h>

#include "access/sysattr.h"
#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"
#include "parser/parse_clause.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "device.h"
#include "groupagg.h"
#include "scan_source.h"
#include "guc.h"
#include "order_keys.h"
#include "percentile_builtins.h"
#include "numeric_form.h"
#include "qual_compile.h"
#include "qual_numeric.h"
#include "scan_plan.h"

/*
 * Cost factors, in cpu_operator_cost per row: putting a row into its group
 * (hash and probe, per key) and updating one aggregate cell.  They are
 * below PostgreSQL's per-row charges for the same work, which go through a
 * slot, a projection and a function call per aggregate.  Selecting a
 * group's percentiles is linear in its rows and costs less than its
 * collection; PostgreSQL charges nothing for its sort there either.
 */
#define GROUPAGG_KEY_FACTOR		0.5
#define GROUPAGG_AGG_FACTOR		0.25

/* What the planner collected about a candidate query. */
typedef struct GroupAggShape
{
	Index		relid;
	List	   *keys;			/* group key expressions */
	List	   *aggs;			/* distinct Aggrefs of the target and HAVING */
} GroupAggShape;

static Plan *plan_groupagg_path(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans);

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;

static CustomPathMethods groupagg_path_methods = {
	.CustomName = GPUSEL_SCAN_NAME,
	.PlanCustomPath = plan_groupagg_path,
};

/*
 * Whether an expression can be evaluated per row on the relation's tuples:
 * Vars of that relation only (no system columns but none are needed), no
 * volatile function, no subplan, aggregate, window function or SRF.
 */
static bool
input_is_evaluable(Expr *expr, Index relid)
{
	List	   *vars;
	ListCell   *lc;

	if (contain_volatile_functions((Node *) expr) || contain_subplans((Node *) expr) ||
		contain_agg_clause((Node *) expr) || contain_window_function((Node *) expr) ||
		expression_returns_set((Node *) expr))
		return false;
	vars = pull_var_clause((Node *) expr, 0);
	foreach(lc, vars)
	{
		Var		   *var = lfirst_node(Var, lc);

		if (var->varno != relid || var->varlevelsup != 0 || var->varattno < 0)
			return false;
	}
	return true;
}

/* Walker context: collects Aggrefs and checks every column is covered. */
typedef struct CoverContext
{
	List	   *keys;
	List	   *aggs;
	bool		ok;
} CoverContext;

/*
 * Walker over the target and HAVING: an expression equal to a group key,
 * or an Aggref, is covered; a Var met outside both (a column that depends
 * functionally on a primary key) is not, and neither is a
 * PlaceHolderVar or grouping function.
 */
static bool
cover_walker(Node *node, CoverContext *cxt)
{
	if (node == NULL || !cxt->ok)
		return false;
	if (list_member(cxt->keys, node))
		return false;
	if (IsA(node, Aggref))
	{
		cxt->aggs = list_append_unique(cxt->aggs, node);
		return false;
	}
	if (IsA(node, Var) || IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc) ||
		IsA(node, WindowFunc) || IsA(node, SubPlan))
	{
		cxt->ok = false;
		return false;
	}
	return expression_tree_walker(node, cover_walker, cxt);
}

/*
 * Collects the group keys and aggregates of the query when the sink can
 * answer it whole; false otherwise.
 */
static bool
collect_shape(PlannerInfo *root, RelOptInfo *rel, Node *having, GroupAggShape *shape)
{
	Query	   *parse = root->parse;
	PathTarget *target = root->upper_targets[UPPERREL_GROUP_AGG];
	ListCell   *lc;

	memset(shape, 0, sizeof(*shape));
	shape->relid = rel->relid;
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);
		Oid			typid = exprType((Node *) expr);
		TypeCacheEntry *tc;
		GpuselFormChoice choice;

		/*
		 * a key of a device type, or a column of a form groups take (a short
		 * char(n) column keyed by its bytes, a text column numbered by a
		 * dictionary)
		 */
		if (!(GpuselTypeIsDeviceable(typid, NULL) ||
			  (IsA(expr, Var) &&
			   GpuselChooseForm(typid, ((Var *) expr)->vartypmod, ((Var *) expr)->varcollid,
								GPUSEL_USE_GROUP, 0, &choice))) ||
			!input_is_evaluable(expr, rel->relid))
			return false;
		tc = lookup_type_cache(typid, TYPECACHE_EQ_OPR);
		if (sgc->eqop != tc->eq_opr)
			return false;
		shape->keys = lappend(shape->keys, expr);
	}
	if (list_length(shape->keys) > GS_MAX_PROGRAM_LENGTH / 2)
		return false;

	if (!GroupAggCollectAggrefs(shape->keys, target->exprs, having, &shape->aggs))
		return false;

	foreach(lc, shape->aggs)
	{
		Aggref	   *agg = lfirst_node(Aggref, lc);
		GroupAggKind kind;
		bool		descending;
		Expr	   *input = GroupAggAggrefInput(agg);

		if (!GpuselGroupAggClassify(agg, &kind, &descending))
			return false;
		if (input != NULL && !input_is_evaluable(input, rel->relid))
			return false;
	}
	return true;
}

/*
 * Collects the distinct Aggrefs of a grouping step's target expressions and
 * HAVING into *aggs; false where a column (or a grouping function, window
 * function or subplan) stands outside both the group keys and an
 * aggregate.  Shared by the plans that answer a whole grouping step.
 */
bool
GroupAggCollectAggrefs(List *keys, List *exprs, Node *having, List **aggs)
{
	CoverContext cxt;
	ListCell   *lc;

	cxt.keys = keys;
	cxt.aggs = NIL;
	cxt.ok = true;
	foreach(lc, exprs)
		cover_walker(lfirst(lc), &cxt);
	cover_walker(having, &cxt);
	*aggs = cxt.aggs;
	return cxt.ok;
}

/*
 * Whether the query's result may be cut short after its first groups in
 * PostgreSQL's plan: a LIMIT (or a cursor, or an outer LIMIT passed down)
 * over groups returned in the order of their keys, as a GroupAggregate
 * over a sort returns them, stops reading before the later groups' rows
 * and their inputs are computed.
 */
static bool
may_stop_early(PlannerInfo *root, GroupAggShape *shape)
{
	Query	   *parse = root->parse;
	ListCell   *lc;

	if (root->tuple_fraction <= 0 || shape->keys == NIL)
		return false;
	foreach(lc, parse->sortClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

		if (!list_member(shape->keys, get_sortgroupclause_expr(sgc, parse->targetList)))
			return false;
	}
	return true;
}

/* Mutator: an Aggref becomes a NULL of its type, for GpuselExprMayFail over what is above it. */
static Node *
aggrefs_to_nulls(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
		return (Node *) makeNullConst(((Aggref *) node)->aggtype, -1,
									  ((Aggref *) node)->aggcollid);
	return expression_tree_mutator(node, aggrefs_to_nulls, context);
}

/*
 * Whether computing some group could raise an error: a key or aggregate
 * input that may fail, a float sum or average (which raise on overflow),
 * or an expression over the aggregates in the target list or HAVING.
 */
static bool
groups_may_fail(GroupAggShape *shape, List *target_exprs, Node *having)
{
	ListCell   *lc;

	foreach(lc, shape->keys)
		if (GpuselExprMayFail(lfirst(lc), NULL))
			return true;
	foreach(lc, shape->aggs)
	{
		Aggref	   *agg = lfirst_node(Aggref, lc);
		GroupAggKind kind;
		bool		descending;
		Expr	   *input = GroupAggAggrefInput(agg);

		if (!GpuselGroupAggClassify(agg, &kind, &descending) ||
			GroupAggKindHas(kind, GROUPAGG_MAY_FAIL) ||
			(input != NULL && GpuselExprMayFail((Node *) input, NULL)))
			return true;
	}
	return GpuselExprMayFail(aggrefs_to_nulls((Node *) target_exprs, NULL), NULL) ||
		GpuselExprMayFail(aggrefs_to_nulls(having, NULL), NULL);
}

/* Whether every group key is a plain column. */
static bool
keys_are_columns(List *keys)
{
	ListCell   *lc;

	foreach(lc, keys)
		if (!IsA(lfirst(lc), Var))
			return false;
	return true;
}

/* The number of ordered-set aggregates: at most one percentile collection each. */
static int
count_collections(List *aggs)
{
	int			n = 0;
	ListCell   *lc;

	foreach(lc, aggs)
		if (lfirst_node(Aggref, lc)->aggkind == AGGKIND_ORDERED_SET)
			n++;
	return n;
}

/* Whether the query is count(*) alone, without group keys. */
static bool
counts_only(GroupAggShape *shape)
{
	ListCell   *lc;

	if (shape->keys != NIL)
		return false;
	foreach(lc, shape->aggs)
	{
		GroupAggKind kind;
		bool		descending;

		if (!GpuselGroupAggClassify(lfirst_node(Aggref, lc), &kind, &descending) ||
			kind != GROUPAGG_COUNT_STAR)
			return false;
	}
	return true;
}

/*
 * Whether the device groups percentile keys of this column's type
 * (groupagg_batch.c's device_key_kind): a numeric column's if it has at most
 * 18 digits, read as scaled int8.
 */
static bool
device_key_type(Node *column)
{
	int32		typmod = exprTypmod(column);

	switch (exprType(column))
	{
		case NUMERICOID:
			return typmod >= (int32) VARHDRSZ && ((typmod - VARHDRSZ) >> 16) <= 18;
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

/*
 * Whether a numeric input is one the device's sum programs take
 * (groupagg_numeric.c's native expressions): numeric columns read as
 * scaled int8 whole, numeric constants, and + - * and unary minus over
 * them, in at most GS_SUM_MAX_CODE steps (*steps counts them).
 */
static bool
numeric_program_input(Expr *expr, int *steps)
{
	gs_arith_op op;
	List	   *args;
	ListCell   *lc;
	int			scale;

	if (++*steps > GS_SUM_MAX_CODE)
		return false;
	if (IsA(expr, Var))
		return GpuselNumericScale(((Var *) expr)->vartype, ((Var *) expr)->vartypmod, &scale);
	if (IsA(expr, Const))
		return ((Const *) expr)->consttype == NUMERICOID && !((Const *) expr)->constisnull;
	if (!GpuselNumericArith(expr, &op, &args) ||
		(op != GS_ARITH_ADD && op != GS_ARITH_SUB && op != GS_ARITH_MUL && op != GS_ARITH_NEG))
		return false;
	foreach(lc, args)
		if (!numeric_program_input((Expr *) lfirst(lc), steps))
			return false;
	return true;
}

/*
 * Whether the device sums this aggregate, as far as the plan shows
 * (groupagg_devsum.c decides): a sum or average of a numeric input its
 * programs take, or one of an integer column.
 */
static bool
summed_on_device(Aggref *agg, GroupAggKind kind)
{
	Expr	   *input = GroupAggAggrefInput(agg);
	int			steps = 0;

	if (input == NULL)
		return false;
	if (GroupAggKindHas(kind, GROUPAGG_NUMERIC_SUM))
		return numeric_program_input(input, &steps);
	return (kind == GROUPAGG_SUM_INT || kind == GROUPAGG_SUM_INT8 || kind == GROUPAGG_AVG_INT) &&
		IsA(input, Var);
}

/*
 * Whether the device aggregates the shape's rows where they lie, so
 * reading the table's columns in device memory moves nothing to the host
 * per row: count(*) alone; or at most GS_GROUP_MAX_KEYS keys (columns, or
 * expressions of one the device computes: GroupAggDeviceKeyParse) with
 * count(*), sums the device takes (at most GS_SUM_MAX_EXPRS) and
 * percentiles of one column of a type the device maps, with count() of
 * that column (groupagg_devsum.c, groupagg_batch.c).
 */
static bool
aggregates_on_device(GroupAggShape *shape)
{
	Node	   *input = NULL;
	List	   *summed = NIL;
	List	   *counted = NIL;
	ListCell   *lc;

	if (counts_only(shape))
		return true;
	if (!gpusel_group_on_device && (shape->keys != NIL || count_collections(shape->aggs) > 0))
		return false;
	if (list_length(shape->keys) > GS_GROUP_MAX_KEYS)
		return false;
	/* a key is a column, or an expression of one the device computes (k % 10000, date_trunc) */
	foreach(lc, shape->keys)
	{
		Var		   *var;
		gs_key_transform transform;

		if (!IsA(lfirst(lc), Var) && !GroupAggDeviceKeyParse(lfirst(lc), &var, &transform))
			return false;
	}
	foreach(lc, shape->aggs)
	{
		Aggref	   *agg = lfirst_node(Aggref, lc);
		GroupAggKind kind;
		bool		descending;
		Node	   *arg;

		if (!GpuselGroupAggClassify(agg, &kind, &descending))
			return false;
		if (kind == GROUPAGG_COUNT_STAR)
			continue;
		if (summed_on_device(agg, kind))
		{
			summed = list_append_unique(summed, GroupAggAggrefInput(agg));
			continue;
		}
		/* count(x) of the percentiles' column is the device's tally of their keys */
		if (kind == GROUPAGG_COUNT)
		{
			counted = list_append_unique(counted, GroupAggAggrefInput(agg));
			continue;
		}
		if (agg->aggkind != AGGKIND_ORDERED_SET || list_length(agg->args) < 1)
			return false;
		arg = (Node *) llast_node(TargetEntry, agg->args)->expr;
		if (!IsA(arg, Var) || !device_key_type(arg) ||
			(input != NULL && !equal(input, arg)))
			return false;
		input = arg;
	}
	/* sums of one input share a program */
	if (list_length(summed) > GS_SUM_MAX_EXPRS)
		return false;
	foreach(lc, counted)
		if (input == NULL || !equal(lfirst(lc), input))
			return false;
	return shape->keys != NIL || input != NULL || summed != NIL;
}

/*
 * Whether the scan reads the table's copy in device memory with the device
 * aggregating its rows: a shape the device aggregates over a table held
 * there.  count(*) without quals counts the copy's rows without reading
 * them, and is not such a scan.
 */
static bool
reads_device_copy(PlannerInfo *root, GroupAggShape *shape, List *quals, double rows)
{
	return (quals != NIL || !counts_only(shape)) && GpuselPlanForGpu(rows) &&
		aggregates_on_device(shape) &&
		GpuselSourceProvidedOnDevice(planner_rt_fetch(shape->relid, root)->relid);
}

/*
 * The grouped scan's path for 'shape', answering the grouping step whole;
 * nothing comes out before the whole relation is read.
 */
static CustomPath *
make_groupagg_path(PlannerInfo *root, RelOptInfo *output_rel, GroupAggShape *shape,
				   Node *having, double groups, Cost cost)
{
	CustomPath *cpath = makeNode(CustomPath);
	RelOptInfo *input_rel = find_base_rel(root, shape->relid);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = root->upper_targets[UPPERREL_GROUP_AGG];
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = clamp_row_est(groups);
	cpath->path.pathkeys = NIL;
	cpath->path.startup_cost = cost;
	cpath->path.total_cost = cost;
	cpath->flags = 0;
	cpath->custom_paths = NIL;
	cpath->custom_private = list_make5(input_rel, shape->keys, shape->aggs, having, NIL);
	cpath->methods = &groupagg_path_methods;
	return cpath;
}

/*
 * The share of a parallel scan's rows one process handles, as PostgreSQL
 * reckons it: the leader, busy with the Gather too, counts less the more
 * workers there are.
 */
static double
parallel_divisor(int workers)
{
	double		divisor = workers;
	double		leader = 1.0 - 0.3 * workers;

	if (parallel_leader_participation && leader > 0)
		divisor += leader;
	return divisor;
}

/*
 * Under Gather every process's percentile keys cross to the leader, which
 * holds them alone, and past work_mem writes them to a file and reads
 * them back; a serial scan of a cached table reads the cache twice
 * instead (groupagg_narrow.c), which costs little beside, where its groups
 * hold enough keys for that.  So the parallel path of a cached table pays
 * the file's pages, written and read, unless its processes read their
 * blocks twice too (rounds_possible).  (Over the heap both paths spill
 * alike.)
 */
/*
 * Whether every process of the parallel plan may read its blocks twice
 * (groupagg_narrow.c): every percentile orders a plain column of a type
 * whose keys the scan maps (no cast, no numeric, no value kept whole), of
 * a table with statistics.  The scan decides again when it starts.
 */
static bool
rounds_possible(RelOptInfo *input_rel, List *aggs)
{
	ListCell   *lc;

	if (!gpusel_enable_parallel_second_pass || input_rel->tuples <= 0)
		return false;
	foreach(lc, aggs)
	{
		Aggref	   *aggref = lfirst_node(Aggref, lc);
		Expr	   *input;

		if (aggref->aggkind != AGGKIND_ORDERED_SET)
			continue;
		if (list_length(aggref->args) != 1)
			return false;
		input = linitial_node(TargetEntry, aggref->args)->expr;
		if (!IsA(input, Var) || exprType((Node *) input) == NUMERICOID ||
			!device_key_type((Node *) input))
			return false;
	}
	return true;
}

static Cost
leader_spill_cost(PlannerInfo *root, RelOptInfo *input_rel, List *aggs, double groups)
{
	int			collections = count_collections(aggs);
	/* a pair: a group's number and an 8-byte key */
	double		pair_bytes = sizeof(uint32) + sizeof(uint64);
	double		bytes = input_rel->rows * collections * pair_bytes;
	double		held = (double) work_mem * 1024.0 / pair_bytes;

	/* the serial scan spills too where its groups hold too few keys to read twice */
	if (collections == 0 || bytes <= (double) work_mem * 1024.0 ||
		groups * GROUPAGG_NARROW_MIN_KEYS_PER_GROUP > held ||
		!GpuselSourceProvided(planner_rt_fetch(input_rel->relid, root)->relid) ||
		rounds_possible(input_rel, aggs))
		return 0;
	return 2.0 * seq_page_cost * bytes / BLCKSZ;
}

/*
 * A copy of a grouped scan's path that returns its groups in the query's
 * ORDER BY, where that sorts by exactly the group keys: it ranks each
 * key's distinct values and sorts the groups by their ranks
 * (groupagg_order.c), a comparison of integers per step where a Sort above
 * it would compare the keys themselves.  NULL where the ORDER BY is not
 * the keys' (or gpusel.enable_group_order is off).
 */
static CustomPath *
ordered_copy(PlannerInfo *root, CustomPath *path, List *keys)
{
	List	   *order = gpusel_enable_group_order ? GroupAggSortOrder(root, keys) : NIL;
	CustomPath *cpath;
	double		groups = path->path.rows;

	if (order == NIL)
		return NULL;
	cpath = makeNode(CustomPath);
	memcpy(cpath, path, sizeof(CustomPath));
	cpath->path.pathkeys = root->sort_pathkeys;
	cpath->custom_private = list_copy(path->custom_private);
	lfirst(list_nth_cell(cpath->custom_private, 4)) = order;
	cpath->path.startup_cost += cpu_operator_cost * groups *
		(list_length(keys) + log2(Max(groups, 2.0)));
	cpath->path.total_cost = cpath->path.startup_cost;
	return cpath;
}

/*
 * Offers the grouped scan under Gather (scan_parallel.c): every process
 * reads, filters and aggregates its share of the relation's blocks and the
 * leader merges the workers' groups.  Its cost is a Parallel Seq Scan of
 * the relation plus the per-row grouping shared the same way, plus merging
 * each process's groups, and, over a cached table, the leader's file of
 * percentile keys past work_mem.  Only where PostgreSQL would consider a parallel
 * plan, every qual is a device qual (no tuple is needed per row), and the
 * leader runs the plan: it is the one consumer of what the workers send.
 * Where the ORDER BY is the group keys, the same under Gather Merge, with
 * the leader returning its groups in that order.
 */
static void
add_parallel_groupagg_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
						   CustomPath *serial, List *keys, List *aggs, List *device_flags,
						   Cost row_cost, Cost disabled)
{
	Path	   *partial;
	CustomPath *cpath;
	CustomPath *ordered;
	GatherPath *gather;
	double		groups = serial->path.rows;
	double		process_groups;
	int			workers;
	ListCell   *lc;

	if (!gpusel_enable_parallel || !output_rel->consider_parallel ||
		!input_rel->consider_parallel ||
		max_parallel_workers_per_gather <= 0 || !parallel_leader_participation)
		return;
	foreach(lc, device_flags)
		if (lfirst_int(lc) == 0)
			return;
	workers = compute_parallel_worker(input_rel, input_rel->pages, -1,
									  max_parallel_workers_per_gather);
	if (workers <= 0)
		return;
	/* what each process reads and filters, as a Parallel Seq Scan (which gpu_filter removes) */
	partial = create_seqscan_path(root, input_rel, NULL, workers);

	cpath = makeNode(CustomPath);
	memcpy(cpath, serial, sizeof(CustomPath));
	cpath->path.parallel_aware = true;
	cpath->path.parallel_safe = true;
	cpath->path.parallel_workers = workers;
	/*
	 * a process has no more groups than rows, whatever the estimate (an
	 * expression key has no statistics and gets a large one), and merging
	 * one of its groups is a lookup and a combine per aggregate
	 */
	process_groups = Min(groups, input_rel->rows / parallel_divisor(workers));
	cpath->path.startup_cost = partial->total_cost * GpuselReadCostFactor(root, input_rel) +
		row_cost / parallel_divisor(workers) +
		process_groups * cpu_operator_cost * (workers + 1) +
		GpuselParallelWorkersCost(root, input_rel) +
		leader_spill_cost(root, input_rel, aggs, groups) + disabled;
	cpath->path.total_cost = cpath->path.startup_cost;
	/* before add_path, which may free what it rejects */
	ordered = ordered_copy(root, cpath, keys);
	gather = create_gather_path(root, output_rel, &cpath->path, cpath->path.pathtarget,
								NULL, &groups);
	/*
	 * the groups reach the Gather from the leader's own copy of the plan, not
	 * through a worker's tuple queue (the workers' groups are merged inside,
	 * costed above): the Gather's charge per tuple is not paid
	 */
	gather->path.total_cost = Max(gather->path.total_cost - parallel_tuple_cost * groups,
								  gather->path.startup_cost);
	add_path(output_rel, &gather->path);

	/*
	 * The leader may return the merged groups in the ORDER BY: a Gather
	 * Merge keeps that order (the workers return no rows), and no Sort of
	 * the groups is needed above it.
	 */
	if (ordered != NULL)
	{
		GatherMergePath *merge = create_gather_merge_path(root, output_rel, &ordered->path,
														  ordered->path.pathtarget,
														  ordered->path.pathkeys, NULL, &groups);

		merge->path.total_cost = Max(merge->path.total_cost - parallel_tuple_cost * groups,
									 merge->path.startup_cost);
		add_path(output_rel, &merge->path);
	}
}

/* Offers the serial grouped scan again, returning its groups in the ORDER BY where it can. */
static void
add_sorted_groupagg_path(PlannerInfo *root, RelOptInfo *output_rel, CustomPath *serial,
						 List *keys)
{
	CustomPath *cpath = ordered_copy(root, serial, keys);

	if (cpath != NULL)
		add_path(output_rel, &cpath->path);
}

/*
 * Whether every key and aggregate input reaches the groups as a batch's
 * columns: otherwise the workers of a parallel plan would have no rows to
 * read (they send columns) and the leader would read the table alone.
 */
static bool
inputs_columnar(List *keys, List *aggs)
{
	ListCell   *lc;

	foreach(lc, keys)
		if (!GroupAggInputColumnar((Expr *) lfirst(lc), true))
			return false;
	foreach(lc, aggs)
	{
		Expr	   *input = GroupAggAggrefInput(lfirst_node(Aggref, lc));

		/* an input equal to a key is that key's */
		if (input != NULL && !list_member(keys, input) && !GroupAggInputColumnar(input, false))
			return false;
	}
	return true;
}

/*
 * Whether every aggregate's partial state can go from a worker to the
 * leader, as the aggregate table says of its input.
 */
static bool
aggs_cross(List *aggs)
{
	ListCell   *lc;

	foreach(lc, aggs)
	{
		Aggref	   *agg = lfirst_node(Aggref, lc);
		GroupAggKind kind;
		bool		descending;

		if (!GpuselGroupAggClassify(agg, &kind, &descending) ||
			!GroupAggKindCrosses(kind, GroupAggAggrefInput(agg)))
			return false;
	}
	return true;
}

/*
 * From the create_upper_paths_hook at the grouping step of a query over
 * one base relation: offers the scan that answers the whole query.
 *
 * Its cost is reading the whole relation with its quals as the scan does
 * (the device quals on the GPU where the planner plans for one) plus, per
 * row that passes the WHERE clause, the grouping and the aggregate updates,
 * plus the percentile selection; PostgreSQL's paths pay a sort or a hash
 * table and a function call per aggregate and row instead.  An index scan
 * that PostgreSQL would use instead competes against that whole read.
 */
void
GpuselAddGroupAggPath(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					  void *extra)
{
	GroupPathExtraData *gextra = (GroupPathExtraData *) extra;
	Query	   *parse = root->parse;
	RangeTblEntry *rte;
	GroupAggShape shape;
	List	   *quals;
	List	   *flags;
	bool		any_marked;
	double		rows;
	double		groups;
	Cost		row_cost;
	Cost		disabled;
	Cost		cost;
	CustomPath *cpath;

	if (!gpusel_enable_scan || !gpusel_enable_groupagg ||
		parse->groupingSets != NIL || parse->hasTargetSRFs ||
		gextra->patype != PARTITIONWISE_AGGREGATE_NONE ||
		input_rel->cheapest_total_path == NULL)
		return;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (!GpuselRelIsReadable(input_rel, rte))
		return;
	if (!collect_shape(root, input_rel, gextra->havingQual, &shape))
		return;
	/*
	 * The scan aggregates every group before returning the first: where
	 * PostgreSQL's plan could stop after the first groups, an error a later
	 * group raises would be an error PostgreSQL does not raise.
	 */
	if (may_stop_early(root, &shape) &&
		groups_may_fail(&shape, root->upper_targets[UPPERREL_GROUP_AGG]->exprs,
						gextra->havingQual))
		return;
	/*
	 * Every qual the device can run is a device qual here, whatever the
	 * scan's own cost model says: the rows that pass then stay columns, with
	 * no tuple per row on the host.  Without a GPU the same quals run on the
	 * CPU over the same columns (scan_exec.c).
	 */
	if (!GpuselUpperQuals(root, input_rel, &quals, &flags, &any_marked))
		return;

	rows = input_rel->rows;
	groups = GroupAggEstimateGroups(root, shape.keys, rows);
	/*
	 * The groups stay in memory: where the columns' statistics say they
	 * pass hash_mem, PostgreSQL's hash aggregation, which spills, or its
	 * sort keep the query (percentile keys spill past work_mem,
	 * groupagg_spill.c).  A key that is an expression has no statistics of
	 * its own: its estimate is its columns' number of distinct values, an
	 * upper bound often far off (an hour of a timestamp), and is not held
	 * against the scan.
	 */
	if (keys_are_columns(shape.keys) &&
		groups * GroupAggGroupBytes(list_length(shape.keys), list_length(shape.aggs),
									count_collections(shape.aggs)) >
		(double) get_hash_memory_limit())
		return;
	/* count(*) alone counts whole batches, with nothing to do per row */
	row_cost = 0;
	if (!counts_only(&shape))
		row_cost = rows * cpu_operator_cost *
			(GROUPAGG_KEY_FACTOR * list_length(shape.keys) +
			 GROUPAGG_AGG_FACTOR * list_length(shape.aggs));
	/* it groups by hashing, and is disabled with hash aggregation */
	disabled = (!enable_hashagg && shape.keys != NIL) ? disable_cost : 0;
	cost = GpuselFilteredReadCost(root, input_rel, quals, flags) + row_cost +
		groups * cpu_tuple_cost + disabled;

	cpath = make_groupagg_path(root, output_rel, &shape, gextra->havingQual, groups, cost);
	/*
	 * before add_path, which may free the serial path it is copied from; a
	 * column whose batch values do not become its values again
	 * (a numeric read where it fits or as 128-bit halves, a date as its
	 * midnight in the TimeZone) needs the tuples, and a numeric sum or
	 * extreme may be a numeric held by pointer
	 */
	/* for tests of the grouped scan: PostgreSQL's grouping paths are dropped */
	if (gpusel_force_groupagg)
	{
		output_rel->pathlist = NIL;
		output_rel->partial_pathlist = NIL;
	}
	/*
	 * A table whose columns lie in device memory is read there, by the
	 * leader's device path alone, where the device aggregates the rows too;
	 * workers would read the host's copy.  Rows the host aggregates go
	 * faster from the host's copy in parallel.
	 */
	if (!GpuselQualsReadUndecodableColumns(quals, input_rel->relid) &&
		aggs_cross(shape.aggs) && inputs_columnar(shape.keys, shape.aggs) &&
		!reads_device_copy(root, &shape, quals, rows))
		add_parallel_groupagg_path(root, input_rel, output_rel, cpath, shape.keys, shape.aggs,
								   flags, row_cost, disabled);
	add_sorted_groupagg_path(root, output_rel, cpath, shape.keys);
	add_path(output_rel, &cpath->path);
}

/*
 * PlanCustomPath: a GpuSelScan with no scan relation of its own whose
 * custom_scan_tlist is the keys, the aggregates and a junk ctid Var; the
 * targetlist and HAVING refer to those entries after setrefs.  The quals
 * travel in custom_private (scan_plan.h).
 */
static Plan *
plan_groupagg_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	RelOptInfo *base = (RelOptInfo *) linitial(best_path->custom_private);
	List	   *keys = (List *) lsecond(best_path->custom_private);
	List	   *aggs = (List *) lthird(best_path->custom_private);
	Node	   *having = (Node *) lfourth(best_path->custom_private);
	List	   *order = (List *) list_nth(best_path->custom_private, 4);
	CustomScan *cscan = makeNode(CustomScan);
	List	   *scan_tlist = NIL;
	List	   *quals;
	List	   *device_flags;
	bool		any_marked;
	int			flags = GPUSEL_SCAN_GROUP | GPUSEL_SCAN_NEEDS_TUPLES;
	ListCell   *lc;

	if (!GpuselUpperQuals(root, base, &quals, &device_flags, &any_marked))
		elog(ERROR, "gpusel lost the quals of its grouped scan");
	if (any_marked)
		flags |= GPUSEL_SCAN_MARKED;
	/*
	 * Without quals the device would see no rows: a constant TRUE sends the
	 * copy's rows through its filter, all passing, to the device's grouping.
	 */
	if (quals == NIL && !best_path->path.parallel_aware)
	{
		GroupAggShape shape = {base->relid, keys, aggs};

		if (reads_device_copy(root, &shape, quals, base->rows))
		{
			quals = list_make1(makeBoolConst(true, false));
			device_flags = list_make1_int(1);
		}
	}

	foreach(lc, keys)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), list_length(scan_tlist) + 1,
											 NULL, false));
	foreach(lc, aggs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), list_length(scan_tlist) + 1,
											 NULL, false));
	/* names the relation after setrefs has flattened the range table */
	scan_tlist = lappend(scan_tlist,
						 makeTargetEntry((Expr *) makeVar(base->relid, SelfItemPointerAttributeNumber,
														  TIDOID, -1, InvalidOid, 0),
										 list_length(scan_tlist) + 1, NULL, true));

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = (List *) copyObject(having);
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make5(device_flags,
									   makeInteger(flags),
									   makeFloat(psprintf("%.1f", base->tuples)),
									   quals,
									   makeInteger(base->relid));
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(list_length(keys)));
	cscan->custom_private = lappend(cscan->custom_private, order);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &gpusel_scan_methods;
	return &cscan->scan.plan;
}

/*
 * create_upper_paths_hook: at the grouping step of a query over one base
 * relation, offers the grouped scan, which also answers a whole-table
 * percentile and count(*) under device quals.
 */
static void
groupagg_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
							RelOptInfo *input_rel, RelOptInfo *output_rel,
							void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);

	if (stage == UPPERREL_GROUP_AGG && input_rel->reloptkind == RELOPT_BASEREL)
		GpuselAddGroupAggPath(root, input_rel, output_rel, extra);
}

/* Installs the grouping step's hook. */
void
GroupAggPlanInit(void)
{
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = groupagg_create_upper_paths;
}
