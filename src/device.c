/*
 * device.c
 *	  The device layer: probes the GPU lazily, once per backend (never in
 *	  the postmaster), decides per operation whether the GPU or the CPU runs
 *	  it, and turns cuda/ status codes into PostgreSQL errors.
 *
 * cudart reports "insufficient driver" (35) and "no device" (100) where
 * there is no GPU; cuda/ folds those into GS_NO_DEVICE, and everything then
 * runs on the CPU.  A sticky CUDA error leaves the context unusable for the
 * rest of the process: the query that met it fails, and later ones run on
 * the CPU with a WARNING.
 *
 * With the GPU service (service/), no backend probes: the service's device
 * process publishes what it found, and a backend reads that afresh at each
 * question, so it uses the GPU while the service is up and the CPU while it
 * restarts.  A sticky error then ends the service's device process, not
 * the session's use of the GPU.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "device.h"
#include "device_calls.h"
#include "guc.h"
#include "service.h"

static bool device_probed = false;
static gs_device_info device_info;
static bool device_broken = false;
static char device_broken_reason[256];

/* counters shown by gpusel_stats() */
static int64 stat_gpu_selects = 0;
static int64 stat_cpu_selects = 0;
static int64 stat_gpu_fallbacks = 0;

PG_FUNCTION_INFO_V1(gpusel_device_info);
PG_FUNCTION_INFO_V1(gpusel_stats);

/* Sets up the device layer; the GPU itself is not touched here. */
void
GpuselDeviceInit(void)
{
	device_probed = false;
	device_broken = false;
}

/* Probes the GPU on first use in this backend, or reads the service's state. */
static void
device_probe(void)
{
	if (GpuselServiceConfigured())
	{
		(void) GpuselServiceUsable(&device_info);
		device_probed = true;
		return;
	}
	if (device_probed)
		return;
	memset(&device_info, 0, sizeof(device_info));
	if (!IsUnderPostmaster && IsPostmasterEnvironment)
	{
		/* never initialise CUDA in the postmaster: children would inherit it */
		strlcpy(device_info.reason, "not probed in the postmaster", sizeof(device_info.reason));
		return;
	}
	(void) GpuselDev->probe(&device_info);
	device_probed = true;
}

/* Reports whether a GPU can run gpusel's kernels in this backend now. */
bool
GpuselGpuUsable(void)
{
	device_probe();
	return device_info.usable && !device_broken;
}

/* Reports whether page-locked staging is worth allocating. */
bool
GpuselMayUseGpu(void)
{
	return GpuselMayPin() && GpuselGpuUsable();
}

/*
 * Whether this process may use the GPU at all: a parallel worker only
 * through the GPU service, since a context of its own would cost it
 * 150-390 ms.
 */
static bool
device_allowed_here(void)
{
	return !IsParallelWorker() || GpuselServiceConfigured();
}

/*
 * Reports whether this process may allocate page-locked memory, which
 * creates a CUDA context without the service: never with gpusel.device =
 * cpu, nor in a parallel worker without the service.
 */
bool
GpuselMayPin(void)
{
	return gpusel_device_mode != GPUSEL_DEVICE_CPU && device_allowed_here();
}

/*
 * Whether the planner should plan for the GPU: a usable one in auto mode
 * with at least gpusel.min_rows rows, gpusel.device = gpu (no probe), or
 * gpusel.plan_as_gpu, which plans as a GPU machine would even without one.
 */
bool
GpuselPlanForGpu(double nrows)
{
	if (gpusel_device_mode == GPUSEL_DEVICE_CPU)
		return false;
	if (gpusel_device_mode == GPUSEL_DEVICE_GPU)
		return true;
	if (nrows < gpusel_min_rows)
		return false;
	return gpusel_plan_as_gpu || GpuselGpuUsable();
}

/*
 * Decides whether an operation over nrows rows runs on the GPU, applying
 * gpusel.device and gpusel.min_rows.  Raises the error that gpusel.device =
 * gpu promises when no GPU is usable.
 */
bool
GpuselWantGpu(int64 nrows)
{
	if (gpusel_device_mode == GPUSEL_DEVICE_CPU)
		return false;
	if (!device_allowed_here())
		return false;
	device_probe();
	if (device_broken)
	{
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("gpusel is running on the CPU because the GPU is unusable"),
				 errdetail("An earlier CUDA error left the device unusable in this session: %s",
						   device_broken_reason),
				 errhint("Start a new session to use the GPU again.")));
		return false;
	}
	if (gpusel_device_mode == GPUSEL_DEVICE_GPU)
	{
		/* a service that is starting or restarting is the GPU in a moment */
		if (!device_info.usable && GpuselServiceConfigured() &&
			GpuselServiceAwaitUp(GPUSEL_SERVICE_START_WAIT_MS))
			device_probe();
		if (!device_info.usable)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("no usable GPU for gpusel"),
					 errdetail("%s", device_info.reason[0] ? device_info.reason : "The GPU probe failed."),
					 errhint("Set gpusel.device to \"auto\" or \"cpu\" to compute on the CPU.")));
		return true;
	}
	return device_info.usable && nrows >= gpusel_min_rows;
}

/* Page-locked host memory, or NULL when there is none to be had. */
void *
GpuselHostAlloc(Size bytes)
{
	void	   *ptr = NULL;

	if (GpuselDev->host_alloc(&ptr, bytes) != GS_OK)
		return NULL;
	return ptr;
}

/* Frees memory from GpuselHostAlloc. */
void
GpuselHostFree(void *ptr)
{
	GpuselDev->host_free(ptr);
}

/* Raises the PostgreSQL error that a cuda/ status stands for. */
void
GpuselCheckStatus(gs_status status, const char *errbuf, const char *what)
{
	switch (status)
	{
		case GS_OK:
			return;
		case GS_STICKY_ERROR:
			if (GpuselServiceConfigured())
				ereport(ERROR,
						(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
						 errmsg("GPU failed during %s", what),
						 errdetail("%s", errbuf),
						 errhint("The gpusel service restarts its device process; queries run on the CPU until it is back.")));
			device_broken = true;
			strlcpy(device_broken_reason, errbuf, sizeof(device_broken_reason));
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("GPU failed during %s", what),
					 errdetail("%s", errbuf),
					 errhint("The GPU is unusable for the rest of this session; later queries run on the CPU.")));
			break;
		case GS_OUT_OF_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of GPU memory during %s", what),
					 errdetail("%s", errbuf)));
			break;
		case GS_NO_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("no usable GPU for %s", what),
					 errdetail("%s", errbuf)));
			break;
		case GS_INTERRUPTED:
			CHECK_FOR_INTERRUPTS();
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("canceling %s on the GPU", what)));
			break;
		case GS_INVALID_ARGUMENT:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("invalid request to the GPU during %s", what),
					 errdetail("%s", errbuf)));
			break;
		case GS_CUDA_ERROR:
		default:
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("GPU error during %s", what),
					 errdetail("%s", errbuf)));
			break;
	}
}

/* Counts one selection done elsewhere (the grouped scan's keys held on the GPU). */
void
GpuselCountSelection(bool on_gpu)
{
	if (on_gpu)
		stat_gpu_selects++;
	else
		stat_cpu_selects++;
}

/* Counts one fallback from the GPU to the CPU for want of device memory. */
void
GpuselCountFallback(void)
{
	stat_gpu_fallbacks++;
}

/* SQL: one row describing the GPU as this backend sees it. */
Datum
gpusel_device_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9] = {0};
	char		buf[64];
	gs_device_info *d = &device_info;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	device_probe();

	values[0] = BoolGetDatum(d->usable && !device_broken);
	values[1] = Int32GetDatum(d->device_count);
	if (d->name[0])
		values[2] = CStringGetTextDatum(d->name);
	else
		nulls[2] = true;
	if (d->usable && !device_broken)
	{
		uint64		used;

		/* free memory now, so a session can watch for leaks */
		if (GpuselDev->memory_in_use(&used) == GS_OK && used <= d->total_memory)
			d->free_memory = d->total_memory - used;
	}
	if (d->usable || d->cc_major > 0)
	{
		snprintf(buf, sizeof(buf), "%d.%d", d->cc_major, d->cc_minor);
		values[3] = CStringGetTextDatum(buf);
		values[4] = Int64GetDatum((int64) (d->total_memory / (1024 * 1024)));
		values[5] = Int64GetDatum((int64) (d->free_memory / (1024 * 1024)));
	}
	else
		nulls[3] = nulls[4] = nulls[5] = true;
	if (d->driver_version > 0)
	{
		snprintf(buf, sizeof(buf), "%d.%d", d->driver_version / 1000, (d->driver_version % 1000) / 10);
		values[6] = CStringGetTextDatum(buf);
	}
	else
		nulls[6] = true;
	if (d->runtime_version > 0)
	{
		snprintf(buf, sizeof(buf), "%d.%d", d->runtime_version / 1000, (d->runtime_version % 1000) / 10);
		values[7] = CStringGetTextDatum(buf);
	}
	else
		nulls[7] = true;
	if (device_broken)
		values[8] = CStringGetTextDatum(device_broken_reason);
	else if (d->reason[0])
		values[8] = CStringGetTextDatum(d->reason);
	else
		nulls[8] = true;

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* SQL: how many selections this backend ran on each device. */
Datum
gpusel_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(stat_gpu_selects);
	values[1] = Int64GetDatum(stat_cpu_selects);
	values[2] = Int64GetDatum(stat_gpu_fallbacks);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* Whether the GPU service runs this process's device work. */
bool
GpuselDeviceIsService(void)
{
	return GpuselServiceConfigured();
}

/*
 * Milliseconds this process has waited for the GPU service beyond the
 * device time it reported, since it started; 0 without the service.
 */
double
GpuselDeviceWaitMs(void)
{
	return GpuselServiceConfigured() ? GpuselServiceWaitMs : 0;
}

/*
 * Whether device memory can outlive this process's queries for the column
 * cache: the GPU service runs this process's device work and has a GPU.
 */
bool
GpuselDeviceKeepsResident(void)
{
	return GpuselServiceConfigured() && GpuselDev != &GpuselLocalDeviceCalls &&
		GpuselServiceHasGpu();
}

/*
 * GpuselDeviceKeepsResident, after waiting (up to
 * GPUSEL_SERVICE_START_WAIT_MS) for a service that is starting or
 * restarting: a table cached right after the server starts would
 * otherwise stay in shared memory only.
 */
bool
GpuselDeviceAwaitKeepsResident(void)
{
	if (GpuselServiceConfigured() && GpuselDev != &GpuselLocalDeviceCalls && !GpuselServiceHasGpu())
		(void) GpuselServiceAwaitUp(GPUSEL_SERVICE_START_WAIT_MS);
	return GpuselDeviceKeepsResident();
}

/* Whether a device copy the cache made is still held, and this process may read it. */
bool
GpuselDeviceResidentCurrent(uint64 handle)
{
	return GpuselDeviceKeepsResident() && GpuselServiceResidentCurrent(handle);
}
