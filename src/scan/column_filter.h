/*
 * column_filter.h
 *	  The CPU's columnar filter: comparisons of a column with a constant,
 *	  evaluated over a batch's columns in a tight loop per qual instead of
 *	  through the executor row by row.
 *
 * A qual of the form <column> <op> <constant> (op one of < <= = >= > of the
 * column type's default btree family, column and constant of the same type
 * with an order-preserving key mapping) compares keys: the keys order as
 * PostgreSQL orders the values (NaN largest, -0 equal to +0), so the
 * comparison gives PostgreSQL's answer, and it never raises an error.
 */
#ifndef GPUSEL_COLUMN_FILTER_H
#define GPUSEL_COLUMN_FILTER_H

#include "postgres.h"

#include "nodes/pg_list.h"

#include "qual_compile.h"
#include "scan_pages.h"

typedef struct ColumnFilter ColumnFilter;

extern ColumnFilter *ColumnFilterCreate(List *quals, const GpuselProgram *prog,
										List **rest);
extern int64 ColumnFilterApply(ColumnFilter *filter, const GpuselStaging *staging,
							   int64 nrows, uint32 *positions);

#endif							/* GPUSEL_COLUMN_FILTER_H */
