/*
 * cache_internal.h
 *	  The column cache's shared state: a registry of cached tables in the
 *	  main shared memory, their columns in a dynamic shared memory area.
 */
#ifndef GPUSEL_CACHE_INTERNAL_H
#define GPUSEL_CACHE_INTERNAL_H

#include "postgres.h"

#include "access/htup.h"
#include "port/atomics.h"
#include "storage/block.h"
#include "storage/dsm.h"
#include "storage/lockdefs.h"
#include "storage/lwlock.h"
#include "utils/dsa.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "utils/timestamp.h"

#include "cache.h"
#include "qual_program.h"

/* Tuning: tables one server caches at once, rows per segment, build xids kept. */
#define GPUSEL_CACHE_MAX_TABLES		64
#define GPUSEL_CACHE_SEGMENT_ROWS	65536
#define GPUSEL_CACHE_MAX_XIP		64

/* dsa_handle is a dsm_handle: the invalid one means no area yet */
#define GPUSEL_CACHE_NO_AREA		((dsa_handle) DSM_HANDLE_INVALID)

/* The triggers that mark a cached table's written blocks. */
#define GPUSEL_CACHE_ROW_TRIGGER		"gpusel_cache_track"
#define GPUSEL_CACHE_TRUNCATE_TRIGGER	"gpusel_cache_truncate"

typedef enum GpuselCacheState
{
	GPUSEL_CACHE_FREE = 0,
	GPUSEL_CACHE_BUILDING,		/* gpusel_cache is reading the table */
	GPUSEL_CACHE_READY,
	GPUSEL_CACHE_RETIRED		/* replaced or dropped: freed when unpinned */
} GpuselCacheState;

/*
 * One cached table.  Its rows are in heap order, in segments of
 * GPUSEL_CACHE_SEGMENT_ROWS rows; a segment holds, for each column, its
 * batch values then its null bytes, and then the rows' TIDs.
 */
typedef struct GpuselCacheEntry
{
	GpuselCacheState state;		/* under the registry's lock */
	Oid			dbid;
	Oid			relid;
	Oid			relfilenode;	/* another one (TRUNCATE, VACUUM FULL, a rewrite): unusable */
	int			ncols;
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
	Oid			typids[GS_MAX_PROGRAM_LENGTH];
	int32		typmods[GS_MAX_PROGRAM_LENGTH];
	uint8		form[GS_MAX_PROGRAM_LENGTH];
	int16		form_arg[GS_MAX_PROGRAM_LENGTH];
	gs_coltype	coltypes[GS_MAX_PROGRAM_LENGTH];
	uint8		has_nulls[GS_MAX_PROGRAM_LENGTH];
	Size		values_off[GS_MAX_PROGRAM_LENGTH];	/* within a segment */
	Size		nulls_off[GS_MAX_PROGRAM_LENGTH];
	Size		tids_off;
	Size		segment_bytes;

	int64		nrows;
	BlockNumber nblocks;		/* blocks at the build */
	uint64		generation;		/* bumped by each claim: who built this, and when */
	int			nsegments;
	int			segments_capacity;
	dsa_pointer segments;		/* dsa_pointer[segments_capacity], nsegments used */
	dsa_pointer block_first;	/* int64[nblocks + 1]: block b's rows begin at [b] */
	dsa_pointer changed;		/* pg_atomic_uint32[]: a bit per block written since */
	dsa_pointer dicts;			/* GpuselCacheDict[ncols] (cache_dict.c), or none:
								 * no column holds dictionary codes */
	Size		bytes;

	/* the build's snapshot: a scan whose snapshot is older may not use the cache */
	TransactionId build_xmax;
	int			build_xcnt;		/* -1: more than GPUSEL_CACHE_MAX_XIP */
	TransactionId build_xip[GPUSEL_CACHE_MAX_XIP];

	/* the triggers as the build left them: any change to one (DISABLE) shows in its xmin */
	Oid			trigger_oid;
	TransactionId trigger_xmin;
	Oid			truncate_trigger_oid;
	TransactionId truncate_trigger_xmin;

	/*
	 * The copy of the columns in device memory that the GPU service keeps
	 * (cache_device.c), or none (resident 0): each column's values for
	 * every row, one after another, and its null bytes where it has NULLs.
	 */
	uint64		resident;
	Size		device_bytes;
	int64		dev_values_off[GS_MAX_PROGRAM_LENGTH];
	int64		dev_nulls_off[GS_MAX_PROGRAM_LENGTH];	/* -1: the column has no NULLs */

	TimestampTz built_at;
	pg_atomic_uint32 truncated;
	pg_atomic_uint32 pins;		/* scans reading it now */
	pg_atomic_uint32 changed_blocks;
	pg_atomic_uint64 hits;
} GpuselCacheEntry;

/*
 * The dictionary of a cached column that holds codes (a text or uuid
 * column): its distinct values in code order, as a stream of value_dict.c.
 */
typedef struct GpuselCacheDict
{
	dsa_pointer stream;			/* in the cache's area; invalid while empty */
	Size		bytes;			/* used */
	Size		capacity;
	int64		nvalues;
} GpuselCacheDict;

/* A build process's coder of its dictionary columns (cache_dict.c). */
typedef struct GpuselCacheDictCoder GpuselCacheDictCoder;

/* The registry in the main shared memory. */
typedef struct GpuselCacheShared
{
	LWLock	   *lock;			/* protects states, the area handle and bytes */
	int			area_tranche;
	dsa_handle	area;			/* GPUSEL_CACHE_NO_AREA until the first build */
	Size		bytes_in_use;
	GpuselCacheEntry entries[GPUSEL_CACHE_MAX_TABLES];
} GpuselCacheShared;

/*
 * A device copy written while the table is read (cache_read.c), before its
 * rows are counted: room for 'capacity' rows, each column's values then
 * null bytes, zeroed so that only chunks with NULLs write null bytes.  It
 * lies in the build's shared state, for every process of the build.
 */
typedef struct GpuselCacheDeviceStream
{
	uint64		resident;		/* 0: none; the copy is made after the read */
	int64		capacity;		/* rows it has room for */
	Size		bytes;
	int64		values_off[GS_MAX_PROGRAM_LENGTH];
	int64		nulls_off[GS_MAX_PROGRAM_LENGTH];
	pg_atomic_uint32 stopped;	/* a write failed, or the rows passed capacity */
} GpuselCacheDeviceStream;

/* cache_registry.c */
extern GpuselCacheShared *GpuselCacheRegistry(void);
extern dsa_area *GpuselCacheArea(void);
extern GpuselCacheEntry *GpuselCachePin(Oid relid);
extern void GpuselCacheUnpin(GpuselCacheEntry *entry);
extern void GpuselCacheRetire(Oid relid);
extern void GpuselCacheForgetDropped(void);
extern GpuselCacheEntry *GpuselCacheClaim(Oid relid);
extern void GpuselCacheAbandon(GpuselCacheEntry *entry);
extern void GpuselCacheStartMarking(GpuselCacheEntry *entry, BlockNumber nblocks,
									dsa_pointer changed);
extern void GpuselCachePublish(GpuselCacheEntry *entry);
extern void GpuselCacheDiscardBuild(GpuselCacheEntry *entry, uint64 generation);
extern void GpuselCacheAddSegment(GpuselCacheEntry *entry, dsa_pointer segment);
extern void GpuselCacheTrimSegments(GpuselCacheEntry *entry, int keep);
extern void GpuselCacheReserveOrFail(Relation rel, GpuselCacheEntry *entry, Size bytes);
extern dsa_pointer GpuselCacheAreaAlloc(Size bytes);

/* cache_dict.c */
extern void GpuselCacheDictsCreate(Relation rel, GpuselCacheEntry *entry);
extern GpuselCacheDictCoder *GpuselCacheDictCoderBegin(const GpuselCacheEntry *entry,
													   GpuselProgram *prog);
extern void GpuselCacheDictCoderEnd(GpuselCacheDictCoder *coder);
extern void GpuselCacheDictTakeCodes(GpuselCacheDictCoder *coder, Relation rel,
									 GpuselCacheEntry *entry);
extern void GpuselCacheDictRecode(GpuselCacheDictCoder *coder, GpuselStaging *rows,
								  const uint8 *has_nulls, int64 n);
extern bool GpuselCacheDictPreset(const GpuselCacheEntry *entry, int c, int slot);

/* cache_refresh.c */
extern void GpuselCacheRefreshInit(void);

/* cache_read.c */
extern int64 GpuselCacheReadTable(Relation rel, LOCKMODE lockmode, Snapshot snapshot,
								  GpuselCacheEntry *entry, const GpuselProgram *prog,
								  int64 expected_rows, GpuselCacheDeviceStream *stream);
extern void GpuselCacheFreeParts(GpuselCacheEntry *entry);
extern void GpuselCacheMarkChanged(Oid relid, BlockNumber blk);
extern void GpuselCacheMarkTruncated(Oid relid);
extern bool GpuselCacheBlockChanged(GpuselCacheEntry *entry, pg_atomic_uint32 *changed,
									BlockNumber blk);
extern BlockNumber GpuselCacheStretchEnd(GpuselCacheEntry *entry, pg_atomic_uint32 *changed,
										 BlockNumber start, BlockNumber limit,
										 bool *stretch_changed);
extern void GpuselCacheShmemInit(void);
extern HeapTuple GpuselCacheFindTrigger(Oid relid, const char *name);
extern bool GpuselCacheTriggerCurrent(GpuselCacheEntry *entry);
extern bool GpuselCacheReserve(GpuselCacheEntry *entry, Size bytes, Size *in_use);
extern void GpuselCacheUnreserve(GpuselCacheEntry *entry, Size bytes);

extern bool GpuselCacheReserveDevice(GpuselCacheEntry *entry, Size bytes, Size *in_use);
extern void GpuselCacheReleaseDevice(GpuselCacheEntry *entry);


/* cache_device.c */
extern Size GpuselCacheDeviceLayout(GpuselCacheEntry *entry);
extern Size GpuselCacheStreamLayout(const GpuselCacheEntry *entry, int64 capacity,
									GpuselCacheDeviceStream *stream);
extern bool GpuselCacheStreamBegin(GpuselCacheEntry *entry, int key, GpuselCacheDeviceStream *stream);
extern void GpuselCacheStreamRows(GpuselCacheDeviceStream *stream, const GpuselCacheEntry *entry,
								  const GpuselStaging *rows, const uint8 *has_nulls,
								  int64 n, int64 first);
extern Size GpuselCacheStreamFinish(GpuselCacheEntry *entry, GpuselCacheDeviceStream *stream);
extern gs_status GpuselCacheCopyToDevice(GpuselCacheEntry *entry, int key, dsa_area *area,
										 Size bytes, char *errbuf, size_t errlen);
extern void GpuselCacheDropDevice(GpuselCacheEntry *entry);
extern bool GpuselCacheOnDevice(const GpuselCacheEntry *entry);


#endif							/* GPUSEL_CACHE_INTERNAL_H */
