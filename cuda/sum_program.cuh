/*
 * sum_program.cuh
 *	  A sum's program as the device runs it (gs_sum_expr with its columns
 *	  resolved to a batch's arrays) and the 128-bit partial sums, shared by
 *	  the whole-batch sums (batchsum.cu) and the sums per key (groupsum.cu).
 */
#ifndef GPUSEL_SUM_PROGRAM_CUH
#define GPUSEL_SUM_PROGRAM_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpusel_filter.h"
#include "gs_internal.cuh"

/*
 * One sum's program: its steps, a column step's col being an index into
 * the program's own columns, resolved to the batch's arrays.
 */
struct GsSumProgram
{
	int			ncode;
	gs_num_step code[GS_SUM_MAX_CODE];
	const void *values[GS_SUM_MAX_CODE];
	const uint8_t *nulls[GS_SUM_MAX_CODE];
	uint8_t		has_nulls[GS_SUM_MAX_CODE];
	uint8_t		widths[GS_SUM_MAX_CODE];	/* bytes of each column's values */
};

/* Every sum's program, passed by value to a kernel. */
struct GsSumPrograms
{
	int			nexprs;
	GsSumProgram prog[GS_SUM_MAX_EXPRS];
};

/*
 * Checks exprs[0 .. nexprs-1] and resolves their columns against the
 * batch into out; false with a message when one is malformed or reads a
 * column the device does not hold as int2, int4 or int8.
 */
bool		gs_sum_programs_resolve(const gs_sum_expr *exprs, int nexprs, const gs_device_batch *b,
									GsSumPrograms *out, const char *caller,
									char *errbuf, size_t errlen);

#endif							/* GPUSEL_SUM_PROGRAM_CUH */
