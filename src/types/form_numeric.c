/*
 * form_numeric.c
 *	  The numeric forms of the catalogue: numeric(p,s) columns as 64-bit
 *	  integers scaled by 10^s (GPUSEL_FORM_NUMERIC), and numeric columns read
 *	  that way where their values fit (GPUSEL_FORM_NUMERIC_FIT).
 *
 *
 * A column whose typmod allows at most 18 digits (p <= 18, 0 <= s <= 18)
 * holds values |v| < 10^18, so v * 10^s is an exact int64; TPC-H's
 * DECIMAL(15,2) is such a column.  NaN, which such a column may hold and
 * which PostgreSQL orders above every number and equal to itself, becomes
 * GS_NUMERIC_NAN (INT64_MAX), above every scaled value; infinities
 * cannot be stored under a typmod.  Compared as integers, the scaled values
 * therefore order exactly as PostgreSQL orders the numerics.
 *
 * The batch holds the scaled integers as an int8 column, so the device and
 * the CPU's column filter compare them like any int8.  A comparison with a
 * numeric constant becomes a comparison with an integer bound, computed
 * with PostgreSQL's own numeric arithmetic (floor and ceiling of the
 * constant times 10^s).  Values are read from the stored format directly
 * (numeric_stored.h), because each row of a scan pays it.
 *
 * A numeric column whose typmod allows more than 18 digits, or that has no
 * typmod, travels the same way in device quals where each value fits
 * (GPUSEL_FORM_NUMERIC_FIT): at the typmod's scale, or for an unconstrained
 * column at the largest scale of the quals' numeric constants (at least
 * GPUSEL_NUMERIC_FIT_MIN_SCALE).  A value with more digits than that, or
 * more decimals, becomes GPUSEL_NUMERIC_UNFIT, and a range guard on the
 * column raises a row error for it: the executor then evaluates that
 * batch with PostgreSQL's numerics, so the answers never change.  The
 * infinities, which an unconstrained column may hold, have stand-ins of
 * their own between the numbers and NaN.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "numeric_form.h"
#include "numeric_stored.h"

/* The digits a scaled column may hold: |v * 10^s| < 10^GPUSEL_NUMERIC_DIGITS. */

static const int64 powers_of_ten[GPUSEL_NUMERIC_DIGITS + 1] = {
	1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
	100000000LL, 1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL,
	10000000000000LL, 100000000000000LL, 1000000000000000LL,
	10000000000000000LL, 100000000000000000LL, 1000000000000000000LL
};

/*
 * A numeric type's typmod as the shape the forms are chosen by (false for
 * another type).  A negative scale rounds to a multiple of 10^-s: whole
 * numbers of up to p - s digits stored with display scale 0, so such a
 * column travels at scale 0 and counts p - s digits.
 */
bool
GpuselNumericShapeOf(Oid typid, int32 typmod, GpuselNumericShape *shape)
{
	int32		precision;
	int32		s;

	if (typid != NUMERICOID)
		return false;
	shape->constrained = GpuselNumericTypmod(typid, typmod, &precision, &s);
	if (!shape->constrained)
	{
		shape->digits = shape->scale = shape->typmod_scale = -1;
		return true;
	}
	shape->typmod_scale = s;
	shape->digits = s < 0 ? precision - s : precision;
	shape->scale = Max(s, 0);
	return true;
}

/*
 * Whether a column of this type and typmod travels as scaled int8 whole
 * (GPUSEL_FORM_NUMERIC): at most 18 digits and a scale of at most 18.
 * Sets *scale to the scale its values travel at.
 */
bool
GpuselNumericScale(Oid typid, int32 typmod, int *scale)
{
	GpuselNumericShape shape;

	if (!GpuselNumericShapeOf(typid, typmod, &shape) || !shape.constrained ||
		shape.digits < 1 || shape.digits > GPUSEL_NUMERIC_DIGITS ||
		shape.typmod_scale > GPUSEL_NUMERIC_DIGITS)
		return false;
	*scale = shape.scale;
	return true;
}

/*
 * Whether a numeric column may travel as scaled int8 where its values fit
 * (GPUSEL_FORM_NUMERIC_FIT): a scale of at most 18, or no typmod, which
 * travels at 'unconstrained_scale'.  Sets *scale.
 */
bool
GpuselNumericFitScale(Oid typid, int32 typmod, int unconstrained_scale, int *scale)
{
	GpuselNumericShape shape;

	if (!GpuselNumericShapeOf(typid, typmod, &shape))
		return false;
	if (!shape.constrained)
	{
		*scale = unconstrained_scale;
		return true;
	}
	if (shape.typmod_scale > GPUSEL_NUMERIC_DIGITS)
		return false;
	*scale = shape.scale;
	return true;
}

/*
 * Whether a column travels as 128-bit halves (GPUSEL_FORM_NUMERIC_WIDE_HI
 * and _LO): 19 to 38 digits and a scale of at most 38.  Sets *scale.
 */
bool
GpuselNumericWideScale(Oid typid, int32 typmod, int *scale)
{
	GpuselNumericShape shape;

	if (!GpuselNumericShapeOf(typid, typmod, &shape) || !shape.constrained ||
		shape.digits <= GPUSEL_NUMERIC_DIGITS || shape.digits > GPUSEL_NUMERIC_WIDE_DIGITS ||
		shape.typmod_scale > GPUSEL_NUMERIC_WIDE_DIGITS)
		return false;
	*scale = shape.scale;
	return true;
}

/* 10^k, for 0 <= k <= GPUSEL_NUMERIC_DIGITS. */
int64
GpuselPowerOfTen(int k)
{
	Assert(k >= 0 && k <= GPUSEL_NUMERIC_DIGITS);
	return powers_of_ten[k];
}

/*
 * A numeric constant as v * 10^scale in an int8, at its own display scale
 * (the scale numeric arithmetic gives it): false for NaN, the infinities,
 * a display scale above 18 or a scaled value of 18 digits or more.
 */
bool
GpuselNumericConstScaled(Datum value, int *scale, int64 *scaled)
{
	NumericStored n;
	int128		acc = 0;
	int			shift;

	numeric_stored_decode(value, &n);
	if (n.kind != NUMERIC_STORED_FINITE || n.dscale > GPUSEL_NUMERIC_DIGITS)
		return false;
	if (n.ndigits == 0)
	{
		*scale = n.dscale;
		*scaled = 0;
		return true;
	}
	/* six groups of four digits cover every value of 18 digits */
	if (n.ndigits > 6)
		return false;
	for (int i = 0; i < n.ndigits; i++)
		acc = acc * NUMERIC_STORED_BASE + numeric_stored_digit(&n, i);
	/* the last group's decimals past the display scale are zeros */
	shift = n.dscale - NUMERIC_STORED_BASE_DECIMALS * (n.ndigits - 1 - n.weight);
	for (; shift < 0; shift++)
	{
		if (acc % 10 != 0)
			return false;
		acc /= 10;
	}
	for (; shift > 0 && acc < (int128) powers_of_ten[GPUSEL_NUMERIC_DIGITS]; shift--)
		acc *= 10;
	if (shift > 0 || acc >= (int128) powers_of_ten[GPUSEL_NUMERIC_DIGITS])
		return false;
	*scale = n.dscale;
	*scaled = n.negative ? -(int64) acc : (int64) acc;
	return true;
}

/* Raised for a stored value that its column's typmod should not allow. */
static void
value_out_of_typmod(int scale)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("numeric value does not fit its column's type"),
			 errdetail("A value of a numeric column with scale %d has more than %d digits or more decimals than the scale.",
					   scale, GPUSEL_NUMERIC_DIGITS)));
}

/*
 * A finite stored numeric as v * 10^scale where |v * 10^scale| < 10^18 and
 * v has no more decimals than the scale, else GPUSEL_NUMERIC_UNFIT: the
 * digit string in 128 bits, times 10^shift, where a negative shift drops
 * decimals that must be zeros.
 */
static int64
scaled_or_unfit(const NumericStored *n, int scale)
{
	int128		acc = 0;
	int128		limit = (int128) powers_of_ten[GPUSEL_NUMERIC_DIGITS];
	int			shift;

	if (n->ndigits == 0)
		return 0;
	/* the value is at least 10^(4 * weight): from 10^18 / 10^scale on it cannot fit */
	if (NUMERIC_STORED_BASE_DECIMALS * n->weight >= GPUSEL_NUMERIC_DIGITS - scale)
		return GPUSEL_NUMERIC_UNFIT;
	for (int i = 0; i < n->ndigits; i++)
	{
		acc = acc * NUMERIC_STORED_BASE + numeric_stored_digit(n, i);
		/* past 10^26 no three dropped zero decimals bring it below 10^18 */
		if (acc >= limit * NUMERIC_STORED_BASE * NUMERIC_STORED_BASE)
			return GPUSEL_NUMERIC_UNFIT;
	}
	shift = scale - NUMERIC_STORED_BASE_DECIMALS * (n->ndigits - 1 - n->weight);
	for (; shift < 0; shift++)
	{
		if (acc % 10 != 0)
			return GPUSEL_NUMERIC_UNFIT;	/* a decimal past the scale */
		acc /= 10;
	}
	for (; shift > 0; shift--)
	{
		acc *= 10;
		if (acc >= limit)
			return GPUSEL_NUMERIC_UNFIT;
	}
	if (acc >= limit)
		return GPUSEL_NUMERIC_UNFIT;
	return n->negative ? -(int64) acc : (int64) acc;
}

/*
 * GpuselNumericToScaled for a digit string above 2^64 before its last
 * decimals are dropped (18 digits with decimals past the scale in the
 * last group): the same steps in 128 bits.
 */
static int64
scaled_wide(const NumericStored *n, int scale)
{
	int64		v = scaled_or_unfit(n, scale);

	if (v == GPUSEL_NUMERIC_UNFIT)
		value_out_of_typmod(scale);
	return v;
}

/*
 * A stored numeric as v * 10^scale where it fits (scaled_or_unfit), the
 * stand-ins of NaN and the infinities, or GPUSEL_NUMERIC_UNFIT.  Never
 * raises: a column of GPUSEL_FORM_NUMERIC_FIT may hold any numeric.
 */
int64
GpuselNumericToScaledFit(Datum value, int scale)
{
	NumericStored n;

	numeric_stored_decode(value, &n);
	switch (n.kind)
	{
		case NUMERIC_STORED_IS_NAN:
			return GS_NUMERIC_NAN;
		case NUMERIC_STORED_IS_PINF:
			return GPUSEL_NUMERIC_POS_INF;
		case NUMERIC_STORED_IS_NINF:
			return GPUSEL_NUMERIC_NEG_INF;
		default:
			return scaled_or_unfit(&n, scale);
	}
}

/*
 * A stored numeric of a column of scale 'scale' as v * 10^scale, or
 * GS_NUMERIC_NAN.  Runs once per row and numeric column of a scan:
 * 64-bit arithmetic with overflow checks, since a value that fits its
 * typmod stays below 10^18 at every step but the last digit group's (at
 * most three zero decimals past the scale).
 */
int64
GpuselNumericToScaled(Datum value, int scale)
{
	NumericStored n;
	int			shift;
	uint64		acc = 0;
	uint32		last;

	numeric_stored_decode(value, &n);
	if (unlikely(n.kind != NUMERIC_STORED_FINITE))
	{
		if (n.kind != NUMERIC_STORED_IS_NAN)
			value_out_of_typmod(scale); /* an infinity */
		return GS_NUMERIC_NAN;
	}
	shift = scale - NUMERIC_STORED_BASE_DECIMALS * (n.ndigits - 1 - n.weight);
	if (n.ndigits == 0)
		return 0;
	for (int i = 0; i < n.ndigits - 1; i++)
	{
		if (unlikely(pg_mul_u64_overflow(acc, NUMERIC_STORED_BASE, &acc) ||
					 pg_add_u64_overflow(acc, (uint64) numeric_stored_digit(&n, i), &acc)))
			return scaled_wide(&n, scale);
	}
	last = (uint32) numeric_stored_digit(&n, n.ndigits - 1);
	if (likely(shift < 0 && shift >= -3))
	{
		/*
		 * The last group's last -shift decimals lie past the column's scale
		 * (zeros in a value of the typmod): the group alone is divided, by a
		 * constant, rather than the whole value (TPC-H's 24710.35 is stored
		 * as 2 4710 3500).
		 */
		uint32		kept;
		uint64		base;

		switch (shift)
		{
			case -1:
				kept = last / 10;
				base = 1000;
				break;
			case -2:
				kept = last / 100;
				base = 100;
				break;
			default:
				kept = last / 1000;
				base = 10;
				break;
		}
		if (unlikely(kept * (NUMERIC_STORED_BASE / base) != last))
			value_out_of_typmod(scale);
		if (unlikely(pg_mul_u64_overflow(acc, base, &acc) ||
					 pg_add_u64_overflow(acc, kept, &acc)))
			return scaled_wide(&n, scale);
	}
	else
	{
		if (unlikely(pg_mul_u64_overflow(acc, NUMERIC_STORED_BASE, &acc) ||
					 pg_add_u64_overflow(acc, last, &acc)))
			return scaled_wide(&n, scale);
		if (shift > 0)
		{
			if (unlikely(shift > GPUSEL_NUMERIC_DIGITS ||
						 pg_mul_u64_overflow(acc, (uint64) powers_of_ten[shift], &acc)))
				value_out_of_typmod(scale);
		}
		else if (shift < 0)
		{
			uint64		divisor;

			if (unlikely(-shift > GPUSEL_NUMERIC_DIGITS))
				value_out_of_typmod(scale);
			divisor = (uint64) powers_of_ten[-shift];
			if (unlikely(acc % divisor != 0))
				value_out_of_typmod(scale);
			acc /= divisor;
		}
	}
	if (unlikely(acc >= (uint64) powers_of_ten[GPUSEL_NUMERIC_DIGITS]))
		value_out_of_typmod(scale);
	return n.negative ? -(int64) acc : (int64) acc;
}

/* A scaled value (GpuselNumericToScaled) back as the numeric it came from. */
Datum
GpuselScaledToNumeric(int64 scaled, int scale)
{
	if (scaled == GS_NUMERIC_NAN)
		return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return NumericGetDatum(int64_div_fast_to_numeric(scaled, scale));
}
