/*
 * shard_plan.c
 *	  Planner side of the sharded plan: recognises
 *
 *	   SELECT <keys>, <aggregates> FROM <partitioned table> [WHERE ...]
 *	   GROUP BY <keys> [HAVING ...]
 *
 * where the partitions left after pruning are postgres_fdw foreign tables
 * (at least one) and plain tables, the aggregates include a percentile
 * (percentile_disc, percentile_cont, gpu_percentile, gpu_percentile_cont)
 * and are among those shard_aggs.c answers, and the keys, inputs and WHERE
 * clause may travel to the partitions (shard_deparse.c).  It offers one
 * path, GpuselShards, that answers the whole grouping step by rounds of
 * queries to the partitions, costed against PostgreSQL's plan, which
 * fetches every row.
 */
#include "postgres.h"

#include "catalog/pg_class_d.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"
#include "access/table.h"

#include "groupagg.h"
#include "guc.h"
#include "shard.h"
#include "shard_internal.h"

/*
 * The planner's charge per round and partition: a remote query's start,
 * like postgres_fdw's fdw_startup_cost default.  The first round, and on
 * average one more, are charged.
 */
#define SHARD_ROUND_COST		100.0
#define SHARD_ROUNDS_EXPECTED	2

extern CustomScanMethods shard_scan_methods;

static Plan *plan_shard_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							 List *tlist, List *clauses, List *custom_plans);

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;

static CustomPathMethods shard_path_methods = {
	.CustomName = SHARD_SCAN_NAME,
	.PlanCustomPath = plan_shard_path,
};

/*
 * Adds the leaf partitions of a partitioned relation that survived
 * pruning to *leaves; false where one is neither a plain table nor a
 * postgres_fdw foreign table.  *remote counts the foreign ones.
 */
static bool
collect_leaves(PlannerInfo *root, RelOptInfo *rel, List **leaves, List **remote_flags)
{
	int			i = -1;

	while ((i = bms_next_member(rel->live_parts, i)) >= 0)
	{
		RelOptInfo *child = rel->part_rels[i];
		RangeTblEntry *rte;
		bool		supported;
		bool		remote;

		if (child == NULL || IS_DUMMY_REL(child))
			continue;
		rte = planner_rt_fetch(child->relid, root);
		if (rte->relkind == RELKIND_PARTITIONED_TABLE)
		{
			if (!collect_leaves(root, child, leaves, remote_flags))
				return false;
			continue;
		}
		remote = ShardPartitionIsRemote(rte->relid, &supported);
		if (!supported)
			return false;
		*leaves = lappend_oid(*leaves, rte->relid);
		*remote_flags = lappend_int(*remote_flags, remote);
	}
	return true;
}

/*
 * A partition's table as its own SQL names it: postgres_fdw's schema_name
 * and table_name options, else the local names.  NULL where a column is
 * renamed by a column_name option, or a local partition has row-level
 * security enabled (neither is taken).
 */
static char *
partition_from(Oid relid, bool remote)
{
	char	   *nspname = get_namespace_name(get_rel_namespace(relid));
	char	   *relname = get_rel_name(relid);

	/*
	 * A local partition is read by name, so its own row-level security
	 * would apply where the parent's does when read through the parent
	 */
	if (!remote)
	{
		Relation	rel = table_open(relid, NoLock);
		bool		rls = rel->rd_rel->relrowsecurity;

		table_close(rel, NoLock);
		if (rls)
			return NULL;
	}
	else
	{
		ForeignTable *table = GetForeignTable(relid);
		Relation	rel;
		ListCell   *lc;
		bool		renamed = false;

		foreach(lc, table->options)
		{
			DefElem    *def = lfirst_node(DefElem, lc);

			if (strcmp(def->defname, "schema_name") == 0)
				nspname = defGetString(def);
			else if (strcmp(def->defname, "table_name") == 0)
				relname = defGetString(def);
		}
		rel = table_open(relid, NoLock);
		for (int a = 0; a < RelationGetDescr(rel)->natts && !renamed; a++)
		{
			Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), a);

			if (att->attisdropped)
				continue;
			foreach(lc, GetForeignColumnOptions(relid, att->attnum))
				if (strcmp(lfirst_node(DefElem, lc)->defname, "column_name") == 0)
					renamed = true;
		}
		table_close(rel, NoLock);
		if (renamed)
			return NULL;
	}
	return quote_qualified_identifier(nspname, relname);
}

/*
 * The group keys (each as SQL too) and aggregates when the partitions can
 * answer the query by rounds; false otherwise.
 */
static bool
collect_shape(PlannerInfo *root, RelOptInfo *rel, Node *having, List **keys, List **key_sql,
			  List **aggs, List **input_sql)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	ListCell   *lc;
	bool		any_percentile = false;

	*keys = *key_sql = *aggs = *input_sql = NIL;
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);
		TypeCacheEntry *tc = lookup_type_cache(exprType((Node *) expr),
											   TYPECACHE_EQ_OPR | TYPECACHE_HASH_PROC);

		if (sgc->eqop != tc->eq_opr || !OidIsValid(tc->hash_proc) ||
			!ShardExprShippable((Node *) expr, rel->relid))
			return false;
		*keys = lappend(*keys, expr);
		*key_sql = lappend(*key_sql, makeString(ShardDeparseExpr((Node *) expr, rel->relid,
																 rte->relid)));
	}

	if (!GroupAggCollectAggrefs(*keys, root->upper_targets[UPPERREL_GROUP_AGG]->exprs, having,
								aggs) || *aggs == NIL)
		return false;
	foreach(lc, *aggs)
	{
		Aggref	   *agg = lfirst_node(Aggref, lc);
		ShardAggInfo info;
		Expr	   *input = ShardAggInput(agg);

		if (!ShardAggClassify(agg, &info))
			return false;
		any_percentile |= ShardAggIsPercentile(&info);
		if (input != NULL && !ShardExprShippable((Node *) input, rel->relid))
			return false;
		*input_sql = lappend(*input_sql,
							 makeString(input == NULL ? "" :
										ShardDeparseExpr((Node *) input, rel->relid, rte->relid)));
	}
	return any_percentile;
}

/* The WHERE clause as the partitions' SQL ("" for none); false if it cannot travel. */
static bool
collect_where(RelOptInfo *rel, Oid relid, char **where_sql)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant || rinfo->security_level > 0 ||
			!ShardExprShippable((Node *) rinfo->clause, rel->relid))
			return false;
		appendStringInfo(&buf, "%s(%s)", buf.len > 0 ? " AND " : "",
						 ShardDeparseExpr((Node *) rinfo->clause, rel->relid, relid));
	}
	*where_sql = buf.data;
	return true;
}

/*
 * From the grouping step's hook: offers GpuselShards for a query over a
 * partitioned table with foreign partitions.  Its cost is the rounds'
 * starts on every partition plus the partitions' work per row (which runs
 * on each partition's server at once) and the keys coming back per group;
 * PostgreSQL's plan pays a fetched tuple per row instead.
 */
static void
add_shard_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
			   GroupPathExtraData *gextra)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte = planner_rt_fetch(input_rel->relid, root);
	List	   *leaves = NIL;
	List	   *remote_flags = NIL;
	List	   *from = NIL;
	List	   *oids = NIL;
	List	   *keys,
			   *key_sql,
			   *aggs,
			   *input_sql;
	char	   *where_sql;
	int			nremote = 0;
	double		groups;
	Cost		cost;
	CustomPath *cpath;
	ListCell   *lc,
			   *lc2;

	if (!gpusel_enable_shards || parse->groupingSets != NIL || parse->hasTargetSRFs ||
		gextra->patype != PARTITIONWISE_AGGREGATE_NONE || rte->rtekind != RTE_RELATION ||
		rte->relkind != RELKIND_PARTITIONED_TABLE || rte->tablesample != NULL ||
		input_rel->part_scheme == NULL)
		return;
	if (!collect_leaves(root, input_rel, &leaves, &remote_flags) || leaves == NIL)
		return;
	forboth(lc, leaves, lc2, remote_flags)
	{
		char	   *name = partition_from(lfirst_oid(lc), lfirst_int(lc2));

		if (name == NULL)
			return;
		from = lappend(from, makeString(name));
		oids = lappend(oids, makeString(psprintf("%u", lfirst_oid(lc))));
		nremote += lfirst_int(lc2);
	}
	if (nremote == 0)
		return;
	if (!collect_shape(root, input_rel, gextra->havingQual, &keys, &key_sql, &aggs, &input_sql) ||
		!collect_where(input_rel, rte->relid, &where_sql))
		return;
	/*
	 * Every group is combined before the first is returned: where a LIMIT
	 * (or a cursor) may stop PostgreSQL's plan after its first groups, a sum
	 * that overflows in a later group would raise an error PostgreSQL's plan
	 * does not.
	 */
	if (root->tuple_fraction > 0 && keys != NIL)
	{
		foreach(lc, aggs)
		{
			ShardAggInfo info;

			if (ShardAggClassify(lfirst_node(Aggref, lc), &info) &&
				(info.kind == SHARD_SUM || info.kind == SHARD_AVG))
				return;
		}
	}

	groups = keys == NIL ? 1 : estimate_num_groups(root, keys, input_rel->rows, NULL, NULL);
	cost = SHARD_ROUND_COST * SHARD_ROUNDS_EXPECTED * nremote +
		input_rel->rows * cpu_operator_cost +
		groups * list_length(leaves) * (SHARD_FIRST_POINTS + 1) * cpu_tuple_cost;

	cpath = makeNode(CustomPath);
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
	cpath->path.total_cost = cost + groups * cpu_tuple_cost;
	cpath->flags = 0;
	cpath->custom_paths = NIL;
	cpath->methods = &shard_path_methods;
	cpath->custom_private = list_make5(keys, aggs, gextra->havingQual,
									   list_make5(makeString(get_rel_name(rte->relid)),
												  makeString(psprintf("%u", rte->checkAsUser)),
												  oids, remote_flags, from),
									   list_make3(makeString(where_sql), key_sql, input_sql));
	cpath->custom_private = lappend(cpath->custom_private, makeInteger(input_rel->relid));
	/* for tests on small tables: PostgreSQL's grouping paths are dropped */
	if (gpusel_force_groupagg)
	{
		output_rel->pathlist = NIL;
		output_rel->partial_pathlist = NIL;
	}
	add_path(output_rel, &cpath->path);
}

/*
 * PlanCustomPath: a CustomScan with no scan relation of its own whose
 * custom_scan_tlist is the keys, then the aggregates; the targetlist and
 * HAVING refer to those entries after setrefs.
 */
static Plan *
plan_shard_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
				List *clauses, List *custom_plans)
{
	List	   *keys = (List *) linitial(best_path->custom_private);
	List	   *aggs = (List *) lsecond(best_path->custom_private);
	Node	   *having = (Node *) lthird(best_path->custom_private);
	List	   *first = (List *) lfourth(best_path->custom_private);
	List	   *second = (List *) list_nth(best_path->custom_private, 4);
	Index		relid = intVal(list_nth(best_path->custom_private, 5));
	CustomScan *cscan = makeNode(CustomScan);
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	foreach(lc, keys)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), list_length(scan_tlist) + 1,
											 NULL, false));
	foreach(lc, aggs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst(lc)), list_length(scan_tlist) + 1,
											 NULL, false));
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = (List *) copyObject(having);
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_concat(list_copy(first), second);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = bms_make_singleton(relid);
	cscan->methods = &shard_scan_methods;
	return &cscan->scan.plan;
}

/* create_upper_paths_hook: the grouping step of a query over one relation. */
static void
shard_create_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
						 RelOptInfo *output_rel, void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_GROUP_AGG && input_rel->reloptkind == RELOPT_BASEREL)
		add_shard_path(root, input_rel, output_rel, (GroupPathExtraData *) extra);
}

/* Installs the grouping step's hook. */
void
ShardPlanInit(void)
{
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = shard_create_upper_paths;
}
