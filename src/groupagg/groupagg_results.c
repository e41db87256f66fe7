/*
 * groupagg_results.c
 *	  The grouped scan's results: each group's row, with every aggregate's
 *	  final value as PostgreSQL's final function gives it, after the
 *	  percentile keys are sorted into one segment per group; and the sink's
 *	  EXPLAIN lines.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/ruleutils.h"

#include "device.h"
#include "groupagg_internal.h"
#include "qual_compile.h"
#include "guc.h"

/* positions sort ascending, compared inline */
#define ST_SORT sort_positions
#define ST_ELEMENT_TYPE int64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Frees the host's (group, key) pairs once the results no longer read them. */
static void
free_host_pairs(PercentileCollection *pc)
{
	GroupAggSpillClose(pc);
	GroupAggFreeHeldPairs(pc);
}

/* The percentile result of aggregate desc in group g, from the collection's keys. */
static Datum
percentile_value(GroupAggSink *sink, const GroupAggDesc *desc, int64 g, bool *isnull)
{
	PercentileCollection *pc = &sink->collections[desc->collection];
	int64		start = pc->counts[g];
	int64		end = pc->seg_end != NULL ? pc->seg_end[g] : pc->counts[g + 1];
	Datum		result;

	/* values kept whole: the group's, sorted by the type's comparison */
	if (pc->kept != NULL)
	{
		int64		n = end - start;
		Datum	   *values = palloc(sizeof(Datum) * Max(n, 1));

		for (int64 i = 0; i < n; i++)
			values[i] = PointerGetDatum(pc->segments + (start + i) * pc->key_bytes);
		GpuselPercentileSortValues(pc->like, values, n);
		result = GpuselPercentileResultForValues(pc->like, values, n,
												 desc->fraction->constvalue,
												 desc->fraction->constisnull,
												 desc->fraction->consttype == FLOAT8ARRAYOID,
												 desc->kind == GROUPAGG_PERCENTILE_CONT,
												 isnull);
		pfree(values);
		return result;
	}
	if (pc->picked != NULL)
		pc->picked->base = start;
	/* noting: only the positions the result reads, not the result */
	if (pc->picked != NULL && pc->picked->noting)
	{
		GpuselPercentileNoteRanks(pc->like, end - start, desc->fraction->constvalue,
								  desc->fraction->constisnull,
								  desc->fraction->consttype == FLOAT8ARRAYOID,
								  desc->kind == GROUPAGG_PERCENTILE_CONT, pc->picked);
		*isnull = true;
		return (Datum) 0;
	}
	result = GpuselPercentileResultForKeys(pc->like,
										 pc->picked != NULL ? NULL :
										 pc->segments + start * pc->key_bytes,
										 end - start,
										 pc->picked,
										 (pc->zeros[g] & 1) != 0,
										 (pc->zeros[g] & 2) != 0,
										 desc->fraction->constvalue,
										 desc->fraction->constisnull,
										 desc->fraction->consttype == FLOAT8ARRAYOID,
										 desc->kind == GROUPAGG_PERCENTILE_CONT,
										 isnull);
	/* a numeric column's keys are its scaled values */
	if (pc->numeric_scale >= 0 && !*isnull)
		result = GroupAggNumericResult(pc, g, end - start,
									   desc->fraction->constvalue,
									   desc->fraction->consttype == FLOAT8ARRAYOID, result);
	return result;
}

/* A percentile's final value (the aggregate table's final step). */
Datum
GroupAggPercentileFinal(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g,
						bool *isnull)
{
	return percentile_value(sink, desc, g, isnull);
}

/*
 * Every position among the collection's keys in their order by group and
 * key that its percentiles read, ascending and distinct (pc->picked, still
 * noting): each percentile over it notes its positions
 * (GpuselPercentileNoteRanks), with pc->counts holding the groups' starts.
 */
static PickedKeys *
note_positions(GroupAggSink *sink, PercentileCollection *pc)
{
	int			c = (int) (pc - sink->collections);
	PickedKeys *picked = MemoryContextAllocZero(sink->cxt, sizeof(PickedKeys));
	MemoryContext noting_cxt;
	MemoryContext old;
	int64		n = 0;

	picked->cxt = sink->cxt;
	picked->noting = true;
	pc->picked = picked;
	noting_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel noting ranks",
									   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(noting_cxt);
	for (int a = 0; a < sink->naggs; a++)
	{
		GroupAggDesc *desc = &sink->aggs[a];
		bool		isnull;

		if (desc->collection != c)
			continue;
		for (int64 g = 0; g < sink->ngroups; g++)
		{
			(void) percentile_value(sink, desc, g, &isnull);
			if ((g & 0xFFFF) == 0)
			{
				CHECK_FOR_INTERRUPTS();
				MemoryContextReset(noting_cxt);
			}
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(noting_cxt);

	/*
	 * ascending and distinct, for the results' binary search; one
	 * percentile's positions come in order already (the groups' segments
	 * in group order, a group's ranks ascending), and need no sort
	 */
	if (picked->count > 0)
	{
		bool		ascending = true;

		for (int64 i = 1; i < picked->count && ascending; i++)
			ascending = picked->positions[i - 1] <= picked->positions[i];
		if (!ascending)
			sort_positions(picked->positions, picked->count);
		for (int64 i = 0; i < picked->count; i++)
			if (n == 0 || picked->positions[i] != picked->positions[n - 1])
				picked->positions[n++] = picked->positions[i];
	}
	picked->count = n;
	return picked;
}

/*
 * The way to the results of a collection the device holds or that
 * spilled: every percentile over the collection notes the positions it
 * reads, the device sorts all
 * pairs by group and key (or, without groups, selects ranks) and returns
 * the keys at those positions, and the results read them from there.  The
 * pairs are those held on the device since the scan (pc->dev).  When the
 * device declines (memory) and the collection spilled, a sort of the
 * spilled and held pairs picks the keys (groupagg_spill.c).  False when
 * the device declined and nothing spilled; the host's pairs are whole then.
 */
static bool
pick_collection(GroupAggSink *sink, PercentileCollection *pc)
{
	PickedKeys *picked = note_positions(sink, pc);
	int64		n = picked->count;
	void	   *out;

	picked->keys = MemoryContextAllocExtended(sink->cxt, sizeof(uint64) * Max(n, 1),
											  MCXT_ALLOC_HUGE);
	out = MemoryContextAllocExtended(sink->cxt, (Size) pc->key_bytes * Max(n, 1),
									 MCXT_ALLOC_HUGE);
	if (!GroupAggDevicePick(sink, pc, picked->positions, n, out))
	{
		if (pc->spill == NULL)
		{
			pc->picked = NULL;
			return false;
		}
		GroupAggSpillPick(sink, pc, picked->positions, n, out);
	}
	for (int64 i = 0; i < n; i++)
		picked->keys[i] = pc->key_bytes == 4 ? ((uint32 *) out)[i] : ((uint64 *) out)[i];
	pfree(out);
	picked->noting = false;
	free_host_pairs(pc);
	return true;
}

/*
 * Turns a collection's pairs into what the results read: counts[g] is
 * where group g's keys start in the order by group and counts[g + 1] where
 * they end, or, where the host lays the segments out in the groups' ORDER
 * BY (sink->group_order), seg_end[g] where they end.  The GPU, when it
 * holds the pairs or takes them now, sorts (or selects) them and picks the
 * keys the results read (pick_collection); otherwise a counting sort by
 * group on the host makes one segment per group, in scan order, and
 * without groups the keys are the one segment.
 */
static void
segment_collection(GroupAggSink *sink, PercentileCollection *pc)
{
	int64		start = 0;
	int64	   *next;
	int			kb = pc->key_bytes;

	pc->seg_end = NULL;
	if (pc->narrow != NULL)
	{
		/* read twice: the kept keys give the noted positions' keys */
		GroupAggNarrowPick(sink, pc);
		free_host_pairs(pc);
		return;
	}
	if (sink->nkeys == 0)
	{
		/* one group: the keys are its segment as they are */
		pc->counts[0] = 0;
		pc->counts[1] = pc->nspilled + pc->nkeys + pc->dev_keys;
		if ((pc->dev != NULL || pc->spill != NULL) && pick_collection(sink, pc))
			return;
		pc->segments = pc->keys != NULL ? pc->keys :
			MemoryContextAlloc(sink->cxt, kb);
		pc->keys = NULL;
		return;
	}
	if (pc->dev == NULL && pc->spill == NULL && sink->group_order != NULL)
	{
		/*
		 * the keys all here and the groups returned in the ORDER BY: their
		 * segments laid out in that order, so that the results read them in
		 * the order they lie
		 */
		pc->seg_end = MemoryContextAllocExtended(sink->cxt,
												 sizeof(int64) * Max(sink->ngroups, 1),
												 MCXT_ALLOC_HUGE);
		for (int64 p = 0; p < sink->ngroups; p++)
		{
			int64		g = sink->group_order[p];
			int64		n = pc->counts[g];

			pc->counts[g] = start;
			start += n;
			pc->seg_end[g] = start;
		}
	}
	else
		for (int64 g = 0; g < sink->ngroups; g++)
		{
			int64		n = pc->counts[g];

			pc->counts[g] = start;
			start += n;
		}
	pc->counts[sink->ngroups] = start;
	if ((pc->dev != NULL || pc->spill != NULL) && pick_collection(sink, pc))
		return;
	pc->segments = MemoryContextAllocExtended(sink->cxt, (Size) kb * Max(start, 1),
											  MCXT_ALLOC_HUGE);
	next = MemoryContextAllocExtended(sink->cxt, sizeof(int64) * Max(sink->ngroups, 1),
									  MCXT_ALLOC_HUGE);
	memcpy(next, pc->counts, sizeof(int64) * sink->ngroups);
	for (int64 i = 0; i < pc->nkeys; i++)
	{
		int64		at = next[pc->groups[i]]++;

		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (kb == 4)
			((uint32 *) pc->segments)[at] = ((uint32 *) pc->keys)[i];
		else if (kb == 8)
			((uint64 *) pc->segments)[at] = ((uint64 *) pc->keys)[i];
		else
			memcpy(pc->segments + at * kb, pc->keys + i * kb, kb);
	}
	pfree(next);
	free_host_pairs(pc);
}

/*
 * Whether the scan must read its rows again: a collection past work_mem
 * was counted by bucket instead of spilled (groupagg_narrow.c).
 */
bool
GroupAggSinkSecondPassDue(GroupAggSink *sink)
{
	for (int c = 0; c < sink->ncollections; c++)
		if (sink->collections[c].narrow != NULL && !sink->second_pass)
			return true;
	return false;
}

/*
 * Readies the second pass over the same rows: each collection counted by
 * bucket notes the positions its results read among all its keys and
 * picks the buckets that hold them; its counts start again for the keys
 * kept.  The aggregates' cells stay as the first pass left them.
 */
void
GroupAggSinkBeginSecondPass(GroupAggSink *sink)
{
	int64		ng = sink->nkeys > 0 ? sink->ngroups : 1;
	int64	   *total_start = palloc(sizeof(int64) * (ng + 1));

	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];
		PickedKeys *picked;

		if (pc->narrow == NULL)
			continue;
		total_start[0] = 0;
		for (int64 g = 0; g < ng; g++)
			total_start[g + 1] = total_start[g] + pc->counts[g];
		memcpy(pc->counts, total_start, sizeof(int64) * (ng + 1));
		picked = note_positions(sink, pc);
		sink->keys_kept += GroupAggNarrowChooseBuckets(sink, pc, total_start, ng,
													   picked->positions, picked->count);
		memset(pc->counts, 0, sizeof(int64) * (ng + 1));
	}
	pfree(total_start);
	sink->second_pass = true;
	sink->second_passes++;
}

/* Ends the second pass: the results read the kept keys. */
void
GroupAggSinkEndSecondPass(GroupAggSink *sink)
{
	sink->second_pass = false;
}

/* The final value of one aggregate in group g, as PostgreSQL's final function gives it. */
static Datum
final_value(GroupAggSink *sink, GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	*isnull = false;
	if (desc->methods->strict && cell->count == 0)
	{
		*isnull = true;			/* no non-NULL input */
		return (Datum) 0;
	}
	return desc->methods->final(sink, desc, cell, g, isnull);
}

/*
 * Stores the next group's row in the scan slot: its keys, its aggregates
 * and NULL in the junk column.  Results are computed in the caller's
 * per-tuple memory.  Returns false after the last group.
 */
bool
GroupAggSinkNextGroup(GroupAggSink *sink, TupleTableSlot *scanslot)
{
	MemoryContext old;
	int64		g;
	int			natts = scanslot->tts_tupleDescriptor->natts;

	if (sink->next_group >= sink->ngroups)
		return false;
	if (sink->next_group == 0)
	{
		GroupAggNoteMemory(sink);
		sink->group_order = GroupAggOrderGroups(sink);
		for (int c = 0; c < sink->ncollections; c++)
			segment_collection(sink, &sink->collections[c]);
	}
	g = sink->next_group++;
	if (sink->group_order != NULL)
		g = sink->group_order[g];
	sink->groups_total++;
	ExecClearTuple(scanslot);
	old = MemoryContextSwitchTo(sink->ps->ps_ExprContext->ecxt_per_tuple_memory);
	for (int k = 0; k < sink->nkeys; k++)
	{
		GroupInput *in = &sink->inputs[k];

		scanslot->tts_values[k] = sink->keyvalues[g * sink->nkeys + k];
		scanslot->tts_isnull[k] = sink->keynulls[g * sink->nkeys + k];
		/* a key read as int8 (a short char(n) column) becomes its type again */
		if (in->form != GPUSEL_FORM_PLAIN && !scanslot->tts_isnull[k])
			scanslot->tts_values[k] = GpuselFormDecode(in->form, in->form_arg,
													   DatumGetInt64(scanslot->tts_values[k]));
	}
	for (int a = 0; a < sink->naggs; a++)
		scanslot->tts_values[sink->nkeys + a] =
			final_value(sink, &sink->aggs[a], &sink->cells[g * sink->naggs + a], g,
						&scanslot->tts_isnull[sink->nkeys + a]);
	MemoryContextSwitchTo(old);
	for (int i = sink->nkeys + sink->naggs; i < natts; i++)
		scanslot->tts_isnull[i] = true;
	ExecStoreVirtualTuple(scanslot);
	return true;
}

/* EXPLAIN: the group keys and aggregates; with ANALYZE, groups and rows. */
void
GroupAggSinkExplain(GroupAggSink *sink, List *deparse_cxt, bool useprefix, ExplainState *es)
{
	List	   *keys = NIL;

	for (int k = 0; k < sink->nkeys; k++)
		keys = lappend(keys, deparse_expression((Node *) sink->inputs[k].expr, deparse_cxt,
												useprefix, false));
	if (keys != NIL)
		ExplainPropertyList("Group Key", keys, es);
	GroupAggOrderExplain(sink, deparse_cxt, useprefix, es);
	if (es->analyze)
	{
		ExplainPropertyInteger("Groups", NULL, sink->groups_total, es);
		ExplainPropertyInteger("Rows Aggregated", NULL, sink->rows_aggregated, es);
		/* percentile keys past work_mem, as a sort reports its disk */
		/* read twice instead of spilling (groupagg_narrow.c) */
		if (sink->second_passes > 0)
		{
			ExplainPropertyInteger("Percentile Second Passes", NULL, sink->second_passes, es);
			ExplainPropertyInteger("Percentile Keys Kept", NULL, sink->keys_kept, es);
			if (sink->groups_whole > 0)
				ExplainPropertyInteger("Percentile Groups Read Whole", NULL, sink->groups_whole,
									   es);
		}
		if (sink->keys_spilled > 0)
		{
			ExplainPropertyInteger("Percentile Keys Spilled", NULL, sink->keys_spilled, es);
			ExplainPropertyInteger("Disk Usage", "kB", (int64) ((sink->spill_bytes + 1023) / 1024),
								   es);
			ExplainPropertyInteger("Peak Memory Usage", "kB",
								   (int64) ((sink->peak_memory + 1023) / 1024), es);
		}
		/*
		 * How many arrived as a batch's columns rather than from their heap
		 * tuples: a detail of the machine (on the GPU the first row of each
		 * batch comes from its tuple).
		 */
		if (gpusel_explain_device_details)
		{
			ExplainPropertyInteger("Rows From Columns", NULL, sink->rows_from_columns, es);
			/* of them, how many the GPU put into groups itself (groupagg_batch.c) */
			if (sink->rows_on_device > 0)
				ExplainPropertyInteger("Rows Grouped on Device", NULL, sink->rows_on_device, es);
			/* or summed there (groupagg_devsum.c) */
			if (sink->rows_summed_on_device > 0)
				ExplainPropertyInteger("Rows Summed on Device", NULL,
									   sink->rows_summed_on_device, es);
		}
	}
}
