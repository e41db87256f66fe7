/*
 * numeric_stored.h
 *	  Reading a numeric value in its stored form, without PostgreSQL's
 *	  numeric calls.
 *
 * A numeric is a varlena holding a 16-bit header, for the long form a
 * 16-bit weight, then base-10000 digits, the first of weight 10000^weight.
 * The header says positive, negative, short (sign, display scale and
 * weight packed in the header) or special (NaN, +Infinity, -Infinity).
 * This is numeric.c's on-disk layout, which pg_upgrade keeps stable.  It is
 * read once per row by the scan (numeric columns as scaled integers) and
 * by the grouped scan's exact numeric sums.
 */
#ifndef GPUSEL_NUMERIC_STORED_H
#define GPUSEL_NUMERIC_STORED_H

#include "postgres.h"

#include "fmgr.h"

#define NUMERIC_STORED_SIGN_MASK		0xC000
#define NUMERIC_STORED_NEG				0x4000
#define NUMERIC_STORED_SHORT			0x8000
#define NUMERIC_STORED_SPECIAL			0xC000
#define NUMERIC_STORED_NAN				0xC000
#define NUMERIC_STORED_PINF				0xD000
#define NUMERIC_STORED_LONG_DSCALE		0x3FFF
#define NUMERIC_STORED_SHORT_SIGN		0x2000
#define NUMERIC_STORED_SHORT_DSCALE		0x1F80
#define NUMERIC_STORED_SHORT_DSCALE_SHIFT 7
#define NUMERIC_STORED_SHORT_WEIGHT_NEG 0x0040
#define NUMERIC_STORED_SHORT_WEIGHT		0x003F
#define NUMERIC_STORED_BASE				10000
#define NUMERIC_STORED_BASE_DECIMALS	4

/* What a stored numeric holds. */
typedef enum NumericStoredKind
{
	NUMERIC_STORED_FINITE,
	NUMERIC_STORED_IS_NAN,
	NUMERIC_STORED_IS_PINF,
	NUMERIC_STORED_IS_NINF
} NumericStoredKind;

/* A stored numeric, taken apart. */
typedef struct NumericStored
{
	NumericStoredKind kind;
	bool		negative;
	int			weight;			/* of the first digit: 10000^weight */
	int			dscale;			/* decimals shown */
	int			ndigits;
	const char *digits;			/* ndigits int16 base-10000 digits, unaligned */
} NumericStored;

/* Takes apart a numeric Datum (detoasting it first if it must). */
static inline void
numeric_stored_decode(Datum value, NumericStored *out)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	const char *data;
	uint16		header;
	int			header_bytes;

	if (unlikely(VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)))
		v = pg_detoast_datum_packed(v);
	data = VARDATA_ANY(v);
	memcpy(&header, data, sizeof(uint16));
	out->kind = NUMERIC_STORED_FINITE;
	if ((header & NUMERIC_STORED_SIGN_MASK) == NUMERIC_STORED_SHORT)
	{
		header_bytes = sizeof(uint16);
		out->negative = (header & NUMERIC_STORED_SHORT_SIGN) != 0;
		out->dscale = (header & NUMERIC_STORED_SHORT_DSCALE) >> NUMERIC_STORED_SHORT_DSCALE_SHIFT;
		out->weight = header & NUMERIC_STORED_SHORT_WEIGHT;
		if (header & NUMERIC_STORED_SHORT_WEIGHT_NEG)
			out->weight |= ~NUMERIC_STORED_SHORT_WEIGHT;
	}
	else if ((header & NUMERIC_STORED_SIGN_MASK) == NUMERIC_STORED_SPECIAL)
	{
		out->kind = header == NUMERIC_STORED_NAN ? NUMERIC_STORED_IS_NAN :
			header == NUMERIC_STORED_PINF ? NUMERIC_STORED_IS_PINF : NUMERIC_STORED_IS_NINF;
		out->negative = false;
		out->weight = 0;
		out->dscale = 0;
		out->ndigits = 0;
		out->digits = NULL;
		return;
	}
	else
	{
		int16		w;

		header_bytes = sizeof(uint16) + sizeof(int16);
		out->negative = (header & NUMERIC_STORED_SIGN_MASK) == NUMERIC_STORED_NEG;
		out->dscale = header & NUMERIC_STORED_LONG_DSCALE;
		memcpy(&w, data + sizeof(uint16), sizeof(int16));
		out->weight = w;
	}
	out->ndigits = (VARSIZE_ANY_EXHDR(v) - header_bytes) / sizeof(int16);
	out->digits = data + header_bytes;
}

/* Digit i of a decoded numeric. */
static inline int
numeric_stored_digit(const NumericStored *n, int i)
{
	int16		d;

	memcpy(&d, n->digits + i * sizeof(int16), sizeof(int16));
	return d;
}

/*
 * The power of ten that turns the digit string, read as one integer, into
 * the value times 10^dscale: dscale - 4 * (ndigits - 1 - weight).
 */
static inline int
numeric_stored_shift(const NumericStored *n)
{
	return n->ndigits == 0 ? 0 :
		n->dscale - NUMERIC_STORED_BASE_DECIMALS * (n->ndigits - 1 - n->weight);
}

#endif							/* GPUSEL_NUMERIC_STORED_H */
