/*
 * cache.h
 *	  The column cache: a table's columns kept in shared memory, in the
 *	  batch forms the scan reads, as one more source of rows.
 *
 * gpusel_cache(regclass) reads a table once, under a lock that keeps its
 * writers out, into shared memory: each cached column's batch values and
 * null bytes, the rows' TIDs, and where each heap block's rows begin.  A
 * trigger that fires for every row written afterwards marks the row's
 * block changed.  A scan whose snapshot is not older than the build reads
 * the unchanged blocks from the cache and the changed ones, and any block
 * added since, from the heap (docs/architecture.md, "The column cache").
 */
#ifndef GPUSEL_CACHE_H
#define GPUSEL_CACHE_H

#include "postgres.h"

#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "qual_program.h"
#include "scan_source.h"


/* cache_registry.c */
extern bool GpuselCacheConfigured(void);
extern bool GpuselCacheHolds(Oid relid);
extern bool GpuselCacheHoldsOnDevice(Oid relid);

/* cache_source.c */
extern void GpuselCacheInit(void);
extern GpuselSource *GpuselCacheSourceBegin(Relation rel, Snapshot snapshot,
											const GpuselProgram *prog, int64 chunk_rows);


#endif							/* GPUSEL_CACHE_H */
