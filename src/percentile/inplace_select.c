/*
 * inplace_select.c
 *	  Exact multiselection over an array of keys the caller lets us reorder:
 *	  introselect (quickselect with a median-of-three pivot, falling back to
 *	  a sort of the range where partitioning stops shrinking it).
 *
 * A group of a few thousand keys is where a grouped percentile spends its
 * selection: radix selection pays a 256-counter histogram and a pass over
 * the group for every 8 bits of key that the group's keys share (a float8
 * key in [0, 1) shares its top 12 bits with every other), while
 * partitioning touches each key about three times per rank, without a
 * branch on the keys.  Keys are unsigned order keys, compared as integers;
 * keys equal to the pivot end a round where they hold the rank (an
 * all-equal group costs two passes), and an input built against the pivot
 * rule ends in the sort.
 */
#include "postgres.h"

#include "inplace_select.h"

/* unsigned keys sort in value order */
#define ST_SORT sort_inplace_keys
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* ranges up to this long are sorted by insertion instead of partitioned */
#define INPLACE_INSERTION_KEYS	16

/* Sorts keys[lo..hi] by insertion. */
static void
insertion_sort(uint64 *keys, int64 lo, int64 hi)
{
	for (int64 i = lo + 1; i <= hi; i++)
	{
		uint64		k = keys[i];
		int64		j = i - 1;

		while (j >= lo && keys[j] > k)
		{
			keys[j + 1] = keys[j];
			j--;
		}
		keys[j + 1] = k;
	}
}

/* The middle value of three. */
static inline uint64
median3(uint64 a, uint64 b, uint64 c)
{
	if (a < b)
		return b < c ? b : (a < c ? c : a);
	return a < c ? a : (b < c ? c : b);
}

/*
 * Moves the keys of keys[lo..hi] that pass 'below' (key < pivot, or key
 * <= pivot when or_equal) to the front, keeping the rest after them;
 * returns where the rest begins.  Every key is swapped whether it moves
 * or not, so the loop has no branch on the data to mispredict.
 */
static inline int64
partition_front(uint64 *keys, int64 lo, int64 hi, uint64 pivot, bool or_equal)
{
	int64		store = lo;

	for (int64 i = lo; i <= hi; i++)
	{
		uint64		k = keys[i];
		int64		moves = or_equal ? (k <= pivot) : (k < pivot);

		keys[i] = keys[store];
		keys[store] = k;
		store += moves;
	}
	return store;
}

/*
 * Reorders keys[lo..hi] so that keys[rank] holds the key of that rank
 * within it, nothing greater before it and nothing smaller after it.
 * Each round splits the range into keys below the pivot, equal to it and
 * above it, and keeps the part that holds the rank.
 */
static void
select_one(uint64 *keys, int64 lo, int64 hi, int64 rank)
{
	int			budget = 2;

	/* two rounds per halving of the range, then a sort */
	for (int64 n = hi - lo + 1; n > 1; n >>= 1)
		budget += 2;
	while (hi - lo + 1 > INPLACE_INSERTION_KEYS)
	{
		uint64		pivot;
		int64		less_end;
		int64		equal_end;

		if (--budget == 0)
		{
			sort_inplace_keys(keys + lo, hi - lo + 1);
			return;
		}
		pivot = median3(keys[lo], keys[lo + (hi - lo) / 2], keys[hi]);
		less_end = partition_front(keys, lo, hi, pivot, false);
		if (rank < less_end)
		{
			hi = less_end - 1;
			continue;
		}
		equal_end = partition_front(keys, less_end, hi, pivot, true);
		if (rank < equal_end)
			return;				/* keys[rank] is the pivot */
		lo = equal_end;
	}
	insertion_sort(keys, lo, hi);
}

/*
 * Selects the keys at 0-based ascending ranks (nondecreasing, each below
 * n) of keys[0..n-1] into out[0..nranks-1], reordering the keys.  After
 * a rank is placed every key past it is at least as great, so the next
 * rank is selected among those alone; many ranks sort the keys instead.
 */
void
SelectKeysInPlace(uint64 *keys, int64 n, const int64 *ranks, int nranks, uint64 *out)
{
	int64		lo = 0;
	int			log2n = 0;

	/* more ranks than the keys' halvings: one sort costs less than a partitioning per rank */
	while (log2n < 63 && (INT64CONST(1) << log2n) < n)
		log2n++;
	if (nranks > log2n)
	{
		sort_inplace_keys(keys, n);
		for (int i = 0; i < nranks; i++)
			out[i] = keys[ranks[i]];
		return;
	}

	for (int i = 0; i < nranks; i++)
	{
		int64		r = ranks[i];

		Assert(r >= lo && r < n);
		if (i > 0 && r == ranks[i - 1] + 1)
		{
			/* the next rank (percentile_cont's upper neighbour): the least key past the last */
			int64		least = r;

			for (int64 j = r + 1; j < n; j++)
				if (keys[j] < keys[least])
					least = j;
			{
				uint64		t = keys[r];

				keys[r] = keys[least];
				keys[least] = t;
			}
		}
		else if (i == 0 || r != ranks[i - 1])
			select_one(keys, lo, n - 1, r);
		out[i] = keys[r];
		lo = r;
	}
}
