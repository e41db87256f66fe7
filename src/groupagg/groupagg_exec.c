/*
 * groupagg_exec.c
 *	  Executor side of GpuSelScan's aggregate sink (groupagg.h): rows that
 *	  passed the WHERE clause go into groups by hashing, each group keeps
 *	  one cell per aggregate and, for percentiles, its keys; results come
 *	  out one group at a time.
 *
 * Rows arrive in scan order, so every order-dependent result is the one a
 * PostgreSQL aggregate fed in scan order gives (a HashAggregate that does
 * not spill): float sums add in that order with float4pl/float8pl's
 * overflow rule, avg(float) follows float8_accum (Youngs-Cramer, with its
 * overflow rule), min and max keep the later of two equal values as
 * float8smaller and friends do, and a group's key is the first row's
 * value.  Integer sums are exact: int8 sums accumulate in 128 bits and
 * become numeric as sum(int8) does; avg of integers divides in numeric.
 * Percentiles collect (group, key) pairs (one collection per ORDER BY
 * input, shared by every fraction and by disc and cont), sort them into one
 * segment per group by counting, and select each group's ranks in its
 * segment with percentile.c: small groups by sorting a copy, large ones by
 * radix selection on the CPU or SampleSelect on the GPU, as gpusel.device
 * and gpusel.min_rows say.
 *
 * Groups, cells and keys live in the sink's memory context, in memory:
 * this scan does not spill to disk (README, limits).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "device.h"
#include "groupagg.h"
#include "guc.h"
#include "keys.h"
#include "percentile.h"
#include "qual_compile.h"
#include "scan_exec.h"

/* groups held before the first growth of the group arrays */
#define GROUPAGG_INITIAL_GROUPS	256

#include "groupagg_internal.h"

/* A 64-bit mixing step, so consecutive keys spread over the buckets. */
static inline uint64
mix64(uint64 h)
{
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/* Integer input as int64, by its type. */
static inline int64
int_input(Datum value, Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		default:
			return DatumGetInt64(value);
	}
}

/* Float input as float8, by its type. */
static inline double
float_input(Datum value, Oid typid)
{
	return typid == FLOAT4OID ? (double) DatumGetFloat4(value) : DatumGetFloat8(value);
}

/* Appends an input reading expr; returns its index. */
static int
new_input(GroupAggSink *sink, Expr *expr)
{
	GroupInput *in = &sink->inputs[sink->ninputs];

	in->expr = expr;
	in->typid = exprType((Node *) expr);
	in->deviceable = GpuselTypeIsDeviceable(in->typid, &in->coltype);
	in->keytype = KeyTypeLookup(in->typid);
	in->column = -1;
	if (IsA(expr, Var) && ((Var *) expr)->varattno > 0)
		in->attno = ((Var *) expr)->varattno;
	return sink->ninputs++;
}

/* The index of an input equal to expr (a key's or another aggregate's), or a new one. */
static int
find_or_add_input(GroupAggSink *sink, Expr *expr)
{
	for (int i = 0; i < sink->ninputs; i++)
		if (equal(sink->inputs[i].expr, expr))
			return i;
	return new_input(sink, expr);
}

/* Allocates the group arrays for 'capacity' groups, keeping the groups held. */
static void
grow_groups(GroupAggSink *sink, int64 capacity)
{
	MemoryContext old = MemoryContextSwitchTo(sink->cxt);
	int			nk = Max(sink->nkeys, 1);
	int			na = Max(sink->naggs, 1);

	if (sink->capacity == 0)
	{
		sink->hashes = palloc_extended(sizeof(uint64) * capacity, MCXT_ALLOC_HUGE);
		sink->keybits = palloc_extended(sizeof(uint64) * capacity * nk, MCXT_ALLOC_HUGE);
		sink->keyvalues = palloc_extended(sizeof(Datum) * capacity * nk, MCXT_ALLOC_HUGE);
		sink->keynulls = palloc_extended(sizeof(bool) * capacity * nk, MCXT_ALLOC_HUGE);
		sink->cells = palloc_extended(sizeof(GroupCell) * capacity * na,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		for (int c = 0; c < sink->ncollections; c++)
		{
			PercentileCollection *pc = &sink->collections[c];

			pc->counts = palloc_extended(sizeof(int64) * (capacity + 1),
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
			pc->zeros = palloc_extended(capacity, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		}
	}
	else
	{
		sink->hashes = repalloc_huge(sink->hashes, sizeof(uint64) * capacity);
		sink->keybits = repalloc_huge(sink->keybits, sizeof(uint64) * capacity * nk);
		sink->keyvalues = repalloc_huge(sink->keyvalues, sizeof(Datum) * capacity * nk);
		sink->keynulls = repalloc_huge(sink->keynulls, sizeof(bool) * capacity * nk);
		sink->cells = repalloc_huge(sink->cells, sizeof(GroupCell) * capacity * na);
		memset(sink->cells + sink->capacity * na, 0,
			   sizeof(GroupCell) * (capacity - sink->capacity) * na);
		for (int c = 0; c < sink->ncollections; c++)
		{
			PercentileCollection *pc = &sink->collections[c];

			pc->counts = repalloc_huge(pc->counts, sizeof(int64) * (capacity + 1));
			memset(pc->counts + sink->capacity + 1, 0,
				   sizeof(int64) * (capacity - sink->capacity));
			pc->zeros = repalloc_huge(pc->zeros, capacity);
			memset(pc->zeros + sink->capacity, 0, capacity - sink->capacity);
		}
	}
	sink->capacity = capacity;
	MemoryContextSwitchTo(old);
}

/* Whether the sink keeps the one-key table: one key, of a key type. */
static inline bool
uses_keyslots(GroupAggSink *sink)
{
	return sink->nkeys == 1 && sink->inputs[0].keytype != NULL;
}

/* The one-key table's first slot for a key's bits. */
static inline uint64
keyslot_of(GroupAggSink *sink, uint64 bits)
{
	return (bits * UINT64CONST(0x9e3779b97f4a7c15)) >> sink->keyslot_shift;
}

/* Enters a non-NULL key's group into the one-key table. */
static inline void
keyslot_insert(GroupAggSink *sink, uint64 bits, int64 g)
{
	uint64		i = keyslot_of(sink, bits);

	while (sink->keyslots[i].group != 0)
		i = (i + 1) & sink->keyslot_mask;
	sink->keyslots[i].bits = bits;
	sink->keyslots[i].group = g + 1;
}

/* Rebuilds the hash buckets for twice as many groups as the arrays hold. */
static void
rebuild_buckets(GroupAggSink *sink)
{
	uint64		nbuckets = 1;
	int			log2buckets = 0;

	while (nbuckets < (uint64) sink->capacity * 2)
	{
		nbuckets <<= 1;
		log2buckets++;
	}
	if (uses_keyslots(sink))
	{
		if (sink->keyslots != NULL)
			pfree(sink->keyslots);
		sink->keyslots = MemoryContextAllocExtended(sink->cxt,
													sizeof(GroupAggKeySlot) * nbuckets,
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		sink->keyslot_mask = nbuckets - 1;
		/* at least two slots (capacity >= 1): the shift stays below 64 */
		sink->keyslot_shift = 64 - log2buckets;
		for (int64 g = 0; g < sink->ngroups; g++)
			if (!sink->keynulls[g])
				keyslot_insert(sink, sink->keybits[g], g);
	}
	if (sink->buckets != NULL)
		pfree(sink->buckets);
	sink->buckets = MemoryContextAllocExtended(sink->cxt, sizeof(int64) * nbuckets,
											   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	sink->bucket_mask = nbuckets - 1;
	for (int64 g = 0; g < sink->ngroups; g++)
	{
		uint64		i = sink->hashes[g] & sink->bucket_mask;

		while (sink->buckets[i] != 0)
			i = (i + 1) & sink->bucket_mask;
		sink->buckets[i] = g + 1;
	}
}

/* Empties the sink: no groups, or the one group of a query without keys. */
static void
start_groups(GroupAggSink *sink)
{
	MemoryContextReset(sink->cxt);
	sink->capacity = 0;
	sink->ngroups = 0;
	sink->buckets = NULL;
	sink->keyslots = NULL;
	sink->next_group = 0;
	sink->maps = NULL;			/* they lived in the context just reset */
	sink->nmaps = 0;
	for (int i = 0; i < GROUPAGG_RECENT; i++)
		sink->recent_group[i] = -1;
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];

		pc->nkeys = 0;
		pc->cap = 0;
		pc->groups = NULL;
		pc->keys = NULL;
		pc->segments = NULL;
		pc->picked = NULL;
		pc->dev = NULL;			/* freed by the reset's callback */
		pc->shipped = 0;
		pc->dev_declined = false;
		pc->like = GpuselPercentileCreate(sink->cxt, pc->typid, pc->descending);
		pc->keytype = GpuselPercentileKeyType(pc->like);
		pc->key_bytes = pc->keytype->key_bytes;
	}
	grow_groups(sink, sink->nkeys == 0 ? 1 : GROUPAGG_INITIAL_GROUPS);
	if (sink->nkeys == 0)
		sink->ngroups = 1;		/* no GROUP BY: one row, even without input */
	else
		rebuild_buckets(sink);
}

/*
 * Notes the columns an expression input reads; false when it reads one
 * that is not of a native type (or the whole row), so it cannot be
 * evaluated over a batch's columns.
 */
static bool
add_expr_columns(GroupAggSink *sink, Expr *expr)
{
	List	   *vars = pull_var_clause((Node *) expr, 0);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *var = lfirst_node(Var, lc);
		gs_coltype	coltype;
		int			c;

		if (var->varattno <= 0 || !GpuselTypeIsDeviceable(var->vartype, &coltype))
			return false;
		for (c = 0; c < sink->nexprcols; c++)
			if (sink->exprcol_attnos[c] == var->varattno)
				break;
		if (c == sink->nexprcols)
		{
			sink->exprcol_attnos[c] = var->varattno;
			sink->exprcol_types[c] = coltype;
			sink->exprcol_columns[c] = -1;
			sink->nexprcols++;
		}
	}
	return true;
}

/*
 * Creates the sink for a grouped GpuSelScan: the first nkeys entries of
 * custom_scan_tlist are the keys, the next ones the aggregates; the
 * expressions read tuples of rel in a buffer heap slot.
 */
GroupAggSink *
GroupAggSinkCreate(PlanState *ps, List *custom_scan_tlist, int nkeys, Relation rel,
				   EState *estate)
{
	GroupAggSink *sink = palloc0(sizeof(GroupAggSink));
	int			max_inputs = list_length(custom_scan_tlist);
	int			i = 0;
	ListCell   *lc;

	sink->ps = ps;
	sink->cxt = AllocSetContextCreate(estate->es_query_cxt, "gpusel groups",
									  ALLOCSET_DEFAULT_SIZES);
	sink->nkeys = nkeys;
	sink->inputs = palloc0(sizeof(GroupInput) * max_inputs);
	sink->aggs = palloc0(sizeof(GroupAggDesc) * max_inputs);
	sink->collections = palloc0(sizeof(PercentileCollection) * max_inputs);

	/* keys take inputs 0..nkeys-1, in order */
	foreach(lc, custom_scan_tlist)
	{
		if (i++ >= nkeys)
			break;
		new_input(sink, lfirst_node(TargetEntry, lc)->expr);
	}

	i = 0;
	foreach(lc, custom_scan_tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		GroupAggDesc *desc;
		Aggref	   *agg;
		bool		descending;
		Expr	   *input;

		if (i++ < nkeys || tle->resjunk)
			continue;
		agg = castNode(Aggref, tle->expr);
		desc = &sink->aggs[sink->naggs++];
		if (!GpuselGroupAggClassify(agg, &desc->kind, &descending))
			elog(ERROR, "gpusel cannot compute aggregate %u in its grouped scan", agg->aggfnoid);
		desc->input = -1;
		desc->collection = -1;
		if (desc->kind == GROUPAGG_COUNT_STAR)
			continue;
		input = linitial_node(TargetEntry, agg->args)->expr;
		desc->input = find_or_add_input(sink, input);
		desc->input_type = sink->inputs[desc->input].typid;
		if (desc->kind == GROUPAGG_PERCENTILE_DISC || desc->kind == GROUPAGG_PERCENTILE_CONT)
		{
			int			c;

			desc->fraction = linitial_node(Const, agg->aggdirectargs);
			for (c = 0; c < sink->ncollections; c++)
				if (sink->collections[c].input == desc->input &&
					sink->collections[c].descending == descending)
					break;
			if (c == sink->ncollections)
			{
				sink->collections[c].input = desc->input;
				sink->collections[c].descending = descending;
				sink->collections[c].typid = desc->input_type;
				sink->ncollections++;
			}
			desc->collection = c;
		}
	}

	/*
	 * Expressions compile for the heap tuples the scan reads, and those
	 * over native columns also for a virtual row of a batch's columns.
	 */
	sink->columnar = true;
	sink->exprcol_attnos = palloc(sizeof(AttrNumber) * RelationGetDescr(rel)->natts);
	sink->exprcol_columns = palloc(sizeof(int) * RelationGetDescr(rel)->natts);
	sink->exprcol_types = palloc(sizeof(gs_coltype) * RelationGetDescr(rel)->natts);
	for (i = 0; i < sink->ninputs; i++)
	{
		GroupInput *in = &sink->inputs[i];

		if (in->attno != 0)
		{
			if (!in->deviceable)
				sink->columnar = false;
			continue;
		}
		in->state = GpuselInitExprForSlot(in->expr, false, ps, RelationGetDescr(rel),
										  &TTSOpsBufferHeapTuple);
		if (add_expr_columns(sink, in->expr))
		{
			in->colstate = GpuselInitExprForSlot(in->expr, false, ps, RelationGetDescr(rel),
												 &TTSOpsVirtual);
			sink->has_colstates = true;
		}
		else
			sink->columnar = false;
	}
	if (sink->nexprcols > 0)
	{
		sink->colslot = ExecInitExtraTupleSlot(estate, RelationGetDescr(rel), &TTSOpsVirtual);
		memset(sink->colslot->tts_isnull, true,
			   sizeof(bool) * RelationGetDescr(rel)->natts);
	}
	sink->exprs_by_block = sink->has_colstates;
	for (i = 0; i < sink->ninputs; i++)
		if (sink->inputs[i].colstate != NULL && !get_typbyval(sink->inputs[i].typid))
			sink->exprs_by_block = false;
	if (sink->exprs_by_block)
	{
		sink->exprvalues = palloc(sizeof(Datum) * sink->ninputs * KEYS_BLOCK);
		sink->exprnulls = palloc(sizeof(bool) * sink->ninputs * KEYS_BLOCK);
	}
	/* as many keys as the GPU takes (GpuselChooseGroupSort, GpuselWantGpu) */
	sink->ship_first_keys = Max(GPUSEL_SEGMENT_GPU_MIN_KEYS, gpusel_min_rows);
	sink->count_only = nkeys == 0 && sink->ncollections == 0;
	for (i = 0; i < sink->naggs; i++)
		if (sink->aggs[i].kind != GROUPAGG_COUNT_STAR)
			sink->count_only = false;
	sink->values = palloc(sizeof(Datum) * Max(sink->ninputs, 1));
	sink->nulls = palloc(sizeof(bool) * Max(sink->ninputs, 1));
	sink->bits = palloc(sizeof(uint64) * Max(sink->nkeys, 1));
	start_groups(sink);
	return sink;
}

/*
 * The columns a columnar batch must hold: every input's attribute and
 * type, at most 'max' of them (arrays of that size).  Returns their number;
 * 0, and no columnar input, when more are needed.
 */
int
GroupAggSinkPayload(GroupAggSink *sink, AttrNumber *attnos, gs_coltype *coltypes, int max)
{
	int			n = 0;
	int			needed = sink->nexprcols;

	for (int i = 0; i < sink->ninputs; i++)
		if (sink->inputs[i].attno != 0)
			needed++;
	if (needed > max)
		sink->columnar = false;
	if (!sink->columnar)
		return 0;
	for (int i = 0; i < sink->ninputs; i++)
	{
		if (sink->inputs[i].attno == 0)
			continue;
		attnos[n] = sink->inputs[i].attno;
		coltypes[n] = sink->inputs[i].coltype;
		n++;
	}
	for (int c = 0; c < sink->nexprcols; c++)
	{
		attnos[n] = sink->exprcol_attnos[c];
		coltypes[n] = sink->exprcol_types[c];
		n++;
	}
	return n;
}

/* Maps each input to its column of a batch holding the given attributes. */
void
GroupAggSinkSetColumns(GroupAggSink *sink, const AttrNumber *attnos, int ncols)
{
	for (int i = 0; i < sink->ninputs; i++)
	{
		sink->inputs[i].column = -1;
		if (sink->inputs[i].attno == 0)
			continue;
		for (int c = 0; c < ncols; c++)
			if (attnos[c] == sink->inputs[i].attno)
				sink->inputs[i].column = c;
		if (sink->inputs[i].column < 0)
			sink->columnar = false;
	}
	for (int e = 0; e < sink->nexprcols; e++)
	{
		sink->exprcol_columns[e] = -1;
		for (int c = 0; c < ncols; c++)
			if (attnos[c] == sink->exprcol_attnos[e])
				sink->exprcol_columns[e] = c;
		if (sink->exprcol_columns[e] < 0)
			sink->columnar = false;
	}
}

/* Whether batches can be added by their columns. */
bool
GroupAggSinkColumnar(GroupAggSink *sink)
{
	return sink->columnar;
}

/* Whether the sink counts rows and reads no column (count(*) alone). */
bool
GroupAggSinkCountOnly(GroupAggSink *sink)
{
	return sink->count_only;
}

static int64 find_group_hashed(GroupAggSink *sink);

/* The group of the current row's keys, created when new. */
int64
GroupAggFindGroup(GroupAggSink *sink)
{
	int			nk = sink->nkeys;
	int64		g;

	if (nk == 0)
		return 0;
	/* one key, seen lately: its group without hashing (few groups hit every time) */
	if (nk == 1 && !sink->nulls[0] && sink->inputs[0].keytype != NULL)
	{
		uint64		b = sink->inputs[0].keytype->to_key(sink->values[0]);
		int			slot = (int) (b & (GROUPAGG_RECENT - 1));

		uint64		i;

		if (sink->recent_group[slot] >= 0 && sink->recent_bits[slot] == b)
			return sink->recent_group[slot];
		for (i = keyslot_of(sink, b); sink->keyslots[i].group != 0;
			 i = (i + 1) & sink->keyslot_mask)
		{
			if (sink->keyslots[i].bits == b)
			{
				g = sink->keyslots[i].group - 1;
				sink->recent_bits[slot] = b;
				sink->recent_group[slot] = g;
				return g;
			}
		}
		g = find_group_hashed(sink);
		sink->recent_bits[slot] = b;
		sink->recent_group[slot] = g;
		return g;
	}
	return find_group_hashed(sink);
}

/* The group of the current row's keys through the hash table, created when new. */
static int64
find_group_hashed(GroupAggSink *sink)
{
	int			nk = sink->nkeys;
	uint64		h = UINT64CONST(0x9e3779b97f4a7c15);
	uint64		i;
	int64		g;

	for (int k = 0; k < nk; k++)
	{
		GroupInput *in = &sink->inputs[k];
		uint64		b;

		if (sink->nulls[k])
			b = 0;
		else if (in->keytype != NULL)
			b = in->keytype->to_key(sink->values[k]);	/* -0 = +0, one NaN */
		else
			b = (uint64) sink->values[k];
		sink->bits[k] = b;
		h = mix64(h ^ b ^ (sink->nulls[k] ? UINT64CONST(0x5851f42d4c957f2d) : 0));
	}

	for (i = h & sink->bucket_mask; sink->buckets[i] != 0; i = (i + 1) & sink->bucket_mask)
	{
		bool		same;

		g = sink->buckets[i] - 1;
		if (sink->hashes[g] != h)
			continue;
		same = true;
		for (int k = 0; k < nk && same; k++)
			same = sink->keynulls[g * nk + k] == sink->nulls[k] &&
				sink->keybits[g * nk + k] == sink->bits[k];
		if (same)
			return g;
	}

	/* a new group, keeping its first row's key values */
	g = sink->ngroups++;
	sink->buckets[i] = g + 1;
	sink->hashes[g] = h;
	for (int k = 0; k < nk; k++)
	{
		sink->keybits[g * nk + k] = sink->bits[k];
		sink->keyvalues[g * nk + k] = sink->nulls[k] ? (Datum) 0 : sink->values[k];
		sink->keynulls[g * nk + k] = sink->nulls[k];
	}
	if (sink->keyslots != NULL && !sink->nulls[0])
		keyslot_insert(sink, sink->bits[0], g);
	if (sink->ngroups == sink->capacity)
	{
		grow_groups(sink, sink->capacity * 2);
		rebuild_buckets(sink);
	}
	return g;
}

/* Doubles the room for a collection's (group, key) pairs. */
void
GroupAggGrowCollection(GroupAggSink *sink, PercentileCollection *pc)
{
	int64		cap = pc->cap == 0 ? 65536 : pc->cap * 2;

	/* without GROUP BY every key is group 0's: no group numbers are kept */
	if (pc->cap == 0)
	{
		if (sink->nkeys > 0)
			pc->groups = MemoryContextAllocExtended(sink->cxt, sizeof(uint32) * cap,
													MCXT_ALLOC_HUGE);
		pc->keys = MemoryContextAllocExtended(sink->cxt, (Size) pc->key_bytes * cap,
											  MCXT_ALLOC_HUGE);
	}
	else
	{
		if (sink->nkeys > 0)
			pc->groups = repalloc_huge(pc->groups, sizeof(uint32) * cap);
		pc->keys = repalloc_huge(pc->keys, (Size) pc->key_bytes * cap);
	}
	pc->cap = cap;
}

/* float8_accum's step: Youngs-Cramer, with its overflow rule. */
static inline void
accum_float(GroupCell *cell, double newval)
{
	double		n = (double) cell->count + 1.0;
	double		sx = cell->fsum + newval;
	double		sxx = cell->sxx;

	if (cell->count > 0)
	{
		double		tmp = newval * n - sx;

		sxx += tmp * tmp / (n * (double) cell->count);
		if (isinf(sx) || isinf(sxx))
		{
			if (!isinf(cell->fsum) && !isinf(newval))
				float_overflow_error();
			sxx = get_float8_nan();
		}
	}
	else if (isnan(newval) || isinf(newval))
		sxx = get_float8_nan();
	cell->count++;
	cell->fsum = sx;
	cell->sxx = sxx;
}

/* Adds one non-NULL input (none for count(*)) to an aggregate's cell. */
static inline void
update_cell(GroupAggSink *sink, GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	switch (desc->kind)
	{
		case GROUPAGG_COUNT_STAR:
		case GROUPAGG_COUNT:
			cell->count++;
			break;
		case GROUPAGG_SUM_INT:
		case GROUPAGG_SUM_INT8:
		case GROUPAGG_AVG_INT:
			cell->isum += int_input(v, desc->input_type);
			cell->count++;
			break;
		case GROUPAGG_SUM_FLOAT4:
			{
				float4		x = DatumGetFloat4(v);

				if (cell->count == 0)
					cell->fsum = x;
				else
				{
					float4		s = (float4) cell->fsum;
					float4		r = s + x;

					if (unlikely(isinf(r)) && !isinf(s) && !isinf(x))
						float_overflow_error();
					cell->fsum = r;
				}
				cell->count++;
				break;
			}
		case GROUPAGG_SUM_FLOAT8:
			{
				float8		x = DatumGetFloat8(v);

				if (cell->count == 0)
					cell->fsum = x;
				else
				{
					float8		r = cell->fsum + x;

					if (unlikely(isinf(r)) && !isinf(cell->fsum) && !isinf(x))
						float_overflow_error();
					cell->fsum = r;
				}
				cell->count++;
				break;
			}
		case GROUPAGG_AVG_FLOAT:
			accum_float(cell, float_input(v, desc->input_type));
			break;
		case GROUPAGG_MIN:
		case GROUPAGG_MAX:
			{
				uint64		key = sink->inputs[desc->input].keytype->to_key(v);

				/* of two equal values the later one is kept, as PostgreSQL does */
				if (cell->count == 0 ||
					(desc->kind == GROUPAGG_MIN ? key <= cell->key : key >= cell->key))
				{
					cell->key = key;
					cell->value = v;
				}
				cell->count++;
				break;
			}
		case GROUPAGG_PERCENTILE_DISC:
		case GROUPAGG_PERCENTILE_CONT:
			break;			/* collected below, once per collection */
	}
}

/* Appends one key of group g to a collection (room made by the caller). */
static inline void
append_pair(PercentileCollection *pc, int64 g, uint64 key)
{
	if (pc->groups != NULL)
		pc->groups[pc->nkeys] = (uint32) g;
	if (pc->key_bytes == 4)
		((uint32 *) pc->keys)[pc->nkeys] = (uint32) key;
	else
		((uint64 *) pc->keys)[pc->nkeys] = key;
	pc->nkeys++;
	pc->counts[g]++;
}

/* Adds the current row's percentile keys to its group's collections. */
static inline void
add_row_keys(GroupAggSink *sink, int64 g)
{
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];
		Datum		v = sink->values[pc->input];
		uint64		key;

		if (sink->nulls[pc->input])
			continue;
		if (unlikely(pc->nkeys == pc->cap))
			GroupAggGrowCollection(sink, pc);
		key = pc->keytype->to_key(v);
		if (unlikely(key == pc->keytype->zero_key) && pc->keytype->is_negative_zero != NULL)
			pc->zeros[g] |= pc->keytype->is_negative_zero(v) ? 1 : 2;
		append_pair(pc, g, key);
	}
}

/* Adds the current row (values and nulls filled) to its group. */
static void
add_row(GroupAggSink *sink)
{
	int64		g = GroupAggFindGroup(sink);
	GroupCell  *cells = &sink->cells[g * sink->naggs];

	sink->rows_aggregated++;
	for (int a = 0; a < sink->naggs; a++)
	{
		GroupAggDesc *desc = &sink->aggs[a];

		if (desc->input >= 0 && sink->nulls[desc->input])
			continue;			/* strict: NULL inputs are skipped */
		update_cell(sink, desc, &cells[a],
					desc->input >= 0 ? sink->values[desc->input] : (Datum) 0);
	}
	add_row_keys(sink, g);
}

/* Adds one row that passed the WHERE clause, read from a heap tuple slot. */
void
GroupAggSinkAddSlot(GroupAggSink *sink, TupleTableSlot *slot)
{
	ExprContext *econtext = sink->ps->ps_ExprContext;

	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < sink->ninputs; i++)
	{
		GroupInput *in = &sink->inputs[i];

		if (in->state == NULL)
			sink->values[i] = slot_getattr(slot, in->attno, &sink->nulls[i]);
		else
			sink->values[i] = ExecEvalExpr(in->state, econtext, &sink->nulls[i]);
	}
	add_row(sink);
	GroupAggShipIfDue(sink);
}

/* Loads input i, a plain column, from row 'row' of a batch into the current row. */
static inline void
load_column_input(GroupAggSink *sink, int i, void *const *values, uint8 *const *nulls,
				  const uint8 *has_nulls, int64 row)
{
	GroupInput *in = &sink->inputs[i];
	int			c = in->column;

	sink->nulls[i] = has_nulls[c] && nulls[c][row];
	sink->values[i] = sink->nulls[i] ? (Datum) 0 :
		GpuselLoadValue(values[c], row, in->coltype);
}

/* Stores a batch row's columns in colslot, for the expression inputs. */
static void
load_expr_columns(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
				  const uint8 *has_nulls, int64 row)
{
	TupleTableSlot *slot = sink->colslot;

	ExecClearTuple(slot);
	for (int e = 0; e < sink->nexprcols; e++)
	{
		int			c = sink->exprcol_columns[e];
		int			a = sink->exprcol_attnos[e] - 1;
		bool		isnull = has_nulls[c] && nulls[c][row];

		slot->tts_isnull[a] = isnull;
		slot->tts_values[a] = isnull ? (Datum) 0 :
			GpuselLoadValue(values[c], row, sink->exprcol_types[e]);
	}
	ExecStoreVirtualTuple(slot);
	sink->ps->ps_ExprContext->ecxt_scantuple = slot;
}

/*
 * Evaluates every expression input over len rows of a batch into
 * exprvalues/exprnulls (exprs_by_block: pass-by-value results, which
 * outlive the per-block reset of the expression context).
 */
static void
eval_exprs_by_block(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
					const uint8 *has_nulls, const uint32 *rows, int64 start, int len)
{
	ExprContext *econtext = sink->ps->ps_ExprContext;

	ResetExprContext(econtext);
	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;

		if (sink->nexprcols > 0)
			load_expr_columns(sink, values, nulls, has_nulls, row);
		for (int i = 0; i < sink->ninputs; i++)
		{
			GroupInput *in = &sink->inputs[i];

			if (in->colstate != NULL)
				sink->exprvalues[i * KEYS_BLOCK + j] =
					ExecEvalExpr(in->colstate, econtext, &sink->exprnulls[i * KEYS_BLOCK + j]);
		}
	}
}

/* Loads input i of block row j (batch row 'row') into the current row. */
static inline void
load_block_input(GroupAggSink *sink, int i, void *const *values, uint8 *const *nulls,
				 const uint8 *has_nulls, int64 row, int j)
{
	if (sink->inputs[i].colstate != NULL)
	{
		sink->nulls[i] = sink->exprnulls[i * KEYS_BLOCK + j];
		sink->values[i] = sink->exprvalues[i * KEYS_BLOCK + j];
	}
	else
		load_column_input(sink, i, values, nulls, has_nulls, row);
}

/* Adds a block's values of an expression input to one aggregate's cells. */
static void
add_expr_block_to_cells(GroupAggSink *sink, GroupAggDesc *desc, int a,
						const int64 *groups, int len)
{
	const Datum *vals = &sink->exprvalues[desc->input * KEYS_BLOCK];
	const bool *nls = &sink->exprnulls[desc->input * KEYS_BLOCK];

	for (int j = 0; j < len; j++)
		if (!nls[j])			/* strict: NULL inputs are skipped */
			update_cell(sink, desc, &sink->cells[groups[j] * sink->naggs + a], vals[j]);
}

/* Adds a block's values of an expression input to a collection. */
static void
add_expr_block_to_collection(GroupAggSink *sink, PercentileCollection *pc,
							 const int64 *groups, int len)
{
	const Datum *vals = &sink->exprvalues[pc->input * KEYS_BLOCK];
	const bool *nls = &sink->exprnulls[pc->input * KEYS_BLOCK];
	const KeyType *kt = pc->keytype;

	while (pc->nkeys + len > pc->cap)
		GroupAggGrowCollection(sink, pc);
	for (int j = 0; j < len; j++)
	{
		uint64		key;

		if (nls[j])
			continue;
		key = kt->to_key(vals[j]);
		if (unlikely(key == kt->zero_key) && kt->is_negative_zero != NULL)
			pc->zeros[groups[j]] |= kt->is_negative_zero(vals[j]) ? 1 : 2;
		append_pair(pc, groups[j], key);
	}
}

/*
 * Adds a batch's rows a block at a time when every input is a plain
 * column or an expression of them returning a pass-by-value type: the
 * block's expression inputs first, each row's group next, then each
 * aggregate in one loop over the block, then each collection's keys in one
 * loop (KeysOfColumn for a column).  Every aggregate still sees its
 * group's rows in scan order.
 */
static void
add_columns_by_block(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
					 const uint8 *has_nulls, const uint32 *positions, int64 nrows)
{
	int64		groups[KEYS_BLOCK];
	uint64		keys[KEYS_BLOCK];

	for (int64 start = 0; start < nrows; start += KEYS_BLOCK)
	{
		int			len = (int) Min(nrows - start, KEYS_BLOCK);
		const uint32 *rows = positions != NULL ? positions + start : NULL;
		int			naggs = sink->naggs;

		CHECK_FOR_INTERRUPTS();
		if (sink->has_colstates)
			eval_exprs_by_block(sink, values, nulls, has_nulls, rows, start, len);
		if (sink->nkeys == 0)
			memset(groups, 0, sizeof(int64) * len);
		else
			for (int j = 0; j < len; j++)
			{
				int64		row = rows != NULL ? (int64) rows[j] : start + j;

				for (int k = 0; k < sink->nkeys; k++)
					load_block_input(sink, k, values, nulls, has_nulls, row, j);
				groups[j] = GroupAggFindGroup(sink);
			}
		sink->rows_aggregated += len;

		/* the cells move as groups are added: read their address after */
		for (int a = 0; a < naggs; a++)
		{
			GroupAggDesc *desc = &sink->aggs[a];
			GroupCell  *cells = sink->cells;
			GroupInput *in;
			const uint8 *nl;

			if (desc->collection >= 0)
				continue;
			if (desc->input < 0)
			{
				for (int j = 0; j < len; j++)
					cells[groups[j] * naggs + a].count++;
				continue;
			}
			in = &sink->inputs[desc->input];
			if (in->colstate != NULL)
			{
				add_expr_block_to_cells(sink, desc, a, groups, len);
				continue;
			}
			nl = has_nulls[in->column] ? nulls[in->column] : NULL;
			for (int j = 0; j < len; j++)
			{
				int64		row = rows != NULL ? (int64) rows[j] : start + j;

				if (nl != NULL && nl[row])
					continue;	/* strict: NULL inputs are skipped */
				update_cell(sink, desc, &cells[groups[j] * naggs + a],
							GpuselLoadValue(values[in->column], row, in->coltype));
			}
		}

		for (int p = 0; p < sink->ncollections; p++)
		{
			PercentileCollection *pc = &sink->collections[p];
			GroupInput *in = &sink->inputs[pc->input];
			const KeyType *kt = pc->keytype;
			const uint8 *nl;
			bool		mapped;

			if (in->colstate != NULL)
			{
				add_expr_block_to_collection(sink, pc, groups, len);
				continue;
			}
			nl = has_nulls[in->column] ? nulls[in->column] : NULL;
			mapped = KeysOfColumn(in->coltype, kt->typid, values[in->column],
								  rows, start, len, keys);
			while (pc->nkeys + len > pc->cap)
				GroupAggGrowCollection(sink, pc);
			for (int j = 0; j < len; j++)
			{
				int64		row = rows != NULL ? (int64) rows[j] : start + j;
				uint64		key;

				if (nl != NULL && nl[row])
					continue;
				key = mapped ? keys[j] :
					kt->to_key(GpuselLoadValue(values[in->column], row, in->coltype));
				if (unlikely(key == kt->zero_key) && kt->is_negative_zero != NULL)
					pc->zeros[groups[j]] |=
						kt->is_negative_zero(GpuselLoadValue(values[in->column], row,
															 in->coltype)) ? 1 : 2;
				append_pair(pc, groups[j], key);
			}
		}
	}
	sink->rows_from_columns += nrows;
}

/*
 * Adds the rows of a batch held as columns (GroupAggSinkSetColumns): the
 * rows at 'positions', or the first nrows rows when positions is NULL.
 */
void
GroupAggSinkAddColumns(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
					   const uint8 *has_nulls, const uint32 *positions, int64 nrows)
{
	ExprContext *econtext = sink->ps->ps_ExprContext;

	if (sink->count_only)
	{
		/* count(*) alone: a batch's rows are counted whole, as the device passed them */
		for (int a = 0; a < sink->naggs; a++)
			sink->cells[a].count += nrows;
		sink->rows_aggregated += nrows;
		sink->rows_from_columns += nrows;
		return;
	}
	if (!sink->has_colstates || sink->exprs_by_block)
	{
		add_columns_by_block(sink, values, nulls, has_nulls, positions, nrows);
		GroupAggShipIfDue(sink);
		return;
	}
	for (int64 r = 0; r < nrows; r++)
	{
		int64		row = positions != NULL ? (int64) positions[r] : r;

		if ((r & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* what an expression input allocates lives for one row */
		if (sink->has_colstates)
			ResetExprContext(econtext);
		if (sink->nexprcols > 0)
			load_expr_columns(sink, values, nulls, has_nulls, row);
		for (int i = 0; i < sink->ninputs; i++)
		{
			GroupInput *in = &sink->inputs[i];

			if (in->colstate != NULL)
				sink->values[i] = ExecEvalExpr(in->colstate, econtext, &sink->nulls[i]);
			else
				load_column_input(sink, i, values, nulls, has_nulls, row);
		}
		add_row(sink);
	}
	sink->rows_from_columns += nrows;
	GroupAggShipIfDue(sink);
}

/* Forgets every group, for a rescan. */
void
GroupAggSinkReset(GroupAggSink *sink)
{
	start_groups(sink);
}
