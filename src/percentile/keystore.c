/*
 * keystore.c
 *	  Collects an aggregate group's keys in chunks of growing size.
 *
 * Small groups stay in small palloc'd chunks, so GROUP BY with many groups
 * costs little.  Large chunks are page-locked when the GPU may read them,
 * because pinned memory crosses the bus about six times faster than
 * pageable memory.  Once the chunks hold work_mem bytes, each further full
 * chunk is written to a temporary file, as PostgreSQL's sort spills, and
 * selection streams over the file.  Page-locked chunks are released by a
 * memory-context callback, so an error or a cancel frees them too.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "device.h"
#include "keystore.h"

#define KEYSTORE_FIRST_CHUNK_KEYS	256
#define KEYSTORE_MAX_CHUNK_KEYS		(INT64CONST(1) << 22)
/* chunks at least this large are page-locked when the GPU may read them */
#define KEYSTORE_PINNED_MIN_KEYS	(INT64CONST(1) << 16)

static void keystore_release(void *arg);
static void keystore_rewind(KeySource *source);
static bool keystore_next(KeySource *source, const void **keys, int64 *nkeys);

/* Prepares an empty store whose memory lives in cxt. */
void
KeyStoreInit(KeyStore *store, MemoryContext cxt, int key_bytes, bool want_pinned)
{
	MemoryContextCallback *cb;

	memset(store, 0, sizeof(*store));
	store->cxt = cxt;
	store->key_bytes = key_bytes;
	store->want_pinned = want_pinned;
	store->memory_limit = (int64) work_mem * 1024;
	store->max_chunks = 16;
	store->chunks = MemoryContextAlloc(cxt, sizeof(void *) * store->max_chunks);
	store->chunk_counts = MemoryContextAlloc(cxt, sizeof(int64) * store->max_chunks);
	store->chunk_caps = MemoryContextAlloc(cxt, sizeof(int64) * store->max_chunks);
	store->chunk_pinned = MemoryContextAlloc(cxt, sizeof(bool) * store->max_chunks);

	store->source.key_bytes = key_bytes;
	store->source.rewind = keystore_rewind;
	store->source.next = keystore_next;

	cb = MemoryContextAlloc(cxt, sizeof(*cb));
	cb->func = keystore_release;
	cb->arg = store;
	MemoryContextRegisterResetCallback(cxt, cb);
}

/* Frees page-locked chunks when the owning context is reset or deleted. */
static void
keystore_release(void *arg)
{
	KeyStore   *store = (KeyStore *) arg;

	for (int i = 0; i < store->nchunks; i++)
	{
		if (store->chunk_pinned[i])
			GpuselHostFree(store->chunks[i]);
	}
	store->nchunks = 0;
	/* after an error the resource owner closes the temporary file */
	store->spill = NULL;
}

/* Closes the temporary file once the group is done with it. */
void
KeyStoreCloseFile(KeyStore *store)
{
	if (store->spill != NULL)
		BufFileClose(store->spill);
	store->spill = NULL;
	store->spilled = 0;
}

/* Allocates chunk memory, page-locked when wanted and possible. */
static void *
keystore_alloc_chunk(KeyStore *store, int64 keys, bool *pinned)
{
	Size		bytes = (Size) keys * store->key_bytes;
	void	   *ptr = NULL;

	if (store->want_pinned && keys >= KEYSTORE_PINNED_MIN_KEYS && GpuselMayUseGpu())
		ptr = GpuselHostAlloc(bytes);
	*pinned = (ptr != NULL);
	if (ptr == NULL)
		ptr = MemoryContextAllocHuge(store->cxt, bytes);
	return ptr;
}

/* Writes the full last chunk to the temporary file and empties it. */
static void
keystore_spill_last(KeyStore *store)
{
	int			last = store->nchunks - 1;
	MemoryContext old;

	if (store->spill == NULL)
	{
		old = MemoryContextSwitchTo(store->cxt);
		store->spill = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	BufFileWrite(store->spill, store->chunks[last],
				 (size_t) store->chunk_counts[last] * store->key_bytes);
	store->spilled += store->chunk_counts[last];
	store->chunk_counts[last] = 0;
}

/* Makes room for more keys: a new, larger chunk, or a spill to disk. */
void
KeyStoreGrow(KeyStore *store)
{
	int64		keys;
	bool		pinned;

	CHECK_FOR_INTERRUPTS();

	if (store->nchunks > 0 && store->memory_bytes >= store->memory_limit)
	{
		/* over work_mem: recycle the full last chunk through the file */
		keystore_spill_last(store);
		store->fill = store->chunks[store->nchunks - 1];
		store->fill_left = store->chunk_caps[store->nchunks - 1];
		return;
	}

	keys = store->nchunks == 0 ? KEYSTORE_FIRST_CHUNK_KEYS :
		Min(store->chunk_caps[store->nchunks - 1] * 2, KEYSTORE_MAX_CHUNK_KEYS);

	if (store->nchunks == store->max_chunks)
	{
		store->max_chunks *= 2;
		store->chunks = repalloc(store->chunks, sizeof(void *) * store->max_chunks);
		store->chunk_counts = repalloc(store->chunk_counts, sizeof(int64) * store->max_chunks);
		store->chunk_caps = repalloc(store->chunk_caps, sizeof(int64) * store->max_chunks);
		store->chunk_pinned = repalloc(store->chunk_pinned, sizeof(bool) * store->max_chunks);
	}

	store->chunks[store->nchunks] = keystore_alloc_chunk(store, keys, &pinned);
	store->chunk_counts[store->nchunks] = 0;
	store->chunk_caps[store->nchunks] = keys;
	store->chunk_pinned[store->nchunks] = pinned;
	store->nchunks++;
	store->memory_bytes += keys * store->key_bytes;
	store->fill = store->chunks[store->nchunks - 1];
	store->fill_left = keys;
}

/* Reports whether some keys live in the temporary file. */
bool
KeyStoreIsSpilled(const KeyStore *store)
{
	return store->spilled > 0;
}

/* KeySource: restarts at the file, then the chunks. */
static void
keystore_rewind(KeySource *source)
{
	KeyStore   *store = (KeyStore *) source;

	source->count = store->count;
	store->scan_chunk = 0;
	store->scan_file_left = store->spilled;
	if (store->spilled > 0)
	{
		if (BufFileSeek(store->spill, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind gpusel temporary file")));
		if (store->read_buffer == NULL)
			store->read_buffer = MemoryContextAllocHuge(store->cxt,
														store->chunk_caps[store->nchunks - 1] * store->key_bytes);
	}
}

/* KeySource: returns the next segment of keys. */
static bool
keystore_next(KeySource *source, const void **keys, int64 *nkeys)
{
	KeyStore   *store = (KeyStore *) source;

	CHECK_FOR_INTERRUPTS();

	if (store->scan_file_left > 0)
	{
		int64		want = Min(store->scan_file_left,
							   store->chunk_caps[store->nchunks - 1]);
		size_t		bytes = (size_t) want * store->key_bytes;

		if (BufFileRead(store->spill, store->read_buffer, bytes) != bytes)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read gpusel temporary file")));
		store->scan_file_left -= want;
		*keys = store->read_buffer;
		*nkeys = want;
		return true;
	}
	while (store->scan_chunk < store->nchunks)
	{
		int			i = store->scan_chunk++;

		if (store->chunk_counts[i] > 0)
		{
			*keys = store->chunks[i];
			*nkeys = store->chunk_counts[i];
			return true;
		}
	}
	return false;
}

/* KeySource over an array: rewinds. */
static void
array_rewind(KeySource *source)
{
	((KeyArraySource *) source)->done = false;
}

/* KeySource over an array: the whole array is one segment. */
static bool
array_next(KeySource *source, const void **keys, int64 *nkeys)
{
	KeyArraySource *src = (KeyArraySource *) source;

	if (src->done || source->count == 0)
		return false;
	src->done = true;
	*keys = src->keys;
	*nkeys = source->count;
	return true;
}

/*
 * Copies the n keys of a rewound source, widened to 8 bytes, into to;
 * raises an error where the source holds fewer.
 */
void
KeySourceCopy(KeySource *source, int64 n, uint64 *to)
{
	const void *keys;
	int64		nkeys;
	int64		filled = 0;

	while (filled < n && source->next(source, &keys, &nkeys))
		for (int64 i = 0; i < nkeys && filled < n; i++)
			to[filled++] = source->key_bytes == 4 ?
				((const uint32 *) keys)[i] : ((const uint64 *) keys)[i];
	if (filled != n)
		elog(ERROR, "gpusel lost keys of a selection: %lld of %lld",
			 (long long) filled, (long long) n);
}

/* Wraps an in-memory key array as a KeySource. */
void
KeyArraySourceInit(KeyArraySource *src, const void *keys, int64 count, int key_bytes)
{
	src->source.key_bytes = key_bytes;
	src->source.count = count;
	src->source.rewind = array_rewind;
	src->source.next = array_next;
	src->keys = keys;
	src->done = false;
}
