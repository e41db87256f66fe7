/*
 * groupagg_narrow.c
 *	  Percentile keys past work_mem over a source read twice cheaply (the
 *	  column cache): instead of spilling every key to a temporary file, the
 *	  scan counts keys by bucket and then reads its rows once more, keeping
 *	  only the keys of the buckets that hold a rank the results read.
 *
 * The first pass holds keys as usual until the collection's arrays would
 * pass work_mem.  Then each group's held keys give it 63 splitters (evenly
 * spaced keys of a strided sample of them, sorted), the held keys are
 * counted into the 64 buckets between splitters and freed, and every later
 * key of the pass only adds to its group's total and its bucket's count.
 * A bucket is the keys with a given number of splitters below them, so
 * buckets follow the keys' order.  Groups first met after that have no
 * splitters: all their keys are one bucket.  Only collections whose groups
 * hold enough keys (GROUPAGG_NARROW_MIN_KEYS_PER_GROUP) are read twice:
 * with few keys per group the ranks' buckets would keep most of them.
 *
 * At the end of the first pass the totals fix each group's ranks.  The
 * results note the positions they will read (as they do for the device),
 * and each position's rank falls in one bucket of its group, whose keys
 * the second pass keeps, in the collection's ordinary arrays (which spill
 * as usual if the kept keys pass work_mem).  A rank r of its group in
 * bucket b is then rank r - below(b) + kept_below(b) among the group's
 * kept keys, where below(b) counts the keys of the buckets before b and
 * kept_below(b) those of them that were kept; the kept keys are selected
 * at those ranks as spilled keys are (GroupAggSpillPick).
 *
 * Both passes see the same rows: the same snapshot, the same column tests
 * and quals, no volatile function in them (groupagg_scan.c asks).  Exact in
 * every case; a poor sample (keys sorted in the table) only makes the
 * kept buckets larger.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"

#include "groupagg_internal.h"
#include "narrow_buckets.h"
#include "scan_source.h"

/*
 * buckets of a group: every group has NARROW_BUCKETS - 1 splitters (a
 * power of two less one, so that a key's bucket is a fixed number of
 * steps), those past its own padded with the greatest key, below which
 * no key lies: their buckets stay empty.  Shared splitters (under Gather)
 * may be more, up to NARROW_MAX_BUCKETS - 1, where the groups are few: no
 * more, as their counts are made for the groups the planner expects.  A
 * scan that meets many more groups counts by bucket only its first
 * groups (counted_limit) and reads the others' keys whole.
 */
#define NARROW_BUCKETS			64
#define NARROW_SPLITTERS		(NARROW_BUCKETS - 1)
#define NARROW_MAX_BUCKETS		256
/* held keys per splitter of its own, at least: a group of few keys gets few */
#define NARROW_KEYS_PER_SPLITTER	8
/* sampled keys per bucket from which the splitters are picked */
#define NARROW_SAMPLE_PER_BUCKET	4

/* unsigned keys sort in value order */
#define ST_SORT sort_narrow_sample
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * keys of a parallel scan's sample per shared bucket, from which every
 * process's splitters are picked; and the share of work_mem each
 * process's bucket counts may take, which sets how many buckets there are
 */
#define NARROW_SHARED_SAMPLE_PER_BUCKET	16
#define NARROW_SHARED_COUNTS_SHARE		2
/* ranges of keys the second pass tests a key against, before finding its bucket */
#define NARROW_ANY_RANGES		4

/* a group's wanted buckets travel to a worker as the bits of uint64 words */
StaticAssertDecl(NARROW_BUCKETS % 64 == 0 && NARROW_MAX_BUCKETS % 64 == 0,
				 "a group's buckets fill whole uint64 words");

/* A collection's state while it is read twice. */
struct GroupNarrow
{
	bool		collecting;		/* the second pass: the wanted buckets' keys are kept */
	int64		ngroups;		/* groups with splitters and bucket counts */
	int			nbuckets;		/* a power of two: NARROW_BUCKETS, or more where shared */
	int			nsplitters;		/* nbuckets - 1 */
	int64		stride;			/* nsplitters, or 0 where every group shares one set */
	int64		counted_cap;	/* shared splitters: groups bucket_counts has room for */
	int64		counted_limit;	/* shared splitters: groups counted by bucket at most */
	bool	   *whole;			/* shared splitters, per counted group: some process did
								 * not count it, so its keys are read whole (the
								 * consumer marks it) */
	bool		any_whole;		/* some group's keys are read whole */
	uint64	   *splitters;		/* group g's at g * stride */
	int64	   *bucket_counts;	/* group g's at g * nbuckets */
	uint8	   *wanted;			/* per bucket: it holds a rank the results read */
	uint8	   *any_wanted;		/* shared splitters: per bucket, some group wants it */
	int			nany;			/* those buckets as at most NARROW_ANY_RANGES ranges of
								 * keys [any_lo, any_hi]; 0: none are, or more ranges
								 * than that: test by bucket */
	uint64		any_lo[NARROW_ANY_RANGES];
	uint64		any_hi[NARROW_ANY_RANGES];
	NarrowLut  *lut;			/* shared splitters: their table (narrow_buckets.h) */
	/* at the end of the first pass */
	int64		ngroups_end;
	int64	   *total_start;	/* ngroups_end + 1: each group's start among all keys */
	bool	   *group_wanted;	/* per group without splitters: its keys are read */
	int64		kept_total;		/* keys the second pass keeps */
	/* the wanted buckets as key ranges [lo, hi], adjacent ones merged, by group */
	int64	   *range_start;	/* ngroups_end + 1: group g's at [range_start[g], [g + 1]) */
	uint64	   *range_lo;
	uint64	   *range_hi;
};

/*
 * Whether a second pass over the same rows gives each row the same group
 * and keys: rows go in by block and no input is volatile.
 */
bool
GroupAggSinkInputsReadTwice(GroupAggSink *sink)
{
	if (sink->has_colstates && !sink->exprs_by_block)
		return false;
	for (int i = 0; i < sink->ninputs; i++)
		if (contain_volatile_functions((Node *) sink->inputs[i].expr))
			return false;
	return true;
}

/*
 * Whether a collection's keys can be counted by bucket: a plain column's,
 * of a key type, not numeric, not kept whole.
 */
static bool
countable_by_bucket(GroupAggSink *sink, PercentileCollection *pc)
{
	GroupInput *in = &sink->inputs[pc->input];

	return pc->kept == NULL && !pc->big_keys && pc->numeric_scale < 0 && pc->keytype != NULL &&
		in->colstate == NULL && in->column >= 0 &&
		KeysOfColumn(in->coltype, pc->keytype->typid, NULL, NULL, 0, 0, NULL);
}

/*
 * Whether a collection whose arrays would pass work_mem should be counted
 * by bucket instead of spilling: the scan reads its source twice cheaply
 * (GroupAggSinkAllowSecondPass), its groups hold enough keys for buckets
 * to narrow them, and its keys are a plain column's, held on the host
 * only, of a key type (not numeric, not kept whole).
 */
bool
GroupAggNarrowDue(GroupAggSink *sink, PercentileCollection *pc)
{
	int64		ngroups = sink->nkeys > 0 ? sink->ngroups : 1;

	return sink->second_pass_allowed && pc->narrow == NULL && pc->spill == NULL &&
		pc->nkeys >= GROUPAGG_NARROW_MIN_KEYS_PER_GROUP * ngroups &&
		pc->dev == NULL && pc->dev_keys == 0 && pc->nkeys > 0 &&
		countable_by_bucket(sink, pc);
}

/*
 * Starts counting a collection by bucket: splitters for each group from
 * its held keys, the held keys counted, the arrays freed.  The groups'
 * totals (pc->counts) go on counting every key.
 */
void
GroupAggNarrowStart(GroupAggSink *sink, PercentileCollection *pc)
{
	int64		ng = sink->nkeys > 0 ? sink->ngroups : 1;
	int64		n = pc->nkeys;
	GroupNarrow *nw = MemoryContextAllocZero(sink->cxt, sizeof(GroupNarrow));
	int64	   *start = palloc(sizeof(int64) * (ng + 1));
	int64	   *next = palloc(sizeof(int64) * ng);
	uint64	   *by_group = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * Max(n, 1));
	uint64		sample[NARROW_BUCKETS * NARROW_SAMPLE_PER_BUCKET];

	GroupAggNoteMemory(sink);
	/* the held keys by group (nothing spilled or shipped: pc->counts are theirs) */
	start[0] = 0;
	for (int64 g = 0; g < ng; g++)
	{
		start[g + 1] = start[g] + pc->counts[g];
		next[g] = start[g];
	}
	if (start[ng] != n)
		elog(ERROR, "gpusel: a percentile's held keys do not match its groups' counts");
	for (int64 i = 0; i < n; i++)
		by_group[next[sink->nkeys > 0 ? pc->groups[i] : 0]++] = GroupAggHeldKey(pc, i);

	nw->ngroups = ng;
	nw->nbuckets = NARROW_BUCKETS;
	nw->nsplitters = NARROW_SPLITTERS;
	nw->stride = NARROW_SPLITTERS;
	nw->splitters = MemoryContextAllocHuge(sink->cxt, sizeof(uint64) * NARROW_SPLITTERS * Max(ng, 1));
	nw->bucket_counts = MemoryContextAllocHuge(sink->cxt, sizeof(int64) * NARROW_BUCKETS * ng);
	memset(nw->bucket_counts, 0, sizeof(int64) * NARROW_BUCKETS * ng);
	for (int64 g = 0; g < ng; g++)
	{
		const uint64 *keys = by_group + start[g];
		int64		m = start[g + 1] - start[g];
		int64		ns = Min(NARROW_SPLITTERS, m / NARROW_KEYS_PER_SPLITTER);
		uint64	   *split = nw->splitters + g * NARROW_SPLITTERS;
		int64	   *counts = nw->bucket_counts + g * NARROW_BUCKETS;
		int64		nsample = Min(m, (ns + 1) * NARROW_SAMPLE_PER_BUCKET);

		if ((g & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* a strided sample, sorted; the splitters evenly spaced in it */
		for (int64 i = 0; i < nsample; i++)
			sample[i] = keys[i * m / nsample];
		sort_narrow_sample(sample, nsample);
		for (int64 i = 0; i < NARROW_SPLITTERS; i++)
			split[i] = i < ns ? sample[(i + 1) * nsample / (ns + 1)] : PG_UINT64_MAX;
		for (int64 i = 0; i < m; i++)
			counts[narrow_bucket_of(split, NARROW_SPLITTERS, keys[i])]++;
	}
	pfree(by_group);
	pfree(start);
	pfree(next);

	GroupAggFreeHeldPairs(pc);
	pc->nkeys = 0;
	pc->dev_declined = true;	/* the device would miss the keys no longer held */
	pc->narrow = nw;
}

/*
 * First pass: counts a block's keys (mapped; skip[j] for a NULL) into their
 * groups' totals and buckets.  Every key's bucket first, in a loop of its
 * own: the searches are independent of one another and of the counts, so
 * the processor overlaps them, where one loop would wait on each search's
 * chain of loads before its count.
 */
void
GroupAggNarrowCount(PercentileCollection *pc, const int64 *groups, const uint64 *keys,
					const bool *skip, int len)
{
	GroupNarrow *nw = pc->narrow;

	/* locals: the stores below could alias the state (no strict aliasing) */
	int64	   *counts = pc->counts;
	int64	   *bucket_counts = nw->bucket_counts;
	const uint64 *splitters = nw->splitters;
	int64		ngroups = nw->ngroups;
	int64		stride = nw->stride;
	int			nb = nw->nbuckets;
	int			ns = nw->nsplitters;
	uint16		bucket[KEYS_BLOCK];

	Assert(len <= KEYS_BLOCK);
	if (stride == 0)
		for (int j = 0; j < len; j++)
			bucket[j] = (uint16) narrow_lut_bucket(nw->lut, nw->splitters, nw->nsplitters, keys[j]);
	else
		for (int j = 0; j < len; j++)
			bucket[j] = groups[j] < ngroups ?
				(uint16) narrow_bucket_of(splitters + groups[j] * stride, ns, keys[j]) : 0;
	for (int j = 0; j < len; j++)
	{
		int64		g = groups[j];

		if (skip[j])
			continue;
		counts[g]++;
		if (g < ngroups)
			bucket_counts[g * nb + bucket[j]]++;
	}
}

/*
 * Whether group g's ranks are found among its bucket counts: it has them,
 * and (the consumer, under Gather) every process counted its keys so.
 * Otherwise its keys are read whole.
 */
static inline bool
counted_by_bucket(const GroupNarrow *nw, int64 g)
{
	return g < nw->ngroups && (nw->whole == NULL || !nw->whole[g]);
}

/*
 * Appends the keys of the buckets wanted[0 .. nbuckets) marks, among
 * ascending splitters, as ranges [los[i], his[i]] from *n on, a bucket
 * that goes on from the range before (from 'first' on) extending it.
 * False, with *n past 'most' no more, where they take more ranges than
 * 'most'.
 */
static bool
append_wanted_ranges(const uint64 *split, int nsplitters, int nbuckets, const uint8 *wanted,
					 uint64 *los, uint64 *his, int64 first, int64 *n, int64 most)
{
	for (int b = 0; b < nbuckets; b++)
	{
		uint64		lo;
		uint64		hi;
		bool		past = false;

		if (!wanted[b] || !narrow_bucket_keys(split, nsplitters, b, &lo, &hi, &past))
		{
			if (past)
				break;
			continue;
		}
		if (*n > first && his[*n - 1] != PG_UINT64_MAX && his[*n - 1] + 1 == lo)
			his[*n - 1] = hi;
		else if (*n - first == most)
			return false;
		else
		{
			los[*n] = lo;
			his[(*n)++] = hi;
		}
	}
	return true;
}

/*
 * The wanted buckets of each group as ranges of keys, for the second
 * pass's test: bucket b holds the keys above splitter b - 1 and up to
 * splitter b, so a run of wanted buckets is one range.
 */
static void
make_ranges(GroupAggSink *sink, GroupNarrow *nw)
{
	int64		ng = nw->ngroups_end;
	int64		n = 0;
	int64		cap = Max(ng, 16);

	nw->range_start = MemoryContextAllocHuge(sink->cxt, sizeof(int64) * (ng + 1));
	nw->range_lo = MemoryContextAllocHuge(sink->cxt, sizeof(uint64) * cap);
	nw->range_hi = MemoryContextAllocHuge(sink->cxt, sizeof(uint64) * cap);
	for (int64 g = 0; g < ng; g++)
	{
		nw->range_start[g] = n;
		if (n + nw->nbuckets > cap)
		{
			cap = Max(cap * 2, n + nw->nbuckets);
			nw->range_lo = repalloc_huge(nw->range_lo, sizeof(uint64) * cap);
			nw->range_hi = repalloc_huge(nw->range_hi, sizeof(uint64) * cap);
		}
		if (!counted_by_bucket(nw, g))
		{
			/* no splitters, or not counted everywhere: every key, or none */
			if (nw->group_wanted[g])
			{
				nw->range_lo[n] = 0;
				nw->range_hi[n++] = PG_UINT64_MAX;
			}
			continue;
		}
		(void) append_wanted_ranges(nw->splitters + g * nw->stride, nw->nsplitters, nw->nbuckets,
									nw->wanted + g * nw->nbuckets, nw->range_lo, nw->range_hi,
									nw->range_start[g], &n, nw->nbuckets);
	}
	nw->range_start[ng] = n;
}

/*
 * The buckets some group wants as ranges of keys, where a few cover them
 * (the usual case: every group's rank lies near the same place in the
 * column), so that the second pass tests a key against them instead of
 * finding its bucket.  Bucket b holds the keys above splitter b - 1 and
 * up to splitter b.
 */
static void
note_any_ranges(GroupNarrow *nw)
{
	int64		n = 0;

	/* more ranges than that, or none: the test goes by bucket */
	nw->nany = append_wanted_ranges(nw->splitters, nw->nsplitters, nw->nbuckets, nw->any_wanted,
									nw->any_lo, nw->any_hi, 0, &n, NARROW_ANY_RANGES) ? (int) n : 0;
}

/*
 * Where every group shares the splitters: the buckets some group wants,
 * so that the second pass drops a row whose key lies in none of them
 * before finding its group (GroupAggNarrowAnyWanted).
 */
static void
note_any_wanted(GroupAggSink *sink, GroupNarrow *nw)
{
	int			nb = nw->nbuckets;

	nw->nany = 0;
	if (nw->stride != 0)
		return;
	nw->any_wanted = MemoryContextAllocZero(sink->cxt, nb);
	/* a group read whole wants every bucket */
	if (nw->any_whole || nw->ngroups < nw->ngroups_end)
	{
		memset(nw->any_wanted, 1, nb);
		note_any_ranges(nw);
		return;
	}
	for (int64 g = 0; g < nw->ngroups_end; g++)
	{
		if ((g & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int b = 0; b < nb; b++)
			nw->any_wanted[b] |= nw->wanted[g * nb + b];
	}
	note_any_ranges(nw);
}

/*
 * The bucket of group g (one with splitters) that holds its rank r, with
 * the keys of the buckets below it and, of them, those of wanted buckets.
 */
static int
rank_bucket(GroupNarrow *nw, int64 g, int64 r, int64 *below, int64 *kept_below)
{
	const int64 *counts = nw->bucket_counts + g * nw->nbuckets;

	*below = 0;
	*kept_below = 0;
	for (int b = 0; b < nw->nbuckets; b++)
	{
		if (r < *below + counts[b])
			return b;
		*below += counts[b];
		if (nw->wanted[g * nw->nbuckets + b])
			*kept_below += counts[b];
	}
	elog(ERROR, "gpusel: a percentile's rank is past its group's buckets");
	return -1;					/* keep compiler quiet */
}

/*
 * After the first pass: the buckets that hold the positions the results
 * read (ascending, among every key in the order by group and key, whose
 * groups start at total_start[0 .. ngroups]).  Returns the keys the
 * second pass will keep.
 */
int64
GroupAggNarrowChooseBuckets(GroupAggSink *sink, PercentileCollection *pc,
							const int64 *total_start, int64 ngroups,
							const int64 *positions, int64 npositions)
{
	GroupNarrow *nw = pc->narrow;
	int64		nbuckets;
	int64		g = 0;

	GroupAggNarrowReserve(sink, pc, ngroups);
	nbuckets = nw->ngroups * nw->nbuckets;
	nw->ngroups_end = ngroups;
	nw->total_start = MemoryContextAllocHuge(sink->cxt, sizeof(int64) * (ngroups + 1));
	memcpy(nw->total_start, total_start, sizeof(int64) * (ngroups + 1));
	nw->group_wanted = MemoryContextAllocHuge(sink->cxt, sizeof(bool) * Max(ngroups, 1));
	memset(nw->group_wanted, 0, sizeof(bool) * Max(ngroups, 1));
	nw->wanted = MemoryContextAllocHuge(sink->cxt, Max(nbuckets, 1));
	memset(nw->wanted, 0, Max(nbuckets, 1));
	nw->kept_total = 0;

	for (int64 i = 0; i < npositions; i++)
	{
		int64		r;

		while (positions[i] >= total_start[g + 1])
			g++;
		r = positions[i] - total_start[g];
		if (counted_by_bucket(nw, g))
		{
			int64		below;
			int64		kept_below;
			int64		b = g * nw->nbuckets + rank_bucket(nw, g, r, &below, &kept_below);

			if (!nw->wanted[b])
				nw->kept_total += nw->bucket_counts[b];
			nw->wanted[b] = 1;
		}
		else
		{
			if (!nw->group_wanted[g])
				nw->kept_total += total_start[g + 1] - total_start[g];
			nw->group_wanted[g] = true;
		}
	}
	/*
	 * Under Gather a worker keeps every key of a group it did not count by
	 * bucket, whether or not the results read it: every group read whole
	 * is kept whole everywhere.
	 */
	if (nw->stride == 0)
		for (g = 0; g < ngroups; g++)
		{
			if (counted_by_bucket(nw, g))
				continue;
			/* the same groups in every collection: counted once */
			if (pc == &sink->collections[0])
				sink->groups_whole++;
			if (!nw->group_wanted[g])
			{
				nw->kept_total += total_start[g + 1] - total_start[g];
				nw->group_wanted[g] = true;
			}
		}
	make_ranges(sink, nw);
	note_any_wanted(sink, nw);
	nw->collecting = true;
	return nw->kept_total;
}

/*
 * Second pass: which of a block's keys (skip[j] for a NULL) fall in a
 * wanted bucket of their group (one of its ranges), into keep[]; returns
 * how many.
 */
int
GroupAggNarrowKeep(PercentileCollection *pc, const int64 *groups, const uint64 *keys,
				   const bool *skip, int len, bool *keep)
{
	GroupNarrow *nw = pc->narrow;
	int			n = 0;

	/* locals: the stores to keep could alias the state (no strict aliasing) */
	const int64 *range_start = nw->range_start;
	const uint64 *range_lo = nw->range_lo;
	const uint64 *range_hi = nw->range_hi;
	int64		ngroups_end = nw->ngroups_end;

	for (int j = 0; j < len; j++)
	{
		int64		g = groups[j];
		uint64		key = keys[j];
		bool		k = false;

		if (skip[j])
		{
			keep[j] = false;
			continue;
		}
		if (unlikely(g >= ngroups_end))
			elog(ERROR, "gpusel: the second pass over a percentile's rows met a new group");
		for (int64 r = range_start[g]; r < range_start[g + 1]; r++)
			k |= key - range_lo[r] <= range_hi[r] - range_lo[r];
		keep[j] = k;
		n += k;
	}
	return n;
}

/*
 * After the second pass: the keys at the positions the results read
 * (pc->picked, among every key), from the kept keys, whose counts per
 * group pc->counts holds; pc->counts then holds every key's group starts
 * again, for the results' positions.
 */
void
GroupAggNarrowPick(GroupAggSink *sink, PercentileCollection *pc)
{
	GroupNarrow *nw = pc->narrow;
	PickedKeys *picked = pc->picked;
	int64		ng = nw->ngroups_end;
	int64		n = picked->count;
	int64	   *kept_start = palloc(sizeof(int64) * (ng + 1));
	int64	   *kept_positions = MemoryContextAllocHuge(CurrentMemoryContext,
														sizeof(int64) * Max(n, 1));
	void	   *out = MemoryContextAllocHuge(CurrentMemoryContext,
											 (Size) pc->key_bytes * Max(n, 1));
	int64		g = 0;

	if (!nw->collecting)
		elog(ERROR, "gpusel: a percentile's keys were counted but never kept");
	kept_start[0] = 0;
	for (int64 i = 0; i < ng; i++)
		kept_start[i + 1] = kept_start[i] + pc->counts[i];
	if (kept_start[ng] != nw->kept_total)
		elog(ERROR, "gpusel: the second pass kept %lld percentile keys of %lld",
			 (long long) kept_start[ng], (long long) nw->kept_total);

	/* each position among all keys as a position among the kept ones */
	for (int64 i = 0; i < n; i++)
	{
		int64		r;

		while (picked->positions[i] >= nw->total_start[g + 1])
			g++;
		r = picked->positions[i] - nw->total_start[g];
		if (counted_by_bucket(nw, g))
		{
			int64		below;
			int64		kept_below;

			(void) rank_bucket(nw, g, r, &below, &kept_below);
			r = r - below + kept_below;
		}
		if (r < 0 || r >= kept_start[g + 1] - kept_start[g])
			elog(ERROR, "gpusel: a rank of a percentile read twice was not kept");
		kept_positions[i] = kept_start[g] + r;
	}

	memcpy(pc->counts, kept_start, sizeof(int64) * (ng + 1));
	GroupAggSpillPick(sink, pc, kept_positions, n, out);
	memcpy(pc->counts, nw->total_start, sizeof(int64) * (ng + 1));
	picked->keys = MemoryContextAllocExtended(sink->cxt, sizeof(uint64) * Max(n, 1),
											  MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < n; i++)
		picked->keys[i] = pc->key_bytes == 4 ? ((uint32 *) out)[i] : ((uint64 *) out)[i];
	picked->noting = false;
	pfree(kept_start);
	pfree(kept_positions);
	pfree(out);
}


/*
 * Under Gather over the column cache, every process reads its blocks twice
 * (GpuselFeedEnableRounds): counted by bucket on the first round, the
 * wanted buckets' keys kept on the second.  The buckets must be the same
 * in every process for their counts to add up, so every group of every
 * process shares one set of splitters per collection, picked by the leader
 * before the workers start from keys spread over the whole cache.  A
 * group's keys unlike the sample's only make its kept buckets larger.
 * The shared space holds the number of buckets, the number of groups
 * each process counts by bucket at most, then each collection's
 * splitters.  Where the planner expects few groups, there are more
 * buckets (up to NARROW_MAX_BUCKETS), each holding fewer keys, as long as
 * a process's counts stay within a share of work_mem.  A process that
 * meets more groups than it may count (the planner's estimate far too
 * low) reads the later groups' keys whole: their counts would take memory
 * without bound.  Each process numbers its groups as it meets them, so
 * the groups past the limit are the same in its two rounds; it sends the
 * consumer such a group's total alone, and the consumer reads the group
 * whole in every process.
 */

/*
 * How far past the hash memory the counts may go for the groups the
 * planner expects (22,240 groups of a text key and an hour at 4 MB: 2.7)
 */
#define NARROW_COUNTED_PAST_FIT	4.0

/* words of the shared space before the splitters: the buckets, the counted groups */
#define NARROW_SHARED_HEADER	2

/*
 * A worker's record of an uncounted group's counts: its first count is
 * this less the group's keys, the others zero.
 */
#define NARROW_UNCOUNTED		INT64CONST(-1)

/*
 * Whether every collection of the sink can be read twice under Gather:
 * a plain column's keys of a key type, not numeric, not kept whole, and
 * every input one the second pass finds again.
 */
bool
GroupAggSinkRoundsEligible(GroupAggSink *sink, Size space_bytes)
{
	if (sink->ncollections == 0 ||
		sizeof(uint64) * (NARROW_SHARED_HEADER + (Size) sink->ncollections * NARROW_SPLITTERS) >
		space_bytes ||
		!GroupAggSinkInputsReadTwice(sink))
		return false;
	for (int c = 0; c < sink->ncollections; c++)
		if (!countable_by_bucket(sink, &sink->collections[c]))
			return false;
	return true;
}

/*
 * The buckets of the shared splitters: the most, a power of two from
 * NARROW_BUCKETS to NARROW_MAX_BUCKETS, whose splitters fit the space,
 * whose counts for the groups expected fit a process's share of work_mem,
 * and a group's counts of which fit a quarter of the feed's chunk.
 */
static int
shared_buckets(GroupAggSink *sink, double groups, Size space_bytes, Size chunk_bytes)
{
	double		budget = (double) work_mem * 1024.0 / NARROW_SHARED_COUNTS_SHARE /
		sink->ncollections;
	int			nb = NARROW_BUCKETS;

	while (nb * 2 <= NARROW_MAX_BUCKETS &&
		   (double) nb * 2 * sizeof(int64) * Max(groups, 1.0) <= budget &&
		   sizeof(uint64) * (NARROW_SHARED_HEADER + (Size) sink->ncollections * (nb * 2 - 1)) <=
		   space_bytes &&
		   sizeof(int64) * nb * 2 * 4 <= chunk_bytes)
		nb *= 2;
	return nb;
}

/*
 * The groups a process counts by bucket at most: those whose counts fit
 * the memory a hash table may take (work_mem times hash_mem_multiplier),
 * or twice the groups the planner expects where that is more, but never
 * past NARROW_COUNTED_PAST_FIT times the fit.
 */
static int64
counted_groups_limit(GroupAggSink *sink, int nb, double groups)
{
	double		fit = (double) get_hash_memory_limit() / sink->ncollections /
		((double) nb * sizeof(int64));
	double		limit = Max(fit, Min(2.0 * groups, NARROW_COUNTED_PAST_FIT * fit));

	return (int64) Min(Max(limit, 64.0), (double) PG_INT32_MAX);
}

/*
 * The leader, before the workers start: the number of buckets, the groups
 * counted by bucket at most and each collection's shared splitters, into
 * 'space', from keys of its column spread over the source's rows ('groups'
 * is the planner's estimate).  False when the source gives no sample, or
 * a chunk of the feed would not hold a group's counts.
 */
bool
GroupAggSinkPrepareRounds(GroupAggSink *sink, GpuselSource *source, double groups,
						  uint64 *space, Size space_bytes, Size chunk_bytes)
{
	int			nb = shared_buckets(sink, groups, space_bytes, chunk_bytes);
	int64		nsample = (int64) nb * NARROW_SHARED_SAMPLE_PER_BUCKET;
	uint64	   *keys;
	uint8	   *nulls;

	if (source->methods->sample == NULL || sizeof(int64) * nb * 4 > chunk_bytes)
		return false;
	keys = palloc(sizeof(uint64) * nsample);
	nulls = palloc(nsample);
	space[0] = (uint64) nb;
	space[1] = (uint64) counted_groups_limit(sink, nb, groups);
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];
		GroupInput *in = &sink->inputs[pc->input];
		void	   *values = palloc((Size) GpuselColumnWidth(in->coltype) * nsample);
		int64		n = GpuselSourceSample(source, in->column, nsample, values, nulls);
		int64		m = 0;
		uint64	   *split = space + NARROW_SHARED_HEADER + (Size) c * (nb - 1);

		if (n > 0)
			(void) KeysOfColumn(in->coltype, pc->keytype->typid, values, NULL, 0, (int) n, keys);
		for (int64 i = 0; i < n; i++)
			if (!nulls[i])
				keys[m++] = keys[i];
		sort_narrow_sample(keys, m);
		/* as a group's own: evenly spaced, the rest past every key */
		for (int64 i = 0; i < nb - 1; i++)
			split[i] = m >= nb ? keys[(i + 1) * m / nb] : PG_UINT64_MAX;
		pfree(values);
	}
	pfree(keys);
	pfree(nulls);
	return true;
}

/* Every process, at the start of its first round: counts by the shared splitters. */
void
GroupAggSinkStartRounds(GroupAggSink *sink, const uint64 *space)
{
	int			nb = (int) space[0];
	int64		limit = (int64) space[1];

	if (nb < NARROW_BUCKETS || nb > NARROW_MAX_BUCKETS || (nb & (nb - 1)) != 0 ||
		limit < 1 || limit > PG_INT32_MAX)
		elog(ERROR, "gpusel: %d shared buckets of a percentile for %lld groups",
			 nb, (long long) limit);
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];
		GroupNarrow *nw = MemoryContextAllocZero(sink->cxt, sizeof(GroupNarrow));

		nw->nbuckets = nb;
		nw->nsplitters = nb - 1;
		nw->stride = 0;
		/* one padding entry past the last, for shared_bucket */
		nw->splitters = MemoryContextAlloc(sink->cxt, sizeof(uint64) * nb);
		memcpy(nw->splitters, space + NARROW_SHARED_HEADER + (Size) c * (nb - 1),
			   sizeof(uint64) * (nb - 1));
		nw->splitters[nb - 1] = PG_UINT64_MAX;
		nw->ngroups = 0;
		nw->counted_cap = 0;
		nw->counted_limit = limit;
		nw->bucket_counts = NULL;
		nw->lut = MemoryContextAlloc(sink->cxt, sizeof(NarrowLut));
		narrow_lut_make(nw->lut, nw->splitters, nb - 1);
		pc->dev_declined = true;
		pc->narrow = nw;
		GroupAggNarrowReserve(sink, pc, Max(sink->ngroups, 1));
	}
	sink->second_pass_allowed = true;
}

/*
 * Bucket counts for groups 0 .. ngroups - 1 where the splitters are shared
 * (a group met since has them too), up to the groups counted at most; a
 * group's own splitters never grow.
 */
void
GroupAggNarrowReserve(GroupAggSink *sink, PercentileCollection *pc, int64 ngroups)
{
	GroupNarrow *nw = pc->narrow;
	int			nb = nw->nbuckets;

	if (nw->stride != 0)
		return;
	ngroups = Min(ngroups, nw->counted_limit);
	if (ngroups <= nw->ngroups)
		return;
	if (ngroups > nw->counted_cap)
	{
		int64		cap = Max(ngroups, Max(nw->counted_cap * 2, 64));

		cap = Min(cap, nw->counted_limit);
		if (nw->bucket_counts == NULL)
		{
			nw->bucket_counts = MemoryContextAllocHuge(sink->cxt, sizeof(int64) * nb * cap);
			nw->whole = MemoryContextAllocHuge(sink->cxt, sizeof(bool) * cap);
		}
		else
		{
			nw->bucket_counts = repalloc_huge(nw->bucket_counts, sizeof(int64) * nb * cap);
			nw->whole = repalloc_huge(nw->whole, sizeof(bool) * cap);
		}
		nw->counted_cap = cap;
	}
	memset(nw->bucket_counts + nw->ngroups * nb, 0, sizeof(int64) * nb * (ngroups - nw->ngroups));
	memset(nw->whole + nw->ngroups, 0, sizeof(bool) * (ngroups - nw->ngroups));
	nw->ngroups = ngroups;
}

/*
 * Bytes of a worker's record of its group g: the group's bucket counts,
 * or, for a group past those any process counts by bucket, its total
 * alone, so that many such groups cost 8 bytes each.
 */
Size
GroupAggNarrowRecordBytes(PercentileCollection *pc, int64 g)
{
	return g < pc->narrow->counted_limit ? sizeof(int64) * pc->narrow->nbuckets : sizeof(int64);
}

/* Where the run of records of one size that begins at group g ends, of ngroups. */
int64
GroupAggNarrowRecordsEnd(PercentileCollection *pc, int64 g, int64 ngroups)
{
	int64		counted = GroupAggNarrowCountedGroups(pc, ngroups);

	return g < counted ? counted : ngroups;
}

/*
 * A worker: its record of group g (GroupAggNarrowRecordBytes) into 'out':
 * the group's bucket counts, or, for a group it did not count by bucket,
 * its keys as NARROW_UNCOUNTED less them (then the rest zeros, where the
 * record has room for counts).
 */
void
GroupAggNarrowWriteCounts(PercentileCollection *pc, int64 g, int64 *out)
{
	GroupNarrow *nw = pc->narrow;

	if (g < nw->ngroups)
	{
		memcpy(out, nw->bucket_counts + g * nw->nbuckets, sizeof(int64) * nw->nbuckets);
		return;
	}
	if (g < nw->counted_limit)
		memset(out, 0, sizeof(int64) * nw->nbuckets);
	out[0] = NARROW_UNCOUNTED - pc->counts[g];
}

/*
 * The consumer: adds a worker's record of one group (its bucket counts, or
 * its total alone where the worker did not count it by bucket) to its
 * group g's.
 */
void
GroupAggNarrowMergeCounts(GroupAggSink *sink, PercentileCollection *pc, int64 g,
						  const int64 *counts)
{
	GroupNarrow *nw = pc->narrow;
	int64		total = 0;
	int64	   *dst;

	if (nw == NULL || nw->stride != 0)
		elog(ERROR, "gpusel: a worker's bucket counts for a percentile not read in two rounds");
	GroupAggNarrowReserve(sink, pc, g + 1);
	if (counts[0] < 0)
	{
		/* the worker did not count this group by bucket: it is read whole */
		pc->counts[g] += NARROW_UNCOUNTED - counts[0];
		if (g < nw->ngroups)
			nw->whole[g] = true;
		nw->any_whole = true;
		return;
	}
	if (g >= nw->ngroups)
	{
		/* past the groups the consumer counts: read whole */
		for (int b = 0; b < nw->nbuckets; b++)
			total += counts[b];
		pc->counts[g] += total;
		return;
	}
	dst = nw->bucket_counts + g * nw->nbuckets;
	for (int b = 0; b < nw->nbuckets; b++)
	{
		dst[b] += counts[b];
		total += counts[b];
	}
	pc->counts[g] += total;
}

/* The uint64 words of a group's mask of wanted buckets. */
int
GroupAggNarrowMaskWords(PercentileCollection *pc)
{
	return pc->narrow->nbuckets / 64;
}

/*
 * Of a worker's ngroups groups, those it counted by bucket (the same
 * limit in every process): the first ones, which its records carry the
 * counts of and its reply has masks for.
 */
int64
GroupAggNarrowCountedGroups(PercentileCollection *pc, int64 ngroups)
{
	return Min(ngroups, pc->narrow->counted_limit);
}

/* The consumer, after choosing: group g's wanted buckets, a bit each, into 'out'. */
void
GroupAggNarrowWantedMask(PercentileCollection *pc, int64 g, uint64 *out)
{
	GroupNarrow *nw = pc->narrow;
	int			nb = nw->nbuckets;

	if (g >= nw->ngroups_end)
		elog(ERROR, "gpusel: a worker's group is not among the consumer's");
	if (!counted_by_bucket(nw, g))
	{
		/* read whole here: the worker keeps every key of it */
		memset(out, 0xFF, sizeof(uint64) * (nb / 64));
		return;
	}
	memset(out, 0, sizeof(uint64) * (nb / 64));
	for (int b = 0; b < nb; b++)
		if (nw->wanted[g * nb + b])
			out[b / 64] |= UINT64CONST(1) << (b % 64);
}

/*
 * A worker, before its second round: the buckets the consumer wants of
 * each of its n groups that it counted by bucket (GroupAggNarrowCountedGroups),
 * GroupAggNarrowMaskWords words each; it keeps those buckets' keys, and
 * every key of its other groups.
 */
void
GroupAggNarrowChooseFromMasks(GroupAggSink *sink, PercentileCollection *pc,
							  const uint64 *masks, int64 n)
{
	GroupNarrow *nw = pc->narrow;
	int			nb = nw->nbuckets;
	int			words = nb / 64;
	int64		masked = GroupAggNarrowCountedGroups(pc, n);

	GroupAggNarrowReserve(sink, pc, n);
	nw->ngroups_end = n;
	nw->wanted = MemoryContextAllocHuge(sink->cxt, Max(masked * nb, 1));
	nw->group_wanted = MemoryContextAllocZero(sink->cxt, sizeof(bool) * Max(n, 1));
	for (int64 g = 0; g < masked; g++)
	{
		if ((g & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int b = 0; b < nb; b++)
			nw->wanted[g * nb + b] = (masks[g * words + b / 64] >> (b % 64)) & 1;
	}
	for (int64 g = masked; g < n; g++)
		nw->group_wanted[g] = true;
	make_ranges(sink, nw);
	note_any_wanted(sink, nw);
	nw->collecting = true;
}

/*
 * Whether the second pass may drop rows by their keys alone: every
 * collection shares its splitters and knows the buckets some group wants,
 * and none wants every key (a group read whole, or every bucket wanted).
 */
bool
GroupAggNarrowPrefilters(GroupAggSink *sink)
{
	for (int c = 0; c < sink->ncollections; c++)
	{
		GroupNarrow *nw = sink->collections[c].narrow;

		if (nw == NULL || !nw->collecting || nw->any_wanted == NULL)
			return false;
		/* one range of every key: no row would be dropped */
		if (nw->nany == 1 && nw->any_lo[0] == 0 && nw->any_hi[0] == PG_UINT64_MAX)
			return false;
	}
	return sink->ncollections > 0;
}

/* Marks in want[] the keys of a block (mapped) that lie in a bucket some group wants. */
void
GroupAggNarrowAnyWanted(PercentileCollection *pc, const uint64 *keys, int len, bool *want)
{
	GroupNarrow *nw = pc->narrow;
	const uint8 *any = nw->any_wanted;

	if (nw->nany == 0)
	{
		for (int j = 0; j < len; j++)
			want[j] |= any[narrow_lut_bucket(nw->lut, nw->splitters, nw->nsplitters, keys[j])];
		return;
	}
	for (int r = 0; r < nw->nany; r++)
	{
		/* one unsigned comparison a key: below lo wraps past the width */
		uint64		lo = nw->any_lo[r];
		uint64		width = nw->any_hi[r] - lo;

		for (int j = 0; j < len; j++)
			want[j] |= keys[j] - lo <= width;
	}
}
