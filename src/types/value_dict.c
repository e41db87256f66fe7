/*
 * value_dict.c
 *	  Dictionaries of group key values compared by their bytes: each
 *	  distinct value gets a number, so that a row finds its group by a
 *	  number as a key of a device type does by its bits.  The dictionary
 *	  forms of the catalogue (form_text_dict.c, form_uuid.c) read a column as
 *	  those numbers.
 *
 * A dictionary keys each value by its compared bytes and keeps a copy of
 * the first value seen with them, which is what the group returns.  Its
 * values are varlenas (text, varchar, char(n), whose trailing spaces do not
 * count) or fixed-length values passed by reference (uuid).
 *
 * A dictionary belongs to one process and one scan.  Batch columns name it
 * by a slot of this process's table of open dictionaries (their form_arg).
 * Under Gather its numbers cross to the consumer with their values: a
 * worker sends its entries (GpuselValueDictWrite) before the groups that
 * use their numbers, and the consumer numbers those values in its own
 * dictionary (GpuselValueDictRead).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "fmgr.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"

#include "column_form.h"

/* Slots of a new dictionary (a power of two); it doubles at half full. */
#define VALUE_DICT_INITIAL_SLOTS 1024

/* One distinct value: its compared bytes and the value the group returns. */
typedef struct ValueDictEntry
{
	uint64		hash;
	int32		len;			/* of the compared bytes */
	int32		datalen;		/* of all its bytes */
	const char *bytes;			/* inside value */
	Datum		value;			/* a copy, with a 4-byte header */
} ValueDictEntry;

typedef struct GpuselValueDict
{
	MemoryContext cxt;			/* its own: emptied on reset */
	int			slot;			/* in open_dicts */
	MemoryContextCallback reset_callback;
	int			kind;			/* GPUSEL_DICT_VARLENA, _BLANK_PADDED, or a fixed length */
	ValueDictEntry *entries;
	int64		nentries;
	int64		capacity;		/* entries allocated */
	int64	   *slots;			/* open addressing: entry + 1, 0 when empty */
	uint64		mask;
	MemoryContext parent;		/* the query's: holds the preset, which resets keep */
	char	   *preset;			/* values numbered first, as a stream (GpuselValueDictWrite) */
	Size		preset_bytes;
	int64		preset_values;
} GpuselValueDict;

static uint64 GpuselValueDictNumber(GpuselValueDict *dict, Datum value);
static Datum GpuselValueDictValue(GpuselValueDict *dict, uint64 number);
static void load_preset(GpuselValueDict *dict);

/* Dictionaries open in this process, by slot (a batch column's form_arg). */
#define VALUE_DICT_MAX_OPEN	1024
static GpuselValueDict *open_dicts[VALUE_DICT_MAX_OPEN];

/* Makes a dictionary empty, in its own context. */
static void
init_dict(GpuselValueDict *dict)
{
	dict->capacity = VALUE_DICT_INITIAL_SLOTS / 2;
	dict->nentries = 0;
	dict->entries = MemoryContextAlloc(dict->cxt, sizeof(ValueDictEntry) * dict->capacity);
	dict->slots = MemoryContextAllocZero(dict->cxt, sizeof(int64) * VALUE_DICT_INITIAL_SLOTS);
	dict->mask = VALUE_DICT_INITIAL_SLOTS - 1;
}

/* Closes a dictionary's slot when its memory goes (the query's end, or an error). */
static void
close_dict(void *arg)
{
	GpuselValueDict *dict = (GpuselValueDict *) arg;

	if (open_dicts[dict->slot] == dict)
		open_dicts[dict->slot] = NULL;
}

/*
 * Opens an empty dictionary that lives as long as 'parent' (a query's
 * memory, never reset while the scan runs) for values of a kind
 * (GPUSEL_DICT_VARLENA ...).  Returns its slot.
 */
int
GpuselValueDictOpen(MemoryContext parent, int kind)
{
	GpuselValueDict *dict;
	int			slot;

	for (slot = 0; slot < VALUE_DICT_MAX_OPEN; slot++)
		if (open_dicts[slot] == NULL)
			break;
	if (slot == VALUE_DICT_MAX_OPEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many text group keys in one query"),
				 errdetail("gpusel numbers at most %d text group keys at once.",
						   VALUE_DICT_MAX_OPEN)));
	dict = MemoryContextAllocZero(parent, sizeof(GpuselValueDict));
	dict->cxt = AllocSetContextCreate(parent, "gpusel text keys", ALLOCSET_DEFAULT_SIZES);
	dict->slot = slot;
	dict->kind = kind;
	dict->parent = parent;
	dict->reset_callback.func = close_dict;
	dict->reset_callback.arg = dict;
	MemoryContextRegisterResetCallback(parent, &dict->reset_callback);
	init_dict(dict);
	open_dicts[slot] = dict;
	return slot;
}

/* The dictionary open in a slot. */
static GpuselValueDict *
GpuselValueDictAt(int slot)
{
	if (slot < 0 || slot >= VALUE_DICT_MAX_OPEN || open_dicts[slot] == NULL)
		elog(ERROR, "gpusel has no text key dictionary open in slot %d", slot);
	return open_dicts[slot];
}

/* Empties a dictionary: numbers start over (a rescan, or a worker's next partial). */
void
GpuselValueDictReset(int slot)
{
	GpuselValueDict *dict = GpuselValueDictAt(slot);

	MemoryContextReset(dict->cxt);
	init_dict(dict);
	load_preset(dict);
}

/* The number of values a dictionary holds: the next new value's number. */
int64
GpuselValueDictCount(int slot)
{
	return GpuselValueDictAt(slot)->nentries;
}

/* The kind of values a dictionary holds (GPUSEL_DICT_VARLENA ...). */
int
GpuselValueDictKind(int slot)
{
	return GpuselValueDictAt(slot)->kind;
}

/*
 * The number of a value of a stream (GpuselValueDictWrite's), whose bytes
 * are data[0..datalen): a varlena gets its header back first.
 */
static uint64
number_stream_value(GpuselValueDict *dict, const char *data, uint32 datalen)
{
	char	   *value;
	uint64		number;

	if (dict->kind > 0)
		return GpuselValueDictNumber(dict, PointerGetDatum(data));
	value = palloc(VARHDRSZ + datalen);
	SET_VARSIZE(value, VARHDRSZ + datalen);
	memcpy(VARDATA(value), data, datalen);
	number = GpuselValueDictNumber(dict, PointerGetDatum(value));
	pfree(value);
	return number;
}

/* Numbers the preset's values, in its order, in an empty dictionary. */
static void
load_preset(GpuselValueDict *dict)
{
	Size		pos = 0;

	for (int64 i = 0; i < dict->preset_values; i++)
	{
		uint32		datalen;

		memcpy(&datalen, dict->preset + pos, sizeof(uint32));
		pos += sizeof(uint32);
		if (number_stream_value(dict, dict->preset + pos, datalen) != (uint64) i)
			elog(ERROR, "gpusel text key dictionary preset holds a value twice");
		pos += datalen;
	}
}

/*
 * Presets a dictionary with another's values (a stream of GpuselValueDictWrite,
 * of distinct values): value i gets number i, now and after each reset, and
 * values not among them get numbers after them.  False, changing nothing,
 * when the dictionary already numbers other values first.
 */
bool
GpuselValueDictPreset(int slot, const char *stream, Size bytes, int64 nvalues)
{
	GpuselValueDict *dict = GpuselValueDictAt(slot);

	if (dict->preset != NULL)
		return dict->preset_values == nvalues && dict->preset_bytes == bytes &&
			memcmp(dict->preset, stream, bytes) == 0;
	if (dict->nentries != 0)
		return false;
	dict->preset = MemoryContextAllocExtended(dict->parent, Max(bytes, 1), MCXT_ALLOC_HUGE);
	memcpy(dict->preset, stream, bytes);
	dict->preset_bytes = bytes;
	dict->preset_values = nvalues;
	load_preset(dict);
	return true;
}

/* Doubles the slots and the entries, placing every entry again. */
static void
grow_dict(GpuselValueDict *dict)
{
	uint64		nslots = (dict->mask + 1) * 2;

	dict->capacity *= 2;
	dict->entries = repalloc_huge(dict->entries, sizeof(ValueDictEntry) * dict->capacity);
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

/*
 * Adds a value whose compared bytes are data[0..len), keeping a copy of all
 * datalen of them (a varlena's gets its header back).
 */
static int64
add_entry(GpuselValueDict *dict, uint64 hash, const char *data, int32 datalen, int32 len,
		  uint64 slot)
{
	ValueDictEntry *entry;
	char	   *copy;
	int64		e;

	if (dict->kind > 0)
	{
		copy = MemoryContextAlloc(dict->cxt, datalen);
		memcpy(copy, data, datalen);
	}
	else
	{
		copy = MemoryContextAlloc(dict->cxt, VARHDRSZ + datalen);
		SET_VARSIZE(copy, VARHDRSZ + datalen);
		memcpy(VARDATA(copy), data, datalen);
	}
	e = dict->nentries++;
	entry = &dict->entries[e];
	entry->hash = hash;
	entry->len = len;
	entry->datalen = datalen;
	entry->bytes = dict->kind > 0 ? copy : VARDATA(copy);
	entry->value = PointerGetDatum(copy);
	dict->slots[slot] = e + 1;
	if (dict->nentries == dict->capacity)
		grow_dict(dict);
	return e;
}

/* The number of a value: equal values, and only they, get the same one. */
static uint64
GpuselValueDictNumber(GpuselValueDict *dict, Datum value)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = dict->kind > 0 ? raw : pg_detoast_datum_packed(raw);
	const char *data = dict->kind > 0 ? (const char *) raw : VARDATA_ANY(v);
	int32		datalen = dict->kind > 0 ? dict->kind : (int32) VARSIZE_ANY_EXHDR(v);
	int32		len = datalen;
	uint64		hash;
	uint64		i;
	int64		e = -1;

	if (dict->kind == GPUSEL_DICT_BLANK_PADDED)
		while (len > 0 && data[len - 1] == ' ')
			len--;
	hash = hash_bytes_extended((const unsigned char *) data, len, 0);
	for (i = hash & dict->mask; dict->slots[i] != 0; i = (i + 1) & dict->mask)
	{
		ValueDictEntry *entry = &dict->entries[dict->slots[i] - 1];

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
GpuselValueDictValue(GpuselValueDict *dict, uint64 number)
{
	Assert(number < (uint64) dict->nentries);
	return dict->entries[number].value;
}

/* The number of a value in the dictionary open in a slot (a batch value of a dictionary form). */
int64
GpuselValueDictEncode(int slot, Datum value)
{
	return (int64) GpuselValueDictNumber(GpuselValueDictAt(slot), value);
}

/* A batch value of a dictionary form as the value its group returns. */
Datum
GpuselValueDictDecode(int64 number, int slot)
{
	GpuselValueDict *dict = GpuselValueDictAt(slot);

	if (number < 0 || number >= dict->nentries)
		elog(ERROR, "gpusel text key number " INT64_FORMAT " is not in its dictionary", number);
	return GpuselValueDictValue(dict, (uint64) number);
}

/*
 * Writes the dictionary's entries from the cursor on into buf, as a stream
 * of (uint32 length, value bytes) that may break anywhere between two
 * buffers; returns the bytes written.  The stream is done when the cursor
 * reaches the dictionary's last entry.
 */
Size
GpuselValueDictWrite(int slot, GpuselValueDictCursor *cursor, char *buf, Size room)
{
	GpuselValueDict *dict = GpuselValueDictAt(slot);
	Size		used = 0;

	while (used < room && cursor->entry < dict->nentries)
	{
		Datum		value = dict->entries[cursor->entry].value;
		uint32		datalen = dict->entries[cursor->entry].datalen;
		const char *bytes = dict->kind > 0 ? DatumGetPointer(value) : VARDATA(DatumGetPointer(value));
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
				memcpy(buf + used, bytes + (cursor->offset - sizeof(uint32)), n);
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
GpuselValueDictWritten(int slot, const GpuselValueDictCursor *cursor)
{
	return cursor->entry >= GpuselValueDictAt(slot)->nentries;
}

/* Starts reading another process's dictionary from its first entry. */
void
GpuselValueDictReaderReset(GpuselValueDictReader *reader, MemoryContext cxt)
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
 * Reads a piece of another process's dictionary stream (GpuselValueDictWrite)
 * and numbers each whole value in the dictionary open in 'slot':
 * reader->numbers[i] becomes this process's number of that process's value
 * number i.
 */
void
GpuselValueDictRead(GpuselValueDictReader *reader, MemoryContext cxt, int slot,
				   const char *data, Size len)
{
	GpuselValueDict *dict = GpuselValueDictAt(slot);
	StringInfo	pending = &reader->pending;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int			pos = 0;

	appendBinaryStringInfo(pending, data, (int) len);
	for (;;)
	{
		uint32		datalen;

		if (pending->len - pos < (int) sizeof(uint32))
			break;
		memcpy(&datalen, pending->data + pos, sizeof(uint32));
		if ((Size) (pending->len - pos) - sizeof(uint32) < datalen)
			break;
		if (reader->nnumbers == reader->cap)
		{
			reader->cap = Max(reader->cap * 2, 1024);
			reader->numbers = reader->numbers == NULL ?
				palloc(sizeof(int64) * reader->cap) :
				repalloc_huge(reader->numbers, sizeof(int64) * reader->cap);
		}
		reader->numbers[reader->nnumbers++] =
			(int64) number_stream_value(dict, pending->data + pos + sizeof(uint32), datalen);
		pos += sizeof(uint32) + datalen;
	}
	/* keep the part of a value that the next piece completes */
	memmove(pending->data, pending->data + pos, pending->len - pos);
	pending->len -= pos;
	MemoryContextSwitchTo(old);
}
