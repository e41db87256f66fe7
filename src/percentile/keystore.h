/*
 * keystore.h
 *	  Growable storage of selection keys: host chunks (page-locked when the
 *	  GPU may read them), spilled to a temporary file past work_mem.
 */
#ifndef GPUSEL_KEYSTORE_H
#define GPUSEL_KEYSTORE_H

#include "postgres.h"

#include "storage/buffile.h"

/* A sequence of key segments that selection reads one segment at a time. */
typedef struct KeySource KeySource;
struct KeySource
{
	int			key_bytes;		/* 4 or 8 */
	int64		count;			/* keys in all segments */
	/* rewinds to the first segment */
	void		(*rewind) (KeySource *source);
	/* returns the next segment, false at the end */
	bool		(*next) (KeySource *source, const void **keys, int64 *nkeys);
};

/* Keys collected by one aggregate group. */
typedef struct KeyStore
{
	KeySource	source;			/* reads every stored key */
	MemoryContext cxt;
	int			key_bytes;
	int64		count;			/* keys stored */
	bool		want_pinned;	/* allocate large chunks page-locked */

	/* chunks in memory; the last one is being filled */
	void	  **chunks;
	int64	   *chunk_counts;
	int64	   *chunk_caps;
	bool	   *chunk_pinned;
	int			nchunks;
	int			max_chunks;
	int64		memory_bytes;	/* bytes of all chunks */
	int64		memory_limit;	/* spill past this many bytes (work_mem) */
	void	   *fill;			/* fast path: where the next key goes */
	int64		fill_left;		/* keys that still fit at fill */

	/* keys written to a temporary file */
	BufFile    *spill;
	int64		spilled;
	void	   *read_buffer;	/* segment buffer for reading the file back */

	/* scan position for the KeySource interface */
	int64		scan_file_left;
	int			scan_chunk;
} KeyStore;

extern void KeyStoreInit(KeyStore *store, MemoryContext cxt, int key_bytes,
						 bool want_pinned);
extern void KeyStoreGrow(KeyStore *store);
extern bool KeyStoreIsSpilled(const KeyStore *store);
extern void KeyStoreCloseFile(KeyStore *store);

/* Appends one key. */
static inline void
KeyStoreAdd(KeyStore *store, uint64 key)
{
	if (unlikely(store->fill_left == 0))
		KeyStoreGrow(store);
	if (store->key_bytes == 4)
	{
		*(uint32 *) store->fill = (uint32) key;
		store->fill = (char *) store->fill + 4;
	}
	else
	{
		*(uint64 *) store->fill = key;
		store->fill = (char *) store->fill + 8;
	}
	store->fill_left--;
	store->chunk_counts[store->nchunks - 1]++;
	store->count++;
}

/* A KeySource over one array in memory. */
typedef struct KeyArraySource
{
	KeySource	source;
	const void *keys;
	bool		done;
} KeyArraySource;

extern void KeyArraySourceInit(KeyArraySource *src, const void *keys,
							   int64 count, int key_bytes);
extern void KeySourceCopy(KeySource *source, int64 n, uint64 *to);

#endif							/* GPUSEL_KEYSTORE_H */
