/*
 * key_select.h
 *	  Exact multiselection of keys at ascending ranks, on the GPU or the CPU.
 */
#ifndef GPUSEL_KEY_SELECT_H
#define GPUSEL_KEY_SELECT_H

#include "keystore.h"

/* Selects keys of ascending ranks from a source; see RadixSelectKeys. */
typedef void (*KeySelectFn) (KeySource *source, const int64 *ranks, int nranks,
							 uint64 *out);

extern KeySelectFn GpuselChooseKeySelect(int64 nrows, bool spilled);
extern KeySelectFn GpuselChooseSegmentSelect(int64 nrows);

#endif							/* GPUSEL_KEY_SELECT_H */
