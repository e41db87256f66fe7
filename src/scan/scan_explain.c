/*
 * scan_explain.c
 *	  EXPLAIN output of GpuSelScan: its device and host quals and, with
 *	  ANALYZE, what the scan did.
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "device.h"
#include "guc.h"
#include "parallel_feed.h"
#include "scan_exec.h"

/* Shows a list of quals the way EXPLAIN shows a scan's Filter. */
static void
show_quals(const char *label, List *quals, CustomScanState *node,
		   List *ancestors, ExplainState *es)
{
	List	   *context;
	char	   *text;
	bool		useprefix = list_length(es->rtable) > 1 || es->verbose;

	if (quals == NIL)
		return;
	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	text = deparse_expression((Node *) make_ands_explicit(quals), context, useprefix, false);
	ExplainPropertyText(label, text, es);
}

/* The workers that filtered their blocks on the device, where any did. */
static void
show_workers_device(GpuselScanState *state, ExplainState *es)
{
	GpuselFeed *feed = state->feed;

	if (feed->device_producers == 0)
		return;
	ExplainPropertyInteger("Workers on Device", NULL, feed->device_producers, es);
	ExplainPropertyInteger("Rows Workers Sent to Device", NULL, feed->device_rows, es);
	ExplainPropertyFloat("Workers' Device Time", "ms", feed->device_ms, 3, es);
}

/* Shows a per-loop count of removed rows as EXPLAIN ANALYZE does. */
static void
show_removed(const char *label, double total, CustomScanState *node,
			 ExplainState *es)
{
	Instrumentation *instr = node->ss.ps.instrument;
	double		nloops = instr ? instr->nloops : 0;
	double		value = nloops > 0 ? total / nloops : 0;

	if (value > 0 || es->format != EXPLAIN_FORMAT_TEXT)
		ExplainPropertyFloat(label, NULL, value, 0, es);
}

/*
 * ExplainCustomScan: the device quals, the host quals and, with ANALYZE,
 * what the scan did.  Batches and rows are the same on every machine;
 * the device, bytes, time and CPU rechecks only with
 * gpusel.explain_device_details.
 */
void
GpuselScanExplain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuselScanState *state = (GpuselScanState *) node;

	if (state->group_mode)
	{
		ExplainPropertyText("Relation", RelationGetRelationName(state->rel), es);
		state->sink_methods->explain(state->sink,
							set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors),
							list_length(es->rtable) > 1 || es->verbose, es);
	}
	show_quals("Device Filter", state->device_quals, node, ancestors, es);
	if (es->analyze)
		show_removed("Rows Removed by Device Filter", state->removed_device, node, es);
	show_quals("Filter", state->host_quals, node, ancestors, es);
	if (es->analyze && state->host_quals != NIL)
		show_removed("Rows Removed by Filter", state->removed_host, node, es);
	if (!es->analyze)
	{
		GpuselSourceExplainPlan(RelationGetRelid(state->rel), es);
		return;
	}
	GpuselSourceExplain(state->source, es);
	if (gpusel_explain_device_details)
		ExplainPropertyText("Device", state->use_gpu ? "gpu" : "cpu", es);
	ExplainPropertyInteger("Batches", NULL, state->batches, es);
	ExplainPropertyInteger("Rows Scanned", NULL, state->rows_in, es);
	if (gpusel_explain_device_details && state->group_mode && state->feed != NULL &&
		state->feed_role == GPUSEL_FEED_CONSUMER)
	{
		ExplainPropertyInteger("Rows Read By Workers", NULL, state->feed->rows_taken, es);
		ExplainPropertyInteger("Chunks From Workers", NULL, state->feed->chunks_taken, es);
		show_workers_device(state, es);
	}
	if (state->group_mode && state->feed != NULL && state->feed_role == GPUSEL_FEED_CONSUMER)
	{
		/* the leader's own share; the workers read theirs the same way */
		GpuselSourceExplain(state->feed->cached, es);
	}
	if (gpusel_explain_device_details && state->group_mode && es->timing)
	{
		ExplainPropertyFloat("Rows To Groups Time", "ms", state->fill_ms, 3, es);
		if (state->second_pass_ms > 0)
			ExplainPropertyFloat("Second Pass Time", "ms", state->second_pass_ms, 3, es);
		ExplainPropertyFloat("Results Time", "ms", state->results_ms, 3, es);
	}
	if (gpusel_explain_device_details && state->use_gpu)
	{
		ExplainPropertyInteger("Bytes Moved", NULL, state->bytes_moved, es);
		ExplainPropertyFloat("Device Time", "ms", state->device_ms, 3, es);
		if (GpuselDeviceIsService())
			ExplainPropertyFloat("Service Wait Time", "ms", state->service_wait_ms, 3, es);
		ExplainPropertyInteger("CPU Rechecks", NULL, state->rechecks, es);
	}
}
