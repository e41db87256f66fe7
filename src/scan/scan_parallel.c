/*
 * scan_parallel.c
 *	  GpuSelScan under Gather: the parallel query callbacks of the grouped
 *	  scan, which set up the feed (parallel_feed.c) in the query's shared
 *	  memory, and the choice of each process's role.
 *
 * Every process of the parallel query runs the same grouped scan node.
 * The workers read, filter and group their share of the blocks and send
 * their groups through the feed, returning no rows; one process, the
 * consumer, merges them with its own share and returns the groups.  It is
 * the leader, the only process that may use the GPU.  With
 * parallel_leader_participation off the leader does not run the node, and
 * the first worker to start becomes the consumer on the CPU.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "executor/executor.h"
#include "storage/shm_toc.h"
#include "utils/rel.h"

#include "parallel_feed.h"
#include "scan_exec.h"

/*
 * Whether this scan's rows can go through the feed: a grouped scan whose
 * rows all reach the groups by their columns, read by the page reader,
 * and whose quals the CPU can evaluate on those columns.  Otherwise the
 * workers stay idle and the consumer reads the table alone.
 */
static bool
feed_usable(GpuselScanState *state)
{
	return state->group_mode && state->program != NULL && !state->has_host_quals &&
		state->sink_methods->columnar(state->sink) && !GpuselProgramHasUndecodableColumns(state->program) &&
		GpuselPagesUsable(state->rel, state->css.ss.ps.state->es_snapshot);
}

/* Bytes of the record a worker sends per group; 0 where workers send rows. */
static Size
partial_record_bytes(GpuselScanState *state)
{
	return state->sink != NULL ? state->sink_methods->partial_record_bytes(state->sink) : 0;
}

/* Whether workers that aggregate also send every key they collect. */
static bool
partial_sends_keys(GpuselScanState *state)
{
	return state->sink != NULL && state->sink_methods->partial_sends_keys(state->sink);
}

/* EstimateDSMCustomScan: the feed's chunks and the block allocator. */
static Size
scan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	GpuselScanState *state = (GpuselScanState *) node;

	if (state->program == NULL)
		return 0;
	return GpuselFeedEstimate(state->program, pcxt->nworkers, partial_record_bytes(state),
							  partial_sends_keys(state));
}

/* InitializeDSMCustomScan: lays out the feed; the leader attaches to it. */
static void
scan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuselScanState *state = (GpuselScanState *) node;
	GpuselFeedShared *shared;

	if (state->program == NULL)
		return;
	shared = GpuselFeedInitialize(coordinate, state->rel, state->program, pcxt->nworkers,
								  feed_usable(state), partial_record_bytes(state),
								  partial_sends_keys(state));
	state->feed = GpuselFeedAttach(shared, state->rel, node->ss.ps.state->es_snapshot,
								   state->program);
	/* set only now, while the parallel query's area is being laid out */
	state->feed->area = node->ss.ps.state->es_query_dsa;
	if (GpuselFeedEnabled(state->feed) && state->sink_methods != NULL &&
		state->sink_methods->prepare_rounds != NULL)
		(void) state->sink_methods->prepare_rounds(state, pcxt->nworkers);

	/*
	 * The consumer merges what the workers send and filters its own reads
	 * on the CPU; the GPU still selects large groups' percentiles.  Sending
	 * every row's columns to the leader for the device to filter was
	 * slower, with the grouping left to one process (docs/performance.md,
	 * "Parallel feeding").
	 */
	if (GpuselFeedEnabled(state->feed))
		state->use_gpu = false;
}

/*
 * Whether a worker that aggregates its own blocks filters them on the
 * device: only through the GPU service (the worker would otherwise pay
 * for a CUDA context of its own, and GpuselWantGpu said no), and only
 * where there is a device qual to run.
 */
static void
decide_worker_device(GpuselScanState *state)
{
	state->worker_device = state->use_gpu && GpuselFeedEnabled(state->feed) &&
		GpuselFeedWorkersAggregate(state->feed) && state->device_quals != NIL &&
		!GpuselFeedRoundsShared(state->feed);
	if (state->worker_device)
		state->batch_rows = Min(state->batch_rows, GPUSEL_WORKER_BATCH_ROWS);
	/* as in the leader: a worker that becomes the consumer merges on the CPU */
	if (GpuselFeedEnabled(state->feed))
		state->use_gpu = false;
}

/* ReInitializeDSMCustomScan: a rescan under Gather starts the feed over. */
static void
scan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuselScanState *state = (GpuselScanState *) node;

	if (state->feed != NULL)
		GpuselFeedReinitialize(state->feed->shared, state->rel);
}

/* InitializeWorkerCustomScan: a worker attaches to the leader's feed. */
static void
scan_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GpuselScanState *state = (GpuselScanState *) node;

	if (state->program == NULL)
		return;
	state->feed = GpuselFeedAttach((GpuselFeedShared *) coordinate, state->rel,
								   node->ss.ps.state->es_snapshot, state->program);
	state->feed->area = node->ss.ps.state->es_query_dsa;
	decide_worker_device(state);
}

/* ShutdownCustomScan: a consumer that stops early releases the producers. */
static void
scan_shutdown(CustomScanState *node)
{
	GpuselScanState *state = (GpuselScanState *) node;

	if (state->feed != NULL && state->feed_role == GPUSEL_FEED_CONSUMER)
	{
		GpuselFeedKeepDeviceTotals(state->feed);
		GpuselFeedStop(state->feed);
	}
}

/* Installs the parallel query callbacks into the node's methods. */
void
GpuselScanParallelMethods(CustomExecMethods *methods)
{
	methods->EstimateDSMCustomScan = scan_estimate_dsm;
	methods->InitializeDSMCustomScan = scan_initialize_dsm;
	methods->ReInitializeDSMCustomScan = scan_reinitialize_dsm;
	methods->InitializeWorkerCustomScan = scan_initialize_worker;
	methods->ShutdownCustomScan = scan_shutdown;
}

/*
 * Decides this process's role in the (re)scan, once: true when it is to
 * filter and group the rows; false after it has fed its part of the table
 * to the consumer.  A scan without a feed is its own consumer.
 */
bool
GpuselScanTakeRole(GpuselScanState *state)
{
	if (state->feed == NULL || state->feed_role == GPUSEL_FEED_CONSUMER)
		return true;
	if (state->feed_role == GPUSEL_FEED_PRODUCER)
		return false;
	if (GpuselFeedClaimConsumer(state->feed))
	{
		state->feed_role = GPUSEL_FEED_CONSUMER;
		return true;
	}
	state->feed_role = GPUSEL_FEED_PRODUCER;
	state->sink_methods->produce(state);
	return false;
}

/* Whether the consumer's rows come through the feed. */
bool
GpuselScanFeeding(GpuselScanState *state)
{
	return state->feed != NULL && state->feed_role == GPUSEL_FEED_CONSUMER &&
		GpuselFeedEnabled(state->feed);
}
