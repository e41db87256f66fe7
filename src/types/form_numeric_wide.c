/*
 * form_numeric_wide.c
 *	  The catalogue's 128-bit numeric form: a numeric(p,s) column of 19 to 38
 *	  digits as v * 10^s in two int8 batch columns, its high and low halves
 *	  (GPUSEL_FORM_NUMERIC_WIDE_HI and _LO).
 *
 * Such a column's values satisfy |v * 10^s| < 10^p <= 10^38 < 2^127, so
 * each is an exact int128 V, kept as hi = floor(V / 2^64) and
 * lo = (V mod 2^64) - 2^63: compared as a pair, high half first, the
 * halves order as the V do.  NaN is (INT64_MAX, INT64_MAX), above every
 * number's pair; a typmod forbids the infinities.  The comparisons that
 * read the pairs are compiled by scan/qual_numeric_wide.c.
 */
#include "postgres.h"

#include "column_form.h"
#include "numeric_stored.h"

/* Raised for a stored value that its column's typmod should not allow. */
static void
wide_value_out_of_typmod(int scale)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("numeric value does not fit its column's type"),
			 errdetail("A value of a numeric column with scale %d has more than %d digits "
					   "or more decimals than the scale.", scale, GPUSEL_NUMERIC_WIDE_DIGITS)));
}

/* (10^38 - 1) / 10^k: the largest acc that acc * 10^k keeps below 10^38 */
static int128 wide_mul_limit[GPUSEL_NUMERIC_WIDE_DIGITS + 1];
static int128 wide_pow10[GPUSEL_NUMERIC_WIDE_DIGITS + 1];

/* Fills the tables of powers of ten once: no 128-bit division per row. */
static void
wide_tables_init(void)
{
	if (wide_pow10[0] != 0)
		return;
	wide_pow10[0] = 1;
	for (int k = 1; k <= GPUSEL_NUMERIC_WIDE_DIGITS; k++)
		wide_pow10[k] = wide_pow10[k - 1] * 10;
	for (int k = 0; k <= GPUSEL_NUMERIC_WIDE_DIGITS; k++)
		wide_mul_limit[k] = (WIDE_LIMIT - 1) / wide_pow10[k];
}

/*
 * acc * 10^k + a (a < 10^k) for a value of a column of scale 'scale',
 * raising where the result would reach 10^38, which no value of the
 * typmod does.  acc * 10^k <= 10^38 - 1 - (10^38 - 1) mod 10^k, so adding
 * a stays below 10^38.
 */
static inline int128
wide_mul_add(int128 acc, int k, int a, int scale)
{
	if (unlikely(acc > wide_mul_limit[k]))
		wide_value_out_of_typmod(scale);
	return acc * wide_pow10[k] + a;
}

/*
 * A finite stored numeric as v * 10^scale in 128 bits.  The leading
 * groups gather in 64 bits while the value is below 10^14 (one more group
 * stays below 2^64).  The last digit group is divided before it joins the
 * rest (its decimals past the scale are zeros), so every step stays below
 * the value's 10^38.
 */
static int128
wide_scaled(const NumericStored *n, int scale)
{
	uint64		head = 0;
	int128		acc;
	int			i = 0;
	int			shift;
	int			last;

	if (n->ndigits == 0)
		return 0;
	for (; i < n->ndigits - 1 && head < UINT64CONST(100000000000000); i++)
		head = head * NUMERIC_STORED_BASE + (uint64) numeric_stored_digit(n, i);
	acc = (int128) head;
	for (; i < n->ndigits - 1; i++)
		acc = wide_mul_add(acc, NUMERIC_STORED_BASE_DECIMALS, numeric_stored_digit(n, i), scale);
	last = numeric_stored_digit(n, n->ndigits - 1);
	shift = scale - NUMERIC_STORED_BASE_DECIMALS * (n->ndigits - 1 - n->weight);
	if (shift < -(NUMERIC_STORED_BASE_DECIMALS - 1) || shift > GPUSEL_NUMERIC_WIDE_DIGITS)
		wide_value_out_of_typmod(scale);
	if (shift < 0)
	{
		int			divisor = (int) wide_pow10[-shift];

		if (last % divisor != 0)
			wide_value_out_of_typmod(scale);
		acc = wide_mul_add(acc, NUMERIC_STORED_BASE_DECIMALS + shift, last / divisor, scale);
	}
	else
	{
		acc = wide_mul_add(acc, NUMERIC_STORED_BASE_DECIMALS, last, scale);
		acc = wide_mul_add(acc, shift, 0, scale);
	}
	return n->negative ? -acc : acc;
}

/*
 * A stored numeric of a column of scale 'scale' as its two halves (the
 * batch values of GPUSEL_FORM_NUMERIC_WIDE_HI and _LO): once per row.
 */
void
GpuselNumericToWideHalves(Datum value, int scale, int64 *hi, int64 *lo)
{
	NumericStored n;
	int128		v;

	numeric_stored_decode(value, &n);
	if (unlikely(n.kind != NUMERIC_STORED_FINITE))
	{
		if (n.kind != NUMERIC_STORED_IS_NAN)
			wide_value_out_of_typmod(scale);	/* an infinity */
		*hi = WIDE_NAN_HI;
		*lo = WIDE_NAN_LO;
		return;
	}
	wide_tables_init();
	v = wide_scaled(&n, scale);
	*hi = GpuselWideHalf(v, true);
	*lo = GpuselWideHalf(v, false);
}
