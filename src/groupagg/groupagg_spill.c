/*
 * groupagg_spill.c
 *	  Keeps the host's share of a percentile collection within work_mem, as
 *	  PostgreSQL's sort keeps its input: once the collection's (group, key)
 *	  arrays would grow past work_mem, the pairs they hold go to a temporary
 *	  file and the arrays are refilled.  When the results need the keys and
 *	  the device cannot pick them, the pairs are dealt by group into
 *	  partitions of consecutive groups that fit work_mem together.  A
 *	  partition's keys are placed by group in one array (the groups' counts
 *	  say where each goes), and each group whose ranks the results read (the
 *	  positions pick_collection notes in groupagg_results.c) selects them
 *	  where its keys lie (inplace_select.c); a group alone past work_mem is
 *	  a partition whose keys go to a store that spills, read by radix
 *	  selection (keystore.c, radix_select.c).
 *
 * A collection the device holds keeps that copy: every pair is shipped to
 * the device before it is spilled, so the file only stands in for the
 * host's copy, and a file is never needed beside pairs pulled back from
 * the device (groupagg_device.c closes it then).  A collection that spilled
 * before the device took it stays on the host.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

#include "groupagg_internal.h"
#include "inplace_select.h"
#include "keystore.h"
#include "radix_select.h"

/* pairs moved to or from the file at a time */
#define SPILL_CHUNK_PAIRS 8192
/* pairs gathered for a partition's file before they are written */
#define SPILL_DEAL_PAIRS 64

/* Bytes of one pair in the host's arrays and in the file. */
Size
GroupAggPairBytes(GroupAggSink *sink, PercentileCollection *pc)
{
	return pc->key_bytes + (sink->nkeys > 0 ? sizeof(uint32) : 0);
}

/* Notes the sink's memory, for EXPLAIN ANALYZE's peak. */
void
GroupAggNoteMemory(GroupAggSink *sink)
{
	Size		used = MemoryContextMemAllocated(sink->cxt, true);

	sink->peak_memory = Max(sink->peak_memory, used);
}

/*
 * Whether doubling the collection's arrays would take them past work_mem,
 * so that the pairs they hold should go to the file instead.  The first
 * arrays are always allowed.  A collection of a numeric column wider than
 * 18 digits keeps its values in an arena beside the pairs and never
 * spills; a parallel worker sends its pairs to the leader instead
 * (GroupAggSinkPartialIsDue).
 */
bool
GroupAggSpillDue(GroupAggSink *sink, PercentileCollection *pc)
{
	return pc->cap > 0 && pc->nkeys > 0 && !pc->big_keys && pc->kept == NULL &&
		!IsParallelWorker() &&
		(Size) pc->cap * 2 * GroupAggPairBytes(sink, pc) > (Size) work_mem * 1024;
}

/*
 * Writes the pairs the arrays hold to the file, interleaved, and empties
 * the arrays.  A device that holds the collection has them all already
 * (the caller ships first).
 */
void
GroupAggSpillPairs(GroupAggSink *sink, PercentileCollection *pc)
{
	Size		pb = GroupAggPairBytes(sink, pc);
	char	   *buf;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	GroupAggNoteMemory(sink);
	Assert(pc->dev == NULL || pc->shipped == pc->nkeys);
	if (pc->spill == NULL)
	{
		old = MemoryContextSwitchTo(sink->cxt);
		pc->spill = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	buf = palloc(pb * SPILL_CHUNK_PAIRS);
	for (int64 from = 0; from < pc->nkeys; from += SPILL_CHUNK_PAIRS)
	{
		int64		n = Min(SPILL_CHUNK_PAIRS, pc->nkeys - from);
		char	   *p = buf;

		for (int64 i = from; i < from + n; i++)
		{
			if (sink->nkeys > 0)
			{
				memcpy(p, &pc->groups[i], sizeof(uint32));
				p += sizeof(uint32);
			}
			memcpy(p, pc->keys + i * pc->key_bytes, pc->key_bytes);
			p += pc->key_bytes;
		}
		BufFileWrite(pc->spill, buf, pb * n);
	}
	pfree(buf);
	pc->nspilled += pc->nkeys;
	sink->keys_spilled += pc->nkeys;
	sink->spill_bytes += pb * pc->nkeys;
	pc->nkeys = 0;
	pc->shipped = 0;
}

/*
 * Closes a collection's file, which no longer counts any pairs.  (After an
 * error the resource owner closes it, and the sink's memory is gone.)
 */
void
GroupAggSpillClose(PercentileCollection *pc)
{
	if (pc->spill != NULL)
		BufFileClose(pc->spill);
	pc->spill = NULL;
	pc->nspilled = 0;
}

/* The key of pair i of those a collection holds in its arrays. */
uint64
GroupAggHeldKey(const PercentileCollection *pc, int64 i)
{
	return pc->key_bytes == 4 ? ((const uint32 *) pc->keys)[i] : ((const uint64 *) pc->keys)[i];
}

/* Frees the arrays of pairs a collection holds; they are made again as it grows. */
void
GroupAggFreeHeldPairs(PercentileCollection *pc)
{
	if (pc->groups != NULL)
		pfree(pc->groups);
	if (pc->keys != NULL)
		pfree(pc->keys);
	pc->groups = NULL;
	pc->keys = NULL;
	pc->cap = 0;
}

/* Reads pairs of a file written as GroupAggSpillPairs writes them, at most 'max'; returns how many. */
static int64
read_pairs(BufFile *file, int64 *left, Size pb, int key_bytes, bool grouped, char *buf,
		   int64 max, uint32 *groups, uint64 *keys)
{
	int64		n = Min(max, *left);
	char	   *p = buf;

	if (n == 0)
		return 0;
	CHECK_FOR_INTERRUPTS();
	if (BufFileRead(file, buf, pb * n) != pb * n)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read the temporary file of gpusel's percentile keys: %m")));
	for (int64 i = 0; i < n; i++)
	{
		groups[i] = 0;
		if (grouped)
		{
			memcpy(&groups[i], p, sizeof(uint32));
			p += sizeof(uint32);
		}
		if (key_bytes == 4)
		{
			uint32		k4;

			memcpy(&k4, p, sizeof(uint32));
			keys[i] = k4;
		}
		else
			memcpy(&keys[i], p, sizeof(uint64));
		p += key_bytes;
	}
	*left -= n;
	return n;
}

/* Rewinds a temporary file of pairs. */
static void
rewind_pairs(BufFile *file)
{
	if (BufFileSeek(file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind the temporary file of gpusel's percentile keys: %m")));
}


/* What is done with each chunk of pairs read back: n groups and keys. */
typedef void (*PairsFn) (void *arg, const uint32 *groups, const uint64 *keys, int64 n);

/*
 * Calls fn on the 'in_file' pairs of a file written as GroupAggSpillPairs
 * writes them, from its start, a chunk at a time, and then, with_held, on
 * the collection's pairs still in its arrays.
 */
static void
for_each_pair(GroupAggSink *sink, PercentileCollection *pc, BufFile *file, int64 in_file,
			  bool with_held, PairsFn fn, void *arg)
{
	Size		pb = GroupAggPairBytes(sink, pc);
	char	   *buf = palloc(pb * SPILL_CHUNK_PAIRS);
	uint32	   *groups = palloc(sizeof(uint32) * SPILL_CHUNK_PAIRS);
	uint64	   *keys = palloc(sizeof(uint64) * SPILL_CHUNK_PAIRS);
	int64		left = in_file;
	int64		n;

	if (file != NULL)
		rewind_pairs(file);
	while ((n = read_pairs(file, &left, pb, pc->key_bytes, sink->nkeys > 0, buf,
						   SPILL_CHUNK_PAIRS, groups, keys)) > 0)
		fn(arg, groups, keys, n);
	for (int64 i = 0; with_held && i < pc->nkeys; i += n)
	{
		n = Min(pc->nkeys - i, SPILL_CHUNK_PAIRS);
		CHECK_FOR_INTERRUPTS();
		for (int64 j = 0; j < n; j++)
		{
			groups[j] = sink->nkeys > 0 ? pc->groups[i + j] : 0;
			keys[j] = GroupAggHeldKey(pc, i + j);
		}
		fn(arg, groups, keys, n);
	}
	pfree(buf);
	pfree(groups);
	pfree(keys);
}

/*
 * Where the pairs are dealt to when there are several partitions: each
 * partition's file, with a few pairs gathered before each write (a write
 * of one pair costs more than the pair).
 */
typedef struct PartitionFiles
{
	BufFile   **files;
	int64	   *in_file;
	const int32 *part_of;		/* each group's partition */
	int			key_bytes;
	Size		pair_bytes;
	char	   *gathered;		/* SPILL_DEAL_PAIRS pairs per partition */
	int		   *ngathered;
} PartitionFiles;

/* Writes the pairs gathered for partition p to its file. */
static void
flush_partition(PartitionFiles *pf, int p)
{
	if (pf->ngathered[p] > 0)
		BufFileWrite(pf->files[p], pf->gathered + (Size) p * SPILL_DEAL_PAIRS * pf->pair_bytes,
					 pf->ngathered[p] * pf->pair_bytes);
	pf->in_file[p] += pf->ngathered[p];
	pf->ngathered[p] = 0;
}

/* PairsFn: deals pairs to their groups' partitions, in GroupAggSpillPairs' format. */
static void
deal_pairs(void *arg, const uint32 *groups, const uint64 *keys, int64 n)
{
	PartitionFiles *pf = (PartitionFiles *) arg;

	for (int64 i = 0; i < n; i++)
	{
		int			p = pf->part_of[groups[i]];
		char	   *at = pf->gathered + ((Size) p * SPILL_DEAL_PAIRS + pf->ngathered[p]) * pf->pair_bytes;
		uint32		k4 = (uint32) keys[i];

		memcpy(at, &groups[i], sizeof(uint32));
		if (pf->key_bytes == 4)
			memcpy(at + sizeof(uint32), &k4, sizeof(uint32));
		else
			memcpy(at + sizeof(uint32), &keys[i], sizeof(uint64));
		if (++pf->ngathered[p] == SPILL_DEAL_PAIRS)
			flush_partition(pf, p);
	}
}

/*
 * What one partition keeps: its groups' keys side by side in one array,
 * each group's at its place among the collection's keys (the counts give
 * it), or, for a partition of one group past the budget, a key store that
 * spills.
 */
typedef struct PartitionKeys
{
	int64		first;			/* its first group */
	int64		end;			/* past its last group */
	int64		base;			/* keys of the groups before it */
	uint64	   *keys;			/* NULL: the store holds them */
	int64	   *fill;			/* by group - first: where its next key goes in keys */
	KeyStore	store;
} PartitionKeys;

/* PairsFn: places pairs' keys with their groups'. */
static void
place_pairs(void *arg, const uint32 *groups, const uint64 *keys, int64 n)
{
	PartitionKeys *pk = (PartitionKeys *) arg;

	if (pk->keys == NULL)
	{
		for (int64 i = 0; i < n; i++)
			KeyStoreAdd(&pk->store, keys[i]);
		return;
	}
	for (int64 i = 0; i < n; i++)
		pk->keys[pk->fill[groups[i] - pk->first]++] = keys[i];
}

/*
 * Selects the keys at the positions of one partition's groups into out:
 * positions [*next, ...) that fall in its groups, in place in the
 * partition's array (or by radix selection over its one group's store).
 */
static void
select_partition(PercentileCollection *pc, PartitionKeys *pk, const int64 *positions,
				 int64 npositions, int64 *next, void *out)
{
	int64	   *ranks;
	uint64	   *keys;

	ranks = palloc(sizeof(int64) * Max(npositions - *next, 1));
	keys = palloc(sizeof(uint64) * Max(npositions - *next, 1));
	for (int64 g = pk->first; g < pk->end && *next < npositions; g++)
	{
		int64		from = *next;
		int64		n = 0;

		while (from + n < npositions && positions[from + n] < pc->counts[g + 1])
			n++;
		if (n == 0)
			continue;
		for (int64 i = 0; i < n; i++)
			ranks[i] = positions[from + i] - pc->counts[g];
		if (pk->keys != NULL)
			SelectKeysInPlace(pk->keys + (pc->counts[g] - pk->base), pc->counts[g + 1] - pc->counts[g],
							  ranks, (int) n, keys);
		else
			RadixSelectKeys(&pk->store.source, ranks, (int) n, keys);
		for (int64 i = 0; i < n; i++)
		{
			if (pc->key_bytes == 4)
				((uint32 *) out)[from + i] = (uint32) keys[i];
			else
				((uint64 *) out)[from + i] = keys[i];
		}
		*next = from + n;
		CHECK_FOR_INTERRUPTS();
	}
	if (pk->keys == NULL)
		KeyStoreCloseFile(&pk->store);
	pfree(ranks);
	pfree(keys);
}

/*
 * The keys at the given positions (ascending, distinct) of a spilled
 * collection in its order by group and key, as GroupAggDevicePick returns
 * them.  Consecutive groups are dealt into partitions whose keys fit
 * work_mem together (a larger group is a partition of its own, and its
 * store spills); with more than one partition the pairs are first written
 * to one file per partition.  Each partition's keys are then placed by
 * group in one array, as a counting sort places them (the counts are
 * known), and every group's ranks selected where its keys lie.  The
 * collection's file is closed after.
 */
void
GroupAggSpillPick(GroupAggSink *sink, PercentileCollection *pc, const int64 *positions,
				  int64 npositions, void *out)
{
	int64		ngroups = sink->nkeys > 0 ? sink->ngroups : 1;
	int64		budget = Max((int64) work_mem * 1024 / (int64) sizeof(uint64), SPILL_CHUNK_PAIRS);
	int64	   *first_group = palloc(sizeof(int64) * (ngroups + 1));
	int32	   *part_of = palloc(sizeof(int32) * ngroups);
	PartitionFiles pf = {0};
	int			nparts = 0;
	int64		filled = 0;
	int64		next = 0;
	MemoryContext part_cxt;

	/* consecutive groups whose keys fit the budget together */
	for (int64 g = 0; g < ngroups; g++)
	{
		int64		n = pc->counts[g + 1] - pc->counts[g];

		if (nparts == 0 || (filled > 0 && filled + n > budget))
		{
			first_group[nparts++] = g;
			filled = 0;
		}
		filled += n;
		part_of[g] = nparts - 1;
	}
	first_group[nparts] = ngroups;

	/* more than one: each partition's pairs to a file of its own */
	if (nparts > 1)
	{
		pf.part_of = part_of;
		pf.key_bytes = pc->key_bytes;
		pf.pair_bytes = GroupAggPairBytes(sink, pc);
		pf.files = palloc(sizeof(BufFile *) * nparts);
		pf.in_file = palloc0(sizeof(int64) * nparts);
		pf.gathered = palloc(pf.pair_bytes * SPILL_DEAL_PAIRS * nparts);
		pf.ngathered = palloc0(sizeof(int) * nparts);
		for (int p = 0; p < nparts; p++)
			pf.files[p] = BufFileCreateTemp(false);
		for_each_pair(sink, pc, pc->spill, pc->nspilled, true, deal_pairs, &pf);
		for (int p = 0; p < nparts; p++)
			flush_partition(&pf, p);
		pfree(pf.gathered);
		pfree(pf.ngathered);
		GroupAggSpillClose(pc);
	}

	part_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel spilled partition",
									 ALLOCSET_DEFAULT_SIZES);
	for (int p = 0; p < nparts; p++)
	{
		PartitionKeys pk;
		int64		nkeys;
		MemoryContext old = MemoryContextSwitchTo(part_cxt);

		pk.first = first_group[p];
		pk.end = first_group[p + 1];
		pk.base = pc->counts[pk.first];
		nkeys = pc->counts[pk.end] - pk.base;
		pk.keys = NULL;
		pk.fill = NULL;
		if (nkeys <= budget)
		{
			pk.keys = MemoryContextAllocHuge(part_cxt, sizeof(uint64) * Max(nkeys, 1));
			pk.fill = palloc(sizeof(int64) * (pk.end - pk.first));
			for (int64 g = pk.first; g < pk.end; g++)
				pk.fill[g - pk.first] = pc->counts[g] - pk.base;
		}
		else
			KeyStoreInit(&pk.store, part_cxt, pc->key_bytes, false);
		/* one partition reads the collection's file and arrays, several their own files */
		if (nparts > 1)
			for_each_pair(sink, pc, pf.files[p], pf.in_file[p], false, place_pairs, &pk);
		else
			for_each_pair(sink, pc, pc->spill, pc->nspilled, true, place_pairs, &pk);
		for (int64 g = pk.first; pk.keys != NULL && g < pk.end; g++)
			if (pk.fill[g - pk.first] != pc->counts[g + 1] - pk.base)
				elog(ERROR, "gpusel: a spilled percentile's group read back %lld keys of %lld",
					 (long long) (pk.fill[g - pk.first] - (pc->counts[g] - pk.base)),
					 (long long) (pc->counts[g + 1] - pc->counts[g]));
		GroupAggNoteMemory(sink);
		select_partition(pc, &pk, positions, npositions, &next, out);
		MemoryContextSwitchTo(old);
		MemoryContextReset(part_cxt);
		if (nparts > 1)
			BufFileClose(pf.files[p]);
	}
	MemoryContextDelete(part_cxt);
	if (next != npositions)
		elog(ERROR, "gpusel: %lld of %lld positions of a spilled percentile were not found",
			 (long long) (npositions - next), (long long) npositions);
	GroupAggSpillClose(pc);
	pfree(first_group);
	pfree(part_of);
}
