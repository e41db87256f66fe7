/*
 * groupagg_estimate.c
 *	  The groups a grouped scan expects: PostgreSQL's estimate, bounded by
 *	  what an expression key of one column can take.
 *
 * PostgreSQL estimates the distinct values of an expression of one column
 * as the column's: date_trunc('hour', ts) over 2M distinct timestamps
 * expects 2M groups where the table's span holds a few hundred hours, and
 * k % 10000 expects as many groups as k has values.  The estimate prices
 * the rows above the scan (a Sort of the groups, a Gather Merge) and so
 * decides between the serial and the parallel plan; a thousand-fold excess
 * sends a large grouped percentile to the serial plan.  Two bounds are
 * known from the expression and the column's statistics: date_trunc to a
 * unit of a day or less takes at most the units from the unit of the
 * column's least value to that of its greatest (as its histogram and most
 * common values know them: a sample, so an estimate); an integer column % c
 * takes at most 2|c| - 1 values.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type_d.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "groupagg.h"
#include "gpusel_filter.h"
#include "gs_arith.h"

/* Widens [*lo, *hi] to take the timestamps of one statistics slot; true where it had any. */
static bool
widen_by_slot(HeapTuple stats, int kind, double *lo, double *hi)
{
	AttStatsSlot sslot;
	bool		found = false;

	if (!get_attstatsslot(&sslot, stats, kind, InvalidOid, ATTSTATSSLOT_VALUES))
		return false;
	for (int i = 0; i < sslot.nvalues; i++)
	{
		double		v = (double) DatumGetInt64(sslot.values[i]);

		*lo = Min(*lo, v);
		*hi = Max(*hi, v);
		found = true;
	}
	free_attstatsslot(&sslot);
	return found;
}

/*
 * The least and greatest values a timestamp column's statistics know (its
 * histogram's bounds and its most common values; timestamps are int64
 * microseconds); false where it has none.
 */
static bool
timestamp_span(PlannerInfo *root, Var *var, double *lo, double *hi)
{
	VariableStatData vardata;
	bool		found = false;

	if (var->vartype != TIMESTAMPOID)
		return false;
	examine_variable(root, (Node *) var, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple))
	{
		*lo = DBL_MAX;
		*hi = -DBL_MAX;
		found = widen_by_slot(vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, lo, hi);
		found = widen_by_slot(vardata.statsTuple, STATISTIC_KIND_MCV, lo, hi) || found;
	}
	ReleaseVariableStats(vardata);
	return found;
}

/*
 * The most distinct values an expression key can take, where its form
 * says: 0 where nothing is known beyond PostgreSQL's estimate.
 */
static double
key_values_bound(PlannerInfo *root, Node *key)
{
	Var		   *var;
	gs_key_transform transform;
	double		lo;
	double		hi;

	if (IsA(key, Var) || !GroupAggDeviceKeyParse(key, &var, &transform))
		return 0;
	if (transform.op == GS_ARITH_MOD && transform.constant != 0)
		return 2.0 * fabs((double) transform.constant) - 1.0;
	if (transform.op == GS_KEY_FLOOR && transform.constant > 0 &&
		timestamp_span(root, var, &lo, &hi) && hi >= lo)
		return floor(hi / (double) transform.constant) - floor(lo / (double) transform.constant) + 1.0;
	return 0;
}

/*
 * The groups of the keys over rows input rows: PostgreSQL's estimate, or
 * the product of each key's values where that is smaller, an expression
 * key counted by its bound and any other key by PostgreSQL's estimate of
 * it alone.
 */
double
GroupAggEstimateGroups(PlannerInfo *root, List *keys, double rows)
{
	double		estimate;
	double		product = 1.0;
	bool		bounded = false;
	ListCell   *lc;

	if (keys == NIL)
		return 1;
	estimate = estimate_num_groups(root, keys, rows, NULL, NULL);
	foreach(lc, keys)
	{
		Node	   *key = lfirst(lc);
		double		bound = key_values_bound(root, key);

		if (bound > 0)
			bounded = true;
		else
			bound = estimate_num_groups(root, list_make1(key), rows, NULL, NULL);
		product *= bound;
	}
	if (!bounded)
		return estimate;
	return clamp_row_est(Min(estimate, Min(product, rows)));
}
