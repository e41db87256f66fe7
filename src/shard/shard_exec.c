/*
 * shard_exec.c
 *	  Executor side of the sharded plan (GpuselShards): reads the plan, has
 *	  the rounds run (shard_search.c), and returns one row per group with
 *	  PostgreSQL's final values of its aggregates.
 *
 * The plan (shard_plan.c) hands over SQL fragments (the partitions' names,
 * the WHERE clause, the group keys and the aggregates' inputs) and, in
 * custom_scan_tlist, the group keys and then the Aggrefs.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "guc.h"
#include "shard.h"
#include "shard_state.h"

static Node *shard_create_state(CustomScan *cscan);
static void shard_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *shard_exec(CustomScanState *node);
static void shard_end(CustomScanState *node);
static void shard_rescan(CustomScanState *node);
static void shard_explain(CustomScanState *node, List *ancestors, ExplainState *es);

CustomScanMethods shard_scan_methods = {
	.CustomName = SHARD_SCAN_NAME,
	.CreateCustomScanState = shard_create_state,
};

static CustomExecMethods shard_exec_methods = {
	.CustomName = SHARD_SCAN_NAME,
	.BeginCustomScan = shard_begin,
	.ExecCustomScan = shard_exec,
	.EndCustomScan = shard_end,
	.ReScanCustomScan = shard_rescan,
	.ExplainCustomScan = shard_explain,
};

/* Registers the plan node's methods, so plans can be copied and read back. */
void
ShardExecInit(void)
{
	RegisterCustomScanMethods(&shard_scan_methods);
}

/* CreateCustomScanState. */
static Node *
shard_create_state(CustomScan *cscan)
{
	ShardScanState *state = palloc0(sizeof(ShardScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.flags = cscan->flags;
	state->css.methods = &shard_exec_methods;
	return (Node *) state;
}

/* The strings of a List of String nodes. */
static char **
string_array(List *list)
{
	char	  **out = palloc(sizeof(char *) * Max(1, list_length(list)));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, list)
		out[i++] = strVal(lfirst(lc));
	return out;
}

/* BeginCustomScan: reads the plan's fragments and the aggregates. */
static void
shard_begin(CustomScanState *node, EState *estate, int eflags)
{
	ShardScanState *state = (ShardScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	List	   *inputs = NIL;
	ListCell   *lc;
	int			i;

	state->relname = strVal(list_nth(priv, SHARD_PRIV_RELNAME));
	state->userid = (Oid) strtoul(strVal(list_nth(priv, SHARD_PRIV_USERID)), NULL, 10);
	state->nparts = list_length(list_nth(priv, SHARD_PRIV_PART_OIDS));
	state->part_oids = palloc(sizeof(Oid) * state->nparts);
	state->part_remote = palloc(sizeof(bool) * state->nparts);
	i = 0;
	foreach(lc, (List *) list_nth(priv, SHARD_PRIV_PART_OIDS))
	{
		state->part_oids[i] = (Oid) strtoul(strVal(lfirst(lc)), NULL, 10);
		state->part_remote[i] = list_nth_int(list_nth(priv, SHARD_PRIV_PART_REMOTE), i);
		i++;
	}
	state->part_from = string_array(list_nth(priv, SHARD_PRIV_PART_FROM));
	state->where_sql = strVal(list_nth(priv, SHARD_PRIV_WHERE));
	state->key_sql = string_array(list_nth(priv, SHARD_PRIV_KEYS));
	state->nkeys = list_length(list_nth(priv, SHARD_PRIV_KEYS));
	state->agg_sql = string_array(list_nth(priv, SHARD_PRIV_AGG_INPUTS));
	state->naggs = list_length(cscan->custom_scan_tlist) - state->nkeys;

	state->key_types = palloc(sizeof(Oid) * Max(1, state->nkeys));
	state->key_typmods = palloc(sizeof(int32) * Max(1, state->nkeys));
	state->key_colls = palloc(sizeof(Oid) * Max(1, state->nkeys));
	state->key_hash = palloc0(sizeof(FmgrInfo) * Max(1, state->nkeys));
	state->key_eq = palloc0(sizeof(FmgrInfo) * Max(1, state->nkeys));
	state->aggs = palloc0(sizeof(ShardAggInfo) * Max(1, state->naggs));
	state->agg_column = palloc(sizeof(int) * Max(1, state->naggs));
	state->agg_input = palloc(sizeof(int) * Max(1, state->naggs));
	state->agg_cmp = palloc0(sizeof(FmgrInfo) * Max(1, state->naggs));
	state->input_sql = palloc(sizeof(char *) * Max(1, state->naggs));
	state->input_types = palloc(sizeof(Oid) * Max(1, state->naggs));
	state->input_colls = palloc(sizeof(Oid) * Max(1, state->naggs));
	state->input_cmp = palloc0(sizeof(FmgrInfo) * Max(1, state->naggs));

	i = 0;
	foreach(lc, cscan->custom_scan_tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (i < state->nkeys)
		{
			Oid			type = exprType((Node *) tle->expr);
			TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_HASH_PROC_FINFO |
												   TYPECACHE_EQ_OPR_FINFO);

			state->key_types[i] = type;
			state->key_typmods[i] = exprTypmod((Node *) tle->expr);
			state->key_colls[i] = exprCollation((Node *) tle->expr);
			fmgr_info_copy(&state->key_hash[i], &tc->hash_proc_finfo, CurrentMemoryContext);
			fmgr_info_copy(&state->key_eq[i], &tc->eq_opr_finfo, CurrentMemoryContext);
		}
		else
		{
			int			a = i - state->nkeys;
			ShardAggInfo *info = &state->aggs[a];
			Aggref	   *agg = castNode(Aggref, tle->expr);

			if (!ShardAggClassify(agg, info))
				elog(ERROR, "gpusel: a sharded plan's aggregate is no longer one it answers");
			state->agg_column[a] = state->nstates;
			state->nstates += ShardAggPartialColumns(info);
			state->agg_input[a] = -1;
			if (info->kind == SHARD_MIN || info->kind == SHARD_MAX)
				fmgr_info_copy(&state->agg_cmp[a],
							   &lookup_type_cache(info->input_type,
												  TYPECACHE_CMP_PROC_FINFO)->cmp_proc_finfo,
							   CurrentMemoryContext);
			if (ShardAggIsPercentile(info))
			{
				int			k;

				/* percentiles of one input and collation share their rounds */
				for (k = 0; k < list_length(inputs); k++)
				{
					if (strcmp(state->input_sql[k], state->agg_sql[a]) == 0 &&
						state->input_types[k] == info->input_type &&
						state->input_colls[k] == info->collation)
						break;
				}
				if (k == list_length(inputs))
				{
					inputs = lappend_int(inputs, a);
					state->input_sql[k] = state->agg_sql[a];
					state->input_types[k] = info->input_type;
					state->input_colls[k] = info->collation;
					fmgr_info_copy(&state->input_cmp[k],
								   &lookup_type_cache(info->input_type,
													  TYPECACHE_CMP_PROC_FINFO)->cmp_proc_finfo,
								   CurrentMemoryContext);
				}
				state->agg_input[a] = k;
			}
		}
		i++;
	}
	state->ninputs = list_length(inputs);
	state->part_ms = palloc0(sizeof(double) * state->nparts);
	state->run_cxt = AllocSetContextCreate(estate->es_query_cxt, "gpusel shards",
										   ALLOCSET_DEFAULT_SIZES);
}
/* A rank's key, found by the rounds. */
static Datum
rank_value(ShardGroup *g, int input, int64 rank)
{
	ShardRank  *r = ShardGroupRank(g, input, rank, false);

	if (!r->state.found)
		elog(ERROR, "gpusel: a rank over partitions was not found");
	return r->state.value;
}

/* One fraction's result, as PostgreSQL's final function computes it. */
static Datum
fraction_result(const ShardAggInfo *info, ShardGroup *g, int input, double f, int64 n)
{
	int64		ranks[2];
	double		proportion;
	int			nranks = ShardFractionRanks(info, f, n, ranks, &proportion);
	Datum		lo = rank_value(g, input, ranks[0]);
	Datum		hi;

	if (nranks == 1)
		return lo;
	hi = rank_value(g, input, ranks[1]);
	if (info->input_type == FLOAT8OID)
		return Float8GetDatum(DatumGetFloat8(lo) +
							  (proportion * (DatumGetFloat8(hi) - DatumGetFloat8(lo))));
	return DirectFunctionCall2(interval_pl,
							   DirectFunctionCall2(interval_mul,
												   DirectFunctionCall2(interval_mi, hi, lo),
												   Float8GetDatum(proportion)),
							   lo);
}

/* A percentile aggregate's result for a group. */
static Datum
percentile_result(ShardScanState *state, int a, ShardGroup *g, bool *isnull)
{
	ShardAggInfo *info = &state->aggs[a];
	int			input = state->agg_input[a];
	int64		n = ShardGroupCount(state, g, input);
	ArrayType  *fractions;
	Datum	   *values;
	bool	   *nulls;
	Datum	   *results;
	int			count;
	TypeCacheEntry *tc;

	*isnull = true;
	if (info->fraction->constisnull || n == 0)
		return (Datum) 0;
	*isnull = false;
	if (!info->multi)
		return fraction_result(info, g, input, DatumGetFloat8(info->fraction->constvalue), n);

	fractions = DatumGetArrayTypeP(info->fraction->constvalue);
	deconstruct_array(fractions, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &values, &nulls, &count);
	results = palloc(sizeof(Datum) * Max(1, count));
	for (int i = 0; i < count; i++)
		results[i] = nulls[i] ? (Datum) 0 :
			fraction_result(info, g, input, DatumGetFloat8(values[i]), n);
	tc = lookup_type_cache(info->input_type, 0);
	return PointerGetDatum(construct_md_array(results, nulls, ARR_NDIM(fractions),
											  ARR_DIMS(fractions), ARR_LBOUND(fractions),
											  info->input_type, tc->typlen, tc->typbyval,
											  tc->typalign));
}

/* ExecCustomScan: runs the rounds once, then returns a group per call. */
static TupleTableSlot *
shard_exec(CustomScanState *node)
{
	ShardScanState *state = (ShardScanState *) node;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	if (!state->done)
	{
		MemoryContext old = MemoryContextSwitchTo(state->run_cxt);

		ShardRunRounds(state);
		MemoryContextSwitchTo(old);
		state->done = true;
		state->next = 0;
	}
	for (;;)
	{
		ShardGroup *g;
		MemoryContext old;

		if (state->next >= state->ngroups)
			return NULL;
		g = state->groups[state->next++];
		ResetExprContext(econtext);
		ExecClearTuple(slot);
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		for (int k = 0; k < state->nkeys; k++)
		{
			slot->tts_values[k] = g->keys[k];
			slot->tts_isnull[k] = g->key_nulls[k];
		}
		for (int a = 0; a < state->naggs; a++)
		{
			int			att = state->nkeys + a;

			if (ShardAggIsPercentile(&state->aggs[a]))
				slot->tts_values[att] = percentile_result(state, a, g, &slot->tts_isnull[att]);
			else
				slot->tts_values[att] = ShardAggFinal(&state->aggs[a],
													  g->states + state->agg_column[a],
													  g->state_nulls + state->agg_column[a],
													  &slot->tts_isnull[att]);
		}
		MemoryContextSwitchTo(old);
		ExecStoreVirtualTuple(slot);
		econtext->ecxt_scantuple = slot;
		if (node->ss.ps.qual == NULL || ExecQual(node->ss.ps.qual, econtext))
		{
			if (node->ss.ps.ps_ProjInfo == NULL)
				return slot;
			return ExecProject(node->ss.ps.ps_ProjInfo);
		}
		InstrCountFiltered1(node, 1);
	}
}

/* Forgets the groups; the next call runs the rounds again. */
static void
shard_reset(ShardScanState *state)
{
	MemoryContextReset(state->run_cxt);
	state->groups = NULL;
	state->ngroups = 0;
	state->groups_capacity = 0;
	state->slots = NULL;
	state->nslots = 0;
	state->done = false;
}

/* ReScanCustomScan. */
static void
shard_rescan(CustomScanState *node)
{
	shard_reset((ShardScanState *) node);
}

/* EndCustomScan. */
static void
shard_end(CustomScanState *node)
{
	shard_reset((ShardScanState *) node);
}

/* ExplainCustomScan: the partitions, and under ANALYZE the rounds. */
static void
shard_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ShardScanState *state = (ShardScanState *) node;
	int			remote = 0;

	for (int s = 0; s < state->nparts; s++)
		remote += state->part_remote[s];
	ExplainPropertyText("Relation", state->relname, es);
	ExplainPropertyText("Partitions",
						psprintf("%d (%d foreign, %d local)", state->nparts, remote,
								 state->nparts - remote), es);
	if (es->verbose)
	{
		ExplainPropertyText("Partition Where", state->where_sql[0] ? state->where_sql : "(none)",
							es);
	}
	if (es->analyze)
	{
		StringInfoData buf;

		ExplainPropertyInteger("Rounds", NULL, state->rounds, es);
		ExplainPropertyInteger("Bytes Received", NULL, state->bytes, es);
		if (es->timing)
		{
			initStringInfo(&buf);
			for (int s = 0; s < state->nparts; s++)
				appendStringInfo(&buf, "%s%s %.3f ms", s > 0 ? ", " : "",
								 get_rel_name(state->part_oids[s]), state->part_ms[s]);
			ExplainPropertyText("Partition Times", buf.data, es);
			resetStringInfo(&buf);
			for (int r = 0; r < state->rounds && r < SHARD_MAX_ROUNDS; r++)
				appendStringInfo(&buf, "%s%.3f ms", r > 0 ? ", " : "", state->round_ms[r]);
			ExplainPropertyText("Round Times", buf.data, es);
		}
	}
}
