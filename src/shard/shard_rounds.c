/*
 * shard_rounds.c
 *	  The exact search for one rank of a group's keys spread over
 *	  partitions, from keys known at positions of each partition's order.
 *
 * Each partition s has n_s keys of the group in its own sorted order, and
 * the rounds have told us some of them with their 1-based positions (the
 * first round always position 1 and n_s).  Ties are broken by a total
 * order: key (value, s, position) sorts by value, then partition, then
 * position, so within a partition keys strictly increase with position,
 * and the key of rank r in this order has the value of rank r.  For a
 * known key c, the keys of partition s at or below c number at least the
 * position of s's last known key <= c, and the keys below c at most the
 * position of s's first known key >= c, less one (n_s where none is).
 *
 *	- U, the first known key whose lower bounds on "keys <= U" add up to r,
 *	  is at or above the rank's key; L, the last known key whose upper
 *	  bounds on "keys < L" add up to at most r - 1, is at or below it;
 *	- in each partition, the keys before its last known key below L (and
 *	  before L itself in L's partition) are below the rank's key, and those
 *	  after its first known key above U (after U in U's) above it.  The
 *	  keys between, the partition's window, hold the rank's key: it is the
 *	  (r - B)-th of all windows' keys, where B counts the keys before them.
 *
 * When L and U are the same key, it is the answer.  When every key in the
 * windows is known, the answer is picked from them.  Otherwise the next
 * round asks for keys inside the windows, which then shrink: no two keys
 * tie in this order, so equal values cannot hold a window open.
 * docs/semantics.md has the proof.
 */
#include "postgres.h"

#include "utils/datum.h"

#include "shard_internal.h"

/* A known key in the total order: value, partition, position. */
typedef struct ShardKey
{
	Datum		value;
	int			part;
	int64		position;
} ShardKey;

/* What keys are compared with. */
typedef struct ShardCompare
{
	FmgrInfo   *cmp;
	Oid			collation;
} ShardCompare;

/* The total order of two keys. */
static int
compare_keys(const ShardCompare *c, const ShardKey *a, const ShardKey *b)
{
	int			r = DatumGetInt32(FunctionCall2Coll(c->cmp, c->collation, a->value, b->value));

	if (r != 0)
		return r;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	if (a->position != b->position)
		return a->position < b->position ? -1 : 1;
	return 0;
}

/* qsort_arg comparator over ShardKeys. */
static int
compare_keys_qsort(const void *a, const void *b, void *arg)
{
	return compare_keys((const ShardCompare *) arg, (const ShardKey *) a, (const ShardKey *) b);
}

/*
 * Adds keys at ascending positions of the partition's order to the known
 * ones, in one merge (a position already known keeps its key).
 */
void
ShardPointsAdd(ShardPoints *points, const int64 *positions, const Datum *values, int n)
{
	int			have = points->npoints;
	int			total = have + n;
	int64	   *merged_positions;
	Datum	   *merged_values;
	int			m = 0;
	int			i = 0,
				j = 0;

	if (n == 0)
		return;
	for (int k = 1; k < n; k++)
		if (positions[k] < positions[k - 1])
			elog(ERROR, "gpusel: positions of a partition's keys out of order");
	merged_positions = palloc(sizeof(int64) * total);
	merged_values = palloc(sizeof(Datum) * total);
	while (i < have || j < n)
	{
		bool		take_known = j >= n || (i < have && points->positions[i] <= positions[j]);
		int64		position = take_known ? points->positions[i] : positions[j];
		Datum		value = take_known ? points->values[i] : values[j];

		if (take_known)
			i++;
		else
			j++;
		if (m > 0 && merged_positions[m - 1] == position)
			continue;
		merged_positions[m] = position;
		merged_values[m++] = value;
	}
	if (points->positions != NULL)
	{
		pfree(points->positions);
		pfree(points->values);
	}
	points->positions = merged_positions;
	points->values = merged_values;
	points->npoints = m;
}

/* The index of the first known position above p (npoints where none is). */
static int
first_position_above(const ShardPoints *points, int64 p)
{
	int			lo = 0,
				hi = points->npoints;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (points->positions[mid] > p)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* How many keys of a partition are known at positions lo..hi. */
int
ShardPointsCountBetween(const ShardPoints *points, int64 lo, int64 hi)
{
	return first_position_above(points, hi) - first_position_above(points, lo - 1);
}

/*
 * The index of partition s's first known key above key x (strictly_above)
 * or at or above it; npoints where none is.  A partition's known keys
 * increase with their index in the total order.
 */
static int
first_index(const ShardPoints *points, int part, const ShardCompare *c, const ShardKey *x,
			bool strictly_above)
{
	int			lo = 0,
				hi = points->npoints;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		ShardKey	key = {points->values[mid], part, points->positions[mid]};
		int			r = compare_keys(c, &key, x);

		if (strictly_above ? r > 0 : r >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The keys of all partitions at or below x, at least. */
static int64
keys_at_or_below_at_least(ShardPoints *parts, int nparts, const ShardCompare *c,
						  const ShardKey *x)
{
	int64		sum = 0;

	for (int s = 0; s < nparts; s++)
	{
		int			i = first_index(&parts[s], s, c, x, true);

		if (i > 0)
			sum += parts[s].positions[i - 1];
	}
	return sum;
}

/* The keys of all partitions below x, at most. */
static int64
keys_below_at_most(ShardPoints *parts, int nparts, const ShardCompare *c, const ShardKey *x)
{
	int64		sum = 0;

	for (int s = 0; s < nparts; s++)
	{
		int			i = first_index(&parts[s], s, c, x, false);

		sum += i < parts[s].npoints ? parts[s].positions[i] - 1 : parts[s].n;
	}
	return sum;
}

/*
 * Narrows the search for rank (1-based, of all partitions' keys).  On
 * return either state->found with state->value, or lo[s]..hi[s] are the
 * windows of the partitions' positions that hold the rank's key and
 * state->fetch_keys the keys in them not yet known.
 */
void
ShardRankSearch(ShardPoints *parts, int nparts, int64 rank, FmgrInfo *cmp, Oid collation,
				ShardRankState *state, int64 *lo, int64 *hi)
{
	ShardCompare c = {cmp, collation};
	ShardKey   *keys;
	int			nkeys = 0;
	bool		have_low = false,
				have_high = false;
	ShardKey	low = {0},
				high = {0};
	int64		before = 0;
	int64		unknown = 0;

	state->found = false;
	state->fetch_keys = 0;

	/*
	 * The bounds' sums only grow along the order, and each partition's known
	 * keys are in that order: U is the least of every partition's first key
	 * whose lower bounds reach rank, L the greatest of every partition's last
	 * key whose upper bounds stay below it, each found by binary search.
	 */
	for (int s = 0; s < nparts; s++)
	{
		int			a = 0,
					b = parts[s].npoints;

		while (a < b)
		{
			int			mid = (a + b) / 2;
			ShardKey	key = {parts[s].values[mid], s, parts[s].positions[mid]};

			if (keys_at_or_below_at_least(parts, nparts, &c, &key) >= rank)
				b = mid;
			else
				a = mid + 1;
		}
		if (a < parts[s].npoints)
		{
			ShardKey	key = {parts[s].values[a], s, parts[s].positions[a]};

			if (!have_high || compare_keys(&c, &key, &high) < 0)
				high = key;
			have_high = true;
		}
		a = -1;
		b = parts[s].npoints - 1;
		while (a < b)
		{
			int			mid = (a + b + 1) / 2;
			ShardKey	key = {parts[s].values[mid], s, parts[s].positions[mid]};

			if (keys_below_at_most(parts, nparts, &c, &key) <= rank - 1)
				a = mid;
			else
				b = mid - 1;
		}
		if (a >= 0)
		{
			ShardKey	key = {parts[s].values[a], s, parts[s].positions[a]};

			if (!have_low || compare_keys(&c, &key, &low) > 0)
				low = key;
			have_low = true;
		}
	}
	if (!have_high)
		elog(ERROR, "gpusel: the partitions hold fewer keys than the rank " INT64_FORMAT, rank);
	if (!have_low)
		elog(ERROR, "gpusel: the partitions' first keys do not bound the rank " INT64_FORMAT, rank);

	if (compare_keys(&c, &low, &high) > 0)
		elog(ERROR, "gpusel: the bounds of a rank over partitions crossed");
	if (compare_keys(&c, &low, &high) == 0)
	{
		state->found = true;
		state->value = low.value;
		return;
	}

	for (int s = 0; s < nparts; s++)
	{
		int			below = first_index(&parts[s], s, &c, &low, false);	/* first >= L */
		int			above = first_index(&parts[s], s, &c, &high, true);	/* first > U */

		lo[s] = s == low.part ? low.position :
			(below > 0 ? parts[s].positions[below - 1] + 1 : 1);
		hi[s] = s == high.part ? high.position :
			(above < parts[s].npoints ? parts[s].positions[above] - 1 : parts[s].n);
		before += lo[s] - 1;
		if (hi[s] >= lo[s])
			unknown += (hi[s] - lo[s] + 1) - ShardPointsCountBetween(&parts[s], lo[s], hi[s]);
	}
	if (unknown > 0)
	{
		state->fetch_keys = unknown;
		return;
	}

	/* every key of the windows is known: pick the rank among them */
	for (int s = 0; s < nparts; s++)
		nkeys += parts[s].npoints;
	keys = palloc(sizeof(ShardKey) * Max(1, nkeys));
	nkeys = 0;
	for (int s = 0; s < nparts; s++)
		for (int i = 0; i < parts[s].npoints; i++)
			if (parts[s].positions[i] >= lo[s] && parts[s].positions[i] <= hi[s])
			{
				keys[nkeys].value = parts[s].values[i];
				keys[nkeys].part = s;
				keys[nkeys++].position = parts[s].positions[i];
			}
	if (rank - before < 1 || rank - before > nkeys)
		elog(ERROR, "gpusel: a rank's windows over partitions hold %d keys after "
			 INT64_FORMAT ", not rank " INT64_FORMAT, nkeys, before, rank);
	qsort_arg(keys, nkeys, sizeof(ShardKey), compare_keys_qsort, &c);
	state->found = true;
	state->value = keys[rank - before - 1].value;
	pfree(keys);
}

/*
 * Positions in lo..hi of one partition to ask for next, ascending, at most
 * max: every unknown one (all), or about max evenly spaced unknown ones.
 */
int
ShardWantedPositions(ShardPoints *points, int64 lo, int64 hi, bool all, int64 *out, int max)
{
	int			count = 0;
	int			i = 0;
	int64		span = hi - lo + 1;
	int64		step;

	if (span <= 0)
		return 0;
	step = all ? 1 : Max(1, span / (max + 1));
	for (int64 p = all ? lo : lo + step / 2; p <= hi && count < max; p += step)
	{
		while (i < points->npoints && points->positions[i] < p)
			i++;
		if (i < points->npoints && points->positions[i] == p)
			continue;
		out[count++] = p;
	}
	/* the spacing met only known keys: the first unknown one keeps the search going */
	if (count == 0 && max > 0)
	{
		i = 0;
		for (int64 p = lo; p <= hi; p++)
		{
			while (i < points->npoints && points->positions[i] < p)
				i++;
			if (i >= points->npoints || points->positions[i] != p)
			{
				out[count++] = p;
				break;
			}
		}
	}
	return count;
}
