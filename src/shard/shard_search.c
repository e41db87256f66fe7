/*
 * shard_search.c
 *	  The rounds of GpuselShards: the SQL each partition runs, the groups
 *	  their answers fill (matched across partitions by their keys' hash and
 *	  equality, NULL equal to NULL as GROUP BY has it), and the search for
 *	  every wanted rank until each is found (shard_rounds.c).
 *
 * Round 1 asks each partition for its groups' partial states, and per
 * percentile input the count and the keys at SHARD_FIRST_POINTS + 1 evenly
 * spaced fractions.  A later round asks, per group, for the keys at the
 * positions the search wants, as percentile_disc at fractions that name
 * those positions.  All partitions are asked at once; a connection shared
 * by two partitions answers them one after the other.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "guc.h"
#include "shard_state.h"

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
		values[j] = datumCopy(values[j], tc->typbyval, tc->typlen);
	}
	ShardPointsAdd(points, positions, values, n);
}

/* What takes a partition's answer of a round. */
typedef void (*AbsorbFn) (ShardScanState *state, int part, ShardResult *result);

/* Reads one partition's answer, notes its time and hands it to absorb. */
static void
receive_one(ShardScanState *state, int s, int ncols, const Oid *types, const int32 *typmods,
			AbsorbFn absorb, MemoryContext round_cxt, instr_time *started)
{
	MemoryContext old = MemoryContextSwitchTo(round_cxt);
	ShardResult *result;
	instr_time	now;

	result = ShardLinkReceive(state->links[s], ncols, types, typmods, &state->bytes);
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, *started);
	state->part_ms[s] += INSTR_TIME_GET_MILLISEC(now);
	MemoryContextSwitchTo(old);
	absorb(state, s, result);
	MemoryContextReset(round_cxt);
}

/*
 * Sends one query per partition (one at a time per connection), runs the
 * local partitions' while the remote ones work, and hands every answer to
 * absorb as it comes.
 */
static void
run_round(ShardScanState *state, char **sql, int ncols, const Oid *types,
		  const int32 *typmods, AbsorbFn absorb, MemoryContext round_cxt)
{
	int			nparts = state->nparts;
	bool	   *pending = palloc(sizeof(bool) * nparts);
	instr_time *started = palloc(sizeof(instr_time) * nparts);
	int			left = 0;
	instr_time	round_start;
	instr_time	round_end;

	INSTR_TIME_SET_CURRENT(round_start);
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

		/* send to every connection that is free */
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
		/* the local partitions meanwhile, here */
		for (int s = 0; s < nparts; s++)
		{
			if (!pending[s] || state->part_remote[s])
				continue;
			INSTR_TIME_SET_CURRENT(started[s]);
			ShardLinkSend(state->links[s], sql[s]);
			receive_one(state, s, ncols, types, typmods, absorb, round_cxt, &started[s]);
			pending[s] = false;
			left--;
		}
		/* the remote answers in the order they come */
		while (sent != NIL)
		{
			int			ready = -1;

			foreach(lc, sent)
				if (ShardLinkReady(state->links[lfirst_int(lc)]))
				{
					ready = lfirst_int(lc);
					break;
				}
			if (ready < 0)
			{
				ShardLink **waiting = palloc(sizeof(ShardLink *) * list_length(sent));
				int			n = 0;

				foreach(lc, sent)
					waiting[n++] = state->links[lfirst_int(lc)];
				ShardLinkWaitAny(waiting, n);
				pfree(waiting);
				continue;
			}
			receive_one(state, ready, ncols, types, typmods, absorb, round_cxt, &started[ready]);
			sent = list_delete_int(sent, ready);
			pending[ready] = false;
			left--;
		}
	}
	INSTR_TIME_SET_CURRENT(round_end);
	INSTR_TIME_SUBTRACT(round_end, round_start);
	if (state->rounds <= SHARD_MAX_ROUNDS)
		state->round_ms[state->rounds - 1] = INSTR_TIME_GET_MILLISEC(round_end);
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
int64
ShardGroupCount(ShardScanState *state, ShardGroup *g, int input)
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
int
ShardFractionRanks(const ShardAggInfo *info, double f, int64 n, int64 *ranks, double *proportion)
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
ShardRank *
ShardGroupRank(ShardGroup *g, int input, int64 rank, bool create)
{
	for (int k = 0; k < g->nranks; k++)
		if (g->ranks[k].input == input && g->ranks[k].rank == rank)
			return &g->ranks[k];
	if (!create)
		elog(ERROR, "gpusel: a rank of a group over partitions was not searched");
	g->ranks = g->ranks == NULL ? palloc(sizeof(ShardRank)) :
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
			int64		n = ShardGroupCount(state, g, state->agg_input[a]);

			for (int f = 0; f < nfractions && n > 0; f++)
			{
				int64		ranks[2];
				double		proportion;
				int			nranks;

				if (fnulls[f])
					continue;
				nranks = ShardFractionRanks(info, fractions[f], n, ranks, &proportion);
				for (int k = 0; k < nranks; k++)
					(void) ShardGroupRank(g, state->agg_input[a], ranks[k], true);
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

/* A range of fractions wanted by some group. */
typedef struct FractionRange
{
	double		lo;
	double		hi;
} FractionRange;

/* qsort comparator of FractionRanges by their start. */
static int
fraction_range_cmp(const void *a, const void *b)
{
	double		x = ((const FractionRange *) a)->lo;
	double		y = ((const FractionRange *) b)->lo;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * One array of fractions that every group asking about an input in a
 * partition can share: over the union of the groups' ranges of wanted
 * positions (as fractions of each group's count), spaced finely enough
 * that in every group consecutive fractions fall on positions closer than
 * its wanted positions are (every position, where it wants them all).  A
 * constant array is what gpusel's grouped scan on the partition's server
 * answers itself.  Returns the number of fractions (0 where more than
 * gpusel.shard_round_fractions would be needed).
 */
static int
shared_fractions(ShardScanState *state, int index, double **out)
{
	FractionRange *ranges = NULL;
	int			nranges = 0;
	int			capacity = 0;
	double		spacing = 1.0;
	double		total = 0;
	int			count = 0;
	double	   *fractions;

	for (int gi = 0; gi < state->ngroups; gi++)
	{
		ShardGroup *g = state->groups[gi];
		int			nw = g->nwanted[index];
		double		n = (double) g->points[index].n;
		int64		gap = INT64_MAX;

		if (nw == 0)
			continue;
		for (int j = 1; j < nw; j++)
			gap = Min(gap, g->wanted[index][j] - g->wanted[index][j - 1]);
		if (gap == INT64_MAX)
			gap = 1;
		/* below gap / n: consecutive fractions never skip a wanted spacing */
		spacing = Min(spacing, (double) gap / (n + 1.0));
		/* a range per run of wanted positions (one per rank's window, mostly) */
		for (int j = 0, first = 0; j < nw; j++)
		{
			if (j + 1 < nw &&
				g->wanted[index][j + 1] - g->wanted[index][j] <= SHARD_RANGE_BREAK * gap)
				continue;
			if (nranges == capacity)
			{
				capacity = Max(64, capacity * 2);
				ranges = ranges == NULL ? palloc(sizeof(FractionRange) * capacity) :
					repalloc(ranges, sizeof(FractionRange) * capacity);
			}
			ranges[nranges].lo = ((double) g->wanted[index][first] - 1.0) / n;
			ranges[nranges++].hi = (double) g->wanted[index][j] / n;
			first = j + 1;
		}
	}
	qsort(ranges, nranges, sizeof(FractionRange), fraction_range_cmp);
	/* merge overlapping ranges */
	for (int r = 0; r < nranges; r++)
	{
		if (count > 0 && ranges[r].lo <= ranges[count - 1].hi)
			ranges[count - 1].hi = Max(ranges[count - 1].hi, ranges[r].hi);
		else
			ranges[count++] = ranges[r];
	}
	nranges = count;
	for (int r = 0; r < nranges; r++)
		total += floor((ranges[r].hi - ranges[r].lo) / spacing) + 1;
	if (total > gpusel_shard_round_fractions)
		return 0;
	fractions = palloc(sizeof(double) * ((int) total + 1));
	count = 0;
	for (int r = 0; r < nranges; r++)
	{
		for (int64 k = 1;; k++)
		{
			double		f = ranges[r].lo + (double) k * spacing;

			if (f >= ranges[r].hi)
				break;
			fractions[count++] = f;
		}
		/* the range's last fraction, exactly: its group's last wanted position */
		fractions[count++] = Min(1.0, ranges[r].hi);
	}
	*out = fractions;
	return count;
}

/*
 * A later round's query for a partition.  Per input that some group asks
 * about: a constant array of fractions the groups share (shared_fractions),
 * or else per group the keys at its wanted positions, as percentile_disc at
 * fractions (p - 0.5) / n, which pick exactly position p, chosen by a CASE
 * over the group's keys.  A NULL array for an input no group asks about;
 * NULL when the partition is asked nothing.
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
		state->nshared[index] = 0;
		for (int gi = 0; gi < state->ngroups; gi++)
			if (state->groups[gi]->nwanted[index] > 0)
				ngroups++;
		if (ngroups == 0)
		{
			appendStringInfo(&buf, "NULL::%s",
							 format_type_be_qualified(get_array_type(state->input_types[i])));
			continue;
		}
		any = true;
		/* after a round of shared fractions that gave some group nothing new: per group */
		if (state->shared_stalled[index])
			state->shared_stalled[index] = false;
		else
			state->nshared[index] = shared_fractions(state, index, &state->shared[index]);
		if (state->nshared[index] > 0)
		{
			appendStringInfoString(&buf, "percentile_disc(");
			append_fractions(&buf, state->shared[index], state->nshared[index]);
			appendStringInfo(&buf, ") WITHIN GROUP (ORDER BY %s)", state->input_sql[i]);
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
			int			nshared = state->nshared[index];

			if (nshared > 0 && !nulls[c])
			{
				/* the shared fractions' positions in this group: percentile_disc's */
				int64	   *positions = palloc(sizeof(int64) * nshared);
				ShardPoints *points = &g->points[index];
				int64		n = points->n;
				int			before = 0;

				if (g->nwanted[index] > 0)
					before = ShardPointsCountBetween(points, g->wanted[index][0],
										   g->wanted[index][g->nwanted[index] - 1]);
				for (int j = 0; j < nshared; j++)
					positions[j] = Min(n, Max(1, (int64) ceil(state->shared[index][j] *
															  (double) n)));
				add_points(state, i, points, row[c], positions, nshared);
				pfree(positions);
				/* no new key where the group asked: the next round asks it alone */
				if (g->nwanted[index] > 0 &&
					ShardPointsCountBetween(points, g->wanted[index][0],
								  g->wanted[index][g->nwanted[index] - 1]) == before)
					state->shared_stalled[index] = true;
				g->nwanted[index] = 0;
				continue;
			}
			if (g->nwanted[index] == 0)
				continue;
			if (nulls[c])
				elog(ERROR, "gpusel: a partition answered no keys for a group asked");
			add_points(state, i, &g->points[index], row[c], g->wanted[index], g->nwanted[index]);
			g->nwanted[index] = 0;
		}
	}
	/* every group asked about must have answered */
	for (int gi = 0; gi < state->ngroups; gi++)
		for (int i = 0; i < state->ninputs; i++)
			if (state->groups[gi]->nwanted[i * state->nparts + part] > 0)
				elog(ERROR, "gpusel: a partition did not answer for a group it was asked about");
	MemoryContextSwitchTo(old);
}

/* Runs every round: the groups, their partial states and their ranks. */
void
ShardRunRounds(ShardScanState *state)
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

	state->shared = palloc0(sizeof(double *) * Max(1, state->ninputs * nparts));
	state->nshared = palloc0(sizeof(int) * Max(1, state->ninputs * nparts));
	state->shared_stalled = palloc0(sizeof(bool) * Max(1, state->ninputs * nparts));

	/* later rounds: the keys, then an array of keys per percentile input */
	ncols = state->nkeys;
	for (int i = 0; i < state->ninputs; i++)
	{
		typmods[ncols] = -1;
		types[ncols++] = get_array_type(state->input_types[i]);
	}
	for (int round = 2; search_ranks(state); round++)
	{
		if (round > SHARD_MAX_ROUNDS)
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
