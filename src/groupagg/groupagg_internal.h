/*
 * groupagg_internal.h
 *	  The grouped scan's sink state, shared by its row side
 *	  (groupagg_exec.c: groups, cells, collections) and its result side
 *	  (groupagg_results.c: segments, final values, EXPLAIN).
 */
#ifndef GPUSEL_GROUPAGG_INTERNAL_H
#define GPUSEL_GROUPAGG_INTERNAL_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "storage/buffile.h"

#include "column_form.h"
#include "gpusel_cuda.h"
#include "gpusel_filter.h"
#include "groupagg.h"
#include "order_keys.h"
#include "percentile.h"
#include "scan_source.h"

/*
 * <integer column> <op> <constant>, or date_trunc(unit, <timestamp column>),
 * computed by block in C (groupagg_native.c).
 */
typedef struct GroupNativeExpr
{
	int			exprcol;		/* the column: index into the sink's expression columns */
	int			op;				/* gs_arith_op (+ - * / %) or GS_KEY_FLOOR */
	bool		is_int8;		/* int8 operands and result, else int4 */
	int64		constant;
} GroupNativeExpr;

/* A numeric expression computed natively (groupagg_numeric.c), and one row's value of it. */
typedef struct GroupNumericExpr GroupNumericExpr;
typedef struct GroupNumericValue
{
	int128		v;				/* the value times 10^scale */
	int			scale;
	bool		isnull;
	bool		nan;
	bool		native;			/* this row's value is here, not in the input's Datum */
} GroupNumericValue;


/* One expression read per row: a group key or an aggregate's input. */
typedef struct GroupInput
{
	Expr	   *expr;
	ExprState  *state;			/* NULL for a plain column */
	ExprState  *colstate;		/* an expression over native columns, for colslot */
	AttrNumber	attno;			/* a plain column: its number, else 0 */
	Oid			typid;
	bool		deviceable;		/* a type the scan reads natively */
	gs_coltype	coltype;
	int			column;			/* columnar input: its batch column, else -1 */
	const KeyType *keytype;		/* NULL: hashed by its Datum (bool, count's input) */
	GroupNativeExpr *native;	/* colstate's expression, computed natively by block */
	GroupNumericExpr *numexpr;	/* colstate's expression, computed natively per row */
	uint8		form;			/* a plain column read as int8 (GpuselColumnForm) */
	int16		form_arg;		/* its scale or char length */
} GroupInput;

/* One aggregate of the query. */
typedef struct GroupAggMethods GroupAggMethods;
typedef struct GroupAggDesc
{
	GroupAggKind kind;
	const GroupAggMethods *methods; /* its row of the aggregate table */
	int			input;			/* index into inputs; -1 for count(*) */
	Oid			input_type;
	int			collection;		/* percentiles: their key collection */
	Const	   *fraction;		/* percentiles: float8 or float8[] */
} GroupAggDesc;

/*
 * A percentile key of a numeric column wider than 18 digits past them
 * (groupagg_bigkeys.c): its group, its key and the value itself.
 */
typedef struct GroupBigKey
{
	int64		group;
	int64		key;			/* ordered, shared by values of like leading digits */
	Size		offset;			/* of the value's copy in the collection's arena (NaN: none) */
} GroupBigKey;

/*
 * Keys of one percentile ORDER BY input.  Rows append (group, key) pairs in
 * scan order.  Before the first result, on the host, a counting sort by
 * group makes one segment per group, which selection reads in place; on
 * the GPU, all pairs are sorted by group and key at once and only the keys
 * at the ranks the results read come back.
 */
typedef struct PercentileCollection
{
	int			input;
	bool		descending;
	Oid			typid;			/* of the keys: int8 for a numeric column's scaled values */
	int			numeric_scale;	/* results become numerics of this scale; -1: none */
	bool		big_keys;		/* a numeric column of more than 18 digits: values past them
								 * (and NaN) are kept in bigs */
	const KeptValueType *kept;	/* a type without keys: its values are the pairs' keys */
	GroupBigKey *bigs;
	int64		nbigs;
	int64		bigs_cap;
	bool		bigs_sorted;
	char	   *arena;			/* the kept values, each at a MAXALIGNed offset */
	Size		arena_used;
	Size		arena_cap;
	PercentileState *like;		/* type, order and key mapping; holds no keys */
	const KeyType *keytype;
	int			key_bytes;
	int64		nkeys;			/* pairs appended */
	int64		cap;
	uint32	   *groups;			/* per pair */
	char	   *keys;			/* per pair, key_bytes each */
	int64	   *counts;			/* per group: its keys; then its segment's start */
	int64	   *seg_end;		/* host segments laid out in the groups' order: each one's end */
	uint8	   *zeros;			/* per group: 1 = saw -0, 2 = saw +0 */
	/* held on the GPU while the scan runs (groupagg_device.c) */
	gs_pairs   *dev;			/* NULL: not (yet) */
	int64		shipped;		/* pairs copied to the device */
	int64		dev_keys;		/* pairs the device appended itself (groupagg_batch.c): not in keys */
	bool		dev_declined;	/* the GPU does not take them, or ran short */
	/* past work_mem, pairs the host appended wait in files (groupagg_spill.c) */
	struct SpillFiles *spill;
	int64		nspilled;
	char	   *segments;		/* the keys by group, after the counting sort */
	PickedKeys *picked;			/* or: the keys the results read, picked on the GPU */
	/* past work_mem over a source read twice: counted by bucket (groupagg_narrow.c) */
	struct GroupNarrow *narrow;
} PercentileCollection;

/* Running state of one aggregate in one group. */
typedef struct GroupCell
{
	int128		isum;			/* integer sums, exact; numeric sums' low half */
	int128		ihigh;			/* numeric sums' high half */
	double		fsum;			/* float sums; avg(float)'s sum(X) */
	double		sxx;			/* avg(float): float8_accum's Sxx */
	int64		count;			/* non-NULL inputs (all rows for count(*)) */
	uint64		key;			/* min/max: key of the value kept */
	Datum		value;			/* min/max: the value kept */
} GroupCell;

/* A slot of the one-key table: a key's bits and its group + 1 (0: empty). */
typedef struct GroupAggKeySlot
{
	uint64		bits;
	int64		group;
} GroupAggKeySlot;

/* Entries of the one-key group cache (a power of two). */
#define GROUPAGG_RECENT 256
/* keys up to this many find a block's known groups from their bits (GroupAggKnownGroups) */
#define GROUPAGG_BLOCK_KEYS 4

/* The consumer's group numbers of one worker's groups (groupagg_partial.c). */
typedef struct GroupAggPartialMap
{
	int64	   *groups;			/* by the worker's group number */
	int64		cap;
	int64		ngroups;		/* the worker's groups merged so far */
	/* per key numbered by a dictionary: the worker's numbers, as the consumer's */
	GpuselValueDictReader *dicts;
} GroupAggPartialMap;

struct GroupAggSink
{
	PlanState  *ps;
	MemoryContext cxt;			/* groups and cells; reset on rescan */
	int			nkeys;
	int			ninputs;
	GroupInput *inputs;			/* the keys first, then other inputs */
	int			naggs;
	GroupAggDesc *aggs;
	int			ncollections;
	PercentileCollection *collections;
	int64		ship_first_keys;	/* a collection's keys before its first copy to the GPU */
	bool		columnar;		/* every input a native column, or an expression of them */
	bool		count_only;		/* no GROUP BY, every aggregate count(*): rows need no reading */

	/* columns that expression inputs read, and the row they are read from */
	int			nexprcols;
	bool		has_colstates;	/* some input is evaluated per row on the columns */
	AttrNumber *exprcol_attnos;
	int		   *exprcol_columns;
	gs_coltype *exprcol_types;
	int16	   *exprcol_numeric_scale;	/* a numeric column's scale (scaled int8), else -1 */
	uint8	   *exprcol_forms;	/* how each travels (GpuselColumnForm) */
	int16	   *exprcol_form_args;
	TupleTableSlot *colslot;
	/*
	 * every expression input returns a pass-by-value type: a block of rows
	 * evaluates them first, into exprvalues/exprnulls (ninputs x KEYS_BLOCK),
	 * and then aggregates as the plain columns do
	 */
	bool		exprs_by_block;
	bool		exprs_need_row;	/* some such input is not native: the executor needs the row */
	Datum	   *exprvalues;
	bool	   *exprnulls;
	GroupNumericValue *numblock;	/* ninputs x KEYS_BLOCK: numeric expressions' values */

	/* groups, in the order of their first row */
	int64		ngroups;
	int64		capacity;
	uint64	   *hashes;
	uint64	   *keybits;		/* ngroups x nkeys */
	Datum	   *keyvalues;
	bool	   *keynulls;
	GroupCell  *cells;			/* ngroups x naggs */
	int64	   *buckets;		/* open addressing: group + 1, 0 when empty */
	uint64		bucket_mask;

	/*
	 * one non-NULL key of a key type: its bits and group side by side in an
	 * open-addressing table (Fibonacci hashing), so a lookup reads one slot
	 * instead of a bucket, a hash and the group's key; groups are still
	 * created through the general table above
	 */
	GroupAggKeySlot *keyslots;
	int			keyslot_shift;	/* 64 - log2(slots) */
	uint64		keyslot_mask;

	/* one key: the groups of recently seen keys, direct-mapped by the key's low bits */
	uint64		recent_bits[GROUPAGG_RECENT];
	int64		recent_group[GROUPAGG_RECENT];	/* -1: empty */

	/* rows into groups on the device (groupagg_batch.c) */
	int			device_groups;	/* 0: not decided yet; 1: it can; -1: it cannot */
	int			device_key_kind;	/* gs_key_kind of the collection's column */
	int			key_columns[GS_GROUP_MAX_KEYS];	/* the group keys' batch columns */
	gs_coltype	key_coltypes[GS_GROUP_MAX_KEYS];	/* and their types */
	gs_key_transform key_transforms[GS_GROUP_MAX_KEYS];	/* <column> <op> <constant> keys */
	bool		key_transformed;	/* some key is such an expression */
	int			device_wide_batches;	/* batches with more keys than the device sums for */
	gs_batch_groups *batch_groups;	/* its device tables, made at the first batch */
	/* sums over a device batch's rows on the device (groupagg_devsum.c) */
	int			device_sums;	/* whole batches: 0 not decided yet; 1 it can; -1 it cannot */
	int			sum_programs;	/* the programs below: 0 not made yet; 1 made; -1 some agg has none */
	int			nsums;
	gs_sum_expr *sum_exprs;		/* nsums programs */
	int		   *sum_scales;		/* the scale of each one's values */
	bool	   *sum_int;		/* each one sums an integer column (the greatest int8 reads as NaN) */
	int		   *sum_of_agg;		/* per aggregate: the program it adds, -1 none */
	gs_batch_sums *batch_sums;	/* its device buffers, made at the first batch */
	/* one row's inputs */
	GroupNumericValue *numvalues;	/* per input: a native numeric expression's value */
	Datum	   *values;
	bool	   *nulls;
	uint64	   *bits;

	int64		next_group;		/* next group to return */
	/* the plan's order of the groups (groupagg_order.c): none when norder is 0 */
	int			norder;
	struct GroupOrderItem *order_items;
	int64	   *group_order;	/* the groups in that order, made before the first */

	/*
	 * the source may be read twice (groupagg_narrow.c): set by the scan
	 * before its first row; second_pass while it reads them again
	 */
	bool		second_pass_allowed;
	bool		second_pass;

	/* under Gather, the consumer: each worker's group numbers, by worker */
	GroupAggPartialMap *maps;
	int			nmaps;

	/* EXPLAIN ANALYZE, over all (re)scans */
	int64		groups_total;
	int64		rows_aggregated;
	int64		rows_from_columns;	/* of them, read from a batch's columns */
	int64		rows_on_device;	/* of them, put into groups on the device */
	int64		rows_summed_on_device;	/* of them, summed on the device */
	int64		keys_spilled;	/* percentile keys written to temporary files */
	int64		second_passes;	/* scans that read their rows twice (groupagg_narrow.c) */
	int64		keys_kept;		/* percentile keys their second passes kept */
	int64		groups_whole;	/* groups whose keys they read whole, past those counted by bucket */
	Size		spill_bytes;	/* their bytes */
	Size		peak_memory;	/* the most the sink's context held, noted at spills */
};

/*
 * batches with more distinct keys than GS_GROUP_SUM_MAX_KEYS after which
 * the host groups the rest of a scan's rows, rather than finding each
 * batch's keys on the device first
 */
#define GROUPAGG_WIDE_BATCHES 2

/*
 * pairs a collection appends on the host between two copies to the device,
 * once it holds ship_first_keys (as many as the GPU takes) and started
 */
#define GROUPAGG_SHIP_KEYS (1 << 20)

/*
 * One aggregate's row of the table (groupagg_aggtable.c): its steps on a
 * group's cell, by row and by block of a batch column, across processes
 * and at the end.
 */
struct GroupAggMethods
{
	GroupAggKind kind;
	const char *name;
	bool		strict;			/* NULL for a group without a non-NULL input */
	int			flags;			/* GROUPAGG_MAY_FAIL ... (groupagg.h) */
	void		(*update) (GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell,
						   Datum v);
	void		(*update_block) (GroupAggSink *sink, const GroupAggDesc *desc, int a,
								 const int64 *groups, const void *values, gs_coltype coltype,
								 const uint8 *nl, const uint32 *rows, int64 start, int len);
	void		(*combine) (const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src);
	Datum		(*final) (GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell,
						  int64 g, bool *isnull);

	/*
	 * Whether a parallel worker's cells (or keys) over this input can go to
	 * the leader, so the plan may go under Gather; NULL: always.
	 */
	bool		(*crosses) (Expr *input);
};

/* groupagg_aggs.c */
extern bool GroupAggColumnForm(const Var *var, bool is_key, GpuselFormChoice *choice);

/* groupagg_aggtable.c */
extern const GroupAggMethods *GroupAggMethodsOf(GroupAggKind kind);

/* groupagg_order.c */
extern int64 *GroupAggOrderGroups(GroupAggSink *sink);
extern void GroupAggOrderExplain(GroupAggSink *sink, List *deparse_cxt, bool useprefix,
								 ExplainState *es);

/* groupagg_results.c */
extern Datum GroupAggPercentileFinal(GroupAggSink *sink, const GroupAggDesc *desc,
									 GroupCell *cell, int64 g, bool *isnull);

/* groupagg_device.c */
extern void GroupAggShipKeys(GroupAggSink *sink, PercentileCollection *pc);
extern bool GroupAggHoldPairs(GroupAggSink *sink, PercentileCollection *pc);
extern bool GroupAggShipMergedPairs(GroupAggSink *sink, PercentileCollection *pc,
									const char *keys, const uint32 *worker_groups,
									const int64 *map, int64 n);
extern void GroupAggDropDevicePairs(GroupAggSink *sink, PercentileCollection *pc,
									const char *errbuf);
extern bool GroupAggDevicePick(GroupAggSink *sink, PercentileCollection *pc,
							   const int64 *positions, int64 npositions, void *out);

/* Copies new percentile keys to the device once a step's worth has gathered. */
static inline void
GroupAggShipIfDue(GroupAggSink *sink)
{
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];

		if (pc->dev_declined)
			continue;
		if (pc->dev == NULL ? pc->nkeys >= sink->ship_first_keys :
			pc->nkeys - pc->shipped >= GROUPAGG_SHIP_KEYS)
			GroupAggShipKeys(sink, pc);
	}
}

/* groupagg_devsum.c */
extern bool GroupAggCountsCollectionKeys(GroupAggSink *sink, int a);
extern bool GroupAggDeviceSumPrograms(GroupAggSink *sink);
extern bool GroupAggMarkSumColumns(GroupAggSink *sink, uint8 *ship, int ncols);
extern bool GroupAggDeviceSumsExact(GroupAggSink *sink, const gs_sum_result *results);
extern void GroupAggAddDeviceSums(GroupAggSink *sink, int64 g, const gs_sum_result *results);

/* groupagg_spill.c */
extern uint64 GroupAggHeldKey(const PercentileCollection *pc, int64 i);
extern void GroupAggFreeHeldPairs(PercentileCollection *pc);
extern Size GroupAggPairBytes(GroupAggSink *sink, PercentileCollection *pc);
extern void GroupAggNoteMemory(GroupAggSink *sink);
extern bool GroupAggSpillDue(GroupAggSink *sink, PercentileCollection *pc);
extern void GroupAggSpillPairs(GroupAggSink *sink, PercentileCollection *pc);
extern void GroupAggSpillClose(PercentileCollection *pc);
extern void GroupAggSpillPick(GroupAggSink *sink, PercentileCollection *pc,
							  const int64 *positions, int64 npositions, void *out);

/* groupagg_narrow.c */
typedef struct GroupNarrow GroupNarrow;
extern bool GroupAggNarrowDue(GroupAggSink *sink, PercentileCollection *pc);
extern bool GroupAggSinkInputsReadTwice(GroupAggSink *sink);
extern void GroupAggNarrowStart(GroupAggSink *sink, PercentileCollection *pc);
extern void GroupAggNarrowCount(PercentileCollection *pc, const int64 *groups, const uint64 *keys,
								const bool *skip, int len);
extern int64 GroupAggNarrowChooseBuckets(GroupAggSink *sink, PercentileCollection *pc,
										 const int64 *total_start, int64 ngroups,
										 const int64 *positions, int64 npositions);
extern int	GroupAggNarrowKeep(PercentileCollection *pc, const int64 *groups, const uint64 *keys,
							   const bool *skip, int len, bool *keep);
extern void GroupAggNarrowPick(GroupAggSink *sink, PercentileCollection *pc);
extern void GroupAggNarrowReserve(GroupAggSink *sink, PercentileCollection *pc, int64 ngroups);
extern Size GroupAggNarrowRecordBytes(PercentileCollection *pc, int64 g);
extern int64 GroupAggNarrowRecordsEnd(PercentileCollection *pc, int64 g, int64 ngroups);
extern int	GroupAggNarrowMaskWords(PercentileCollection *pc);
extern int64 GroupAggNarrowCountedGroups(PercentileCollection *pc, int64 ngroups);
extern bool GroupAggNarrowPrefilters(GroupAggSink *sink);
extern void GroupAggNarrowAnyWanted(PercentileCollection *pc, const uint64 *keys, int len,
									bool *want);
extern void GroupAggNarrowWriteCounts(PercentileCollection *pc, int64 g, int64 *out);
extern void GroupAggNarrowMergeCounts(GroupAggSink *sink, PercentileCollection *pc, int64 g,
									  const int64 *counts);
extern void GroupAggNarrowWantedMask(PercentileCollection *pc, int64 g, uint64 *out);
extern void GroupAggNarrowChooseFromMasks(GroupAggSink *sink, PercentileCollection *pc,
										  const uint64 *masks, int64 n);

/* groupagg_numeric.c */
extern void GroupAggNumericAdd(GroupCell *cell, Datum value, MemoryContext cxt);
extern void GroupAggNumericExtreme(GroupCell *cell, Datum value, bool is_min, MemoryContext cxt);
extern void GroupAggNumericAddScaled(GroupCell *cell, int64 scaled, int scale);
extern void GroupAggNumericAddNative(GroupCell *cell, const GroupNumericValue *value);
extern void GroupAggNumericExprInit(GroupAggSink *sink, GroupInput *in);
extern void GroupAggNumericExprSetColumns(GroupAggSink *sink, GroupInput *in);
extern void GroupAggNumericExprBlock(GroupAggSink *sink, GroupInput *in, void *const *values,
									 uint8 *const *nulls, const uint8 *has_nulls,
									 const uint32 *rows, int64 start, int len,
									 GroupNumericValue *out);
extern bool GroupAggNumericDeviceSum(GroupAggSink *sink, GroupInput *in, gs_sum_expr *out,
									 int *scale);
extern void GroupAggNumericAddBatchSum(GroupCell *cell, int128 sum, int scale, int64 values,
									   int64 nans);
extern bool GroupAggNumericExprEval(GroupAggSink *sink, GroupInput *in, void *const *values,
									uint8 *const *nulls, const uint8 *has_nulls, int64 row,
									GroupNumericValue *out);
extern void GroupAggNumericMerge(GroupCell *dst, const GroupCell *src);
extern Datum GroupAggNumericSum(const GroupCell *cell);
extern Datum GroupAggNumericAvg(const GroupCell *cell);

/* groupagg_native.c */
extern void GroupAggNativeExprInit(GroupAggSink *sink, GroupInput *in);
extern int	GroupAggNativeExprBlock(GroupAggSink *sink, GroupInput *in, void *const *values,
									uint8 *const *nulls, const uint8 *has_nulls,
									const uint32 *rows, int64 start, int len,
									Datum *out, bool *outnulls);

/* groupagg_exec.c, for groupagg_partial.c */
extern int64 GroupAggFindGroup(GroupAggSink *sink);
extern void GroupAggReserveGroups(GroupAggSink *sink, int64 n);
extern void GroupAggKnownGroups(GroupAggSink *sink, const uint64 *bits, const bool *isnull,
								int len, int64 *groups);
extern int64 GroupAggLookupGroup(GroupAggSink *sink);

/* groupagg_exec.c */
extern void GroupAggGrowCollection(GroupAggSink *sink, PercentileCollection *pc);

/* groupagg_bigkeys.c (and GroupAggBigKeyScale in groupagg.h) */
extern int64 GroupAggBigKeyScaled(GroupAggSink *sink, PercentileCollection *pc, int64 g, Datum v);
extern Datum GroupAggNumericResult(PercentileCollection *pc, int64 g, int64 n, Datum fraction,
								   bool is_array, Datum result);

#endif							/* GPUSEL_GROUPAGG_INTERNAL_H */
