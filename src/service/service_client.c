/*
 * service_client.c
 *	  A backend's side of the GPU service: its connection, the wait for a
 *	  reply (with cancel and postmaster death), the scratch space of a call
 *	  in the staging region, and the handles of the objects the service
 *	  holds for it.  service_calls.c makes cuda/'s calls of these.
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
#include "service_client.h"
#include "service_shared.h"


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
void
GpuselClientRoundtrip(GpuselServiceRequest *req, GpuselServiceReply *rep)
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
	len = GpuselServiceSocketAddress(&addr);
	if (connect(sock, (struct sockaddr *) &addr, len) != 0)
	{
		close(sock);
		return false;
	}
	conn_sock = sock;
	conn_serial++;
	memset(&req, 0, sizeof(req));
	req.op = GSVC_HELLO;
	GpuselClientRoundtrip(&req, &rep);
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
bool
GpuselClientBegin(GpuselServiceRequest *req, GpuselServiceOp op)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	return connect_service();
}

/* The answer of a call that found no service. */
gs_status
GpuselClientNoService(char *errbuf, size_t errlen)
{
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "the gpusel service is not running");
	return GS_NO_DEVICE;
}

/* Sends a request and copies its message; its status is the answer. */
gs_status
GpuselClientCall(GpuselServiceRequest *req, GpuselServiceReply *rep, char *errbuf, size_t errlen)
{
	GpuselClientRoundtrip(req, rep);
	if (errbuf != NULL && errlen > 0)
		strlcpy(errbuf, rep->errbuf, errlen);
	/* the device process exits after this reply; the next request connects anew */
	if (rep->status == GS_STICKY_ERROR)
		disconnect();
	return (gs_status) rep->status;
}

/* Whether an object belongs to the connection that is open now. */
bool
GpuselClientCurrent(const RemoteObject *obj)
{
	return obj != NULL && conn_sock >= 0 && obj->serial == conn_serial;
}

/* A region block of the service's heap for this connection, or NULL. */
static void *
alloc_block(Size bytes)
{
	GpuselServiceRequest req;
	GpuselServiceReply rep;

	if (!GpuselClientBegin(&req, GSVC_HOST_ALLOC))
		return NULL;
	req.a[0] = bytes;
	GpuselClientRoundtrip(&req, &rep);
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
	GpuselClientRoundtrip(&req, &rep);
}

/* Starts a call's scratch space. */
void
GpuselClientArenaBegin(void)
{
	bounce_used = 0;
	narena = 0;
}

/* bytes of the call's scratch space in the region, or NULL when there is none. */
void *
GpuselClientArenaGet(Size bytes)
{
	void	   *p;

	bytes = MAXALIGN(Max(bytes, 1));
	if (bounce == NULL)
		bounce = alloc_block(GPUSEL_CLIENT_BOUNCE_BYTES);
	if (bounce != NULL && bytes <= GPUSEL_CLIENT_BOUNCE_BYTES - bounce_used)
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
void
GpuselClientArenaEnd(void)
{
	for (int i = 0; i < narena; i++)
		free_block(arena_blocks[i]);
	narena = 0;
	bounce_used = 0;
}

/* An argument as the service reads it: in place when in the region, else a copy. */
uint64
GpuselClientArenaInput(const void *ptr, Size bytes)
{
	void	   *p;

	if (ptr == NULL)
		return 0;
	if (GpuselServiceInRegion(ptr, bytes))
		return (uint64) (uintptr_t) ptr;
	p = GpuselClientArenaGet(bytes);
	if (p == NULL)
		return 0;
	memcpy(p, ptr, bytes);
	return (uint64) (uintptr_t) p;
}

/* The answer of a call whose arguments found no room in the region. */
gs_status
GpuselClientNoRoom(char *errbuf, size_t errlen)
{
	GpuselClientArenaEnd();
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "the gpusel service's staging region has no room for the call");
	return GS_OUT_OF_MEMORY;
}

gs_status
GpuselClientProbe(gs_device_info *info)
{
	memset(info, 0, sizeof(*info));
	if (GpuselServiceRegion == NULL)
		return GpuselClientNoService(info->reason, sizeof(info->reason));
	if (service_state() != GPUSEL_SERVICE_UP)
	{
		snprintf(info->reason, sizeof(info->reason), "the gpusel service is %s",
				 service_state() == GPUSEL_SERVICE_STARTING ? "starting" : "not running");
		return GS_NO_DEVICE;
	}
	*info = GpuselServiceRegion->info;
	return info->usable ? GS_OK : GS_NO_DEVICE;
}

gs_status
GpuselClientHostAlloc(void **ptr, size_t bytes)
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

void
GpuselClientHostFree(void *ptr)
{
	/* a block of a connection that is gone was freed with it */
	for (int i = nheld - 1; i >= 0; i--)
		if (held_blocks[i] == ptr)
		{
			held_blocks[i] = held_blocks[--nheld];
			/* a cleanup, maybe during an abort, must not fail: a lost service freed it already */
			PG_TRY();
			{
				free_block(ptr);
			}
			PG_CATCH();
			{
				FlushErrorState();
			}
			PG_END_TRY();
			return;
		}
}

/* A new handle for an object the service created on this connection. */
RemoteObject *
GpuselClientNewObject(uint64 remote)
{
	RemoteObject *obj = calloc(1, sizeof(RemoteObject));

	if (obj == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	obj->remote = remote;
	obj->serial = conn_serial;
	return obj;
}

/* Tells the service to destroy an object of the open connection, and frees the handle. */
void
GpuselClientDestroyObject(RemoteObject *obj, GpuselServiceOp op)
{
	if (obj == NULL)
		return;
	if (GpuselClientCurrent(obj))
	{
		GpuselServiceRequest req;
		GpuselServiceReply rep;

		memset(&req, 0, sizeof(req));
		req.op = op;
		req.h[0] = obj->remote;
		/* a cleanup must not fail: a service gone meanwhile freed it already */
		PG_TRY();
		{
			GpuselClientRoundtrip(&req, &rep);
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
bool
GpuselClientBeginOn(GpuselServiceRequest *req, GpuselServiceOp op, const void *obj, char *errbuf, size_t errlen)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	if (!GpuselClientCurrent(obj))
	{
		if (errbuf != NULL && errlen > 0)
			snprintf(errbuf, errlen, "the gpusel service restarted since this object was made");
		return false;
	}
	req->h[0] = ((const RemoteObject *) obj)->remote;
	return true;
}

/* Whether the service is up and drives a GPU; fills info with what it found. */
bool
GpuselServiceUsable(gs_device_info *info)
{
	return GpuselClientProbe(info) == GS_OK;
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
	if (!GpuselClientBegin(&req, op))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("the gpusel service is not running"),
				 errdetail("Its device process is starting or restarting.")));
	req.a[0] = arg;
	req.cancellable = 1;
	st = GpuselClientCall(&req, &rep, errbuf, sizeof(errbuf));
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

/* Whether the service is up with a GPU, so it can keep device memory for the cache. */
bool
GpuselServiceHasGpu(void)
{
	GpuselServiceShared *shared = GpuselServiceRegion;

	return shared != NULL && pg_atomic_read_u32(&shared->state) == GPUSEL_SERVICE_UP &&
		shared->ndevices > 0;
}

/*
 * Whether a device copy the service made (its id carries the generation of
 * the device process that made it) may still be there: the same device
 * process is up.
 */
bool
GpuselServiceResidentCurrent(uint64 handle)
{
	GpuselServiceShared *shared = GpuselServiceRegion;

	return handle != 0 && GpuselServiceHasGpu() &&
		(uint32) (handle >> 32) == pg_atomic_read_u32(&shared->generation);
}
