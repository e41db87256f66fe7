/*
 * filter_testhooks.cu
 *	  Internal entry points of the device filter for the kernel tests and
 *	  benchmarks (declared in predicate.cuh, C++ linkage, not part of the C
 *	  interface): which path a filter takes, forcing the interpreter, and
 *	  running a filter's program on columns already on the device.
 */
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "filter_internal.cuh"

gs_filter_path
gs_filter_get_path(const gs_filter *f)
{
	return f->path;
}

void
gs_filter_force_interpreter(gs_filter *f, int on)
{
	f->force_interpreter = on != 0;
}

gs_status
gs_filter_launch(gs_filter *f, int slot, const gs_dcolumn *cols, int64_t nrows,
				 uint32_t *d_positions, cudaStream_t stream, char *errbuf, size_t errlen)
{
	gs_slot    *s;

	if (f == NULL || slot < 0 || slot >= f->nslots || nrows < 0 || nrows > f->max_rows ||
		(cols == NULL && f->ncols > 0) || ((uintptr_t) d_positions % 16) != 0)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad launch arguments");
	s = &f->slots[slot];
	if (s->pending)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d has a batch pending", slot);
	/* A new table may overwrite h_table/d_table while an earlier launch, on any stream, still reads them. */
	if (f->ncols > 0 && (!s->table_valid || memcmp(s->h_table, cols, f->ncols * sizeof(gs_dcolumn)) != 0))
	{
		cudaError_t e = cudaDeviceSynchronize();

		if (e != cudaSuccess)
			return gs_cuda_fail(e, "synchronising the device", errbuf, errlen);
	}
	return gs_launch_slot(f, s, cols, nrows, d_positions, stream, errbuf, errlen);
}

const gs_compact_result *
gs_filter_device_result(const gs_filter *f, int slot)
{
	return f->slots[slot].ws.result;
}
