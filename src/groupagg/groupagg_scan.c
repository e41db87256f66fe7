/*
 * groupagg_scan.c
 *	  The grouped GpuSelScan's driver: feeds the rows that pass the WHERE
 *	  clause into the aggregate sink (groupagg_exec.c) and returns one row
 *	  per group.
 *
 * Rows reach the sink three ways, fastest first:
 *	 - GPU: a device batch whose rows all passed on the device is grouped
 *	   there when the sink's shape allows (groupagg_batch.c: the key and
 *	   percentile columns are copied to the device with the quals'), or
 *	   else goes in by its columns and the device's positions; the batch's
 *	   columns already hold the keys and inputs (they ride along as extra
 *	   program columns).
 *	 - CPU: the page reader copies the columns of many tuples at once; column
 *	   tests (column_filter.c) and then the remaining device quals, through
 *	   the executor on a virtual row of the columns, pick the rows.
 *	 - Otherwise (host quals, a batch the CPU rechecks, an input that is an
 *	   expression, a table the page reader cannot read): the scan's own row
 *	   by row path, from the heap tuple.
 *
 * Under Gather (scan_parallel.c) every process reads its share of the
 * blocks as the CPU path does; the workers send their groups through the
 * feed (groupagg_partial.c) and the leader merges them into its own.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "utils/rel.h"

#include "column_filter.h"
#include "device.h"
#include "groupagg.h"
#include "guc.h"
#include "parallel_feed.h"
#include "scan_exec.h"

/* The scan's sink, the grouped scan's groups. */
static inline GroupAggSink *
sink_of(GpuselScanState *state)
{
	return (GroupAggSink *) state->sink;
}

static void add_device_batch(GpuselScanState *state);

/*
 * A grouped scan reads its keys and aggregate inputs from the batch's
 * columns when all of them are plain columns: they become columns of the
 * device program too (the device filter ignores them, the page reader
 * copies them), so a device batch holds every value the groups need.
 */
static void
add_group_columns(GpuselScanState *state, GpuselProgram *prog)
{
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
	gs_coltype	coltypes[GS_MAX_PROGRAM_LENGTH];
	uint8		forms[GS_MAX_PROGRAM_LENGTH];
	int16		form_args[GS_MAX_PROGRAM_LENGTH];
	int			n = GroupAggSinkPayload(sink_of(state), attnos, coltypes, forms, form_args,
										GS_MAX_PROGRAM_LENGTH);

	for (int i = 0; i < n; i++)
	{
		int			c;

		for (c = 0; c < prog->ncols; c++)
			if (prog->attnos[c] == attnos[i] && prog->form[c] == forms[i] &&
				prog->form_arg[c] == form_args[i])
				break;
		if (c == prog->ncols && prog->ncols < GS_MAX_PROGRAM_LENGTH)
		{
			prog->attnos[c] = attnos[i];
			prog->coltypes[c] = coltypes[i];
			prog->form[c] = forms[i];
			prog->form_arg[c] = form_args[i];
			prog->ncols++;
		}
	}
	GroupAggSinkSetColumns(sink_of(state), prog->attnos, prog->form, prog->ncols);
}

/*
 * BeginCustomScan's part for a grouped scan: the inputs' columns, and the
 * CPU path's column tests and quals over columns.  The column tests run
 * before the other quals, so only where no qual can raise an error (then
 * the order cannot change which error a row raises) and no host qual
 * reads the tuple.
 */
static void
GpuselGroupScanBegin(GpuselScanState *state, GpuselProgram *prog, EState *estate)
{
	TupleDesc	desc = RelationGetDescr(state->rel);
	List	   *rest = state->device_quals;

	add_group_columns(state, prog);
	state->colslot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsVirtual);
	if (!GpuselProgramCanError(prog) && !state->has_host_quals)
		state->column_filter = ColumnFilterCreate(state->device_quals, prog, &rest);
	if (rest != NIL)
		state->column_qual = GpuselInitExprForSlot((Expr *) rest, true, &state->css.ss.ps,
												   desc, &TTSOpsVirtual);
}

/*
 * After the device filter is made: when the sink can group the rows on the
 * device (groupagg_batch.c) or sum them there (groupagg_devsum.c), the
 * columns it reads go there too.  Without room for them the rows are
 * aggregated on the host.
 */
static void
GpuselGroupScanFilterReady(GpuselScanState *state)
{
	GpuselProgram *prog = state->program;
	uint8		ship[GS_MAX_PROGRAM_LENGTH];
	char		errbuf[512];
	gs_status	status;

	memset(ship, 0, sizeof(ship));
	if (!GroupAggSinkDeviceColumns(sink_of(state), ship, prog->ncols) &&
		!GroupAggSinkDeviceSumColumns(sink_of(state), ship, prog->ncols))
		return;
	errbuf[0] = '\0';
	status = GpuselDev->filter_ship_columns(state->filter, ship, errbuf, sizeof(errbuf));
	if (status == GS_OUT_OF_MEMORY)
	{
		ereport(DEBUG1,
				(errmsg("gpusel: no GPU memory for the grouped columns, aggregating rows on the host"),
				 errdetail("%s", errbuf)));
		GroupAggSinkNoDeviceGroups(sink_of(state));
		GroupAggSinkNoDeviceSums(sink_of(state));
		return;
	}
	GpuselCheckStatus(status, errbuf, "the GPU scan setup");
}

/*
 * Whether row 'row' of a batch passes the device quals left after the
 * column tests, evaluated by PostgreSQL on a virtual tuple holding the
 * batch's columns: on the CPU, in PostgreSQL's order, with its errors.
 */
static bool
row_passes_on_cpu(GpuselScanState *state, GpuselStaging *staging, int64 row)
{
	GpuselProgram *prog = state->program;
	TupleTableSlot *slot = state->colslot;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	int			natts = slot->tts_tupleDescriptor->natts;
	MemoryContext oldcxt;

	ResetExprContext(econtext);
	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * natts);
	/* numeric columns become numerics again, for this row only */
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int c = 0; c < prog->ncols; c++)
	{
		int			a = prog->attnos[c] - 1;
		bool		isnull = staging->has_nulls[c] && staging->nulls[c][row];

		slot->tts_isnull[a] = isnull;
		if (isnull)
			slot->tts_values[a] = (Datum) 0;
		else if (prog->form[c] != GPUSEL_FORM_PLAIN)
			slot->tts_values[a] = GpuselFormDecode(prog->form[c], prog->form_arg[c],
												   ((int64 *) staging->values[c])[row]);
		else
			slot->tts_values[a] = GpuselLoadValue(staging->values[c], row, prog->coltypes[c]);
	}
	MemoryContextSwitchTo(oldcxt);
	ExecStoreVirtualTuple(slot);
	econtext->ecxt_scantuple = slot;
	return ExecQual(state->column_qual, econtext);
}

/* Counts rows read for EXPLAIN ANALYZE, in batches of batch_rows. */
static void
count_rows_read(GpuselScanState *state, int64 n)
{
	int64		before = (state->scan_rows + state->batch_rows - 1) / state->batch_rows;

	state->scan_rows += n;
	state->rows_in += n;
	state->batches += (state->scan_rows + state->batch_rows - 1) / state->batch_rows - before;
}

/*
 * Picks the rows of a chunk of columns that pass the device quals on the
 * CPU: the column tests, then the other quals through the executor.
 * Writes their positions and returns how many; -1 when there is no qual.
 */
static int64
filter_columns(GpuselScanState *state, GpuselStaging *staging, int64 n, uint32 *positions)
{
	int64		npass = 0;

	if (state->column_filter == NULL && state->column_qual == NULL)
		return -1;
	if (state->column_filter != NULL)
		npass = ColumnFilterApply(state->column_filter, staging, n, positions);
	if (state->column_qual != NULL)
	{
		int64		count = state->column_filter != NULL ? npass : n;
		int64		kept = 0;

		for (int64 i = 0; i < count; i++)
		{
			int64		r = state->column_filter != NULL ? positions[i] : i;

			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (row_passes_on_cpu(state, staging, r))
				positions[kept++] = (uint32) r;
		}
		npass = kept;
	}
	return npass;
}

/* Filters a chunk of columns on the CPU and puts the rows that pass into the groups. */
static void
add_chunk(GpuselScanState *state, GpuselStaging *staging, int64 n, uint32 *positions)
{
	int64		npass = filter_columns(state, staging, n, positions);

	if (npass < 0)
	{
		GroupAggSinkAddColumns(sink_of(state), staging->values, staging->nulls,
							   staging->has_nulls, NULL, n);
		return;
	}
	state->removed_device += n - npass;
	GroupAggSinkAddColumns(sink_of(state), staging->values, staging->nulls,
						   staging->has_nulls, positions, npass);
}

/* Moves rows 'positions' (ascending) of a chunk to its front, in order. */
static void
compact_rows(GpuselProgram *prog, GpuselStaging *staging, const uint32 *positions, int64 n)
{
	for (int c = 0; c < prog->ncols; c++)
	{
		int			w = GpuselColumnWidth(prog->coltypes[c]);
		char	   *values = staging->values[c];
		uint8	   *nulls = staging->nulls[c];

		for (int64 i = 0; i < n; i++)
		{
			memmove(values + i * w, values + (int64) positions[i] * w, w);
			nulls[i] = nulls[positions[i]];
		}
	}
	for (int64 i = 0; i < n; i++)
		staging->tids[i] = staging->tids[positions[i]];
}

/*
 * GpuselFeedFilter of a worker feeding a consumer on the CPU: the WHERE
 * clause runs here, in parallel, and only the rows that pass travel (only
 * their number, when the groups need no column).
 */
static int64
filter_in_worker(void *arg, GpuselStaging *staging, int64 n)
{
	GpuselScanState *state = (GpuselScanState *) arg;
	int64		npass;

	if (state->worker_positions == NULL)
		state->worker_positions = MemoryContextAlloc(state->css.ss.ps.state->es_query_cxt,
													 sizeof(uint32) * GPUSEL_FEED_CHUNK_ROWS);
	npass = filter_columns(state, staging, n, state->worker_positions);
	if (npass < 0)
		return n;
	if (!GroupAggSinkCountOnly(sink_of(state)))
		compact_rows(state->program, staging, state->worker_positions, npass);
	return npass;
}

/*
 * Takes the device batch being returned, if its rows all passed on the
 * device, into the sink whole: grouped on the device, summed there, or by
 * its columns and positions.  Rows the CPU must recheck come one by one.
 */
static void
add_device_batch(GpuselScanState *state)
{
	int			s = state->out_slot;

	if (!state->use_gpu || s < 0 || state->out_recheck || state->has_host_quals ||
		state->out_next >= state->npositions || !GroupAggSinkColumnar(sink_of(state)))
		return;
	if (!GroupAggSinkAddDeviceBatch(sink_of(state), state->filter, s, state->out_next,
									state->filter_rows) &&
		!GroupAggSinkAddDeviceSums(sink_of(state), state->filter, s, state->out_next,
								   state->npositions))
	{
		GpuselStaging staging;
		const uint32 *positions;
		int64		n;

		/* count(*) alone reads no column: a run in device memory needs no copy */
		if (GroupAggSinkCountOnly(sink_of(state)))
			GroupAggSinkAddColumns(sink_of(state), NULL, NULL, NULL, NULL,
								   state->npositions - state->out_next);
		else
			while ((n = GpuselScanBatchColumns(state, &staging, &positions)) > 0)
				GroupAggSinkAddColumns(sink_of(state), staging.values, staging.nulls,
									   staging.has_nulls, positions, n);
	}
	state->out_next = state->npositions;
}

/*
 * A producer's blocks through the device path, with the GPU service: its
 * own blocks go straight into the device filter's staging, the rows that
 * pass into its sink (summed on the device where they can be), and its
 * groups to the consumer as on the CPU.  False, with nothing read, when
 * the device has no room for the filter: the caller reads on the CPU.
 */
static bool
produce_on_device(GpuselScanState *state, GpuselFeed *feed)
{
	int64		sent = state->rows_in;
	double		device_before = state->device_ms;

	state->use_gpu = true;
	state->source = GpuselFeedOwnSource(feed, state->program);
	if (!GpuselScanDeviceReady(state))
	{
		state->source = NULL;
		return false;
	}
	for (;;)
	{
		TupleTableSlot *row;

		add_device_batch(state);
		if (GroupAggSinkPartialIsDue(sink_of(state), feed))
		{
			GroupAggSinkSendPartial(sink_of(state), feed, state->rows_in - sent);
			sent = state->rows_in;
		}
		row = GpuselScanNextRow(state);
		if (TupIsNull(row))
			break;
		GroupAggSinkAddSlot(sink_of(state), state->heapslot);
	}
	GroupAggSinkSendPartial(sink_of(state), feed, state->rows_in - sent);
	GpuselFeedReportDevice(feed, state->rows_in, state->device_ms - device_before);
	return true;
}

/*
 * A producer's two rounds over its blocks of the column cache
 * (groupagg_narrow.c): its keys counted by bucket and sent with its
 * groups; then, with the consumer's reply, the same blocks read again and
 * the keys of the buckets it wants sent.  False when the consumer went
 * before the second round: the producer has been counted out already.
 */
static bool
produce_two_rounds(GpuselScanState *state, GpuselFeed *feed, uint32 *positions)
{
	GroupAggSink *sink = sink_of(state);
	GpuselChunk batch;
	int64		sent = state->rows_in;
	const char *reply = NULL;
	Size		bytes = 0;

	GroupAggSinkStartRounds(sink, GpuselFeedRoundSpace(feed));
	while (GpuselFeedReadOwn(feed, &batch, state->heapslot))
	{
		count_rows_read(state, batch.nrows);
		add_chunk(state, &batch.staging, batch.nrows, positions);
	}
	GroupAggSinkSendFirstRound(sink, feed, state->rows_in - sent);
	if (!GpuselFeedAwaitSecondRound(feed, &reply, &bytes))
		return false;
	GroupAggSinkBeginWorkerSecondRound(sink, reply, bytes);
	GpuselFeedReplayOwn(feed);
	while (GpuselFeedReadOwn(feed, &batch, state->heapslot))
	{
		if (GroupAggSinkKeptPairsDue(sink))
			GroupAggSinkSendKeptPairs(sink, feed);
		add_chunk(state, &batch.staging, batch.nrows, positions);
	}
	GroupAggSinkSendKeptPairs(sink, feed);
	return true;
}

/*
 * A producer's part of a parallel grouped scan (scan_parallel.c): where
 * the consumer filters and groups on the CPU, the worker filters and
 * aggregates its blocks into its own sink and sends its groups
 * (groupagg_partial.c); otherwise it sends its rows' columns.
 */
static void
GpuselGroupScanProduce(GpuselScanState *state)
{
	GpuselFeed *feed = state->feed;
	GpuselChunk batch;
	uint32	   *positions;
	int64		sent = state->rows_in;	/* rows read before this scan: none */

	if (!GpuselFeedWorkersAggregate(feed))
	{
		GpuselFeedProduce(feed, state->heapslot, filter_in_worker, state);
		return;
	}
	/* in two rounds every producer reads its blocks again: one that cannot reads none */
	if (GpuselFeedRoundsShared(feed) && !GpuselFeedRounds(feed))
		return;
	if (!GpuselFeedStartProducing(feed))
		return;
	if (GpuselFeedRoundsShared(feed))
	{
		positions = palloc(sizeof(uint32) * GPUSEL_FEED_CHUNK_ROWS);
		if (produce_two_rounds(state, feed, positions))
			GpuselFeedStopProducing(feed);
		pfree(positions);
		return;
	}
	if (state->worker_device && produce_on_device(state, feed))
	{
		GpuselFeedStopProducing(feed);
		return;
	}
	positions = palloc(sizeof(uint32) * GPUSEL_FEED_CHUNK_ROWS);
	while (GpuselFeedReadOwn(feed, &batch, state->heapslot))
	{
		count_rows_read(state, batch.nrows);
		add_chunk(state, &batch.staging, batch.nrows, positions);
		/* percentile keys go while the scan goes on, not all at its end */
		if (GroupAggSinkPartialIsDue(sink_of(state), feed))
		{
			GroupAggSinkSendPartial(sink_of(state), feed, state->rows_in - sent);
			sent = state->rows_in;
		}
	}
	GroupAggSinkSendPartial(sink_of(state), feed, state->rows_in - sent);
	GpuselFeedStopProducing(feed);
	pfree(positions);
}

/*
 * Puts every chunk of a source into the groups: records of workers' partial
 * aggregates merged, rows filtered unless a worker did, by their columns.
 * A second pass over the same rows counts nothing for EXPLAIN.
 */
static void
add_source_chunks(GpuselScanState *state, GpuselSource *source, bool second_pass)
{
	GpuselChunk chunk;
	int64		capacity = GPUSEL_FEED_CHUNK_ROWS;
	uint32	   *positions = palloc(sizeof(uint32) * capacity);
	int64		removed = state->removed_device;

	while (GpuselSourceNextChunk(source, &chunk, state->heapslot))
	{
		if (!second_pass)
			count_rows_read(state, chunk.nscanned);
		if (chunk.kind == GPUSEL_CHUNK_ROWS && chunk.nrows > capacity)
		{
			capacity = chunk.nrows;
			positions = repalloc(positions, sizeof(uint32) * capacity);
		}
		if (chunk.kind != GPUSEL_CHUNK_ROWS)
		{
			state->removed_device += chunk.nscanned - chunk.naggregated;
			GroupAggSinkMerge(sink_of(state), &chunk);
		}
		else if (chunk.filtered)
		{
			state->removed_device += chunk.nscanned - chunk.nrows;
			GroupAggSinkAddColumns(sink_of(state), chunk.staging.values, chunk.staging.nulls,
								   chunk.staging.has_nulls, NULL, chunk.nrows);
		}
		else
			add_chunk(state, &chunk.staging, chunk.nrows, positions);
	}
	if (second_pass)
		state->removed_device = removed;
	pfree(positions);
}

/*
 * The grouped scan on the CPU when every qual is a device qual and every
 * input a column: the source lends chunks of rows as columns (read from
 * the pages many tuples at once, or under Gather by the workers, filtered
 * when they could) or workers' partial aggregates; the column tests and
 * then the other quals pick rows, and the sink reads the rows that pass as
 * columns, with no heap tuple per row.  A scan of a source in memory (the
 * column cache) may read its rows twice, for percentile keys past work_mem
 * (groupagg_narrow.c): both passes apply the same quals, which must then
 * be free of volatile functions, to the same snapshot.  Under Gather every
 * process reads its own blocks twice, in two rounds of the feed, where the
 * consumer chose so before the workers started (group_sink_prepare_rounds).
 */
static void
fill_groups_from_source(GpuselScanState *state, GpuselSource *source)
{
	bool		quals_stable = !contain_volatile_functions((Node *) state->device_quals);
	bool		rounds = GpuselScanFeeding(state) && GpuselFeedRoundsShared(state->feed);

	/*
	 * A worker that consumes (parallel_leader_participation off) and finds
	 * no cache where the leader found one (dropped or rebuilt since) could
	 * not read its blocks a second time, and the workers count by bucket.
	 */
	if (rounds && !GpuselFeedRounds(state->feed))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column cache of \"%s\" changed while a parallel scan of it started",
						RelationGetRelationName(state->rel)),
				 errdetail("The process returning the groups could not read its share of the table twice."),
				 errhint("Run the query again.")));

	GroupAggSinkAllowSecondPass(sink_of(state),
								!GpuselScanFeeding(state) && GpuselSourceInMemory(source) &&
								quals_stable);
	if (rounds)
		GroupAggSinkStartRounds(sink_of(state), GpuselFeedRoundSpace(state->feed));
	add_source_chunks(state, source, false);
	if (GroupAggSinkSecondPassDue(sink_of(state)))
	{
		GpuselSource *again;
		instr_time	start;
		instr_time	end;

		INSTR_TIME_SET_CURRENT(start);
		GroupAggSinkBeginSecondPass(sink_of(state));
		if (rounds)
		{
			/* the workers wait for the buckets their groups' ranks fall in */
			GroupAggSinkWriteReplies(sink_of(state), state->feed);
			GpuselFeedOpenSecondRound(state->feed);
			add_source_chunks(state, source, true);
			GpuselFeedFreeReplies(state->feed);
		}
		else
		{
			/* after an error its memory and pins go with the query's, as the first's */
			again = GpuselScanOpenSecondSource(state);
			add_source_chunks(state, again, true);
			GpuselSourceEnd(again);
		}
		GroupAggSinkEndSecondPass(sink_of(state));
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, start);
		state->second_pass_ms += INSTR_TIME_GET_MILLISEC(end);
	}
	else if (rounds)
		GpuselFeedStop(state->feed);	/* never: every collection was counted by bucket */
	state->scan_done = true;
}

/*
 * Runs the whole scan into the grouped scan's sink.  A device batch whose
 * rows all passed on the device goes in by its columns and positions;
 * every other row (CPU path, host quals, a batch the CPU rechecks, an
 * input that is an expression) goes in from its heap tuple.
 */
static void
fill_groups(GpuselScanState *state)
{
	ScanState  *ss = &state->css.ss;
	Snapshot	snapshot = ss->ps.state->es_snapshot;

	/* a numeric column read where it fits cannot be a numeric again: the quals read the tuple */
	if ((!state->use_gpu || state->device_quals == NIL) && !state->has_host_quals &&
		GroupAggSinkColumnar(sink_of(state)) && !GpuselProgramHasUndecodableColumns(state->program) &&
		(GpuselScanFeeding(state) || GpuselPagesUsable(state->rel, snapshot)))
	{
		fill_groups_from_source(state, GpuselScanOpenSource(state, true));
		return;
	}
	/*
	 * Each device batch goes in whole as it arrives (a producer worker
	 * instead takes them here, between sending its partial aggregates).
	 */
	state->take_batch = add_device_batch;
	for (;;)
	{
		TupleTableSlot *row;

		add_device_batch(state);
		row = GpuselScanNextRow(state);	/* not inside TupIsNull, which reads it twice */
		if (TupIsNull(row))
			break;
		GroupAggSinkAddSlot(sink_of(state), state->heapslot);
	}
}

/*
 * The grouped scan: fills the groups on the first call, then returns one
 * group per call that passes HAVING, projected into the targetlist.
 */
static TupleTableSlot *
GpuselGroupScanNext(GpuselScanState *state)
{
	ScanState  *ss = &state->css.ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;

	bool		first = false;

	if (!state->groups_filled)
	{
		instr_time	start;
		instr_time	end;

		/* under Gather, a process that only feeds the consumer returns nothing */
		if (!GpuselScanTakeRole(state))
			return NULL;
		INSTR_TIME_SET_CURRENT(start);
		fill_groups(state);
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, start);
		state->fill_ms += INSTR_TIME_GET_MILLISEC(end);
		state->groups_filled = true;
		first = true;
	}
	for (;;)
	{
		instr_time	start;
		instr_time	end;
		bool		found;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		/* the first group's call computes every group's results */
		if (first)
			INSTR_TIME_SET_CURRENT(start);
		found = GroupAggSinkNextGroup(sink_of(state), slot);
		if (first)
		{
			INSTR_TIME_SET_CURRENT(end);
			INSTR_TIME_SUBTRACT(end, start);
			state->results_ms += INSTR_TIME_GET_MILLISEC(end);
			first = false;
		}
		if (!found)
			return NULL;
		econtext->ecxt_scantuple = slot;
		if (ss->ps.qual != NULL && !ExecQual(ss->ps.qual, econtext))
		{
			InstrCountFiltered1(ss, 1);
			continue;
		}
		if (ss->ps.ps_ProjInfo == NULL)
			return slot;
		return ExecProject(ss->ps.ps_ProjInfo);
	}
}


/* GpuselSinkMethods.create: the sink of the plan's keys and aggregates. */
static void *
group_sink_create(GpuselScanState *state, CustomScan *cscan, EState *estate)
{
	GroupAggSink *sink = GroupAggSinkCreate(&state->css.ss.ps, cscan->custom_scan_tlist,
											intVal(list_nth(cscan->custom_private,
															GPUSEL_PRIV_GROUP_NKEYS)),
											state->rel, estate);

	GroupAggSinkSetOrder(sink, (List *) list_nth(cscan->custom_private, GPUSEL_PRIV_GROUP_ORDER));
	return sink;
}

/* GpuselSinkMethods.columnar */
static bool
group_sink_columnar(void *sink)
{
	return GroupAggSinkColumnar((GroupAggSink *) sink);
}

/* GpuselSinkMethods.partial_record_bytes */
static Size
group_sink_record_bytes(void *sink)
{
	return GroupAggSinkPartialRecordBytes((GroupAggSink *) sink);
}

/* GpuselSinkMethods.partial_sends_keys */
static bool
group_sink_sends_keys(void *sink)
{
	return GroupAggSinkPartialSendsKeys((GroupAggSink *) sink);
}

/*
 * GpuselSinkMethods.prepare_rounds: under Gather over the column cache,
 * every process reads its blocks twice where the percentile keys would
 * pass work_mem in the leader and the groups hold enough keys each for
 * buckets to narrow them (the planner's estimates); the shared splitters
 * are sampled here, before the workers start.
 */
static bool
group_sink_prepare_rounds(GpuselScanState *state, int nworkers)
{
	GroupAggSink *sink = sink_of(state);
	GpuselFeed *feed = state->feed;
	double		groups = Max(state->css.ss.ps.plan->plan_rows, 1.0);
	double		rows = Max(state->rel->rd_rel->reltuples, 0.0);

	if (!gpusel_enable_parallel_second_pass || feed->cached == NULL ||
		!GpuselFeedWorkersAggregate(feed) ||
		contain_volatile_functions((Node *) state->device_quals) ||
		rows * sizeof(uint64) <= (double) work_mem * 1024.0 ||
		rows < groups * GROUPAGG_NARROW_MIN_KEYS_PER_GROUP ||
		!GroupAggSinkRoundsEligible(sink, GPUSEL_FEED_ROUND_BYTES))
		return false;
	if (!GroupAggSinkPrepareRounds(sink, feed->cached, groups, GpuselFeedRoundSpace(feed),
								   GPUSEL_FEED_ROUND_BYTES, GpuselFeedChunkBytes(feed)))
		return false;
	return GpuselFeedEnableRounds(feed, nworkers);
}

/* GpuselSinkMethods.rescan */
static void
group_sink_rescan(void *sink)
{
	GroupAggSinkReset((GroupAggSink *) sink);
}

/* GpuselSinkMethods.end */
static void
group_sink_end(void *sink)
{
	GroupAggSinkEnd((GroupAggSink *) sink);
}

/* GpuselSinkMethods.explain */
static void
group_sink_explain(void *sink, List *deparse_cxt, bool useprefix, ExplainState *es)
{
	GroupAggSinkExplain((GroupAggSink *) sink, deparse_cxt, useprefix, es);
}

static const GpuselSinkMethods group_sink_methods = {
	.create = group_sink_create,
	.begin = GpuselGroupScanBegin,
	.filter_ready = GpuselGroupScanFilterReady,
	.next = GpuselGroupScanNext,
	.produce = GpuselGroupScanProduce,
	.columnar = group_sink_columnar,
	.partial_record_bytes = group_sink_record_bytes,
	.partial_sends_keys = group_sink_sends_keys,
	.prepare_rounds = group_sink_prepare_rounds,
	.rescan = group_sink_rescan,
	.end = group_sink_end,
	.explain = group_sink_explain,
};

/* Registers the grouped scan's sink with GpuSelScan. */
void
GroupAggScanInit(void)
{
	GpuselRegisterGroupSink(&group_sink_methods);
}
