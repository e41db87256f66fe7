/*
 * inplace_select_test.c
 *	  SelectKeysInPlace (src/percentile/inplace_select.c) against a sort of
 *	  the same keys: random and adversarial orders (sorted, reverse-sorted,
 *	  all equal, two values, organ pipe, sawtooth, few values, interleaved),
 *	  one to 20,000 keys, one rank to a hundred, neighbouring and repeated
 *	  ranks.  The keys must come back a permutation of themselves.  Built
 *	  against the server's headers, outside the server.
 */
#include "../../src/percentile/inplace_select.c"

#include "unit_common.h"

/* Key i of n in the given shape. */
static uint64
key_of(int shape, int64 i, int64 n)
{
	switch (shape)
	{
		case 0:
			return next_random();
		case 1:
			return i;
		case 2:
			return n - i;
		case 3:
			return 42;
		case 4:
			return i % 2;
		case 5:
			return i < n / 2 ? i : n - i;
		case 6:
			return i % 17;
		case 7:
			return next_random() % 5;
		default:
			return (i & 1) ? i : n - i;
	}
}

int
main(int argc, char **argv)
{
	int			cases = argc > 1 ? atoi(argv[1]) : 50000;
	long		failures = 0;

	for (int c = 0; c < cases; c++)
	{
		int64		n = 1 + next_random() % (c % 10 == 0 ? 20000 : 600);
		int			shape = (int) (next_random() % 9);
		int			nranks = 1 + (int) (next_random() % (c % 7 == 0 ? 100 : 6));
		uint64	   *keys = malloc(sizeof(uint64) * n);
		uint64	   *sorted = malloc(sizeof(uint64) * n);
		int64	   *ranks = malloc(sizeof(int64) * nranks);
		uint64	   *out = malloc(sizeof(uint64) * nranks);

		for (int64 i = 0; i < n; i++)
			keys[i] = sorted[i] = key_of(shape, i, n);
		qsort(sorted, n, sizeof(uint64), cmp_keys);
		for (int r = 0; r < nranks; r++)
			ranks[r] = (int64) (next_random() % n);
		qsort(ranks, nranks, sizeof(int64), cmp_keys);
		/* neighbours, as percentile_cont reads them */
		if (c % 5 == 0 && nranks > 1)
		{
			ranks[1] = Min(ranks[0] + 1, n - 1);
			for (int r = 2; r < nranks; r++)
				ranks[r] = Max(ranks[r], ranks[1]);
		}
		SelectKeysInPlace(keys, n, ranks, nranks, out);
		for (int r = 0; r < nranks; r++)
			if (out[r] != sorted[ranks[r]])
			{
				if (failures++ < 5)
					printf("case %d: %lld keys of shape %d, rank %lld: got %llu, want %llu\n",
						   c, (long long) n, shape, (long long) ranks[r],
						   (unsigned long long) out[r], (unsigned long long) sorted[ranks[r]]);
				break;
			}
		qsort(keys, n, sizeof(uint64), cmp_keys);
		if (memcmp(keys, sorted, sizeof(uint64) * n) != 0 && failures++ < 5)
			printf("case %d: the keys are no longer the same keys\n", c);
		free(keys);
		free(sorted);
		free(ranks);
		free(out);
	}
	printf("inplace_select: %d cases, %ld failed\n", cases, failures);
	return failures == 0 ? 0 : 1;
}
