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

#include "gpusel_filter.h"

/*
 * How a batch column holds values that are not their stored bytes, as
 * int8: a numeric(p,s) column as v * 10^s (form_arg s, qual_numeric.c), a
 * char(n) column of at most 7 bytes as its bytes packed (form_arg n,
 * column_form.c), and a numeric column whose values need not fit 18 digits
 * (wider or unconstrained) as v * 10^s where v fits and a stand-in that
 * sends the batch to the executor where it does not (form_arg s; device
 * quals only, qual_numeric.c), and a numeric(p,s) column of 19 to 38
 * digits as the 128-bit v * 10^s in two int8 columns, its high and low
 * halves, next to each other (form_arg s; device comparisons only,
 * qual_numeric_wide.c), and a date column as its midnight in the session's
 * TimeZone, a timestamptz, to compare with timestamptz values the device
 * computes (qual_datetime.c).
 */
typedef enum GpuselColumnForm
{
	GPUSEL_FORM_PLAIN = 0,
	GPUSEL_FORM_NUMERIC,
	GPUSEL_FORM_SHORT_CHAR,
	GPUSEL_FORM_NUMERIC_FIT,
	GPUSEL_FORM_NUMERIC_WIDE_HI,
	GPUSEL_FORM_NUMERIC_WIDE_LO,
	GPUSEL_FORM_DATE_TIMESTAMPTZ
} GpuselColumnForm;

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

	/* a column whose batch values are not its stored bytes (GpuselColumnForm) */
	uint8		form[GS_MAX_PROGRAM_LENGTH];
	int16		form_arg[GS_MAX_PROGRAM_LENGTH];

	/* constants filled in at scan start: consts[param_slots[i]] = param_exprs[i] */
	int			nparams;
	int			param_slots[GS_MAX_PROGRAM_CONSTS];
	Expr	   *param_exprs[GS_MAX_PROGRAM_CONSTS];
} GpuselProgram;

#endif							/* GPUSEL_QUAL_PROGRAM_H */
