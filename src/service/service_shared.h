/*
 * service_shared.h
 *	  What the GPU service and its clients share: the layout of the staging
 *	  region, its table of blocks, the service's state, and the messages of
 *	  the protocol.
 *
 * The postmaster maps the region once, as anonymous shared memory, before
 * it starts any child, so every process of the cluster (backends, parallel
 * workers, the service's supervisor and its device process) sees it at the
 * same address: a pointer into it means the same bytes everywhere.  The
 * region is not PostgreSQL's shared memory; the device process detaches
 * from that, so its crash cannot corrupt what the cluster shares.
 *
 * The region starts with GpuselServiceShared.  The rest is the heap the
 * device process hands out in blocks, each owned by one backend (its pid):
 * page-locked staging the device copies from and into directly.
 */
#ifndef GPUSEL_SERVICE_SHARED_H
#define GPUSEL_SERVICE_SHARED_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "port/atomics.h"

#include "gpusel_cuda.h"

#define GPUSEL_SERVICE_MAGIC		UINT64CONST(0x67707573656c5331)
#define GPUSEL_SERVICE_MAX_DEVICES	16
#define GPUSEL_SERVICE_MAX_BLOCKS	16384	/* blocks of the heap in use at once */
#define GPUSEL_SERVICE_ALIGN		4096	/* blocks start on pages */
#define GPUSEL_SERVICE_ERRLEN		512
#define GPUSEL_SERVICE_MAX_RESIDENTS	128	/* device copies of cached tables, by key */

/* Where the service is. */
typedef enum GpuselServiceState
{
	GPUSEL_SERVICE_STOPPED = 0, /* no device process */
	GPUSEL_SERVICE_STARTING,	/* its device process probes the GPU */
	GPUSEL_SERVICE_UP,			/* it takes requests */
	GPUSEL_SERVICE_DOWN			/* its device process exited; restarts soon */
} GpuselServiceState;

/*
 * A block of the heap: free when owner is 0.  A block belongs to one
 * connection of one backend: conn is the device process's generation in
 * its high 32 bits and the connection's number in that process below.
 */
typedef struct GpuselServiceBlock
{
	uint64		offset;			/* from the region's start */
	uint64		bytes;
	uint64		conn;
	pid_t		owner;			/* the backend it belongs to; 0: the entry is free */
	uint32		pad;
} GpuselServiceBlock;

/* One device as the service drives it. */
typedef struct GpuselServiceDevice
{
	char		name[256];
	uint64		total_memory;
	pg_atomic_uint32 clients;	/* connections on this device now */
	pg_atomic_uint64 requests;	/* requests done on it */
} GpuselServiceDevice;

/* The start of the region: the service's state, for every process to read. */
typedef struct GpuselServiceShared
{
	uint64		magic;
	uint64		region_bytes;
	uint64		heap_offset;	/* where blocks begin */
	char		socket_name[64];	/* abstract AF_UNIX name, without its leading NUL */

	/* written by the supervisor */
	pg_atomic_uint32 state;		/* GpuselServiceState */
	pg_atomic_uint32 generation;	/* device processes started so far */
	pid_t		supervisor_pid;
	pid_t		device_pid;
	pg_atomic_uint64 restarts;	/* device processes that exited */
	char		last_exit[GPUSEL_SERVICE_ERRLEN];

	/* written by the device process */
	gs_device_info info;		/* device 0 as probed; info.usable says whether any runs */
	int			ndevices;
	GpuselServiceDevice devices[GPUSEL_SERVICE_MAX_DEVICES];
	pg_atomic_uint32 clients;
	pg_atomic_uint32 in_flight;
	pg_atomic_uint64 requests;
	pg_atomic_uint64 errors;	/* requests answered with an error */
	pg_atomic_uint64 heap_in_use;	/* bytes of blocks held */

	/*
	 * The device copy each key (a cache slot) wants kept: the service sets
	 * it when it creates the copy, the cache clears it when it no longer
	 * needs it (from any process, with no message), and the service frees
	 * every copy not wanted at its next sweep.
	 */
	pg_atomic_uint64 resident_wanted[GPUSEL_SERVICE_MAX_RESIDENTS];
	char		last_error[GPUSEL_SERVICE_ERRLEN];

	/* the device process's table of blocks, read back after its restart */
	GpuselServiceBlock blocks[GPUSEL_SERVICE_MAX_BLOCKS];
} GpuselServiceShared;

/* What a client asks for. */
typedef enum GpuselServiceOp
{
	GSVC_HELLO = 1,				/* p0: -> the connection's control block */
	GSVC_PING,					/* a0: hold the request this many ms (cancel ends it) */
	GSVC_FAULT,					/* a0: 1 the device process dies, 2 a sticky error */
	GSVC_HOST_ALLOC,			/* a0 bytes -> p0 */
	GSVC_HOST_FREE,				/* p0 */
	GSVC_MEMORY_IN_USE,			/* -> r0 */
	GSVC_SELECT_KEYS,
	GSVC_PAIRS_CREATE,
	GSVC_PAIRS_APPEND,
	GSVC_PAIRS_COUNT,
	GSVC_PAIRS_READ,
	GSVC_PAIRS_SORT_PICK,
	GSVC_PAIRS_SELECT,
	GSVC_PAIRS_DESTROY,
	GSVC_SORT_BY_GROUP,
	GSVC_SORT_BY_GROUP_PICK,
	GSVC_FILTER_CREATE,
	GSVC_FILTER_SHIP,
	GSVC_FILTER_SUBMIT,
	GSVC_FILTER_WAIT,
	GSVC_FILTER_DESTROY,
	GSVC_GROUPS_CREATE,
	GSVC_GROUPS_FIND,			/* h0 groups, h1 filter, a0 slot, a1 from, a2 key columns, a3.. them */
	GSVC_GROUPS_TRANSFORMS,		/* h0 groups, a0 key columns, a1.. (op << 1 | int8, constant) each */
	GSVC_GROUPS_ADD,
	GSVC_GROUPS_SUM,			/* h0 groups, h1 filter, a0 sums, p0 their programs -> p0 rows, p1 sums */
	GSVC_GROUPS_DESTROY,
	GSVC_SUMS_CREATE,
	GSVC_SUMS_RUN,
	GSVC_SUMS_DESTROY,
	GSVC_RESIDENT_CREATE,		/* a0 key, a1 bytes -> r0 the copy's id */
	GSVC_RESIDENT_WRITE,		/* h0 id, a0 offset, a1 bytes, p0 source */
	GSVC_FILTER_SUBMIT_RESIDENT,	/* h0 filter, h1 id, a0 slot, a1 rows, p0 offsets */
	GSVC_FILTER_POSITIONS,		/* h0 filter, a0 slot -> p0 the positions */
	GSVC_RESIDENT_REPACK,		/* h0 id, a0 new bytes, a1 moves, p0 them (from, to, bytes) */
	GSVC_RESIDENT_WRITE_PIECES,	/* h0 id, a0 pieces, p0 them (offset, bytes, source) */
	GSVC_OP_COUNT
} GpuselServiceOp;

/*
 * One request: scalar arguments a[], pointers into the region p[], and
 * the objects it works on (the device process's handles h[]).
 */
typedef struct GpuselServiceRequest
{
	int32		op;				/* GpuselServiceOp */
	int32		cancellable;	/* the caller lets a cancel stop it */
	uint64		h[3];
	int64		a[8];
	uint64		p[8];
} GpuselServiceRequest;

/* One reply: the call's status and message, scalar results, pointers. */
typedef struct GpuselServiceReply
{
	int32		status;			/* gs_status */
	int32		device;			/* the device the connection uses */
	int64		r[4];
	uint64		p[4];
	double		device_ms;
	char		errbuf[GPUSEL_SERVICE_ERRLEN];
} GpuselServiceReply;

/* A connection's words in the region that the client writes while it waits. */
typedef struct GpuselServiceControl
{
	volatile int cancel;		/* set by the client: stop the call at its next check */
} GpuselServiceControl;

/* service_region.c */
extern GpuselServiceShared *GpuselServiceRegion;
extern bool GpuselServiceRegionCreate(uint64 bytes);
extern bool GpuselServiceInRegion(const void *ptr, uint64 bytes);
extern socklen_t GpuselServiceSocketAddress(struct sockaddr_un *addr);

#endif							/* GPUSEL_SERVICE_SHARED_H */
