/*
 * service_device.c
 *	  The GPU service's device process: the one process of the cluster that
 *	  owns CUDA contexts and device memory.  It takes requests from backends
 *	  over a local socket, a thread per connection, and runs them with the
 *	  calls of cuda/ on buffers in the shared staging region.
 *
 * The supervisor (service_worker.c) forks it.  It is not a child of the
 * postmaster and it detaches from PostgreSQL's shared memory at once, so
 * its death, however it dies, is not a crash of the cluster: the
 * supervisor sees it exit, the queries it was serving fail, and a new one
 * starts.  It uses no PostgreSQL facility after the fork (no elog, no
 * palloc, no locks); it writes its few messages to the server's log with
 * write(2), and exits with _exit so that no exit callback of the parent
 * runs.
 */
#include "postgres.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/pg_shmem.h"

#include "gpusel_cuda.h"
#include "guc.h"
#include "gpusel_filter.h"
#include "service_device.h"
#include "service_heap.h"
#include "service_resident.h"

/* What a handle a client holds is. */
typedef enum HandleKind
{
	HANDLE_PAIRS,
	HANDLE_FILTER,
	HANDLE_GROUPS,
	HANDLE_SUMS
} HandleKind;

/* An object a connection created and has not destroyed. */
typedef struct Handle
{
	HandleKind	kind;
	void	   *ptr;
	int			ncols;			/* filters: columns */
	gs_coltype *coltypes;		/* filters: their types, for device batches' bounds */
} Handle;

/* One client's connection. */
typedef struct Connection
{
	int			sock;
	pid_t		owner;			/* the backend, from the socket's credentials */
	uint64		id;				/* generation << 32 | the connection's number */
	int			device;
	GpuselServiceControl *control;	/* in the region */
	Handle	   *handles;
	int			nhandles;
	int			maxhandles;
} Connection;

static int	device_count = 0;
static uint32 generation = 0;	/* this device process's number, from the supervisor */
static uint32 connections_made = 0;	/* by the accepting thread only */
static volatile sig_atomic_t stop_requested = 0;
static bool trace_requests = false;	/* GPUSEL_SERVICE_TRACE in the environment */

/* Writes one line to the server's log, without PostgreSQL's elog. */
static void
service_log(const char *fmt,...)
{
	char		buf[1024];
	int			len;
	va_list		ap;

	len = snprintf(buf, sizeof(buf), "gpusel service [%d]: ", (int) getpid());
	va_start(ap, fmt);
	len += vsnprintf(buf + len, sizeof(buf) - len - 1, fmt, ap);
	va_end(ap);
	len = Min(len, (int) sizeof(buf) - 2);
	buf[len++] = '\n';
	if (write(STDERR_FILENO, buf, len) < 0)
		return;				/* nowhere to tell */
}

/* SIGTERM: stop taking connections and exit. */
static void
handle_sigterm(int signo)
{
	stop_requested = 1;
}

/* Records a handle the connection now holds. */
static void
add_handle(Connection *conn, HandleKind kind, void *ptr, int ncols)
{
	if (conn->nhandles == conn->maxhandles)
	{
		int			newmax = Max(16, conn->maxhandles * 2);
		Handle	   *h = realloc(conn->handles, sizeof(Handle) * newmax);

		if (h == NULL)
			abort();			/* out of process memory: restart clean */
		conn->handles = h;
		conn->maxhandles = newmax;
	}
	conn->handles[conn->nhandles].kind = kind;
	conn->handles[conn->nhandles].ptr = ptr;
	conn->handles[conn->nhandles].ncols = ncols;
	conn->handles[conn->nhandles].coltypes = NULL;
	conn->nhandles++;
}

/* The connection's handle of that kind at ptr, or NULL. */
static Handle *
find_handle(Connection *conn, HandleKind kind, uint64 ptr)
{
	for (int i = 0; i < conn->nhandles; i++)
		if (conn->handles[i].kind == kind && (uint64) (uintptr_t) conn->handles[i].ptr == ptr)
			return &conn->handles[i];
	return NULL;
}

/* Destroys one object of any kind. */
static void
destroy_object(HandleKind kind, void *ptr)
{
	switch (kind)
	{
		case HANDLE_PAIRS:
			gs_pairs_destroy(ptr);
			break;
		case HANDLE_FILTER:
			gs_filter_destroy(ptr);
			break;
		case HANDLE_GROUPS:
			gs_batch_groups_destroy(ptr);
			break;
		case HANDLE_SUMS:
			gs_batch_sums_destroy(ptr);
			break;
	}
}

/* Destroys the connection's handle of that kind at ptr; false when it has none. */
static bool
drop_handle(Connection *conn, HandleKind kind, uint64 ptr)
{
	Handle	   *h = find_handle(conn, kind, ptr);

	if (h == NULL)
		return false;
	destroy_object(h->kind, h->ptr);
	free(h->coltypes);
	*h = conn->handles[--conn->nhandles];
	return true;
}

/* Whether a client's pointer names bytes of the region. */
static bool
in_region(uint64 p, uint64 bytes)
{
	return p != 0 && GpuselServiceInRegion((const void *) (uintptr_t) p, bytes);
}

#define PTR(x)	((void *) (uintptr_t) (x))

/* Answers GS_INVALID_ARGUMENT for a request that names memory or objects it may not. */
static gs_status
invalid(GpuselServiceReply *rep, const char *what)
{
	snprintf(rep->errbuf, sizeof(rep->errbuf), "the GPU service refused a request: %s", what);
	return GS_INVALID_ARGUMENT;
}

/* Holds a PING request for ms milliseconds, or until the client cancels it. */
static gs_status
hold_for(Connection *conn, int64 ms, bool cancellable, GpuselServiceReply *rep)
{
	struct timespec step = {0, 10 * 1000 * 1000};

	for (int64 waited = 0; waited < ms; waited += 10)
	{
		if (cancellable && conn->control->cancel)
		{
			snprintf(rep->errbuf, sizeof(rep->errbuf), "canceled");
			return GS_INTERRUPTED;
		}
		nanosleep(&step, NULL);
	}
	return GS_OK;
}

/* Runs one request; the reply's status is its result. */
static gs_status
dispatch(Connection *conn, const GpuselServiceRequest *req, GpuselServiceReply *rep)
{
	char	   *errbuf = rep->errbuf;
	size_t		errlen = sizeof(rep->errbuf);
	const volatile int *cancel = req->cancellable ? &conn->control->cancel : NULL;
	Handle	   *h;
	Handle	   *f;

	switch ((GpuselServiceOp) req->op)
	{
		case GSVC_HELLO:
			return invalid(rep, "a second greeting");

		case GSVC_PING:
			return hold_for(conn, req->a[0], req->cancellable, rep);

		case GSVC_FAULT:
			if (req->a[0] == 1)
			{
				service_log("dying on request (fault injection)");
				abort();
			}
			snprintf(errbuf, errlen, "an injected CUDA error left the context unusable");
			return GS_STICKY_ERROR;

		case GSVC_HOST_ALLOC:
			rep->p[0] = (uint64) (uintptr_t) GpuselServiceHeapAlloc(req->a[0], conn->owner, conn->id);
			if (rep->p[0] == 0)
			{
				snprintf(errbuf, errlen, "the GPU service's staging region has no %lld bytes free",
						 (long long) req->a[0]);
				return GS_OUT_OF_MEMORY;
			}
			return GS_OK;

		case GSVC_HOST_FREE:
			(void) GpuselServiceHeapFree(PTR(req->p[0]), conn->id);
			return GS_OK;

		case GSVC_MEMORY_IN_USE:
			{
				uint64_t	used = 0;
				gs_status	st;

				GpuselResidentSweep(conn->device);
				/* what queries hold counts, not what the pool keeps for the next one */
				gs_device_pool_trim();
				st = gs_device_memory_in_use(&used);

				rep->r[0] = (int64) used;
				return st;
			}

		case GSVC_SELECT_KEYS:
			{
				int			nchunks = (int) req->a[1];
				const void *const *chunks = PTR(req->p[0]);
				const int64_t *counts = PTR(req->p[1]);

				if (!in_region(req->p[0], sizeof(void *) * nchunks) ||
					!in_region(req->p[1], sizeof(int64) * nchunks) ||
					!in_region(req->p[2], sizeof(int64) * req->a[3]) ||
					!in_region(req->p[3], req->a[0] * req->a[3]))
					return invalid(rep, "selection arrays outside the staging region");
				for (int i = 0; i < nchunks; i++)
					if (!in_region((uint64) (uintptr_t) chunks[i], counts[i] * req->a[0]))
						return invalid(rep, "a key chunk outside the staging region");
				return gs_select_keys((int) req->a[0], chunks, counts, nchunks, req->a[2],
									  PTR(req->p[2]), (int) req->a[3], PTR(req->p[3]),
									  cancel, errbuf, errlen);
			}

		case GSVC_PAIRS_CREATE:
			{
				gs_pairs   *pairs = NULL;
				gs_status	st = gs_pairs_create(&pairs, (int) req->a[0], (int) req->a[1],
												 errbuf, errlen);

				if (st == GS_OK)
				{
					add_handle(conn, HANDLE_PAIRS, pairs, 0);
					rep->p[0] = (uint64) (uintptr_t) pairs;
				}
				return st;
			}

		case GSVC_PAIRS_APPEND:
			if ((h = find_handle(conn, HANDLE_PAIRS, req->h[0])) == NULL)
				return invalid(rep, "no such pairs");
			if (!in_region(req->p[0], 8 * req->a[0]) ||
				(req->p[1] != 0 && !in_region(req->p[1], 4 * req->a[0])))
				return invalid(rep, "pairs outside the staging region");
			return gs_pairs_append(h->ptr, PTR(req->p[0]), PTR(req->p[1]), req->a[0],
								   errbuf, errlen);

		case GSVC_PAIRS_COUNT:
			if ((h = find_handle(conn, HANDLE_PAIRS, req->h[0])) == NULL)
				return invalid(rep, "no such pairs");
			rep->r[0] = gs_pairs_count(h->ptr);
			return GS_OK;

		case GSVC_PAIRS_READ:
			if ((h = find_handle(conn, HANDLE_PAIRS, req->h[0])) == NULL)
				return invalid(rep, "no such pairs");
			if (!in_region(req->p[0], 8 * gs_pairs_count(h->ptr)) ||
				(req->p[1] != 0 && !in_region(req->p[1], 4 * gs_pairs_count(h->ptr))))
				return invalid(rep, "pairs outside the staging region");
			return gs_pairs_read(h->ptr, PTR(req->p[0]), PTR(req->p[1]), errbuf, errlen);

		case GSVC_PAIRS_SORT_PICK:
			if ((h = find_handle(conn, HANDLE_PAIRS, req->h[0])) == NULL)
				return invalid(rep, "no such pairs");
			if (!in_region(req->p[0], 8 * req->a[1]) || !in_region(req->p[1], 8 * req->a[1]))
				return invalid(rep, "positions outside the staging region");
			return gs_pairs_sort_pick(h->ptr, req->a[0], PTR(req->p[0]), req->a[1],
									  PTR(req->p[1]), cancel, errbuf, errlen);

		case GSVC_PAIRS_SELECT:
			if ((h = find_handle(conn, HANDLE_PAIRS, req->h[0])) == NULL)
				return invalid(rep, "no such pairs");
			if (!in_region(req->p[0], 8 * req->a[0]) || !in_region(req->p[1], 8 * req->a[0]))
				return invalid(rep, "ranks outside the staging region");
			return gs_pairs_select(h->ptr, PTR(req->p[0]), (int) req->a[0], PTR(req->p[1]),
								   cancel, errbuf, errlen);

		case GSVC_PAIRS_DESTROY:
			(void) drop_handle(conn, HANDLE_PAIRS, req->h[0]);
			return GS_OK;

		case GSVC_SORT_BY_GROUP:
		case GSVC_SORT_BY_GROUP_PICK:
			if (!in_region(req->p[0], req->a[0] * req->a[1]) ||
				!in_region(req->p[1], 4 * req->a[1]))
				return invalid(rep, "pairs outside the staging region");
			if (req->op == GSVC_SORT_BY_GROUP)
			{
				if (!in_region(req->p[2], req->a[0] * req->a[1]))
					return invalid(rep, "output outside the staging region");
				return gs_sort_by_group((int) req->a[0], PTR(req->p[0]), PTR(req->p[1]),
										req->a[1], req->a[2], PTR(req->p[2]), cancel,
										errbuf, errlen);
			}
			if (!in_region(req->p[2], req->a[0] * req->a[3]) ||
				!in_region(req->p[3], 8 * req->a[3]))
				return invalid(rep, "positions outside the staging region");
			return gs_sort_by_group_pick((int) req->a[0], PTR(req->p[0]), PTR(req->p[1]),
										 req->a[1], req->a[2], PTR(req->p[3]), req->a[3],
										 PTR(req->p[2]), cancel, errbuf, errlen);

		case GSVC_FILTER_CREATE:
			{
				gs_program	prog;
				gs_filter  *filter = NULL;
				int			ncols = (int) req->a[3];
				int			nslots = (int) req->a[5];
				void	  **table = PTR(req->p[3]);
				gs_status	st;

				if (ncols < 0 || ncols > GS_MAX_PROGRAM_LENGTH || nslots < 1 || nslots > 2 ||
					!in_region(req->p[0], sizeof(gs_instr) * Max(req->a[0], 1)) ||
					(req->a[1] > 0 && !in_region(req->p[1], sizeof(gs_const) * req->a[1])) ||
					!in_region(req->p[2], sizeof(gs_coltype) * Max(ncols, 1)) ||
					!in_region(req->p[3], sizeof(void *) * 2 * nslots * Max(ncols, 1)))
					return invalid(rep, "a program outside the staging region");
				prog.code = PTR(req->p[0]);
				prog.ncode = (int) req->a[0];
				prog.consts = req->a[1] > 0 ? PTR(req->p[1]) : NULL;
				prog.nconsts = (int) req->a[1];
				prog.max_stack = (int) req->a[2];
				st = gs_filter_create_ex(&filter, &prog, ncols, PTR(req->p[2]), req->a[4], req->a[6],
										 nslots, errbuf, errlen);
				if (st != GS_OK)
					return st;
				add_handle(conn, HANDLE_FILTER, filter, ncols);
				h = &conn->handles[conn->nhandles - 1];
				h->coltypes = malloc(sizeof(gs_coltype) * Max(ncols, 1));
				if (h->coltypes == NULL)
					abort();	/* out of process memory: restart clean */
				memcpy(h->coltypes, PTR(req->p[2]), sizeof(gs_coltype) * ncols);
				for (int s = 0; s < nslots; s++)
					for (int c = 0; c < ncols; c++)
					{
						table[2 * (s * ncols + c)] = gs_filter_values(filter, s, c);
						table[2 * (s * ncols + c) + 1] = gs_filter_nulls(filter, s, c);
					}
				rep->p[0] = (uint64) (uintptr_t) filter;
				return GS_OK;
			}

		case GSVC_FILTER_SHIP:
			if ((f = find_handle(conn, HANDLE_FILTER, req->h[0])) == NULL)
				return invalid(rep, "no such filter");
			if (!in_region(req->p[0], Max(f->ncols, 1)))
				return invalid(rep, "columns outside the staging region");
			return gs_filter_ship_columns(f->ptr, PTR(req->p[0]), errbuf, errlen);

		case GSVC_FILTER_SUBMIT:
			if ((f = find_handle(conn, HANDLE_FILTER, req->h[0])) == NULL)
				return invalid(rep, "no such filter");
			if (!in_region(req->p[0], Max(f->ncols, 1)))
				return invalid(rep, "null flags outside the staging region");
			return gs_filter_submit(f->ptr, (int) req->a[0], req->a[1], PTR(req->p[0]),
									errbuf, errlen);

		case GSVC_FILTER_SUBMIT_RESIDENT:
			{
				gs_device_column cols[GS_MAX_PROGRAM_LENGTH];
				gs_status	st;

				if ((f = find_handle(conn, HANDLE_FILTER, req->h[0])) == NULL)
					return invalid(rep, "no such filter");
				if (!in_region(req->p[0], sizeof(int64) * 2 * Max(f->ncols, 1)))
					return invalid(rep, "column offsets outside the staging region");
				st = GpuselResidentColumns(req->h[1], conn->device, req->a[1], f->ncols, f->coltypes,
										   PTR(req->p[0]), cols, errbuf, errlen);
				if (st != GS_OK)
					return st;
				return gs_filter_submit_device(f->ptr, (int) req->a[0], req->a[1], cols,
											   errbuf, errlen);
			}

		case GSVC_RESIDENT_CREATE:
			{
				uint64		id = 0;
				gs_status	st;

				GpuselResidentSweep(conn->device);
				st = GpuselResidentCreate((int) req->a[0], req->a[1], conn->device, &id,
													  errbuf, errlen);

				rep->r[0] = (int64) id;
				return st;
			}

		case GSVC_RESIDENT_WRITE:
			if (!in_region(req->p[0], req->a[1]))
				return invalid(rep, "cached columns outside the staging region");
			return GpuselResidentWrite(req->h[0], req->a[0], PTR(req->p[0]), req->a[1], conn->device,
									   errbuf, errlen);

		case GSVC_RESIDENT_WRITE_PIECES:
			{
				/* copied out of the region first: the backend cannot change what was checked */
				int64		desc[3 * GPUSEL_RESIDENT_MAX_PIECES];

				if (req->a[0] < 0 || req->a[0] > GPUSEL_RESIDENT_MAX_PIECES ||
					!in_region(req->p[0], sizeof(int64) * 3 * Max(req->a[0], 1)))
					return invalid(rep, "cached column pieces outside the staging region");
				memcpy(desc, PTR(req->p[0]), sizeof(int64) * 3 * req->a[0]);
				for (int i = 0; i < req->a[0]; i++)
					if (desc[3 * i + 1] < 0 || !in_region((uint64) desc[3 * i + 2], (uint64) desc[3 * i + 1]))
						return invalid(rep, "cached columns outside the staging region");
				return GpuselResidentWritePieces(req->h[0], (int) req->a[0], desc, conn->device,
												 errbuf, errlen);
			}

		case GSVC_RESIDENT_REPACK:
			{
				int64		moves[3 * GPUSEL_RESIDENT_MAX_PIECES];

				if (req->a[1] < 0 || req->a[1] > GPUSEL_RESIDENT_MAX_PIECES ||
					!in_region(req->p[0], sizeof(int64) * 3 * Max(req->a[1], 1)))
					return invalid(rep, "cached column moves outside the staging region");
				memcpy(moves, PTR(req->p[0]), sizeof(int64) * 3 * req->a[1]);
				return GpuselResidentRepack(req->h[0], req->a[0], (int) req->a[1], moves,
											conn->device, errbuf, errlen);
			}

		case GSVC_FILTER_WAIT:
			{
				const uint32_t *positions = NULL;
				int64_t		count = 0;
				int			row_error = 0;
				double		ms = 0;
				gs_status	st;

				if ((f = find_handle(conn, HANDLE_FILTER, req->h[0])) == NULL)
					return invalid(rep, "no such filter");
				st = gs_filter_wait(f->ptr, (int) req->a[0], req->a[1] ? NULL : &positions, &count,
									&row_error, &ms, errbuf, errlen);
				rep->p[0] = (uint64) (uintptr_t) positions;
				rep->r[0] = count;
				rep->r[1] = row_error;
				rep->device_ms = ms;
				return st;
			}

		case GSVC_FILTER_POSITIONS:
			{
				const uint32_t *positions = NULL;
				gs_status	st;

				if ((f = find_handle(conn, HANDLE_FILTER, req->h[0])) == NULL)
					return invalid(rep, "no such filter");
				st = gs_filter_positions(f->ptr, (int) req->a[0], &positions, errbuf, errlen);
				rep->p[0] = (uint64) (uintptr_t) positions;
				return st;
			}

		case GSVC_FILTER_DESTROY:
			(void) drop_handle(conn, HANDLE_FILTER, req->h[0]);
			return GS_OK;

		case GSVC_GROUPS_CREATE:
			{
				gs_batch_groups *groups = NULL;
				gs_status	st = gs_batch_groups_create(&groups, req->a[0], errbuf, errlen);

				if (st == GS_OK)
				{
					add_handle(conn, HANDLE_GROUPS, groups, 0);
					rep->p[0] = (uint64) (uintptr_t) groups;
				}
				return st;
			}

		case GSVC_GROUPS_FIND:
			{
				int64_t		nkeys = 0;
				const gs_batch_key *keys = NULL;
				int			key_cols[GS_GROUP_MAX_KEYS];
				gs_status	st;

				if ((h = find_handle(conn, HANDLE_GROUPS, req->h[0])) == NULL ||
					(f = find_handle(conn, HANDLE_FILTER, req->h[1])) == NULL)
					return invalid(rep, "no such groups or filter");
				if (req->a[2] < 0 || req->a[2] > GS_GROUP_MAX_KEYS)
					return invalid(rep, "too many key columns");
				for (int c = 0; c < req->a[2]; c++)
					key_cols[c] = (int) req->a[3 + c];
				st = gs_batch_groups_find(h->ptr, f->ptr, (int) req->a[0], req->a[1], (int) req->a[2],
										  key_cols, &nkeys, &keys, errbuf, errlen);
				rep->r[0] = nkeys;
				rep->p[0] = (uint64) (uintptr_t) keys;
				return st;
			}

		case GSVC_GROUPS_TRANSFORMS:
			{
				gs_key_transform transforms[GS_GROUP_MAX_KEYS];

				if ((h = find_handle(conn, HANDLE_GROUPS, req->h[0])) == NULL)
					return invalid(rep, "no such groups");
				if (req->a[0] < 0 || req->a[0] > GS_GROUP_MAX_KEYS)
					return invalid(rep, "too many key columns");
				for (int c = 0; c < req->a[0]; c++)
				{
					/* an arithmetic shift keeps -1, no transform */
					transforms[c].op = (int32) (req->a[1 + 2 * c] >> 1);
					transforms[c].is_int8 = (int32) (req->a[1 + 2 * c] & 1);
					transforms[c].constant = req->a[2 + 2 * c];
				}
				return gs_batch_groups_set_transforms(h->ptr, (int) req->a[0], transforms,
													  errbuf, errlen);
			}

		case GSVC_GROUPS_ADD:
			{
				const gs_batch_tally *tally = NULL;
				Handle	   *pairs;
				gs_status	st;

				if ((h = find_handle(conn, HANDLE_GROUPS, req->h[0])) == NULL ||
					(f = find_handle(conn, HANDLE_FILTER, req->h[1])) == NULL ||
					(pairs = find_handle(conn, HANDLE_PAIRS, req->h[2])) == NULL)
					return invalid(rep, "no such groups, filter or pairs");
				if (req->p[0] != 0 && !in_region(req->p[0], 4 * Max(req->a[2], 1)))
					return invalid(rep, "group numbers outside the staging region");
				st = gs_batch_groups_add(h->ptr, f->ptr, PTR(req->p[0]), (int) req->a[0],
										 (int) req->a[1], pairs->ptr, &tally, errbuf, errlen);
				rep->p[0] = (uint64) (uintptr_t) tally;
				return st;
			}

		case GSVC_GROUPS_SUM:
			{
				const uint64_t *rows = NULL;
				const gs_sum_result *sums = NULL;
				gs_status	st;

				if ((h = find_handle(conn, HANDLE_GROUPS, req->h[0])) == NULL ||
					(f = find_handle(conn, HANDLE_FILTER, req->h[1])) == NULL)
					return invalid(rep, "no such groups or filter");
				if (req->a[0] < 0 || req->a[0] > GS_SUM_MAX_EXPRS ||
					(req->a[0] > 0 && !in_region(req->p[0], sizeof(gs_sum_expr) * req->a[0])))
					return invalid(rep, "sums outside the staging region");
				st = gs_batch_groups_sum(h->ptr, f->ptr, (int) req->a[0], PTR(req->p[0]), &rows,
										 &sums, errbuf, errlen);
				rep->p[0] = (uint64) (uintptr_t) rows;
				rep->p[1] = (uint64) (uintptr_t) sums;
				return st;
			}

		case GSVC_GROUPS_DESTROY:
			(void) drop_handle(conn, HANDLE_GROUPS, req->h[0]);
			return GS_OK;

		case GSVC_SUMS_CREATE:
			{
				gs_batch_sums *sums = NULL;
				gs_status	st = gs_batch_sums_create(&sums, errbuf, errlen);

				if (st == GS_OK)
				{
					add_handle(conn, HANDLE_SUMS, sums, 0);
					rep->p[0] = (uint64) (uintptr_t) sums;
				}
				return st;
			}

		case GSVC_SUMS_RUN:
			if ((h = find_handle(conn, HANDLE_SUMS, req->h[0])) == NULL ||
				(f = find_handle(conn, HANDLE_FILTER, req->h[1])) == NULL)
				return invalid(rep, "no such sums or filter");
			if (req->a[2] < 0 || req->a[2] > GS_SUM_MAX_EXPRS ||
				!in_region(req->p[0], sizeof(gs_sum_expr) * Max(req->a[2], 1)) ||
				!in_region(req->p[1], sizeof(gs_sum_result) * Max(req->a[2], 1)))
				return invalid(rep, "sums outside the staging region");
			return gs_batch_sums_run(h->ptr, f->ptr, (int) req->a[0], req->a[1], (int) req->a[2],
									 PTR(req->p[0]), PTR(req->p[1]), errbuf, errlen);

		case GSVC_SUMS_DESTROY:
			(void) drop_handle(conn, HANDLE_SUMS, req->h[0]);
			return GS_OK;

		default:
			return invalid(rep, "an unknown operation");
	}
}

/* The least busy device for a new connection. */
static int
least_busy_device(void)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	int			best = 0;

	for (int d = 1; d < device_count; d++)
		if (pg_atomic_read_u32(&shared->devices[d].clients) <
			pg_atomic_read_u32(&shared->devices[best].clients))
			best = d;
	return best;
}

/* Sends the reply; false when the client is gone. */
static bool
send_reply(Connection *conn, GpuselServiceReply *rep)
{
	ssize_t		n = send(conn->sock, rep, sizeof(*rep), MSG_NOSIGNAL);

	return n == (ssize_t) sizeof(*rep);
}

/* Microseconds from a to b. */
static double
elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e6 + (b->tv_nsec - a->tv_nsec) / 1e3;
}

/*
 * Logs one request's operation, how long it ran, and how long the client
 * took since the previous reply: where a query's time goes between the
 * device and the backend.
 */
static void
trace_request(Connection *conn, const GpuselServiceRequest *req, const GpuselServiceReply *rep,
			  const struct timespec *began, struct timespec *replied)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	service_log("trace: connection %u op %d status %d ran %.1f us, %.1f us after the previous reply",
				(unsigned) (conn->id & 0xffffffff), (int) req->op, (int) rep->status,
				elapsed_us(began, &now),
				replied->tv_sec != 0 ? elapsed_us(replied, began) : 0.0);
	*replied = now;
}

/*
 * Serves one connection until its client closes it or dies, then destroys
 * what it left and frees its blocks.  A sticky CUDA error ends the process
 * after its reply: the context is unusable, and a new device process gets
 * a new one.
 */
static void *
serve_connection(void *arg)
{
	Connection *conn = arg;
	GpuselServiceShared *shared = GpuselServiceRegion;
	GpuselServiceRequest req;
	GpuselServiceReply rep;
	bool		fatal = false;
	struct timespec began = {0, 0};
	struct timespec replied = {0, 0};

	GpuselServiceHeapSetOwner(conn->owner, conn->id);
	conn->device = least_busy_device();
	pg_atomic_fetch_add_u32(&shared->devices[conn->device].clients, 1);
	pg_atomic_fetch_add_u32(&shared->clients, 1);
	if (device_count > 0)
		(void) gs_use_device(conn->device, NULL, 0);

	/* the greeting: the client's blocks of earlier device processes are its no more */
	if (recv(conn->sock, &req, sizeof(req), 0) == (ssize_t) sizeof(req) && req.op == GSVC_HELLO)
	{
		memset(&rep, 0, sizeof(rep));
		GpuselServiceHeapFreeOrphans(conn->owner, (uint32) (conn->id >> 32));
		conn->control = GpuselServiceHeapAlloc(sizeof(GpuselServiceControl), conn->owner, conn->id);
		rep.status = conn->control != NULL ? GS_OK : GS_OUT_OF_MEMORY;
		if (conn->control == NULL)
			snprintf(rep.errbuf, sizeof(rep.errbuf), "the GPU service's staging region is full");
		rep.p[0] = (uint64) (uintptr_t) conn->control;
		rep.device = conn->device;
		if (send_reply(conn, &rep) && conn->control != NULL)
		{
			conn->control->cancel = 0;
			while (!fatal && recv(conn->sock, &req, sizeof(req), 0) == (ssize_t) sizeof(req))
			{
				memset(&rep, 0, sizeof(rep));
				rep.device = conn->device;
				pg_atomic_fetch_add_u32(&shared->in_flight, 1);
				if (trace_requests)
					clock_gettime(CLOCK_MONOTONIC, &began);
				rep.status = dispatch(conn, &req, &rep);
				if (trace_requests)
					trace_request(conn, &req, &rep, &began, &replied);
				pg_atomic_fetch_sub_u32(&shared->in_flight, 1);
				pg_atomic_fetch_add_u64(&shared->requests, 1);
				pg_atomic_fetch_add_u64(&shared->devices[conn->device].requests, 1);
				if (rep.status != GS_OK && rep.status != GS_INTERRUPTED)
				{
					pg_atomic_fetch_add_u64(&shared->errors, 1);
					strlcpy(shared->last_error, rep.errbuf, sizeof(shared->last_error));
				}
				fatal = rep.status == GS_STICKY_ERROR;
				/* no new connection while this process ends */
				if (fatal)
					pg_atomic_write_u32(&shared->state, GPUSEL_SERVICE_DOWN);
				if (!send_reply(conn, &rep))
					break;
			}
		}
	}
	if (fatal)
	{
		service_log("a CUDA error left the device unusable (%s); restarting", rep.errbuf);
		_exit(3);
	}
	for (int i = conn->nhandles - 1; i >= 0; i--)
	{
		destroy_object(conn->handles[i].kind, conn->handles[i].ptr);
		free(conn->handles[i].coltypes);
	}
	GpuselServiceHeapFreeConnection(conn->id);
	pg_atomic_fetch_sub_u32(&shared->devices[conn->device].clients, 1);
	pg_atomic_fetch_sub_u32(&shared->clients, 1);
	close(conn->sock);
	free(conn->handles);
	free(conn);
	return NULL;
}

/* Probes the devices and page-locks the region for them; publishes what it found. */
static void
prepare_devices(void)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	gs_device_info info;
	char		errbuf[GPUSEL_SERVICE_ERRLEN];

	(void) gs_probe(&info);
	device_count = info.usable ? Min(info.device_count, GPUSEL_SERVICE_MAX_DEVICES) : 0;
	/* gs_probe describes device 0; a host's GPUs are alike in practice */
	for (int d = 0; d < device_count; d++)
	{
		strlcpy(shared->devices[d].name, info.name, sizeof(shared->devices[d].name));
		shared->devices[d].total_memory = info.total_memory;
	}
	if (device_count > 0)
	{
		(void) gs_use_device(0, NULL, 0);
		errbuf[0] = '\0';
		if (gs_host_register((char *) shared + shared->heap_offset,
							 shared->region_bytes - shared->heap_offset,
							 errbuf, sizeof(errbuf)) != GS_OK)
		{
			info.usable = 0;
			snprintf(info.reason, sizeof(info.reason), "%s", errbuf);
			device_count = 0;
		}
		else
		{
			gs_set_host_allocator(GpuselServiceHeapAllocForCuda, GpuselServiceHeapFreeForCuda);
			gs_device_pool_enable((size_t) gpusel_service_buffer_pool_mb * 1024 * 1024);
		}
	}
	shared->ndevices = device_count;
	shared->info = info;
	GpuselResidentSetDevices(device_count);
}

/* Opens the listening socket at the region's abstract name. */
static int
listen_socket(void)
{
	struct sockaddr_un addr;
	socklen_t	len;
	int			sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (sock < 0)
		return -1;
	len = GpuselServiceSocketAddress(&addr);
	if (bind(sock, (struct sockaddr *) &addr, len) != 0 || listen(sock, 256) != 0)
	{
		close(sock);
		return -1;
	}
	return sock;
}

/*
 * The device process, from its fork to its exit: leaves PostgreSQL's
 * shared memory, probes the GPUs, and serves connections.
 */
void
GpuselServiceDeviceMain(pid_t supervisor)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	sigset_t	all;
	int			lsock;

	/* nothing of PostgreSQL's: no exit callbacks, no shared memory */
	on_exit_reset();
	dsm_detach_all();
	PGSharedMemoryDetach();
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction sa;

		/* no SA_RESTART: SIGTERM ends the wait in accept */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = handle_sigterm;
		sigaction(SIGTERM, &sa, NULL);
	}
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != supervisor)
		_exit(1);

	generation = pg_atomic_read_u32(&shared->generation);
	trace_requests = getenv("GPUSEL_SERVICE_TRACE") != NULL;
	GpuselServiceHeapRecover();
	/* load every kernel with the context, so no session's first query waits for one */
	setenv("CUDA_MODULE_LOADING", "EAGER", 1);
	prepare_devices();
	lsock = listen_socket();
	if (lsock < 0)
	{
		service_log("could not listen on its socket: %s", strerror(errno));
		_exit(2);
	}
	shared->device_pid = getpid();
	pg_write_barrier();
	pg_atomic_write_u32(&shared->state, GPUSEL_SERVICE_UP);
	service_log("ready: %d GPU(s)%s%s", device_count,
				device_count == 0 ? "; " : "", device_count == 0 ? shared->info.reason : "");

	while (!stop_requested)
	{
		struct pollfd pfd = {.fd = lsock, .events = POLLIN};
		int			sock;
		struct ucred cred;
		socklen_t	credlen = sizeof(cred);
		Connection *conn;
		pthread_t	thread;
		pthread_attr_t attr;

		int			ready = poll(&pfd, 1, 1000);

		/* a quiet second: free the device copies caches gave up */
		if (ready == 0 && device_count > 0)
			GpuselResidentSweep(0);
		/* nothing to accept, or a signal (SIGTERM ends the loop) */
		if (ready <= 0)
			continue;
		sock = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
		if (sock < 0)
			continue;
		/* an abstract socket is open to every local user: serve the cluster's own processes only */
		if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) != 0 || cred.pid <= 0 ||
			cred.uid != geteuid() || (conn = calloc(1, sizeof(Connection))) == NULL)
		{
			close(sock);
			continue;
		}
		conn->sock = sock;
		conn->owner = cred.pid;
		conn->id = ((uint64) generation << 32) | ++connections_made;
		/* every thread starts with every signal blocked: the main thread takes them */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&thread, &attr, serve_connection, conn) != 0)
		{
			close(sock);
			free(conn);
		}
		pthread_attr_destroy(&attr);
		sigemptyset(&all);
		pthread_sigmask(SIG_SETMASK, &all, NULL);
	}
	service_log("stopping");
	_exit(0);
}
