/*
 * percentile.h
 *	  gpu_percentile's selection state, for callers outside the aggregate:
 *	  the GPU scan that collects an ORDER BY column page by page.
 */
#ifndef GPUSEL_PERCENTILE_H
#define GPUSEL_PERCENTILE_H

#include "postgres.h"

typedef struct PercentileState PercentileState;

extern PercentileState *GpuselPercentileCreate(MemoryContext cxt, Oid typid,
											   bool descending);
extern void GpuselPercentileAdd(PercentileState *state, Datum value);
extern Datum GpuselPercentileResult(PercentileState *state, Datum fraction,
									bool fraction_isnull, bool is_array,
									bool continuous, bool *isnull);
extern void GpuselPercentileRelease(PercentileState *state);
extern Datum GpuselPercentileResultForKeys(PercentileState *like, const void *keys,
										   int64 nkeys, bool sorted,
										   bool seen_negative_zero,
										   bool seen_positive_zero, Datum fraction,
										   bool fraction_isnull, bool is_array,
										   bool continuous, bool *isnull);
extern const struct KeyType *GpuselPercentileKeyType(PercentileState *state);

#endif							/* GPUSEL_PERCENTILE_H */
