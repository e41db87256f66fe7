/*
 * parallel_feed.c
 *	  Chunks of table columns passed from parallel workers to the one
 *	  process that filters and groups them.
 *
 * The parallel query's shared memory holds PostgreSQL's block allocator
 * for the table and a ring of chunks.  A chunk holds either rows (the
 * scan's columns: values at their device width, a null byte per row and
 * column, the tuple's TID) or records of a worker's partial aggregate
 * (groupagg_partial.c).  A chunk is FREE, FILLING (a producer writes it),
 * READY (waiting, stamped with the order it was published in) or TAKEN
 * (lent to the consumer, which reads it in place).
 *
 * Producers are the workers: each draws blocks from the allocator and
 * reads them with the page reader (scan_pages.c), filters them, and either
 * aggregates them itself and sends its groups at the end, or sends the
 * rows that pass.  The consumer is one process, the leader unless
 * parallel_leader_participation is off: it takes READY chunks oldest
 * first, and when none is ready it reads blocks itself, so a query whose
 * workers did not start still reads the whole table.
 *
 * The scan is complete when the consumer's own reader found no block left
 * (every block has been handed to some process), no producer is filling
 * and no chunk is READY: a producer publishes its last chunk before it
 * stops counting itself.  A worker that starts after that finds no block
 * and fills nothing.  Errors and cancels need no protocol of their own:
 * waits go through condition variables, which check for interrupts, so a
 * worker's error reaches the leader and the leader's end stops the workers.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/wait_event.h"

#include "parallel_feed.h"

typedef enum FeedChunkState
{
	CHUNK_FREE,
	CHUNK_FILLING,
	CHUNK_READY,
	CHUNK_TAKEN
} FeedChunkState;

/* A chunk's header; its rows live in the data area after the headers. */
typedef struct FeedChunk
{
	FeedChunkState state;
	uint64		seq;			/* publication order: the consumer takes the oldest */
	GpuselChunkKind kind;
	int64		nrows;			/* rows, or records */
	int64		nscanned;		/* rows read, before a worker's filter */
	bool		filtered;
	int			producer;		/* records: ParallelWorkerNumber + 1 */
	int			collection;
	int64		first;
	int64		naggregated;
	uint8		has_nulls[GS_MAX_PROGRAM_LENGTH];
} FeedChunk;

/* The feed in the parallel query's shared memory. */
struct GpuselFeedShared
{
	slock_t		mutex;			/* protects the fields below up to pscan */
	ConditionVariable cv;		/* a chunk changed state or a producer stopped */
	bool		enabled;		/* the consumer reads the feed (else workers idle) */
	bool		workers_aggregate;	/* producers aggregate, then send their groups */
	uint64		next_seq;
	bool		leader_consumes;	/* parallel_leader_participation at start */
	bool		consumer_claimed;
	bool		stop;			/* the consumer is gone: producers stop */
	int			producers;		/* processes filling chunks now */
	int			device_producers;	/* producers that filtered on the device */
	int64		device_rows;	/* rows those producers sent to the device */
	double		device_ms;		/* their device time */

	/*
	 * Two rounds (GpuselFeedEnableRounds): every producer reads its blocks,
	 * sends what it found and waits; the consumer, once it has every
	 * record, replies to each; then every producer reads the same blocks
	 * again and sends what the reply asked for.
	 */
	bool		rounds;
	bool		first_round_closed; /* the consumer has every record of the first */
	bool		second_round_open;	/* its replies are published */
	int			waiting;		/* producers done with the first round, not yet replied to */
	dsa_pointer replies[GPUSEL_FEED_ROUND_PRODUCERS];	/* by producer number */
	Size		reply_bytes[GPUSEL_FEED_ROUND_PRODUCERS];
	uint64		round_space[GPUSEL_FEED_ROUND_BYTES / sizeof(uint64)];

	/* layout, fixed when the shared memory is set up */
	int			nchunks;
	int64		chunk_rows;
	int			ncols;
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
	gs_coltype	coltypes[GS_MAX_PROGRAM_LENGTH];
	Size		values_off[GS_MAX_PROGRAM_LENGTH];	/* within a chunk's data */
	Size		nulls_off[GS_MAX_PROGRAM_LENGTH];
	Size		tids_off;
	Size		chunk_bytes;
	Size		data_off;		/* from the start of this struct */

	ParallelBlockTableScanDescData pscan;
	FeedChunk	chunks[FLEXIBLE_ARRAY_MEMBER];
};

/* Bytes one row takes in a chunk. */
static Size
row_bytes(const GpuselProgram *prog)
{
	Size		bytes = sizeof(ItemPointerData);

	for (int c = 0; c < prog->ncols; c++)
		bytes += GpuselColumnWidth(prog->coltypes[c]) + 1;
	return bytes;
}

/* Chunks of the ring: a few per worker, and one the consumer may hold. */
static int
feed_nchunks(int nworkers)
{
	return GPUSEL_FEED_CHUNKS_PER_WORKER * Max(nworkers, 1) + 1;
}

/* Rows per chunk: as many as fit the ring's budget, within the limits. */
static int64
feed_chunk_rows(const GpuselProgram *prog, int nchunks, Size budget)
{
	int64		rows = budget / (nchunks * (row_bytes(prog) + 8 * (prog->ncols + 1)));

	rows = Min(rows, GPUSEL_FEED_CHUNK_ROWS);
	rows -= rows % GPUSEL_FEED_MIN_CHUNK_ROWS;
	return Max(rows, GPUSEL_FEED_MIN_CHUNK_ROWS);
}

/* Offset of the chunks' data area from the start of the shared struct. */
static Size
feed_data_off(int nchunks)
{
	return MAXALIGN(add_size(offsetof(GpuselFeedShared, chunks),
							 mul_size(sizeof(FeedChunk), nchunks)));
}

/* Bytes of one chunk's data, with its column offsets when 'shared' is given. */
static Size
feed_chunk_bytes(const GpuselProgram *prog, int64 rows, GpuselFeedShared *shared)
{
	Size		off = 0;

	for (int c = 0; c < prog->ncols; c++)
	{
		if (shared)
			shared->values_off[c] = off;
		off += MAXALIGN(rows * GpuselColumnWidth(prog->coltypes[c]));
		if (shared)
			shared->nulls_off[c] = off;
		off += MAXALIGN(rows);
	}
	if (shared)
		shared->tids_off = off;
	off += MAXALIGN(rows * sizeof(ItemPointerData));
	return off;
}

/*
 * The ring's bytes.  Where workers send only their groups, a small ring
 * carries them (a record must fit a chunk): PostgreSQL allocates every
 * byte of a parallel query's shared memory when it creates it, so a ring
 * sized for rows would cost each query milliseconds it does not use.
 */
static Size
feed_budget(const GpuselProgram *prog, int nchunks, Size partial_record_bytes,
			bool partial_sends_keys)
{
	if (partial_record_bytes > 0 && !partial_sends_keys &&
		partial_record_bytes <= feed_chunk_bytes(prog,
												 feed_chunk_rows(prog, nchunks,
																 GPUSEL_FEED_GROUPS_MAX_BYTES),
												 NULL))
		return GPUSEL_FEED_GROUPS_MAX_BYTES;
	return GPUSEL_FEED_MAX_BYTES;
}

/* Rows per chunk of the ring for what the workers send: Estimate's and Initialize's layout. */
static int64
feed_rows(const GpuselProgram *prog, int nchunks, Size partial_record_bytes,
		  bool partial_sends_keys)
{
	return feed_chunk_rows(prog, nchunks,
						   feed_budget(prog, nchunks, partial_record_bytes, partial_sends_keys));
}

/*
 * EstimateDSMCustomScan's part: the feed's shared memory for nworkers
 * workers, given what the workers send (as GpuselFeedInitialize).
 */
Size
GpuselFeedEstimate(const GpuselProgram *prog, int nworkers, Size partial_record_bytes,
				   bool partial_sends_keys)
{
	int			nchunks = feed_nchunks(nworkers);
	int64		rows = feed_rows(prog, nchunks, partial_record_bytes, partial_sends_keys);

	return add_size(feed_data_off(nchunks),
					mul_size(feed_chunk_bytes(prog, rows, NULL), nchunks));
}

/* Chunk i's staging: where its columns, null bytes and TIDs live. */
static void
chunk_staging(GpuselFeedShared *shared, int i, GpuselStaging *staging)
{
	char	   *data = (char *) shared + shared->data_off + shared->chunk_bytes * i;

	for (int c = 0; c < shared->ncols; c++)
	{
		staging->values[c] = data + shared->values_off[c];
		staging->nulls[c] = (uint8 *) (data + shared->nulls_off[c]);
	}
	staging->has_nulls = shared->chunks[i].has_nulls;
	staging->tids = (ItemPointerData *) (data + shared->tids_off);
}

/* Puts the chunks and the counters back to a fresh scan's state. */
static void
reset_shared(GpuselFeedShared *shared)
{
	shared->leader_consumes = parallel_leader_participation;
	shared->consumer_claimed = false;
	shared->stop = false;
	shared->producers = 0;
	shared->device_producers = 0;
	shared->device_rows = 0;
	shared->device_ms = 0;
	shared->next_seq = 0;
	shared->first_round_closed = false;
	shared->second_round_open = false;
	shared->waiting = 0;
	for (int i = 0; i < GPUSEL_FEED_ROUND_PRODUCERS; i++)
	{
		shared->replies[i] = InvalidDsaPointer;
		shared->reply_bytes[i] = 0;
	}
	for (int i = 0; i < shared->nchunks; i++)
	{
		shared->chunks[i].state = CHUNK_FREE;
		shared->chunks[i].nrows = 0;
	}
}

/*
 * InitializeDSMCustomScan's part: lays out the feed in 'space' (of
 * GpuselFeedEstimate's size) and the table's block allocator.  'enabled'
 * false leaves the workers idle: the consumer then reads the table alone.
 * Producers filter their rows; a nonzero 'partial_record_bytes' (a group's
 * record) has them also aggregate their rows themselves and send their
 * groups, where a record fits a chunk; 'partial_sends_keys' says they send
 * every key they collect too.
 */
GpuselFeedShared *
GpuselFeedInitialize(void *space, Relation rel, const GpuselProgram *prog, int nworkers,
					 bool enabled, Size partial_record_bytes, bool partial_sends_keys)
{
	GpuselFeedShared *shared = (GpuselFeedShared *) space;
	int			nchunks = feed_nchunks(nworkers);

	memset(shared, 0, offsetof(GpuselFeedShared, chunks));
	SpinLockInit(&shared->mutex);
	ConditionVariableInit(&shared->cv);
	shared->enabled = enabled;
	shared->nchunks = nchunks;
	shared->chunk_rows = feed_rows(prog, nchunks, partial_record_bytes, partial_sends_keys);
	shared->ncols = prog->ncols;
	memcpy(shared->attnos, prog->attnos, sizeof(AttrNumber) * prog->ncols);
	memcpy(shared->coltypes, prog->coltypes, sizeof(gs_coltype) * prog->ncols);
	shared->chunk_bytes = feed_chunk_bytes(prog, shared->chunk_rows, shared);
	shared->data_off = feed_data_off(nchunks);
	shared->workers_aggregate = partial_record_bytes > 0 &&
		partial_record_bytes <= shared->chunk_bytes;
	/*
	 * rows cross as their batch values only where those mean the same in
	 * every process (a number of a worker's dictionary does not); groups
	 * carry their dictionaries with them
	 */
	if (!shared->workers_aggregate)
		for (int c = 0; c < prog->ncols; c++)
			if (GpuselFormLookup(prog->form[c])->crosses != GPUSEL_CROSS_AS_IS)
				shared->enabled = false;
	table_block_parallelscan_initialize(rel, (ParallelTableScanDesc) &shared->pscan);
	reset_shared(shared);
	return shared;
}

/* ReInitializeDSMCustomScan's part: the feed and the allocator start over. */
void
GpuselFeedReinitialize(GpuselFeedShared *shared, Relation rel)
{
	table_block_parallelscan_reinitialize(rel, (ParallelTableScanDesc) &shared->pscan);
	reset_shared(shared);
}

/*
 * This process's side of the feed, with its own page reader over the
 * shared block allocator.  The program must name the columns the leader's
 * did: every process compiles the same plan.
 */
GpuselFeed *
GpuselFeedAttach(GpuselFeedShared *shared, Relation rel, Snapshot snapshot,
				 const GpuselProgram *prog)
{
	GpuselFeed *feed = palloc0(sizeof(GpuselFeed));

	if (prog->ncols != shared->ncols ||
		memcmp(prog->attnos, shared->attnos, sizeof(AttrNumber) * prog->ncols) != 0 ||
		memcmp(prog->coltypes, shared->coltypes, sizeof(gs_coltype) * prog->ncols) != 0)
		elog(ERROR, "gpusel parallel scan: a worker's columns differ from the leader's");
	feed->shared = shared;
	feed->lent = -1;
	feed->claimed = -1;
	if (shared->enabled && GpuselPagesUsable(rel, snapshot))
	{
		feed->reader = GpuselPagesBeginParallel(rel, snapshot, &shared->pscan);
		GpuselPagesSetColumns(feed->reader, prog);
		/* each process decides for itself: a block is read once, from one or the other */
		feed->cached = GpuselSourceFromProviderParallel(rel, snapshot, prog, &shared->pscan,
														 GPUSEL_FEED_CHUNK_ROWS);
	}
	return feed;
}

/* This process's next rows of its part of the table: from the cache where it has one. */
static int64
feed_fill(GpuselFeed *feed, GpuselStaging *staging, int64 max_rows, TupleTableSlot *slot)
{
	if (feed->cached != NULL)
		return GpuselSourceFill(feed->cached, staging, max_rows, slot);
	return GpuselPagesFill(feed->reader, staging, max_rows, slot);
}

/* This process's next rows of its own blocks; fewer than max_rows once they are all read. */
static int64
read_own_blocks(GpuselFeed *feed, GpuselStaging *staging, int64 max_rows, TupleTableSlot *slot)
{
	int64		n;

	if (feed->own_done)
		return 0;
	n = feed_fill(feed, staging, max_rows, slot);
	feed->own_done = n < max_rows;
	feed->rows_read_here += n;
	return n;
}

/* Whether rows flow through the feed in this scan. */
bool
GpuselFeedEnabled(GpuselFeed *feed)
{
	return feed->shared->enabled && feed->reader != NULL;
}

/*
 * Whether this process becomes the scan's consumer: the first to ask, but
 * a worker only when the leader does not run the plan itself.
 */
bool
GpuselFeedClaimConsumer(GpuselFeed *feed)
{
	GpuselFeedShared *shared = feed->shared;
	bool		claimed = false;

	SpinLockAcquire(&shared->mutex);
	if (!shared->consumer_claimed && (!IsParallelWorker() || !shared->leader_consumes))
	{
		shared->consumer_claimed = true;
		claimed = true;
	}
	SpinLockRelease(&shared->mutex);
	return claimed;
}

/*
 * A chunk in state 'from' (the one published first, so a worker's records
 * arrive in the order it sent them), moved to state 'to'; -1 when none is.
 */
static int
move_chunk(GpuselFeedShared *shared, FeedChunkState from, FeedChunkState to)
{
	int			found = -1;

	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < shared->nchunks; i++)
		if (shared->chunks[i].state == from &&
			(found < 0 || shared->chunks[i].seq < shared->chunks[found].seq))
			found = i;
	if (found >= 0)
		shared->chunks[found].state = to;
	SpinLockRelease(&shared->mutex);
	return found;
}

/* Sets chunk i's state and rows and wakes the processes waiting. */
static void
publish_chunk(GpuselFeedShared *shared, int i, FeedChunkState state, int64 nrows,
			  int64 nscanned, bool filtered)
{
	SpinLockAcquire(&shared->mutex);
	shared->chunks[i].state = state;
	shared->chunks[i].seq = shared->next_seq++;
	shared->chunks[i].kind = GPUSEL_CHUNK_ROWS;
	shared->chunks[i].nrows = nrows;
	shared->chunks[i].nscanned = nscanned;
	shared->chunks[i].filtered = filtered;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/*
 * Counts this process among the producers, before it draws a block, so
 * the consumer waits for what it reads.  False when the consumer is gone.
 */
static bool
start_producing(GpuselFeedShared *shared)
{
	bool		ok;

	SpinLockAcquire(&shared->mutex);
	/* a worker that starts after the first round has nothing to read in the second */
	ok = !shared->stop && !shared->first_round_closed;
	if (ok)
		shared->producers++;
	SpinLockRelease(&shared->mutex);
	return ok;
}

/* Counts this process out of the producers, after its last chunk. */
void
GpuselFeedStopProducing(GpuselFeed *feed)
{
	GpuselFeedShared *shared = feed->shared;

	SpinLockAcquire(&shared->mutex);
	shared->producers--;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/*
 * A producer's start; after true it must call GpuselFeedStopProducing at
 * its end.  False when the consumer is done already: it has every row (a
 * worker that starts late finds no block left), so this one has nothing
 * to do.
 */
bool
GpuselFeedStartProducing(GpuselFeed *feed)
{
	return GpuselFeedEnabled(feed) && start_producing(feed->shared);
}

/* Waits for a free chunk and makes it FILLING; -1 when the consumer is gone. */
static int
claim_free_chunk(GpuselFeedShared *shared)
{
	int			i;

	for (;;)
	{
		bool		stop;

		SpinLockAcquire(&shared->mutex);
		stop = shared->stop;
		SpinLockRelease(&shared->mutex);
		if (stop)
		{
			i = -1;
			break;
		}
		i = move_chunk(shared, CHUNK_FREE, CHUNK_FILLING);
		if (i >= 0)
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return i;
}

/* Whether producers aggregate their rows and send their groups. */
bool
GpuselFeedWorkersAggregate(GpuselFeed *feed)
{
	return GpuselFeedEnabled(feed) && feed->shared->workers_aggregate;
}

/*
 * This process's next rows of its own blocks, for a producer that
 * aggregates them itself or the consumer reading beside the workers:
 * cached rows lent in place, or up to GPUSEL_FEED_CHUNK_ROWS rows read
 * into the feed's local staging (never the ring's, whose chunks may be
 * small).  False when the allocator has no block left.
 */
bool
GpuselFeedReadOwn(GpuselFeed *feed, GpuselChunk *batch, TupleTableSlot *slot)
{
	GpuselFeedShared *shared = feed->shared;

	if (feed->own_done)
		return false;
	/* cached rows are lent where they lie, without a copy */
	if (feed->cached != NULL)
	{
		if (!GpuselSourceNextChunk(feed->cached, batch, slot))
		{
			feed->own_done = true;
			return false;
		}
		ExecClearTuple(slot);
		feed->rows_read_here += batch->nrows;
		return true;
	}
	if (feed->local.tids == NULL)
		GpuselStagingAlloc(&feed->local, shared->ncols, shared->coltypes, GPUSEL_FEED_CHUNK_ROWS);
	memset(feed->local.has_nulls, 0, Max(shared->ncols, 1));
	batch->kind = GPUSEL_CHUNK_ROWS;
	batch->staging = feed->local;
	batch->nrows = read_own_blocks(feed, &batch->staging, GPUSEL_FEED_CHUNK_ROWS, slot);
	ExecClearTuple(slot);
	batch->nscanned = batch->nrows;
	batch->filtered = false;
	return batch->nrows > 0;
}

/*
 * A free chunk's bytes for a producer's records; GpuselFeedPublishBuffer
 * sends them.  NULL when the consumer is done: it needs nothing more (it
 * finishes only once every producer has sent everything, or on an error).
 */
char *
GpuselFeedClaimBuffer(GpuselFeed *feed, Size *bytes)
{
	GpuselFeedShared *shared = feed->shared;
	int			i = claim_free_chunk(shared);

	if (i < 0)
		return NULL;
	feed->claimed = i;
	*bytes = shared->chunk_bytes;
	return (char *) shared + shared->data_off + shared->chunk_bytes * i;
}

/* Bytes a chunk holds. */
Size
GpuselFeedChunkBytes(GpuselFeed *feed)
{
	return feed->shared->chunk_bytes;
}

/* Sends the claimed chunk's records to the consumer. */
void
GpuselFeedPublishBuffer(GpuselFeed *feed, GpuselChunkKind kind, int collection, int64 first,
						int64 nrecords, int64 nscanned, int64 naggregated)
{
	GpuselFeedShared *shared = feed->shared;
	FeedChunk  *chunk = &shared->chunks[feed->claimed];

	SpinLockAcquire(&shared->mutex);
	chunk->state = CHUNK_READY;
	chunk->seq = shared->next_seq++;
	chunk->kind = kind;
	chunk->nrows = nrecords;
	chunk->nscanned = nscanned;
	chunk->filtered = true;
	chunk->producer = ParallelWorkerNumber + 1;
	chunk->collection = collection;
	chunk->first = first;
	chunk->naggregated = naggregated;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
	feed->claimed = -1;
}

/*
 * A worker's whole part of the scan: fills free chunks from its blocks
 * until the allocator has none left, or the consumer has gone; runs
 * 'filter' on each chunk when the consumer asked for it.
 */
void
GpuselFeedProduce(GpuselFeed *feed, TupleTableSlot *slot, GpuselFeedFilter filter,
				  void *filter_arg)
{
	GpuselFeedShared *shared = feed->shared;
	bool		filtered = filter != NULL;
	bool		done = false;

	if (!GpuselFeedEnabled(feed) || !start_producing(shared))
		return;
	while (!done)
	{
		GpuselStaging staging;
		int			i = claim_free_chunk(shared);
		int64		n;
		int64		kept;

		if (i < 0)
			break;
		chunk_staging(shared, i, &staging);
		memset(staging.has_nulls, 0, shared->ncols);
		n = feed_fill(feed, &staging, shared->chunk_rows, slot);
		ExecClearTuple(slot);
		done = n < shared->chunk_rows;
		kept = filtered && n > 0 ? filter(filter_arg, &staging, n) : n;
		publish_chunk(shared, i, n > 0 ? CHUNK_READY : CHUNK_FREE, kept, n, filtered);
	}
	GpuselFeedStopProducing(feed);
}

/*
 * Whether every row of the scan (or of its round) has reached the
 * consumer.  The first round closes with it, in the same critical
 * section, so no producer joins after the consumer found it complete.
 */
static bool
scan_complete(GpuselFeedShared *shared)
{
	bool		complete;

	SpinLockAcquire(&shared->mutex);
	complete = shared->producers == 0;
	for (int i = 0; complete && i < shared->nchunks; i++)
		if (shared->chunks[i].state == CHUNK_READY)
			complete = false;
	if (complete && shared->rounds)
		shared->first_round_closed = true;
	SpinLockRelease(&shared->mutex);
	return complete;
}

/* Gives back the chunk GpuselFeedNext lent, if any. */
static void
return_lent(GpuselFeed *feed)
{
	if (feed->lent >= 0)
		publish_chunk(feed->shared, feed->lent, CHUNK_FREE, 0, 0, false);
	feed->lent = -1;
}

/*
 * The consumer's next rows without copying them: a chunk a worker filled,
 * lent in place until the next call, or, when none is ready, a chunk's
 * worth read here into the feed's own staging.  False at the end of the
 * scan.
 */
bool
GpuselFeedNext(GpuselFeed *feed, GpuselChunk *batch, TupleTableSlot *slot)
{
	GpuselFeedShared *shared = feed->shared;
	bool		found = false;

	return_lent(feed);
	for (;;)
	{
		int			i = move_chunk(shared, CHUNK_READY, CHUNK_TAKEN);

		if (i >= 0)
		{
			FeedChunk  *chunk = &shared->chunks[i];

			feed->lent = i;
			batch->kind = chunk->kind;
			chunk_staging(shared, i, &batch->staging);
			batch->data = (char *) shared + shared->data_off + shared->chunk_bytes * i;
			batch->nrows = chunk->nrows;
			batch->nscanned = chunk->nscanned;
			batch->filtered = chunk->filtered;
			batch->producer = chunk->producer;
			batch->collection = chunk->collection;
			batch->first = chunk->first;
			batch->naggregated = chunk->naggregated;
			feed->chunks_taken++;
			feed->rows_taken += batch->nscanned;
			found = true;
			break;
		}
		if (!feed->own_done)
		{
			if (GpuselFeedReadOwn(feed, batch, slot))
			{
				found = true;
				break;
			}
			continue;
		}
		if (scan_complete(shared))
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return found;
}

/* ReScanCustomScan's part: this process's reader and chunk start over. */
void
GpuselFeedRescan(GpuselFeed *feed)
{
	feed->lent = -1;
	feed->own_done = false;
	if (feed->reader != NULL)
		GpuselPagesRescan(feed->reader);
	if (feed->cached != NULL)
		(void) GpuselSourceRescan(feed->cached);
}

/*
 * The consumer is done (its end, a rescan, an error): producers stop at
 * their next chunk instead of waiting for room that never comes.
 */
void
GpuselFeedStop(GpuselFeed *feed)
{
	GpuselFeedShared *shared = feed->shared;

	SpinLockAcquire(&shared->mutex);
	shared->stop = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/* The consumer's next chunk, as a source: the workers' or its own. */
static bool
feed_next_chunk(GpuselSource *source, GpuselChunk *chunk, TupleTableSlot *slot)
{
	return GpuselFeedNext((GpuselFeed *) source, chunk, slot);
}

/*
 * The feed's chunks are the consumer's for one (re)scan: a rescan decides
 * the processes' parts anew, so the scan opens the source again, and the
 * feed itself ends with the parallel scan (scan_parallel.c).
 */
static const GpuselSourceMethods feed_methods = {
	.name = "parallel workers",
	.next_slot = NULL,
	.fill = NULL,
	.next_chunk = feed_next_chunk,
	.rescan = NULL,
	.end = NULL,
};

/* The consumer's side of the feed as a source of chunks. */
GpuselSource *
GpuselFeedSource(GpuselFeed *feed)
{
	GpuselSourceInit(&feed->source, &feed_methods, NULL, 0);
	return &feed->source;
}

/* Reads this process's own blocks for GpuselFeedOwnSource's fill. */
static int64
feed_own_fill(GpuselSource *source, GpuselStaging *staging, int64 max_rows,
			  TupleTableSlot *slot)
{
	GpuselFeed *feed = (GpuselFeed *) ((char *) source - offsetof(GpuselFeed, own_source));

	return read_own_blocks(feed, staging, max_rows, slot);
}

/*
 * A producer's own blocks, filled straight into the caller's staging: the
 * device path's page-locked staging, so a worker's batches go to the GPU
 * service without a copy through the feed.  The reader belongs to the feed.
 */
static const GpuselSourceMethods feed_own_methods = {
	.name = "this worker's blocks",
	.next_slot = NULL,
	.fill = feed_own_fill,
	.next_chunk = NULL,
	.rescan = NULL,
	.end = NULL,
};

/* This producer's part of the table as a source that fills staging. */
GpuselSource *
GpuselFeedOwnSource(GpuselFeed *feed, const GpuselProgram *prog)
{
	GpuselSourceInit(&feed->own_source, &feed_own_methods, prog, 0);
	return &feed->own_source;
}

/*
 * The consumer, before the workers start: makes this scan one of two
 * rounds, where every process can read its blocks again (the column
 * cache) and the parallel query has a shared memory area for the replies.
 * False when it cannot; the scan then runs in one round.
 */
bool
GpuselFeedEnableRounds(GpuselFeed *feed, int nworkers)
{
	GpuselFeedShared *shared = feed->shared;

	if (feed->area == NULL || feed->cached == NULL || !GpuselSourceCanReplay(feed->cached) ||
		!GpuselFeedWorkersAggregate(feed) || nworkers + 1 > GPUSEL_FEED_ROUND_PRODUCERS)
		return false;
	shared->rounds = true;
	return true;
}

/* Whether the consumer made the scan one of two rounds. */
bool
GpuselFeedRoundsShared(GpuselFeed *feed)
{
	return feed->shared->rounds;
}

/*
 * Whether this process takes part in both rounds: it reads through the
 * column cache, which can read its blocks again.  A worker that cannot
 * must not produce at all.
 */
bool
GpuselFeedRounds(GpuselFeed *feed)
{
	return feed->shared->rounds && feed->cached != NULL && GpuselSourceCanReplay(feed->cached);
}

/* The GPUSEL_FEED_ROUND_BYTES the consumer writes before the workers start. */
void *
GpuselFeedRoundSpace(GpuselFeed *feed)
{
	return feed->shared->round_space;
}

/*
 * A producer after its first round's records: waits for the consumer's
 * reply to it (NULL and 0 bytes where it has none).  False when the
 * consumer is gone: the producer stops.  Its first round ends here and
 * its second begins, if any, counted among the producers again.
 */
bool
GpuselFeedAwaitSecondRound(GpuselFeed *feed, const char **reply, Size *bytes)
{
	GpuselFeedShared *shared = feed->shared;
	int			me = ParallelWorkerNumber + 1;
	bool		open = false;
	bool		stop = false;

	/* GpuselFeedEnableRounds bounds the workers */
	if (me >= GPUSEL_FEED_ROUND_PRODUCERS)
		elog(ERROR, "gpusel: producer %d of a scan in two rounds", me);
	SpinLockAcquire(&shared->mutex);
	shared->producers--;
	shared->waiting++;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
	for (;;)
	{
		SpinLockAcquire(&shared->mutex);
		open = shared->second_round_open;
		stop = shared->stop;
		SpinLockRelease(&shared->mutex);
		if (open || stop)
			break;
		ConditionVariableSleep(&shared->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	if (stop)
		return false;
	*bytes = shared->reply_bytes[me];
	*reply = DsaPointerIsValid(shared->replies[me]) ?
		dsa_get_address(feed->area, shared->replies[me]) : NULL;
	return true;
}

/*
 * The consumer, between the rounds: memory for its reply to a producer
 * (its number, ParallelWorkerNumber + 1), which the producer reads once
 * the second round opens.
 */
char *
GpuselFeedReply(GpuselFeed *feed, int producer, Size bytes)
{
	GpuselFeedShared *shared = feed->shared;
	dsa_pointer p;

	if (producer <= 0 || producer >= GPUSEL_FEED_ROUND_PRODUCERS || bytes == 0)
		elog(ERROR, "gpusel: a reply to producer %d of %zu bytes", producer, bytes);
	p = dsa_allocate_extended(feed->area, bytes, DSA_ALLOC_HUGE);
	shared->replies[producer] = p;
	shared->reply_bytes[producer] = bytes;
	return dsa_get_address(feed->area, p);
}

/*
 * The consumer, with its replies written: opens the second round.  The
 * producers waiting become producers again, and the consumer reads its
 * own blocks again.
 */
void
GpuselFeedOpenSecondRound(GpuselFeed *feed)
{
	GpuselFeedShared *shared = feed->shared;

	SpinLockAcquire(&shared->mutex);
	shared->producers += shared->waiting;
	shared->waiting = 0;
	shared->second_round_open = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
	GpuselFeedReplayOwn(feed);
}

/*
 * The consumer, once the second round is complete (every producer has
 * stopped, having copied its reply): frees the replies, so that rescans
 * of the same parallel query do not pile them up in its area.
 */
void
GpuselFeedFreeReplies(GpuselFeed *feed)
{
	GpuselFeedShared *shared = feed->shared;

	for (int p = 0; p < GPUSEL_FEED_ROUND_PRODUCERS; p++)
	{
		if (DsaPointerIsValid(shared->replies[p]))
			dsa_free(feed->area, shared->replies[p]);
		shared->replies[p] = InvalidDsaPointer;
		shared->reply_bytes[p] = 0;
	}
}

/* This process reads its blocks of the first round again. */
void
GpuselFeedReplayOwn(GpuselFeed *feed)
{
	if (feed->cached == NULL)
		elog(ERROR, "gpusel: a second round without the column cache");
	feed->own_done = false;
	GpuselSourceReplay(feed->cached);
}

/* A producer that filtered its blocks on the device reports its work. */
void
GpuselFeedReportDevice(GpuselFeed *feed, int64 rows, double device_ms)
{
	GpuselFeedShared *shared = feed->shared;

	SpinLockAcquire(&shared->mutex);
	shared->device_producers++;
	shared->device_rows += rows;
	shared->device_ms += device_ms;
	SpinLockRelease(&shared->mutex);
}

/*
 * Keeps what the producers did on the device for the consumer's EXPLAIN
 * ANALYZE, which runs after the parallel query's shared memory is gone.
 */
void
GpuselFeedKeepDeviceTotals(GpuselFeed *feed)
{
	GpuselFeedShared *shared = feed->shared;

	SpinLockAcquire(&shared->mutex);
	feed->device_producers = shared->device_producers;
	feed->device_rows = shared->device_rows;
	feed->device_ms = shared->device_ms;
	SpinLockRelease(&shared->mutex);
}
