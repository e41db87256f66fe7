/*
 * groupagg_bigkeys.c
 *	  Percentile keys of numeric columns wider than 18 digits in the grouped
 *	  scan: int8 keys where the values fit, the values themselves where not.
 *
 * A numeric(p,s) column with p > 18 and s <= 18 (or a negative scale of
 * more than 18 whole digits) holds values of display scale s, so the
 * scaled value v * 10^s is the value exactly wherever it fits an int8, and
 * such keys select and sort on the device as numeric(15,2)'s do.  A value
 * that does not fit gets a stand-in key on its side, GPUSEL_NUMERIC_NEG_INF
 * below every scaled value or GPUSEL_NUMERIC_POS_INF above them (and below
 * NaN's), and the value itself is kept with its group.  In a group's order
 * the low values come first, then the scaled ones, the high values, and
 * NaN last: when a percentile lands on a stand-in, the rank it read says
 * which kept value it is, found by sorting the group's kept values with
 * numeric_cmp.  Equal values of one display scale print alike, so the
 * answer is PostgreSQL's whichever equal value either picks.
 *
 * The kept values live in the process, so such a percentile is not
 * offered under Gather (groupagg_plan.c).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"

#include "groupagg_internal.h"
#include "numeric_stored.h"
#include "qual_compile.h"

/*
 * Whether a numeric column of this typmod, not read as scaled int8 whole
 * (GpuselNumericScale), has percentile keys here: a typmod of a scale of at
 * most 18 (a negative one travels at 0).  Sets *scale.
 */
bool
GroupAggBigKeyScale(Oid typid, int32 typmod, int *scale)
{
	int32		precision;
	int32		s;

	if (!GpuselNumericTypmod(typid, typmod, &precision, &s) || s > GPUSEL_NUMERIC_DIGITS)
		return false;
	*scale = Max(s, 0);
	return true;
}

/* Keeps a value that its key does not hold. */
static void
keep_big(GroupAggSink *sink, PercentileCollection *pc, int64 g, int side, Datum v)
{
	GroupBigKey *b;

	if (pc->nbigs == pc->bigs_cap)
	{
		int64		cap = Max(pc->bigs_cap * 2, 64);

		if (pc->bigs == NULL)
			pc->bigs = MemoryContextAllocExtended(sink->cxt, sizeof(GroupBigKey) * cap,
												  MCXT_ALLOC_HUGE);
		else
			pc->bigs = repalloc_huge(pc->bigs, sizeof(GroupBigKey) * cap);
		pc->bigs_cap = cap;
	}
	b = &pc->bigs[pc->nbigs++];
	b->group = g;
	b->side = side;
	b->value = (Datum) 0;
	if (side != GROUP_BIG_NAN)
	{
		MemoryContext old = MemoryContextSwitchTo(sink->cxt);

		b->value = datumCopy(PointerGetDatum(pg_detoast_datum_packed((struct varlena *) DatumGetPointer(v))),
							 false, -1);
		MemoryContextSwitchTo(old);
	}
	pc->bigs_sorted = false;
}

/*
 * The int8 key value of a non-NULL numeric v in group g of a collection
 * with big keys: v * 10^scale where it fits, NaN's stand-in, or a side's
 * stand-in with v kept.
 */
int64
GroupAggBigKeyScaled(GroupAggSink *sink, PercentileCollection *pc, int64 g, Datum v)
{
	int64		scaled = GpuselNumericToScaledFit(v, pc->numeric_scale);
	NumericStored n;

	if (scaled == GPUSEL_NUMERIC_NAN)
	{
		keep_big(sink, pc, g, GROUP_BIG_NAN, v);
		return scaled;
	}
	if (scaled != GPUSEL_NUMERIC_UNFIT && scaled != GPUSEL_NUMERIC_POS_INF &&
		scaled != GPUSEL_NUMERIC_NEG_INF)
		return scaled;
	numeric_stored_decode(v, &n);
	if (n.kind == NUMERIC_STORED_IS_NINF || (n.kind == NUMERIC_STORED_FINITE && n.negative))
	{
		keep_big(sink, pc, g, GROUP_BIG_LOW, v);
		return GPUSEL_NUMERIC_NEG_INF;
	}
	keep_big(sink, pc, g, GROUP_BIG_HIGH, v);
	return GPUSEL_NUMERIC_POS_INF;
}

/* Orders kept values by group, side, then value. */
static int
big_cmp(const void *a, const void *b)
{
	const GroupBigKey *x = (const GroupBigKey *) a;
	const GroupBigKey *y = (const GroupBigKey *) b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	if (x->side == GROUP_BIG_NAN)
		return 0;
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, x->value, y->value));
}

/* The kept value at 0-based position 'pos' of a side's ascending order in a group. */
static Datum
kept_at(const GroupBigKey *first, int64 count, int64 pos)
{
	if (pos < 0 || pos >= count)
		elog(ERROR, "gpusel lost a numeric percentile key past 18 digits");
	return first[pos].value;
}

/*
 * The value a percentile_disc at 'fraction' over the n keys of group g
 * read when it read a side's stand-in: its rank as percentile_disc takes
 * it (row ceil(fraction * n), the first at least), placed in the group's
 * order of low values, scaled ones, high values and NaN (reversed for a
 * descending order).
 */
static Datum
resolve_stand_in(PercentileCollection *pc, int64 g, int64 n, double fraction, int side)
{
	int64		lo = 0;
	int64		hi = pc->nbigs;
	int64		counts[3] = {0, 0, 0};
	const GroupBigKey *sides[3] = {NULL, NULL, NULL};
	int64		rownum = (int64) ceil(fraction * (double) n);
	int64		idx = Max(rownum, 1) - 1;

	if (!pc->bigs_sorted)
	{
		qsort(pc->bigs, pc->nbigs, sizeof(GroupBigKey), big_cmp);
		pc->bigs_sorted = true;
	}
	/* the group's first kept value */
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (pc->bigs[mid].group < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int64 i = lo; i < pc->nbigs && pc->bigs[i].group == g; i++)
	{
		if (sides[pc->bigs[i].side] == NULL)
			sides[pc->bigs[i].side] = &pc->bigs[i];
		counts[pc->bigs[i].side]++;
	}
	if (!pc->descending)
	{
		if (side == GROUP_BIG_LOW)
			return kept_at(sides[GROUP_BIG_LOW], counts[GROUP_BIG_LOW], idx);
		return kept_at(sides[GROUP_BIG_HIGH], counts[GROUP_BIG_HIGH],
					   idx - (n - counts[GROUP_BIG_HIGH] - counts[GROUP_BIG_NAN]));
	}
	if (side == GROUP_BIG_HIGH)
		return kept_at(sides[GROUP_BIG_HIGH], counts[GROUP_BIG_HIGH],
					   counts[GROUP_BIG_HIGH] - 1 - (idx - counts[GROUP_BIG_NAN]));
	return kept_at(sides[GROUP_BIG_LOW], counts[GROUP_BIG_LOW],
				   counts[GROUP_BIG_LOW] - 1 - (idx - (n - counts[GROUP_BIG_LOW])));
}

/* One scaled result as its numeric: a kept value where it is a side's stand-in. */
static Datum
scaled_result(PercentileCollection *pc, int64 g, int64 n, double fraction, int64 scaled)
{
	if (pc->big_keys && scaled == GPUSEL_NUMERIC_NEG_INF)
		return resolve_stand_in(pc, g, n, fraction, GROUP_BIG_LOW);
	if (pc->big_keys && scaled == GPUSEL_NUMERIC_POS_INF)
		return resolve_stand_in(pc, g, n, fraction, GROUP_BIG_HIGH);
	return GpuselScaledToNumeric(scaled, pc->numeric_scale);
}

/*
 * A percentile's result over a numeric column's scaled values (an int8,
 * or an int8[] for an array of fractions) as the numerics they are, for
 * group g of n keys: the kept values where the keys were stand-ins.
 */
Datum
GroupAggNumericResult(PercentileCollection *pc, int64 g, int64 n, Datum fraction,
					  bool is_array, Datum result)
{
	ArrayType  *in;
	Datum	   *elems;
	bool	   *nulls;
	Datum	   *fractions = NULL;
	bool	   *fraction_nulls = NULL;
	int			nelems;
	int			nfractions;

	if (!is_array)
		return scaled_result(pc, g, n, DatumGetFloat8(fraction), DatumGetInt64(result));
	in = DatumGetArrayTypeP(result);
	deconstruct_array(in, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &nelems);
	if (pc->big_keys)
	{
		deconstruct_array(DatumGetArrayTypeP(fraction), FLOAT8OID, sizeof(float8),
						  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &fractions, &fraction_nulls,
						  &nfractions);
		if (nfractions != nelems)
			elog(ERROR, "gpusel percentile result has %d values for %d fractions",
				 nelems, nfractions);
	}
	for (int i = 0; i < nelems; i++)
		if (!nulls[i])
			elems[i] = scaled_result(pc, g, n, fractions != NULL ? DatumGetFloat8(fractions[i]) : 0,
									 DatumGetInt64(elems[i]));
	if (ARR_NDIM(in) == 0)
		return PointerGetDatum(construct_empty_array(NUMERICOID));
	return PointerGetDatum(construct_md_array(elems, nulls, ARR_NDIM(in), ARR_DIMS(in),
											  ARR_LBOUND(in), NUMERICOID, -1, false,
											  TYPALIGN_INT));
}
