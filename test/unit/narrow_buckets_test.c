/*
 * narrow_buckets_test.c
 *	  The table of shared splitters (src/groupagg/narrow_buckets.h) against
 *	  the plain binary search, for every key tried: splitters from samples
 *	  of uniform, skewed (a narrow cluster beside a long tail), few-valued,
 *	  all-equal and tightly clustered keys (several splitters to a step), padded with PG_UINT64_MAX where the sample was
 *	  short, 1 to 1,023 splitters; keys from the same shapes, equal to a
 *	  splitter, one either side of it, and the extremes 0 and PG_UINT64_MAX;
 *	  and the range of keys each bucket holds (narrow_bucket_keys) against
 *	  the bucket the search gives, for a key's bucket and the two beside it.
 *	  Built against the server's headers, outside the server.
 */
#include "postgres.h"

#include "../../src/groupagg/narrow_buckets.h"

#include "unit_common.h"

/* A key of the given shape. */
static uint64
key_of_shape(int shape)
{
	uint64		r = next_random();

	switch (shape)
	{
		case 0:				/* uniform over all keys */
			return r;
		case 1:				/* a narrow cluster beside a long tail */
			return (r & 7) != 0 ? UINT64CONST(0xBFF0000000000000) + (r >> 40) : r >> 1;
		case 2:				/* few values */
			return UINT64CONST(1000) * (r % 5);
		case 3:				/* all equal */
			return UINT64CONST(0x8000000000000000);
		case 4:				/* hundreds of tight clusters: a few splitters to a step */
			return UINT64CONST(1) << 40 | (r % 300) << 28 | (r >> 60);
		default:			/* order keys of doubles in [0, 1): binades of equal span */
			return UINT64CONST(0xBF00000000000000) + (r >> 12) + ((r % 11) << 52);
	}
}

int
main(int argc, char **argv)
{
	int			cases = argc > 1 ? atoi(argv[1]) : 400;
	long		checked = 0;
	long		failed = 0;
	static NarrowLut lut;

	for (int c = 0; c < cases; c++)
	{
		int			shape = c % 6;
		int			ns = 1 + (int) (next_random() % 1023);
		int			nsample = (c % 7 == 0) ? (int) (next_random() % (ns + 1)) : ns * 16;
		uint64	   *sample = malloc(sizeof(uint64) * (nsample + 1));
		uint64	   *split = malloc(sizeof(uint64) * (ns + 1));

		for (int i = 0; i < nsample; i++)
			sample[i] = key_of_shape(shape);
		qsort(sample, nsample, sizeof(uint64), cmp_keys);
		/* evenly spaced in the sample, the rest padding, as groupagg_narrow.c picks them */
		for (int i = 0; i < ns; i++)
			split[i] = nsample > ns ? sample[(long) (i + 1) * nsample / (ns + 1)] : PG_UINT64_MAX;
		split[ns] = PG_UINT64_MAX;
		narrow_lut_make(&lut, split, ns);
		for (int k = 0; k < 20000; k++)
		{
			uint64		key;
			int			want;
			int			got;

			switch (k % 6)
			{
				case 0:
					key = split[next_random() % ns];
					break;
				case 1:
					key = split[next_random() % ns] + 1;
					break;
				case 2:
					key = split[next_random() % ns] - 1;
					break;
				case 3:
					key = (k & 8) ? 0 : PG_UINT64_MAX;
					break;
				default:
					key = key_of_shape((k % 5 == 0) ? 0 : shape);
					break;
			}
			want = narrow_bucket_of(split, ns, key);
			got = narrow_lut_bucket(&lut, split, ns, key);
			checked++;
			if (got != want)
			{
				if (failed < 10)
					printf("case %d (shape %d, %d splitters): key %llu in bucket %d, table says %d\n",
						   c, shape, ns, (unsigned long long) key, want, got);
				failed++;
			}
			/* the ranges of keys of its bucket and the two beside it hold it, or not */
			for (int b = Max(want - 1, 0); b <= Min(want + 1, ns); b++)
			{
				uint64		lo;
				uint64		hi;
				bool		past;
				bool		holds = narrow_bucket_keys(split, ns, b, &lo, &hi, &past) &&
					key >= lo && key <= hi;

				checked++;
				if (holds != (b == want))
				{
					if (failed < 10)
						printf("case %d (shape %d, %d splitters): key %llu in bucket %d, bucket %d's range says %s\n",
							   c, shape, ns, (unsigned long long) key, want, b, holds ? "yes" : "no");
					failed++;
				}
			}
		}
		free(sample);
		free(split);
	}
	printf("narrow_buckets: %d cases, %ld keys, %ld failed\n", cases, checked, failed);
	return failed == 0 ? 0 : 1;
}
