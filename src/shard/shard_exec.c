/*
 * shard_exec.c
 *	  Executor side of the sharded plan (GpuselShards): runs the rounds over
 *	  every partition, gathers each group's partial states and known keys,
 *	  and returns one row per group.
 *
 * The plan (shard_plan.c) hands over SQL fragments (the partitions' names,
 * the WHERE clause, the group keys and the aggregates' inputs) and, in
 * custom_scan_tlist, the group keys and then the Aggrefs.  Groups are
 * matched across partitions by their keys' hash and equality (NULL equal
 * to NULL, as GROUP BY has it).
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
#include "shard_internal.h"

/* One wanted rank of one percentile input in a group. */
typedef struct ShardRank
{
	int			input;
	int64		rank;			/* 1-based, ascending */
	ShardRankState state;
} ShardRank;

/* One group: its keys, partial states and what is known of its keys. */
typedef struct ShardGroup
{
	uint32		hash;
	Datum	   *keys;
	bool	   *key_nulls;
	Datum	   *states;			/* the aggregates' partial columns */
	bool	   *state_nulls;
	ShardPoints *points;		/* [input * nparts + partition] */
	int64	  **wanted;			/* positions asked for this round, same index */
	int		   *nwanted;
	int			nranks;
	ShardRank  *ranks;
} ShardGroup;

typedef struct ShardScanState
{
	CustomScanState css;
	/* from the plan */
	char	   *relname;
	Oid			userid;
	int			nparts;
	Oid		   *part_oids;
	char	  **part_from;
	bool	   *part_remote;
	char	   *where_sql;
	int			nkeys;
	char	  **key_sql;
	Oid		   *key_types;
	int32	   *key_typmods;
	FmgrInfo   *key_hash;
	FmgrInfo   *key_eq;
	Oid		   *key_colls;
	int			naggs;
	ShardAggInfo *aggs;
	int		   *agg_column;		/* first partial column of each aggregate */
	int		   *agg_input;		/* percentile input of each aggregate, or -1 */
	FmgrInfo   *agg_cmp;		/* min and max: the input type's comparison */
	char	  **agg_sql;
	int			nstates;
	int			ninputs;
	char	  **input_sql;
	Oid		   *input_types;
	Oid		   *input_colls;
	FmgrInfo   *input_cmp;
	/* the run */
	MemoryContext run_cxt;
	bool		done;
	ShardLink **links;
	ShardGroup **groups;
	int			ngroups;
	int			groups_capacity;
	int		   *slots;			/* open addressing: group index + 1, 0 empty */
	int			nslots;
	int			next;
	/* for EXPLAIN ANALYZE */
	int			rounds;
	int64		bytes;
	double	   *part_ms;
} ShardScanState;

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

/* The hash of a row's group keys. */
static uint32
keys_hash(ShardScanState *state, const Datum *keys, const bool *nulls)
{
	uint32		h = 0;

	for (int k = 0; k < state->nkeys; k++)
	{
		uint32		kh = nulls[k] ? 0x9e3779b9 :
			DatumGetUInt32(FunctionCall1Coll(&state->key_hash[k], state->key_colls[k], keys[k]));

		h = (h << 5 | h >> 27) ^ kh;
	}
	return h;
}

/* Whether a group has these keys. */
static bool
keys_equal(ShardScanState *state, ShardGroup *g, const Datum *keys, const bool *nulls)
{
	for (int k = 0; k < state->nkeys; k++)
	{
		if (g->key_nulls[k] != nulls[k])
			return false;
		if (!nulls[k] &&
			!DatumGetBool(FunctionCall2Coll(&state->key_eq[k], state->key_colls[k],
											g->keys[k], keys[k])))
			return false;
	}
	return true;
}

/* Places group index gi in the open-addressing table. */
static void
slot_insert(ShardScanState *state, int gi)
{
	uint32		mask = state->nslots - 1;
	uint32		s = state->groups[gi]->hash & mask;

	while (state->slots[s] != 0)
		s = (s + 1) & mask;
	state->slots[s] = gi + 1;
}

/* The group with these keys; made (round 1 only) when create. */
static ShardGroup *
find_group(ShardScanState *state, const Datum *keys, const bool *nulls, bool create)
{
	uint32		h = keys_hash(state, keys, nulls);
	ShardGroup *g;
	uint32		s;
	int			nparts = state->nparts;

	if (state->nslots > 0)
	{
		for (s = h & (state->nslots - 1); state->slots[s] != 0; s = (s + 1) & (state->nslots - 1))
		{
			g = state->groups[state->slots[s] - 1];
			if (g->hash == h && keys_equal(state, g, keys, nulls))
				return g;
		}
	}
	if (!create)
		elog(ERROR, "gpusel: a partition answered a later round for a group it did not have");

	if (state->ngroups == state->groups_capacity)
	{
		state->groups_capacity = Max(64, state->groups_capacity * 2);
		state->groups = state->groups == NULL ?
			palloc(sizeof(ShardGroup *) * state->groups_capacity) :
			repalloc(state->groups, sizeof(ShardGroup *) * state->groups_capacity);
	}
	if ((state->ngroups + 1) * 2 > state->nslots)
	{
		state->nslots = Max(128, state->nslots * 2);
		state->slots = palloc0(sizeof(int) * state->nslots);
		for (int i = 0; i < state->ngroups; i++)
			slot_insert(state, i);
	}
	g = palloc0(sizeof(ShardGroup));
	g->hash = h;
	g->keys = palloc(sizeof(Datum) * Max(1, state->nkeys));
	g->key_nulls = palloc(sizeof(bool) * Max(1, state->nkeys));
	for (int k = 0; k < state->nkeys; k++)
	{
		TypeCacheEntry *tc = lookup_type_cache(state->key_types[k], 0);

		g->key_nulls[k] = nulls[k];
		g->keys[k] = nulls[k] ? (Datum) 0 : datumCopy(keys[k], tc->typbyval, tc->typlen);
	}
	g->states = palloc0(sizeof(Datum) * Max(1, state->nstates));
	g->state_nulls = palloc(sizeof(bool) * Max(1, state->nstates));
	for (int a = 0; a < state->naggs; a++)
	{
		int			c = state->agg_column[a];

		for (int j = 0; j < ShardAggPartialColumns(&state->aggs[a]); j++)
		{
			/* counts start at 0, the rest at NULL */
			bool		count = state->aggs[a].kind == SHARD_COUNT_STAR ||
				state->aggs[a].kind == SHARD_COUNT ||
				(state->aggs[a].kind == SHARD_AVG && j == 1);

			g->states[c + j] = Int64GetDatum(0);
			g->state_nulls[c + j] = !count;
		}
	}
	g->points = palloc0(sizeof(ShardPoints) * Max(1, state->ninputs * nparts));
	g->wanted = palloc0(sizeof(int64 *) * Max(1, state->ninputs * nparts));
	g->nwanted = palloc0(sizeof(int) * Max(1, state->ninputs * nparts));
	state->groups[state->ngroups] = g;
	slot_insert(state, state->ngroups);
	state->ngroups++;
	return g;
}

/* The '{...}'::float8[] literal of fractions. */
static void
append_fractions(StringInfo buf, const double *fractions, int n)
{
	appendStringInfoString(buf, "'{");
	for (int i = 0; i < n; i++)
		appendStringInfo(buf, "%s%.17g", i > 0 ? "," : "", fractions[i]);
	appendStringInfoString(buf, "}'::pg_catalog.float8[]");
}

/* FROM, WHERE and GROUP BY of a partition's query. */
static void
append_from(ShardScanState *state, StringInfo buf, int part)
{
	appendStringInfo(buf, " FROM %s", state->part_from[part]);
	if (state->where_sql[0] != '\0')
		appendStringInfo(buf, " WHERE %s", state->where_sql);
	for (int k = 0; k < state->nkeys; k++)
		appendStringInfo(buf, "%s%d", k == 0 ? " GROUP BY " : ", ", k + 1);
}

/* The group keys of a partition's select list. */
static void
append_keys(ShardScanState *state, StringInfo buf)
{
	appendStringInfoString(buf, "SELECT ");
	for (int k = 0; k < state->nkeys; k++)
		appendStringInfo(buf, "%s, ", state->key_sql[k]);
}

/* Round 1's query: partial states, counts and first quantiles. */
static char *
first_round_sql(ShardScanState *state, int part)
{
	StringInfoData buf;
	double		fractions[SHARD_FIRST_POINTS + 1];
	bool		first = true;

	for (int j = 0; j <= SHARD_FIRST_POINTS; j++)
		fractions[j] = (double) j / SHARD_FIRST_POINTS;
	initStringInfo(&buf);
	append_keys(state, &buf);
	for (int i = 0; i < state->ninputs; i++)
	{
		appendStringInfo(&buf, "%scount(%s), percentile_disc(", first ? "" : ", ",
						 state->input_sql[i]);
		append_fractions(&buf, fractions, SHARD_FIRST_POINTS + 1);
		appendStringInfo(&buf, ") WITHIN GROUP (ORDER BY %s)", state->input_sql[i]);
		first = false;
	}
	for (int a = 0; a < state->naggs; a++)
	{
		if (ShardAggIsPercentile(&state->aggs[a]))
			continue;
		appendStringInfo(&buf, ", %s", ShardAggPartialSql(&state->aggs[a], state->agg_sql[a]));
	}
	append_from(state, &buf, part);
	return buf.data;
}

/* The types of round 1's columns; returns their number. */
static int
first_round_types(ShardScanState *state, Oid *types, int32 *typmods)
{
	int			n = 0;

	for (int k = 0; k < state->nkeys; k++)
	{
		typmods[n] = state->key_typmods[k];
		types[n++] = state->key_types[k];
	}
	for (int i = 0; i < state->ninputs; i++)
	{
		typmods[n] = -1;
		types[n++] = INT8OID;
		typmods[n] = -1;
		types[n++] = get_array_type(state->input_types[i]);
	}
	for (int a = 0; a < state->naggs; a++)
	{
		int			ncols = ShardAggPartialColumns(&state->aggs[a]);

		ShardAggPartialTypes(&state->aggs[a], types + n);
		for (int j = 0; j < ncols; j++)
			typmods[n + j] = -1;
		n += ncols;
	}
	return n;
}

/* Adds the keys of a returned array, at the positions asked, to points. */
static void
add_points(ShardScanState *state, int input, ShardPoints *points, Datum array,
		   const int64 *positions, int npositions)
{
	TypeCacheEntry *tc = lookup_type_cache(state->input_types[input], 0);
	Datum	   *values;
	bool	   *nulls;
	int			n;

	deconstruct_array(DatumGetArrayTypeP(array), state->input_types[input], tc->typlen,
					  tc->typbyval, tc->typalign, &values, &nulls, &n);
	if (n != npositions)
		elog(ERROR, "gpusel: a partition answered %d keys for %d positions", n, npositions);
	for (int j = 0; j < n; j++)
	{
		if (nulls[j])
			elog(ERROR, "gpusel: a partition answered no key at position " INT64_FORMAT,
				 positions[j]);
		ShardPointsAdd(points, positions[j], datumCopy(values[j], tc->typbyval, tc->typlen));
	}
}

/*
 * Sends one query per partition (one at a time per connection), waits for
 * every answer and hands each to absorb.
 */
typedef void (*AbsorbFn) (ShardScanState *state, int part, ShardResult *result);

static void
run_round(ShardScanState *state, char **sql, int ncols, const Oid *types,
		  const int32 *typmods, AbsorbFn absorb, MemoryContext round_cxt)
{
	int			nparts = state->nparts;
	bool	   *pending = palloc(sizeof(bool) * nparts);
	instr_time *started = palloc(sizeof(instr_time) * nparts);
	int			left = 0;

	for (int s = 0; s < nparts; s++)
	{
		pending[s] = sql[s] != NULL;
		left += pending[s];
	}
	state->rounds++;
	while (left > 0)
	{
		List	   *sent = NIL;
		ListCell   *lc;

		/* send to every connection that is free; local partitions after */
		for (int s = 0; s < nparts; s++)
		{
			bool		channel_busy = false;

			if (!pending[s] || !state->part_remote[s])
				continue;
			foreach(lc, sent)
				if (ShardLinkChannel(state->links[lfirst_int(lc)]) ==
					ShardLinkChannel(state->links[s]))
					channel_busy = true;
			if (channel_busy)
				continue;
			INSTR_TIME_SET_CURRENT(started[s]);
			ShardLinkSend(state->links[s], sql[s]);
			sent = lappend_int(sent, s);
		}
		for (int s = 0; s < nparts && sent == NIL; s++)
		{
			if (!pending[s])
				continue;
			INSTR_TIME_SET_CURRENT(started[s]);
			ShardLinkSend(state->links[s], sql[s]);
			sent = lappend_int(sent, s);
		}
		foreach(lc, sent)
		{
			int			s = lfirst_int(lc);
			MemoryContext old = MemoryContextSwitchTo(round_cxt);
			ShardResult *result;
			instr_time	now;

			result = ShardLinkReceive(state->links[s], ncols, types, typmods,
									  &state->bytes);
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, started[s]);
			state->part_ms[s] += INSTR_TIME_GET_MILLISEC(now);
			MemoryContextSwitchTo(old);
			absorb(state, s, result);
			MemoryContextReset(round_cxt);
			pending[s] = false;
			left--;
		}
	}
}

/* Round 1's answer of a partition: groups, partial states, first keys. */
static void
absorb_first(ShardScanState *state, int part, ShardResult *result)
{
	MemoryContext old = MemoryContextSwitchTo(state->run_cxt);

	for (int r = 0; r < result->nrows; r++)
	{
		Datum	   *row = result->values + r * result->ncols;
		bool	   *nulls = result->nulls + r * result->ncols;
		ShardGroup *g = find_group(state, row, nulls, true);
		int			c = state->nkeys;

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < state->ninputs; i++, c += 2)
		{
			ShardPoints *points = &g->points[i * state->nparts + part];
			int64		positions[SHARD_FIRST_POINTS + 1];

			points->n = DatumGetInt64(row[c]);
			if (points->n == 0)
				continue;
			if (nulls[c + 1])
				elog(ERROR, "gpusel: a partition answered no quantiles for a group of keys");
			/* percentile_disc's position for fraction j/128: ceil(f * n), at least 1 */
			for (int j = 0; j <= SHARD_FIRST_POINTS; j++)
				positions[j] = Max(1, (int64) ceil((double) j / SHARD_FIRST_POINTS *
												   (double) points->n));
			add_points(state, i, points, row[c + 1], positions, SHARD_FIRST_POINTS + 1);
		}
		for (int a = 0; a < state->naggs; a++)
		{
			int			ncols = ShardAggPartialColumns(&state->aggs[a]);

			if (ncols == 0)
				continue;
			ShardAggCombine(&state->aggs[a], &state->agg_cmp[a],
							g->states + state->agg_column[a],
							g->state_nulls + state->agg_column[a], row + c, nulls + c);
			c += ncols;
		}
	}
	MemoryContextSwitchTo(old);
}

/* A percentile input's non-NULL keys in a group, over all partitions. */
static int64
group_count(ShardScanState *state, ShardGroup *g, int input)
{
	int64		n = 0;

	for (int s = 0; s < state->nparts; s++)
		n += g->points[input * state->nparts + s].n;
	return n;
}

/*
 * The ascending ranks (1-based) a fraction of a percentile needs among n
 * keys, as PostgreSQL's final functions pick rows; *proportion is
 * percentile_cont's interpolation.  Returns how many (1 or 2).
 */
static int
fraction_ranks(const ShardAggInfo *info, double f, int64 n, int64 *ranks, double *proportion)
{
	*proportion = 0;
	if (info->kind == SHARD_PERCENTILE_DISC)
	{
		int64		row = Max(1, (int64) ceil(f * (double) n));

		ranks[0] = info->descending ? n + 1 - row : row;
		return 1;
	}
	else
	{
		int64		first = (int64) floor(f * (double) (n - 1));
		int64		second = (int64) ceil(f * (double) (n - 1));

		*proportion = f * (double) (n - 1) - (double) first;
		ranks[0] = info->descending ? n - first : first + 1;
		ranks[1] = info->descending ? n - second : second + 1;
		return first == second ? 1 : 2;
	}
}

/* The fractions of a percentile (one, or the array's elements). */
static int
aggregate_fractions(const ShardAggInfo *info, double **fractions, bool **nulls)
{
	Datum	   *values;
	int			n;

	if (info->fraction->constisnull)
		return 0;
	if (!info->multi)
	{
		*fractions = palloc(sizeof(double));
		*nulls = palloc0(sizeof(bool));
		(*fractions)[0] = DatumGetFloat8(info->fraction->constvalue);
		return 1;
	}
	deconstruct_array(DatumGetArrayTypeP(info->fraction->constvalue), FLOAT8OID,
					  sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &values, nulls, &n);
	*fractions = palloc(sizeof(double) * Max(1, n));
	for (int i = 0; i < n; i++)
		(*fractions)[i] = (*nulls)[i] ? 0 : DatumGetFloat8(values[i]);
	return n;
}

/* The group's wanted rank of an input; made when missing and create. */
static ShardRank *
group_rank(ShardGroup *g, int input, int64 rank, bool create)
{
	for (int k = 0; k < g->nranks; k++)
		if (g->ranks[k].input == input && g->ranks[k].rank == rank)
			return &g->ranks[k];
	if (!create)
		elog(ERROR, "gpusel: a rank of a group over partitions was not searched");
	g->ranks = g->ranks == NULL ? palloc(sizeof(ShardRank) * 4) :
		repalloc(g->ranks, sizeof(ShardRank) * (g->nranks + 1));
	memset(&g->ranks[g->nranks], 0, sizeof(ShardRank));
	g->ranks[g->nranks].input = input;
	g->ranks[g->nranks].rank = rank;
	return &g->ranks[g->nranks++];
}

/* Lists, for every group, the ranks its percentiles need. */
static void
plan_ranks(ShardScanState *state)
{
	MemoryContext old = MemoryContextSwitchTo(state->run_cxt);

	for (int a = 0; a < state->naggs; a++)
	{
		ShardAggInfo *info = &state->aggs[a];
		double	   *fractions = NULL;
		bool	   *fnulls = NULL;
		int			nfractions;

		if (!ShardAggIsPercentile(info))
			continue;
		nfractions = aggregate_fractions(info, &fractions, &fnulls);
		for (int gi = 0; gi < state->ngroups; gi++)
		{
			ShardGroup *g = state->groups[gi];
			int64		n = group_count(state, g, state->agg_input[a]);

			for (int f = 0; f < nfractions && n > 0; f++)
			{
				int64		ranks[2];
				double		proportion;
				int			nranks;

				if (fnulls[f])
					continue;
				nranks = fraction_ranks(info, fractions[f], n, ranks, &proportion);
				for (int k = 0; k < nranks; k++)
					(void) group_rank(g, state->agg_input[a], ranks[k], true);
			}
		}
	}
	MemoryContextSwitchTo(old);
}

/* Adds positions to a group's request for an input in a partition. */
static void
want_positions(ShardGroup *g, int index, const int64 *positions, int n)
{
	int			have = g->nwanted[index];
	int64	   *merged;
	int			m = 0;

	if (n == 0)
		return;
	merged = palloc(sizeof(int64) * (have + n));
	/* both ascending: merge without duplicates */
	for (int i = 0, j = 0; i < have || j < n;)
	{
		int64		next;

		if (j >= n || (i < have && g->wanted[index][i] <= positions[j]))
			next = g->wanted[index][i++];
		else
			next = positions[j++];
		if (m == 0 || merged[m - 1] != next)
			merged[m++] = next;
	}
	g->wanted[index] = merged;
	g->nwanted[index] = m;
}

/*
 * Searches every rank not yet found; collects the positions the next round
 * asks for.  Returns whether any are asked for.
 */
static bool
search_ranks(ShardScanState *state)
{
	int			nparts = state->nparts;
	int64	   *lo = palloc(sizeof(int64) * nparts);
	int64	   *hi = palloc(sizeof(int64) * nparts);
	int64	   *buf = palloc(sizeof(int64) * (gpusel_shard_fetch_keys + SHARD_NEXT_POINTS + 2));
	bool		asked = false;
	MemoryContext old = MemoryContextSwitchTo(state->run_cxt);

	for (int gi = 0; gi < state->ngroups; gi++)
	{
		ShardGroup *g = state->groups[gi];

		CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < g->nranks; k++)
		{
			ShardRank  *rank = &g->ranks[k];
			int			input = rank->input;
			bool		all;

			if (rank->state.found)
				continue;
			ShardRankSearch(&g->points[input * nparts], nparts, rank->rank,
							&state->input_cmp[input], state->input_colls[input],
							&rank->state, lo, hi);
			if (rank->state.found)
				continue;
			all = rank->state.fetch_keys <= gpusel_shard_fetch_keys;
			for (int s = 0; s < nparts; s++)
			{
				int			n = ShardWantedPositions(&g->points[input * nparts + s], lo[s], hi[s],
													 all, buf,
													 all ? gpusel_shard_fetch_keys :
													 Min(SHARD_NEXT_POINTS, gpusel_shard_fetch_keys));

				want_positions(g, input * nparts + s, buf, n);
				asked |= n > 0;
			}
		}
	}
	MemoryContextSwitchTo(old);
	return asked;
}

/* The literal test that a partition's row belongs to a group. */
static void
append_group_test(ShardScanState *state, StringInfo buf, ShardGroup *g)
{
	for (int k = 0; k < state->nkeys; k++)
	{
		if (k > 0)
			appendStringInfoString(buf, " AND ");
		if (g->key_nulls[k])
			appendStringInfo(buf, "(%s) IS NULL", state->key_sql[k]);
		else
			appendStringInfo(buf, "(%s) IS NOT DISTINCT FROM %s", state->key_sql[k],
							 ShardDeparseLiteral(g->keys[k], state->key_types[k],
												 state->key_typmods[k]));
	}
}

/*
 * A later round's query for a partition: per group, the keys at the wanted
 * positions, as percentile_disc at fractions (p - 0.5) / n, which pick
 * exactly position p; a NULL array for an input no group asks about.  NULL
 * when the partition is asked nothing.
 */
static char *
next_round_sql(ShardScanState *state, int part)
{
	StringInfoData buf;
	bool		any = false;

	initStringInfo(&buf);
	append_keys(state, &buf);
	for (int i = 0; i < state->ninputs; i++)
	{
		int			index = i * state->nparts + part;
		int			ngroups = 0;

		if (i > 0)
			appendStringInfoString(&buf, ", ");
		for (int gi = 0; gi < state->ngroups; gi++)
			if (state->groups[gi]->nwanted[index] > 0)
				ngroups++;
		if (ngroups == 0)
		{
			appendStringInfo(&buf, "NULL::%s",
							 format_type_be_qualified(get_array_type(state->input_types[i])));
			continue;
		}
		appendStringInfo(&buf, "percentile_disc(%s", state->nkeys > 0 ? "CASE" : "");
		for (int gi = 0; gi < state->ngroups; gi++)
		{
			ShardGroup *g = state->groups[gi];
			int			n = g->nwanted[index];
			double	   *fractions;

			if (n == 0)
				continue;
			fractions = palloc(sizeof(double) * n);
			for (int j = 0; j < n; j++)
				fractions[j] = ((double) g->wanted[index][j] - 0.5) / (double) g->points[index].n;
			if (state->nkeys > 0)
			{
				appendStringInfoString(&buf, " WHEN ");
				append_group_test(state, &buf, g);
				appendStringInfoString(&buf, " THEN ");
			}
			append_fractions(&buf, fractions, n);
			pfree(fractions);
		}
		appendStringInfo(&buf, "%s) WITHIN GROUP (ORDER BY %s)",
						 state->nkeys > 0 ? " END" : "", state->input_sql[i]);
		any = true;
	}
	if (!any)
	{
		pfree(buf.data);
		return NULL;
	}
	append_from(state, &buf, part);
	return buf.data;
}

/* A later round's answer of a partition: keys at the wanted positions. */
static void
absorb_next(ShardScanState *state, int part, ShardResult *result)
{
	MemoryContext old = MemoryContextSwitchTo(state->run_cxt);

	for (int r = 0; r < result->nrows; r++)
	{
		Datum	   *row = result->values + r * result->ncols;
		bool	   *nulls = result->nulls + r * result->ncols;
		ShardGroup *g = find_group(state, row, nulls, false);

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < state->ninputs; i++)
		{
			int			index = i * state->nparts + part;
			int			c = state->nkeys + i;

			if (g->nwanted[index] == 0)
				continue;
			if (nulls[c])
				elog(ERROR, "gpusel: a partition answered no keys for a group asked");
			add_points(state, i, &g->points[index], row[c], g->wanted[index], g->nwanted[index]);
			g->nwanted[index] = 0;
		}
	}
	MemoryContextSwitchTo(old);
}

/* Runs every round: the groups, their partial states and their ranks. */
static void
run_rounds(ShardScanState *state)
{
	int			nparts = state->nparts;
	MemoryContext round_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel shard round",
													ALLOCSET_DEFAULT_SIZES);
	char	  **sql = palloc(sizeof(char *) * nparts);
	Oid		   *types = palloc(sizeof(Oid) * (state->nkeys + 2 * state->ninputs + state->nstates));
	int32	   *typmods = palloc(sizeof(int32) * (state->nkeys + 2 * state->ninputs + state->nstates));
	int			ncols;

	state->links = palloc(sizeof(ShardLink *) * nparts);
	for (int s = 0; s < nparts; s++)
		state->links[s] = ShardLinkOpen(state->part_oids[s], state->part_remote[s],
										OidIsValid(state->userid) ? state->userid : GetUserId());

	ncols = first_round_types(state, types, typmods);
	for (int s = 0; s < nparts; s++)
		sql[s] = first_round_sql(state, s);
	run_round(state, sql, ncols, types, typmods, absorb_first, round_cxt);
	plan_ranks(state);

	/* later rounds: the keys, then an array of keys per percentile input */
	ncols = state->nkeys;
	for (int i = 0; i < state->ninputs; i++)
	{
		typmods[ncols] = -1;
		types[ncols++] = get_array_type(state->input_types[i]);
	}
	while (search_ranks(state))
	{
		if (state->rounds >= SHARD_MAX_ROUNDS)
			elog(ERROR, "gpusel: the search over partitions did not end in %d rounds",
				 SHARD_MAX_ROUNDS);
		for (int s = 0; s < nparts; s++)
			sql[s] = next_round_sql(state, s);
		run_round(state, sql, ncols, types, typmods, absorb_next, round_cxt);
	}
	MemoryContextDelete(round_cxt);
	for (int s = 0; s < nparts; s++)
		ShardLinkRelease(state->links[s]);
}

/* A rank's key, found by the rounds. */
static Datum
rank_value(ShardGroup *g, int input, int64 rank)
{
	ShardRank  *r = group_rank(g, input, rank, false);

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
	int			nranks = fraction_ranks(info, f, n, ranks, &proportion);
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
	int64		n = group_count(state, g, input);
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

		run_rounds(state);
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
		}
	}
}
