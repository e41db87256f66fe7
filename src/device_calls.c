/*
 * device_calls.c
 *	  The table of cuda/'s calls run in this process (device_calls.h), and
 *	  the pointer every caller goes through.  _PG_init points it at the GPU
 *	  service's table when the service runs.
 */
#include "postgres.h"

#include "device_calls.h"

/* A process's own context keeps no memory for other processes: no resident copies. */
static gs_status
local_resident_create(uint64_t *handle, int key, uint64_t bytes, char *errbuf, size_t errlen)
{
	*handle = 0;
	snprintf(errbuf, errlen, "device-resident columns need the GPU service");
	return GS_NO_DEVICE;
}

static gs_status
local_resident_write(uint64_t handle, uint64_t offset, const void *src, uint64_t bytes,
					 char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "device-resident columns need the GPU service");
	return GS_NO_DEVICE;
}

static gs_status
local_resident_write_pieces(uint64_t handle, int n, const uint64_t *offsets,
							const void *const *srcs, const uint64_t *bytes,
							char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "device-resident columns need the GPU service");
	return GS_NO_DEVICE;
}

static gs_status
local_resident_repack(uint64_t handle, uint64_t bytes, int nmoves, const int64_t *moves,
					  char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "device-resident columns need the GPU service");
	return GS_NO_DEVICE;
}

static void
local_resident_destroy(uint64_t handle)
{
}

static gs_status
local_filter_submit_resident(gs_filter *filter, int slot, int64_t nrows, uint64_t handle,
							 const int64_t *offsets, char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "device-resident columns need the GPU service");
	return GS_NO_DEVICE;
}

const GpuselDeviceCalls GpuselLocalDeviceCalls = {
	.name = "this process",
	.probe = gs_probe,
	.memory_in_use = gs_device_memory_in_use,
	.host_alloc = gs_host_alloc,
	.host_free = gs_host_free,
	.select_keys = gs_select_keys,
	.pairs_create = gs_pairs_create,
	.pairs_append = gs_pairs_append,
	.pairs_count = gs_pairs_count,
	.pairs_read = gs_pairs_read,
	.pairs_sort_pick = gs_pairs_sort_pick,
	.pairs_select = gs_pairs_select,
	.pairs_destroy = gs_pairs_destroy,
	.sort_by_group = gs_sort_by_group,
	.sort_by_group_pick = gs_sort_by_group_pick,
	.filter_create = gs_filter_create_ex,
	.filter_values = gs_filter_values,
	.filter_nulls = gs_filter_nulls,
	.filter_ship_columns = gs_filter_ship_columns,
	.filter_submit = gs_filter_submit,
	.filter_wait = gs_filter_wait,
	.filter_positions = gs_filter_positions,
	.filter_destroy = gs_filter_destroy,
	.groups_create = gs_batch_groups_create,
	.groups_find = gs_batch_groups_find,
	.groups_set_transforms = gs_batch_groups_set_transforms,
	.groups_add = gs_batch_groups_add,
	.groups_sum = gs_batch_groups_sum,
	.groups_destroy = gs_batch_groups_destroy,
	.sums_create = gs_batch_sums_create,
	.sums_run = gs_batch_sums_run,
	.sums_destroy = gs_batch_sums_destroy,
	.resident_create = local_resident_create,
	.resident_write = local_resident_write,
	.resident_write_pieces = local_resident_write_pieces,
	.resident_repack = local_resident_repack,
	.resident_destroy = local_resident_destroy,
	.filter_submit_resident = local_filter_submit_resident,
};

const GpuselDeviceCalls *GpuselDev = &GpuselLocalDeviceCalls;
