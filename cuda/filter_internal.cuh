/*
 * filter_internal.cuh
 *	  What the files of the device WHERE filter share; not part of the C
 *	  interface (gpusel_filter.h).  One file per job:
 *
 *	    filter_verify.cu     checks a predicate program and compiles it to
 *	                         device instructions; spots "column op constant"
 *	    filter_launch.cu     enqueues the predicate and the compaction over
 *	                         a batch: the range path or the interpreter
 *	    filter_slots.cu      the filter's life: creation and destruction,
 *	                         the page-locked staging slots with their
 *	                         streams and events, submit and wait
 *	    filter_testhooks.cu  internal entry points for the kernel tests and
 *	                         benchmarks (declared in predicate.cuh)
 */
#ifndef GPUSEL_FILTER_INTERNAL_CUH
#define GPUSEL_FILTER_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "gpusel_filter.h"
#include "gs_internal.cuh"
#include "filter_tuning.cuh"
#include "compact.cuh"
#include "predicate.cuh"

/* Positions and counts are uint32: keep a batch below 2^32 rows. */
#define GS_FILTER_MAX_ROWS (0xffffffffLL - GS_FILTER_GROUP_ROWS)

/* One staging slot: the host fills it while the device works on the other. */
typedef struct gs_slot
{
	cudaStream_t stream;
	cudaEvent_t ev_start;		/* before the first copy; in a wait, before the positions copy */
	cudaEvent_t ev_done;		/* after the count came back */
	cudaEvent_t ev_end;			/* after the positions came back */
	void	  **h_values;		/* pinned, every column */
	uint8_t   **h_nulls;		/* pinned, every column */
	void	  **d_values;		/* device, referenced columns only */
	uint8_t   **d_nulls;
	void	  **cur_values;		/* the columns the last batch read: d_values or cached device columns */
	gs_dcolumn *h_table;		/* pinned column table for the interpreter */
	gs_dcolumn *d_table;		/* its device copy, uploaded when it changes */
	gs_dcolumn *next_table;		/* host scratch: the table a submit wants */
	int			table_valid;	/* d_table holds h_table's contents */
	uint32_t   *d_positions;
	uint32_t   *h_positions;	/* pinned */
	gs_compact_result *h_result;	/* pinned */
	gs_compact_workspace ws;
	long long	nrows;
	long long	npass;			/* rows passed, once waited for; -1 before */
	int			positions_on_host;	/* h_positions holds the waited-for batch's positions */
	unsigned long long submits;	/* batches submitted to the slot so far */
	int			pending;		/* submitted, not yet waited for */
} gs_slot;

/* A filter: its columns, its compiled program, the path it runs on and its slots. */
struct gs_filter
{
	int			ncols;
	gs_coltype *coltypes;
	unsigned char *col_used;
	long long	max_rows;		/* rows of a batch, and of its positions */
	long long	staging_rows;	/* rows of a batch that goes through staging */
	int			nslots;
	int			num_sms;

	/* compiled program */
	int			ncode;
	int			stack_slots;
	gs_dinstr  *d_code;
	gs_const   *d_consts;

	/* "column op constant" as a range test (path == GS_FILTER_PATH_RANGE) */
	gs_filter_path path;
	int			force_interpreter;
	int			range_col;
	long long	range_lo;
	long long	range_hi;
	int			range_invert;

	gs_slot		slots[2];
};

/* Writes a message into errbuf (if any) and returns st (filter_slots.cu). */
gs_status	gs_fail(gs_status st, char *errbuf, size_t errlen, const char *fmt, ...)
			__attribute__((format(printf, 4, 5)));

/* Maps a CUDA error to a status and a message naming what failed (filter_slots.cu). */
gs_status	gs_cuda_fail(cudaError_t e, const char *what, char *errbuf, size_t errlen);

/*
 * Checks the program and writes its device instructions; sets col_used[c]
 * for every referenced column (filter_verify.cu).
 */
gs_status	gs_compile_program(const gs_program *p, int ncols, const gs_coltype *coltypes,
							   gs_dinstr *out, int *max_depth, unsigned char *col_used,
							   char *errbuf, size_t errlen);

/* Chooses f's path: the range test for "column op constant", else the interpreter (filter_verify.cu). */
void		gs_detect_range(gs_filter *f, const gs_program *p);

/*
 * Enqueues predicate + compaction of nrows rows of the columns in 'cols'
 * on 'stream', with slot s's scratch (filter_launch.cu).
 */
gs_status	gs_launch_slot(gs_filter *f, gs_slot *s, const gs_dcolumn *cols, long long nrows,
						   uint32_t *d_positions, cudaStream_t stream, char *errbuf, size_t errlen);

#endif							/* GPUSEL_FILTER_INTERNAL_CUH */
