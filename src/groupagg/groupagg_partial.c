/*
 * groupagg_partial.c
 *	  Partial aggregates of the grouped scan under Gather: each worker
 *	  filters and aggregates its own blocks into its own sink, then sends its
 *	  groups and its percentile keys through the feed (parallel_feed.c); the
 *	  consumer merges them into its sink, once per group and per key, never
 *	  per row.
 *
 * A worker sends, in order: the dictionaries of its keys whose batch
 * values are numbers of one (GPUSEL_CROSS_DICTIONARY: text keys), its groups
 * (each a record of its key values and aggregate cells, numbered in the
 * worker's order), then for each percentile collection its (group, key)
 * pairs with the worker's group numbers.  The feed delivers a worker's
 * chunks in the order it sent them, so the consumer knows a worker's
 * dictionary numbers before its groups, and its group numbers before their
 * pairs.
 *
 * Merging follows PostgreSQL's combine functions, so results are those of
 * PostgreSQL's own parallel aggregation: counts and integer sums add
 * (exact, in 128 bits), float sums add with float4pl/float8pl's overflow
 * rule, avg(float) combines (N, Sx, Sxx) as float8_combine does, min and max
 * keep the extreme value, and percentile keys are appended to their group's
 * collection, so percentiles stay exact.  As in PostgreSQL, the order in
 * which rows meet depends on the workers: a float sum may differ in its
 * last bits from a serial scan's, and of two equal extremes (-0 and 0)
 * either may be kept.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "groupagg_internal.h"
#include "parallel_feed.h"

/*
 * When a worker sends a part before its end: its keys fill this many
 * chunks, and number this many per group at least.
 */
#define GROUPAGG_PARTIAL_CHUNKS			2
#define GROUPAGG_PARTIAL_KEYS_PER_GROUP	64

/* Byte layout of one group's record. */
typedef struct RecordLayout
{
	Size		keybits;		/* nkeys uint64 */
	Size		keyvalues;		/* nkeys Datum */
	Size		keynulls;		/* nkeys bool */
	Size		zeros;			/* ncollections uint8 */
	Size		cells;			/* naggs GroupCell */
	Size		bytes;
} RecordLayout;

/* Where each part of a group's record lies. */
static void
record_layout(GroupAggSink *sink, RecordLayout *layout)
{
	Size		off = 0;

	layout->keybits = off;
	off += sizeof(uint64) * sink->nkeys;
	layout->keyvalues = off;
	off += sizeof(Datum) * sink->nkeys;
	layout->keynulls = off;
	off += sizeof(bool) * sink->nkeys;
	layout->zeros = off;
	off += sink->ncollections;
	layout->cells = off;
	off += sizeof(GroupCell) * sink->naggs;
	layout->bytes = MAXALIGN(off);
}

/*
 * Bytes of one group's record, for the feed to check that one fits a
 * chunk; 0 when the sink's rows cannot be aggregated in a worker (an input
 * that the worker would read from a heap tuple).
 */
Size
GroupAggSinkPartialRecordBytes(GroupAggSink *sink)
{
	RecordLayout layout;

	if (!sink->columnar)
		return 0;
	record_layout(sink, &layout);
	return layout.bytes;
}

/*
 * Whether a worker sends percentile keys beside its groups: every key it
 * collects crosses to the consumer, as many bytes as rows would.
 */
bool
GroupAggSinkPartialSendsKeys(GroupAggSink *sink)
{
	return sink->ncollections > 0;
}

/*
 * A worker: sends the dictionary of each key numbered by one, as a stream
 * of values in their numbers' order over as many chunks as it takes.
 * False when the consumer is done and takes nothing more.
 */
static bool
send_dictionaries(GroupAggSink *sink, GpuselFeed *feed)
{
	for (int k = 0; k < sink->nkeys; k++)
	{
		GroupInput *in = &sink->inputs[k];
		GpuselValueDictCursor cursor = {0, 0};
		bool		first = true;

		if (GpuselFormLookup(in->form)->crosses != GPUSEL_CROSS_DICTIONARY)
			continue;
		do
		{
			Size		room;
			char	   *buf = GpuselFeedClaimBuffer(feed, &room);
			Size		n;

			if (buf == NULL)
				return false;
			n = GpuselValueDictWrite(in->form_arg, &cursor, buf, room);
			GpuselFeedPublishBuffer(feed, GPUSEL_CHUNK_DICT, k, first ? 0 : 1, (int64) n, 0, 0);
			first = false;
		} while (!GpuselValueDictWritten(in->form_arg, &cursor));
	}
	return true;
}

/*
 * A worker: sends its groups, as records, in its own order.  False when
 * the consumer is done and takes nothing more.
 */
static bool
send_groups(GroupAggSink *sink, GpuselFeed *feed, int64 nscanned)
{
	RecordLayout layout;
	int			nk = sink->nkeys;
	int64		g = 0;
	bool		first = true;

	record_layout(sink, &layout);
	do
	{
		Size		room;
		char	   *buf = GpuselFeedClaimBuffer(feed, &room);
		int64		n;

		if (buf == NULL)
			return false;
		n = Min((int64) (room / layout.bytes), sink->ngroups - g);
		for (int64 i = 0; i < n; i++)
		{
			char	   *rec = buf + i * layout.bytes;
			int64		src = g + i;

			memcpy(rec + layout.keybits, sink->keybits + src * nk, sizeof(uint64) * nk);
			memcpy(rec + layout.keyvalues, sink->keyvalues + src * nk, sizeof(Datum) * nk);
			memcpy(rec + layout.keynulls, sink->keynulls + src * nk, sizeof(bool) * nk);
			for (int c = 0; c < sink->ncollections; c++)
				((uint8 *) (rec + layout.zeros))[c] = sink->collections[c].zeros[src];
			memcpy(rec + layout.cells, sink->cells + src * sink->naggs,
				   sizeof(GroupCell) * sink->naggs);
		}
		/* the first chunk carries the worker's totals, for EXPLAIN ANALYZE */
		GpuselFeedPublishBuffer(feed, GPUSEL_CHUNK_GROUPS, -1, g, n,
								first ? nscanned : 0, first ? sink->rows_aggregated : 0);
		first = false;
		g += n;
	} while (g < sink->ngroups);
	return true;
}

/* A worker: sends a collection's pairs, group numbers then keys per chunk. */
static bool
send_pairs(GroupAggSink *sink, GpuselFeed *feed, int c)
{
	PercentileCollection *pc = &sink->collections[c];
	Size		pair_bytes = (pc->groups != NULL ? sizeof(uint32) : 0) + pc->key_bytes;
	int64		i = 0;

	while (i < pc->nkeys)
	{
		Size		room;
		char	   *buf = GpuselFeedClaimBuffer(feed, &room);
		int64		n;
		char	   *keys = buf;

		if (buf == NULL)
			return false;
		n = Min((int64) (room / pair_bytes), pc->nkeys - i);
		if (pc->groups != NULL)
		{
			memcpy(buf, pc->groups + i, sizeof(uint32) * n);
			keys = buf + sizeof(uint32) * n;
		}
		memcpy(keys, pc->keys + i * pc->key_bytes, (Size) pc->key_bytes * n);
		GpuselFeedPublishBuffer(feed, GPUSEL_CHUNK_PAIRS, c, i, n, 0, 0);
		i += n;
	}
	return true;
}

/*
 * A worker: sends its whole partial aggregate so far and starts a new one.
 * 'nscanned' is the rows it read since its last send, and the rows it
 * aggregated meanwhile go with them, for the consumer's EXPLAIN ANALYZE.
 * Merging is associative, so the consumer may merge any number of partial
 * aggregates of one worker; the worker's group numbers start over with
 * each, and its chunks arrive in the order it sent them.
 */
void
GroupAggSinkSendPartial(GroupAggSink *sink, GpuselFeed *feed, int64 nscanned)
{
	int64		aggregated = sink->rows_aggregated;

	if (!send_dictionaries(sink, feed) || !send_groups(sink, feed, nscanned))
		return;
	for (int c = 0; c < sink->ncollections; c++)
		if (!send_pairs(sink, feed, c))
			return;
	GroupAggSinkReset(sink);
	/* the totals count what this worker has not sent yet */
	sink->rows_aggregated -= aggregated;
	sink->rows_from_columns -= aggregated;
}

/*
 * Whether a worker should send its partial aggregate before its last block:
 * when its percentile keys fill a few chunks and outnumber its groups many
 * times, so that the consumer appends them while the workers still read,
 * instead of all at the end, and the group records sent again with each
 * part stay few beside the keys; and whenever they pass work_mem, as a
 * worker does not spill them (groupagg_spill.c).
 */
bool
GroupAggSinkPartialIsDue(GroupAggSink *sink, GpuselFeed *feed)
{
	Size		bytes = 0;
	int64		keys = 0;

	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];

		keys += pc->nkeys;
		bytes += (Size) pc->nkeys * (pc->key_bytes + (pc->groups != NULL ? sizeof(uint32) : 0));
	}
	return (bytes >= GROUPAGG_PARTIAL_CHUNKS * GpuselFeedChunkBytes(feed) &&
			keys >= GROUPAGG_PARTIAL_KEYS_PER_GROUP * sink->ngroups) ||
		bytes >= (Size) work_mem * 1024;
}

/* Merges a worker's cell of aggregate 'desc' into the consumer's cell. */
static void
combine_cell(GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	if (src->count == 0)
		return;
	desc->methods->combine(desc, dst, src);
}

/* The consumer's group numbers of a worker's groups, grown to 'len'. */
static int64 *
producer_map(GroupAggSink *sink, int producer, int64 len)
{
	GroupAggPartialMap *map;

	if (producer >= sink->nmaps)
	{
		int			n = Max(producer + 1, sink->nmaps * 2);

		if (sink->maps == NULL)
			sink->maps = MemoryContextAllocZero(sink->cxt, sizeof(GroupAggPartialMap) * n);
		else
		{
			sink->maps = repalloc(sink->maps, sizeof(GroupAggPartialMap) * n);
			memset(sink->maps + sink->nmaps, 0, sizeof(GroupAggPartialMap) * (n - sink->nmaps));
		}
		sink->nmaps = n;
	}
	map = &sink->maps[producer];
	if (len > map->cap)
	{
		int64		cap = Max(len, Max(map->cap * 2, 1024));

		if (map->groups == NULL)
			map->groups = MemoryContextAllocExtended(sink->cxt, sizeof(int64) * cap,
													 MCXT_ALLOC_HUGE);
		else
			map->groups = repalloc_huge(map->groups, sizeof(int64) * cap);
		map->cap = cap;
	}
	return map->groups;
}

/* The consumer: merges a worker's group records into its groups. */
static void
merge_groups(GroupAggSink *sink, GpuselChunk *batch)
{
	RecordLayout layout;
	int			nk = sink->nkeys;
	int64	   *map = producer_map(sink, batch->producer, batch->first + batch->nrows);
	GpuselValueDictReader *dicts = sink->maps[batch->producer].dicts;

	record_layout(sink, &layout);
	for (int64 i = 0; i < batch->nrows; i++)
	{
		const char *rec = batch->data + i * layout.bytes;
		GroupCell  *cells;
		int64		g;

		/* the group of the worker's keys, as a row with those keys finds it */
		memcpy(sink->values, rec + layout.keyvalues, sizeof(Datum) * nk);
		memcpy(sink->nulls, rec + layout.keynulls, sizeof(bool) * nk);
		if (dicts != NULL)
			for (int k = 0; k < nk; k++)
			{
				int64		number = DatumGetInt64(sink->values[k]);

				if (sink->nulls[k] ||
					GpuselFormLookup(sink->inputs[k].form)->crosses != GPUSEL_CROSS_DICTIONARY)
					continue;
				if (number < 0 || number >= dicts[k].nnumbers)
					elog(ERROR, "gpusel worker sent a key number its dictionary did not hold");
				sink->values[k] = Int64GetDatum(dicts[k].numbers[number]);
			}
		g = GroupAggFindGroup(sink);
		cells = &sink->cells[g * sink->naggs];
		for (int a = 0; a < sink->naggs; a++)
		{
			GroupCell	src;

			memcpy(&src, rec + layout.cells + a * sizeof(GroupCell), sizeof(GroupCell));
			combine_cell(&sink->aggs[a], &cells[a], &src);
		}
		for (int c = 0; c < sink->ncollections; c++)
			sink->collections[c].zeros[g] |= ((const uint8 *) (rec + layout.zeros))[c];
		map[batch->first + i] = g;
	}
	sink->maps[batch->producer].ngroups = Max(sink->maps[batch->producer].ngroups,
											  batch->first + batch->nrows);
	sink->rows_aggregated += batch->naggregated;
	sink->rows_from_columns += batch->naggregated;
}

/* The consumer: appends a worker's pairs of one collection to its groups. */
static void
merge_pairs(GroupAggSink *sink, GpuselChunk *batch)
{
	PercentileCollection *pc = &sink->collections[batch->collection];
	int64		n = batch->nrows;
	const uint32 *groups = NULL;
	const char *keys = batch->data;
	const int64 *map = NULL;

	if (sink->nkeys > 0)
	{
		map = sink->maps[batch->producer].groups;
		groups = (const uint32 *) batch->data;
		keys = batch->data + sizeof(uint32) * n;
	}
	/* held on the device already: straight there, no host copy */
	if (GroupAggShipMergedPairs(sink, pc, keys, groups, map, n))
		return;
	while (pc->nkeys + n > pc->cap)
		GroupAggGrowCollection(sink, pc);
	if (sink->nkeys > 0)
	{
		for (int64 i = 0; i < n; i++)
		{
			int64		g = map[groups[i]];

			pc->groups[pc->nkeys + i] = (uint32) g;
			pc->counts[g]++;
		}
	}
	else
		pc->counts[0] += n;
	memcpy(pc->keys + pc->nkeys * pc->key_bytes, keys, (Size) pc->key_bytes * n);
	pc->nkeys += n;
}

/*
 * The consumer: numbers the values of a piece of a worker's dictionary in
 * its own, so that the worker's groups that follow find their keys here.
 */
static void
merge_dictionary(GroupAggSink *sink, GpuselChunk *batch)
{
	GroupAggPartialMap *map;
	int			k = batch->collection;

	(void) producer_map(sink, batch->producer, 0);
	map = &sink->maps[batch->producer];
	if (map->dicts == NULL)
		map->dicts = MemoryContextAllocZero(sink->cxt, sizeof(GpuselValueDictReader) * sink->nkeys);
	/* each partial aggregate of a worker numbers its keys anew */
	if (batch->first == 0)
		GpuselValueDictReaderReset(&map->dicts[k], sink->cxt);
	GpuselValueDictRead(&map->dicts[k], sink->cxt, sink->inputs[k].form_arg, batch->data,
					   (Size) batch->nrows);
}

/*
 * The consumer: adds a worker's first-round bucket counts of one
 * collection to its groups' (groupagg_narrow.c).
 */
static void
merge_bucket_counts(GroupAggSink *sink, GpuselChunk *batch)
{
	PercentileCollection *pc = &sink->collections[batch->collection];
	GroupAggPartialMap *map;
	Size		record;

	if (pc->narrow == NULL || batch->producer >= sink->nmaps ||
		batch->first + batch->nrows > sink->maps[batch->producer].ngroups)
		elog(ERROR, "gpusel: a worker sent bucket counts of groups it had not sent");
	map = &sink->maps[batch->producer];
	/* a chunk's records are of one size (send_bucket_counts) */
	if (batch->nrows > 0 &&
		GroupAggNarrowRecordsEnd(pc, batch->first, batch->first + batch->nrows) <
		batch->first + batch->nrows)
		elog(ERROR, "gpusel: a worker's chunk of bucket counts mixes groups counted and not");
	record = GroupAggNarrowRecordBytes(pc, batch->first);
	/* records of whole int64 counts, from a MAXALIGNed chunk */
	for (int64 i = 0; i < batch->nrows; i++)
	{
		const int64 *counts = (const int64 *) (batch->data + i * record);

		if (record == sizeof(int64) && counts[0] >= 0)
			elog(ERROR, "gpusel: a worker sent counts of a group past those it counts by bucket");
		GroupAggNarrowMergeCounts(sink, pc, map->groups[batch->first + i], counts);
	}
}

/* The consumer: merges one chunk of a worker's partial aggregate. */
void
GroupAggSinkMerge(GroupAggSink *sink, GpuselChunk *batch)
{
	if (batch->kind == GPUSEL_CHUNK_DICT)
		merge_dictionary(sink, batch);
	else if (batch->kind == GPUSEL_CHUNK_GROUPS)
		merge_groups(sink, batch);
	else if (batch->kind == GPUSEL_CHUNK_BUCKETS)
		merge_bucket_counts(sink, batch);
	else
	{
		merge_pairs(sink, batch);
		GroupAggShipIfDue(sink);
	}
}

/*
 * Two rounds over the column cache (GpuselFeedEnableRounds, and
 * groupagg_narrow.c): a worker counts its keys by bucket and sends its
 * groups and their counts; the consumer, with every worker's counts,
 * replies to each with the buckets it wants of each of that worker's
 * groups; the worker reads its blocks again and sends only those buckets'
 * keys.  The worker keeps its groups between the rounds, so its group
 * numbers are the same in both and the consumer's map of them serves
 * both.
 */

/*
 * A worker: sends a collection's record of every group, in its order: the
 * bucket counts of those it counted so, then the totals of the others, in
 * chunks of one kind of record each.
 */
static bool
send_bucket_counts(GroupAggSink *sink, GpuselFeed *feed, int c)
{
	PercentileCollection *pc = &sink->collections[c];
	int64		g = 0;

	while (g < sink->ngroups)
	{
		Size		record = GroupAggNarrowRecordBytes(pc, g);
		Size		room;
		char	   *buf = GpuselFeedClaimBuffer(feed, &room);
		int64		n;

		if (buf == NULL)
			return false;
		n = Min((int64) (room / record), GroupAggNarrowRecordsEnd(pc, g, sink->ngroups) - g);
		if (n <= 0)
			elog(ERROR, "gpusel: a group's bucket counts do not fit a chunk of the feed");
		for (int64 i = 0; i < n; i++)
			GroupAggNarrowWriteCounts(pc, g + i, (int64 *) (buf + i * record));
		GpuselFeedPublishBuffer(feed, GPUSEL_CHUNK_BUCKETS, c, g, n, 0, 0);
		g += n;
	}
	return true;
}

/*
 * A worker, at the end of its first round: its dictionaries, groups and
 * bucket counts.  Its groups stay for the second round.
 */
void
GroupAggSinkSendFirstRound(GroupAggSink *sink, GpuselFeed *feed, int64 nscanned)
{
	if (!send_dictionaries(sink, feed) || !send_groups(sink, feed, nscanned))
		return;
	for (int c = 0; c < sink->ncollections; c++)
		if (!send_bucket_counts(sink, feed, c))
			return;
}

/*
 * Bytes of the consumer's reply to a worker of ngroups groups: the masks
 * of those it counted by bucket, collection by collection.
 */
static Size
reply_bytes(GroupAggSink *sink, int64 ngroups)
{
	Size		words = 0;

	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];

		words += (Size) GroupAggNarrowMaskWords(pc) * GroupAggNarrowCountedGroups(pc, ngroups);
	}
	return words * sizeof(uint64);
}

/*
 * A worker, with the consumer's reply: each collection's wanted buckets of
 * each of its groups (a mask per group, collection by collection).  No
 * reply: the consumer met none of its groups.
 */
void
GroupAggSinkBeginWorkerSecondRound(GroupAggSink *sink, const char *reply, Size bytes)
{
	int64		ng = sink->ngroups;
	uint64	   *none = NULL;
	const uint64 *masks = (const uint64 *) reply;

	if (reply != NULL && bytes != reply_bytes(sink, ng))
		elog(ERROR, "gpusel: the consumer's reply holds %zu bytes for %lld groups",
			 bytes, (long long) ng);
	if (reply == NULL)
		none = palloc0(reply_bytes(sink, Max(ng, 1)));
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];

		GroupAggNarrowChooseFromMasks(sink, pc, reply != NULL ? masks : none, ng);
		masks += (Size) GroupAggNarrowMaskWords(pc) * GroupAggNarrowCountedGroups(pc, ng);
		pc->nkeys = 0;
		memset(pc->counts, 0, sizeof(int64) * ng);
	}
	if (none != NULL)
		pfree(none);
	sink->second_pass = true;
}

/*
 * A worker, in its second round: sends the keys it kept so far and holds
 * none; its groups stay.  Sent before they pass work_mem, as a worker does
 * not spill (GroupAggSinkKeptPairsDue).
 */
void
GroupAggSinkSendKeptPairs(GroupAggSink *sink, GpuselFeed *feed)
{
	for (int c = 0; c < sink->ncollections; c++)
	{
		if (!send_pairs(sink, feed, c))
			return;
		sink->collections[c].nkeys = 0;
	}
}

/*
 * Whether a worker's kept keys should go before the next chunk: a chunk of
 * GPUSEL_FEED_CHUNK_ROWS rows could take them past work_mem.
 */
bool
GroupAggSinkKeptPairsDue(GroupAggSink *sink)
{
	Size		bytes = 0;

	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];

		bytes += (Size) (pc->nkeys + GPUSEL_FEED_CHUNK_ROWS) *
			(pc->key_bytes + (pc->groups != NULL ? sizeof(uint32) : 0));
	}
	return bytes >= (Size) work_mem * 1024;
}

/*
 * The consumer, between the rounds (its wanted buckets chosen): its reply
 * to each worker that sent groups, the masks of that worker's groups.
 */
void
GroupAggSinkWriteReplies(GroupAggSink *sink, GpuselFeed *feed)
{
	for (int p = 1; p < sink->nmaps; p++)
	{
		GroupAggPartialMap *map = &sink->maps[p];
		uint64	   *masks;

		if (map->ngroups == 0)
			continue;
		masks = (uint64 *) GpuselFeedReply(feed, p, reply_bytes(sink, map->ngroups));
		for (int c = 0; c < sink->ncollections; c++)
		{
			PercentileCollection *pc = &sink->collections[c];
			int			words = GroupAggNarrowMaskWords(pc);
			int64		masked = GroupAggNarrowCountedGroups(pc, map->ngroups);

			for (int64 g = 0; g < masked; g++)
			{
				if ((g & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
				GroupAggNarrowWantedMask(pc, map->groups[g], masks + g * words);
			}
			masks += (Size) words * masked;
		}
	}
}
