/*
 * percentile.h
 *	  gpu_percentile's selection state, for callers outside the aggregate:
 *	  the GPU scan that collects an ORDER BY column page by page.
 */
#ifndef GPUSEL_PERCENTILE_H
#define GPUSEL_PERCENTILE_H

#include "postgres.h"

typedef struct PercentileState PercentileState;

/*
 * Keys at chosen positions of a grouped scan's collection in its order by
 * group and key, picked on the GPU after it sorted all groups at once.
 * While noting, GpuselPercentileNoteRanks adds the positions a group's
 * result reads (base + rank); afterwards keys[i] is the key at
 * positions[i], positions ascending and distinct.
 */
typedef struct PickedKeys
{
	bool		noting;
	int64		base;			/* the current group's first position */
	int64	   *positions;
	uint64	   *keys;
	int64		count;
	int64		cap;
	MemoryContext cxt;
} PickedKeys;

extern PercentileState *GpuselPercentileCreate(MemoryContext cxt, Oid typid,
											   bool descending);
extern void GpuselPercentileAdd(PercentileState *state, Datum value);
extern Datum GpuselPercentileResult(PercentileState *state, Datum fraction,
									bool fraction_isnull, bool is_array,
									bool continuous, bool *isnull);
extern void GpuselPercentileRelease(PercentileState *state);
extern Datum GpuselPercentileResultForKeys(PercentileState *like, const void *keys,
										   int64 nkeys, PickedKeys *picked,
										   bool seen_negative_zero,
										   bool seen_positive_zero, Datum fraction,
										   bool fraction_isnull, bool is_array,
										   bool continuous, bool *isnull);
extern void GpuselPercentileNoteRanks(PercentileState *like, int64 nkeys, Datum fraction,
									  bool fraction_isnull, bool is_array, bool continuous,
									  PickedKeys *picked);
extern const struct KeyType *GpuselPercentileKeyType(PercentileState *state);
extern PercentileState *GpuselPercentileCreateForValues(MemoryContext cxt, Oid typid,
														bool descending);
extern void GpuselPercentileSortValues(PercentileState *like, Datum *values, int64 n);
extern Datum GpuselPercentileResultForValues(PercentileState *like, const Datum *sorted,
											 int64 n, Datum fraction, bool fraction_isnull,
											 bool is_array, bool continuous, bool *isnull);

#endif							/* GPUSEL_PERCENTILE_H */
