/*
 * qual_numeric.c
 *	  numeric(p,s) columns on the device, as 64-bit integers scaled by 10^s.
 *
 * A column whose typmod allows at most 18 digits (p <= 18, 0 <= s <= 18)
 * holds values |v| < 10^18, so v * 10^s is an exact int64; TPC-H's
 * DECIMAL(15,2) is such a column.  NaN, which such a column may hold and
 * which PostgreSQL orders above every number and equal to itself, becomes
 * GPUSEL_NUMERIC_NAN (INT64_MAX), above every scaled value; infinities
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
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "numeric_stored.h"
#include "qual_compile.h"

/* The digits a scaled column may hold: |v * 10^s| < 10^GPUSEL_NUMERIC_DIGITS. */

static const int64 powers_of_ten[GPUSEL_NUMERIC_DIGITS + 1] = {
	1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
	100000000LL, 1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL,
	10000000000000LL, 100000000000000LL, 1000000000000000LL,
	10000000000000000LL, 100000000000000000LL, 1000000000000000000LL
};

/*
 * Whether a column of this type and typmod fits the device as scaled
 * integers; sets *scale to the scale its values travel at (the typmod's,
 * or 0 for a negative one).
 */
bool
GpuselNumericScale(Oid typid, int32 typmod, int *scale)
{
	int32		precision;
	int32		s;

	if (!GpuselNumericTypmod(typid, typmod, &precision, &s))
		return false;
	if (precision < 1 || s > GPUSEL_NUMERIC_DIGITS)
		return false;
	if (s < 0)
	{
		/*
		 * A negative scale rounds to a multiple of 10^-s: whole numbers of
		 * up to precision - s digits, stored with display scale 0, so they
		 * travel at scale 0.
		 */
		if (precision - s > GPUSEL_NUMERIC_DIGITS)
			return false;
		*scale = 0;
		return true;
	}
	if (precision > GPUSEL_NUMERIC_DIGITS)
		return false;
	*scale = s;
	return true;
}

/*
 * Whether a numeric column the device takes only where its values fit
 * (GPUSEL_FORM_NUMERIC_FIT): a typmod of more than 18 digits with a scale
 * of at most 18 (a negative scale travels at 0), or no typmod, which
 * travels at 'unconstrained_scale'.  Sets *scale.
 */
bool
GpuselNumericFitScale(Oid typid, int32 typmod, int unconstrained_scale, int *scale)
{
	int32		precision;
	int32		s;

	if (typid != NUMERICOID)
		return false;
	if (!GpuselNumericTypmod(typid, typmod, &precision, &s))
	{
		*scale = unconstrained_scale;
		return true;
	}
	if (s > GPUSEL_NUMERIC_DIGITS)
		return false;
	*scale = Max(s, 0);
	return true;
}

/* Walker of GpuselNumericConstsScale: the largest display scale of a numeric constant. */
static bool
consts_scale_walker(Node *node, int *scale)
{
	if (node == NULL)
		return false;
	if (IsA(node, Const) && ((Const *) node)->consttype == NUMERICOID &&
		!((Const *) node)->constisnull)
	{
		int			s;
		int64		scaled;

		if (GpuselNumericConstScaled(((Const *) node)->constvalue, &s, &scaled))
			*scale = Max(*scale, s);
		return false;
	}
	return expression_tree_walker(node, consts_scale_walker, scale);
}

/*
 * The scale unconstrained numeric columns of a program travel at: the
 * largest display scale of the quals' numeric constants that fit, so that
 * each compares with its bound exactly, and at least
 * GPUSEL_NUMERIC_FIT_MIN_SCALE, so that values with a few decimals fit.
 */
int
GpuselNumericConstsScale(List *quals)
{
	int			scale = GPUSEL_NUMERIC_FIT_MIN_SCALE;

	consts_scale_walker((Node *) quals, &scale);
	return Min(scale, GPUSEL_NUMERIC_DIGITS);
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
			return GPUSEL_NUMERIC_NAN;
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
 * GPUSEL_NUMERIC_NAN.  Runs once per row and numeric column of a scan:
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
		return GPUSEL_NUMERIC_NAN;
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
	if (scaled == GPUSEL_NUMERIC_NAN)
		return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return NumericGetDatum(int64_div_fast_to_numeric(scaled, scale));
}

/* A finite numeric as an int64, clamped to +-10^18 (no scaled value reaches either). */
static int64
clamp_to_int64(Datum n)
{
	Datum		limit = NumericGetDatum(int64_to_numeric(powers_of_ten[GPUSEL_NUMERIC_DIGITS]));
	Datum		neg_limit = DirectFunctionCall1(numeric_uminus, limit);

	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, n, limit)) >= 0)
		return powers_of_ten[GPUSEL_NUMERIC_DIGITS];
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, n, neg_limit)) <= 0)
		return -powers_of_ten[GPUSEL_NUMERIC_DIGITS];
	return DatumGetInt64(DirectFunctionCall1(numeric_int8, n));
}

/*
 * "column opcode constant", for a column of scale 'scale' and a non-NULL
 * numeric constant, as "scaled column *out_opcode *bound" compared as
 * int8, with the same answer for every value the column can hold, NaN
 * included.  An answer that is the same for every non-NULL value comes
 * back as "<= INT64_MAX" (always true) or "> INT64_MAX" (always false).
 */
void
GpuselNumericBound(int opcode, Datum constant, int scale, int *out_opcode, int64 *bound)
{
	Numeric		c = DatumGetNumeric(constant);
	Datum		scaled;
	Datum		lo;
	Datum		hi;
	bool		exact;

	*out_opcode = opcode;
	if (numeric_is_nan(c))
	{
		/* NaN equals the NaN stand-in and is above every number */
		*bound = GPUSEL_NUMERIC_NAN;
		return;
	}
	if (numeric_is_inf(c))
	{
		bool		positive = DatumGetInt32(DirectFunctionCall2(numeric_cmp, constant,
																  NumericGetDatum(int64_to_numeric(0)))) > 0;

		/*
		 * The infinities' stand-ins lie between every number and NaN, and
		 * below every number; the comparison keeps its operator (a column
		 * under a typmod holds neither, and compares the same)
		 */
		*bound = positive ? GPUSEL_NUMERIC_POS_INF : GPUSEL_NUMERIC_NEG_INF;
		return;
	}

	scaled = DirectFunctionCall2(numeric_mul, constant,
								 NumericGetDatum(int64_to_numeric(powers_of_ten[scale])));
	lo = DirectFunctionCall1(numeric_floor, scaled);
	hi = DirectFunctionCall1(numeric_ceil, scaled);
	exact = DatumGetInt32(DirectFunctionCall2(numeric_cmp, lo, hi)) == 0;
	switch (opcode)
	{
		case GS_OP_LT:			/* v < c  <=>  v < ceil(c * 10^s) */
		case GS_OP_GE:			/* v >= c <=>  v >= ceil(c * 10^s) */
			*bound = clamp_to_int64(hi);
			return;
		case GS_OP_LE:			/* v <= c <=>  v <= floor(c * 10^s) */
		case GS_OP_GT:			/* v > c  <=>  v > floor(c * 10^s) */
			*bound = clamp_to_int64(lo);
			return;
		default:
			{
				int64		b = clamp_to_int64(lo);

				if (exact && b > -powers_of_ten[GPUSEL_NUMERIC_DIGITS] &&
					b < powers_of_ten[GPUSEL_NUMERIC_DIGITS])
				{
					*bound = b;
					return;
				}
				/* no value of the column equals the constant */
				*out_opcode = opcode == GS_OP_EQ ? GS_OP_GT : GS_OP_LE;
				*bound = PG_INT64_MAX;
				return;
			}
	}
}

/* numeric's comparison functions as device opcodes, "left OP right". */
static const struct
{
	Oid			funcid;
	int16		opcode;
}			numeric_comparisons[] = {
	{F_NUMERIC_LT, GS_OP_LT}, {F_NUMERIC_LE, GS_OP_LE}, {F_NUMERIC_EQ, GS_OP_EQ},
	{F_NUMERIC_NE, GS_OP_NE}, {F_NUMERIC_GE, GS_OP_GE}, {F_NUMERIC_GT, GS_OP_GT},
};

/*
 * If funcid is one of numeric's comparisons, returns its opcode as
 * "left OP right"; otherwise -1.
 */
int
GpuselNumericComparison(Oid funcid)
{
	for (int i = 0; i < lengthof(numeric_comparisons); i++)
		if (numeric_comparisons[i].funcid == funcid)
			return numeric_comparisons[i].opcode;
	return -1;
}

/* The opcode of "b OP' a" equal to "a OP b". */
int
GpuselCommuteOpcode(int opcode)
{
	switch (opcode)
	{
		case GS_OP_LT:
			return GS_OP_GT;
		case GS_OP_LE:
			return GS_OP_GE;
		case GS_OP_GT:
			return GS_OP_LT;
		case GS_OP_GE:
			return GS_OP_LE;
		default:
			return opcode;
	}
}
