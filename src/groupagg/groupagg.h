/*
 * groupagg.h
 *	  GpuSelScan's aggregate sink: SELECT <keys>, <aggregates> FROM <table>
 *	  [WHERE ...] GROUP BY <keys> [HAVING ...] answered whole by the scan.
 *
 * The planner side (groupagg_plan.c) recognises the query shape at the
 * grouping step and plans a GpuSelScan with no scan relation of its own
 * (scanrelid 0, GPUSEL_SCAN_GROUP).  Its custom_scan_tlist holds the group
 * keys, then the aggregates, then a junk ctid Var naming the relation; the
 * plan's targetlist and its qual (the HAVING clause) refer to those
 * entries.
 *
 * The executor side (groupagg_exec.c, with groupagg_results.c for the
 * results and groupagg_internal.h for the state they share) is a sink the
 * scan (groupagg_scan.c) feeds with the rows that pass the WHERE clause:
 * from a heap slot one row at a time, or from the columns of a batch (the
 * device filter's staging arrays, or a column buffer filled straight from
 * heap pages).  Rows go into groups by
 * hashing; each group keeps count/sum/avg/min/max cells and, for
 * percentiles, its keys; the results come out one group at a time.
 */
#ifndef GPUSEL_GROUPAGG_H
#define GPUSEL_GROUPAGG_H

#include "postgres.h"

#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"

#include "gpusel_filter.h"

/* What one aggregate computes; each has PostgreSQL's result type and rules. */
typedef enum GroupAggKind
{
	GROUPAGG_COUNT_STAR,		/* count(*) */
	GROUPAGG_COUNT,				/* count(x): non-NULL inputs */
	GROUPAGG_SUM_INT,			/* sum(int2|int4) -> int8 */
	GROUPAGG_SUM_INT8,			/* sum(int8) -> numeric, exact in 128 bits */
	GROUPAGG_SUM_FLOAT4,		/* sum(float4) -> float4 */
	GROUPAGG_SUM_FLOAT8,		/* sum(float8) -> float8 */
	GROUPAGG_AVG_INT,			/* avg(int2|int4|int8) -> numeric */
	GROUPAGG_AVG_FLOAT,			/* avg(float4|float8) -> float8 */
	GROUPAGG_SUM_NUMERIC,		/* sum(numeric), exact in 256 bits (groupagg_numeric.c) */
	GROUPAGG_AVG_NUMERIC,		/* avg(numeric), the same sum over the count */
	GROUPAGG_MIN,				/* min over a type with keys */
	GROUPAGG_MAX,				/* max over a type with keys */
	GROUPAGG_PERCENTILE_DISC,	/* gpu_percentile, float8 or float8[] fraction */
	GROUPAGG_PERCENTILE_CONT	/* gpu_percentile_cont over float8 */
} GroupAggKind;

/* What the planner and the device ask of an aggregate (groupagg_aggtable.c). */
#define GROUPAGG_MAY_FAIL		0x01	/* its steps may raise (float overflow) */
#define GROUPAGG_NUMERIC_SUM	0x02	/* sums numerics: native values and device sums */
#define GROUPAGG_COLLECTS_KEYS	0x04	/* a percentile: keys into a collection, no cell */

/*
 * Held percentile keys per group, on average, below which a collection
 * past work_mem spills rather than being read twice (groupagg_narrow.c):
 * with few buckets a group's ranks would keep most of its keys.  The
 * planner asks it too.
 */
#define GROUPAGG_NARROW_MIN_KEYS_PER_GROUP	128

/* Positions in CustomScan.custom_private after scan_plan.h's ones. */
#define GPUSEL_PRIV_GROUP_NKEYS		5	/* Integer: leading key entries of custom_scan_tlist */
#define GPUSEL_PRIV_GROUP_ORDER		6	/* List: the groups' order (groupagg_order.c), or NIL */

/* groupagg_aggs.c */
extern bool GpuselGroupAggClassify(Aggref *agg, GroupAggKind *kind, bool *descending);
extern bool GroupAggFractionsValid(Const *fraction);
extern Expr *GroupAggAggrefInput(Aggref *agg);
extern bool GroupAggInputColumnar(Expr *expr, bool is_key);
extern Size GroupAggGroupBytes(int nkeys, int naggs, int ncollections);

/* groupagg_aggtable.c */
extern bool GroupAggKindHas(GroupAggKind kind, int flag);
extern bool GroupAggKindCrosses(GroupAggKind kind, Expr *input);

/* groupagg_plan.c */
extern void GroupAggPlanInit(void);
extern void GpuselAddGroupAggPath(PlannerInfo *root, RelOptInfo *input_rel,
								  RelOptInfo *output_rel, void *extra);
extern bool GroupAggCollectAggrefs(List *keys, List *exprs, Node *having, List **aggs);

/* groupagg_numeric.c */
extern bool GroupAggNumericInputBounded(Expr *input);

/* groupagg_order.c: the planner's half */
extern List *GroupAggSortOrder(PlannerInfo *root, List *keys);

/* groupagg_estimate.c */
extern double GroupAggEstimateGroups(PlannerInfo *root, List *keys, double rows);

/* groupagg_native.c */
extern bool GroupAggNativeExprParse(Node *expr, Var **var, int *op, bool *is_int8,
									int64 *constant);
extern bool GroupAggDeviceKeyParse(Node *expr, Var **var, struct gs_key_transform *transform);

/* groupagg_bigkeys.c */
extern bool GroupAggBigKeyScale(Oid typid, int32 typmod, int *scale);

/* groupagg_scan.c */
extern void GroupAggScanInit(void);

/* groupagg_exec.c */
typedef struct GroupAggSink GroupAggSink;

extern GroupAggSink *GroupAggSinkCreate(PlanState *ps, List *custom_scan_tlist,
										int nkeys, Relation rel, EState *estate);
extern int	GroupAggSinkPayload(GroupAggSink *sink, AttrNumber *attnos,
								gs_coltype *coltypes, uint8 *forms, int16 *form_args,
								int max);
extern void GroupAggSinkSetColumns(GroupAggSink *sink, const AttrNumber *attnos,
								   const uint8 *forms, int ncols);
extern bool GroupAggSinkColumnar(GroupAggSink *sink);
extern bool GroupAggSinkCountOnly(GroupAggSink *sink);
extern void GroupAggSinkAllowSecondPass(GroupAggSink *sink, bool allowed);
extern bool GroupAggSinkSecondPassDue(GroupAggSink *sink);
extern void GroupAggSinkBeginSecondPass(GroupAggSink *sink);
extern void GroupAggSinkEndSecondPass(GroupAggSink *sink);

/* groupagg_partial.c: a worker's partial aggregate, sent to the consumer */
struct GpuselFeed;
struct GpuselChunk;
struct GpuselSource;
extern Size GroupAggSinkPartialRecordBytes(GroupAggSink *sink);
extern bool GroupAggSinkPartialSendsKeys(GroupAggSink *sink);
extern void GroupAggSinkSendPartial(GroupAggSink *sink, struct GpuselFeed *feed,
									int64 nscanned);
extern void GroupAggSinkMerge(GroupAggSink *sink, struct GpuselChunk *batch);
extern bool GroupAggSinkPartialIsDue(GroupAggSink *sink, struct GpuselFeed *feed);
extern bool GroupAggSinkRoundsEligible(GroupAggSink *sink, Size space_bytes);
extern bool GroupAggSinkPrepareRounds(GroupAggSink *sink, struct GpuselSource *source,
									  double groups, uint64 *space, Size space_bytes,
									  Size chunk_bytes);
extern void GroupAggSinkStartRounds(GroupAggSink *sink, const uint64 *space);
extern void GroupAggSinkSendFirstRound(GroupAggSink *sink, struct GpuselFeed *feed,
									   int64 nscanned);
extern void GroupAggSinkBeginWorkerSecondRound(GroupAggSink *sink, const char *reply,
											   Size bytes);
extern void GroupAggSinkSendKeptPairs(GroupAggSink *sink, struct GpuselFeed *feed);
extern bool GroupAggSinkKeptPairsDue(GroupAggSink *sink);
extern void GroupAggSinkWriteReplies(GroupAggSink *sink, struct GpuselFeed *feed);
extern void GroupAggSinkAddSlot(GroupAggSink *sink, TupleTableSlot *slot);
extern void GroupAggSinkAddColumns(GroupAggSink *sink, void *const *values,
								   uint8 *const *nulls, const uint8 *has_nulls,
								   const uint32 *positions, int64 nrows);
extern bool GroupAggSinkDeviceColumns(GroupAggSink *sink, uint8 *ship, int ncols);
extern void GroupAggSinkNoDeviceGroups(GroupAggSink *sink);
extern bool GroupAggSinkAddDeviceBatch(GroupAggSink *sink, struct gs_filter *filter, int slot,
									   int64 from, int64 max_rows);
extern bool GroupAggSinkDeviceSumColumns(GroupAggSink *sink, uint8 *ship, int ncols);
extern void GroupAggSinkNoDeviceSums(GroupAggSink *sink);
extern bool GroupAggSinkAddDeviceSums(GroupAggSink *sink, struct gs_filter *filter, int slot,
									  int64 from, int64 npositions);
extern bool GroupAggSinkNextGroup(GroupAggSink *sink, TupleTableSlot *scanslot);
extern void GroupAggSinkSetOrder(GroupAggSink *sink, List *order);
extern void GroupAggSinkReset(GroupAggSink *sink);
extern void GroupAggSinkEnd(GroupAggSink *sink);
extern void GroupAggSinkExplain(GroupAggSink *sink, List *deparse_cxt, bool useprefix,
								ExplainState *es);

#endif							/* GPUSEL_GROUPAGG_H */
