/*
 * qual_emit.c
 *	  The predicate compiler's emitters: instructions, constants, columns
 *	  and Vars written into a gs_program, for the compiler's dispatch
 *	  (qual_compile.c) and the files that compile numeric and date/time
 *	  comparisons (qual_numeric_compile.c, qual_numeric_wide.c), which call
 *	  only these and never the dispatch.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "utils/date.h"
#include "utils/timestamp.h"

#include "qual_compile.h"
#include "qual_compiler.h"

/* Converts a value of a deviceable SQL type into a program constant. */
void
GpuselDatumToConst(Datum value, bool isnull, Oid typid, gs_const *out)
{
	gs_coltype	t = GS_COL_INT8;

	memset(out, 0, sizeof(*out));
	if (isnull)
	{
		out->isnull = 1;
		return;
	}
	if (!GpuselTypeIsDeviceable(typid, &t))
		elog(ERROR, "gpusel: type %u has no device representation", typid);
	switch (t)
	{
		case GS_COL_BOOL:
			out->v.i = DatumGetBool(value) ? 1 : 0;
			break;
		case GS_COL_INT2:
			out->v.i = DatumGetInt16(value);
			break;
		case GS_COL_INT4:
			out->v.i = DatumGetInt32(value);
			break;
		case GS_COL_INT8:
			out->v.i = DatumGetInt64(value);
			break;
		case GS_COL_FLOAT4:
			/* exact: the device rounds back to the same float */
			out->v.f = (double) DatumGetFloat4(value);
			break;
		case GS_COL_FLOAT8:
			out->v.f = DatumGetFloat8(value);
			break;
	}
}

/* Appends one instruction; pops and pushes keep the stack depth. */
int
GpuselQualEmit(QualCompiler *qc, int op, int kind, int kind2, int arg, int arg2,
	 int pops, int pushes)
{
	GpuselProgram *p = qc->prog;
	gs_instr   *ins;

	if (qc->failed || p->ncode >= GS_MAX_PROGRAM_LENGTH)
	{
		qc->failed = true;
		return -1;
	}
	ins = &p->code[p->ncode];
	ins->op = (int16_t) op;
	ins->kind = (int16_t) kind;
	ins->kind2 = (int16_t) kind2;
	ins->pad = 0;
	ins->arg = arg;
	ins->arg2 = arg2;
	qc->depth += pushes - pops;
	if (qc->depth > GS_MAX_STACK)
		qc->failed = true;
	if (qc->depth > p->max_stack)
		p->max_stack = qc->depth;
	return p->ncode++;
}

/* Reserves a constant slot; -1 when the program has no room left. */
int
GpuselQualNewConst(QualCompiler *qc)
{
	GpuselProgram *p = qc->prog;

	if (p->nconsts >= GS_MAX_PROGRAM_CONSTS)
	{
		qc->failed = true;
		return -1;
	}
	memset(&p->consts[p->nconsts], 0, sizeof(gs_const));
	return p->nconsts++;
}

/* The device kind of a SQL type, or -1. */
int
GpuselQualKindOfType(Oid typid)
{
	gs_coltype	t;

	if (!GpuselTypeIsDeviceable(typid, &t))
		return -1;
	return (int) t;				/* gs_coltype and gs_valkind share numbering */
}

/*
 * The device column holding attribute attno in the given form, added to
 * the program if it has none yet; -1 (and a failed compilation) without
 * room.  One attribute may travel in several forms (a numeric compared as
 * 128-bit halves and taken into arithmetic where it fits).
 */
int
GpuselQualColumn(QualCompiler *qc, AttrNumber attno, gs_coltype t, int form, int form_arg)
{
	GpuselProgram *p = qc->prog;
	int			col;

	for (col = 0; col < p->ncols; col++)
		if (p->attnos[col] == attno && p->form[col] == form && p->form_arg[col] == form_arg)
			return col;
	if (p->ncols >= GS_MAX_PROGRAM_LENGTH)
	{
		qc->failed = true;
		return -1;
	}
	p->attnos[col] = attno;
	p->coltypes[col] = t;
	p->form[col] = (uint8) form;
	p->form_arg[col] = (int16) form_arg;
	p->ncols++;
	return col;
}

/* Whether a Var is a column of the relation being compiled for. */
bool
GpuselQualVarIsOurs(QualCompiler *qc, Var *var)
{
	return var->varlevelsup == 0 && var->varattno > 0 &&
		(qc->relid == 0 || var->varno == qc->relid);
}

/*
 * Pushes a column of the scanned relation: one of the device types, a
 * numeric(p,s) column that fits the device as scaled int8, or another
 * numeric column as scaled int8 where its values fit, behind a range guard
 * that sends a batch holding a value that does not to the executor
 * (qual_numeric.c).
 */
int
GpuselQualCompileVar(QualCompiler *qc, Var *var)
{
	GpuselFormChoice choice;
	int			col;

	if (!GpuselQualVarIsOurs(qc, var) ||
		!GpuselChooseForm(var->vartype, var->vartypmod, var->varcollid, GPUSEL_USE_QUAL,
						  qc->fit_scale, &choice))
	{
		qc->failed = true;
		return -1;
	}
	col = GpuselQualColumn(qc, var->varattno, choice.coltype, choice.form, choice.arg);
	if (col < 0)
		return -1;
	GpuselQualEmit(qc, GS_OP_COLUMN, (int) choice.coltype, 0, col, 0, 0, 1);
	/* every stand-in but the one of a value that does not fit compares as it is */
	if (GpuselFormLookup(choice.form)->range_guarded)
		GpuselQualEmitRangeGuard(qc, GS_VK_INT8, GPUSEL_NUMERIC_UNFIT + 1, PG_INT64_MAX);
	return (int) choice.coltype;
}

/*
 * Compares the value on top of the stack, of kind 'kind' (int4 or int8),
 * with a constant of that kind that the compiler worked out (a bound).
 */
int
GpuselQualCompareWithBound(QualCompiler *qc, int opcode, int kind, Datum bound)
{
	int			slot = GpuselQualNewConst(qc);

	if (slot < 0)
		return -1;
	GpuselDatumToConst(bound, false, kind == GS_VK_INT4 ? INT4OID : INT8OID,
					   &qc->prog->consts[slot]);
	GpuselQualEmit(qc, GS_OP_CONST, kind, 0, slot, 0, 0, 1);
	GpuselQualEmit(qc, opcode, kind, 0, 0, 0, 2, 1);
	return qc->failed ? -1 : GS_VK_BOOL;
}

/*
 * Raises a row error for an integer of kind 'kind' on top outside lo .. hi
 * (GS_OP_RANGE_GUARD): the executor then evaluates the batch.  The value
 * stays on the stack.
 */
void
GpuselQualEmitRangeGuard(QualCompiler *qc, int kind, int64 lo, int64 hi)
{
	Oid			typid = kind == GS_VK_INT4 ? INT4OID : INT8OID;
	int			lo_slot = GpuselQualNewConst(qc);
	int			hi_slot = GpuselQualNewConst(qc);

	if (qc->failed)
		return;
	GpuselDatumToConst(kind == GS_VK_INT4 ? Int32GetDatum((int32) lo) : Int64GetDatum(lo),
					   false, typid, &qc->prog->consts[lo_slot]);
	GpuselDatumToConst(kind == GS_VK_INT4 ? Int32GetDatum((int32) hi) : Int64GetDatum(hi),
					   false, typid, &qc->prog->consts[hi_slot]);
	GpuselQualEmit(qc, GS_OP_RANGE_GUARD, kind, 0, lo_slot, hi_slot, 1, 1);
}
