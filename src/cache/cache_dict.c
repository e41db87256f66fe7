/*
 * cache_dict.c
 *	  The dictionaries of a cached table's text and uuid columns: each
 *	  distinct value of such a column gets a code, the same for every
 *	  process, and the cache holds the codes (int8, as the catalogue's
 *	  dictionary forms do).
 *
 * A table's dictionary of a column is a stream of its distinct values in
 * code order (value_dict.c's stream: a length, then the bytes), in the
 * cache's area.  The build's processes number values as they read them,
 * each in a dictionary of its own; in a chunk's turn, when no other
 * process touches the shared stream, a process gives its values that have
 * no code yet their codes.  It first numbers, in a mirror of the stream of
 * its own, the values the other processes appended since its last turn,
 * so that its mirror's numbers are the codes; a value its mirror does not
 * hold yet is new, and is appended.  After its turn it rewrites its
 * chunk's numbers as codes.
 *
 * A scan numbers text keys in a dictionary of its own too.  Before it reads
 * the cache, that dictionary is preset with the stream, so that its
 * numbers are the codes, and a value of a block changed since the build
 * that the stream does not hold gets a number after them.
 */
#include "postgres.h"

#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "cache_internal.h"
#include "column_form.h"

/*
 * Tuning: distinct values a cached column holds at most; a stream's first
 * size; the most of a stream a process reads into its mirror at once.
 */
#define GPUSEL_CACHE_DICT_MAX_VALUES	1048576
#define GPUSEL_CACHE_DICT_FIRST_BYTES	65536
#define GPUSEL_CACHE_DICT_READ_PIECE	((Size) 64 * 1024 * 1024)

/* A build process's side of one column's dictionary. */
typedef struct DictColumn
{
	int			col;			/* the entry's column */
	int			reading;		/* the slot the reader numbers values in */
	int			mirror;			/* the slot whose numbers are the codes */
	Size		synced;			/* stream bytes the mirror holds */
	int64	   *codes;			/* by reading number: its code */
	int64		ncodes;			/* reading numbers given codes */
	int64		cap;
	GpuselValueDictReader reader;
} DictColumn;

struct GpuselCacheDictCoder
{
	MemoryContext cxt;
	int			ncols;
	DictColumn	cols[FLEXIBLE_ARRAY_MEMBER];
};

/* Whether a cached column holds dictionary codes. */
static inline bool
is_dict_column(const GpuselCacheEntry *entry, int c)
{
	return GpuselFormLookup(entry->form[c])->dictionary;
}

/*
 * Before the read: a dictionary, empty, for each of the entry's columns
 * that holds codes; none when no column does.
 */
void
GpuselCacheDictsCreate(Relation rel, GpuselCacheEntry *entry)
{
	bool		any = false;

	entry->dicts = InvalidDsaPointer;
	for (int c = 0; c < entry->ncols; c++)
		any |= is_dict_column(entry, c);
	if (!any)
		return;
	GpuselCacheReserveOrFail(rel, entry, sizeof(GpuselCacheDict) * entry->ncols);
	entry->dicts = GpuselCacheAreaAlloc(sizeof(GpuselCacheDict) * entry->ncols);
}

/* The entry's dictionary of column c. */
static GpuselCacheDict *
dict_of(const GpuselCacheEntry *entry, int c)
{
	return (GpuselCacheDict *) dsa_get_address(GpuselCacheArea(), entry->dicts) + c;
}

/*
 * A build process's coder: for each column that holds codes, a dictionary
 * to read values into, whose slot it sets in prog (this process's copy of
 * the build's columns), and a mirror of the shared one.
 */
GpuselCacheDictCoder *
GpuselCacheDictCoderBegin(const GpuselCacheEntry *entry, GpuselProgram *prog)
{
	GpuselCacheDictCoder *coder;
	int			n = 0;

	for (int c = 0; c < entry->ncols; c++)
		n += is_dict_column(entry, c);
	if (n == 0)
		return NULL;
	coder = palloc0(offsetof(GpuselCacheDictCoder, cols) + sizeof(DictColumn) * n);
	coder->cxt = AllocSetContextCreate(CurrentMemoryContext, "gpusel cache dictionaries",
									   ALLOCSET_DEFAULT_SIZES);
	for (int c = 0; c < entry->ncols; c++)
	{
		DictColumn *dc;

		if (!is_dict_column(entry, c))
			continue;
		dc = &coder->cols[coder->ncols++];
		dc->col = c;
		dc->reading = GpuselValueDictOpen(coder->cxt, entry->form_arg[c]);
		dc->mirror = GpuselValueDictOpen(coder->cxt, entry->form_arg[c]);
		prog->form_arg[c] = (int16) dc->reading;
	}
	return coder;
}

/* Frees a build process's coder: its dictionaries close. */
void
GpuselCacheDictCoderEnd(GpuselCacheDictCoder *coder)
{
	MemoryContextDelete(coder->cxt);
	pfree(coder);
}

/* Appends the mirror's values from number 'from' on to the shared stream, growing it. */
static void
append_values(Relation rel, GpuselCacheEntry *entry, GpuselCacheDict *dict, int mirror, int64 from)
{
	dsa_area   *a = GpuselCacheArea();
	GpuselValueDictCursor cursor = {from, 0};

	while (!GpuselValueDictWritten(mirror, &cursor))
	{
		if (dict->bytes == dict->capacity)
		{
			Size		cap = Max(dict->capacity * 2, GPUSEL_CACHE_DICT_FIRST_BYTES);
			dsa_pointer grown;

			GpuselCacheReserveOrFail(rel, entry, cap - dict->capacity);
			grown = dsa_allocate_extended(a, cap, DSA_ALLOC_HUGE);
			if (DsaPointerIsValid(dict->stream))
			{
				memcpy(dsa_get_address(a, grown), dsa_get_address(a, dict->stream), dict->bytes);
				dsa_free(a, dict->stream);
			}
			dict->stream = grown;
			dict->capacity = cap;
		}
		dict->bytes += GpuselValueDictWrite(mirror, &cursor,
											(char *) dsa_get_address(a, dict->stream) + dict->bytes,
											dict->capacity - dict->bytes);
	}
}

/*
 * In a chunk's turn: gives every value this process has read so far a code,
 * appending the new ones to the shared streams.  The turn makes this
 * process the only one touching them.
 */
void
GpuselCacheDictTakeCodes(GpuselCacheDictCoder *coder, Relation rel, GpuselCacheEntry *entry)
{
	dsa_area   *a = GpuselCacheArea();

	for (int i = 0; i < coder->ncols; i++)
	{
		DictColumn *dc = &coder->cols[i];
		GpuselCacheDict *dict = dict_of(entry, dc->col);
		int64		nread = GpuselValueDictCount(dc->reading);
		int64		before;

		if (dc->ncodes == nread)
			continue;
		/* what the other processes appended since this one's last turn */
		if (dc->synced < dict->bytes)
		{
			const char *stream = dsa_get_address(a, dict->stream);

			/* in pieces: the reader keeps a piece's unfinished value, in a string of at most 1 GB */
			GpuselValueDictReaderReset(&dc->reader, coder->cxt);
			for (Size at = dc->synced; at < dict->bytes; at += GPUSEL_CACHE_DICT_READ_PIECE)
				GpuselValueDictRead(&dc->reader, coder->cxt, dc->mirror, stream + at,
									Min(dict->bytes - at, GPUSEL_CACHE_DICT_READ_PIECE));
		}
		Assert(GpuselValueDictCount(dc->mirror) == dict->nvalues);
		if (dc->cap < nread)
		{
			MemoryContext old = MemoryContextSwitchTo(coder->cxt);

			dc->cap = Max(nread * 2, 1024);
			dc->codes = dc->codes == NULL ? palloc_extended(sizeof(int64) * dc->cap, MCXT_ALLOC_HUGE) :
				repalloc_huge(dc->codes, sizeof(int64) * dc->cap);
			MemoryContextSwitchTo(old);
		}
		before = dict->nvalues;
		for (int64 n = dc->ncodes; n < nread; n++)
			dc->codes[n] = GpuselValueDictEncode(dc->mirror, GpuselValueDictDecode(n, dc->reading));
		dc->ncodes = nread;
		dict->nvalues = GpuselValueDictCount(dc->mirror);
		if (dict->nvalues > GPUSEL_CACHE_DICT_MAX_VALUES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("column \"%s\" has too many distinct values for the column cache",
							get_attname(RelationGetRelid(rel), entry->attnos[dc->col], false)),
					 errdetail("The column cache codes at most %d distinct values of a text or uuid column.",
							   GPUSEL_CACHE_DICT_MAX_VALUES),
					 errhint("Name the columns to cache in gpusel_cache's second argument, without this one.")));
		if (dict->nvalues > before)
			append_values(rel, entry, dict, dc->mirror, before);
		dc->synced = dict->bytes;
	}
}

/* After its turn: rewrites a chunk's numbers as codes, its NULLs' zeros left as they are. */
void
GpuselCacheDictRecode(GpuselCacheDictCoder *coder, GpuselStaging *rows, const uint8 *has_nulls,
					  int64 n)
{
	for (int i = 0; i < coder->ncols; i++)
	{
		DictColumn *dc = &coder->cols[i];
		int64	   *values = (int64 *) rows->values[dc->col];
		const uint8 *nulls = rows->nulls[dc->col];

		if (has_nulls[dc->col])
		{
			for (int64 r = 0; r < n; r++)
				if (!nulls[r])
					values[r] = dc->codes[values[r]];
		}
		else
			for (int64 r = 0; r < n; r++)
				values[r] = dc->codes[values[r]];
	}
}

/*
 * A scan's side: presets its dictionary in 'slot' with the cached column
 * c's values, so that its numbers are the cache's codes.  False when it
 * cannot (its dictionary numbers other values already, or is of another
 * kind): the scan then reads the heap.
 */
bool
GpuselCacheDictPreset(const GpuselCacheEntry *entry, int c, int slot)
{
	const GpuselCacheDict *dict;

	if (!DsaPointerIsValid(entry->dicts) || GpuselValueDictKind(slot) != entry->form_arg[c])
		return false;
	dict = dict_of(entry, c);
	return GpuselValueDictPreset(slot,
								 DsaPointerIsValid(dict->stream) ?
								 (const char *) dsa_get_address(GpuselCacheArea(), dict->stream) : "",
								 dict->bytes, dict->nvalues);
}
