/*
 * groupagg_device.c
 *	  The grouped scan's percentile keys held on the GPU while the scan runs:
 *	  once a collection has GROUPAGG_SHIP_KEYS keys and the GPU is to take
 *	  it, its (group, key) pairs go to device memory (gs_pairs) in steps of
 *	  that many as rows reach the groups, so that the results are left with
 *	  the device's sort or selection and the picked keys alone.  The host
 *	  keeps its own copy: when the device runs short of memory the held
 *	  pairs are dropped and the results are computed from the host's.
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

	gs_pairs_destroy(pc->dev);
	pc->dev = NULL;
}

/* Drops a collection's device pairs after the device ran short; the host's copy serves. */
static void
drop_pairs(PercentileCollection *pc, const char *errbuf)
{
	ereport(DEBUG1,
			(errmsg("gpusel: percentile keys do not fit in GPU memory, using the host's copy"),
			 errdetail("%s", errbuf)));
	gs_pairs_destroy(pc->dev);
	pc->dev = NULL;
	pc->dev_declined = true;
	GpuselCountFallback();
}

/* Starts holding a collection's pairs on the device, when the GPU is to take them. */
static bool
start_pairs(GroupAggSink *sink, PercentileCollection *pc)
{
	MemoryContextCallback *cb;
	char		errbuf[512];
	gs_status	status;

	if (!GpuselWantGpu(pc->nkeys))
	{
		pc->dev_declined = true;
		return false;
	}
	/* the callback first, so that no path leaves the pairs unowned */
	cb = MemoryContextAllocZero(sink->cxt, sizeof(MemoryContextCallback));
	cb->func = release_pairs;
	cb->arg = pc;
	MemoryContextRegisterResetCallback(sink->cxt, cb);
	errbuf[0] = '\0';
	status = gs_pairs_create(&pc->dev, pc->key_bytes, sink->nkeys > 0, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		drop_pairs(pc, errbuf);
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
	if (pc->dev == NULL && !start_pairs(sink, pc))
		return;
	errbuf[0] = '\0';
	status = gs_pairs_append(pc->dev, pc->keys + pc->shipped * pc->key_bytes,
							 pc->groups != NULL ? pc->groups + pc->shipped : NULL,
							 pc->nkeys - pc->shipped, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		drop_pairs(pc, errbuf);
		return;
	}
	GpuselCheckStatus(status, errbuf, "copying percentile keys to the GPU");
	pc->shipped = pc->nkeys;
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
		return false;
	cancel = INTERRUPTS_CAN_BE_PROCESSED() ? (const volatile int *) &InterruptPending : NULL;
	errbuf[0] = '\0';
	if (sink->nkeys == 0)
		status = gs_pairs_select(pc->dev, positions, (int) npositions, out, cancel,
								 errbuf, sizeof(errbuf));
	else
		status = gs_pairs_sort_pick(pc->dev, sink->ngroups, positions, npositions, out,
									cancel, errbuf, sizeof(errbuf));
	if (status == GS_INTERRUPTED)
	{
		/* raises a cancel; any other interrupt leaves the sort half done */
		CHECK_FOR_INTERRUPTS();
		gs_pairs_destroy(pc->dev);
		pc->dev = NULL;
		pc->dev_declined = true;
		return false;
	}
	if (status == GS_OUT_OF_MEMORY)
	{
		drop_pairs(pc, errbuf);
		return false;
	}
	GpuselCheckStatus(status, errbuf, "grouped percentile selection");
	GpuselCountSelection(true);
	/* the results read only the picked keys: the device's memory goes back now */
	gs_pairs_destroy(pc->dev);
	pc->dev = NULL;
	pc->dev_declined = true;
	return true;
}
