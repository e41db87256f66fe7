/*
 * numeric_fast.h
 *	  The per-row fast path of the scaled numeric form's encoder, inline in
 *	  the readers' loops (column_form.h's GpuselFormEncode); the general
 *	  case is form_numeric.c's GpuselNumericToScaled.
 */
#ifndef GPUSEL_NUMERIC_FAST_H
#define GPUSEL_NUMERIC_FAST_H

#include "postgres.h"

#include "numeric_form.h"
#include "numeric_stored.h"

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

#endif							/* GPUSEL_NUMERIC_FAST_H */
