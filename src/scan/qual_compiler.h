/*
 * qual_compiler.h
 *	  The predicate compiler's state and emitters, shared by the files that
 *	  compile parts of a WHERE clause (qual_compile.c, qual_emit.c,
 *	  qual_numeric_compile.c, qual_numeric_wide.c).
 *	  Not used outside the compiler.
 */
#ifndef GPUSEL_QUAL_COMPILER_H
#define GPUSEL_QUAL_COMPILER_H

#include "qual_compile.h"

/* One compilation: the program being written and where it stands. */
typedef struct QualCompiler
{
	GpuselProgram *prog;
	Index		relid;			/* Vars must belong to it; 0 accepts any */
	Oid			marker;			/* gpu_filter's OID, or InvalidOid */
	int			depth;			/* values on the stack now */
	bool		failed;			/* something is not on the allow-list */
	int			fit_scale;		/* the scale unconstrained numeric columns travel at */
} QualCompiler;

/* qual_emit.c */
extern int	GpuselQualKindOfType(Oid typid);
extern int	GpuselQualEmit(QualCompiler *qc, int op, int kind, int kind2, int arg, int arg2,
						   int pops, int pushes);
extern int	GpuselQualNewConst(QualCompiler *qc);
extern int	GpuselQualColumn(QualCompiler *qc, AttrNumber attno, gs_coltype t, int form,
							 int form_arg);
extern bool GpuselQualVarIsOurs(QualCompiler *qc, Var *var);
extern int	GpuselQualCompileVar(QualCompiler *qc, Var *var);
extern int	GpuselQualCompareWithBound(QualCompiler *qc, int opcode, int kind, Datum bound);
extern void GpuselQualEmitRangeGuard(QualCompiler *qc, int kind, int64 lo, int64 hi);

/* qual_compile.c */
extern int	GpuselQualCompileExpr(QualCompiler *qc, Expr *expr);

/* qual_numeric_compile.c */
extern int	GpuselQualCompileNumericComparison(QualCompiler *qc, int opcode, List *args);

/* qual_numeric_wide.c */
extern bool GpuselQualCompileWideComparison(QualCompiler *qc, int opcode, Expr *left,
											Expr *right, int *result);

#endif							/* GPUSEL_QUAL_COMPILER_H */
