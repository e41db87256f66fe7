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

#include "numeric_core.h"		/* GS_NUMERIC_NAN: NaN's stand-in, above every value */
#include "numeric_stored.h"

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

#endif							/* GPUSEL_NUMERIC_FORM_H */
