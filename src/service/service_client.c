/*
 * service_client.c
 *	  A backend's side of the GPU service: its connection, the wait for a
 *	  reply (with cancel and postmaster death), and the table of cuda/'s
 *	  calls (device_calls.h) that sends each call to the service.
 *
 * Buffers the device reads or writes lie in the shared staging region: the
 * filter's staging and positions, and gs_host_alloc's memory, are blocks
 * the service hands out, which the backend fills and reads in place.  An
 * argument elsewhere in the backend's memory is copied into the region
 * first, and a result copied out after.
 *
 * When the service's device process dies, the request waiting on it fails
 * with an error, and the connection with everything it held is gone; the
 * next request connects again.  Objects of a connection that is gone are
 * left alone: their memory went with it.
 */
#include "postgres.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "guc.h"
#include "service.h"
#include "service_shared.h"

/* A handle of an object the service holds, tagged with its connection. */
typedef struct RemoteObject
{
	uint64		remote;			/* the service's handle */
	uint64		serial;			/* the connection it belongs to */
	int			ncols;			/* filters */
	int			nslots;
	void	   *values[2][GS_MAX_PROGRAM_LENGTH];
	uint8	   *nulls[2][GS_MAX_PROGRAM_LENGTH];
} RemoteObject;

/* The connection, if any. */
static int	conn_sock = -1;
static uint64 conn_serial = 0;	/* connections made so far: the current one's number */
static GpuselServiceControl *conn_control = NULL;
static int	conn_device = -1;

/* The region blocks this connection allocated for callers (gs_host_alloc). */
static void **held_blocks = NULL;
static int	nheld = 0;
static int	maxheld = 0;

/* A call's scratch space in the region: the bounce block, then blocks of its own. */
#define BOUNCE_BYTES	(1024 * 1024)
static char *bounce = NULL;
static Size bounce_used = 0;
static void *arena_blocks[8];
static int	narena = 0;

/* EXPLAIN: time spent waiting for the service, and the device time it reported. */
double		GpuselServiceWaitMs = 0;

/* Closes the connection; what it held is the service's to free. */
static void
disconnect(void)
{
	if (conn_sock >= 0)
		close(conn_sock);
	conn_sock = -1;
	conn_control = NULL;
	bounce = NULL;
	nheld = 0;
	narena = 0;
}

/* The service's state now. */
static GpuselServiceState
service_state(void)
{
	return (GpuselServiceState) pg_atomic_read_u32(&GpuselServiceRegion->state);
}

/* Raises the error of a service that went away during a request. */
static void
lost_service(const char *how)
{
	disconnect();
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("lost the connection to the gpusel service"),
			 errdetail("The GPU service's device process %s while it ran this query's device work.", how),
			 errhint("Run the query again: gpusel computes on the CPU until the service is back.")));
}

/*
 * Sends a request and waits for its reply.  A cancel or termination
 * requested meanwhile is passed to the service, which stops the call at
 * its next check; the reply still comes, and the caller raises the cancel.
 */
static void
roundtrip(GpuselServiceRequest *req, GpuselServiceReply *rep)
{
	instr_time	start;
	instr_time	elapsed;
	bool		told = false;

	INSTR_TIME_SET_CURRENT(start);
	/* a full service: wait for a request in flight to finish */
	while (gpusel_service_max_requests > 0 &&
		   pg_atomic_read_u32(&GpuselServiceRegion->in_flight) >= (uint32) gpusel_service_max_requests)
	{
		CHECK_FOR_INTERRUPTS();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	if (conn_control != NULL)
		conn_control->cancel = 0;
	if (send(conn_sock, req, sizeof(*req), MSG_NOSIGNAL) != (ssize_t) sizeof(*req))
		lost_service("exited");
	for (;;)
	{
		int			rc;
		ssize_t		n;

		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_SOCKET_READABLE | WL_EXIT_ON_PM_DEATH,
							   conn_sock, -1L, PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			if (!told && req->cancellable && conn_control != NULL &&
				(QueryCancelPending || ProcDiePending))
			{
				conn_control->cancel = 1;
				told = true;
			}
		}
		if (rc & WL_SOCKET_READABLE)
		{
			n = recv(conn_sock, rep, sizeof(*rep), 0);
			if (n == (ssize_t) sizeof(*rep))
				break;
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			lost_service("exited");
		}
	}
	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	GpuselServiceWaitMs += INSTR_TIME_GET_MILLISEC(elapsed) - rep->device_ms;
	rep->errbuf[sizeof(rep->errbuf) - 1] = '\0';
}

/* Connects to the service and greets it; false when it is not up. */
static bool
connect_service(void)
{
	struct sockaddr_un addr;
	socklen_t	len;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	int			sock;

	if (conn_sock >= 0)
		return true;
	if (GpuselServiceRegion == NULL || service_state() != GPUSEL_SERVICE_UP)
		return false;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return false;
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path + 1, GpuselServiceRegion->socket_name, sizeof(addr.sun_path) - 1);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(GpuselServiceRegion->socket_name);
	if (connect(sock, (struct sockaddr *) &addr, len) != 0)
	{
		close(sock);
		return false;
	}
	conn_sock = sock;
	conn_serial++;
	memset(&req, 0, sizeof(req));
	req.op = GSVC_HELLO;
	roundtrip(&req, &rep);
	if (rep.status != GS_OK || !GpuselServiceInRegion((void *) (uintptr_t) rep.p[0],
													  sizeof(GpuselServiceControl)))
	{
		disconnect();
		return false;
	}
	conn_control = (GpuselServiceControl *) (uintptr_t) rep.p[0];
	conn_device = rep.device;
	return true;
}

/* Starts a request of op, connecting first; false when the service is not up. */
static bool
begin_request(GpuselServiceRequest *req, GpuselServiceOp op)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	return connect_service();
}

/* The answer of a call that found no service. */
static gs_status
no_service(char *errbuf, size_t errlen)
{
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "the gpusel service is not running");
	return GS_NO_DEVICE;
}

/* Sends a request and copies its message; its status is the answer. */
static gs_status
call(GpuselServiceRequest *req, GpuselServiceReply *rep, char *errbuf, size_t errlen)
{
	roundtrip(req, rep);
	if (errbuf != NULL && errlen > 0)
		strlcpy(errbuf, rep->errbuf, errlen);
	/* the device process exits after this reply; the next request connects anew */
	if (rep->status == GS_STICKY_ERROR)
		disconnect();
	return (gs_status) rep->status;
}

/* Whether an object belongs to the connection that is open now. */
static bool
current(const RemoteObject *obj)
{
	return obj != NULL && conn_sock >= 0 && obj->serial == conn_serial;
}

/* A region block of the service's heap for this connection, or NULL. */
static void *
alloc_block(Size bytes)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;

	if (!begin_request(&req, GSVC_HOST_ALLOC))
		return NULL;
	req.a[0] = bytes;
	roundtrip(&req, &rep);
	return rep.status == GS_OK ? (void *) (uintptr_t) rep.p[0] : NULL;
}

/* Gives a block back to the service. */
static void
free_block(void *ptr)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;

	if (conn_sock < 0)
		return;
	memset(&req, 0, sizeof(req));
	req.op = GSVC_HOST_FREE;
	req.p[0] = (uint64) (uintptr_t) ptr;
	roundtrip(&req, &rep);
}

/* Starts a call's scratch space. */
static void
arena_begin(void)
{
	bounce_used = 0;
	narena = 0;
}

/* bytes of the call's scratch space in the region, or NULL when there is none. */
static void *
arena_get(Size bytes)
{
	void	   *p;

	bytes = MAXALIGN(Max(bytes, 1));
	if (bounce == NULL)
		bounce = alloc_block(BOUNCE_BYTES);
	if (bounce != NULL && bytes <= BOUNCE_BYTES - bounce_used)
	{
		p = bounce + bounce_used;
		bounce_used += bytes;
		return p;
	}
	if (narena == lengthof(arena_blocks))
		return NULL;
	p = alloc_block(bytes);
	if (p != NULL)
		arena_blocks[narena++] = p;
	return p;
}

/* Ends a call's scratch space: its own blocks go back. */
static void
arena_end(void)
{
	for (int i = 0; i < narena; i++)
		free_block(arena_blocks[i]);
	narena = 0;
	bounce_used = 0;
}

/* An argument as the service reads it: in place when in the region, else a copy. */
static uint64
arena_input(const void *ptr, Size bytes)
{
	void	   *p;

	if (ptr == NULL)
		return 0;
	if (GpuselServiceInRegion(ptr, bytes))
		return (uint64) (uintptr_t) ptr;
	p = arena_get(bytes);
	if (p == NULL)
		return 0;
	memcpy(p, ptr, bytes);
	return (uint64) (uintptr_t) p;
}

/* The answer of a call whose arguments found no room in the region. */
static gs_status
no_room(char *errbuf, size_t errlen)
{
	arena_end();
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "the gpusel service's staging region has no room for the call");
	return GS_OUT_OF_MEMORY;
}

static gs_status
svc_probe(gs_device_info *info)
{
	memset(info, 0, sizeof(*info));
	if (GpuselServiceRegion == NULL)
		return no_service(info->reason, sizeof(info->reason));
	if (service_state() != GPUSEL_SERVICE_UP)
	{
		snprintf(info->reason, sizeof(info->reason), "the gpusel service is %s",
				 service_state() == GPUSEL_SERVICE_STARTING ? "starting" : "not running");
		return GS_NO_DEVICE;
	}
	*info = GpuselServiceRegion->info;
	return info->usable ? GS_OK : GS_NO_DEVICE;
}

static gs_status
svc_memory_in_use(uint64_t *used_bytes)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*used_bytes = 0;
	if (!begin_request(&req, GSVC_MEMORY_IN_USE))
		return GS_NO_DEVICE;
	st = call(&req, &rep, NULL, 0);
	*used_bytes = rep.r[0];
	return st;
}

static gs_status
svc_host_alloc(void **ptr, size_t bytes)
{
	*ptr = alloc_block(bytes);
	if (*ptr == NULL)
		return GS_OUT_OF_MEMORY;
	if (nheld == maxheld)
	{
		maxheld = Max(64, maxheld * 2);
		held_blocks = held_blocks == NULL ?
			MemoryContextAlloc(TopMemoryContext, sizeof(void *) * maxheld) :
			repalloc(held_blocks, sizeof(void *) * maxheld);
	}
	held_blocks[nheld++] = *ptr;
	return GS_OK;
}

static void
svc_host_free(void *ptr)
{
	/* a block of a connection that is gone was freed with it */
	for (int i = nheld - 1; i >= 0; i--)
		if (held_blocks[i] == ptr)
		{
			held_blocks[i] = held_blocks[--nheld];
			free_block(ptr);
			return;
		}
}

static gs_status
svc_select_keys(int key_bytes, const void *const *chunks, const int64_t *chunk_counts,
				int nchunks, int64_t n, const int64_t *ranks, int nranks, void *out_keys,
				const volatile int *cancel, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	void	  **chunk_table;
	gs_status	st;

	if (!begin_request(&req, GSVC_SELECT_KEYS))
		return no_service(errbuf, errlen);
	arena_begin();
	chunk_table = arena_get(sizeof(void *) * Max(nchunks, 1));
	if (chunk_table == NULL)
		return no_room(errbuf, errlen);
	for (int i = 0; i < nchunks; i++)
		if ((chunk_table[i] = (void *) (uintptr_t) arena_input(chunks[i], chunk_counts[i] * key_bytes)) == NULL)
			return no_room(errbuf, errlen);
	req.a[0] = key_bytes;
	req.a[1] = nchunks;
	req.a[2] = n;
	req.a[3] = nranks;
	req.p[0] = (uint64) (uintptr_t) chunk_table;
	req.p[1] = arena_input(chunk_counts, sizeof(int64) * nchunks);
	req.p[2] = arena_input(ranks, sizeof(int64) * nranks);
	req.p[3] = (uint64) (uintptr_t) arena_get((Size) key_bytes * nranks);
	if (req.p[1] == 0 || req.p[2] == 0 || req.p[3] == 0)
		return no_room(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[3], (Size) key_bytes * nranks);
	arena_end();
	return st;
}

/* A new handle for an object the service created on this connection. */
static RemoteObject *
new_object(uint64 remote)
{
	RemoteObject *obj = calloc(1, sizeof(RemoteObject));

	if (obj == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	obj->remote = remote;
	obj->serial = conn_serial;
	return obj;
}

/* Tells the service to destroy an object of the open connection, and frees the handle. */
static void
destroy_object(RemoteObject *obj, GpuselServiceOp op)
{
	if (obj == NULL)
		return;
	if (current(obj))
	{
		GpuselServiceRequest req;
		GpuselServiceReply rep;

		memset(&req, 0, sizeof(req));
		req.op = op;
		req.h[0] = obj->remote;
		/* a cleanup must not fail: a service gone meanwhile freed it already */
		PG_TRY();
		{
			roundtrip(&req, &rep);
		}
		PG_CATCH();
		{
			FlushErrorState();
		}
		PG_END_TRY();
	}
	free(obj);
}

/* Begins a request on an object; false when its connection is gone. */
static bool
begin_on(GpuselServiceRequest *req, GpuselServiceOp op, const void *obj, char *errbuf, size_t errlen)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	if (!current(obj))
	{
		if (errbuf != NULL && errlen > 0)
			snprintf(errbuf, errlen, "the gpusel service restarted since this object was made");
		return false;
	}
	req->h[0] = ((const RemoteObject *) obj)->remote;
	return true;
}

static gs_status
svc_pairs_create(gs_pairs **pairs, int key_bytes, int with_groups, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*pairs = NULL;
	if (!begin_request(&req, GSVC_PAIRS_CREATE))
		return no_service(errbuf, errlen);
	req.a[0] = key_bytes;
	req.a[1] = with_groups;
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
	{
		RemoteObject *obj = new_object(rep.p[0]);

		obj->ncols = key_bytes;	/* pairs: their key width */
		obj->nslots = with_groups;
		*pairs = (gs_pairs *) obj;
	}
	return st;
}

static gs_status
svc_pairs_append(gs_pairs *pairs, const void *keys, const uint32_t *groups, int64_t n,
				 char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	int64		step = (BOUNCE_BYTES / 2) / 8;

	/* in pieces that fit the bounce block */
	for (int64 done = 0; done < n; done += step)
	{
		GpuselServiceRequest req;
		GpuselServiceReply rep;
		int64		count = Min(step, n - done);
		gs_status	st;

		if (!begin_on(&req, GSVC_PAIRS_APPEND, obj, errbuf, errlen))
			return GS_CUDA_ERROR;
		arena_begin();
		req.a[0] = count;
		req.p[0] = arena_input((const char *) keys + done * obj->ncols, count * obj->ncols);
		if (groups != NULL)
			req.p[1] = arena_input(groups + done, count * sizeof(uint32));
		if (req.p[0] == 0 || (groups != NULL && req.p[1] == 0))
			return no_room(errbuf, errlen);
		st = call(&req, &rep, errbuf, errlen);
		arena_end();
		if (st != GS_OK)
			return st;
	}
	return GS_OK;
}

static int64_t
svc_pairs_count(const gs_pairs *pairs)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;

	if (!begin_on(&req, GSVC_PAIRS_COUNT, pairs, NULL, 0))
		return 0;
	roundtrip(&req, &rep);
	return rep.r[0];
}

static gs_status
svc_pairs_read(gs_pairs *pairs, void *keys, uint32_t *groups, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	int64		n = svc_pairs_count(pairs);
	gs_status	st;

	if (!begin_on(&req, GSVC_PAIRS_READ, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	arena_begin();
	req.p[0] = (uint64) (uintptr_t) arena_get(n * obj->ncols);
	if (groups != NULL)
		req.p[1] = (uint64) (uintptr_t) arena_get(n * sizeof(uint32));
	if (req.p[0] == 0 || (groups != NULL && req.p[1] == 0))
		return no_room(errbuf, errlen);
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
	{
		memcpy(keys, (void *) (uintptr_t) req.p[0], n * obj->ncols);
		if (groups != NULL)
			memcpy(groups, (void *) (uintptr_t) req.p[1], n * sizeof(uint32));
	}
	arena_end();
	return st;
}

static gs_status
svc_pairs_sort_pick(gs_pairs *pairs, int64_t ngroups, const int64_t *positions,
					int64_t npositions, void *out_keys, const volatile int *cancel,
					char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!begin_on(&req, GSVC_PAIRS_SORT_PICK, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	arena_begin();
	req.a[0] = ngroups;
	req.a[1] = npositions;
	req.p[0] = arena_input(positions, sizeof(int64) * npositions);
	req.p[1] = (uint64) (uintptr_t) arena_get(8 * npositions);
	if (req.p[0] == 0 || req.p[1] == 0)
		return no_room(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[1], (Size) obj->ncols * npositions);
	arena_end();
	return st;
}

static gs_status
svc_pairs_select(gs_pairs *pairs, const int64_t *ranks, int nranks, void *out_keys,
				 const volatile int *cancel, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) pairs;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!begin_on(&req, GSVC_PAIRS_SELECT, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	arena_begin();
	req.a[0] = nranks;
	req.p[0] = arena_input(ranks, sizeof(int64) * nranks);
	req.p[1] = (uint64) (uintptr_t) arena_get(8 * (Size) nranks);
	if (req.p[0] == 0 || req.p[1] == 0)
		return no_room(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[1], (Size) obj->ncols * nranks);
	arena_end();
	return st;
}

static void
svc_pairs_destroy(gs_pairs *pairs)
{
	destroy_object((RemoteObject *) pairs, GSVC_PAIRS_DESTROY);
}

/* gs_sort_by_group and gs_sort_by_group_pick: npositions < 0 for the first. */
static gs_status
sort_pairs(int key_bytes, const void *keys, const uint32_t *groups, int64_t n, int64_t ngroups,
		   const int64_t *positions, int64_t npositions, void *out_keys,
		   const volatile int *cancel, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	int64		nout = npositions < 0 ? n : npositions;
	gs_status	st;

	if (!begin_request(&req, npositions < 0 ? GSVC_SORT_BY_GROUP : GSVC_SORT_BY_GROUP_PICK))
		return no_service(errbuf, errlen);
	arena_begin();
	req.a[0] = key_bytes;
	req.a[1] = n;
	req.a[2] = ngroups;
	req.p[0] = arena_input(keys, (Size) key_bytes * n);
	req.p[1] = arena_input(groups, sizeof(uint32) * n);
	req.p[2] = (uint64) (uintptr_t) arena_get((Size) key_bytes * nout);
	if (npositions >= 0)
	{
		req.a[3] = npositions;
		req.p[3] = arena_input(positions, sizeof(int64) * npositions);
	}
	if (req.p[0] == 0 || req.p[1] == 0 || req.p[2] == 0 || (npositions > 0 && req.p[3] == 0))
		return no_room(errbuf, errlen);
	req.cancellable = cancel != NULL;
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(out_keys, (void *) (uintptr_t) req.p[2], (Size) key_bytes * nout);
	arena_end();
	return st;
}

static gs_status
svc_sort_by_group(int key_bytes, const void *keys, const uint32_t *groups, int64_t n,
				  int64_t ngroups, void *out_keys, const volatile int *cancel,
				  char *errbuf, size_t errlen)
{
	return sort_pairs(key_bytes, keys, groups, n, ngroups, NULL, -1, out_keys, cancel,
					  errbuf, errlen);
}

static gs_status
svc_sort_by_group_pick(int key_bytes, const void *keys, const uint32_t *groups, int64_t n,
					   int64_t ngroups, const int64_t *positions, int64_t npositions,
					   void *out_keys, const volatile int *cancel, char *errbuf, size_t errlen)
{
	return sort_pairs(key_bytes, keys, groups, n, ngroups, positions, npositions, out_keys,
					  cancel, errbuf, errlen);
}

static gs_status
svc_filter_create(gs_filter **filter, const gs_program *program, int ncols,
				  const gs_coltype *coltypes, int64_t max_rows, int nslots,
				  char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	void	  **table;
	gs_status	st;

	*filter = NULL;
	if (ncols < 0 || ncols > GS_MAX_PROGRAM_LENGTH || nslots < 1 || nslots > 2)
		return GS_INVALID_ARGUMENT;
	if (!begin_request(&req, GSVC_FILTER_CREATE))
		return no_service(errbuf, errlen);
	arena_begin();
	req.a[0] = program->ncode;
	req.a[1] = program->nconsts;
	req.a[2] = program->max_stack;
	req.a[3] = ncols;
	req.a[4] = max_rows;
	req.a[5] = nslots;
	req.p[0] = arena_input(program->code, sizeof(gs_instr) * Max(program->ncode, 1));
	if (program->nconsts > 0)
		req.p[1] = arena_input(program->consts, sizeof(gs_const) * program->nconsts);
	req.p[2] = arena_input(coltypes, sizeof(gs_coltype) * Max(ncols, 1));
	table = arena_get(sizeof(void *) * 2 * nslots * Max(ncols, 1));
	req.p[3] = (uint64) (uintptr_t) table;
	if (req.p[0] == 0 || (program->nconsts > 0 && req.p[1] == 0) || req.p[2] == 0 || table == NULL)
		return no_room(errbuf, errlen);
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
	{
		RemoteObject *obj = new_object(rep.p[0]);

		obj->ncols = ncols;
		obj->nslots = nslots;
		for (int s = 0; s < nslots; s++)
			for (int c = 0; c < ncols; c++)
			{
				obj->values[s][c] = table[2 * (s * ncols + c)];
				obj->nulls[s][c] = table[2 * (s * ncols + c) + 1];
			}
		*filter = (gs_filter *) obj;
	}
	arena_end();
	return st;
}

static void *
svc_filter_values(gs_filter *filter, int slot, int col)
{
	RemoteObject *obj = (RemoteObject *) filter;

	if (obj == NULL || slot < 0 || slot >= obj->nslots || col < 0 || col >= obj->ncols)
		return NULL;
	return obj->values[slot][col];
}

static uint8_t *
svc_filter_nulls(gs_filter *filter, int slot, int col)
{
	RemoteObject *obj = (RemoteObject *) filter;

	if (obj == NULL || slot < 0 || slot >= obj->nslots || col < 0 || col >= obj->ncols)
		return NULL;
	return obj->nulls[slot][col];
}

static gs_status
svc_filter_ship_columns(gs_filter *filter, const uint8_t *cols, char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) filter;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!begin_on(&req, GSVC_FILTER_SHIP, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	arena_begin();
	req.p[0] = arena_input(cols, Max(obj->ncols, 1));
	if (req.p[0] == 0)
		return no_room(errbuf, errlen);
	st = call(&req, &rep, errbuf, errlen);
	arena_end();
	return st;
}

static gs_status
svc_filter_submit(gs_filter *filter, int slot, int64_t nrows, const uint8_t *has_nulls,
				  char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) filter;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!begin_on(&req, GSVC_FILTER_SUBMIT, obj, errbuf, errlen))
		return GS_CUDA_ERROR;
	arena_begin();
	req.a[0] = slot;
	req.a[1] = nrows;
	req.p[0] = arena_input(has_nulls, Max(obj->ncols, 1));
	if (req.p[0] == 0)
		return no_room(errbuf, errlen);
	st = call(&req, &rep, errbuf, errlen);
	arena_end();
	return st;
}

static gs_status
svc_filter_wait(gs_filter *filter, int slot, const uint32_t **positions, int64_t *count,
				int *row_error, double *device_ms, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!begin_on(&req, GSVC_FILTER_WAIT, filter, errbuf, errlen))
		return GS_CUDA_ERROR;
	req.a[0] = slot;
	st = call(&req, &rep, errbuf, errlen);
	*positions = (const uint32_t *) (uintptr_t) rep.p[0];
	*count = rep.r[0];
	*row_error = (int) rep.r[1];
	*device_ms = rep.device_ms;
	return st;
}

static void
svc_filter_destroy(gs_filter *filter)
{
	destroy_object((RemoteObject *) filter, GSVC_FILTER_DESTROY);
}

static gs_status
svc_groups_create(gs_batch_groups **groups, int64_t max_rows, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*groups = NULL;
	if (!begin_request(&req, GSVC_GROUPS_CREATE))
		return no_service(errbuf, errlen);
	req.a[0] = max_rows;
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		*groups = (gs_batch_groups *) new_object(rep.p[0]);
	return st;
}

static gs_status
svc_groups_find(gs_batch_groups *groups, gs_filter *filter, int slot, int64_t from,
				int key_col, int64_t *nkeys, const gs_batch_key **keys,
				char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*nkeys = 0;
	*keys = NULL;
	if (!begin_on(&req, GSVC_GROUPS_FIND, groups, errbuf, errlen) || !current((RemoteObject *) filter))
		return GS_CUDA_ERROR;
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.a[0] = slot;
	req.a[1] = from;
	req.a[2] = key_col;
	st = call(&req, &rep, errbuf, errlen);
	*nkeys = rep.r[0];
	*keys = (const gs_batch_key *) (uintptr_t) rep.p[0];
	/* the number of keys, for the group numbers of gs_batch_groups_add */
	((RemoteObject *) groups)->ncols = (int) Min(rep.r[0], INT_MAX);
	return st;
}

static gs_status
svc_groups_add(gs_batch_groups *groups, gs_filter *filter, const uint32_t *group_of_key,
			   int val_col, int key_kind, gs_pairs *pairs, const gs_batch_tally **tally,
			   char *errbuf, size_t errlen)
{
	RemoteObject *obj = (RemoteObject *) groups;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*tally = NULL;
	if (!begin_on(&req, GSVC_GROUPS_ADD, obj, errbuf, errlen) ||
		!current((RemoteObject *) filter) || !current((RemoteObject *) pairs))
		return GS_CUDA_ERROR;
	arena_begin();
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.h[2] = ((RemoteObject *) pairs)->remote;
	req.a[0] = val_col;
	req.a[1] = key_kind;
	req.a[2] = obj->ncols;
	if (group_of_key != NULL)
	{
		req.p[0] = arena_input(group_of_key, sizeof(uint32) * Max(obj->ncols, 1));
		if (req.p[0] == 0)
			return no_room(errbuf, errlen);
	}
	st = call(&req, &rep, errbuf, errlen);
	*tally = (const gs_batch_tally *) (uintptr_t) rep.p[0];
	arena_end();
	return st;
}

static void
svc_groups_destroy(gs_batch_groups *groups)
{
	destroy_object((RemoteObject *) groups, GSVC_GROUPS_DESTROY);
}

static gs_status
svc_sums_create(gs_batch_sums **sums, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	*sums = NULL;
	if (!begin_request(&req, GSVC_SUMS_CREATE))
		return no_service(errbuf, errlen);
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		*sums = (gs_batch_sums *) new_object(rep.p[0]);
	return st;
}

static gs_status
svc_sums_run(gs_batch_sums *sums, gs_filter *filter, int slot, int64_t from, int nexprs,
			 const gs_sum_expr *exprs, gs_sum_result *results, char *errbuf, size_t errlen)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	gs_status	st;

	if (!begin_on(&req, GSVC_SUMS_RUN, sums, errbuf, errlen) || !current((RemoteObject *) filter))
		return GS_CUDA_ERROR;
	arena_begin();
	req.h[1] = ((RemoteObject *) filter)->remote;
	req.a[0] = slot;
	req.a[1] = from;
	req.a[2] = nexprs;
	req.p[0] = arena_input(exprs, sizeof(gs_sum_expr) * Max(nexprs, 1));
	req.p[1] = (uint64) (uintptr_t) arena_get(sizeof(gs_sum_result) * Max(nexprs, 1));
	if (req.p[0] == 0 || req.p[1] == 0)
		return no_room(errbuf, errlen);
	st = call(&req, &rep, errbuf, errlen);
	if (st == GS_OK)
		memcpy(results, (void *) (uintptr_t) req.p[1], sizeof(gs_sum_result) * nexprs);
	arena_end();
	return st;
}

static void
svc_sums_destroy(gs_batch_sums *sums)
{
	destroy_object((RemoteObject *) sums, GSVC_SUMS_DESTROY);
}

static const GpuselDeviceCalls service_calls = {
	.name = "the gpusel service",
	.probe = svc_probe,
	.memory_in_use = svc_memory_in_use,
	.host_alloc = svc_host_alloc,
	.host_free = svc_host_free,
	.select_keys = svc_select_keys,
	.pairs_create = svc_pairs_create,
	.pairs_append = svc_pairs_append,
	.pairs_count = svc_pairs_count,
	.pairs_read = svc_pairs_read,
	.pairs_sort_pick = svc_pairs_sort_pick,
	.pairs_select = svc_pairs_select,
	.pairs_destroy = svc_pairs_destroy,
	.sort_by_group = svc_sort_by_group,
	.sort_by_group_pick = svc_sort_by_group_pick,
	.filter_create = svc_filter_create,
	.filter_values = svc_filter_values,
	.filter_nulls = svc_filter_nulls,
	.filter_ship_columns = svc_filter_ship_columns,
	.filter_submit = svc_filter_submit,
	.filter_wait = svc_filter_wait,
	.filter_destroy = svc_filter_destroy,
	.groups_create = svc_groups_create,
	.groups_find = svc_groups_find,
	.groups_add = svc_groups_add,
	.groups_destroy = svc_groups_destroy,
	.sums_create = svc_sums_create,
	.sums_run = svc_sums_run,
	.sums_destroy = svc_sums_destroy,
};

/* The table that sends cuda/'s calls to the service. */
const GpuselDeviceCalls *
GpuselServiceCalls(void)
{
	return &service_calls;
}

/* Whether the service is up and drives a GPU; fills info with what it found. */
bool
GpuselServiceUsable(gs_device_info *info)
{
	return svc_probe(info) == GS_OK;
}

/*
 * Sends a PING that the service holds for ms milliseconds (a cancel ends
 * it), or a FAULT: the tests' way to have a request in flight when the
 * device process dies.  Returns the device the connection uses.
 */
int
GpuselServiceTestRequest(GpuselServiceOp op, int64 arg)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	char		errbuf[GPUSEL_SERVICE_ERRLEN];
	gs_status	st;

	if (GpuselServiceRegion == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the gpusel service is not configured"),
				 errhint("Add gpusel to shared_preload_libraries and restart the server.")));
	if (!begin_request(&req, op))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("the gpusel service is not running"),
				 errdetail("Its device process is starting or restarting.")));
	req.a[0] = arg;
	req.cancellable = 1;
	st = call(&req, &rep, errbuf, sizeof(errbuf));
	if (st == GS_INTERRUPTED)
		CHECK_FOR_INTERRUPTS();
	if (st == GS_STICKY_ERROR)
	{
		/* the device process exits after this reply */
		disconnect();
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("GPU failed in the gpusel service"),
				 errdetail("%s", errbuf),
				 errhint("The service restarts its device process; later queries run on the CPU until it is back.")));
	}
	if (st != GS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("gpusel service request failed"),
				 errdetail("%s", errbuf)));
	return conn_device;
}

/*
 * Waits up to timeout_ms for a service that is starting or restarting to
 * be up; true when it is.  A cancel ends the wait with its error.
 */
bool
GpuselServiceAwaitUp(int timeout_ms)
{
	for (int waited = 0; GpuselServiceRegion != NULL; waited += 10)
	{
		GpuselServiceState state = service_state();

		if (state == GPUSEL_SERVICE_UP)
			return true;
		if (state == GPUSEL_SERVICE_STOPPED && waited > 1000)
			return false;		/* no supervisor: nothing will start it */
		if (waited >= timeout_ms)
			return false;
		CHECK_FOR_INTERRUPTS();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	return false;
}

/* The device this backend's connection uses, or -1 without one. */
int
GpuselServiceConnectionDevice(void)
{
	return conn_sock >= 0 ? conn_device : -1;
}
