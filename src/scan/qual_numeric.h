/*
 * qual_numeric.h
 *	  Numeric columns as integers on the device: numeric(p,s) as scaled
 *	  int8 and its stand-ins (qual_numeric.c), and numeric(p,s) of 19 to 38
 *	  digits as 128-bit halves (qual_numeric_wide.c).
 */
#ifndef GPUSEL_QUAL_NUMERIC_H
#define GPUSEL_QUAL_NUMERIC_H

#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "nodes/pg_list.h"

/* qual_numeric.c: numeric(p,s) columns as scaled int8 */
#define GPUSEL_NUMERIC_NAN	PG_INT64_MAX	/* NaN's stand-in, above every value */
#define GPUSEL_NUMERIC_DIGITS	18	/* digits a scaled value holds: |v| < 10^18 */
/* GPUSEL_FORM_NUMERIC_FIT's stand-ins: -Infinity < every number < +Infinity < NaN */
#define GPUSEL_NUMERIC_POS_INF	(PG_INT64_MAX - 1)
#define GPUSEL_NUMERIC_NEG_INF	(PG_INT64_MIN + 1)
#define GPUSEL_NUMERIC_UNFIT	PG_INT64_MIN	/* a value that does not fit: never compared */
/* The scale an unconstrained numeric column travels at, with no numeric constant of a larger one */
#define GPUSEL_NUMERIC_FIT_MIN_SCALE 6
extern int64 GpuselPowerOfTen(int k);

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

extern bool GpuselNumericConstScaled(Datum value, int *scale, int64 *scaled);
extern bool GpuselNumericScale(Oid typid, int32 typmod, int *scale);
extern bool GpuselNumericFitScale(Oid typid, int32 typmod, int unconstrained_scale, int *scale);
extern int64 GpuselNumericToScaledFit(Datum value, int scale);
extern int	GpuselNumericConstsScale(List *quals);
extern int64 GpuselNumericToScaled(Datum value, int scale);
extern Datum GpuselScaledToNumeric(int64 scaled, int scale);
extern void GpuselNumericBound(int opcode, Datum constant, int scale,
							   int *out_opcode, int64 *bound);
extern int	GpuselNumericComparison(Oid funcid);
extern int	GpuselCommuteOpcode(int opcode);

/* qual_numeric_wide.c: numeric(p,s) columns of 19 to 38 digits as 128-bit integers */
#define GPUSEL_NUMERIC_WIDE_DIGITS	38	/* |v * 10^s| < 10^38 < 2^127 */
extern bool GpuselNumericWideScale(Oid typid, int32 typmod, int *scale);
extern void GpuselNumericToWideHalves(Datum value, int scale, int64 *hi, int64 *lo);

#endif							/* GPUSEL_QUAL_NUMERIC_H */
