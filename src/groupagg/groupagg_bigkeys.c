/*
 * groupagg_bigkeys.c
 *	  Percentile keys of numeric columns wider than 18 digits in the grouped
 *	  scan: int8 keys where the values fit, ordered approximate keys and
 *	  the values themselves where not.
 *
 * A numeric(p,s) column with p > 18 and s <= 18 (or a negative scale of
 * more than 18 whole digits) holds values of display scale s, so the
 * scaled value V = v * 10^s is the value exactly wherever it fits an int8,
 * and such keys select and sort on the device as numeric(15,2)'s do.  A
 * value past 18 digits gets a key beyond every scaled value on its side,
 * 10^18 + its digit count and leading 15 digits for a positive one, the
 * negation for a negative one, below NaN's: the keys order as the values
 * do, but values that share their digit count and leading digits share a
 * key.  Such a value is kept with its group and key.  When a percentile
 * lands on such a key, the rank it read and the group's kept keys say
 * which of the values sharing that key it is, found by sorting just those
 * with numeric_cmp.  Equal values of one display scale print alike, so the
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
	GpuselNumericShape shape;

	if (!GpuselNumericShapeOf(typid, typmod, &shape) || !shape.constrained ||
		shape.typmod_scale > GPUSEL_NUMERIC_DIGITS)
		return false;
	*scale = shape.scale;
	return true;
}

/* Keeps a value past 18 digits with its group and key (NaN: the count alone). */
static void
keep_big(GroupAggSink *sink, PercentileCollection *pc, int64 g, int64 key, Datum v)
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
	b->key = key;
	b->offset = 0;
	if (key != GS_NUMERIC_NAN)
	{
		struct varlena *packed = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(v));
		Size		len = VARSIZE_ANY(packed);

		/* one arena, not an allocation per value: offsets survive its growth */
		if (pc->arena_used + MAXALIGN(len) > pc->arena_cap)
		{
			Size		cap = Max(pc->arena_cap * 2, pc->arena_used + MAXALIGN(len) + 65536);

			if (pc->arena == NULL)
				pc->arena = MemoryContextAllocExtended(sink->cxt, cap, MCXT_ALLOC_HUGE);
			else
				pc->arena = repalloc_huge(pc->arena, cap);
			pc->arena_cap = cap;
		}
		memcpy(pc->arena + pc->arena_used, packed, len);
		b->offset = pc->arena_used;
		pc->arena_used += MAXALIGN(len);
		if ((Pointer) packed != DatumGetPointer(v))
			pfree(packed);
	}
	pc->bigs_sorted = false;
}

/* The smallest key of a value past 18 digits: every scaled value lies below. */
#define BIG_KEY_BASE	INT64CONST(1000000000000000000)
/* Leading digits a big key holds, and the keys one digit count spans. */
#define BIG_KEY_DIGITS	15
#define BIG_KEY_SPAN	INT64CONST(900000000000000)

/*
 * The key of a finite value whose |v * 10^scale| has 19 digits or more:
 * BIG_KEY_BASE + (digits - 19) * BIG_KEY_SPAN + (its first 15 digits -
 * 10^14), negated for a negative value.  A typmod allows at most 2000
 * digits before the point (numeric(1000,-1000)) and a scale of at most 18
 * here, so the key stays far below NaN's stand-in.
 */
static int64
big_key(const NumericStored *n, int scale)
{
	int			first = numeric_stored_digit(n, 0);
	int			first_len = first >= 1000 ? 4 : first >= 100 ? 3 : first >= 10 ? 2 : 1;
	int64		ndigits = first_len + NUMERIC_STORED_BASE_DECIMALS * (int64) n->weight + scale;
	int64		lead = first;
	int			lead_len = first_len;
	int64		key;

	for (int i = 1; lead_len < BIG_KEY_DIGITS; i++, lead_len += NUMERIC_STORED_BASE_DECIMALS)
		lead = lead * NUMERIC_STORED_BASE + (i < n->ndigits ? numeric_stored_digit(n, i) : 0);
	/* drop what passed 15 digits */
	for (; lead_len > BIG_KEY_DIGITS; lead_len--)
		lead /= 10;
	/* only a value of 19 digits or more at the scale gets here under a typmod */
	if (ndigits <= GPUSEL_NUMERIC_DIGITS)
		elog(ERROR, "gpusel found a numeric that its column's type does not allow");
	key = BIG_KEY_BASE + (ndigits - (GPUSEL_NUMERIC_DIGITS + 1)) * BIG_KEY_SPAN +
		(lead - INT64CONST(100000000000000));
	return n->negative ? -key : key;
}

/*
 * The int8 key value of a non-NULL numeric v in group g of a collection
 * with big keys: v * 10^scale where it fits, NaN's stand-in, or a big key
 * with v kept.
 */
int64
GroupAggBigKeyScaled(GroupAggSink *sink, PercentileCollection *pc, int64 g, Datum v)
{
	int64		scaled = GpuselNumericToScaledFit(v, pc->numeric_scale);
	NumericStored n;
	int64		key;

	if (scaled == GS_NUMERIC_NAN)
	{
		keep_big(sink, pc, g, scaled, (Datum) 0);
		return scaled;
	}
	if (scaled != GPUSEL_NUMERIC_UNFIT && scaled != GPUSEL_NUMERIC_POS_INF &&
		scaled != GPUSEL_NUMERIC_NEG_INF)
		return scaled;
	numeric_stored_decode(v, &n);
	if (n.kind != NUMERIC_STORED_FINITE || n.ndigits == 0)
		elog(ERROR, "gpusel found a numeric that its column's type does not allow");
	key = big_key(&n, pc->numeric_scale);
	keep_big(sink, pc, g, key, v);
	return key;
}

/* Orders kept values by group, then key. */
static int
big_cmp(const void *a, const void *b)
{
	const GroupBigKey *x = (const GroupBigKey *) a;
	const GroupBigKey *y = (const GroupBigKey *) b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

/* Orders numerics as numeric_cmp does. */
static int
value_cmp(const void *a, const void *b)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, *(const Datum *) a, *(const Datum *) b));
}

/* Whether every value of the array has the first one's bytes. */
static bool
all_same_bytes(const Datum *values, int64 n)
{
	Size		len = VARSIZE_ANY(DatumGetPointer(values[0]));

	for (int64 i = 1; i < n; i++)
		if (VARSIZE_ANY(DatumGetPointer(values[i])) != len ||
			memcmp(DatumGetPointer(values[i]), DatumGetPointer(values[0]), len) != 0)
			return false;
	return true;
}

/* The first kept entry from lo on (hi at most) whose group and key are at least g and key. */
static int64
first_at_least(const PercentileCollection *pc, int64 lo, int64 hi, int64 g, int64 key)
{
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		const GroupBigKey *b = &pc->bigs[mid];

		if (b->group < g || (b->group == g && b->key < key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The value that a percentile_disc at 'fraction' over the n keys of group
 * g read when it read big key K: its rank as percentile_disc takes it (row
 * ceil(fraction * n), the first at least) less the values before the ones
 * sharing K in the group's order, which holds the low values, the scaled
 * ones, the high values and NaN (reversed for a descending order).
 */
static Datum
resolve_big_key(PercentileCollection *pc, int64 g, int64 n, double fraction, int64 K)
{
	int64		rownum = (int64) ceil(fraction * (double) n);
	int64		idx = Max(rownum, 1) - 1;
	int64		start;
	int64		end;
	int64		class_start;
	int64		class_end;
	int64		nclass;
	int64		before;
	int64		pos;
	Datum	   *values;
	Datum		result;

	if (!pc->bigs_sorted)
	{
		qsort(pc->bigs, pc->nbigs, sizeof(GroupBigKey), big_cmp);
		pc->bigs_sorted = true;
	}
	start = first_at_least(pc, 0, pc->nbigs, g, PG_INT64_MIN);
	end = first_at_least(pc, start, pc->nbigs, g + 1, PG_INT64_MIN);
	class_start = first_at_least(pc, start, end, g, K);
	class_end = first_at_least(pc, class_start, end, g, K + 1);
	nclass = class_end - class_start;
	if (K < 0)
	{
		/* low values: before them only lower ones; after them everything else */
		before = !pc->descending ? class_start - start :
			n - (class_end - start);
	}
	else
	{
		int64		high_start = first_at_least(pc, start, end, g, 0);
		int64		nan_start = first_at_least(pc, start, end, g, GS_NUMERIC_NAN);

		before = !pc->descending ? n - (end - high_start) + (class_start - high_start) :
			(end - nan_start) + (nan_start - class_end);
	}
	pos = idx - before;
	if (nclass == 0 || pos < 0 || pos >= nclass)
		elog(ERROR, "gpusel lost a numeric percentile key past 18 digits");
	values = palloc_extended(sizeof(Datum) * nclass, MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < nclass; i++)
		values[i] = PointerGetDatum(pc->arena + pc->bigs[class_start + i].offset);
	/*
	 * Under a typmod equal values are stored alike (one display scale, no
	 * trailing zero groups): a repeated value needs no sort
	 */
	if (nclass > 1 && !all_same_bytes(values, nclass))
		qsort(values, nclass, sizeof(Datum), value_cmp);
	/* a copy of its own: the arena goes with the sink */
	result = datumCopy(values[!pc->descending ? pos : nclass - 1 - pos], false, -1);
	pfree(values);
	return result;
}

/* One scaled result as its numeric: a kept value where it is a big key. */
static Datum
scaled_result(PercentileCollection *pc, int64 g, int64 n, double fraction, int64 scaled)
{
	if (pc->big_keys && scaled != GS_NUMERIC_NAN &&
		(scaled >= BIG_KEY_BASE || scaled <= -BIG_KEY_BASE))
		return resolve_big_key(pc, g, n, fraction, scaled);
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
