/*
 * scan_sink.h
 *	  What a GpuSelScan feeds instead of returning its rows to the
 *	  executor: a sink that takes the rows passing the WHERE clause and
 *	  returns rows of its own (the grouped scan's groups, groupagg/).  The
 *	  scan calls a sink only through these methods, which the sink's module
 *	  registers when the library loads, so scan/ names no sink function.
 */
#ifndef GPUSEL_SCAN_SINK_H
#define GPUSEL_SCAN_SINK_H

#include "postgres.h"

#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

struct GpuselScanState;
struct GpuselProgram;

typedef struct GpuselSinkMethods
{
	/* the sink's state for the plan, made when the scan begins (EXPLAIN too) */
	void	   *(*create) (struct GpuselScanState *state, CustomScan *cscan, EState *estate);
	/* the device program is compiled: the sink picks the columns it reads */
	void		(*begin) (struct GpuselScanState *state, struct GpuselProgram *prog,
						  EState *estate);
	/* the device filter has just been made */
	void		(*filter_ready) (struct GpuselScanState *state);
	/* the sink's next row, or an empty slot after the last */
	TupleTableSlot *(*next) (struct GpuselScanState *state);
	/* a parallel worker's whole part: its rows into the feed */
	void		(*produce) (struct GpuselScanState *state);
	/* whether every row reaches the sink by its columns (so it may come through the feed) */
	bool		(*columnar) (void *sink);
	/* bytes of one record a worker sends the consumer */
	Size		(*partial_record_bytes) (void *sink);
	/* whether a worker that aggregates also sends every key it collects */
	bool		(*partial_sends_keys) (void *sink);
	/*
	 * the consumer, before the workers start: whether every process is to
	 * read its blocks twice (GpuselFeedEnableRounds), having readied what
	 * they share; NULL: never
	 */
	bool		(*prepare_rounds) (struct GpuselScanState *state, int nworkers);
	/* forgets every row, for a rescan */
	void		(*rescan) (void *sink);
	/* releases what outlives memory contexts (temporary files) */
	void		(*end) (void *sink);
	/* EXPLAIN lines of the sink */
	void		(*explain) (void *sink, List *deparse_cxt, bool useprefix, ExplainState *es);
} GpuselSinkMethods;

extern void GpuselRegisterGroupSink(const GpuselSinkMethods *methods);
extern const GpuselSinkMethods *GpuselGroupSink(void);

#endif							/* GPUSEL_SCAN_SINK_H */
