/*
 * groupagg_spill.c
 *	  Keeps the host's share of a percentile collection within work_mem, as
 *	  PostgreSQL's sort keeps its input: once the collection's (group, key)
 *	  arrays would grow past work_mem, the pairs they hold go to temporary
 *	  files, a group's to the file of its number modulo their count, and
 *	  the arrays are refilled.  When the results need the keys and the
 *	  device cannot pick them, each file is read back once: its groups' keys
 *	  are placed by group in one array (the groups' counts say where each
 *	  goes), and each group whose ranks the results read (the positions
 *	  pick_collection notes in groupagg_results.c) selects them where its
 *	  keys lie (inplace_select.c).  A file whose groups' keys pass work_mem
 *	  together is first dealt into files of runs of its groups that fit; a
 *	  group alone past work_mem puts its keys in a store that spills, read
 *	  by radix selection (keystore.c, radix_select.c).
 *
 * A collection the device holds keeps that copy: every pair is shipped to
 * the device before it is spilled, so the files only stand in for the
 * host's copy, and files are never needed beside pairs pulled back from
 * the device (groupagg_device.c closes them then).  A collection that spilled
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

/* pairs moved to or from a file at a time */
#define SPILL_CHUNK_PAIRS 8192
/* pairs gathered for one file before they are written */
#define SPILL_GATHER_PAIRS 64
/* files a collection spills into at most; each takes a buffer of BLCKSZ */
#define SPILL_MAX_FILES 64
/* work_mem a file of the spill stands for: work_mem / this many files */
#define SPILL_WORK_MEM_PER_FILE (4 * BLCKSZ)

/*
 * Files of pairs, each written as GroupAggSpillPairs writes them, with a
 * few pairs gathered for each before they are written (a write of one
 * pair costs more than the pair).
 */
typedef struct SpillFiles
{
	int			nfiles;
	BufFile   **files;
	int64	   *in_file;		/* pairs written to each, gathered ones included */
	Size		pair_bytes;
	int			key_bytes;
	bool		grouped;		/* pairs carry their group */
	char	   *gathered;		/* SPILL_GATHER_PAIRS pairs per file */
	int		   *ngathered;
} SpillFiles;

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

/* Makes n files of pairs of the collection, in the current memory context. */
static SpillFiles *
spill_files_create(GroupAggSink *sink, PercentileCollection *pc, int n)
{
	SpillFiles *sf = palloc(sizeof(SpillFiles));

	sf->nfiles = n;
	sf->files = palloc(sizeof(BufFile *) * n);
	sf->in_file = palloc0(sizeof(int64) * n);
	sf->pair_bytes = GroupAggPairBytes(sink, pc);
	sf->key_bytes = pc->key_bytes;
	sf->grouped = sink->nkeys > 0;
	sf->gathered = palloc(sf->pair_bytes * SPILL_GATHER_PAIRS * n);
	sf->ngathered = palloc0(sizeof(int) * n);
	for (int f = 0; f < n; f++)
		sf->files[f] = BufFileCreateTemp(false);
	return sf;
}

/* Writes the pairs gathered for file f. */
static void
spill_files_flush(SpillFiles *sf, int f)
{
	if (sf->ngathered[f] > 0)
		BufFileWrite(sf->files[f], sf->gathered + (Size) f * SPILL_GATHER_PAIRS * sf->pair_bytes,
					 sf->ngathered[f] * sf->pair_bytes);
	sf->ngathered[f] = 0;
}

/* Adds a pair to file f. */
static inline void
spill_files_add(SpillFiles *sf, int f, uint32 group, uint64 key)
{
	char	   *at = sf->gathered + ((Size) f * SPILL_GATHER_PAIRS + sf->ngathered[f]) * sf->pair_bytes;
	uint32		k4 = (uint32) key;

	if (sf->grouped)
	{
		memcpy(at, &group, sizeof(uint32));
		at += sizeof(uint32);
	}
	if (sf->key_bytes == 4)
		memcpy(at, &k4, sizeof(uint32));
	else
		memcpy(at, &key, sizeof(uint64));
	sf->in_file[f]++;
	if (++sf->ngathered[f] == SPILL_GATHER_PAIRS)
		spill_files_flush(sf, f);
}

/* Closes the files and frees what they took. */
static void
spill_files_close(SpillFiles *sf)
{
	for (int f = 0; f < sf->nfiles; f++)
		if (sf->files[f] != NULL)
			BufFileClose(sf->files[f]);
	pfree(sf->files);
	pfree(sf->in_file);
	pfree(sf->gathered);
	pfree(sf->ngathered);
	pfree(sf);
}

/*
 * Files a collection spills into: a group's pairs go to the file of its
 * number modulo their count (a power of two), so that at the end each file usually holds
 * groups whose keys fit work_mem together, read back once.  Each file's
 * buffer comes out of work_mem: at most one per SPILL_WORK_MEM_PER_FILE.
 */
static int
spill_file_count(GroupAggSink *sink)
{
	int64		most = (int64) work_mem * 1024 / SPILL_WORK_MEM_PER_FILE;
	int			n = 1;

	/* a power of two: a group's file is its number's low bits */
	while (sink->nkeys > 0 && n * 2 <= Min(most, SPILL_MAX_FILES))
		n *= 2;
	return n;
}

/* Writes the pairs the arrays hold to the collection's files. */
static void
spill_held_pairs(GroupAggSink *sink, PercentileCollection *pc)
{
	SpillFiles *sf = pc->spill;

	for (int64 i = 0; i < pc->nkeys; i++)
	{
		uint32		g = sink->nkeys > 0 ? pc->groups[i] : 0;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		spill_files_add(sf, (int) (g & (uint32) (sf->nfiles - 1)), g, GroupAggHeldKey(pc, i));
	}
	pc->nspilled += pc->nkeys;
	pc->nkeys = 0;
	pc->shipped = 0;
}

/*
 * Writes the pairs the arrays hold to the collection's files, each to its
 * group's, and empties the arrays.  A device that holds the collection
 * has them all already (the caller ships first).
 */
void
GroupAggSpillPairs(GroupAggSink *sink, PercentileCollection *pc)
{
	int64		n = pc->nkeys;

	CHECK_FOR_INTERRUPTS();
	GroupAggNoteMemory(sink);
	Assert(pc->dev == NULL || pc->shipped == pc->nkeys);
	if (pc->spill == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(sink->cxt);

		pc->spill = spill_files_create(sink, pc, spill_file_count(sink));
		MemoryContextSwitchTo(old);
	}
	spill_held_pairs(sink, pc);
	sink->keys_spilled += n;
	sink->spill_bytes += GroupAggPairBytes(sink, pc) * n;
}

/*
 * Closes a collection's files, which no longer count any pairs.  (After an
 * error the resource owner closes them, and the sink's memory is gone.)
 */
void
GroupAggSpillClose(PercentileCollection *pc)
{
	if (pc->spill != NULL)
		spill_files_close(pc->spill);
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
 * writes them, from its start, a chunk at a time; or, with file NULL, on
 * the collection's pairs in its arrays.
 */
static void
for_each_pair(GroupAggSink *sink, PercentileCollection *pc, BufFile *file, int64 in_file,
			  PairsFn fn, void *arg)
{
	Size		pb = GroupAggPairBytes(sink, pc);
	char	   *buf = palloc(pb * SPILL_CHUNK_PAIRS);
	uint32	   *groups = palloc(sizeof(uint32) * SPILL_CHUNK_PAIRS);
	uint64	   *keys = palloc(sizeof(uint64) * SPILL_CHUNK_PAIRS);
	int64		left = in_file;
	int64		n;

	if (file != NULL)
	{
		rewind_pairs(file);
		while ((n = read_pairs(file, &left, pb, pc->key_bytes, sink->nkeys > 0, buf,
							   SPILL_CHUNK_PAIRS, groups, keys)) > 0)
			fn(arg, groups, keys, n);
	}
	for (int64 i = 0; file == NULL && i < pc->nkeys; i += n)
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
 * A part of the groups whose keys are read back together: the groups
 * first, first + stride, ... before end, from one file (or the arrays).
 * Where their keys fit the budget they are placed by group in one array,
 * each group's at the place the counts give it among the part's; a part
 * of one group past the budget puts them in a key store that spills.
 */
typedef struct SpillPart
{
	int64		first;
	int64		end;
	int64		stride;			/* 1 or the files' count: a power of two */
	uint64	   *keys;			/* NULL: the store holds them */
	int64	   *fill;			/* by (group - first) / stride: where its next key goes */
	int64	   *limit;			/* and where its keys end */
	KeyStore	store;
} SpillPart;

/* Raises the error for a pair read back from a file its group's pairs are not in. */
static void
pair_out_of_place(uint32 group)
{
	elog(ERROR, "gpusel: a spilled percentile's pair of group %u was read back from another group's file",
		 group);
}

/*
 * The index of a group among those of a part or file (first, first +
 * stride, ... before end), checked: a pair of another group would write
 * past its group's keys.
 */
static inline int64
group_index(uint32 group, int64 first, int64 end, int64 stride)
{
	int64		d = (int64) group - first;

	if (unlikely(d < 0 || group >= end || (d & (stride - 1)) != 0))
		pair_out_of_place(group);
	return d / stride;
}

/* PairsFn: places pairs' keys with their groups'. */
static void
place_pairs(void *arg, const uint32 *groups, const uint64 *keys, int64 n)
{
	SpillPart  *sp = (SpillPart *) arg;

	if (sp->keys == NULL)
	{
		for (int64 i = 0; i < n; i++)
		{
			if (unlikely(groups[i] != sp->first))
				pair_out_of_place(groups[i]);
			KeyStoreAdd(&sp->store, keys[i]);
		}
		return;
	}
	for (int64 i = 0; i < n; i++)
	{
		int64		j = group_index(groups[i], sp->first, sp->end, sp->stride);

		if (unlikely(sp->fill[j] >= sp->limit[j]))
			pair_out_of_place(groups[i]);
		sp->keys[sp->fill[j]++] = keys[i];
	}
}

/* A file's pairs dealt to consecutive runs of its groups, a file each. */
typedef struct SpillDeal
{
	SpillFiles *to;
	int64		first;			/* the file's first group */
	int64		end;
	int64		stride;
	const int32 *run_of;		/* by (group - first) / stride */
} SpillDeal;

/* PairsFn: deals pairs to the files of their groups' runs. */
static void
deal_pairs(void *arg, const uint32 *groups, const uint64 *keys, int64 n)
{
	SpillDeal  *sd = (SpillDeal *) arg;

	for (int64 i = 0; i < n; i++)
		spill_files_add(sd->to, sd->run_of[group_index(groups[i], sd->first, sd->end, sd->stride)],
						groups[i], keys[i]);
}

/* What a pick reads and writes: the positions of each group, and where keys go. */
typedef struct SpillPick
{
	GroupAggSink *sink;
	PercentileCollection *pc;
	const int64 *positions;
	int64	   *pos_start;		/* by group: its first position; [ngroups] the count */
	void	   *out;
	int64		budget;			/* keys a part may place in memory */
	MemoryContext cxt;			/* a part's memory, reset after it */
} SpillPick;

/*
 * Reads a part's keys back from file (NULL: the arrays) and selects its
 * groups' positions into the pick's out, in place in the part's array or
 * by radix selection over its one group's store.
 */
static void
pick_part(SpillPick *pk, SpillPart *sp, BufFile *file, int64 in_file)
{
	PercentileCollection *pc = pk->pc;
	int64		nkeys = 0;
	int64		nranks = 0;
	int64	   *ranks;
	uint64	   *keys;
	MemoryContext old = MemoryContextSwitchTo(pk->cxt);

	for (int64 g = sp->first; g < sp->end; g += sp->stride)
	{
		nkeys += pc->counts[g + 1] - pc->counts[g];
		nranks = Max(nranks, pk->pos_start[g + 1] - pk->pos_start[g]);
	}
	sp->keys = NULL;
	sp->fill = NULL;
	if (nkeys <= pk->budget)
	{
		int64		at = 0;
		int64		nparted = Max((sp->end - sp->first + sp->stride - 1) / sp->stride, 1);

		sp->keys = MemoryContextAllocHuge(pk->cxt, sizeof(uint64) * Max(nkeys, 1));
		sp->fill = palloc(sizeof(int64) * nparted);
		sp->limit = palloc(sizeof(int64) * nparted);
		for (int64 g = sp->first; g < sp->end; g += sp->stride)
		{
			sp->fill[(g - sp->first) / sp->stride] = at;
			at += pc->counts[g + 1] - pc->counts[g];
			sp->limit[(g - sp->first) / sp->stride] = at;
		}
	}
	else if (sp->first + sp->stride < sp->end)
		elog(ERROR, "gpusel: a part of a spilled percentile's groups passed work_mem");
	else
		KeyStoreInit(&sp->store, pk->cxt, pc->key_bytes, false);
	for_each_pair(pk->sink, pc, file, in_file, place_pairs, sp);
	GroupAggNoteMemory(pk->sink);

	ranks = palloc(sizeof(int64) * Max(nranks, 1));
	keys = palloc(sizeof(uint64) * Max(nranks, 1));
	nkeys = 0;
	for (int64 g = sp->first; g < sp->end; g += sp->stride)
	{
		int64		from = pk->pos_start[g];
		int64		n = pk->pos_start[g + 1] - from;
		int64		count = pc->counts[g + 1] - pc->counts[g];

		if (sp->keys != NULL && sp->fill[(g - sp->first) / sp->stride] != nkeys + count)
			elog(ERROR, "gpusel: a spilled percentile's group read back %lld keys of %lld",
				 (long long) (sp->fill[(g - sp->first) / sp->stride] - nkeys), (long long) count);
		if (n > 0)
		{
			for (int64 i = 0; i < n; i++)
				ranks[i] = pk->positions[from + i] - pc->counts[g];
			if (sp->keys != NULL)
				SelectKeysInPlace(sp->keys + nkeys, count, ranks, (int) n, keys);
			else
				RadixSelectKeys(&sp->store.source, ranks, (int) n, keys);
			for (int64 i = 0; i < n; i++)
			{
				if (pc->key_bytes == 4)
					((uint32 *) pk->out)[from + i] = (uint32) keys[i];
				else
					((uint64 *) pk->out)[from + i] = keys[i];
			}
		}
		nkeys += count;
		CHECK_FOR_INTERRUPTS();
	}
	if (sp->keys == NULL)
		KeyStoreCloseFile(&sp->store);
	MemoryContextSwitchTo(old);
	MemoryContextReset(pk->cxt);
}

/*
 * Picks the positions of the groups of one file of the collection's:
 * first, first + stride, ... .  Where their keys pass the budget together,
 * the file's pairs are first dealt to files of consecutive runs of them
 * that fit it (a larger group is a run of its own, and its store spills).
 */
static void
pick_file(SpillPick *pk, BufFile *file, int64 in_file, int64 first, int64 stride)
{
	PercentileCollection *pc = pk->pc;
	int64		ngroups = pk->sink->nkeys > 0 ? pk->sink->ngroups : 1;
	int64		nmine = first < ngroups ? (ngroups - first + stride - 1) / stride : 0;
	int64		total = 0;
	int32	   *run_of;
	int64	   *run_first;
	int			nruns = 0;
	int64		filled = 0;
	SpillDeal	sd;
	SpillPart	sp;

	for (int64 g = first; g < ngroups; g += stride)
		total += pc->counts[g + 1] - pc->counts[g];
	if (total <= pk->budget || nmine <= 1)
	{
		sp.first = first;
		sp.end = ngroups;
		sp.stride = stride;
		pick_part(pk, &sp, file, in_file);
		return;
	}

	/*
	 * runs of consecutive groups of the file whose keys fit the budget
	 * together: a group that would take its run past it starts a new one,
	 * so a group past it alone is a run of its own (whatever groups without
	 * keys came before it)
	 */
	run_of = palloc(sizeof(int32) * nmine);
	run_first = palloc(sizeof(int64) * (nmine + 1));
	for (int64 j = 0; j < nmine; j++)
	{
		int64		g = first + j * stride;
		int64		n = pc->counts[g + 1] - pc->counts[g];

		if (nruns == 0 || filled + n > pk->budget)
		{
			run_first[nruns++] = g;
			filled = 0;
		}
		filled += n;
		run_of[j] = nruns - 1;
	}
	run_first[nruns] = ngroups;
	sd.to = spill_files_create(pk->sink, pc, nruns);
	sd.first = first;
	sd.end = ngroups;
	sd.stride = stride;
	sd.run_of = run_of;
	for_each_pair(pk->sink, pc, file, in_file, deal_pairs, &sd);
	for (int r = 0; r < nruns; r++)
		spill_files_flush(sd.to, r);
	for (int r = 0; r < nruns; r++)
	{
		sp.first = run_first[r];
		sp.end = run_first[r + 1];
		sp.stride = stride;
		pick_part(pk, &sp, sd.to->files[r], sd.to->in_file[r]);
		/* read: its disk space goes now */
		BufFileClose(sd.to->files[r]);
		sd.to->files[r] = NULL;
	}
	spill_files_close(sd.to);
	pfree(run_of);
	pfree(run_first);
}

/*
 * The keys at the given positions (ascending, distinct) of a spilled
 * collection in its order by group and key, as GroupAggDevicePick returns
 * them.  The pairs still in the arrays join their groups' files; each
 * file's groups are then read back together where their keys fit work_mem
 * (else dealt again into runs that do), placed by group in one array as a
 * counting sort places them (the counts are known), and every group's
 * ranks selected where its keys lie.  A collection that never spilled
 * (the kept keys of one read twice) is read from its arrays.  The
 * collection's files are closed after.
 */
void
GroupAggSpillPick(GroupAggSink *sink, PercentileCollection *pc, const int64 *positions,
				  int64 npositions, void *out)
{
	int64		ngroups = sink->nkeys > 0 ? sink->ngroups : 1;
	SpillPick	pk;

	pk.sink = sink;
	pk.pc = pc;
	pk.positions = positions;
	pk.out = out;
	pk.budget = Max((int64) work_mem * 1024 / (int64) sizeof(uint64), SPILL_CHUNK_PAIRS);
	pk.cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel spilled keys",
								   ALLOCSET_DEFAULT_SIZES);
	/* each group's positions: they ascend, as the groups' keys lie */
	pk.pos_start = palloc(sizeof(int64) * (ngroups + 1));
	for (int64 g = 0, i = 0; g <= ngroups; g++)
	{
		while (i < npositions && positions[i] < pc->counts[g])
			i++;
		pk.pos_start[g] = i;
	}
	if (pk.pos_start[ngroups] != npositions)
		elog(ERROR, "gpusel: %lld of %lld positions of a spilled percentile lie past its keys",
			 (long long) (npositions - pk.pos_start[ngroups]), (long long) npositions);

	if (pc->spill == NULL)
		pick_file(&pk, NULL, 0, 0, 1);
	else
	{
		SpillFiles *sf = pc->spill;

		spill_held_pairs(sink, pc);
		for (int f = 0; f < sf->nfiles; f++)
			spill_files_flush(sf, f);
		for (int f = 0; f < sf->nfiles; f++)
		{
			pick_file(&pk, sf->files[f], sf->in_file[f], f, sf->nfiles);
			/* read: its disk space goes now */
			BufFileClose(sf->files[f]);
			sf->files[f] = NULL;
		}
	}
	MemoryContextDelete(pk.cxt);
	GroupAggSpillClose(pc);
	pfree(pk.pos_start);
}
