/*
 * groupagg_spill.c
 *	  Keeps the host's share of a percentile collection within work_mem, as
 *	  PostgreSQL's sort keeps its input: once the collection's (group, key)
 *	  arrays would grow past work_mem, the pairs they hold go to a temporary
 *	  file and the arrays are refilled.  When the results need the keys and
 *	  the device cannot pick them, the pairs are dealt by group into
 *	  partitions of consecutive groups that fit work_mem together, and each
 *	  group whose ranks the results read (the positions pick_collection
 *	  notes in groupagg_results.c) selects them by radix selection over its
 *	  keys, which spills again where one group alone passes work_mem
 *	  (keystore.c, radix_select.c): a few linear passes, no sort.
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
#include "keystore.h"
#include "radix_select.h"

/* pairs moved to or from the file at a time */
#define SPILL_CHUNK_PAIRS 8192

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


/* What is done with each pair read back. */
typedef void (*PairFn) (void *arg, uint32 group, uint64 key);

/*
 * Calls fn on the 'in_file' pairs of a file written as GroupAggSpillPairs
 * writes them, from its start, and then, with_held, on the collection's
 * pairs still in its arrays.
 */
static void
for_each_pair(GroupAggSink *sink, PercentileCollection *pc, BufFile *file, int64 in_file,
			  bool with_held, PairFn fn, void *arg)
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
		for (int64 i = 0; i < n; i++)
			fn(arg, groups[i], keys[i]);
	for (int64 i = 0; with_held && i < pc->nkeys; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		fn(arg, sink->nkeys > 0 ? pc->groups[i] : 0, GroupAggHeldKey(pc, i));
	}
	pfree(buf);
	pfree(groups);
	pfree(keys);
}

/* Where the pairs are dealt to when there are several partitions. */
typedef struct PartitionFiles
{
	BufFile   **files;
	int64	   *in_file;
	const int32 *part_of;		/* each group's partition */
	int			key_bytes;
} PartitionFiles;

/* PairFn: writes a pair to its group's partition file. */
static void
deal_pair(void *arg, uint32 group, uint64 key)
{
	PartitionFiles *pf = (PartitionFiles *) arg;
	int			p = pf->part_of[group];
	uint32		k4 = (uint32) key;

	BufFileWrite(pf->files[p], &group, sizeof(uint32));
	BufFileWrite(pf->files[p], pf->key_bytes == 4 ? (void *) &k4 : (void *) &key, pf->key_bytes);
	pf->in_file[p]++;
}

/* What one partition's groups keep: a key store for each group the results read. */
typedef struct PartitionStores
{
	int64		first;			/* its first group */
	int64		end;			/* past its last group */
	KeyStore  **stores;			/* by group - first; NULL where no rank is read */
} PartitionStores;

/* PairFn: adds a pair to its group's store, where its group has one. */
static void
store_pair(void *arg, uint32 group, uint64 key)
{
	PartitionStores *ps = (PartitionStores *) arg;
	KeyStore   *store = ps->stores[group - ps->first];

	if (store != NULL)
		KeyStoreAdd(store, key);
}

/*
 * Selects the keys at the positions of one partition's groups into out:
 * positions [*next, ...) that fall in its groups, by radix selection over
 * each group's store.
 */
static void
select_partition(PercentileCollection *pc, PartitionStores *ps, const int64 *positions,
				 int64 npositions, int64 *next, void *out)
{
	for (int64 g = ps->first; g < ps->end; g++)
	{
		KeyStore   *store = ps->stores[g - ps->first];
		int64		from = *next;
		int64		n = 0;
		int64	   *ranks;
		uint64	   *keys;

		if (store == NULL)
			continue;
		while (from + n < npositions && positions[from + n] < pc->counts[g + 1])
			n++;
		ranks = palloc(sizeof(int64) * n);
		keys = palloc(sizeof(uint64) * n);
		for (int64 i = 0; i < n; i++)
			ranks[i] = positions[from + i] - pc->counts[g];
		RadixSelectKeys(&store->source, ranks, (int) n, keys);
		for (int64 i = 0; i < n; i++)
		{
			if (pc->key_bytes == 4)
				((uint32 *) out)[from + i] = (uint32) keys[i];
			else
				((uint64 *) out)[from + i] = keys[i];
		}
		KeyStoreCloseFile(store);
		pfree(ranks);
		pfree(keys);
		*next = from + n;
	}
}

/*
 * The keys at the given positions (ascending, distinct) of a spilled
 * collection in its order by group and key, as GroupAggDevicePick returns
 * them.  Consecutive groups are dealt into partitions whose keys fit
 * work_mem together (a larger group is a partition of its own, and its
 * store spills); with more than one partition the pairs are first written
 * to one file per partition.  The collection's file is closed after.
 */
void
GroupAggSpillPick(GroupAggSink *sink, PercentileCollection *pc, const int64 *positions,
				  int64 npositions, void *out)
{
	int64		ngroups = sink->nkeys > 0 ? sink->ngroups : 1;
	int64		budget = Max((int64) work_mem * 1024 / pc->key_bytes, SPILL_CHUNK_PAIRS);
	int64	   *first_group = palloc(sizeof(int64) * (ngroups + 1));
	int32	   *part_of = palloc(sizeof(int32) * ngroups);
	PartitionFiles pf = {NULL, NULL, part_of, pc->key_bytes};
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
		pf.files = palloc(sizeof(BufFile *) * nparts);
		pf.in_file = palloc0(sizeof(int64) * nparts);
		for (int p = 0; p < nparts; p++)
			pf.files[p] = BufFileCreateTemp(false);
		for_each_pair(sink, pc, pc->spill, pc->nspilled, true, deal_pair, &pf);
		GroupAggSpillClose(pc);
	}

	part_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel spilled partition",
									 ALLOCSET_DEFAULT_SIZES);
	for (int p = 0; p < nparts; p++)
	{
		PartitionStores ps;
		int64		g;
		MemoryContext old = MemoryContextSwitchTo(part_cxt);

		ps.first = first_group[p];
		ps.end = first_group[p + 1];
		ps.stores = palloc0(sizeof(KeyStore *) * (ps.end - ps.first));
		/* a store for each group of which the results read a rank */
		g = ps.first;
		for (int64 i = next; i < npositions && positions[i] < pc->counts[ps.end]; i++)
		{
			while (positions[i] >= pc->counts[g + 1])
				g++;
			if (ps.stores[g - ps.first] == NULL)
			{
				ps.stores[g - ps.first] = palloc(sizeof(KeyStore));
				KeyStoreInit(ps.stores[g - ps.first], part_cxt, pc->key_bytes, false);
			}
		}
		/* one partition reads the collection's file and arrays, several their own files */
		if (nparts > 1)
			for_each_pair(sink, pc, pf.files[p], pf.in_file[p], false, store_pair, &ps);
		else
			for_each_pair(sink, pc, pc->spill, pc->nspilled, true, store_pair, &ps);
		GroupAggNoteMemory(sink);
		select_partition(pc, &ps, positions, npositions, &next, out);
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
