/*
 * groupagg_devsum.c
 *	  Sums on the GPU: a grouped scan without group keys whose aggregates
 *	  are sums and averages of numerics (numeric(p,s) columns, and + - *
 *	  over them and constants) or of integer columns, and count(*), adds a
 *	  filtered device batch's rows where they lie (cuda/batchsum.cu).  The
 *	  device evaluates each input per passing row in 128 bits and returns
 *	  one sum per input; no row is touched on the host.  TPC-H Q6 has this
 *	  shape.  The same programs sum per group key when the device groups
 *	  the rows (groupagg_batch.c, cuda/groupsum.cu): TPC-H Q1.
 *
 * Exact as the host's sums are: where a value or a batch's sum would leave
 * 128 bits the device says so, and the host adds that batch's rows itself
 * (groupagg_rows.c), which widens to 256 bits or hands the row to the
 * executor.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "device.h"
#include "groupagg_internal.h"

/* Whether sum or avg of this kind over an integer column sums on the device as a scale-0 numeric. */
static inline bool
int_kind(GroupAggKind kind)
{
	return kind == GROUPAGG_SUM_INT || kind == GROUPAGG_SUM_INT8 || kind == GROUPAGG_AVG_INT;
}

/*
 * The device program of sum or avg over a plain int2, int4 or int8
 * column: its values as scaled integers of scale 0.  The device reads the
 * numeric NaN sentinel in an int8 column (the greatest int8) as NaN: a
 * batch where it saw one is summed on the host.
 */
static bool
int_column_sum(GroupInput *in, gs_sum_expr *out, int *scale)
{
	memset(out, 0, sizeof(*out));
	if (in->colstate != NULL || in->column < 0 || in->form != GPUSEL_FORM_PLAIN ||
		(in->coltype != GS_COL_INT8 && in->coltype != GS_COL_INT4 && in->coltype != GS_COL_INT2))
		return false;
	out->ncode = 1;
	out->code[0].op = GS_NUM_COLUMN;
	out->code[0].col = in->column;
	*scale = 0;
	return true;
}

/*
 * The device programs of the sink's sums, made once: every aggregate that
 * is not count(*) nor a percentile must be a sum or average of a numeric
 * input the device's programs take, or of an int2, int4 or int8 column.  Aggregates over
 * the same input share one program (sum and avg of l_quantity), at most
 * GS_SUM_MAX_EXPRS of them.  False when some aggregate is of another kind.
 */
bool
GroupAggDeviceSumPrograms(GroupAggSink *sink)
{
	MemoryContext old;

	if (sink->sum_programs != 0)
		return sink->sum_programs > 0;
	sink->sum_programs = -1;
	/* the query's memory: sink->cxt is reset with the groups */
	old = MemoryContextSwitchTo(sink->ps->state->es_query_cxt);
	sink->sum_exprs = palloc0(sizeof(gs_sum_expr) * GS_SUM_MAX_EXPRS);
	sink->sum_scales = palloc(sizeof(int) * GS_SUM_MAX_EXPRS);
	sink->sum_int = palloc(sizeof(bool) * GS_SUM_MAX_EXPRS);
	sink->sum_of_agg = palloc(sizeof(int) * Max(sink->naggs, 1));
	MemoryContextSwitchTo(old);
	sink->nsums = 0;
	for (int a = 0; a < sink->naggs; a++)
	{
		GroupAggDesc *desc = &sink->aggs[a];
		gs_sum_expr expr;
		int			scale;
		bool		is_int = int_kind(desc->kind);
		int			e;

		sink->sum_of_agg[a] = -1;
		if (desc->kind == GROUPAGG_COUNT_STAR || desc->collection >= 0 ||
			GroupAggCountsCollectionKeys(sink, a))
			continue;
		if (!GroupAggKindHas(desc->kind, GROUPAGG_NUMERIC_SUM) && !is_int)
			return false;
		memset(&expr, 0, sizeof(expr));
		if (is_int ? !int_column_sum(&sink->inputs[desc->input], &expr, &scale) :
			!GroupAggNumericDeviceSum(sink, &sink->inputs[desc->input], &expr, &scale))
			return false;
		for (e = 0; e < sink->nsums; e++)
			if (sink->sum_int[e] == is_int && sink->sum_scales[e] == scale &&
				memcmp(&sink->sum_exprs[e], &expr, sizeof(expr)) == 0)
				break;
		if (e == sink->nsums)
		{
			if (sink->nsums == GS_SUM_MAX_EXPRS)
				return false;
			sink->sum_exprs[e] = expr;
			sink->sum_scales[e] = scale;
			sink->sum_int[e] = is_int;
			sink->nsums++;
		}
		sink->sum_of_agg[a] = e;
	}
	sink->sum_programs = 1;
	return true;
}

/*
 * Whether aggregate a is count() of the input of the sink's one
 * collection: the device's tally of that collection's keys (its non-NULL
 * values) counts it, with no program of its own.
 */
bool
GroupAggCountsCollectionKeys(GroupAggSink *sink, int a)
{
	return sink->aggs[a].kind == GROUPAGG_COUNT && sink->ncollections == 1 &&
		sink->aggs[a].input == sink->collections[0].input;
}

/*
 * Whether a batch's sums can be used: none left 128 bits, and no integer
 * program saw the greatest int8, which the device reads as numeric NaN.
 */
bool
GroupAggDeviceSumsExact(GroupAggSink *sink, const gs_sum_result *results)
{
	for (int e = 0; e < sink->nsums; e++)
		if (results[e].overflow || (sink->sum_int[e] && results[e].nans > 0))
			return false;
	return true;
}

/* Adds one batch's sums (one per program) to a group's cells. */
void
GroupAggAddDeviceSums(GroupAggSink *sink, int64 g, const gs_sum_result *results)
{
	for (int a = 0; a < sink->naggs; a++)
	{
		int			e = sink->sum_of_agg[a];
		uint128		bits;
		GroupCell  *cell;

		if (e < 0)
			continue;
		bits = ((uint128) results[e].hi << 64) | results[e].lo;
		cell = &sink->cells[g * sink->naggs + a];
		if (sink->sum_int[e])
		{
			/* as update_int_sum adds them: the exact sum and the non-NULL inputs */
			cell->isum += (int128) bits;
			cell->count += (int64) results[e].values;
		}
		else
			GroupAggNumericAddBatchSum(cell, (int128) bits, sink->sum_scales[e],
									   (int64) results[e].values, (int64) results[e].nans);
	}
}

/*
 * Whether the device can sum this sink's aggregates over a whole batch,
 * decided once: no group keys, no percentiles, and the sums' programs
 * (above), at least one.  count(*) alone is counted whole already.
 */
static bool
device_sums_fit(GroupAggSink *sink)
{
	if (sink->device_sums != 0)
		return sink->device_sums > 0;
	sink->device_sums = -1;
	if (sink->nkeys > 0 || sink->ncollections > 0 || sink->count_only ||
		!GroupAggDeviceSumPrograms(sink) || sink->nsums == 0)
		return false;
	sink->device_sums = 1;
	return true;
}

/* Marks the batch columns the sums' programs read (ship[column] = 1); false when one is not a batch column. */
bool
GroupAggMarkSumColumns(GroupAggSink *sink, uint8 *ship, int ncols)
{
	for (int e = 0; e < sink->nsums; e++)
		for (int i = 0; i < sink->sum_exprs[e].ncode; i++)
		{
			const gs_num_step *ins = &sink->sum_exprs[e].code[i];

			if (ins->op != GS_NUM_COLUMN)
				continue;
			if (ins->col >= ncols)
				return false;
			ship[ins->col] = 1;
		}
	return true;
}

/* Marks the batch columns the device must hold to sum the rows (ship[column] = 1). */
bool
GroupAggSinkDeviceSumColumns(GroupAggSink *sink, uint8 *ship, int ncols)
{
	if (!device_sums_fit(sink))
		return false;
	if (!GroupAggMarkSumColumns(sink, ship, ncols))
	{
		sink->device_sums = -1;
		return false;
	}
	return true;
}

/* Stops summing on the device for this scan: the columns did not go there. */
void
GroupAggSinkNoDeviceSums(GroupAggSink *sink)
{
	sink->device_sums = -1;
}

/* Frees the device's summing buffers with the sink's memory (reset, end, error). */
static void
release_batch_sums(void *arg)
{
	GroupAggSink *sink = (GroupAggSink *) arg;

	GpuselDev->sums_destroy(sink->batch_sums);
	sink->batch_sums = NULL;
}

/* The device's summing buffers, made once per scan; NULL when short of memory. */
static gs_batch_sums *
batch_sums(GroupAggSink *sink)
{
	MemoryContextCallback *cb;
	char		errbuf[512];
	gs_status	status;

	if (sink->batch_sums != NULL)
		return sink->batch_sums;
	cb = MemoryContextAllocZero(sink->cxt, sizeof(MemoryContextCallback));
	cb->func = release_batch_sums;
	cb->arg = sink;
	MemoryContextRegisterResetCallback(sink->cxt, cb);
	errbuf[0] = '\0';
	status = GpuselDev->sums_create(&sink->batch_sums, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		ereport(DEBUG1,
				(errmsg("gpusel: no GPU memory to sum rows there, summing them on the host"),
				 errdetail("%s", errbuf)));
		sink->batch_sums = NULL;
		sink->device_sums = -1;	/* not again for this scan */
		return NULL;
	}
	GpuselCheckStatus(status, errbuf, "summing rows on the GPU");
	return sink->batch_sums;
}

/*
 * Sums the passing rows of device batch 'slot' (npositions of them), from
 * its from-th on, where they lie.  False, with nothing added, when this sink's shape or the
 * device's memory does not allow it or some value left 128 bits: the
 * caller adds the rows on the host then.
 */
bool
GroupAggSinkAddDeviceSums(GroupAggSink *sink, gs_filter *filter, int slot, int64 from,
						  int64 npositions)
{
	gs_sum_result results[GS_SUM_MAX_EXPRS];
	gs_batch_sums *bs;
	char		errbuf[512];
	gs_status	status;
	int64		rows;

	if (!device_sums_fit(sink))
		return false;
	bs = batch_sums(sink);
	if (bs == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();

	errbuf[0] = '\0';
	status = GpuselDev->sums_run(bs, filter, slot, from, sink->nsums, sink->sum_exprs, results,
							   errbuf, sizeof(errbuf));
	GpuselCheckStatus(status, errbuf, "summing rows on the GPU");
	if (!GroupAggDeviceSumsExact(sink, results))
		return false;

	rows = npositions - from;
	GroupAggAddDeviceSums(sink, 0, results);
	for (int a = 0; a < sink->naggs; a++)
		if (sink->aggs[a].kind == GROUPAGG_COUNT_STAR)
			sink->cells[a].count += rows;
	sink->rows_aggregated += rows;
	sink->rows_from_columns += rows;
	sink->rows_summed_on_device += rows;
	return true;
}
