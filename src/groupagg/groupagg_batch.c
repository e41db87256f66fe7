/*
 * groupagg_batch.c
 *	  Rows into groups on the GPU: a filtered device batch's passing rows
 *	  are grouped where they lie (cuda/groupbatch.cu).  The device finds the
 *	  batch's distinct group keys; the host turns each into its group, in
 *	  the order of their first rows, as the rows themselves would; the
 *	  device then appends every row's (group, key) pair to the collection's
 *	  pairs held there, and the host adds the tallies (rows per group, keys
 *	  per group, -0 and +0 seen) to the groups.  No row is touched on the host.
 *
 * It takes the shape the percentile dashboards send: at most one group key,
 * a plain column; one percentile collection over a plain column; beside it
 * only count(*).  Anything else goes through the host's rows
 * (groupagg_rows.c) with the same answers.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "device.h"
#include "groupagg_internal.h"
#include "guc.h"
#include "qual_compile.h"

/* Key kinds as cuda/groupbatch.cu maps a column to a collection's keys; -1 when it cannot. */
static int
device_key_kind(Oid keytypid, gs_coltype coltype)
{
	switch (keytypid)
	{
		case INT2OID:
		case INT4OID:
		case DATEOID:
			return (coltype == GS_COL_INT2 || coltype == GS_COL_INT4) ? GS_KEY_INT32 : -1;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return (coltype == GS_COL_INT2 || coltype == GS_COL_INT4 ||
					coltype == GS_COL_INT8) ? GS_KEY_INT64 : -1;
		case FLOAT4OID:
			return coltype == GS_COL_FLOAT4 ? GS_KEY_FLOAT4 : -1;
		case FLOAT8OID:
			return (coltype == GS_COL_FLOAT4 || coltype == GS_COL_FLOAT8) ? GS_KEY_FLOAT8 : -1;
		default:
			return -1;
	}
}

/*
 * Whether the device can group this sink's rows, decided once: one plain
 * column key or none, one collection over a plain column the device maps,
 * and only count(*) beside it.
 */
static bool
device_groups_fit(GroupAggSink *sink)
{
	PercentileCollection *pc;
	GroupInput *in;

	if (sink->device_groups != 0)
		return sink->device_groups > 0;
	sink->device_groups = -1;
	if (!gpusel_group_on_device || sink->nkeys > 1 || sink->ncollections != 1 || sink->has_colstates ||
		sink->nexprcols > 0 || sink->count_only)
		return false;
	if (sink->nkeys == 1 && (sink->inputs[0].colstate != NULL || sink->inputs[0].column < 0))
		return false;
	for (int a = 0; a < sink->naggs; a++)
		if (sink->aggs[a].collection < 0 && sink->aggs[a].kind != GROUPAGG_COUNT_STAR)
			return false;
	pc = &sink->collections[0];
	in = &sink->inputs[pc->input];
	if (in->colstate != NULL || in->column < 0)
		return false;
	sink->device_key_kind = device_key_kind(pc->keytype->typid, in->coltype);
	if (sink->device_key_kind < 0)
		return false;
	sink->device_groups = 1;
	return true;
}

/* Whether the sink groups device batches on the device (its buffers are a batch's size). */
bool
GroupAggSinkGroupsOnDevice(GroupAggSink *sink)
{
	return device_groups_fit(sink);
}

/* Marks the batch columns the device must hold to group the rows (ship[column] = 1). */
bool
GroupAggSinkDeviceColumns(GroupAggSink *sink, uint8 *ship, int ncols)
{
	if (!device_groups_fit(sink))
		return false;
	if (sink->nkeys == 1 && sink->inputs[0].column < ncols)
		ship[sink->inputs[0].column] = 1;
	if (sink->inputs[sink->collections[0].input].column < ncols)
		ship[sink->inputs[sink->collections[0].input].column] = 1;
	return true;
}

/* Stops grouping on the device for this scan: the columns did not go there. */
void
GroupAggSinkNoDeviceGroups(GroupAggSink *sink)
{
	sink->device_groups = -1;
}

/* Frees the device's grouping tables with the sink's memory (reset, end, error). */
static void
release_batch_groups(void *arg)
{
	GroupAggSink *sink = (GroupAggSink *) arg;

	GpuselDev->groups_destroy(sink->batch_groups);
	sink->batch_groups = NULL;
}

/* The device's grouping tables for batches of max_rows rows, made once per scan; NULL when short of memory. */
static gs_batch_groups *
batch_groups(GroupAggSink *sink, int64 max_rows)
{
	MemoryContextCallback *cb;
	char		errbuf[512];
	gs_status	status;

	if (sink->batch_groups != NULL)
		return sink->batch_groups;
	cb = MemoryContextAllocZero(sink->cxt, sizeof(MemoryContextCallback));
	cb->func = release_batch_groups;
	cb->arg = sink;
	MemoryContextRegisterResetCallback(sink->cxt, cb);
	errbuf[0] = '\0';
	status = GpuselDev->groups_create(&sink->batch_groups, max_rows, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		ereport(DEBUG1,
				(errmsg("gpusel: no GPU memory to group rows there, grouping them on the host"),
				 errdetail("%s", errbuf)));
		sink->batch_groups = NULL;
		sink->device_groups = -1;	/* not again for this scan */
		return NULL;
	}
	GpuselCheckStatus(status, errbuf, "grouping rows on the GPU");
	return sink->batch_groups;
}

/* Orders a batch's distinct keys by their first row. */
static int
batch_key_cmp(const void *a, const void *b)
{
	uint32		fa = (*(const gs_batch_key *const *) a)->first;
	uint32		fb = (*(const gs_batch_key *const *) b)->first;

	return fa < fb ? -1 : fa > fb ? 1 : 0;
}

/*
 * The group of each distinct key, found or created in the order of the
 * keys' first rows: the groups' order is the one the rows would give.
 */
static uint32 *
groups_of_keys(GroupAggSink *sink, const gs_batch_key *keys, int64 nkeys)
{
	uint32	   *groups = palloc(sizeof(uint32) * Max(nkeys, 1));
	const gs_batch_key **order;
	GroupInput *in = &sink->inputs[0];

	if (sink->nkeys == 0)
	{
		memset(groups, 0, sizeof(uint32) * Max(nkeys, 1));
		return groups;
	}
	order = palloc(sizeof(gs_batch_key *) * Max(nkeys, 1));
	for (int64 k = 0; k < nkeys; k++)
		order[k] = &keys[k];
	qsort(order, nkeys, sizeof(gs_batch_key *), batch_key_cmp);
	for (int64 k = 0; k < nkeys; k++)
	{
		const gs_batch_key *key = order[k];
		int64		g;

		sink->nulls[0] = key->isnull != 0;
		sink->values[0] = key->isnull ? (Datum) 0 :
			GpuselLoadValue(&key->bits, 0, in->coltype);
		g = GroupAggFindGroup(sink);
		if (g > (int64) PG_UINT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many groups for a grouped percentile"),
					 errdetail("Group numbers are 32-bit on the device.")));
		groups[key - keys] = (uint32) g;
	}
	pfree(order);
	return groups;
}

/*
 * Groups the passing rows of device batch 'slot', from its from-th on,
 * where they lie.  False, with nothing added, when this sink's shape or
 * the device's memory does not allow it: the caller adds the rows on the
 * host then.
 */
bool
GroupAggSinkAddDeviceBatch(GroupAggSink *sink, gs_filter *filter, int slot, int64 from,
						   int64 max_rows)
{
	PercentileCollection *pc;
	gs_batch_groups *bg;
	const gs_batch_key *keys;
	const gs_batch_tally *tally;
	int64		nkeys;
	int64		rows = 0;
	uint32	   *groups;
	char		errbuf[512];
	gs_status	status;

	/* a worker sends its keys to the consumer from host memory */
	if (IsParallelWorker() || !device_groups_fit(sink))
		return false;
	pc = &sink->collections[0];
	if (!GroupAggHoldPairs(sink, pc))
		return false;
	bg = batch_groups(sink, max_rows);
	if (bg == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();

	errbuf[0] = '\0';
	status = GpuselDev->groups_find(bg, filter, slot, from,
								  sink->nkeys == 1 ? sink->inputs[0].column : -1,
								  &nkeys, &keys, errbuf, sizeof(errbuf));
	GpuselCheckStatus(status, errbuf, "finding group keys on the GPU");
	groups = groups_of_keys(sink, keys, nkeys);

	errbuf[0] = '\0';
	status = GpuselDev->groups_add(bg, filter, groups, sink->inputs[pc->input].column,
								 sink->device_key_kind, pc->dev, &tally,
								 errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		/* the pairs could not grow: nothing was added; the host takes over */
		GroupAggDropDevicePairs(sink, pc, errbuf);
		sink->device_groups = -1;
		GpuselDev->groups_destroy(sink->batch_groups);	/* device memory is short */
		sink->batch_groups = NULL;
		pfree(groups);
		return false;
	}
	GpuselCheckStatus(status, errbuf, "grouping rows on the GPU");

	for (int64 k = 0; k < nkeys; k++)
	{
		int64		g = groups[k];

		rows += (int64) tally[k].rows;
		pc->counts[g] += (int64) tally[k].keys;
		pc->dev_keys += (int64) tally[k].keys;
		pc->zeros[g] |= (uint8) tally[k].zeros;
		for (int a = 0; a < sink->naggs; a++)
			if (sink->aggs[a].kind == GROUPAGG_COUNT_STAR)
				sink->cells[g * sink->naggs + a].count += (int64) tally[k].rows;
	}
	pfree(groups);
	sink->rows_aggregated += rows;
	sink->rows_from_columns += rows;
	sink->rows_on_device += rows;
	return true;
}
