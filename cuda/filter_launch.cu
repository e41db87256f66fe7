/*
 * filter_launch.cu
 *	  The device filter's dispatcher: enqueues a batch's predicate fused
 *	  into the compaction (compact.cuh), on the range path for "column op
 *	  constant" over 16-byte-aligned columns, otherwise on the interpreter
 *	  (predicate.cuh).  Every kernel of the filter is instantiated here.
 */
#include <stdint.h>
#include <string.h>

#include "filter_internal.cuh"

/* Runs the range path for column type T. */
template <typename T>
static cudaError_t
gs_launch_range(const gs_filter *f, const gs_dcolumn *c, long long n,
				uint32_t *d_positions, const gs_compact_workspace *ws,
				cudaStream_t stream)
{
	if (c->nulls != NULL)
	{
		gs_range_predicate<T, true> p;

		p.values = (const T *) c->values;
		p.nulls = c->nulls;
		p.lo = (typename gs_range_predicate<T, true>::K) f->range_lo;
		p.hi = (typename gs_range_predicate<T, true>::K) f->range_hi;
		p.invert = f->range_invert;
		p.stack_slots = 0;
		return gs_compact_run(p, n, d_positions, ws, f->num_sms, stream);
	}
	else
	{
		gs_range_predicate<T, false> p;

		p.values = (const T *) c->values;
		p.nulls = NULL;
		p.lo = (typename gs_range_predicate<T, false>::K) f->range_lo;
		p.hi = (typename gs_range_predicate<T, false>::K) f->range_hi;
		p.invert = f->range_invert;
		p.stack_slots = 0;
		return gs_compact_run(p, n, d_positions, ws, f->num_sms, stream);
	}
}

/*
 * Enqueues predicate + compaction over the columns in 'cols' (host array
 * of device pointers).  Picks the range path when allowed; the interpreter
 * reads the table from device memory, uploaded only when it changed (the
 * caller guarantees no earlier copy from h_table is still in flight).
 */
gs_status
gs_launch_slot(gs_filter *f, gs_slot *s, const gs_dcolumn *cols, long long nrows,
			   uint32_t *d_positions, cudaStream_t stream, char *errbuf, size_t errlen)
{
	cudaError_t e;

	if (f->path == GS_FILTER_PATH_RANGE && !f->force_interpreter &&
		((uintptr_t) cols[f->range_col].values % 16) == 0 &&
		((uintptr_t) cols[f->range_col].nulls % 8) == 0)
	{
		const gs_dcolumn *c = &cols[f->range_col];

		switch (f->coltypes[f->range_col])
		{
			case GS_COL_INT2:
				e = gs_launch_range<int16_t>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			case GS_COL_INT4:
				e = gs_launch_range<int32_t>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			case GS_COL_INT8:
				e = gs_launch_range<int64_t>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			case GS_COL_FLOAT4:
				e = gs_launch_range<float>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			default:
				e = gs_launch_range<double>(f, c, nrows, d_positions, &s->ws, stream);
				break;
		}
	}
	else
	{
		gs_program_predicate p;

		p.code = f->d_code;
		p.consts = f->d_consts;
		p.cols = s->d_table;
		p.ncode = f->ncode;
		p.stack_slots = f->stack_slots;
		e = cudaSuccess;
		if (f->ncols > 0 && nrows > 0 &&
			(!s->table_valid || memcmp(s->h_table, cols, f->ncols * sizeof(gs_dcolumn)) != 0))
		{
			memcpy(s->h_table, cols, f->ncols * sizeof(gs_dcolumn));
			s->table_valid = 0;
			e = cudaMemcpyAsync(s->d_table, s->h_table, f->ncols * sizeof(gs_dcolumn),
								cudaMemcpyHostToDevice, stream);
			s->table_valid = e == cudaSuccess;
		}
		if (e == cudaSuccess)
			e = gs_compact_run(p, nrows, d_positions, &s->ws, f->num_sms, stream);
	}
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "launching the filter kernels", errbuf, errlen);
	return GS_OK;
}
