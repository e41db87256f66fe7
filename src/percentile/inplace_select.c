/*
 * inplace_select.c
 *	  Exact multiselection over an array of keys the caller lets us reorder:
 *	  a quickselect that follows every wanted rank at once, splitting three
 *	  ways around a median-of-three pivot without branches on the keys, and
 *	  sorting a part where the splits stop shrinking it.
 *
 * Groups of a few hundred to a few thousand keys are where a grouped
 * percentile spends its selection: radix selection pays a 256-counter
 * histogram and a pass over the group for every 8 bits of key that the
 * group's keys share (a float8 key in [0, 1) shares its top 12 bits with
 * every other), while a split touches each key twice, every key written
 * whichever side it goes, since the comparisons go either way at random.
 * Keys are unsigned order keys, compared as integers.  The keys equal to
 * the pivot end a round where they hold a rank (an all-equal group costs
 * two passes); an input built against the pivot rule ends in the sort
 * after two rounds per halving, so no group costs more than n log n.
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
/* ranks followed at once at most; more sort the keys */
#define INPLACE_MAX_RANKS		64

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
 * Puts the keys of the wanted ranks of a[0..n) in their sorted places,
 * following every wanted rank (ascending, relative to a, shifted as it
 * goes): each round splits the range three ways around a pivot, places
 * the ranks that fall among the keys equal to it, recurses into the lower
 * part for the ranks there and goes on with the upper part.  A part still
 * unplaced after 'budget' rounds is sorted.
 */
static void
multiselect(uint64 *a, int64 n, int64 *ranks, int nranks, int budget)
{
	while (nranks > 0 && n > INPLACE_INSERTION_KEYS)
	{
		uint64		pivot;
		int64		lt;
		int64		gt;
		int			left = 0;
		int			right;

		if (budget-- == 0)
		{
			sort_inplace_keys(a, n);
			return;
		}
		pivot = median3(a[0], a[n / 2], a[n - 1]);
		/* a[0..lt) < pivot, a[lt..gt) == pivot, a[gt..n) > pivot */
		lt = partition_front(a, 0, n - 1, pivot, false);
		gt = partition_front(a, lt, n - 1, pivot, true);
		while (left < nranks && ranks[left] < lt)
			left++;
		right = left;
		while (right < nranks && ranks[right] < gt)
			right++;
		if (left > 0)
			multiselect(a, lt, ranks, left, budget);
		a += gt;
		n -= gt;
		for (int r = right; r < nranks; r++)
			ranks[r] -= gt;
		ranks += right;
		nranks -= right;
	}
	if (nranks > 0)
		insertion_sort(a, 0, n - 1);
}

/*
 * Selects the keys at 0-based ascending ranks (nondecreasing, each below
 * n) of keys[0..n-1] into out[0..nranks-1], reordering the keys; more
 * ranks than the keys' halvings sort them instead, one sort costing less
 * than a partitioning per rank.
 */
void
SelectKeysInPlace(uint64 *keys, int64 n, const int64 *ranks, int nranks, uint64 *out)
{
	int64		relative[INPLACE_MAX_RANKS];
	int			log2n = 0;

	while (log2n < 63 && (INT64CONST(1) << log2n) < n)
		log2n++;
	if (nranks > Min(log2n, INPLACE_MAX_RANKS))
		sort_inplace_keys(keys, n);
	else if (nranks > 0)
	{
		/* multiselect shifts the ranks it is given; two rounds per halving, then a sort */
		memcpy(relative, ranks, sizeof(int64) * nranks);
		multiselect(keys, n, relative, nranks, 2 * log2n + 2);
	}
	for (int i = 0; i < nranks; i++)
		out[i] = keys[ranks[i]];
}
