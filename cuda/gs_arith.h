/*
 * gs_arith.h
 *	  The arithmetic operators, one vocabulary for every program and
 *	  expression of gpusel that computes: the device filter's predicate
 *	  programs (gs_opcode in gpusel_filter.h: GS_OP_ADD is
 *	  GS_OP_OF_ARITH(GS_ARITH_ADD), and so on), the numeric step programs of
 *	  numeric_core.h (the device's batch sums and the grouped scan's numeric
 *	  expressions), and the grouped scan's integer expressions.  Plain C, no
 *	  PostgreSQL headers.
 *
 * Every user computes PostgreSQL's result for its type; which operators it
 * takes, and how it reports an error or a value it cannot hold, are its own
 * and are described where it is.
 */
#ifndef GPUSEL_GS_ARITH_H
#define GPUSEL_GS_ARITH_H

/* The operators, in the order the device filter's opcodes keep them. */
typedef enum gs_arith_op
{
	GS_ARITH_ADD = 0,			/* a + b */
	GS_ARITH_SUB,				/* a - b */
	GS_ARITH_MUL,				/* a * b */
	GS_ARITH_DIV,				/* a / b; integers truncate toward zero, and a zero
								 * divisor or MIN / -1 is an error */
	GS_ARITH_MOD,				/* a % b, integers only: the sign of a; a zero divisor
								 * is an error, MIN % -1 is 0 */
	GS_ARITH_NEG,				/* -a, the one unary operator; an integer MIN overflows */
	GS_ARITH_COUNT
} gs_arith_op;

/* Whether an operator takes two operands. */
#define GS_ARITH_IS_BINARY(op)	((unsigned int) (op) < (unsigned int) GS_ARITH_NEG)

#endif							/* GPUSEL_GS_ARITH_H */
