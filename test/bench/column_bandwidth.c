/*
 * column_bandwidth.c
 *	  What the host's memory allows for sum + count under five column
 *	  tests, outside PostgreSQL: the benchmark table's column types (x, y
 *	  float8; k, d int4; f float4; j int8) for 20M rows, tested a block of
 *	  1,024 rows at a time as the CPU path does (a byte per row ANDed by
 *	  each test, the passing rows' j summed), on 1 to N threads; and the
 *	  same with one-byte codes in place of the tested columns (a code equal
 *	  to the constant's read again from the column), to price narrower
 *	  column forms.
 *
 *	  cc -O3 -pthread -o column_bandwidth test/bench/column_bandwidth.c
 *	  ./column_bandwidth 9
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS	20000000
#define BLOCK	1024

#if defined(__x86_64__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

static double *x,
		   *y;
static int32_t *k,
		   *d;
static float *f;
static int64_t *j;
static uint8_t *cx,
		   *cy,
		   *ck,
		   *cf,
		   *cd;

/* Milliseconds of a monotonic clock. */
static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* pass[i] &= (c[i] > b), as PostgreSQL compares float8 (NaN greatest) */
VECTOR_CLONES static void
test_f8_gt(const double *c, int n, double b, uint8_t *pass)
{
	for (int i = 0; i < n; i++)
		pass[i] &= (uint8_t) !(c[i] <= b);
}

/* pass[i] &= (c[i] < b) */
VECTOR_CLONES static void
test_f8_lt(const double *c, int n, double b, uint8_t *pass)
{
	for (int i = 0; i < n; i++)
		pass[i] &= (uint8_t) (c[i] < b);
}

/* pass[i] &= c[i] in the range of lo and span (the sign bit flipped) */
VECTOR_CLONES static void
test_i4(const int32_t *c, int n, uint32_t lo, uint32_t span, uint8_t *pass)
{
	for (int i = 0; i < n; i++)
		pass[i] &= (uint8_t) ((uint32_t) c[i] - lo <= span);
}

/* pass[i] &= (c[i] < b) for float4 */
VECTOR_CLONES static void
test_f4_lt(const float *c, int n, float b, uint8_t *pass)
{
	for (int i = 0; i < n; i++)
		pass[i] &= (uint8_t) (c[i] < b);
}

/* a one-byte code's test: above the constant's code passes, equal to it must be read again */
VECTOR_CLONES static void
test_code(const uint8_t *c, int n, uint8_t lo, uint8_t *pass, uint8_t *again)
{
	for (int i = 0; i < n; i++)
	{
		pass[i] &= (uint8_t) (c[i] >= lo);
		again[i] |= (uint8_t) (c[i] == lo);
	}
}

/* How many bytes of pass are set. */
VECTOR_CLONES static int
count_set(const uint8_t *pass, int n)
{
	int			s = 0;

	for (int i = 0; i < n; i++)
		s += pass[i];
	return s;
}

/* The sum of c over the rows that pass. */
VECTOR_CLONES static int64_t
masked_sum(const int64_t *c, const uint8_t *pass, int n)
{
	int64_t		s = 0;

	for (int i = 0; i < n; i++)
		s += c[i] & -(int64_t) pass[i];
	return s;
}

typedef struct Part
{
	int			from;
	int			to;
	int			codes;
	int64_t		count;
	int64_t		sum;
} Part;

/* One thread's rows, block by block. */
static void *
run_part(void *arg)
{
	Part	   *p = arg;
	uint32_t   *rows = malloc(sizeof(uint32_t) * BLOCK);
	int64_t		sum = 0;
	int64_t		count = 0;

	for (int first = p->from; first < p->to; first += BLOCK)
	{
		int			len = BLOCK < p->to - first ? BLOCK : p->to - first;
		uint8_t		pass[BLOCK];

		memset(pass, 1, len);
		if (!p->codes)
		{
			int			n = 0;

			test_f8_gt(x + first, len, 0.1, pass);
			(void) count_set(pass, len);
			test_f8_lt(y + first, len, 400, pass);
			(void) count_set(pass, len);
			test_i4(k + first, len, 1001u ^ 0x80000000u, 0x7fffffffu, pass);
			(void) count_set(pass, len);
			test_f4_lt(f + first, len, 0.95f, pass);
			(void) count_set(pass, len);
			test_i4(d + first, len, 0, 0xffffffffu, pass);
			for (int i = 0; i < len; i++)
			{
				rows[n] = first + i;
				n += pass[i];
			}
			count += n;
			for (int i = 0; i < n; i++)
				sum += j[rows[i]];
		}
		else
		{
			uint8_t		again[BLOCK];

			memset(again, 0, len);
			test_code(cx + first, len, 26, pass, again);
			test_code(cy + first, len, 0, pass, again);
			test_code(ck + first, len, 1, pass, again);
			test_code(cf + first, len, 0, pass, again);
			test_code(cd + first, len, 3, pass, again);
			count += count_set(pass, len);
			sum += masked_sum(j + first, pass, len);
			if (count_set(again, len) > 0)
			{
				int			n = 0;

				/* the rows to read again, and only those */
				for (int i = 0; i < len; i++)
				{
					rows[n] = first + i;
					n += again[i];
				}
				for (int i = 0; i < n; i++)
					sum += x[rows[i]] > 0.1;
			}
		}
	}
	p->count = count;
	p->sum = sum;
	free(rows);
	return NULL;
}

int
main(int argc, char **argv)
{
	int			threads = argc > 1 ? atoi(argv[1]) : 1;

	if (threads < 1 || threads > 64)
		threads = 1;
	x = malloc(sizeof(double) * ROWS);
	y = malloc(sizeof(double) * ROWS);
	k = malloc(sizeof(int32_t) * ROWS);
	d = malloc(sizeof(int32_t) * ROWS);
	f = malloc(sizeof(float) * ROWS);
	j = malloc(sizeof(int64_t) * ROWS);
	cx = malloc(ROWS);
	cy = malloc(ROWS);
	ck = malloc(ROWS);
	cf = malloc(ROWS);
	cd = malloc(ROWS);
	for (int i = 0; i < ROWS; i++)
	{
		x[i] = rand() / (double) RAND_MAX;
		y[i] = rand() / (double) RAND_MAX * 1000 - 500;
		k[i] = rand() % 1000000;
		d[i] = i % 9000 - 3;
		f[i] = rand() / (float) RAND_MAX;
		j[i] = ((int64_t) rand() << 20) + rand();
		cx[i] = (uint8_t) (x[i] * 255);
		cy[i] = (uint8_t) ((y[i] + 500) / 4);
		ck[i] = (uint8_t) (k[i] / 4000);
		cf[i] = (uint8_t) (f[i] * 255);
		cd[i] = (uint8_t) ((d[i] + 3) / 36);
	}
	for (int codes = 0; codes < 2; codes++)
	{
		double		best = 1e9;

		for (int rep = 0; rep < 7; rep++)
		{
			pthread_t	th[64];
			Part		parts[64];
			double		t0 = now_ms();
			double		t1;

			for (int t = 0; t < threads; t++)
			{
				parts[t].from = (int) ((int64_t) ROWS * t / threads) / BLOCK * BLOCK;
				parts[t].to = t == threads - 1 ? ROWS :
					(int) ((int64_t) ROWS * (t + 1) / threads) / BLOCK * BLOCK;
				parts[t].codes = codes;
				pthread_create(&th[t], NULL, run_part, &parts[t]);
			}
			for (int t = 0; t < threads; t++)
				pthread_join(th[t], NULL);
			t1 = now_ms();
			if (t1 - t0 < best)
				best = t1 - t0;
		}
		printf("threads %d, %s: best of 7 %.2f ms for %d rows\n", threads,
			   codes ? "one-byte codes" : "the columns", best, ROWS);
	}
	return 0;
}
