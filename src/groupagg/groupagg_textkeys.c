/*
 * groupagg_textkeys.c
 *	  Text group keys of the grouped scan: text, varchar and char(n) values
 *	  numbered by a dictionary, so that a row finds its group by a number
 *	  as a key of a device type does by its bits.
 *
 * Under a deterministic collation two text values are equal exactly when
 * their bytes are (texteq compares bytes then), and two char(n) values
 * exactly when their bytes are once trailing spaces are dropped
 * (bpchareq).  The dictionary keys each value by those bytes and keeps a
 * copy of the first value seen with them, which is what the group returns:
 * equal text values are the same bytes, and equal char(n) values are the
 * same bytes padded to the same n characters, as stored.
 *
 * The numbers belong to one process, so a grouped scan with a text key is
 * not offered under Gather (groupagg_plan.c).  Short char(n) keys, whose
 * bytes fit an int8, are packed instead (column_form.c) and stay columnar.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "fmgr.h"

#include "groupagg_internal.h"
#include "qual_compile.h"

/* Slots of a new dictionary (a power of two); it doubles at half full. */
#define TEXT_DICT_INITIAL_SLOTS 1024

/* One distinct value: its compared bytes and the value the group returns. */
typedef struct TextDictEntry
{
	uint64		hash;
	int32		len;			/* of the compared bytes */
	const char *bytes;			/* inside value */
	Datum		value;			/* a copy, with a 4-byte header */
} TextDictEntry;

struct GroupTextDict
{
	MemoryContext cxt;
	bool		blank_padded;	/* char(n): trailing spaces do not count */
	TextDictEntry *entries;
	int64		nentries;
	int64		capacity;		/* entries allocated */
	int64	   *slots;			/* open addressing: entry + 1, 0 when empty */
	uint64		mask;
};

/*
 * Whether a group key is a column numbered by a dictionary: text and
 * varchar, and char(n) with its length unless its bytes are packed
 * (GpuselShortCharLength), under a deterministic collation.  A char without
 * a length can hold equal values that differ in trailing spaces, and which
 * of them a group returns would depend on row order: it stays with
 * PostgreSQL, as do key expressions.
 */
bool
GroupAggTextKey(Expr *key)
{
	Var		   *var = (Var *) key;
	int			length;

	if (!IsA(key, Var) ||
		(var->vartype != TEXTOID && var->vartype != VARCHAROID &&
		 !(var->vartype == BPCHAROID && var->vartypmod >= (int32) VARHDRSZ + 1)))
		return false;
	return GpuselCollationComparesBytes(var->varcollid) &&
		!GpuselShortCharLength(var->vartype, var->vartypmod, var->varcollid, &length);
}

/* An empty dictionary in cxt; blank_padded for char(n) values. */
GroupTextDict *
GroupTextDictCreate(MemoryContext cxt, bool blank_padded)
{
	GroupTextDict *dict = MemoryContextAllocZero(cxt, sizeof(GroupTextDict));

	dict->cxt = cxt;
	dict->blank_padded = blank_padded;
	dict->capacity = TEXT_DICT_INITIAL_SLOTS / 2;
	dict->entries = MemoryContextAlloc(cxt, sizeof(TextDictEntry) * dict->capacity);
	dict->slots = MemoryContextAllocZero(cxt, sizeof(int64) * TEXT_DICT_INITIAL_SLOTS);
	dict->mask = TEXT_DICT_INITIAL_SLOTS - 1;
	return dict;
}

/* Doubles the slots and the entries, placing every entry again. */
static void
grow_dict(GroupTextDict *dict)
{
	uint64		nslots = (dict->mask + 1) * 2;

	dict->capacity *= 2;
	dict->entries = repalloc_huge(dict->entries, sizeof(TextDictEntry) * dict->capacity);
	pfree(dict->slots);
	dict->slots = MemoryContextAllocExtended(dict->cxt, sizeof(int64) * nslots,
											 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	dict->mask = nslots - 1;
	for (int64 e = 0; e < dict->nentries; e++)
	{
		uint64		i = dict->entries[e].hash & dict->mask;

		while (dict->slots[i] != 0)
			i = (i + 1) & dict->mask;
		dict->slots[i] = e + 1;
	}
}

/* Adds a value whose compared bytes are s[0..len), keeping a copy of all of it. */
static int64
add_entry(GroupTextDict *dict, uint64 hash, const char *data, int32 datalen, int32 len,
		  uint64 slot)
{
	TextDictEntry *entry;
	text	   *copy;
	int64		e;

	copy = MemoryContextAlloc(dict->cxt, VARHDRSZ + datalen);
	SET_VARSIZE(copy, VARHDRSZ + datalen);
	memcpy(VARDATA(copy), data, datalen);
	e = dict->nentries++;
	entry = &dict->entries[e];
	entry->hash = hash;
	entry->len = len;
	entry->bytes = VARDATA(copy);
	entry->value = PointerGetDatum(copy);
	dict->slots[slot] = e + 1;
	if (dict->nentries == dict->capacity)
		grow_dict(dict);
	return e;
}

/* The number of a text value: equal values, and only they, get the same one. */
uint64
GroupTextDictNumber(GroupTextDict *dict, Datum value)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = pg_detoast_datum_packed(raw);
	const char *data = VARDATA_ANY(v);
	int32		datalen = VARSIZE_ANY_EXHDR(v);
	int32		len = datalen;
	uint64		hash;
	uint64		i;
	int64		e = -1;

	if (dict->blank_padded)
		while (len > 0 && data[len - 1] == ' ')
			len--;
	hash = hash_bytes_extended((const unsigned char *) data, len, 0);
	for (i = hash & dict->mask; dict->slots[i] != 0; i = (i + 1) & dict->mask)
	{
		TextDictEntry *entry = &dict->entries[dict->slots[i] - 1];

		if (entry->hash == hash && entry->len == len && memcmp(entry->bytes, data, len) == 0)
		{
			e = dict->slots[i] - 1;
			break;
		}
	}
	if (e < 0)
		e = add_entry(dict, hash, data, datalen, len, i);
	if (v != raw)
		pfree(v);				/* a detoasted copy: the dictionary has its own */
	return (uint64) e;
}

/* The value a group of the given number returns. */
Datum
GroupTextDictValue(GroupTextDict *dict, uint64 number)
{
	Assert(number < (uint64) dict->nentries);
	return dict->entries[number].value;
}
