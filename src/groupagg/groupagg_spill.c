/*
 * groupagg_spill.c
 *	  Keeps the host's share of a percentile collection within work_mem, as
 *	  PostgreSQL's sort keeps its input: once the collection's (group, key)
 *	  arrays would grow past work_mem, the pairs they hold go to a temporary
 *	  file and the arrays are refilled.  When the results need the keys and
 *	  the device cannot pick them, PostgreSQL's tuplesort (which spills in
 *	  turn) orders the spilled and the held pairs by group and key, and one
 *	  pass over that order keeps the keys at the positions the results read
 *	  (the positions pick_collection notes in groupagg_results.c).
 *
 * A collection the device holds keeps that copy: every pair is shipped to
 * the device before it is spilled, so the file only stands in for the
 * host's copy, and a file is never needed beside pairs pulled back from
 * the device (groupagg_device.c closes it then).  A collection that spilled
 * before the device took it stays on the host.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/tupdesc.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"

#include "groupagg_internal.h"

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
	return pc->cap > 0 && pc->nkeys > 0 && !pc->big_keys && !IsParallelWorker() &&
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

/* Closes a collection's file; after an error the resource owner has closed it. */
void
GroupAggSpillClose(PercentileCollection *pc)
{
	if (pc->spill != NULL)
		BufFileClose(pc->spill);
	pc->spill = NULL;
	pc->nspilled = 0;
}

/* One pair read back: its group and its key. */
typedef struct SpillPair
{
	uint32		group;
	uint64		key;
} SpillPair;

/*
 * How the pairs are sorted: one int8 datum per pair where a pair fits 64
 * bits (no groups, or 4-byte keys beside the group), else a row of two
 * int8 columns.  Keys order as unsigned integers; flipping the top bit
 * makes int8's signed order the same.
 */
typedef struct SpillSort
{
	Tuplesortstate *sort;
	bool		as_rows;
	int			key_bytes;
	TupleDesc	desc;
	TupleTableSlot *slot;
} SpillSort;

#define SIGN_FLIP	(UINT64CONST(1) << 63)

/* Starts the sort of a collection's pairs in work_mem. */
static void
spill_sort_begin(SpillSort *ss, GroupAggSink *sink, PercentileCollection *pc)
{
	ss->key_bytes = pc->key_bytes;
	ss->as_rows = sink->nkeys > 0 && pc->key_bytes == 8;
	if (!ss->as_rows)
	{
		ss->sort = tuplesort_begin_datum(INT8OID, Int8LessOperator, InvalidOid, false,
										 work_mem, NULL, TUPLESORT_NONE);
		return;
	}
	{
		AttrNumber	attnums[2] = {1, 2};
		Oid			ops[2] = {Int8LessOperator, Int8LessOperator};
		Oid			collations[2] = {InvalidOid, InvalidOid};
		bool		nulls_first[2] = {false, false};

		ss->desc = CreateTemplateTupleDesc(2);
		TupleDescInitBuiltinEntry(ss->desc, 1, "group", INT8OID, -1, 0);
		TupleDescInitBuiltinEntry(ss->desc, 2, "key", INT8OID, -1, 0);
		ss->slot = MakeSingleTupleTableSlot(ss->desc, &TTSOpsMinimalTuple);
		ss->sort = tuplesort_begin_heap(ss->desc, 2, attnums, ops, collations, nulls_first,
										work_mem, NULL, TUPLESORT_NONE);
	}
}

/* Adds one pair to the sort. */
static void
spill_sort_put(SpillSort *ss, uint32 group, uint64 key)
{
	if (!ss->as_rows)
	{
		uint64		packed = ss->key_bytes == 4 ? ((uint64) group << 32) | key : key;

		tuplesort_putdatum(ss->sort, Int64GetDatum((int64) (packed ^ SIGN_FLIP)), false);
		return;
	}
	ExecClearTuple(ss->slot);
	ss->slot->tts_values[0] = Int64GetDatum((int64) group);
	ss->slot->tts_values[1] = Int64GetDatum((int64) (key ^ SIGN_FLIP));
	ss->slot->tts_isnull[0] = false;
	ss->slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(ss->slot);
	tuplesort_puttupleslot(ss->sort, ss->slot);
}

/* The next pair's key in the sorted order; false after the last. */
static bool
spill_sort_next(SpillSort *ss, uint64 *key)
{
	Datum		value;
	bool		isnull;

	if (!ss->as_rows)
	{
		if (!tuplesort_getdatum(ss->sort, true, &value, &isnull, NULL))
			return false;
		*key = ((uint64) DatumGetInt64(value)) ^ SIGN_FLIP;
		if (ss->key_bytes == 4)
			*key &= UINT64CONST(0xFFFFFFFF);
		return true;
	}
	if (!tuplesort_gettupleslot(ss->sort, true, false, ss->slot, NULL))
		return false;
	value = slot_getattr(ss->slot, 2, &isnull);
	*key = ((uint64) DatumGetInt64(value)) ^ SIGN_FLIP;
	return true;
}

/* Ends the sort and frees what it holds. */
static void
spill_sort_end(SpillSort *ss)
{
	tuplesort_end(ss->sort);
	if (ss->slot != NULL)
		ExecDropSingleTupleTableSlot(ss->slot);
}

/* The key of pair i in the host's arrays. */
static inline uint64
held_key(PercentileCollection *pc, int64 i)
{
	return pc->key_bytes == 4 ? ((uint32 *) pc->keys)[i] : ((uint64 *) pc->keys)[i];
}

/*
 * The keys at the given positions (ascending, distinct) of a spilled
 * collection in its order by group and key, as GroupAggDevicePick returns
 * them, from the file and the pairs still held; the file is closed after.
 */
void
GroupAggSpillPick(GroupAggSink *sink, PercentileCollection *pc, const int64 *positions,
				  int64 npositions, void *out)
{
	Size		pb = GroupAggPairBytes(sink, pc);
	SpillSort	ss = {0};
	char	   *buf;
	int64		at = 0;
	int64		next = 0;
	uint64		key;

	spill_sort_begin(&ss, sink, pc);
	if (BufFileSeek(pc->spill, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind the temporary file of gpusel's percentile keys: %m")));
	buf = palloc(pb * SPILL_CHUNK_PAIRS);
	for (int64 from = 0; from < pc->nspilled; from += SPILL_CHUNK_PAIRS)
	{
		int64		n = Min(SPILL_CHUNK_PAIRS, pc->nspilled - from);
		char	   *p = buf;

		CHECK_FOR_INTERRUPTS();
		if (BufFileRead(pc->spill, buf, pb * n) != pb * n)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read the temporary file of gpusel's percentile keys: %m")));
		for (int64 i = 0; i < n; i++)
		{
			uint32		group = 0;
			uint64		k = 0;

			if (sink->nkeys > 0)
			{
				memcpy(&group, p, sizeof(uint32));
				p += sizeof(uint32);
			}
			if (pc->key_bytes == 4)
			{
				uint32		k4;

				memcpy(&k4, p, sizeof(uint32));
				k = k4;
			}
			else
				memcpy(&k, p, sizeof(uint64));
			p += pc->key_bytes;
			spill_sort_put(&ss, group, k);
		}
	}
	pfree(buf);
	for (int64 i = 0; i < pc->nkeys; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		spill_sort_put(&ss, sink->nkeys > 0 ? pc->groups[i] : 0, held_key(pc, i));
	}
	GroupAggNoteMemory(sink);
	tuplesort_performsort(ss.sort);

	/* one pass keeps the keys at the positions, in order */
	while (next < npositions && spill_sort_next(&ss, &key))
	{
		if ((at & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (at++ != positions[next])
			continue;
		if (pc->key_bytes == 4)
			((uint32 *) out)[next] = (uint32) key;
		else
			((uint64 *) out)[next] = key;
		next++;
	}
	spill_sort_end(&ss);
	if (next != npositions)
		elog(ERROR, "gpusel: %lld of %lld positions of a spilled percentile were not found",
			 (long long) (npositions - next), (long long) npositions);
	GroupAggSpillClose(pc);
}
