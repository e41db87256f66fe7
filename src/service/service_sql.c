/*
 * service_sql.c
 *	  SQL functions of the GPU service: its state, its devices, and the
 *	  requests that let a test hold a request in flight or make the device
 *	  process fail.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "service.h"

PG_FUNCTION_INFO_V1(gpusel_service_status);
PG_FUNCTION_INFO_V1(gpusel_service_devices);
PG_FUNCTION_INFO_V1(gpusel_service_ping);
PG_FUNCTION_INFO_V1(gpusel_service_inject_fault);

/* The state's name as the view shows it. */
static const char *
state_name(GpuselServiceState state)
{
	switch (state)
	{
		case GPUSEL_SERVICE_STOPPED:
			return "stopped";
		case GPUSEL_SERVICE_STARTING:
			return "starting";
		case GPUSEL_SERVICE_UP:
			return "up";
		case GPUSEL_SERVICE_DOWN:
			return "restarting";
	}
	return "unknown";
}

/* Text of a NUL-terminated buffer, or NULL when it is empty. */
static Datum
text_or_null(const char *s, bool *isnull)
{
	*isnull = s[0] == '\0';
	return *isnull ? (Datum) 0 : CStringGetTextDatum(s);
}

/* SQL: one row describing the service; state 'off' when it is not configured. */
Datum
gpusel_service_status(PG_FUNCTION_ARGS)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	TupleDesc	tupdesc;
	Datum		values[14];
	bool		nulls[14];

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(nulls, true, sizeof(nulls));
	if (shared == NULL)
	{
		values[0] = CStringGetTextDatum("off");
		nulls[0] = false;
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	}
	memset(nulls, false, sizeof(nulls));
	values[0] = CStringGetTextDatum(state_name(pg_atomic_read_u32(&shared->state)));
	values[1] = Int32GetDatum(shared->supervisor_pid);
	nulls[1] = shared->supervisor_pid == 0;
	values[2] = Int32GetDatum(shared->device_pid);
	nulls[2] = shared->device_pid == 0;
	values[3] = Int32GetDatum(shared->ndevices);
	values[4] = text_or_null(shared->info.name, &nulls[4]);
	values[5] = Int64GetDatum((int64) ((shared->region_bytes - shared->heap_offset) / (1024 * 1024)));
	values[6] = Float8GetDatum(pg_atomic_read_u64(&shared->heap_in_use) / (1024.0 * 1024.0));
	values[7] = Int32GetDatum(pg_atomic_read_u32(&shared->clients));
	values[8] = Int32GetDatum(pg_atomic_read_u32(&shared->in_flight));
	values[9] = Int64GetDatum(pg_atomic_read_u64(&shared->requests));
	values[10] = Int64GetDatum(pg_atomic_read_u64(&shared->errors));
	values[11] = Int64GetDatum(pg_atomic_read_u64(&shared->restarts));
	values[12] = text_or_null(shared->last_exit, &nulls[12]);
	values[13] = text_or_null(shared->last_error, &nulls[13]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* SQL: a row per GPU the service drives. */
Datum
gpusel_service_devices(PG_FUNCTION_ARGS)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (shared == NULL || pg_atomic_read_u32(&shared->state) != GPUSEL_SERVICE_UP)
		return (Datum) 0;
	for (int d = 0; d < shared->ndevices; d++)
	{
		GpuselServiceDevice *dev = &shared->devices[d];
		Datum		values[5];
		bool		nulls[5] = {0};

		values[0] = Int32GetDatum(d);
		values[1] = text_or_null(dev->name, &nulls[1]);
		values[2] = Int64GetDatum((int64) (dev->total_memory / (1024 * 1024)));
		values[3] = Int32GetDatum(pg_atomic_read_u32(&dev->clients));
		values[4] = Int64GetDatum(pg_atomic_read_u64(&dev->requests));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* SQL: a request the service holds for hold_ms; the GPU the session uses, -1 without one. */
Datum
gpusel_service_ping(PG_FUNCTION_ARGS)
{
	int32		hold_ms = PG_GETARG_INT32(0);

	if (hold_ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hold_ms must not be negative")));
	PG_RETURN_INT32(GpuselServiceTestRequest(GSVC_PING, hold_ms));
}

/* SQL: makes the device process crash or meet a sticky CUDA error. */
Datum
gpusel_service_inject_fault(PG_FUNCTION_ARGS)
{
	char	   *kind = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (strcmp(kind, "crash") == 0)
		(void) GpuselServiceTestRequest(GSVC_FAULT, 1);
	else if (strcmp(kind, "cuda_error") == 0)
		(void) GpuselServiceTestRequest(GSVC_FAULT, 2);
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown fault \"%s\"", kind),
				 errhint("Use \"crash\" or \"cuda_error\".")));
	PG_RETURN_VOID();
}
