/*
 * radix_select.c
 *	  Most-significant-digit radix selection over a stream of keys.
 *
 * Each level reads the keys that share the prefix chosen so far, counts
 * their next digit (16 bits on large inputs, 8 on small), and keeps only
 * the digits whose buckets hold a wanted rank.  A bucket small enough to
 * hold in memory is copied out in one pass for all such buckets; a larger
 * one is refined by another pass over the same stream.  The work is at most
 * key_bits / 8 passes over the input and never a sort, and no comparison of
 * values is made: equal values simply share a bucket until the key is fully
 * determined.  The input may be a spilled temporary file, so memory stays
 * bounded by work_mem.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "inplace_select.h"
#include "radix_select.h"

#define RADIX_WIDE_DIGIT_BITS	16
#define RADIX_NARROW_DIGIT_BITS	8
/* inputs up to this size use narrow digits: a 64K-bucket histogram would dominate */
#define RADIX_NARROW_MAX_KEYS	(INT64CONST(1) << 16)
/*
 * Ranks at least one per this many keys are read from a sort of the keys:
 * each rank costs the selection a descent of its own through the levels,
 * so thousands of ranks (the fractions of a sharded percentile's rounds)
 * cost more than sorting the keys once.
 */
#define RADIX_DENSE_KEYS_PER_RANK	64

/* Reads key i of a segment of 4- or 8-byte keys. */
static pg_attribute_always_inline uint64
segment_key(const void *keys, int64 i, int key_bytes)
{
	return key_bytes == 4 ? ((const uint32 *) keys)[i] : ((const uint64 *) keys)[i];
}

/* Counts the next digit of the keys in a segment that carry the prefix. */
static pg_attribute_always_inline void
histogram_segment(const void *keys, int64 n, int key_bytes, bool all_match,
				  int remaining, uint64 prefix, int shift, uint64 mask,
				  int64 *hist)
{
	for (int64 i = 0; i < n; i++)
	{
		uint64		key = segment_key(keys, i, key_bytes);

		if (all_match || (key >> remaining) == prefix)
			hist[(key >> shift) & mask]++;
	}
}

/* Copies the keys of a segment whose digit has a slot into that slot's array. */
static pg_attribute_always_inline void
collect_segment(const void *keys, int64 n, int key_bytes, bool all_match,
				int remaining, uint64 prefix, int shift, uint64 mask,
				const int16 *slot_of_digit, void **arrays, int64 *fill)
{
	for (int64 i = 0; i < n; i++)
	{
		uint64		key = segment_key(keys, i, key_bytes);
		int			slot;

		if (!all_match && (key >> remaining) != prefix)
			continue;
		slot = slot_of_digit[(key >> shift) & mask];
		if (slot < 0)
			continue;
		if (key_bytes == 4)
			((uint32 *) arrays[slot])[fill[slot]++] = (uint32) key;
		else
			((uint64 *) arrays[slot])[fill[slot]++] = key;
	}
}

/* One bucket that holds wanted ranks. */
typedef struct RadixBucket
{
	uint64		digit;
	int64		size;			/* keys in the bucket */
	int			first;			/* its ranks are ranks[first .. first + nranks - 1] */
	int			nranks;
	void	   *collected;		/* its keys, when copied out */
} RadixBucket;

/*
 * Selects ranks[0..nranks-1] (relative to the keys carrying prefix, sorted)
 * among the 'matching' keys of source that carry the prefix.
 */
static void
select_level(KeySource *source, int key_bits, uint64 prefix, int prefix_bits,
			 int64 matching, int64 *ranks, const int *out_index, int nranks,
			 uint64 *out)
{
	int			key_bytes = source->key_bytes;
	int			remaining = key_bits - prefix_bits;
	bool		all_match = (prefix_bits == 0 || matching == source->count);
	int			digit_bits;
	int			shift;
	uint64		mask;
	int64	   *hist;
	int64		collect_limit;
	int64		below;
	RadixBucket *buckets;
	int			nbuckets = 0;
	int16	   *slot_of_digit = NULL;
	int			nslots = 0;
	const void *keys;
	int64		n;

	if (remaining == 0)
	{
		/* every key carrying the prefix equals it */
		for (int i = 0; i < nranks; i++)
			out[out_index[i]] = prefix;
		return;
	}

	digit_bits = Min(matching > RADIX_NARROW_MAX_KEYS ?
					 RADIX_WIDE_DIGIT_BITS : RADIX_NARROW_DIGIT_BITS, remaining);
	shift = remaining - digit_bits;
	mask = (UINT64CONST(1) << digit_bits) - 1;
	hist = palloc0(sizeof(int64) << digit_bits);

	/* pass 1: histogram of the next digit */
	source->rewind(source);
	while (source->next(source, &keys, &n))
	{
		if (key_bytes == 4)
			histogram_segment(keys, n, 4, all_match, remaining, prefix, shift, mask, hist);
		else
			histogram_segment(keys, n, 8, all_match, remaining, prefix, shift, mask, hist);
	}

	/* find the buckets of the wanted ranks (ranks are sorted) */
	buckets = palloc(sizeof(RadixBucket) * nranks);
	below = 0;
	for (uint64 d = 0, r = 0; d <= mask && r < (uint64) nranks; d++)
	{
		if (ranks[r] < below + hist[d])
		{
			RadixBucket *b = &buckets[nbuckets++];

			b->digit = d;
			b->size = hist[d];
			b->first = r;
			b->nranks = 0;
			b->collected = NULL;
			while (r < (uint64) nranks && ranks[r] < below + hist[d])
			{
				ranks[r] -= below;
				b->nranks++;
				r++;
			}
		}
		below += hist[d];
	}

	/* pass 2, when it pays: copy small buckets out of the stream at once */
	collect_limit = Max((int64) work_mem * 1024 / key_bytes / 2, RADIX_NARROW_MAX_KEYS);
	for (int i = 0; i < nbuckets; i++)
	{
		if (buckets[i].size <= collect_limit && buckets[i].size < source->count)
		{
			if (slot_of_digit == NULL)
			{
				slot_of_digit = palloc(sizeof(int16) << digit_bits);
				memset(slot_of_digit, -1, sizeof(int16) << digit_bits);
			}
			slot_of_digit[buckets[i].digit] = nslots++;
		}
	}
	if (nslots > 0)
	{
		void	  **arrays = palloc(sizeof(void *) * nslots);
		int64	   *fill = palloc0(sizeof(int64) * nslots);

		for (int i = 0; i < nbuckets; i++)
		{
			if (slot_of_digit[buckets[i].digit] >= 0)
			{
				buckets[i].collected = MemoryContextAllocHuge(CurrentMemoryContext,
															  Max(buckets[i].size, 1) * key_bytes);
				arrays[slot_of_digit[buckets[i].digit]] = buckets[i].collected;
			}
		}
		source->rewind(source);
		while (source->next(source, &keys, &n))
		{
			if (key_bytes == 4)
				collect_segment(keys, n, 4, all_match, remaining, prefix, shift, mask,
								slot_of_digit, arrays, fill);
			else
				collect_segment(keys, n, 8, all_match, remaining, prefix, shift, mask,
								slot_of_digit, arrays, fill);
		}
		pfree(arrays);
		pfree(fill);
		pfree(slot_of_digit);
	}
	pfree(hist);

	/* recurse into each bucket, on its copy or on the stream */
	for (int i = 0; i < nbuckets; i++)
	{
		RadixBucket *b = &buckets[i];
		uint64		next_prefix = (prefix << digit_bits) | b->digit;

		if (b->collected != NULL)
		{
			KeyArraySource array;

			KeyArraySourceInit(&array, b->collected, b->size, key_bytes);
			select_level(&array.source, key_bits, next_prefix, prefix_bits + digit_bits,
						 b->size, ranks + b->first, out_index + b->first, b->nranks, out);
			pfree(b->collected);
		}
		else
			select_level(source, key_bits, next_prefix, prefix_bits + digit_bits,
						 b->size, ranks + b->first, out_index + b->first, b->nranks, out);
	}
	pfree(buckets);
}

/*
 * Sorts n keys whose high bytes beyond key_bytes are zero, least
 * significant byte first, through tmp (n keys); a byte that every key
 * shares costs its count and no move.  Returns the array that holds the
 * sorted keys (keys or tmp).
 */
static uint64 *
lsd_sort(uint64 *keys, uint64 *tmp, int64 n, int key_bytes)
{
	int64		counts[256];

	for (int byte = 0; byte < key_bytes; byte++)
	{
		int			shift = byte * 8;
		int64		at = 0;
		uint64	   *swap;

		CHECK_FOR_INTERRUPTS();
		memset(counts, 0, sizeof(counts));
		for (int64 i = 0; i < n; i++)
			counts[(keys[i] >> shift) & 0xFF]++;
		if (counts[(keys[0] >> shift) & 0xFF] == n)
			continue;
		for (int d = 0; d < 256; d++)
		{
			int64		c = counts[d];

			counts[d] = at;
			at += c;
		}
		for (int64 i = 0; i < n; i++)
			tmp[counts[(keys[i] >> shift) & 0xFF]++] = keys[i];
		swap = keys;
		keys = tmp;
		tmp = swap;
	}
	return keys;
}

/*
 * Dense ranks (RADIX_DENSE_KEYS_PER_RANK): copies the keys of the rewound
 * source, if they fit the memory the selection would give its buckets,
 * sorts them and reads the ranks.  False, with nothing read, otherwise.
 */
static bool
select_dense(KeySource *source, const int64 *ranks, int nranks, uint64 *out)
{
	int64		n = source->count;
	int			key_bytes = source->key_bytes;
	int64		limit = Max((int64) work_mem * 1024 / (2 * sizeof(uint64)), RADIX_NARROW_MAX_KEYS);
	uint64	   *copy;
	uint64	   *tmp;
	uint64	   *sorted;

	if (n <= 0 || n > limit || (int64) nranks * RADIX_DENSE_KEYS_PER_RANK < n)
		return false;
	copy = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n);
	tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n);
	KeySourceCopy(source, n, copy);
	sorted = lsd_sort(copy, tmp, n, key_bytes);
	for (int i = 0; i < nranks; i++)
		out[i] = sorted[ranks[i]];
	pfree(copy);
	pfree(tmp);
	return true;
}

/*
 * Few keys (INPLACE_SELECT_MAX_KEYS): copies the keys of the rewound
 * source and selects the ranks in the copy by partitioning, which beats
 * a radix level per shared byte there.  False, with nothing read, otherwise.
 */
static bool
select_small(KeySource *source, const int64 *ranks, int nranks, uint64 *out)
{
	int64		n = source->count;
	uint64	   *copy;

	if (n <= 0 || n > INPLACE_SELECT_MAX_KEYS)
		return false;
	copy = palloc(sizeof(uint64) * n);
	KeySourceCopy(source, n, copy);
	SelectKeysInPlace(copy, n, ranks, nranks, out);
	pfree(copy);
	return true;
}

/*
 * Selects the keys at 0-based ascending ranks (nondecreasing, each below
 * source->count) into out[0..nranks-1].
 */
void
RadixSelectKeys(KeySource *source, const int64 *ranks, int nranks, uint64 *out)
{
	int64	   *work;
	int		   *out_index;

	/* a key store counts its keys when rewound */
	source->rewind(source);
	if (select_dense(source, ranks, nranks, out) || select_small(source, ranks, nranks, out))
		return;
	work = palloc(sizeof(int64) * nranks);
	out_index = palloc(sizeof(int) * nranks);
	for (int i = 0; i < nranks; i++)
	{
		Assert(ranks[i] >= 0 && ranks[i] < source->count);
		Assert(i == 0 || ranks[i - 1] <= ranks[i]);
		work[i] = ranks[i];
		out_index[i] = i;
	}
	if (nranks > 0)
		select_level(source, source->key_bytes * 8, 0, 0, source->count,
					 work, out_index, nranks, out);
	pfree(work);
	pfree(out_index);
}
