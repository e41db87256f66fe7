/*
 * percentile.c
 *	  gpu_percentile and gpu_percentile_cont: ordered-set aggregates that
 *	  answer exactly as percentile_disc and percentile_cont do.
 *
 * Types with an order-preserving key mapping (keys.c) and the type's default
 * ascending or descending order collect keys into a KeyStore; the final
 * function selects the wanted ranks with SampleSelect on the GPU or radix
 * selection on the CPU, never a sort.  Every other type, or a non-default
 * ordering operator, goes through PostgreSQL's own tuplesort under the
 * type's comparison and collation.
 *
 * The final functions are FINALFUNC_MODIFY = SHAREABLE like the built-ins:
 * selection reads the stored keys without changing them, and the tuplesort
 * is rescanned, so several calls over one ORDER BY share one state.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_clause.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "device.h"
#include "guc.h"
#include "inplace_select.h"
#include "key_select.h"
#include "order_keys.h"
#include "keystore.h"
#include "percentile.h"

/* groups up to this many keys select from a copy: no passes, no device */
#define PERCENTILE_SMALL_GROUP	256

/* What one aggregate call sorts by; cached in fn_extra for the query. */
typedef struct PercentileQuery
{
	Oid			typid;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Oid			sortop;
	Oid			collation;
	bool		nulls_first;
	bool		descending;		/* key path: the ORDER BY is the type's '>' */
	const KeyType *keytype;		/* NULL: the tuplesort path */
	/*
	 * A grouped scan's fraction array is a constant of its plan, the same
	 * for every group: taken apart once, by its address (constant_fractions).
	 */
	bool		constant_fractions;
	Datum		parsed_param;
	Datum	   *fractions;
	bool	   *fraction_nulls;
	int			nfractions;
} PercentileQuery;

/* Fractions of an array form up to which a result's work arrays are locals. */
#define PERCENTILE_LOCAL_FRACTIONS 16

/* Transition state of one group (declared in percentile.h). */
struct PercentileState
{
	PercentileQuery *query;
	int64		nrows;			/* non-NULL inputs */
	bool		seen_negative_zero; /* float input held -0 ... */
	bool		seen_positive_zero; /* ... or +0 */
	KeyStore	keys;			/* key path */
	KeySource  *source;			/* key path: keys held elsewhere, instead of keys */
	PickedKeys *picked;			/* key path: keys picked by position instead of a source */
	Tuplesortstate *sort;		/* tuplesort path */
	bool		sort_done;
	const Datum *values;		/* values path: a group's values in ORDER BY order */
};

/* A wanted 0-based position in sort order, and where its value goes. */
typedef struct RowRequest
{
	int64		row;
	int			slot;
} RowRequest;

/* Interpolates between two values as percentile_cont does. */
typedef Datum (*LerpFn) (Datum lo, Datum hi, double proportion);

PG_FUNCTION_INFO_V1(gpusel_percentile_transition);
PG_FUNCTION_INFO_V1(gpusel_percentile_disc_final);
PG_FUNCTION_INFO_V1(gpusel_percentile_disc_multi_final);
PG_FUNCTION_INFO_V1(gpusel_percentile_cont_final);
PG_FUNCTION_INFO_V1(gpusel_percentile_cont_multi_final);

/* Works out, once per query, how the aggregate's ORDER BY is evaluated. */
static PercentileQuery *
percentile_query(FunctionCallInfo fcinfo)
{
	PercentileQuery *query = (PercentileQuery *) fcinfo->flinfo->fn_extra;
	Aggref	   *aggref;
	SortGroupClause *sortcl;
	TargetEntry *tle;
	TypeCacheEntry *tc;

	if (query != NULL)
		return query;

	aggref = AggGetAggref(fcinfo);
	if (aggref == NULL || !AGGKIND_IS_ORDERED_SET(aggref->aggkind))
		elog(ERROR, "gpusel percentile functions must be called as ordered-set aggregates");
	if (list_length(aggref->aggorder) != 1)
		elog(ERROR, "gpusel percentile functions take exactly one ORDER BY column");

	query = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PercentileQuery));
	sortcl = linitial_node(SortGroupClause, aggref->aggorder);
	tle = get_sortgroupclause_tle(sortcl, aggref->args);
	query->typid = exprType((Node *) tle->expr);
	query->collation = exprCollation((Node *) tle->expr);
	query->sortop = sortcl->sortop;
	query->nulls_first = sortcl->nulls_first;
	get_typlenbyvalalign(query->typid, &query->typlen, &query->typbyval, &query->typalign);

	tc = lookup_type_cache(query->typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	query->keytype = KeyTypeLookup(query->typid);
	if (query->keytype != NULL && query->sortop == tc->lt_opr)
		query->descending = false;
	else if (query->keytype != NULL && query->sortop == tc->gt_opr)
		query->descending = true;
	else
		query->keytype = NULL;	/* e.g. ORDER BY x USING ~<~: the type's own comparison */

	fcinfo->flinfo->fn_extra = query;
	return query;
}

/* Ends a group's tuplesort when the aggregate is done with it. */
static void
percentile_shutdown(Datum arg)
{
	PercentileState *state = (PercentileState *) DatumGetPointer(arg);

	if (state->sort != NULL)
		tuplesort_end(state->sort);
	state->sort = NULL;
	if (state->query->keytype != NULL)
		KeyStoreCloseFile(&state->keys);
}

/* Creates a group's transition state in the aggregate's memory context. */
static PercentileState *
percentile_startup(FunctionCallInfo fcinfo)
{
	MemoryContext aggcxt;
	MemoryContext old;
	PercentileState *state;

	if (AggCheckCallContext(fcinfo, &aggcxt) != AGG_CONTEXT_AGGREGATE)
		elog(ERROR, "gpusel percentile transition called in non-aggregate context");

	state = MemoryContextAllocZero(aggcxt, sizeof(PercentileState));
	state->query = percentile_query(fcinfo);
	if (state->query->keytype != NULL)
		KeyStoreInit(&state->keys, aggcxt, state->query->keytype->key_bytes,
					 GpuselMayPin());
	else
	{
		old = MemoryContextSwitchTo(aggcxt);
		state->sort = tuplesort_begin_datum(state->query->typid,
											state->query->sortop,
											state->query->collation,
											state->query->nulls_first,
											work_mem, NULL,
											TUPLESORT_RANDOMACCESS);
		MemoryContextSwitchTo(old);
	}
	/* runs when the group is done, not after an error */
	AggRegisterCallback(fcinfo, percentile_shutdown, PointerGetDatum(state));
	return state;
}

/* Stores one non-NULL value in a group's state. */
static inline void
percentile_add(PercentileState *state, Datum value)
{
	const KeyType *kt = state->query->keytype;

	if (kt != NULL)
	{
		uint64		key = kt->to_key(value);

		if (unlikely(key == kt->zero_key) && kt->is_negative_zero != NULL)
		{
			if (kt->is_negative_zero(value))
				state->seen_negative_zero = true;
			else
				state->seen_positive_zero = true;
		}
		KeyStoreAdd(&state->keys, key);
	}
	else
		tuplesort_putdatum(state->sort, value, false);
	state->nrows++;
}

/* Transition: stores one non-NULL input value. */
Datum
gpusel_percentile_transition(PG_FUNCTION_ARGS)
{
	PercentileState *state;

	if (PG_ARGISNULL(0))
		state = percentile_startup(fcinfo);
	else
		state = (PercentileState *) PG_GETARG_POINTER(0);

	if (!PG_ARGISNULL(1))
		percentile_add(state, PG_GETARG_DATUM(1));
	PG_RETURN_POINTER(state);
}

/* Orders row requests by position. */
static int
row_request_cmp(const void *a, const void *b)
{
	const RowRequest *ra = (const RowRequest *) a;
	const RowRequest *rb = (const RowRequest *) b;

	if (ra->row != rb->row)
		return ra->row < rb->row ? -1 : 1;
	return 0;
}

/*
 * Selects ranks of a small group held in one segment from a copy of it
 * (inplace_select.c), without passes over the segment or the device.
 */
static void
select_small_group(KeySource *source, int64 n, const int64 *ranks, int nranks, uint64 *out)
{
	uint64		copy[PERCENTILE_SMALL_GROUP];

	source->rewind(source);
	KeySourceCopy(source, n, copy);
	SelectKeysInPlace(copy, n, ranks, nranks, out);
}

/*
 * Turns requested rows of a group of n keys into ranks among its keys in
 * ascending order (counted from the top where the ORDER BY descends) and
 * sorts the requests by rank: a few fractions a group, for every group,
 * sorted in place without qsort's calls; thousands by qsort.
 */
static void
rank_requests(RowRequest *req, int nreq, int64 n, bool descending)
{
	if (descending)
		for (int i = 0; i < nreq; i++)
			req[i].row = n - 1 - req[i].row;
	if (nreq <= 2 * PERCENTILE_LOCAL_FRACTIONS)
		for (int i = 1; i < nreq; i++)
		{
			RowRequest	r = req[i];
			int			j = i;

			for (; j > 0 && req[j - 1].row > r.row; j--)
				req[j] = req[j - 1];
			req[j] = r;
		}
	else
		qsort(req, nreq, sizeof(RowRequest), row_request_cmp);
}

/*
 * Reads the keys of ranks of the current group from picked keys (noted
 * before by GpuselPercentileNoteRanks).
 */
static void
pick_keys(PickedKeys *picked, const KeyType *kt, const int64 *ranks, int nranks,
		  uint64 *out)
{
	int64		from = 0;

	for (int i = 0; i < nranks; i++)
	{
		int64		pos = picked->base + ranks[i];
		int64		lo = from;
		int64		hi = picked->count;
		int64		step = 1;

		/*
		 * The ranks ascend (fetch_rows_by_key sorts them), so each is found
		 * at or after the one before: gallop from there, then binary search
		 * the ascending positions; thousands of ranks a group cost a step
		 * each instead of a search of every group's positions.
		 */
		while (lo + step < hi && picked->positions[lo + step] < pos)
		{
			lo += step;
			step *= 2;
		}
		hi = Min(hi, lo + step + 1);
		while (lo < hi)
		{
			int64		mid = lo + (hi - lo) / 2;

			if (picked->positions[mid] < pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == picked->count || picked->positions[lo] != pos)
			elog(ERROR, "gpusel: position %lld of a grouped percentile was not picked",
				 (long long) pos);
		out[i] = picked->keys[lo];
		from = lo;
	}
}

/* Key path: selects the values at the requested positions. */
static void
fetch_rows_by_key(PercentileState *state, RowRequest *req, int nreq, Datum *values)
{
	const KeyType *kt = state->query->keytype;
	int64		local_ranks[2 * PERCENTILE_LOCAL_FRACTIONS];
	uint64		local_keys[2 * PERCENTILE_LOCAL_FRACTIONS];
	bool		local = nreq <= 2 * PERCENTILE_LOCAL_FRACTIONS;
	int64	   *ranks = local ? local_ranks : palloc(sizeof(int64) * nreq);
	uint64	   *keys = local ? local_keys : palloc(sizeof(uint64) * nreq);
	KeySelectFn select_keys;

	rank_requests(req, nreq, state->nrows, state->query->descending);
	for (int i = 0; i < nreq; i++)
		ranks[i] = req[i].row;

	if (state->picked != NULL)
		pick_keys(state->picked, kt, ranks, nreq, keys);
	else if (state->source != NULL && state->nrows <= PERCENTILE_SMALL_GROUP)
		select_small_group(state->source, state->nrows, ranks, nreq, keys);
	else if (state->source != NULL)
	{
		select_keys = GpuselChooseSegmentSelect(state->nrows);
		select_keys(state->source, ranks, nreq, keys);
	}
	else
	{
		select_keys = GpuselChooseKeySelect(state->nrows, KeyStoreIsSpilled(&state->keys));
		select_keys(&state->keys.source, ranks, nreq, keys);
	}

	/*
	 * Keys fold -0 into +0.  When the group's zeros were all -0, the zero
	 * PostgreSQL returns is -0; with both signs present its choice depends
	 * on its sort, and +0 is returned.
	 */
	for (int i = 0; i < nreq; i++)
	{
		if (keys[i] == kt->zero_key && kt->negative_zero != NULL &&
			state->seen_negative_zero && !state->seen_positive_zero)
			values[req[i].slot] = kt->negative_zero();
		else
			values[req[i].slot] = kt->from_key(keys[i]);
	}
	if (!local)
	{
		pfree(ranks);
		pfree(keys);
	}
}

/* Tuplesort path: walks the sorted values to the requested positions. */
static void
fetch_rows_by_sort(PercentileState *state, RowRequest *req, int nreq, Datum *values)
{
	int64		current = -1;
	Datum		value = (Datum) 0;
	bool		isnull;

	if (!state->sort_done)
	{
		tuplesort_performsort(state->sort);
		state->sort_done = true;
	}
	else
		tuplesort_rescan(state->sort);

	qsort(req, nreq, sizeof(RowRequest), row_request_cmp);
	for (int i = 0; i < nreq; i++)
	{
		if (req[i].row > current)
		{
			if (req[i].row - current > 1 &&
				!tuplesort_skiptuples(state->sort, req[i].row - current - 1, true))
				elog(ERROR, "missing row in gpu_percentile");
			if (!tuplesort_getdatum(state->sort, true, &value, &isnull, NULL) || isnull)
				elog(ERROR, "missing row in gpu_percentile");
			if (!state->query->typbyval)
				value = datumCopy(value, false, state->query->typlen);
			current = req[i].row;
		}
		values[req[i].slot] = value;
	}
}

/* Fetches the values at 0-based positions of the group's sort order. */
static void
fetch_rows(PercentileState *state, RowRequest *req, int nreq, Datum *values)
{
	if (nreq == 0)
		return;
	if (state->values != NULL)
	{
		for (int i = 0; i < nreq; i++)
			values[req[i].slot] = state->values[req[i].row];
		return;
	}
	if (state->query->keytype != NULL)
		fetch_rows_by_key(state, req, nreq, values);
	else
		fetch_rows_by_sort(state, req, nreq, values);
}

/* Raises percentile_disc's error for a fraction outside [0, 1]. */
static void
check_fraction(double p)
{
	if (p < 0 || p > 1 || isnan(p))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("percentile value %g is not between 0 and 1", p)));
}

/* 0-based position percentile_disc returns for fraction p of n rows. */
static int64
disc_row(double p, int64 n)
{
	int64		row = (int64) ceil(p * n);

	return Max(1, row) - 1;
}

/* The 0-based positions percentile_cont interpolates between for fraction p of n rows. */
static inline void
cont_rows(double p, int64 n, int64 *first, int64 *second)
{
	*first = (int64) floor(p * (n - 1));
	*second = (int64) ceil(p * (n - 1));
}

/*
 * The rows the array forms read for n rows: for each non-NULL fraction
 * (checked), one (slot 2i), or two where cont interpolates (slots 2i and
 * 2i + 1), into req; returns how many.
 */
static int
fraction_rows(const Datum *fractions, const bool *fraction_nulls, int nfractions, int64 n,
			  bool continuous, RowRequest *req)
{
	int			nreq = 0;

	for (int i = 0; i < nfractions; i++)
	{
		double		p;

		if (fraction_nulls[i])
			continue;
		p = DatumGetFloat8(fractions[i]);
		check_fraction(p);
		if (continuous)
		{
			cont_rows(p, n, &req[nreq].row, &req[nreq + 1].row);
			req[nreq++].slot = 2 * i;
			req[nreq++].slot = 2 * i + 1;
		}
		else
		{
			req[nreq].row = disc_row(p, n);
			req[nreq++].slot = 2 * i;
		}
	}
	return nreq;
}

/* float8 interpolation, with percentile_cont's exact arithmetic. */
static Datum
float8_lerp(Datum lo, Datum hi, double proportion)
{
	double		loval = DatumGetFloat8(lo);
	double		hival = DatumGetFloat8(hi);

	return Float8GetDatum(loval + (proportion * (hival - loval)));
}

/* interval interpolation, with percentile_cont's exact arithmetic. */
static Datum
interval_lerp(Datum lo, Datum hi, double proportion)
{
	Datum		diff = DirectFunctionCall2(interval_mi, hi, lo);
	Datum		scaled = DirectFunctionCall2(interval_mul, diff,
											 Float8GetDatumFast(proportion));

	return DirectFunctionCall2(interval_pl, scaled, lo);
}

/* The interpolation of a percentile_cont input type. */
static LerpFn
lerp_for_type(Oid typid)
{
	if (typid == FLOAT8OID)
		return float8_lerp;
	if (typid == INTERVALOID)
		return interval_lerp;
	elog(ERROR, "gpu_percentile_cont does not support type %s", format_type_be(typid));
	return NULL;
}

/*
 * Common start of the single-fraction final functions, in percentile_disc's
 * order: a NULL fraction gives NULL, a bad one an error even with no rows,
 * then no rows (or only NULLs) give NULL.  Returns NULL for a NULL result.
 */
static PercentileState *
single_fraction_state(FunctionCallInfo fcinfo, double *p)
{
	PercentileState *state;

	if (PG_ARGISNULL(1))
		return NULL;
	*p = PG_GETARG_FLOAT8(1);
	check_fraction(*p);
	if (PG_ARGISNULL(0))
		return NULL;
	state = (PercentileState *) PG_GETARG_POINTER(0);
	return state->nrows == 0 ? NULL : state;
}

/* The value percentile_disc returns for fraction p of a non-empty group. */
static Datum
percentile_disc_result(PercentileState *state, double p)
{
	RowRequest	req;
	Datum		value;

	req.row = disc_row(p, state->nrows);
	req.slot = 0;
	fetch_rows(state, &req, 1, &value);
	return value;
}

/* gpu_percentile(float8) WITHIN GROUP (ORDER BY anyelement). */
Datum
gpusel_percentile_disc_final(PG_FUNCTION_ARGS)
{
	PercentileState *state;
	double		p;

	state = single_fraction_state(fcinfo, &p);
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(percentile_disc_result(state, p));
}

/* The value percentile_cont returns for fraction p of a non-empty group. */
static Datum
percentile_cont_result(PercentileState *state, double p)
{
	RowRequest	req[2];
	Datum		values[2];
	int64		first_row;
	int64		second_row;
	LerpFn		lerp = lerp_for_type(state->query->typid);

	cont_rows(p, state->nrows, &first_row, &second_row);
	req[0].row = first_row;
	req[0].slot = 0;
	req[1].row = second_row;
	req[1].slot = 1;
	fetch_rows(state, req, first_row == second_row ? 1 : 2, values);
	if (first_row == second_row)
		return values[0];
	return lerp(values[0], values[1], (p * (state->nrows - 1)) - first_row);
}

/* gpu_percentile_cont(float8) WITHIN GROUP (ORDER BY float8 | interval). */
Datum
gpusel_percentile_cont_final(PG_FUNCTION_ARGS)
{
	PercentileState *state;
	double		p;

	state = single_fraction_state(fcinfo, &p);
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(percentile_cont_result(state, p));
}

/*
 * The fractions of an array form's argument, taken apart; with constant
 * fractions (a grouped scan's plan), once per array, kept in the query's
 * memory.
 */
static void
parse_fractions(PercentileQuery *query, Datum param_datum, ArrayType *param,
				Datum **fractions, bool **nulls, int *n)
{
	MemoryContext cxt;

	if (query->constant_fractions && query->fractions != NULL &&
		query->parsed_param == param_datum)
	{
		*fractions = query->fractions;
		*nulls = query->fraction_nulls;
		*n = query->nfractions;
		return;
	}
	deconstruct_array(param, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  fractions, nulls, n);
	if (!query->constant_fractions)
		return;
	cxt = GetMemoryChunkContext(query);
	if (query->fractions != NULL)
	{
		pfree(query->fractions);
		pfree(query->fraction_nulls);
	}
	query->fractions = MemoryContextAlloc(cxt, sizeof(Datum) * Max(*n, 1));
	query->fraction_nulls = MemoryContextAlloc(cxt, sizeof(bool) * Max(*n, 1));
	memcpy(query->fractions, *fractions, sizeof(Datum) * *n);
	memcpy(query->fraction_nulls, *nulls, sizeof(bool) * *n);
	query->nfractions = *n;
	query->parsed_param = param_datum;
}

/*
 * The array forms: results shaped like the fraction array, NULL where a
 * fraction is NULL; every wanted position selected in one call, so the GPU
 * serves all fractions in one multiselection pass per level.
 */
static Datum
percentile_multi_result(PercentileState *state, Datum param_datum, bool continuous)
{
	PercentileQuery *query = state->query;
	ArrayType  *param = DatumGetArrayTypeP(param_datum);
	Datum	   *fractions;
	bool	   *fraction_nulls;
	int			nfractions;
	RowRequest	local_req[2 * PERCENTILE_LOCAL_FRACTIONS];
	Datum		local_fetched[2 * PERCENTILE_LOCAL_FRACTIONS];
	Datum		local_result[PERCENTILE_LOCAL_FRACTIONS];
	bool		local_nulls[PERCENTILE_LOCAL_FRACTIONS];
	RowRequest *req;
	int			nreq = 0;
	Datum	   *fetched;
	Datum	   *result;
	bool	   *result_nulls;
	LerpFn		lerp = NULL;
	int64		n;

	parse_fractions(query, param_datum, param, &fractions, &fraction_nulls, &nfractions);
	if (nfractions == 0)
		return PointerGetDatum(construct_empty_array(query->typid));
	if (continuous)
		lerp = lerp_for_type(query->typid);

	/* positions to fetch: one per fraction, two where cont interpolates */
	n = state->nrows;
	if (nfractions <= PERCENTILE_LOCAL_FRACTIONS)
	{
		req = local_req;
		fetched = local_fetched;
		result = local_result;
		result_nulls = local_nulls;
	}
	else
	{
		req = palloc(sizeof(RowRequest) * nfractions * 2);
		fetched = palloc(sizeof(Datum) * nfractions * 2);
		result = palloc(sizeof(Datum) * nfractions);
		result_nulls = palloc(sizeof(bool) * nfractions);
	}
	nreq = fraction_rows(fractions, fraction_nulls, nfractions, n, continuous, req);
	fetch_rows(state, req, nreq, fetched);

	for (int i = 0; i < nfractions; i++)
	{
		result_nulls[i] = fraction_nulls[i];
		if (fraction_nulls[i])
			result[i] = (Datum) 0;
		else if (continuous)
		{
			double		p = DatumGetFloat8(fractions[i]);
			int64		first;
			int64		second;

			cont_rows(p, n, &first, &second);
			if (second > first)
				result[i] = lerp(fetched[2 * i], fetched[2 * i + 1], (p * (n - 1)) - first);
			else
				result[i] = fetched[2 * i];
		}
		else
			result[i] = fetched[2 * i];
	}

	/* the result's type is the input's: percentile_cont takes float8 and interval */
	return PointerGetDatum(construct_md_array(result, result_nulls,
											  ARR_NDIM(param), ARR_DIMS(param), ARR_LBOUND(param),
											  query->typid, query->typlen, query->typbyval,
											  query->typalign));
}

/* The array forms' final function: NULL for no rows or a NULL array. */
static Datum
percentile_multi_final(FunctionCallInfo fcinfo, bool continuous)
{
	PercentileState *state;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (PercentileState *) PG_GETARG_POINTER(0);
	if (state->nrows == 0 || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	return percentile_multi_result(state, PointerGetDatum(PG_GETARG_ARRAYTYPE_P(1)), continuous);
}

/* gpu_percentile(float8[]) WITHIN GROUP (ORDER BY anyelement). */
Datum
gpusel_percentile_disc_multi_final(PG_FUNCTION_ARGS)
{
	return percentile_multi_final(fcinfo, false);
}

/* gpu_percentile_cont(float8[]) WITHIN GROUP (ORDER BY float8 | interval). */
Datum
gpusel_percentile_cont_multi_final(PG_FUNCTION_ARGS)
{
	return percentile_multi_final(fcinfo, true);
}

/*
 * A gpu_percentile state outside an aggregate, for a scan that collects the
 * ORDER BY column itself: values of typid in its default order, ascending
 * or descending.  Its memory lives in cxt; GpuselPercentileRelease closes
 * its temporary file.
 */
PercentileState *
GpuselPercentileCreate(MemoryContext cxt, Oid typid, bool descending)
{
	PercentileState *state = MemoryContextAllocZero(cxt, sizeof(PercentileState));
	PercentileQuery *query = MemoryContextAllocZero(cxt, sizeof(PercentileQuery));

	query->typid = typid;
	get_typlenbyvalalign(typid, &query->typlen, &query->typbyval, &query->typalign);
	query->keytype = KeyTypeLookup(typid);
	query->descending = descending;
	if (query->keytype == NULL)
		elog(ERROR, "gpusel cannot collect keys of type %s", format_type_be(typid));
	state->query = query;
	KeyStoreInit(&state->keys, cxt, query->keytype->key_bytes,
				 GpuselMayPin());
	return state;
}

/* Adds one non-NULL value to a state from GpuselPercentileCreate. */
void
GpuselPercentileAdd(PercentileState *state, Datum value)
{
	percentile_add(state, value);
}

/*
 * gpu_percentile's (or, when continuous, gpu_percentile_cont's) result over
 * a state from GpuselPercentileCreate, with the aggregate's NULL rules: the
 * fraction (float8, or float8[] when is_array) checked as the final
 * functions check it.  A NULL state stands for a group without inputs.
 */
Datum
GpuselPercentileResult(PercentileState *state, Datum fraction, bool fraction_isnull,
					   bool is_array, bool continuous, bool *isnull)
{
	int64		nrows = state != NULL ? state->nrows : 0;

	*isnull = false;
	if (is_array)
	{
		if (nrows == 0 || fraction_isnull)
		{
			*isnull = true;
			return (Datum) 0;
		}
		return percentile_multi_result(state, fraction, continuous);
	}
	if (fraction_isnull)
	{
		*isnull = true;
		return (Datum) 0;
	}
	check_fraction(DatumGetFloat8(fraction));
	if (nrows == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	if (continuous)
		return percentile_cont_result(state, DatumGetFloat8(fraction));
	return percentile_disc_result(state, DatumGetFloat8(fraction));
}

/* Closes a state's temporary file, if it spilled. */
void
GpuselPercentileRelease(PercentileState *state)
{
	KeyStoreCloseFile(&state->keys);
}

/*
 * gpu_percentile's result over one group's keys held in memory by the
 * caller (the grouped scan's segment of the group), as
 * GpuselPercentileResult computes it: 'like' is a state of the same type
 * and order from GpuselPercentileCreate, whose own keys are not read; the
 * flags say whether the group's zeros included -0 and +0.  With picked,
 * the keys (then NULL) are read from there instead.  The fraction is a
 * constant of the plan, the same Datum for every group: an array is taken
 * apart once (parse_fractions).
 */
Datum
GpuselPercentileResultForKeys(PercentileState *like, const void *keys, int64 nkeys,
							  PickedKeys *picked,
							  bool seen_negative_zero, bool seen_positive_zero,
							  Datum fraction, bool fraction_isnull, bool is_array,
							  bool continuous, bool *isnull)
{
	PercentileState state;
	KeyArraySource src;

	memset(&state, 0, sizeof(state));
	like->query->constant_fractions = true;	/* the grouped scan's plan constant */
	state.query = like->query;
	state.nrows = nkeys;
	state.seen_negative_zero = seen_negative_zero;
	state.seen_positive_zero = seen_positive_zero;
	KeyArraySourceInit(&src, keys, nkeys, like->query->keytype->key_bytes);
	state.source = &src.source;
	state.picked = picked;
	return GpuselPercentileResult(&state, fraction, fraction_isnull, is_array, continuous,
								  isnull);
}

/*
 * Notes in picked (still noting, its base the group's first position) the
 * positions GpuselPercentileResultForKeys would read for a group of nkeys
 * keys, ascending, without computing the result: the same fractions, the
 * same rows of each (cont_rows, disc_row), the same NULL rules and errors.
 */
void
GpuselPercentileNoteRanks(PercentileState *like, int64 nkeys, Datum fraction,
						  bool fraction_isnull, bool is_array, bool continuous,
						  PickedKeys *picked)
{
	PercentileQuery *query = like->query;
	Datum	   *fractions = &fraction;
	bool	   *fraction_nulls = &fraction_isnull;
	int			nfractions = 1;
	RowRequest	local_req[2 * PERCENTILE_LOCAL_FRACTIONS];
	RowRequest *req = local_req;
	int			nreq;

	Assert(picked->noting);
	query->constant_fractions = true;	/* the grouped scan's plan constant */
	if (is_array)
	{
		if (nkeys == 0 || fraction_isnull)
			return;
		parse_fractions(query, fraction, DatumGetArrayTypeP(fraction), &fractions,
						&fraction_nulls, &nfractions);
	}
	else if (fraction_isnull)
		return;
	else if (nkeys == 0)
	{
		check_fraction(DatumGetFloat8(fraction));
		return;
	}
	if (nfractions > PERCENTILE_LOCAL_FRACTIONS)
		req = palloc(sizeof(RowRequest) * 2 * nfractions);
	nreq = fraction_rows(fractions, fraction_nulls, nfractions, nkeys, continuous, req);
	rank_requests(req, nreq, nkeys, query->descending);
	if (picked->count + nreq > picked->cap)
	{
		picked->cap = Max(Max(picked->cap * 2, 1024), picked->count + nreq);
		picked->positions = picked->positions == NULL ?
			MemoryContextAllocExtended(picked->cxt, sizeof(int64) * picked->cap,
									   MCXT_ALLOC_HUGE) :
			repalloc_huge(picked->positions, sizeof(int64) * picked->cap);
	}
	for (int i = 0; i < nreq; i++)
		picked->positions[picked->count++] = picked->base + req[i].row;
	if (req != local_req)
		pfree(req);
}

/* The key bytes (4 or 8) and the key mapping of a state's type. */
const KeyType *
GpuselPercentileKeyType(PercentileState *state)
{
	return state->query->keytype;
}

/*
 * A state like GpuselPercentileCreate's for a type without order keys
 * whose values the caller keeps whole (a grouped scan's collection of
 * kept values): ordered by the type's '<' or, descending, '>'.  It holds no
 * values; GpuselPercentileResultForValues reads a group's.
 */
PercentileState *
GpuselPercentileCreateForValues(MemoryContext cxt, Oid typid, bool descending)
{
	PercentileState *state = MemoryContextAllocZero(cxt, sizeof(PercentileState));
	PercentileQuery *query = MemoryContextAllocZero(cxt, sizeof(PercentileQuery));
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);

	query->typid = typid;
	get_typlenbyvalalign(typid, &query->typlen, &query->typbyval, &query->typalign);
	query->sortop = descending ? tc->gt_opr : tc->lt_opr;
	query->collation = get_typcollation(typid);
	query->descending = descending;
	if (!OidIsValid(query->sortop))
		elog(ERROR, "gpusel cannot order values of type %s", format_type_be(typid));
	state->query = query;
	return state;
}

/* Comparator of GpuselPercentileSortValues: the ORDER BY operator's sort support. */
static int
value_cmp(const void *a, const void *b, void *arg)
{
	return ApplySortComparator(*(const Datum *) a, false, *(const Datum *) b, false,
							   (SortSupport) arg);
}

/* Sorts a group's values in the ORDER BY order of a state from GpuselPercentileCreateForValues. */
void
GpuselPercentileSortValues(PercentileState *like, Datum *values, int64 n)
{
	SortSupportData ssup;

	memset(&ssup, 0, sizeof(ssup));
	ssup.ssup_cxt = CurrentMemoryContext;
	ssup.ssup_collation = like->query->collation;
	ssup.ssup_nulls_first = false;
	PrepareSortSupportFromOrderingOp(like->query->sortop, &ssup);
	qsort_arg(values, n, sizeof(Datum), value_cmp, &ssup);
}

/*
 * gpu_percentile's result over one group's values, sorted by
 * GpuselPercentileSortValues, as GpuselPercentileResult computes it.
 */
Datum
GpuselPercentileResultForValues(PercentileState *like, const Datum *sorted, int64 n,
								Datum fraction, bool fraction_isnull, bool is_array,
								bool continuous, bool *isnull)
{
	PercentileState state;

	memset(&state, 0, sizeof(state));
	like->query->constant_fractions = true;	/* the grouped scan's plan constant */
	state.query = like->query;
	state.nrows = n;
	state.values = sorted;
	return GpuselPercentileResult(&state, fraction, fraction_isnull, is_array, continuous,
								  isnull);
}
