/*
 * gpusel.c
 *	  Entry point of the gpusel extension: each module's setup, called once
 *	  when the library is loaded.  Nothing here touches the GPU; a backend
 *	  probes it on first use.
 */
#include "postgres.h"

#include "fmgr.h"

#include "cache.h"
#include "device.h"
#include "groupagg.h"
#include "guc.h"
#include "percentile_builtins.h"
#include "scan_plan.h"
#include "service.h"
#include "shard.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Loads gpusel: parameters first, then the modules that read them. */
void
_PG_init(void)
{
	GpuselGucInit();
	GpuselServiceInit();
	GpuselCacheInit();
	GpuselDeviceInit();
	GpuselScanInit();
	GroupAggPlanInit();
	GroupAggScanInit();
	GpuselPercentileBuiltinsInit();
	ShardPlanInit();
	ShardExecInit();
}
