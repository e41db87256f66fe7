/*
 * service_worker.c
 *	  The GPU service's supervisor: a background worker ("gpusel service"
 *	  in pg_stat_activity) that starts the device process, watches it, and
 *	  starts another when it exits.
 *
 * The supervisor itself never touches CUDA, so it has no reason to crash:
 * a background worker that crashes makes the postmaster restart every
 * backend of the cluster.  The process that does the device work is the
 * supervisor's child, not the postmaster's (service_device.c), so however
 * it ends, the postmaster does not see it; the supervisor does, marks the
 * service down (backends compute on the CPU meanwhile), and forks a new one.
 */
#include "postgres.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "device_calls.h"
#include "guc.h"
#include "service.h"
#include "service_device.h"

PGDLLEXPORT void GpuselServiceWorkerMain(Datum main_arg);

#define RESTART_DELAY_MIN_MS	200
#define RESTART_DELAY_MAX_MS	10000
#define SHORT_LIFE_MS			2000	/* a device process that lived less doubles the delay */

static pid_t device_pid = 0;

/* Whether this cluster runs the service: preloaded, with gpusel.service on. */
bool
GpuselServiceConfigured(void)
{
	return GpuselServiceRegion != NULL;
}

/*
 * _PG_init's part, in the postmaster while it loads shared_preload_libraries:
 * maps the region, registers the supervisor, and sends every process's
 * device calls to the service.
 */
void
GpuselServiceInit(void)
{
	BackgroundWorker worker;

	if (!process_shared_preload_libraries_in_progress || !gpusel_service_enabled)
		return;
	if (!GpuselServiceRegionCreate((uint64) gpusel_service_staging_mb * 1024 * 1024))
		return;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpusel");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "GpuselServiceWorkerMain");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpusel service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpusel service");
	RegisterBackgroundWorker(&worker);

	GpuselDev = GpuselServiceCalls();
}

/* Stops the device process when the supervisor exits. */
static void
stop_device_process(int code, Datum arg)
{
	GpuselServiceShared *shared = GpuselServiceRegion;

	pg_atomic_write_u32(&shared->state, GPUSEL_SERVICE_STOPPED);
	if (device_pid > 0)
	{
		int			status;

		(void) kill(device_pid, SIGTERM);
		for (int i = 0; i < 200; i++)
		{
			if (waitpid(device_pid, &status, WNOHANG) == device_pid)
			{
				device_pid = 0;
				break;
			}
			pg_usleep(10000);
		}
		if (device_pid > 0)
		{
			(void) kill(device_pid, SIGKILL);
			(void) waitpid(device_pid, &status, 0);
		}
	}
	shared->device_pid = 0;
	device_pid = 0;
}

/* Forks the device process; it marks the service up once it listens. */
static void
start_device_process(void)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	pid_t		supervisor = getpid();
	pid_t		pid;

	pg_atomic_write_u32(&shared->state, GPUSEL_SERVICE_STARTING);
	pg_atomic_fetch_add_u32(&shared->generation, 1);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		GpuselServiceDeviceMain(supervisor);
	if (pid < 0)
	{
		ereport(LOG,
				(errmsg("could not fork the gpusel service's device process: %m")));
		pg_atomic_write_u32(&shared->state, GPUSEL_SERVICE_DOWN);
		return;
	}
	device_pid = pid;
	shared->device_pid = pid;
}

/* Describes how the device process ended, for the log and the status view. */
static void
describe_exit(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "terminated by signal %d: %s", WTERMSIG(status),
				 pg_strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with code %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "ended with status %d", status);
}

/* The supervisor's main loop: start, watch, restart. */
void
GpuselServiceWorkerMain(Datum main_arg)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	TimestampTz started_at = 0;
	TimestampTz next_start = 0;
	int			delay_ms = RESTART_DELAY_MIN_MS;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("gpusel service");

	if (shared == NULL || shared->magic != GPUSEL_SERVICE_MAGIC)
		proc_exit(0);
	shared->supervisor_pid = MyProcPid;
	before_shmem_exit(stop_device_process, 0);

	for (;;)
	{
		int			status;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if (device_pid == 0 && GetCurrentTimestamp() >= next_start)
		{
			start_device_process();
			started_at = GetCurrentTimestamp();
		}
		if (device_pid > 0 && waitpid(device_pid, &status, WNOHANG) == device_pid)
		{
			char		how[GPUSEL_SERVICE_ERRLEN];
			bool		short_life = !TimestampDifferenceExceeds(started_at, GetCurrentTimestamp(),
																 SHORT_LIFE_MS);

			describe_exit(status, how, sizeof(how));
			strlcpy(shared->last_exit, how, sizeof(shared->last_exit));
			device_pid = 0;
			shared->device_pid = 0;
			pg_atomic_write_u32(&shared->clients, 0);
			pg_atomic_write_u32(&shared->in_flight, 0);
			for (int d = 0; d < GPUSEL_SERVICE_MAX_DEVICES; d++)
				pg_atomic_write_u32(&shared->devices[d].clients, 0);
			pg_atomic_write_u32(&shared->state, GPUSEL_SERVICE_DOWN);
			pg_atomic_fetch_add_u64(&shared->restarts, 1);
			delay_ms = short_life ? Min(delay_ms * 2, RESTART_DELAY_MAX_MS) : RESTART_DELAY_MIN_MS;
			next_start = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), delay_ms);
			ereport(LOG,
					(errmsg("gpusel service's device process %s", how),
					 errdetail("Queries it was serving failed; a new device process starts in %d ms, and queries run on the CPU until then.",
							   delay_ms)));
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
