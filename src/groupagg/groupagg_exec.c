/*
 * groupagg_exec.c
 *	  Executor side of GpuSelScan's aggregate sink (groupagg.h): the sink's
 *	  inputs (group keys and aggregate inputs, as columns or expressions),
 *	  the columns a batch must carry for them, and the groups themselves,
 *	  found by hashing and created in the order of their first row.
 *	  groupagg_rows.c adds the rows, groupagg_results.c returns the groups.
 *
 * Integer sums are exact: int8 sums accumulate in 128 bits and become
 * numeric as sum(int8) does; avg of integers divides in numeric.
 * Percentiles collect (group, key) pairs, one collection per ORDER BY
 * input, shared by every fraction and by disc and cont.
 *
 * Groups and cells live in the sink's memory context; the planner offers
 * the scan only where their estimate fits hash_mem (groupagg_plan.c).
 * Percentile keys past work_mem spill to a temporary file
 * (groupagg_spill.c).
 */
#include "postgres.h"

#include "catalog/objectaccess.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/acl.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "device.h"
#include "groupagg.h"
#include "guc.h"
#include "order_keys.h"
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
	in->form = GPUSEL_FORM_PLAIN;
	in->form_arg = 0;
	if (IsA(expr, Var) && ((Var *) expr)->varattno > 0)
	{
		Var		   *var = (Var *) expr;
		GpuselFormChoice choice;

		/* a column of an encoded form groups take is keyed as its form says */
		if (GroupAggColumnForm(var, sink->ninputs < sink->nkeys, &choice))
		{
			const GpuselFormInfo *info = GpuselFormLookup(choice.form);

			in->form = choice.form;
			in->form_arg = (int16) choice.arg;
			/* a key numbered by a dictionary: one per key, for the query */
			if (info->dictionary)
				in->form_arg = (int16) GpuselValueDictOpen(MemoryContextGetParent(sink->cxt),
														   choice.arg);
			in->deviceable = true;
			in->coltype = choice.coltype;
			in->keytype = KeyTypeLookup(GpuselFormLookup(choice.form)->key_typid);
			in->attno = var->varattno;
		}
		else if (in->typid != NUMERICOID)
			in->attno = var->varattno;
	}
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

/* The group of a non-NULL key in the one-key table, or -1 when it has none there. */
static inline int64
keyslot_lookup(GroupAggSink *sink, uint64 bits)
{
	for (uint64 i = keyslot_of(sink, bits); sink->keyslots[i].group != 0;
		 i = (i + 1) & sink->keyslot_mask)
		if (sink->keyslots[i].bits == bits)
			return sink->keyslots[i].group - 1;
	return -1;
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

/*
 * Makes room for n more groups at once, where the caller knows how many
 * it is about to create (a device batch's new keys): one growth and one
 * rehash instead of one per doubling.
 */
void
GroupAggReserveGroups(GroupAggSink *sink, int64 n)
{
	int64		capacity = sink->capacity;

	if (capacity == 0 || sink->ngroups + n < capacity)
		return;
	while (capacity <= sink->ngroups + n)
		capacity *= 2;
	grow_groups(sink, capacity);
	rebuild_buckets(sink);
}

/* Empties the sink: no groups, or the one group of a query without keys. */
static void
start_groups(GroupAggSink *sink)
{
	GroupAggSinkEnd(sink);
	MemoryContextReset(sink->cxt);
	sink->capacity = 0;
	sink->ngroups = 0;
	sink->buckets = NULL;
	sink->keyslots = NULL;
	sink->second_pass = false;
	sink->batch_groups = NULL;	/* freed by the reset's callback */
	sink->batch_sums = NULL;	/* likewise */
	sink->next_group = 0;
	sink->group_order = NULL;	/* it lived in the context just reset */
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
		pc->seg_end = NULL;
		pc->picked = NULL;
		pc->narrow = NULL;
		pc->dev = NULL;			/* freed by the reset's callback */
		pc->shipped = 0;
		pc->dev_keys = 0;
		pc->dev_declined = false;
		pc->bigs = NULL;
		pc->nbigs = 0;
		pc->bigs_cap = 0;
		pc->bigs_sorted = false;
		pc->arena = NULL;
		pc->arena_used = 0;
		pc->arena_cap = 0;
		if (pc->kept != NULL)
		{
			/* values kept whole (kept_values.c): never on the device */
			pc->like = GpuselPercentileCreateForValues(sink->cxt, pc->typid, pc->descending);
			pc->keytype = NULL;
			pc->key_bytes = pc->kept->value_bytes;
			pc->dev_declined = true;
			continue;
		}
		pc->like = GpuselPercentileCreate(sink->cxt, pc->typid, pc->descending);
		pc->keytype = GpuselPercentileKeyType(pc->like);
		pc->key_bytes = pc->keytype->key_bytes;
	}
	for (int k = 0; k < sink->nkeys; k++)
		if (GpuselFormLookup(sink->inputs[k].form)->dictionary)
			GpuselValueDictReset(sink->inputs[k].form_arg);
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
		GpuselFormChoice choice;
		int			c;

		if (var->varattno <= 0 ||
			!GpuselChooseForm(var->vartype, var->vartypmod, var->varcollid, GPUSEL_USE_EXPR, 0,
							  &choice))
			return false;
		for (c = 0; c < sink->nexprcols; c++)
			if (sink->exprcol_attnos[c] == var->varattno)
				break;
		if (c == sink->nexprcols)
		{
			sink->exprcol_attnos[c] = var->varattno;
			sink->exprcol_types[c] = choice.coltype;
			sink->exprcol_forms[c] = (uint8) choice.form;
			sink->exprcol_form_args[c] = (int16) choice.arg;
			sink->exprcol_numeric_scale[c] =
				GpuselFormLookup(choice.form)->scaled_numeric ? (int16) choice.arg : -1;
			sink->exprcol_columns[c] = -1;
			sink->nexprcols++;
		}
	}
	return true;
}

/*
 * Whether input i is a numeric expression computed in C (numexpr) that no
 * key or percentile reads, and that only sum(numeric), avg(numeric) and
 * count(x) aggregate: a block of rows can then hold its values.
 */
static bool
numeric_input_blockable(GroupAggSink *sink, int i)
{
	if (sink->inputs[i].numexpr == NULL || i < sink->nkeys)
		return false;
	for (int c = 0; c < sink->ncollections; c++)
		if (sink->collections[c].input == i)
			return false;
	for (int a = 0; a < sink->naggs; a++)
	{
		GroupAggKind kind = sink->aggs[a].kind;

		if (sink->aggs[a].input == i && !GroupAggKindHas(kind, GROUPAGG_NUMERIC_SUM) &&
			kind != GROUPAGG_COUNT)
			return false;
	}
	return true;
}

/* Raises 42501 unless 'role' may execute a component function of an aggregate. */
static void
check_component_privilege(Oid funcid, Oid role)
{
	AclResult	aclresult;

	if (!OidIsValid(funcid))
		return;
	aclresult = pg_proc_aclcheck(funcid, role, ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(funcid));
	InvokeFunctionExecuteHook(funcid);
}

/*
 * Checks an aggregate's privileges where and as PostgreSQL's Agg node does
 * when its plan starts (EXPLAIN included): the user must be allowed to
 * execute the aggregate, and its owner its transition and final functions.
 * The scan computes the aggregate itself, so nothing else would check.
 */
static void
check_aggregate_privileges(Aggref *agg)
{
	HeapTuple	aggtuple;
	HeapTuple	proctuple;
	Form_pg_aggregate aggform;
	Oid			owner;
	AclResult	aclresult;

	aclresult = pg_proc_aclcheck(agg->aggfnoid, GetUserId(), ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_AGGREGATE, get_func_name(agg->aggfnoid));
	InvokeFunctionExecuteHook(agg->aggfnoid);

	aggtuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(aggtuple))
		elog(ERROR, "cache lookup failed for aggregate %u", agg->aggfnoid);
	aggform = (Form_pg_aggregate) GETSTRUCT(aggtuple);
	proctuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(proctuple))
		elog(ERROR, "cache lookup failed for function %u", agg->aggfnoid);
	owner = ((Form_pg_proc) GETSTRUCT(proctuple))->proowner;
	ReleaseSysCache(proctuple);
	check_component_privilege(aggform->aggtransfn, owner);
	check_component_privilege(aggform->aggfinalfn, owner);
	ReleaseSysCache(aggtuple);
}

/*
 * Compiles the expression of input i (a plain column needs none), for the
 * heap tuples the scan reads and, over native columns, for a virtual row
 * of a batch's columns.
 */
static void
init_input_state(GroupAggSink *sink, int i, PlanState *ps, Relation rel)
{
	GroupInput *in = &sink->inputs[i];

	if (in->attno != 0)
	{
		if (!in->deviceable)
			sink->columnar = false;
		return;
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
		Expr	   *expr = lfirst_node(TargetEntry, lc)->expr;

		if (i++ >= nkeys)
			break;
		(void) new_input(sink, expr);
	}

	/*
	 * In PostgreSQL's plan the keys are computed below the Agg node, whose
	 * start then checks the aggregates' privileges before compiling their
	 * inputs: the same order here decides which error a user sees first.
	 */
	sink->columnar = true;
	sink->exprcol_attnos = palloc(sizeof(AttrNumber) * RelationGetDescr(rel)->natts);
	sink->exprcol_columns = palloc(sizeof(int) * RelationGetDescr(rel)->natts);
	sink->exprcol_types = palloc(sizeof(gs_coltype) * RelationGetDescr(rel)->natts);
	sink->exprcol_numeric_scale = palloc(sizeof(int16) * RelationGetDescr(rel)->natts);
	sink->exprcol_forms = palloc(sizeof(uint8) * RelationGetDescr(rel)->natts);
	sink->exprcol_form_args = palloc(sizeof(int16) * RelationGetDescr(rel)->natts);
	for (i = 0; i < sink->nkeys; i++)
		init_input_state(sink, i, ps, rel);
	i = 0;
	foreach(lc, custom_scan_tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (i++ >= nkeys && !tle->resjunk)
			check_aggregate_privileges(castNode(Aggref, tle->expr));
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
		desc->methods = GroupAggMethodsOf(desc->kind);
		desc->input = -1;
		desc->collection = -1;
		if (desc->kind == GROUPAGG_COUNT_STAR)
			continue;
		input = linitial_node(TargetEntry, agg->args)->expr;
		desc->input = find_or_add_input(sink, input);
		desc->input_type = sink->inputs[desc->input].typid;
		if (desc->methods->flags & GROUPAGG_COLLECTS_KEYS)
		{
			int			c;
			int			scale;

			desc->fraction = linitial_node(Const, agg->aggdirectargs);
			for (c = 0; c < sink->ncollections; c++)
				if (sink->collections[c].input == desc->input &&
					sink->collections[c].descending == descending)
					break;
			if (c == sink->ncollections)
			{
				sink->collections[c].input = desc->input;
				sink->collections[c].descending = descending;
				sink->collections[c].numeric_scale =
					GpuselFormLookup(sink->inputs[desc->input].form)->scaled_numeric ?
					sink->inputs[desc->input].form_arg : -1;
				/* a wider numeric column: scaled where it fits (groupagg_bigkeys.c) */
				if (sink->collections[c].numeric_scale < 0 && IsA(input, Var) &&
					GroupAggBigKeyScale(exprType((Node *) input), exprTypmod((Node *) input),
										&scale))
				{
					sink->collections[c].numeric_scale = scale;
					sink->collections[c].big_keys = true;
				}
				sink->collections[c].typid = sink->collections[c].numeric_scale >= 0 ?
					INT8OID : desc->input_type;
				sink->collections[c].kept = KeptValueTypeLookup(sink->collections[c].typid);
				/* kept values are copied from the row's Datum, a row at a time */
				if (sink->collections[c].kept != NULL)
					sink->columnar = false;
				sink->ncollections++;
			}
			desc->collection = c;
		}
	}

	/* the aggregates' own inputs, after the keys */
	for (i = sink->nkeys; i < sink->ninputs; i++)
		init_input_state(sink, i, ps, rel);
	if (sink->nexprcols > 0)
	{
		sink->colslot = ExecInitExtraTupleSlot(estate, RelationGetDescr(rel), &TTSOpsVirtual);
		memset(sink->colslot->tts_isnull, true,
			   sizeof(bool) * RelationGetDescr(rel)->natts);
	}
	/* numeric expressions over numeric columns, computed in C per row */
	sink->numvalues = palloc0(sizeof(GroupNumericValue) * Max(sink->ninputs, 1));
	for (i = 0; i < sink->ninputs; i++)
		GroupAggNumericExprInit(sink, &sink->inputs[i]);
	/*
	 * A block of rows evaluates the expression inputs first when each
	 * returns a pass-by-value type, or is a numeric expression computed in
	 * C that only sums, averages or counts read (its values wait in
	 * numblock, not as Datums)
	 */
	sink->exprs_by_block = sink->has_colstates;
	for (i = 0; i < sink->ninputs; i++)
		if (sink->inputs[i].colstate != NULL && !get_typbyval(sink->inputs[i].typid) &&
			!numeric_input_blockable(sink, i))
			sink->exprs_by_block = false;
	if (sink->exprs_by_block)
	{
		sink->exprvalues = palloc(sizeof(Datum) * sink->ninputs * KEYS_BLOCK);
		sink->exprnulls = palloc(sizeof(bool) * sink->ninputs * KEYS_BLOCK);
		sink->numblock = palloc0(sizeof(GroupNumericValue) * sink->ninputs * KEYS_BLOCK);
		/* <integer column> <op> <constant> in C; the others through their ExprState */
		for (i = 0; i < sink->ninputs; i++)
		{
			GroupInput *in = &sink->inputs[i];

			if (in->colstate == NULL || in->numexpr != NULL)
				continue;
			GroupAggNativeExprInit(sink, in);
			if (in->native == NULL)
				sink->exprs_need_row = true;
		}
	}
	/* as many keys as the GPU takes (GPUSEL_SEGMENT_GPU_MIN_KEYS, GpuselWantGpu) */
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
 * type, and the form of its batch values (GpuselColumnForm), at most
 * 'max' of them (arrays of that size).  Returns their number; 0, and no
 * columnar input, when more are needed.
 */
int
GroupAggSinkPayload(GroupAggSink *sink, AttrNumber *attnos, gs_coltype *coltypes,
					uint8 *forms, int16 *form_args, int max)
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
		forms[n] = sink->inputs[i].form;
		form_args[n] = sink->inputs[i].form_arg;
		n++;
	}
	for (int c = 0; c < sink->nexprcols; c++)
	{
		attnos[n] = sink->exprcol_attnos[c];
		coltypes[n] = sink->exprcol_types[c];
		forms[n] = sink->exprcol_forms[c];
		form_args[n] = sink->exprcol_form_args[c];
		n++;
	}
	return n;
}

/*
 * Maps each input to its column of a batch holding the given attributes in
 * the given forms: an attribute may travel in more than one (a date
 * compared with a timestamptz travels as its midnight besides itself).
 */
void
GroupAggSinkSetColumns(GroupAggSink *sink, const AttrNumber *attnos, const uint8 *forms,
					   int ncols)
{
	for (int i = 0; i < sink->ninputs; i++)
	{
		sink->inputs[i].column = -1;
		if (sink->inputs[i].attno == 0)
			continue;
		for (int c = 0; c < ncols; c++)
			if (attnos[c] == sink->inputs[i].attno && forms[c] == sink->inputs[i].form)
				sink->inputs[i].column = c;
		if (sink->inputs[i].column < 0)
			sink->columnar = false;
	}
	for (int e = 0; e < sink->nexprcols; e++)
	{
		sink->exprcol_columns[e] = -1;
		for (int c = 0; c < ncols; c++)
			if (attnos[c] == sink->exprcol_attnos[e] && forms[c] == sink->exprcol_forms[e])
				sink->exprcol_columns[e] = c;
		if (sink->exprcol_columns[e] < 0)
			sink->columnar = false;
	}
	for (int i = 0; i < sink->ninputs; i++)
		GroupAggNumericExprSetColumns(sink, &sink->inputs[i]);
}

/*
 * Lets a collection past work_mem be counted by bucket and its rows read
 * again (groupagg_narrow.c) when the caller can read the same rows twice
 * cheaply: only when rows go in by block and no input is volatile, so both
 * passes give each row the same group and key.
 */
void
GroupAggSinkAllowSecondPass(GroupAggSink *sink, bool allowed)
{
	sink->second_pass_allowed = allowed && GroupAggSinkInputsReadTwice(sink);
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

/* Notes a one-key sink's group of key bits b in its recent-key cache. */
static inline void
note_recent_group(GroupAggSink *sink, uint64 b, int64 g)
{
	int			slot = (int) (b & (GROUPAGG_RECENT - 1));

	sink->recent_bits[slot] = b;
	sink->recent_group[slot] = g;
}

/*
 * A one-key sink's group of the non-NULL key bits b, from the recent-key
 * cache or the one-key table (noted in the cache), or -1 when it has none.
 */
static inline int64
known_group_of_key(GroupAggSink *sink, uint64 b)
{
	int			slot = (int) (b & (GROUPAGG_RECENT - 1));
	int64		g;

	if (sink->recent_group[slot] >= 0 && sink->recent_bits[slot] == b)
		return sink->recent_group[slot];
	g = sink->keyslots != NULL ? keyslot_lookup(sink, b) : -1;
	if (g >= 0)
		note_recent_group(sink, b, g);
	return g;
}
static inline int64 probe_key_bits(GroupAggSink *sink, const uint64 *bits, const bool *nulls,
								   uint64 *hash, uint64 *bucket);

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

		g = known_group_of_key(sink, b);
		if (g < 0)
		{
			g = find_group_hashed(sink);
			note_recent_group(sink, b, g);
		}
		return g;
	}
	return find_group_hashed(sink);
}

/*
 * The groups of a block's rows from their keys' bits (key k of row j at
 * [k * KEYS_BLOCK + j], as probe_groups computes them, 0 where NULL) and
 * NULL flags, where the keys already have a group; -1 where they are new
 * (or a lone key is NULL), for the caller to create in row order through
 * GroupAggFindGroup.  At most GROUPAGG_BLOCK_KEYS keys.
 */
void
GroupAggKnownGroups(GroupAggSink *sink, const uint64 *bits, const bool *isnull, int len,
					int64 *groups)
{
	int			nk = sink->nkeys;

	Assert(nk >= 1 && nk <= GROUPAGG_BLOCK_KEYS);
	if (sink->buckets == NULL)
	{
		memset(groups, -1, sizeof(int64) * len);
		return;
	}
	if (!uses_keyslots(sink))
	{
		for (int j = 0; j < len; j++)
		{
			uint64		b[GROUPAGG_BLOCK_KEYS];
			bool		n[GROUPAGG_BLOCK_KEYS];
			uint64		h;
			uint64		i;

			for (int k = 0; k < nk; k++)
			{
				b[k] = bits[k * KEYS_BLOCK + j];
				n[k] = isnull[k * KEYS_BLOCK + j];
			}
			groups[j] = probe_key_bits(sink, b, n, &h, &i);
		}
		return;
	}
	for (int j = 0; j < len; j++)
		groups[j] = isnull[j] ? -1 : known_group_of_key(sink, bits[j]);
}

/*
 * The group of keys given by their bits (a NULL key's bits 0) and NULL
 * flags in the hash table, or -1 with *hash and *bucket where a new group
 * goes.
 */
static inline int64
probe_key_bits(GroupAggSink *sink, const uint64 *bits, const bool *nulls, uint64 *hash,
			   uint64 *bucket)
{
	int			nk = sink->nkeys;
	uint64		h = UINT64CONST(0x9e3779b97f4a7c15);
	uint64		i;

	for (int k = 0; k < nk; k++)
		h = mix64(h ^ bits[k] ^ (nulls[k] ? UINT64CONST(0x5851f42d4c957f2d) : 0));

	for (i = h & sink->bucket_mask; sink->buckets[i] != 0; i = (i + 1) & sink->bucket_mask)
	{
		int64		g = sink->buckets[i] - 1;
		bool		same;

		if (sink->hashes[g] != h)
			continue;
		same = true;
		for (int k = 0; k < nk && same; k++)
			same = sink->keynulls[g * nk + k] == nulls[k] &&
				sink->keybits[g * nk + k] == bits[k];
		if (same)
			return g;
	}
	*hash = h;
	*bucket = i;
	return -1;
}

/*
 * The group of the current row's keys in the hash table, or -1 with *hash
 * and *bucket where a new group goes; sink->bits gets the keys' bits.
 */
static int64
probe_groups(GroupAggSink *sink, uint64 *hash, uint64 *bucket)
{
	for (int k = 0; k < sink->nkeys; k++)
	{
		GroupInput *in = &sink->inputs[k];

		if (sink->nulls[k])
			sink->bits[k] = 0;
		else if (in->keytype != NULL)
			sink->bits[k] = in->keytype->to_key(sink->values[k]);	/* -0 = +0, one NaN */
		else
			sink->bits[k] = (uint64) sink->values[k];
	}
	return probe_key_bits(sink, sink->bits, sink->nulls, hash, bucket);
}

/* The group of the current row's keys, or -1 when it has none yet (nothing is created). */
int64
GroupAggLookupGroup(GroupAggSink *sink)
{
	uint64		h;
	uint64		i;

	if (sink->nkeys == 0)
		return 0;
	if (sink->nkeys == 1 && !sink->nulls[0] && sink->inputs[0].keytype != NULL)
	{
		int64		g = keyslot_lookup(sink, sink->inputs[0].keytype->to_key(sink->values[0]));

		if (g >= 0)
			return g;
	}
	return probe_groups(sink, &h, &i);
}

/* The group of the current row's keys through the hash table, created when new. */
static int64
find_group_hashed(GroupAggSink *sink)
{
	int			nk = sink->nkeys;
	uint64		h;
	uint64		i;
	int64		g;

	g = probe_groups(sink, &h, &i);
	if (g >= 0)
		return g;

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

/*
 * Doubles the room for a collection's (group, key) pairs, or, where that
 * would pass work_mem, empties it by spilling its pairs (groupagg_spill.c).
 */
void
GroupAggGrowCollection(GroupAggSink *sink, PercentileCollection *pc)
{
	/* the first arrays: 65536 pairs, fewer (not below 1024) where work_mem is smaller */
	int64		first = Max(1024, Min(65536, (int64) work_mem * 1024 /
									  (int64) GroupAggPairBytes(sink, pc)));
	int64		cap = pc->cap == 0 ? first : pc->cap * 2;

	if (pc->narrow != NULL && !sink->second_pass)
		elog(ERROR, "gpusel: a percentile counted by bucket was given keys to hold");
	if (GroupAggSpillDue(sink, pc) && GroupAggNarrowDue(sink, pc))
	{
		/* the source is read again: count by bucket now, keep what the ranks need then */
		GroupAggNarrowStart(sink, pc);
		return;
	}
	if (GroupAggSpillDue(sink, pc))
	{
		/* the device's copy stays whole: everything spilled is shipped first */
		if (pc->dev != NULL && pc->shipped < pc->nkeys)
			GroupAggShipKeys(sink, pc);
		if (pc->dev == NULL)
			pc->dev_declined = true;	/* it would miss the spilled pairs */
		GroupAggSpillPairs(sink, pc);
		/* arrays the device's pairs came back into may be far past work_mem */
		if (pc->cap > first &&
			(Size) pc->cap * GroupAggPairBytes(sink, pc) > (Size) work_mem * 1024)
		{
			GroupAggFreeHeldPairs(pc);
			GroupAggGrowCollection(sink, pc);
		}
		return;
	}

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

/* Closes the collections' temporary files, at the end of the scan or before a rescan. */
void
GroupAggSinkEnd(GroupAggSink *sink)
{
	for (int c = 0; c < sink->ncollections; c++)
		GroupAggSpillClose(&sink->collections[c]);
}

/* Forgets every group, for a rescan. */
void
GroupAggSinkReset(GroupAggSink *sink)
{
	start_groups(sink);
}
