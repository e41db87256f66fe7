/*
 * qual_compile.h
 *	  Which WHERE clauses the device can evaluate, and their translation into
 *	  a gs_program (cuda/gpusel_filter.h).
 *
 * The planner asks GpuselQualIsDeviceable clause by clause; the executor
 * compiles the chosen clauses once per scan with GpuselCompileQuals.  Both
 * run the same walker, so a clause the planner accepted always compiles.
 */
#ifndef GPUSEL_QUAL_COMPILE_H
#define GPUSEL_QUAL_COMPILE_H

#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "utils/date.h"

#include "gpusel_filter.h"
#include "column_form.h"
#include "qual_numeric.h"
#include "qual_program.h"

/* filter_sql.c: the OID of gpu_filter(bool), InvalidOid without the extension */
extern Oid	GpuselFilterFuncOid(void);

extern bool GpuselQualIsDeviceable(Expr *clause, Index relid);
extern bool GpuselExprHasMarker(Node *node);
extern Expr *GpuselStripMarker(Expr *clause);
extern GpuselProgram *GpuselCompileQuals(List *quals, Index relid);
extern bool GpuselProgramCanError(const GpuselProgram *prog);
extern bool GpuselArithOperator(Oid funcid, gs_arith_op *op, int *kind);
extern void GpuselDatumToConst(Datum value, bool isnull, Oid typid,
							   gs_const *out);

/* columns whose batch values do not decode back to their values */
extern bool GpuselProgramHasUndecodableColumns(const GpuselProgram *prog);
extern bool GpuselQualsReadUndecodableColumns(List *quals, Index relid);

/* qual_datetime.c */
extern bool GpuselDateTimestampBound(Oid funcid, List *args, int *date_arg,
									 int *opcode, int32 *bound);
extern bool GpuselDateTimestampOp(Oid funcid, int *date_arg, int *opcode);
extern bool GpuselTimestampDateBound(Oid funcid, List *args, int *ts_arg, int *opcode,
									 int64 *bound);
extern bool GpuselDateTimestamptzOp(Oid funcid, int *date_arg, int *opcode);

#endif							/* GPUSEL_QUAL_COMPILE_H */
