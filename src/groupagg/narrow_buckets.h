/*
 * narrow_buckets.h
 *	  A key's bucket among ascending splitters, the number of them below
 *	  it (groupagg_narrow.c): a binary search without branches on the keys,
 *	  and, for splitters that every process of a parallel scan shares, a
 *	  table by the key's offset from the least splitter that leaves at most
 *	  a few of them to step over.  Pure functions over plain arrays, so that
 *	  test/unit/narrow_buckets_test.c checks one against the other.
 */
#ifndef GPUSEL_NARROW_BUCKETS_H
#define GPUSEL_NARROW_BUCKETS_H

/* steps of the table: several per bucket for up to 1,024 buckets */
#define NARROW_LUT_SIZE			4096

/*
 * The table: for each of NARROW_LUT_SIZE + 1 steps of 2^shift over
 * [lo, hi], the bucket of the step's first key.  A key's bucket lies
 * between the entries of its step and the next.
 */
typedef struct NarrowLut
{
	bool		usable;			/* false: too few distinct splitters; search them */
	uint64		lo;				/* the least splitter */
	uint64		hi;				/* the greatest that is not padding (PG_UINT64_MAX) */
	int			shift;
	int			above;			/* the bucket of a key above hi */
	uint16		steps[NARROW_LUT_SIZE + 1];
} NarrowLut;

/*
 * The number of the n splitters (n >= 1, ascending) below a key.  A fixed
 * number of halvings for a given n, each a conditional move rather than a
 * branch (which would be mispredicted half the time).
 */
static inline int
narrow_bucket_of(const uint64 *splitters, int n, uint64 key)
{
	const uint64 *base = splitters;

	while (n > 1)
	{
		int			half = n / 2;

		base = base[half] < key ? base + half : base;
		n -= half;
	}
	return (int) (base - splitters) + (*base < key);
}

/* Makes the table of ns ascending splitters (at most 65,535), padded with PG_UINT64_MAX. */
static inline void
narrow_lut_make(NarrowLut *lut, const uint64 *split, int ns)
{
	int			nreal = 0;
	uint64		range;
	int			shift = 0;

	lut->usable = false;
	while (nreal < ns && split[nreal] != PG_UINT64_MAX)
		nreal++;
	if (nreal < 2 || split[nreal - 1] <= split[0])
		return;
	lut->lo = split[0];
	lut->hi = split[nreal - 1];
	lut->above = nreal;
	range = lut->hi - lut->lo;
	while ((range >> shift) >= NARROW_LUT_SIZE)
		shift++;
	lut->shift = shift;
	for (int i = 0; i <= NARROW_LUT_SIZE; i++)
	{
		/* a step past the greatest splitter begins in the bucket above it */
		lut->steps[i] = (uint64) i > (range >> shift) ? (uint16) nreal :
			(uint16) narrow_bucket_of(split, ns, lut->lo + ((uint64) i << shift));
	}
	lut->usable = true;
}

/*
 * A key's bucket among ns splitters through their table: at most three
 * splitters between the two entries are stepped over without a branch,
 * more are searched.  split[ns] must be readable (a padding entry).
 */
static inline int
narrow_lut_bucket(const NarrowLut *lut, const uint64 *split, int ns, uint64 key)
{
	uint64		i;
	int			b0;
	int			b1;
	int			b;

	if (!lut->usable)
		return narrow_bucket_of(split, ns, key);
	if (key <= lut->lo)
		return 0;
	if (key > lut->hi)
		return lut->above;
	i = (key - lut->lo) >> lut->shift;
	b0 = lut->steps[i];
	b1 = lut->steps[i + 1];
	if (unlikely(b1 - b0 > 3))
		return b0 + narrow_bucket_of(split + b0, b1 - b0, key);
	b = b0;
	b += (b < b1) & (split[b] < key);
	b += (b < b1) & (split[b] < key);
	b += (b < b1) & (split[b] < key);
	return b;
}

/*
 * The keys bucket b holds among ns ascending splitters (padded with
 * PG_UINT64_MAX): those above splitter b - 1 and up to splitter b, as
 * [*lo, *hi], so that narrow_bucket_of gives b for exactly these keys.
 * False when it holds none: equal splitters, or (*past) no key lies above
 * the splitter below it, nor in any bucket after it.
 */
static inline bool
narrow_bucket_keys(const uint64 *split, int ns, int b, uint64 *lo, uint64 *hi, bool *past)
{
	*past = b > 0 && split[b - 1] == PG_UINT64_MAX;
	if (*past)
		return false;
	*lo = b == 0 ? 0 : split[b - 1] + 1;
	*hi = b == ns ? PG_UINT64_MAX : split[b];
	return *lo <= *hi;
}

#endif							/* GPUSEL_NARROW_BUCKETS_H */
