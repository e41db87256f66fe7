/*
 * radix_select.h
 *	  Exact multiselection over keys on the CPU, in linear time.
 */
#ifndef GPUSEL_RADIX_SELECT_H
#define GPUSEL_RADIX_SELECT_H

#include "keystore.h"

extern void RadixSelectKeys(KeySource *source, const int64 *ranks, int nranks,
							uint64 *out);

#endif							/* GPUSEL_RADIX_SELECT_H */
