/*
 * parallel_feed.h
 *	  Parallel feeding of a grouped GpuSelScan: PostgreSQL's parallel
 *	  workers read the table's pages and either aggregate them themselves
 *	  or copy their columns into chunks in the parallel query's shared
 *	  memory; one process, the consumer (the leader), takes the chunks and
 *	  merges or groups them.  A worker filters its blocks on the GPU only
 *	  through the GPU service, which owns the one CUDA context, so no query
 *	  pays a context per worker (docs/performance.md, "Parallel feeding").
 */
#ifndef GPUSEL_PARALLEL_FEED_H
#define GPUSEL_PARALLEL_FEED_H

#include "postgres.h"

#include "access/relscan.h"
#include "executor/tuptable.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "qual_compile.h"
#include "scan_pages.h"

/*
 * Tuning: rows per chunk at most and at least, chunks per worker, and the
 * most shared memory the chunks take (they shrink to stay under it when a
 * row has many columns or the query many workers).  The cap stays well
 * under the 64 MB a container gives /dev/shm by default, where the
 * parallel query's shared memory lives.  Where workers send only their
 * groups, the chunks take GPUSEL_FEED_GROUPS_MAX_BYTES at most.
 */
#define GPUSEL_FEED_CHUNK_ROWS		32768
#define GPUSEL_FEED_MIN_CHUNK_ROWS	1024
#define GPUSEL_FEED_CHUNKS_PER_WORKER 3
#define GPUSEL_FEED_MAX_BYTES		((Size) 32 * 1024 * 1024)
#define GPUSEL_FEED_GROUPS_MAX_BYTES ((Size) 2 * 1024 * 1024)

/*
 * A scan whose producers read their blocks twice (GpuselFeedEnableRounds):
 * the most producers it serves (workers and the leader), and the bytes of
 * what every process reads before the first round (GpuselFeedRoundSpace).
 */
#define GPUSEL_FEED_ROUND_PRODUCERS	65
#define GPUSEL_FEED_ROUND_BYTES		(64 * 1024)

typedef struct GpuselFeedShared GpuselFeedShared;

/*
 * A producer's filter: keeps the rows of a chunk that pass, moved to its
 * front in scan order, and returns how many.  Run in the workers when the
 * consumer filters on the CPU, so the filtering is parallel too.
 */
typedef int64 (*GpuselFeedFilter) (void *arg, GpuselStaging *staging, int64 nrows);


/* One process's side of the feed. */
typedef struct GpuselFeed
{
	GpuselSource source;		/* first: the consumer's source of chunks */
	GpuselSource own_source;	/* a producer's own blocks, for the device path */
	GpuselFeedShared *shared;
	GpuselPageReader *reader;	/* this process's part of the parallel scan */
	GpuselSource *cached;		/* the same part through the column cache, or NULL */
	struct dsa_area *area;		/* the parallel query's, for the consumer's replies; or NULL */
	bool		own_done;		/* this process's reader has no blocks left */
	int			lent;			/* chunk lent by GpuselFeedNext; -1 none */
	int			claimed;		/* chunk a producer writes records into; -1 none */
	GpuselStaging local;		/* the consumer's own reads for GpuselFeedNext */

	/* EXPLAIN ANALYZE, counted by the consumer */
	int64		chunks_taken;	/* chunks that workers filled */
	int64		rows_taken;		/* rows in those chunks */
	int64		rows_read_here; /* rows the consumer read itself */
	int			device_producers;	/* producers that filtered on the device */
	int64		device_rows;	/* rows they sent to it */
	double		device_ms;		/* their device time */
} GpuselFeed;

extern Size GpuselFeedEstimate(const GpuselProgram *prog, int nworkers,
							   Size partial_record_bytes, bool partial_sends_keys);
extern GpuselFeedShared *GpuselFeedInitialize(void *space, Relation rel,
											  const GpuselProgram *prog,
											  int nworkers, bool enabled,
											  Size partial_record_bytes,
											  bool partial_sends_keys);
extern void GpuselFeedReinitialize(GpuselFeedShared *shared, Relation rel);
extern GpuselFeed *GpuselFeedAttach(GpuselFeedShared *shared, Relation rel,
									Snapshot snapshot, const GpuselProgram *prog);
extern bool GpuselFeedEnabled(GpuselFeed *feed);
extern bool GpuselFeedClaimConsumer(GpuselFeed *feed);
extern void GpuselFeedProduce(GpuselFeed *feed, TupleTableSlot *slot,
							  GpuselFeedFilter filter, void *filter_arg);
extern GpuselSource *GpuselFeedSource(GpuselFeed *feed);
extern bool GpuselFeedNext(GpuselFeed *feed, GpuselChunk *batch, TupleTableSlot *slot);
extern bool GpuselFeedWorkersAggregate(GpuselFeed *feed);
extern bool GpuselFeedStartProducing(GpuselFeed *feed);
extern void GpuselFeedStopProducing(GpuselFeed *feed);
extern bool GpuselFeedReadOwn(GpuselFeed *feed, GpuselChunk *batch, TupleTableSlot *slot);
extern char *GpuselFeedClaimBuffer(GpuselFeed *feed, Size *bytes);
extern Size GpuselFeedChunkBytes(GpuselFeed *feed);
extern void GpuselFeedPublishBuffer(GpuselFeed *feed, GpuselChunkKind kind, int collection,
									int64 first, int64 nrecords, int64 nscanned,
									int64 naggregated);
extern GpuselSource *GpuselFeedOwnSource(GpuselFeed *feed, const GpuselProgram *prog);
extern bool GpuselFeedEnableRounds(GpuselFeed *feed, int nworkers);
extern bool GpuselFeedRoundsShared(GpuselFeed *feed);
extern bool GpuselFeedRounds(GpuselFeed *feed);
extern void *GpuselFeedRoundSpace(GpuselFeed *feed);
extern bool GpuselFeedAwaitSecondRound(GpuselFeed *feed, const char **reply, Size *bytes);
extern char *GpuselFeedReply(GpuselFeed *feed, int producer, Size bytes);
extern void GpuselFeedOpenSecondRound(GpuselFeed *feed);
extern void GpuselFeedFreeReplies(GpuselFeed *feed);
extern void GpuselFeedReplayOwn(GpuselFeed *feed);
extern void GpuselFeedReportDevice(GpuselFeed *feed, int64 rows, double device_ms);
extern void GpuselFeedKeepDeviceTotals(GpuselFeed *feed);
extern void GpuselFeedRescan(GpuselFeed *feed);
extern void GpuselFeedStop(GpuselFeed *feed);

#endif							/* GPUSEL_PARALLEL_FEED_H */
