/*
 * inplace_select.h
 *	  Exact multiselection over a small array of keys, reordering it.
 */
#ifndef GPUSEL_INPLACE_SELECT_H
#define GPUSEL_INPLACE_SELECT_H

#include "postgres.h"

/* Groups up to this many keys select in place (a copy) rather than by radix. */
#define INPLACE_SELECT_MAX_KEYS	8192

extern void SelectKeysInPlace(uint64 *keys, int64 n, const int64 *ranks, int nranks,
							  uint64 *out);

#endif							/* GPUSEL_INPLACE_SELECT_H */
