/*
 * order_keys.h
 *	  Order-preserving unsigned keys for the SQL types gpusel selects on
 *	  natively.  Sorting keys as unsigned integers gives PostgreSQL's default
 *	  btree order of the values, so selection never calls a comparator.
 */
#ifndef GPUSEL_ORDER_KEYS_H
#define GPUSEL_ORDER_KEYS_H

#include "postgres.h"

#include <math.h>

/*
 * The mappings themselves, inline for loops over a column (column_filter.c):
 * signed integers flip their sign bit (in 32 bits up to int4 and date, 64
 * from int8 and the timestamps); floats put every NaN last and -0 at +0.
 */
static inline uint64
KeyOfInt32(int32 v)
{
	return (uint32) v ^ UINT64CONST(0x80000000);
}

static inline uint64
KeyOfInt64(int64 v)
{
	return (uint64) v ^ UINT64CONST(0x8000000000000000);
}

static inline uint64
KeyOfFloat4(float4 f)
{
	uint32		bits;
	uint32		flip;

	/* branch-free, so that loops over columns stay straight: -0 + 0 is +0 */
	f += 0.0f;
	memcpy(&bits, &f, sizeof(bits));
	flip = (uint32) ((int32) bits >> 31) | 0x80000000;
	return isnan(f) ? PG_UINT32_MAX : (bits ^ flip);
}

static inline uint64
KeyOfFloat8(float8 f)
{
	uint64		bits;
	uint64		flip;

	/* as KeyOfFloat4: NaN largest, -0 made +0, negatives reversed */
	f += 0.0;
	memcpy(&bits, &f, sizeof(bits));
	flip = (uint64) ((int64) bits >> 63) | UINT64CONST(0x8000000000000000);
	return isnan(f) ? PG_UINT64_MAX : (bits ^ flip);
}

/* How one SQL type maps to and from keys. */
typedef struct KeyType
{
	Oid			typid;
	int			key_bytes;		/* 4 or 8 */
	uint64		(*to_key) (Datum value);
	Datum		(*from_key) (uint64 key);
	uint64		zero_key;		/* key of the value 0 */
	/* floats only, NULL elsewhere: tests for -0, and makes it */
	bool		(*is_negative_zero) (Datum value);
	Datum		(*negative_zero) (void);
} KeyType;

/*
 * The pairs of a batch column type (gs_coltype) and a key type that loops
 * over a block of a column take: runs LOOP(ctype, key_of) for the pair, a
 * narrower column widened by key_of's parameter as a cross-type comparison
 * widens it, or 'otherwise' for a pair without one.  KeysOfColumn and the
 * CPU's column tests (column_filter.c) share it.
 */
#define KEY_LOOP_DISPATCH(coltype, keytypid, LOOP, otherwise) \
	switch (keytypid) \
	{ \
		case INT2OID: \
		case INT4OID: \
		case DATEOID: \
			if ((coltype) == GS_COL_INT2) LOOP(int16, KeyOfInt32); \
			else if ((coltype) == GS_COL_INT4) LOOP(int32, KeyOfInt32); \
			else otherwise; \
			break; \
		case INT8OID: \
		case TIMESTAMPOID: \
		case TIMESTAMPTZOID: \
			if ((coltype) == GS_COL_INT2) LOOP(int16, KeyOfInt64); \
			else if ((coltype) == GS_COL_INT4) LOOP(int32, KeyOfInt64); \
			else if ((coltype) == GS_COL_INT8) LOOP(int64, KeyOfInt64); \
			else otherwise; \
			break; \
		case FLOAT4OID: \
			if ((coltype) == GS_COL_FLOAT4) LOOP(float4, KeyOfFloat4); \
			else otherwise; \
			break; \
		case FLOAT8OID: \
			if ((coltype) == GS_COL_FLOAT4) LOOP(float4, KeyOfFloat8); \
			else if ((coltype) == GS_COL_FLOAT8) LOOP(float8, KeyOfFloat8); \
			else otherwise; \
			break; \
		default: \
			otherwise; \
	}

/* Rows whose keys KeysOfColumn callers compute at once. */
#define KEYS_BLOCK 1024

extern const KeyType *KeyTypeLookup(Oid typid);

/*
 * A percentile input type without keys that the grouped scan keeps whole
 * (kept_values.c): its values' bytes, fixed in length, and whether
 * percentile_cont interpolates it.
 */
typedef struct KeptValueType
{
	Oid			typid;
	int			value_bytes;
	bool		continuous;
} KeptValueType;

extern const KeptValueType *KeptValueTypeLookup(Oid typid);
extern bool KeysOfColumn(int coltype, Oid keytypid, const void *values, const uint32 *rows,
						 int64 first, int len, uint64 *keys);

#endif							/* GPUSEL_ORDER_KEYS_H */
