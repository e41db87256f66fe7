/*
 * form_text_dict.c
 *	  The catalogue's dictionary form (GPUSEL_FORM_TEXT_DICT): a text,
 *	  varchar or char(n) group key read as the int8 number of its value in a
 *	  dictionary of the scan, so that a row finds its group by a number as a
 *	  key of a device type does by its bits.
 *
 * Under a deterministic collation two text values are equal exactly when
 * their bytes are (texteq compares bytes then), and two char(n) values
 * exactly when their bytes are once trailing spaces are dropped
 * (bpchareq).  The dictionary keys each value by those bytes and keeps a
 * copy of the first value seen with them, which is what the group returns:
 * equal text values are the same bytes, and equal char(n) values are the
 * same bytes padded to the same n characters, as stored.
 *
 * A dictionary belongs to one process and one scan.  Batch columns name it
 * by a slot of this process's table of open dictionaries (their form_arg).
 * Under Gather its numbers cross to the consumer with their values: a
 * worker sends its entries (GpuselTextDictSerialize) before the groups that
 * use their numbers, and the consumer numbers those values in its own
 * dictionary.  Short char(n) keys, whose bytes fit an int8, are packed
 * instead (form_short_char.c).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "fmgr.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"

#include "column_form.h"

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

typedef struct GpuselTextDict
{
	MemoryContext cxt;			/* its own: emptied on reset */
	int			slot;			/* in open_dicts */
	MemoryContextCallback reset_callback;
	bool		blank_padded;	/* char(n): trailing spaces do not count */
	TextDictEntry *entries;
	int64		nentries;
	int64		capacity;		/* entries allocated */
	int64	   *slots;			/* open addressing: entry + 1, 0 when empty */
	uint64		mask;
} GpuselTextDict;

static uint64 GpuselTextDictNumber(GpuselTextDict *dict, Datum value);
static Datum GpuselTextDictValue(GpuselTextDict *dict, uint64 number);

/* Dictionaries open in this process, by slot (a batch column's form_arg). */
#define TEXT_DICT_MAX_OPEN	1024
static GpuselTextDict *open_dicts[TEXT_DICT_MAX_OPEN];

/* Makes a dictionary empty, in its own context. */
static void
init_dict(GpuselTextDict *dict)
{
	dict->capacity = TEXT_DICT_INITIAL_SLOTS / 2;
	dict->nentries = 0;
	dict->entries = MemoryContextAlloc(dict->cxt, sizeof(TextDictEntry) * dict->capacity);
	dict->slots = MemoryContextAllocZero(dict->cxt, sizeof(int64) * TEXT_DICT_INITIAL_SLOTS);
	dict->mask = TEXT_DICT_INITIAL_SLOTS - 1;
}

/* Closes a dictionary's slot when its memory goes (the query's end, or an error). */
static void
close_dict(void *arg)
{
	GpuselTextDict *dict = (GpuselTextDict *) arg;

	if (open_dicts[dict->slot] == dict)
		open_dicts[dict->slot] = NULL;
}

/*
 * Opens an empty dictionary that lives as long as 'parent' (a query's
 * memory, never reset while the scan runs); blank_padded for char(n)
 * values.  Returns its slot.
 */
int
GpuselTextDictOpen(MemoryContext parent, bool blank_padded)
{
	GpuselTextDict *dict;
	int			slot;

	for (slot = 0; slot < TEXT_DICT_MAX_OPEN; slot++)
		if (open_dicts[slot] == NULL)
			break;
	if (slot == TEXT_DICT_MAX_OPEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many text group keys in one query"),
				 errdetail("gpusel numbers at most %d text group keys at once.",
						   TEXT_DICT_MAX_OPEN)));
	dict = MemoryContextAllocZero(parent, sizeof(GpuselTextDict));
	dict->cxt = AllocSetContextCreate(parent, "gpusel text keys", ALLOCSET_DEFAULT_SIZES);
	dict->slot = slot;
	dict->blank_padded = blank_padded;
	dict->reset_callback.func = close_dict;
	dict->reset_callback.arg = dict;
	MemoryContextRegisterResetCallback(parent, &dict->reset_callback);
	init_dict(dict);
	open_dicts[slot] = dict;
	return slot;
}

/* The dictionary open in a slot. */
static GpuselTextDict *
GpuselTextDictAt(int slot)
{
	if (slot < 0 || slot >= TEXT_DICT_MAX_OPEN || open_dicts[slot] == NULL)
		elog(ERROR, "gpusel has no text key dictionary open in slot %d", slot);
	return open_dicts[slot];
}

/* Empties a dictionary: numbers start over (a rescan, or a worker's next partial). */
void
GpuselTextDictReset(int slot)
{
	GpuselTextDict *dict = GpuselTextDictAt(slot);

	MemoryContextReset(dict->cxt);
	init_dict(dict);
}

/* Doubles the slots and the entries, placing every entry again. */
static void
grow_dict(GpuselTextDict *dict)
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
add_entry(GpuselTextDict *dict, uint64 hash, const char *data, int32 datalen, int32 len,
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
static uint64
GpuselTextDictNumber(GpuselTextDict *dict, Datum value)
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
static Datum
GpuselTextDictValue(GpuselTextDict *dict, uint64 number)
{
	Assert(number < (uint64) dict->nentries);
	return dict->entries[number].value;
}

/* The number of a value in the dictionary open in a slot (a batch value of the form). */
int64
GpuselTextDictEncode(int slot, Datum value)
{
	return (int64) GpuselTextDictNumber(GpuselTextDictAt(slot), value);
}

/* A batch value of the form as the value its group returns. */
Datum
GpuselTextDictDecode(int64 number, int slot)
{
	GpuselTextDict *dict = GpuselTextDictAt(slot);

	if (number < 0 || number >= dict->nentries)
		elog(ERROR, "gpusel text key number " INT64_FORMAT " is not in its dictionary", number);
	return GpuselTextDictValue(dict, (uint64) number);
}

/*
 * Whether a column of this type takes the dictionary form: text and
 * varchar, and char(n) with its length unless its bytes are packed
 * (GpuselShortCharLength), under a deterministic collation.  A char without
 * a length can hold equal values that differ in trailing spaces, and which
 * of them a group returns would depend on row order: it stays with
 * PostgreSQL.  Sets *blank_padded for char(n).
 */
bool
GpuselTextDictAccepts(Oid typid, int32 typmod, Oid collid, int *blank_padded)
{
	int			length;

	if (typid != TEXTOID && typid != VARCHAROID &&
		!(typid == BPCHAROID && typmod >= (int32) VARHDRSZ + 1))
		return false;
	if (!GpuselCollationComparesBytes(collid) ||
		GpuselShortCharLength(typid, typmod, collid, &length))
		return false;
	*blank_padded = typid == BPCHAROID;
	return true;
}

/*
 * Writes the dictionary's entries from the cursor on into buf, as a stream
 * of (uint32 length, value bytes) that may break anywhere between two
 * buffers; returns the bytes written.  The stream is done when the cursor
 * reaches the dictionary's last entry.
 */
Size
GpuselTextDictWrite(int slot, GpuselTextDictCursor *cursor, char *buf, Size room)
{
	GpuselTextDict *dict = GpuselTextDictAt(slot);
	Size		used = 0;

	while (used < room && cursor->entry < dict->nentries)
	{
		Datum		value = dict->entries[cursor->entry].value;
		uint32		datalen = VARSIZE(DatumGetPointer(value)) - VARHDRSZ;
		Size		total = sizeof(uint32) + datalen;

		while (cursor->offset < total && used < room)
		{
			Size		n;

			if (cursor->offset < sizeof(uint32))
			{
				n = Min(sizeof(uint32) - cursor->offset, room - used);
				memcpy(buf + used, (char *) &datalen + cursor->offset, n);
			}
			else
			{
				n = Min(total - cursor->offset, room - used);
				memcpy(buf + used, VARDATA(DatumGetPointer(value)) +
					   (cursor->offset - sizeof(uint32)), n);
			}
			used += n;
			cursor->offset += n;
		}
		if (cursor->offset == total)
		{
			cursor->entry++;
			cursor->offset = 0;
		}
	}
	return used;
}

/* Whether the cursor has written every entry of the dictionary. */
bool
GpuselTextDictWritten(int slot, const GpuselTextDictCursor *cursor)
{
	return cursor->entry >= GpuselTextDictAt(slot)->nentries;
}

/* Starts reading another process's dictionary from its first entry. */
void
GpuselTextDictReaderReset(GpuselTextDictReader *reader, MemoryContext cxt)
{
	if (reader->pending.data == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		initStringInfo(&reader->pending);
		MemoryContextSwitchTo(old);
	}
	resetStringInfo(&reader->pending);
	reader->nnumbers = 0;
}

/*
 * Reads a piece of another process's dictionary stream (GpuselTextDictWrite)
 * and numbers each whole value in the dictionary open in 'slot':
 * reader->numbers[i] becomes this process's number of that process's value
 * number i.
 */
void
GpuselTextDictRead(GpuselTextDictReader *reader, MemoryContext cxt, int slot,
				   const char *data, Size len)
{
	GpuselTextDict *dict = GpuselTextDictAt(slot);
	StringInfo	pending = &reader->pending;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int			pos = 0;

	appendBinaryStringInfo(pending, data, (int) len);
	for (;;)
	{
		uint32		datalen;
		text	   *value;

		if (pending->len - pos < (int) sizeof(uint32))
			break;
		memcpy(&datalen, pending->data + pos, sizeof(uint32));
		if ((Size) (pending->len - pos) - sizeof(uint32) < datalen)
			break;
		value = palloc(VARHDRSZ + datalen);
		SET_VARSIZE(value, VARHDRSZ + datalen);
		memcpy(VARDATA(value), pending->data + pos + sizeof(uint32), datalen);
		if (reader->nnumbers == reader->cap)
		{
			reader->cap = Max(reader->cap * 2, 1024);
			reader->numbers = reader->numbers == NULL ?
				palloc(sizeof(int64) * reader->cap) :
				repalloc_huge(reader->numbers, sizeof(int64) * reader->cap);
		}
		reader->numbers[reader->nnumbers++] =
			(int64) GpuselTextDictNumber(dict, PointerGetDatum(value));
		pfree(value);
		pos += sizeof(uint32) + datalen;
	}
	/* keep the part of a value that the next piece completes */
	memmove(pending->data, pending->data + pos, pending->len - pos);
	pending->len -= pos;
	MemoryContextSwitchTo(old);
}
