/*
 * groupagg_device.c
 *	  The grouped scan's percentile keys held on the GPU while the scan runs:
 *	  once a collection has GROUPAGG_SHIP_KEYS keys and the GPU is to take
 *	  it, its (group, key) pairs go to device memory (gs_pairs) in steps of
 *	  that many as rows reach the groups, so that the results are left with
 *	  the device's sort or selection and the picked keys alone.  The host
 *	  keeps its own copy of the pairs it appended; those the device appended
 *	  itself (groupagg_batch.c) come back to it when the device runs short
 *	  of memory, and the held pairs are then dropped and the results are
 *	  computed from the host's.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "device.h"
#include "groupagg_internal.h"

/* Frees a collection's pairs on the device with the sink's memory (reset, end, error). */
static void
release_pairs(void *arg)
{
	PercentileCollection *pc = (PercentileCollection *) arg;

	GpuselDev->pairs_destroy(pc->dev);
	pc->dev = NULL;
}

/*
 * Makes the host's pairs whole again: the held pairs (the host's shipped
 * ones and those the device appended) followed by the host's unshipped
 * ones, in new host arrays.
 */
static void
pull_pairs(GroupAggSink *sink, PercentileCollection *pc)
{
	int64		held = GpuselDev->pairs_count(pc->dev);
	int64		tail = pc->nkeys - pc->shipped;
	int64		cap = Max(held + tail, 1);
	char	   *keys;
	uint32	   *groups = NULL;
	char		errbuf[512];
	gs_status	status;

	/* everything spilled was shipped first: the held pairs include it */
	GroupAggSpillClose(pc);
	keys = MemoryContextAllocExtended(sink->cxt, (Size) pc->key_bytes * cap, MCXT_ALLOC_HUGE);
	if (sink->nkeys > 0)
		groups = MemoryContextAllocExtended(sink->cxt, sizeof(uint32) * cap, MCXT_ALLOC_HUGE);
	errbuf[0] = '\0';
	status = GpuselDev->pairs_read(pc->dev, keys, groups, errbuf, sizeof(errbuf));
	GpuselCheckStatus(status, errbuf, "copying percentile keys back from the GPU");
	if (tail > 0)
	{
		memcpy(keys + held * pc->key_bytes, pc->keys + pc->shipped * pc->key_bytes,
			   (Size) pc->key_bytes * tail);
		if (groups != NULL)
			memcpy(groups + held, pc->groups + pc->shipped, sizeof(uint32) * tail);
	}
	if (pc->keys != NULL)
		pfree(pc->keys);
	if (pc->groups != NULL)
		pfree(pc->groups);
	pc->keys = keys;
	pc->groups = groups;
	pc->nkeys = held + tail;
	pc->cap = cap;
	pc->shipped = 0;
	pc->dev_keys = 0;
}

/*
 * Drops a collection's device pairs after the device ran short, taking
 * back first the pairs only the device holds; the host's copy serves.
 */
void
GroupAggDropDevicePairs(GroupAggSink *sink, PercentileCollection *pc, const char *errbuf)
{
	ereport(DEBUG1,
			(errmsg("gpusel: percentile keys do not fit in GPU memory, using the host's copy"),
			 errdetail("%s", errbuf)));
	if (pc->dev_keys > 0)
	{
		/* a sort that failed after it started has consumed them: nothing to take back */
		if (GpuselDev->pairs_count(pc->dev) < pc->shipped + pc->dev_keys)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpusel: percentile keys held only on the GPU were lost"),
					 errdetail("%s", errbuf)));
		pull_pairs(sink, pc);
	}
	GpuselDev->pairs_destroy(pc->dev);
	pc->dev = NULL;
	pc->dev_declined = true;
	GpuselCountFallback();
}

/* Starts holding a collection's pairs on the device. */
static bool
start_pairs(GroupAggSink *sink, PercentileCollection *pc)
{
	MemoryContextCallback *cb;
	char		errbuf[512];
	gs_status	status;

	/* the callback first, so that no path leaves the pairs unowned */
	cb = MemoryContextAllocZero(sink->cxt, sizeof(MemoryContextCallback));
	cb->func = release_pairs;
	cb->arg = pc;
	MemoryContextRegisterResetCallback(sink->cxt, cb);
	errbuf[0] = '\0';
	status = GpuselDev->pairs_create(&pc->dev, pc->key_bytes, sink->nkeys > 0, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		GroupAggDropDevicePairs(sink, pc, errbuf);
		return false;
	}
	GpuselCheckStatus(status, errbuf, "holding percentile keys on the GPU");
	pc->shipped = 0;
	return true;
}

/*
 * Copies the pairs a collection appended since the last step to the
 * device, starting to hold them there first when the GPU is to take them.
 */
void
GroupAggShipKeys(GroupAggSink *sink, PercentileCollection *pc)
{
	char		errbuf[512];
	gs_status	status;

	if (pc->dev_declined)
		return;
	if (pc->dev == NULL && !GpuselWantGpu(pc->nkeys))
	{
		pc->dev_declined = true;
		return;
	}
	if (pc->dev == NULL && !start_pairs(sink, pc))
		return;
	errbuf[0] = '\0';
	status = GpuselDev->pairs_append(pc->dev, pc->keys + pc->shipped * pc->key_bytes,
							 pc->groups != NULL ? pc->groups + pc->shipped : NULL,
							 pc->nkeys - pc->shipped, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		GroupAggDropDevicePairs(sink, pc, errbuf);
		return;
	}
	GpuselCheckStatus(status, errbuf, "copying percentile keys to the GPU");
	pc->shipped = pc->nkeys;
}

/*
 * Under Gather, the leader's way with a worker's chunk of pairs once the
 * collection is held on the device and nothing waits on the host: the
 * keys go from the chunk to the device, the group numbers through a
 * small buffer mapped to the leader's, and the host keeps no copy (they
 * count as dev_keys).  False, with nothing added, when the device ran
 * short; the pairs it held are back on the host then.
 */
bool
GroupAggShipMergedPairs(GroupAggSink *sink, PercentileCollection *pc, const char *keys,
						const uint32 *worker_groups, const int64 *map, int64 n)
{
	uint32	   *groups = NULL;
	char		errbuf[512];
	gs_status	status;

	if (pc->dev == NULL || pc->shipped != pc->nkeys)
		return false;
	if (worker_groups != NULL)
	{
		groups = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
		for (int64 i = 0; i < n; i++)
			groups[i] = (uint32) map[worker_groups[i]];
	}
	errbuf[0] = '\0';
	status = GpuselDev->pairs_append(pc->dev, keys, groups, n, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		if (groups != NULL)
			pfree(groups);
		GroupAggDropDevicePairs(sink, pc, errbuf);
		return false;
	}
	GpuselCheckStatus(status, errbuf, "copying percentile keys to the GPU");
	if (groups != NULL)
	{
		for (int64 i = 0; i < n; i++)
			pc->counts[groups[i]]++;
		pfree(groups);
	}
	else
		pc->counts[0] += n;
	pc->dev_keys += n;
	return true;
}

/*
 * Holds a collection's pairs on the device from now on, whatever their
 * number, for a scan that groups its rows there; false when the device
 * declined or has no room.
 */
bool
GroupAggHoldPairs(GroupAggSink *sink, PercentileCollection *pc)
{
	if (pc->dev == NULL && !pc->dev_declined && !start_pairs(sink, pc))
		return false;
	if (pc->dev != NULL && pc->shipped < pc->nkeys)
		GroupAggShipKeys(sink, pc);
	return pc->dev != NULL;
}

/*
 * The keys at the given positions (ascending, distinct) of a collection
 * held on the device, in its order by group and key: sorted and picked
 * with groups, selected by rank without.  False, with the device's pairs
 * dropped, when the device ran short of memory or an interrupt that was
 * not a cancel stopped it; the caller then uses the host's copy.
 */
bool
GroupAggDevicePick(GroupAggSink *sink, PercentileCollection *pc, const int64 *positions,
				   int64 npositions, void *out)
{
	const volatile int *cancel;
	char		errbuf[512];
	gs_status	status;

	if (pc->dev == NULL)
		return false;
	if (pc->shipped < pc->nkeys)
		GroupAggShipKeys(sink, pc);
	if (pc->dev == NULL)
		return false;
	if (sink->nkeys == 0 && npositions > INT_MAX)
	{
		GroupAggDropDevicePairs(sink, pc, "more ranks than the device's selection takes");
		return false;
	}
	/*
	 * A sort consumes the pairs, so only a cancel, which ends the query,
	 * stops it: other interrupts (under Gather, the workers' messages as
	 * they finish) would leave the results to the host's slower path
	 */
	cancel = INTERRUPTS_CAN_BE_PROCESSED() ? (const volatile int *) &QueryCancelPending : NULL;
	errbuf[0] = '\0';
	if (sink->nkeys == 0)
		status = GpuselDev->pairs_select(pc->dev, positions, (int) npositions, out, cancel,
								 errbuf, sizeof(errbuf));
	else
		status = GpuselDev->pairs_sort_pick(pc->dev, sink->ngroups, positions, npositions, out,
									cancel, errbuf, sizeof(errbuf));
	if (status == GS_INTERRUPTED)
	{
		/* raises the cancel that stopped the sort */
		CHECK_FOR_INTERRUPTS();
		if (pc->dev_keys > 0 && GpuselDev->pairs_count(pc->dev) == 0)
			elog(ERROR, "gpusel: grouped percentile sort stopped with keys only the GPU held");
		GroupAggDropDevicePairs(sink, pc, errbuf);
		return false;
	}
	if (status == GS_OUT_OF_MEMORY)
	{
		GroupAggDropDevicePairs(sink, pc, errbuf);
		return false;
	}
	GpuselCheckStatus(status, errbuf, "grouped percentile selection");
	GpuselCountSelection(true);
	/* the results read only the picked keys: the device's memory goes back now */
	GpuselDev->pairs_destroy(pc->dev);
	pc->dev = NULL;
	pc->dev_declined = true;
	return true;
}
