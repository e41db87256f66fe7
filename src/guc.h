/*
 * guc.h
 *	  gpusel's configuration parameters, all under the "gpusel." prefix.
 */
#ifndef GPUSEL_GUC_H
#define GPUSEL_GUC_H

/* Where work may run: gpusel.device. */
typedef enum GpuselDeviceMode
{
	GPUSEL_DEVICE_AUTO,			/* the GPU when usable and the input is large enough */
	GPUSEL_DEVICE_GPU,			/* always the GPU; error when none is usable */
	GPUSEL_DEVICE_CPU			/* never the GPU */
} GpuselDeviceMode;

extern int	gpusel_device_mode;
extern int	gpusel_min_rows;
extern bool gpusel_enable_scan;
extern bool gpusel_enable_groupagg;
extern bool gpusel_enable_group_order;
extern bool gpusel_enable_parallel_second_pass;
extern bool gpusel_enable_parallel;
extern int	gpusel_batch_rows;
extern double gpusel_device_setup_cost;
extern bool gpusel_explain_device_details;
extern bool gpusel_group_on_device;
extern bool gpusel_plan_as_gpu;
extern bool gpusel_force_groupagg;
extern bool gpusel_enable_shards;
extern int	gpusel_shard_fetch_keys;
extern int	gpusel_shard_round_fractions;
extern bool gpusel_replace_builtin_percentiles;
extern bool gpusel_service_enabled;
extern int	gpusel_service_staging_mb;
extern int	gpusel_service_max_requests;
extern int	gpusel_service_buffer_pool_mb;
extern int	gpusel_cache_refresh_naptime_s;
extern double gpusel_cache_refresh_threshold;
extern int	gpusel_cache_memory_mb;
extern int	gpusel_cache_device_memory_mb;

extern void GpuselGucInit(void);

#endif							/* GPUSEL_GUC_H */
