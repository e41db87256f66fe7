/*
 * form_short_char.c
 *	  The catalogue's packed char(n) form (GPUSEL_FORM_SHORT_CHAR): a char(n)
 *	  column of at most 7 bytes as its bytes packed in an int8.
 *
 * A char(n) value compares equal to another when they are equal once
 * trailing spaces are dropped (bpchareq, under a deterministic collation).
 * When n characters take at most 7 bytes in the database encoding, the
 * value without its trailing spaces fits an int8 as its bytes (byte i at
 * bits 8i) and its length (the top byte): equal values, and only they,
 * pack to the same int8.  So such a column can be a group key keyed as
 * int8 (TPC-H's l_returnflag and l_linestatus are char(1)).  A stored
 * char(n) value always has exactly n characters, so the value unpacks by
 * padding with spaces back to n characters.
 */
#include "postgres.h"

#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "column_form.h"

/* The bytes a packed value holds; the eighth is its length. */
#define SHORT_CHAR_BYTES	7

/*
 * Whether equality of text under this collation is equality of bytes (of
 * char(n) values without their trailing spaces): deterministic ones.
 */
bool
GpuselCollationComparesBytes(Oid collid)
{
	if (!OidIsValid(collid))
		return false;
	return collid == DEFAULT_COLLATION_OID || collid == C_COLLATION_OID ||
		get_collation_isdeterministic(collid);
}

/*
 * Whether a column of this type, typmod and collation is a short char(n)
 * column; sets *length to n.
 */
bool
GpuselShortCharLength(Oid typid, int32 typmod, Oid collid, int *length)
{
	int			n;

	if (typid != BPCHAROID || typmod < (int32) VARHDRSZ)
		return false;
	n = typmod - VARHDRSZ;
	if (n < 1 || n * pg_database_encoding_max_length() > SHORT_CHAR_BYTES)
		return false;
	/* equality must be byte equality once trailing spaces are gone */
	if (OidIsValid(collid) && !GpuselCollationComparesBytes(collid))
		return false;
	*length = n;
	return true;
}

/* A char(n) value without its trailing spaces, packed in an int8. */
int64
GpuselShortCharPack(Datum value, int n)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	const char *s;
	int			len;
	uint64		packed = 0;

	if (unlikely(VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)))
		v = pg_detoast_datum_packed(v);
	s = VARDATA_ANY(v);
	len = VARSIZE_ANY_EXHDR(v);
	while (len > 0 && s[len - 1] == ' ')
		len--;
	if (unlikely(len > SHORT_CHAR_BYTES))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("char(%d) value longer than its type allows", n)));
	for (int i = 0; i < len; i++)
		packed |= (uint64) (unsigned char) s[i] << (8 * i);
	packed |= (uint64) len << (8 * SHORT_CHAR_BYTES);
	return (int64) packed;
}

/* A packed char(n) value as the stored value: its bytes, padded to n characters. */
Datum
GpuselShortCharUnpack(int64 packed, int n)
{
	uint64		p = (uint64) packed;
	int			len = (int) (p >> (8 * SHORT_CHAR_BYTES));
	char		buf[SHORT_CHAR_BYTES + 1];
	int			chars;
	BpChar	   *result;

	for (int i = 0; i < len; i++)
		buf[i] = (char) ((p >> (8 * i)) & 0xFF);
	chars = pg_mbstrlen_with_len(buf, len);
	result = (BpChar *) palloc(VARHDRSZ + len + Max(n - chars, 0));
	SET_VARSIZE(result, VARHDRSZ + len + Max(n - chars, 0));
	memcpy(VARDATA(result), buf, len);
	memset(VARDATA(result) + len, ' ', Max(n - chars, 0));
	return PointerGetDatum(result);
}
