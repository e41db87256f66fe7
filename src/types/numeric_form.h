/*
 * numeric_form.h
 *	  numeric columns as integers: the one classifier of numeric typmods,
 *	  and the encodings of the numeric forms (form_numeric.c: scaled int8;
 *	  form_numeric_wide.c: 128-bit halves).
 */
#ifndef GPUSEL_NUMERIC_FORM_H
#define GPUSEL_NUMERIC_FORM_H

#include "postgres.h"

#include "catalog/pg_type_d.h"

#include "numeric_stored.h"

#define GPUSEL_NUMERIC_NAN	PG_INT64_MAX	/* NaN's stand-in, above every value */
#define GPUSEL_NUMERIC_DIGITS	18	/* digits a scaled value holds: |v| < 10^18 */
/* GPUSEL_FORM_NUMERIC_FIT's stand-ins: -Infinity < every number < +Infinity < NaN */
#define GPUSEL_NUMERIC_POS_INF	(PG_INT64_MAX - 1)
#define GPUSEL_NUMERIC_NEG_INF	(PG_INT64_MIN + 1)
#define GPUSEL_NUMERIC_UNFIT	PG_INT64_MIN	/* a value that does not fit: never compared */
/* The scale an unconstrained numeric column travels at, with no numeric constant of a larger one */
#define GPUSEL_NUMERIC_FIT_MIN_SCALE 6

/* 128-bit halves: |v * 10^s| < 10^38 < 2^127 */
#define GPUSEL_NUMERIC_WIDE_DIGITS	38
#define WIDE_LO_OFFSET	((int128) 1 << 63)
/* 10^38: every value of a column of at most 38 digits lies below it */
#define WIDE_LIMIT \
	((int128) INT64CONST(1000000000000000000) * INT64CONST(1000000000000000000) * 100)
/* The NaN pair, above every number's; the infinities' pairs for constants. */
#define WIDE_NAN_HI		PG_INT64_MAX
#define WIDE_NAN_LO		PG_INT64_MAX
#define WIDE_PINF_HI	PG_INT64_MAX
#define WIDE_PINF_LO	(PG_INT64_MAX - 1)
#define WIDE_NINF_HI	PG_INT64_MIN
#define WIDE_NINF_LO	PG_INT64_MIN

/*
 * What a numeric typmod allows, as the forms are chosen by: whether there
 * is a typmod, the digits of its values at the scale they travel at (p, or
 * p - s for a negative scale), that scale (s, or 0 for a negative one), and
 * the typmod's own scale.
 */
typedef struct GpuselNumericShape
{
	bool		constrained;
	int			digits;
	int			scale;
	int			typmod_scale;
} GpuselNumericShape;

/*
 * A numeric column's typmod as its precision and scale (an 11-bit signed
 * field since PostgreSQL 15); false for another type or no typmod.
 */
static inline bool
GpuselNumericTypmod(Oid typid, int32 typmod, int32 *precision, int32 *scale)
{
	if (typid != NUMERICOID || typmod < (int32) VARHDRSZ)
		return false;
	*precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	*scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	return true;
}

/* The high or low half of a 128-bit value, as the pair form keeps it. */
static inline int64
GpuselWideHalf(int128 v, bool high)
{
	if (high)
		return (int64) (v >> 64);
	return (int64) ((int128) (uint64) v - WIDE_LO_OFFSET);
}

/* form_numeric.c */
extern bool GpuselNumericShapeOf(Oid typid, int32 typmod, GpuselNumericShape *shape);
extern bool GpuselNumericScale(Oid typid, int32 typmod, int *scale);
extern bool GpuselNumericFitScale(Oid typid, int32 typmod, int unconstrained_scale, int *scale);
extern bool GpuselNumericWideScale(Oid typid, int32 typmod, int *scale);
extern int64 GpuselPowerOfTen(int k);
extern bool GpuselNumericConstScaled(Datum value, int *scale, int64 *scaled);
extern int64 GpuselNumericToScaledFit(Datum value, int scale);
extern int64 GpuselNumericToScaled(Datum value, int scale);
extern Datum GpuselScaledToNumeric(int64 scaled, int scale);

/* form_numeric_wide.c */
extern void GpuselNumericToWideHalves(Datum value, int scale, int64 *hi, int64 *lo);

/*
 * GpuselNumericToScaled for the form most stored values have, inline in
 * the readers' loops: a short varlena holding a short-header numeric of
 * one to four digit groups, whose last group has at most three decimals
 * past the column's scale.  Anything else (NaN, a long header, more
 * digits, a value the typmod should not allow) takes the function itself.
 */
static inline int64
GpuselNumericToScaledInline(Datum value, int scale)
{
	static const uint64 scale_up[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
	100000000};
	const struct varlena *v = (const struct varlena *) DatumGetPointer(value);
	const char *data;
	uint16		header;
	int			ndigits;
	int			weight;
	int			shift;
	uint64		acc = 0;
	uint32		last;

	if (!VARATT_IS_SHORT(v))
		return GpuselNumericToScaled(value, scale);
	data = VARDATA_SHORT(v);
	ndigits = (int) (VARSIZE_SHORT(v) - VARHDRSZ_SHORT - sizeof(uint16)) / (int) sizeof(int16);
	memcpy(&header, data, sizeof(uint16));
	if ((header & NUMERIC_STORED_SIGN_MASK) != NUMERIC_STORED_SHORT || ndigits < 1 || ndigits > 4)
		return GpuselNumericToScaled(value, scale);
	weight = header & NUMERIC_STORED_SHORT_WEIGHT;
	if (header & NUMERIC_STORED_SHORT_WEIGHT_NEG)
		weight |= ~NUMERIC_STORED_SHORT_WEIGHT;
	shift = scale - NUMERIC_STORED_BASE_DECIMALS * (ndigits - 1 - weight);
	if (shift < -3 || shift > 8)
		return GpuselNumericToScaled(value, scale);
	for (int i = 0; i < ndigits - 1; i++)
	{
		int16		d;

		memcpy(&d, data + sizeof(uint16) + i * sizeof(int16), sizeof(int16));
		acc = acc * NUMERIC_STORED_BASE + (uint64) d;	/* below 10^12: no overflow */
	}
	{
		int16		d;

		memcpy(&d, data + sizeof(uint16) + (ndigits - 1) * sizeof(int16), sizeof(int16));
		last = (uint32) d;
	}
	switch (shift)
	{
		case -1:
			if (last % 10 != 0)
				return GpuselNumericToScaled(value, scale);
			acc = acc * 1000 + last / 10;
			break;
		case -2:
			if (last % 100 != 0)
				return GpuselNumericToScaled(value, scale);
			acc = acc * 100 + last / 100;
			break;
		case -3:
			if (last % 1000 != 0)
				return GpuselNumericToScaled(value, scale);
			acc = acc * 10 + last / 1000;
			break;
		default:
			if (__builtin_mul_overflow(acc * NUMERIC_STORED_BASE + last, scale_up[shift], &acc))
				return GpuselNumericToScaled(value, scale);
			break;
	}
	if (acc >= UINT64CONST(1000000000000000000))
		return GpuselNumericToScaled(value, scale);
	return (header & NUMERIC_STORED_SHORT_SIGN) ? -(int64) acc : (int64) acc;
}

#endif							/* GPUSEL_NUMERIC_FORM_H */
