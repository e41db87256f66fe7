/*
 * order_keys.c
 *	  Maps int2, int4, int8, float4, float8, date, timestamp and timestamptz
 *	  to unsigned keys whose unsigned order is PostgreSQL's btree order.
 *
 * Signed integers flip their sign bit.  Floats follow PostgreSQL's float
 * ordering, not IEEE's: every NaN is equal to every other NaN and greater
 * than +Infinity, so all NaNs map to the largest key; -0 equals +0, so -0
 * maps to the key of +0.  Consequently a selected zero is returned as +0 and
 * a selected NaN as the canonical NaN, which compare equal to the inputs.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/timestamp.h"

#include "gpusel_filter.h"
#include "order_keys.h"

#define SIGN32 UINT64CONST(0x80000000)
#define SIGN64 UINT64CONST(0x8000000000000000)

/* int2 -> key: widen to int32, flip the sign bit. */
static uint64
int2_to_key(Datum d)
{
	return KeyOfInt32(DatumGetInt16(d));
}

/* key -> int2. */
static Datum
key_to_int2(uint64 k)
{
	return Int16GetDatum((int16) (int32) (uint32) (k ^ SIGN32));
}

/* int4 (and date) -> key: flip the sign bit. */
static uint64
int4_to_key(Datum d)
{
	return KeyOfInt32(DatumGetInt32(d));
}

/* key -> int4 (and date). */
static Datum
key_to_int4(uint64 k)
{
	return Int32GetDatum((int32) (uint32) (k ^ SIGN32));
}

/* int8 (and timestamps) -> key: flip the sign bit. */
static uint64
int8_to_key(Datum d)
{
	return KeyOfInt64(DatumGetInt64(d));
}

/* key -> int8 (and timestamps). */
static Datum
key_to_int8(uint64 k)
{
	return Int64GetDatum((int64) (k ^ SIGN64));
}

/* float4 -> key, with NaN largest and -0 as +0. */
static uint64
float4_to_key(Datum d)
{
	return KeyOfFloat4(DatumGetFloat4(d));
}

/* key -> float4. */
static Datum
key_to_float4(uint64 k)
{
	uint32		key = (uint32) k;
	uint32		bits;
	float4		f;

	if (key == PG_UINT32_MAX)
		return Float4GetDatum(get_float4_nan());
	bits = (key & 0x80000000) ? (key & 0x7FFFFFFF) : ~key;
	memcpy(&f, &bits, sizeof(f));
	return Float4GetDatum(f);
}

/* float8 -> key, with NaN largest and -0 as +0. */
static uint64
float8_to_key(Datum d)
{
	return KeyOfFloat8(DatumGetFloat8(d));
}

/* key -> float8. */
static Datum
key_to_float8(uint64 k)
{
	uint64		bits;
	float8		f;

	if (k == PG_UINT64_MAX)
		return Float8GetDatum(get_float8_nan());
	bits = (k & SIGN64) ? (k & ~SIGN64) : ~k;
	memcpy(&f, &bits, sizeof(f));
	return Float8GetDatum(f);
}

/* Tests a float4 for -0. */
static bool
float4_is_negative_zero(Datum d)
{
	float4		f = DatumGetFloat4(d);

	return f == 0.0f && signbit(f);
}

/* Makes a float4 -0. */
static Datum
float4_negative_zero(void)
{
	return Float4GetDatum(-0.0f);
}

/* Tests a float8 for -0. */
static bool
float8_is_negative_zero(Datum d)
{
	float8		f = DatumGetFloat8(d);

	return f == 0.0 && signbit(f);
}

/* Makes a float8 -0. */
static Datum
float8_negative_zero(void)
{
	return Float8GetDatum(-0.0);
}

#define ZERO32 SIGN32
#define ZERO64 SIGN64

static const KeyType key_types[] = {
	{INT2OID, 4, int2_to_key, key_to_int2, ZERO32, NULL, NULL},
	{INT4OID, 4, int4_to_key, key_to_int4, ZERO32, NULL, NULL},
	{DATEOID, 4, int4_to_key, key_to_int4, ZERO32, NULL, NULL},
	{FLOAT4OID, 4, float4_to_key, key_to_float4, ZERO32, float4_is_negative_zero, float4_negative_zero},
	{INT8OID, 8, int8_to_key, key_to_int8, ZERO64, NULL, NULL},
	{TIMESTAMPOID, 8, int8_to_key, key_to_int8, ZERO64, NULL, NULL},
	{TIMESTAMPTZOID, 8, int8_to_key, key_to_int8, ZERO64, NULL, NULL},
	{FLOAT8OID, 8, float8_to_key, key_to_float8, ZERO64, float8_is_negative_zero, float8_negative_zero},
};

/* Returns the key mapping of a type, or NULL when it has none. */
const KeyType *
KeyTypeLookup(Oid typid)
{
	for (int i = 0; i < lengthof(key_types); i++)
	{
		if (key_types[i].typid == typid)
			return &key_types[i];
	}
	return NULL;
}

/*
 * The keys, in the mapping of type keytypid, of a block of a batch column
 * of physical type coltype (gs_coltype): rows rows[0..len) or, with rows
 * NULL, first..first + len; a narrower column is widened first, as a
 * cross-type comparison does.  NULL rows get a key of whatever their slot
 * holds.  One loop per pair, the mapping inline; false for a pair without
 * one (the caller maps row by row).
 */
bool
KeysOfColumn(int coltype, Oid keytypid, const void *values, const uint32 *rows,
			 int64 first, int len, uint64 *keys)
{
#define KEYS_LOOP(ctype, key_of) \
	do { \
		const ctype *col = (const ctype *) values; \
		if (rows != NULL) \
			for (int j = 0; j < len; j++) keys[j] = key_of(col[rows[j]]); \
		else \
			for (int j = 0; j < len; j++) keys[j] = key_of(col[first + j]); \
	} while (0)

	KEY_LOOP_DISPATCH(coltype, keytypid, KEYS_LOOP, return false);
	return true;
#undef KEYS_LOOP
}
