/*
 * qual_numeric.h
 *	  Comparisons of numeric columns on the device: with constants as
 *	  integer bounds (qual_numeric.c), and 128-bit halves compared as pairs
 *	  (qual_numeric_wide.c).  The forms themselves are in types/numeric_form.h.
 */
#ifndef GPUSEL_QUAL_NUMERIC_H
#define GPUSEL_QUAL_NUMERIC_H

#include "postgres.h"

#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

#include "gs_arith.h"

#include "numeric_form.h"

extern int	GpuselNumericConstsScale(List *quals);
extern void GpuselNumericBound(int opcode, Datum constant, int scale,
							   int *out_opcode, int64 *bound);
extern int	GpuselNumericComparison(Oid funcid);
extern bool GpuselNumericArith(Expr *expr, gs_arith_op *op, List **args);
extern int	GpuselCommuteOpcode(int opcode);

#endif							/* GPUSEL_QUAL_NUMERIC_H */
