/*
 * unit_common.h
 *	  What the CPU unit tests (test/unit/*_test.c) share: an order of
 *	  unsigned keys for qsort and a fixed pseudo-random sequence, so that
 *	  every run tries the same cases.  Included after the code under test,
 *	  which brings in the server's headers.
 */
#ifndef GPUSEL_UNIT_COMMON_H
#define GPUSEL_UNIT_COMMON_H

#undef printf
#undef qsort
#include <stdio.h>
#include <stdlib.h>

/* Orders unsigned keys for qsort. */
static int
cmp_keys(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y;
}

static uint64 state = 88172645463325252ULL;

/* xorshift64: the same cases every run */
static uint64
next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

#endif							/* GPUSEL_UNIT_COMMON_H */
