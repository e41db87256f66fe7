/*
 * qual_program.h
 *	  A compiled device program and the forms in which its columns travel:
 *	  what the predicate compiler (qual_compile.c, qual_emit.c) writes and
 *	  the scan, the page reader and the grouped scan read.
 */
#ifndef GPUSEL_QUAL_PROGRAM_H
#define GPUSEL_QUAL_PROGRAM_H

#include "postgres.h"

#include "nodes/primnodes.h"

#include "column_form.h"
#include "gpusel_filter.h"

/* A compiled device program with the columns and parameters it reads. */
typedef struct GpuselProgram
{
	gs_instr	code[GS_MAX_PROGRAM_LENGTH];
	int			ncode;
	gs_const	consts[GS_MAX_PROGRAM_CONSTS];
	int			nconsts;
	int			max_stack;

	/* device column c holds attribute attnos[c] of physical type coltypes[c] */
	int			ncols;
	AttrNumber	attnos[GS_MAX_PROGRAM_LENGTH];
	gs_coltype	coltypes[GS_MAX_PROGRAM_LENGTH];

	/* how each column travels (GpuselColumnForm, types/column_form.h) */
	uint8		form[GS_MAX_PROGRAM_LENGTH];
	int16		form_arg[GS_MAX_PROGRAM_LENGTH];

	/* constants filled in at scan start: consts[param_slots[i]] = param_exprs[i] */
	int			nparams;
	int			param_slots[GS_MAX_PROGRAM_CONSTS];
	Expr	   *param_exprs[GS_MAX_PROGRAM_CONSTS];
} GpuselProgram;

#endif							/* GPUSEL_QUAL_PROGRAM_H */
