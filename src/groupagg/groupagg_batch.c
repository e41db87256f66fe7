/*
 * groupagg_batch.c
 *	  Rows into groups on the GPU: a filtered device batch's passing rows
 *	  are grouped where they lie (cuda/groupbatch.cu, cuda/groupsum.cu).
 *	  The device finds the batch's distinct group keys; the host turns each
 *	  into its group, in the order of their first rows, as the rows
 *	  themselves would; the device then sums the aggregates' inputs per key
 *	  and appends every row's (group, key) pair to the collection's pairs
 *	  held there, and the host adds the sums and tallies (rows, keys, -0 and
 *	  +0 seen per key) to the groups.  No row is touched on the host.
 *
 * It takes the shapes of the percentile dashboards and of TPC-H Q1: at most
 * GS_GROUP_MAX_KEYS group keys, plain columns or expressions of one the
 * device computes (k % 10000, date_trunc('hour', ts)); at most one percentile
 * collection over a plain column; beside them count(*) and the sums and
 * averages the device's programs take (groupagg_devsum.c); at least a key
 * or a collection (whole-batch sums alone are groupagg_devsum.c's).
 * Anything else goes through the host's rows (groupagg_rows.c) with the
 * same answers.
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

/*
 * New keys sort by their first row, each packed with its index as
 * (first << 32 | index), compared inline: a comparison through a function
 * pointer cost more than creating the groups.
 */
#define ST_SORT sort_by_first_row
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

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

/* Whether input i is a plain column of the batch the device can group by. */
static bool
device_key_input(GroupInput *in)
{
	return in->colstate == NULL && in->state == NULL && in->column >= 0 &&
		in->form != GPUSEL_FORM_NUMERIC_WIDE_HI && in->form != GPUSEL_FORM_NUMERIC_WIDE_LO;
}

/*
 * Whether key k is an expression the device computes from one batch
 * column (GroupAggDeviceKeyParse: k % 10000, date_trunc('hour', ts)), as
 * the host computes it; sets its column, type and transform.
 */
static bool
device_key_expr(GroupAggSink *sink, int k)
{
	GroupInput *in = &sink->inputs[k];
	gs_key_transform transform;
	Var		   *var;
	gs_coltype	want;

	if (in->colstate == NULL || !GroupAggDeviceKeyParse((Node *) in->expr, &var, &transform))
		return false;
	want = transform.is_int8 ? GS_COL_INT8 : GS_COL_INT4;
	for (int e = 0; e < sink->nexprcols; e++)
	{
		if (sink->exprcol_attnos[e] != var->varattno || sink->exprcol_columns[e] < 0 ||
			sink->exprcol_types[e] != want || sink->exprcol_forms[e] != GPUSEL_FORM_PLAIN)
			continue;
		sink->key_columns[k] = sink->exprcol_columns[e];
		sink->key_coltypes[k] = want;
		sink->key_transforms[k] = transform;
		sink->key_transformed = true;
		return true;
	}
	return false;
}

/*
 * Whether the device can group this sink's rows, decided once: at most
 * GS_GROUP_MAX_KEYS keys, plain columns or expressions of one the device
 * computes, at most one collection over a plain column the device maps,
 * and beside them only count(*), count() of the collection's column and
 * sums the device's programs take.
 */
static bool
device_groups_fit(GroupAggSink *sink)
{
	if (sink->device_groups != 0)
		return sink->device_groups > 0;
	sink->device_groups = -1;
	if (!gpusel_group_on_device || sink->nkeys > GS_GROUP_MAX_KEYS || sink->ncollections > 1 ||
		sink->count_only || (sink->nkeys == 0 && sink->ncollections == 0))
		return false;
	sink->key_transformed = false;
	for (int k = 0; k < sink->nkeys; k++)
	{
		sink->key_transforms[k].op = -1;
		if (device_key_input(&sink->inputs[k]))
		{
			sink->key_columns[k] = sink->inputs[k].column;
			sink->key_coltypes[k] = sink->inputs[k].coltype;
		}
		else if (!device_key_expr(sink, k))
			return false;
	}
	if (!GroupAggDeviceSumPrograms(sink))
		return false;
	if (sink->ncollections == 1)
	{
		PercentileCollection *pc = &sink->collections[0];
		GroupInput *in = &sink->inputs[pc->input];

		if (!device_key_input(in) || pc->big_keys || pc->kept != NULL)
			return false;
		sink->device_key_kind = device_key_kind(pc->keytype->typid, in->coltype);
		if (sink->device_key_kind < 0)
			return false;
	}
	sink->device_groups = 1;
	return true;
}

/* Marks the batch columns the device must hold to group the rows (ship[column] = 1). */
bool
GroupAggSinkDeviceColumns(GroupAggSink *sink, uint8 *ship, int ncols)
{
	if (!device_groups_fit(sink))
		return false;
	for (int k = 0; k < sink->nkeys; k++)
		if (sink->key_columns[k] < ncols)
			ship[sink->key_columns[k]] = 1;
	if (sink->ncollections == 1 && sink->inputs[sink->collections[0].input].column < ncols)
		ship[sink->inputs[sink->collections[0].input].column] = 1;
	if (!GroupAggMarkSumColumns(sink, ship, ncols))
	{
		sink->device_groups = -1;
		return false;
	}
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
	if (sink->key_transformed)
	{
		status = GpuselDev->groups_set_transforms(sink->batch_groups, sink->nkeys,
												  sink->key_transforms, errbuf, sizeof(errbuf));
		GpuselCheckStatus(status, errbuf, "grouping rows on the GPU");
	}
	return sink->batch_groups;
}

/* Puts a batch's distinct key into the sink's current row, as the rows would give it. */
static inline void
load_batch_key(GroupAggSink *sink, const gs_batch_key *key)
{
	for (int c = 0; c < sink->nkeys; c++)
	{
		sink->nulls[c] = (key->isnull & (1u << c)) != 0;
		sink->values[c] = sink->nulls[c] ? (Datum) 0 :
			GpuselLoadValue(&key->bits[c], 0, sink->key_coltypes[c]);
	}
}

/*
 * The group of each distinct key: the known ones looked up, the new ones
 * created in the order of their first rows, so that the groups' order is
 * the one the rows would give.  After the first batches every key is
 * known, and nothing is sorted.  NULL, with no group made, when some
 * row's key expression raised an error on the device: the host computes
 * the batch and raises it.
 */
static uint32 *
groups_of_keys(GroupAggSink *sink, const gs_batch_key *keys, int64 nkeys)
{
	uint32	   *groups;
	uint64	   *fresh;
	int64		nfresh = 0;

	for (int64 k = 0; k < nkeys; k++)
		if (keys[k].isnull & GS_BATCH_KEY_ERROR)
			return NULL;
	groups = palloc(sizeof(uint32) * Max(nkeys, 1));
	if (sink->nkeys == 0)
	{
		memset(groups, 0, sizeof(uint32) * Max(nkeys, 1));
		return groups;
	}
	fresh = palloc(sizeof(uint64) * Max(nkeys, 1));
	for (int64 k = 0; k < nkeys; k++)
	{
		int64		g;

		load_batch_key(sink, &keys[k]);
		g = GroupAggLookupGroup(sink);
		if (g < 0)
			fresh[nfresh++] = ((uint64) keys[k].first << 32) | (uint64) k;
		else
			groups[k] = (uint32) g;
	}
	if (nfresh > 1)
		sort_by_first_row(fresh, nfresh);
	GroupAggReserveGroups(sink, nfresh);
	for (int64 k = 0; k < nfresh; k++)
	{
		const gs_batch_key *key = &keys[fresh[k] & PG_UINT32_MAX];
		int64		g;

		load_batch_key(sink, key);
		g = GroupAggFindGroup(sink);
		if (g > (int64) PG_UINT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many groups to group on the device"),
					 errdetail("Group numbers are 32-bit on the device.")));
		groups[key - keys] = (uint32) g;
	}
	pfree(fresh);
	return groups;
}

/*
 * Gives up grouping on the device for the rest of the scan, its memory
 * being short (what ran short, for DEBUG1, or NULL): the host takes the
 * collection's pairs held there, and the grouping tables go.
 */
static void
stop_device_groups(GroupAggSink *sink, const char *what, const char *errbuf)
{
	if (what != NULL)
		ereport(DEBUG1,
				(errmsg("gpusel: no memory %s, grouping rows on the host", what),
				 errdetail("%s", errbuf)));
	if (sink->ncollections == 1 && sink->collections[0].dev != NULL)
		GroupAggDropDevicePairs(sink, &sink->collections[0], errbuf);
	sink->device_groups = -1;
	GpuselDev->groups_destroy(sink->batch_groups);
	sink->batch_groups = NULL;
}

/*
 * The device's sums per key of the batch found last, copied: *rows gets
 * nkeys row counts, the result nkeys x nsums sums.  NULL when a sum left
 * the device's exact range, or when the device has no memory for the sums
 * (grouping on the device then stops for this scan): the host adds the
 * batch's rows then.
 */
static gs_sum_result *
sums_by_key(GroupAggSink *sink, gs_batch_groups *bg, gs_filter *filter, int64 nkeys,
			uint64 **rows)
{
	const uint64_t *dev_rows;
	const gs_sum_result *dev_sums;
	gs_sum_result *sums;
	char		errbuf[512];
	gs_status	status;

	errbuf[0] = '\0';
	status = GpuselDev->groups_sum(bg, filter, sink->nsums, sink->sum_exprs, &dev_rows, &dev_sums,
								 errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		/* no room for the sums' buffers: nothing was added; the host takes this scan's rows */
		stop_device_groups(sink, "on the GPU to sum rows by key", errbuf);
		return NULL;
	}
	GpuselCheckStatus(status, errbuf, "summing rows by key on the GPU");
	for (int64 k = 0; k < nkeys; k++)
		if (!GroupAggDeviceSumsExact(sink, &dev_sums[k * sink->nsums]))
			return NULL;
	*rows = palloc(sizeof(uint64) * Max(nkeys, 1));
	memcpy(*rows, dev_rows, sizeof(uint64) * nkeys);
	sums = palloc(sizeof(gs_sum_result) * Max(nkeys * sink->nsums, 1));
	memcpy(sums, dev_sums, sizeof(gs_sum_result) * nkeys * sink->nsums);
	return sums;
}

/*
 * Appends the batch's (group, key) pairs to the collection's pairs on the
 * device; NULL, with nothing added, when the pairs could not grow there
 * (the host then holds the collection's pairs and takes the batch).
 */
static const gs_batch_tally *
add_pairs(GroupAggSink *sink, gs_batch_groups *bg, gs_filter *filter, PercentileCollection *pc,
		  const uint32 *groups)
{
	const gs_batch_tally *tally;
	char		errbuf[512];
	gs_status	status;

	errbuf[0] = '\0';
	status = GpuselDev->groups_add(bg, filter, groups, sink->inputs[pc->input].column,
								 sink->device_key_kind, pc->dev, &tally,
								 errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		stop_device_groups(sink, NULL, errbuf);
		return NULL;
	}
	GpuselCheckStatus(status, errbuf, "grouping rows on the GPU");
	return tally;
}

/*
 * Groups the passing rows of device batch 'slot', from its from-th on,
 * where they lie.  False, with nothing added, when this sink's shape or
 * the device's memory does not allow it, a batch has more distinct keys
 * than the device sums for, or a sum left its exact range: the caller
 * adds the rows on the host then.
 */
bool
GroupAggSinkAddDeviceBatch(GroupAggSink *sink, gs_filter *filter, int slot, int64 from,
						   int64 max_rows)
{
	PercentileCollection *pc = NULL;
	gs_batch_groups *bg;
	const gs_batch_key *keys;
	const gs_batch_tally *tally = NULL;
	gs_sum_result *sums = NULL;
	uint64	   *sum_rows = NULL;
	bool		need_sums;
	int64		nkeys;
	int64		rows = 0;
	uint32	   *groups;
	char		errbuf[512];
	gs_status	status;

	/* a worker sends its keys to the consumer from host memory */
	if (IsParallelWorker() || !device_groups_fit(sink))
		return false;
	if (sink->ncollections == 1)
	{
		pc = &sink->collections[0];
		if (!GroupAggHoldPairs(sink, pc))
			return false;
	}
	bg = batch_groups(sink, max_rows);
	if (bg == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();

	errbuf[0] = '\0';
	status = GpuselDev->groups_find(bg, filter, slot, from, sink->nkeys, sink->key_columns,
								  &nkeys, &keys, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		/* no room for a batch's keys on the host side: nothing was added */
		stop_device_groups(sink, "for a batch's group keys", errbuf);
		return false;
	}
	GpuselCheckStatus(status, errbuf, "finding group keys on the GPU");
	/* the rows are counted by the sums, or by the pairs' tallies */
	need_sums = sink->nsums > 0 || pc == NULL;
	if (need_sums && nkeys > GS_GROUP_SUM_MAX_KEYS)
	{
		/* keys this many again and again: the host groups the rest of the scan */
		if (++sink->device_wide_batches >= GROUPAGG_WIDE_BATCHES)
			sink->device_groups = -1;
		return false;
	}
	groups = groups_of_keys(sink, keys, nkeys);
	if (groups == NULL)
		return false;
	if (need_sums)
	{
		sums = sums_by_key(sink, bg, filter, nkeys, &sum_rows);
		if (sums == NULL)
		{
			pfree(groups);
			return false;
		}
	}
	if (pc != NULL)
	{
		tally = add_pairs(sink, bg, filter, pc, groups);
		if (tally == NULL)
		{
			pfree(groups);
			if (sums != NULL)
			{
				pfree(sums);
				pfree(sum_rows);
			}
			return false;
		}
	}

	for (int64 k = 0; k < nkeys; k++)
	{
		int64		g = groups[k];
		int64		key_rows = sum_rows != NULL ? (int64) sum_rows[k] : (int64) tally[k].rows;

		rows += key_rows;
		if (pc != NULL)
		{
			pc->counts[g] += (int64) tally[k].keys;
			pc->dev_keys += (int64) tally[k].keys;
			pc->zeros[g] |= (uint8) tally[k].zeros;
		}
		if (sums != NULL)
			GroupAggAddDeviceSums(sink, g, &sums[k * sink->nsums]);
		for (int a = 0; a < sink->naggs; a++)
			if (sink->aggs[a].kind == GROUPAGG_COUNT_STAR)
				sink->cells[g * sink->naggs + a].count += key_rows;
			else if (pc != NULL && GroupAggCountsCollectionKeys(sink, a))
				sink->cells[g * sink->naggs + a].count += (int64) tally[k].keys;
	}
	pfree(groups);
	if (sums != NULL)
	{
		pfree(sums);
		pfree(sum_rows);
	}
	sink->rows_aggregated += rows;
	sink->rows_from_columns += rows;
	sink->rows_on_device += rows;
	return true;
}
