/*
 * gpusel_filter.h
 *	  C interface of the device-side WHERE filter: a predicate program run
 *	  over columnar batches, followed by order-preserving compaction of the
 *	  positions of the rows where it is true.  No PostgreSQL headers.
 *
 * A predicate is compiled by src/ into a small stack program (gs_instr).
 * Every stack slot holds a value (int64 for integer types, double for float
 * types, 0/1 for bool) and a NULL flag; operators follow SQL's three-valued
 * logic and PostgreSQL's rules.  A row passes when the program leaves a
 * non-NULL true on the stack.  Where PostgreSQL would raise an error for a
 * row it evaluates (integer overflow, division by zero, float overflow), the
 * device marks the batch as failed (GS_ROW_ERROR) and src/ re-evaluates that
 * batch on the CPU, which raises exactly PostgreSQL's error.
 */
#ifndef GPUSEL_FILTER_H
#define GPUSEL_FILTER_H

#include "gpusel_cuda.h"
#include "gs_arith.h"
#include "numeric_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Physical column types the device understands (date is INT4, timestamps INT8). */
typedef enum gs_coltype
{
	GS_COL_BOOL = 0,			/* 1 byte per row, 0 or 1 */
	GS_COL_INT2,
	GS_COL_INT4,
	GS_COL_INT8,
	GS_COL_FLOAT4,
	GS_COL_FLOAT8
} gs_coltype;

/* Bytes per value of a column type, in staging and on the device. */
static inline size_t
gs_coltype_width(int type)
{
	switch (type)
	{
		case GS_COL_BOOL:
			return 1;
		case GS_COL_INT2:
			return 2;
		case GS_COL_INT4:
		case GS_COL_FLOAT4:
			return 4;
		default:
			return 8;
	}
}

/* Value kinds on the evaluation stack. */
typedef enum gs_valkind
{
	GS_VK_BOOL = 0,
	GS_VK_INT2,
	GS_VK_INT4,
	GS_VK_INT8,
	GS_VK_FLOAT4,
	GS_VK_FLOAT8
} gs_valkind;

/* Opcodes.  'kind' in gs_instr selects the typed variant where one applies. */
typedef enum gs_opcode
{
	GS_OP_COLUMN = 0,			/* push column arg (value + null bit), kind = its type */
	GS_OP_CONST,				/* push constant consts[arg] (may be NULL), kind = its type */
	GS_OP_CAST,					/* convert top of stack from kind to kind2 (int widening, int->float, float4->float8) */
	GS_OP_EQ, GS_OP_NE, GS_OP_LT, GS_OP_LE, GS_OP_GT, GS_OP_GE,	/* pop b, a; push a op b; both of 'kind' */

	/*
	 * The arithmetic, one opcode per gs_arith_op (gs_arith.h) from
	 * GS_OP_ARITH on, in its order: binary ones pop b, a and push a op b in
	 * 'kind' with PG's overflow/zero rules; GS_OP_NEG is unary minus in
	 * 'kind' (int overflow on the minimum value).  GS_OP_MOD takes integer
	 * kinds only.
	 */
	GS_OP_ARITH,
	GS_OP_ADD = GS_OP_ARITH + (int) GS_ARITH_ADD,
	GS_OP_SUB = GS_OP_ARITH + (int) GS_ARITH_SUB,
	GS_OP_MUL = GS_OP_ARITH + (int) GS_ARITH_MUL,
	GS_OP_DIV = GS_OP_ARITH + (int) GS_ARITH_DIV,
	GS_OP_MOD = GS_OP_ARITH + (int) GS_ARITH_MOD,
	GS_OP_NEG = GS_OP_ARITH + (int) GS_ARITH_NEG,
	GS_OP_AND = GS_OP_ARITH + (int) GS_ARITH_COUNT,	/* pop arg values, push 3VL AND of them (arg = count >= 2) */
	GS_OP_OR,					/* pop arg values, push 3VL OR of them (arg = count >= 2) */
	GS_OP_NOT,					/* 3VL NOT */
	GS_OP_IS_NULL,				/* push top IS NULL (never NULL) */
	GS_OP_IS_NOT_NULL,
	GS_OP_IS_TRUE,				/* bool tests: IS TRUE / IS NOT TRUE / IS FALSE / IS NOT FALSE */
	GS_OP_IS_NOT_TRUE,
	GS_OP_IS_FALSE,
	GS_OP_IS_NOT_FALSE,
	GS_OP_IN_CONSTS,			/* pop a; = ANY(consts[arg .. arg+arg2-1]) of 'kind', with SQL NULL rules */
	GS_OP_JUMP_IF_FALSE,		/* short-circuit: if top is non-NULL false, jump to arg (leaving it) */
	GS_OP_JUMP_IF_TRUE,			/* if top is non-NULL true, jump to arg (leaving it) */
	GS_OP_JUMP_IF_NOT_TRUE,		/* if top is false or NULL, jump to arg (leaving it): ExecQual's rule between quals */
	GS_OP_RANGE_GUARD,			/* a non-NULL integer top outside consts[arg] .. consts[arg2] raises a row
								 * error (the CPU then evaluates the batch); the value stays */
	GS_OP_COUNT
} gs_opcode;

/* The opcode of an arithmetic operator, and back. */
#define GS_OP_OF_ARITH(a)	(GS_OP_ARITH + (int) (a))
#define GS_OP_IS_ARITH(op)	((op) >= GS_OP_ARITH && (op) < GS_OP_ARITH + (int) GS_ARITH_COUNT)
#define GS_ARITH_OF_OP(op)	((gs_arith_op) ((op) - GS_OP_ARITH))

/* One instruction of a predicate program. */
typedef struct gs_instr
{
	int16_t		op;				/* gs_opcode */
	int16_t		kind;			/* gs_valkind of operands */
	int16_t		kind2;			/* target kind for GS_OP_CAST */
	int16_t		pad;
	int32_t		arg;			/* column index, constant index, count or jump target */
	int32_t		arg2;			/* count for GS_OP_IN_CONSTS */
} gs_instr;

/* A constant of a predicate program. */
typedef struct gs_const
{
	union
	{
		int64_t		i;
		double		f;
	}			v;
	int32_t		isnull;
	int32_t		pad;
} gs_const;

/* A whole predicate program. */
typedef struct gs_program
{
	const gs_instr *code;
	int			ncode;
	const gs_const *consts;
	int			nconsts;
	int			max_stack;		/* deepest stack the program reaches */
} gs_program;

#define GS_MAX_PROGRAM_LENGTH 256
#define GS_MAX_PROGRAM_CONSTS 1024
#define GS_MAX_STACK 32

/* Opaque per-scan filter: device buffers, pinned staging, streams. */
typedef struct gs_filter gs_filter;

/*
 * Creates a filter for batches of up to max_rows rows of ncols columns of
 * the given types, with 'nslots' (1 or 2) staging slots so the host can fill
 * one batch while the device works on another.  Validates the program.
 */
gs_status	gs_filter_create(gs_filter **filter, const gs_program *program,
							 int ncols, const gs_coltype *coltypes,
							 int64_t max_rows, int nslots,
							 char *errbuf, size_t errlen);

/*
 * As gs_filter_create, with staging for only staging_rows (<= max_rows)
 * rows: batches filled through staging hold at most staging_rows rows,
 * batches already in device memory (gs_filter_submit_device) max_rows.
 */
gs_status	gs_filter_create_ex(gs_filter **filter, const gs_program *program,
								int ncols, const gs_coltype *coltypes,
								int64_t max_rows, int64_t staging_rows, int nslots,
								char *errbuf, size_t errlen);

/*
 * Pinned host staging for column 'col' of slot 'slot': the host writes
 * nrows values there (width of the column type) and, in *nulls, one byte
 * per row (1 = NULL).  Valid until gs_filter_destroy.
 */
void	   *gs_filter_values(gs_filter *filter, int slot, int col);
uint8_t    *gs_filter_nulls(gs_filter *filter, int slot, int col);

/*
 * Makes the device copy the columns with cols[col] != 0 as well, though the
 * program does not read them, so that device work after the filter
 * (gs_batch_groups) finds them there.  Before the first submit.
 */
gs_status	gs_filter_ship_columns(gs_filter *filter, const uint8_t *cols,
								   char *errbuf, size_t errlen);

/*
 * Starts the device work on slot 'slot' holding nrows rows (asynchronous:
 * copies, predicate, compaction, copy of the positions back).
 * has_nulls[col] == 0 lets the device skip a column's null bytes.
 */
gs_status	gs_filter_submit(gs_filter *filter, int slot, int64_t nrows,
							 const uint8_t *has_nulls,
							 char *errbuf, size_t errlen);

/* A column of a batch that already lies in device memory. */
typedef struct gs_device_column
{
	const void *values;			/* device; NULL: the batch does not have this column */
	const uint8_t *nulls;		/* device, one byte per row; NULL: no NULLs */
} gs_device_column;

/*
 * As gs_filter_submit, for a batch whose columns already lie in device
 * memory (the column cache's device copy): nothing is copied to the
 * device, the program and the work after it read cols[] in place.  Every
 * column the program reads, or that was shipped, must be given; the
 * memory must stay until the slot is waited for.
 */
gs_status	gs_filter_submit_device(gs_filter *filter, int slot, int64_t nrows,
									const gs_device_column *cols,
									char *errbuf, size_t errlen);

/*
 * Waits for slot 'slot'; on GS_OK *positions points at *count row positions
 * (0-based, ascending) in pinned memory owned by the filter, valid until the
 * slot is submitted again.  With positions NULL they stay on the device
 * (the device's work after the filter reads them there), and
 * gs_filter_positions copies them back when the host needs them.  *row_error is nonzero when some row raised an
 * error the CPU must reproduce.  *device_ms is the device time of the batch.
 */
gs_status	gs_filter_wait(gs_filter *filter, int slot,
						   const uint32_t **positions, int64_t *count,
						   int *row_error, double *device_ms,
						   char *errbuf, size_t errlen);

/* The positions of slot 'slot''s waited-for batch on the host, copied back now if gs_filter_wait left them. */
gs_status	gs_filter_positions(gs_filter *filter, int slot, const uint32_t **positions,
								char *errbuf, size_t errlen);

/* Frees everything the filter owns; safe on NULL and after errors. */
void		gs_filter_destroy(gs_filter *filter);

/*
 * Rows into groups on the device (groupbatch.cu), after a batch is waited
 * for: the distinct values of its group key columns among the passing rows
 * (gs_batch_groups_find), then, once the host has given each a group
 * number, each passing row's (group, key) pair appended to held pairs
 * (gs_batch_groups_add), and sums per distinct key (gs_batch_groups_sum,
 * groupsum.cu).
 */
typedef struct gs_batch_groups gs_batch_groups;

/* Group key columns a batch's rows are grouped by on the device, at most. */
#define GS_GROUP_MAX_KEYS	2

/* One distinct group key of a batch: a value of each key column. */
typedef struct gs_batch_key
{
	uint64_t	bits[GS_GROUP_MAX_KEYS];	/* each column's bytes, zero-extended; 0 for NULL */
	uint32_t	first;			/* its first row, as an index into the passing rows from 'from' */
	uint32_t	isnull;			/* bit c: key column c is NULL */
} gs_batch_key;

/*
 * How a key column's values become a group key: as they are, as
 * <value> <op> <constant> of int4 or int8 computes it in PostgreSQL (the
 * integer operators of gs_arith.h), or floored (GS_KEY_FLOOR).  A row whose operator raises an error
 * there (overflow, a zero divisor) gets a key of its own with
 * GS_BATCH_KEY_ERROR in its isnull: the host computes that batch itself.
 */
typedef struct gs_key_transform
{
	int32_t		op;				/* a binary gs_arith_op, GS_KEY_FLOOR, or -1: the value as it is */
	int32_t		is_int8;		/* int8 operand, constant and result, else int4 */
	int64_t		constant;
} gs_key_transform;

/*
 * A transform's op: the int8 value floored to a multiple of the constant
 * (> 0), its least and greatest values (a timestamp's -infinity and
 * infinity) kept: date_trunc of a timestamp to a unit up to a day.
 */
#define GS_KEY_FLOOR		64

/* In a gs_batch_key's isnull: some row's key transform raised an error. */
#define GS_BATCH_KEY_ERROR	0x80000000u

/* What one distinct key's rows added to the pairs. */
typedef struct gs_batch_tally
{
	uint64_t	rows;			/* passing rows with this key */
	uint64_t	keys;			/* of them, with a non-NULL value: pairs appended */
	uint32_t	zeros;			/* float values: bit 0 a -0 was seen, bit 1 a +0 */
	uint32_t	pad;
} gs_batch_tally;

/* How values become order-preserving keys (as src/percentile/keys.h maps them). */
typedef enum gs_key_kind
{
	GS_KEY_INT32 = 0,			/* int2, int4 (date): 4-byte keys */
	GS_KEY_INT64,				/* int2, int4, int8 (timestamps): 8-byte keys */
	GS_KEY_FLOAT4,				/* float4: 4-byte keys */
	GS_KEY_FLOAT8				/* float4 or float8 as float8: 8-byte keys */
} gs_key_kind;

/* Device and pinned memory for batches of up to max_rows passing rows. */
gs_status	gs_batch_groups_create(gs_batch_groups **groups, int64_t max_rows,
								   char *errbuf, size_t errlen);

/*
 * The distinct values of columns key_cols[0 .. nkey_cols-1] together
 * (columns the device holds: program columns or ones shipped with
 * gs_filter_ship_columns) among the passing rows of slot 'slot' from the
 * from-th on; nkey_cols 0 puts every row under one key.  *keys (pinned,
 * *nkeys entries, in no order) is valid until the next call.
 */
gs_status	gs_batch_groups_find(gs_batch_groups *groups, gs_filter *filter, int slot,
								 int64_t from, int nkey_cols, const int *key_cols,
								 int64_t *nkeys, const gs_batch_key **keys,
								 char *errbuf, size_t errlen);

/*
 * Sets how the key columns of later finds become keys: transforms[c] for
 * key column c (NULL, or nkey_cols 0: every value as it is).
 */
gs_status	gs_batch_groups_set_transforms(gs_batch_groups *groups, int nkey_cols,
										   const gs_key_transform *transforms,
										   char *errbuf, size_t errlen);

/*
 * After gs_batch_groups_find: appends the pair (group_of_key[key], value's
 * key) of each of those rows whose column val_col is not NULL to 'pairs'
 * (key bytes as key_kind gives them; group_of_key ignored without groups)
 * and sets *tally to nkeys tallies, in the order of the keys found.
 */
gs_status	gs_batch_groups_add(gs_batch_groups *groups, gs_filter *filter,
								const uint32_t *group_of_key, int val_col, int key_kind,
								gs_pairs *pairs, const gs_batch_tally **tally,
								char *errbuf, size_t errlen);

/* Distinct keys of a batch that gs_batch_groups_sum sums for, at most. */
#define GS_GROUP_SUM_MAX_KEYS	262144

/* Frees everything; safe on NULL. */
void		gs_batch_groups_destroy(gs_batch_groups *groups);

/*
 * Sums over a filtered batch's passing rows on the device (batchsum.cu),
 * after the batch is waited for: each sum's input is a program of
 * numeric_core.h's steps, exact integer arithmetic over INT8 columns that
 * hold scaled numerics (v * 10^scale; GS_NUMERIC_NAN for NaN) or integers,
 * and over INT4 and INT2 columns (integers, never NaN), evaluated per row
 * in 128 bits as the host evaluates it.  Only the sums cross to the host.
 */
typedef struct gs_batch_sums gs_batch_sums;

#define GS_SUM_MAX_CODE		GS_NUM_MAX_STEPS
#define GS_SUM_MAX_EXPRS	8

/* One sum's program: a column step's col is an INT8, INT4 or INT2 column the device holds. */
typedef struct gs_sum_expr
{
	int			ncode;
	gs_num_step code[GS_SUM_MAX_CODE];
} gs_sum_expr;

/* One sum over a batch's passing rows. */
typedef struct gs_sum_result
{
	uint64_t	lo;				/* the sum of the non-NULL, non-NaN values: */
	uint64_t	hi;				/* 128-bit two's complement, low and high words */
	uint64_t	values;			/* rows whose value is not NULL, NaN ones included */
	uint64_t	nans;			/* of them, NaN */
	uint32_t	overflow;		/* a value or the sum left 128 bits: lo and hi mean nothing */
	uint32_t	pad;
} gs_sum_result;

/* The device's summing buffers for one scan. */
gs_status	gs_batch_sums_create(gs_batch_sums **sums, char *errbuf, size_t errlen);

/*
 * Evaluates exprs[0 .. nexprs-1] on the passing rows of slot 'slot' from the
 * from-th on and sums each into results[e]; waits for the device.
 */
gs_status	gs_batch_sums_run(gs_batch_sums *sums, gs_filter *filter, int slot, int64_t from,
							  int nexprs, const gs_sum_expr *exprs, gs_sum_result *results,
							  char *errbuf, size_t errlen);

/* Frees everything; safe on NULL. */
void		gs_batch_sums_destroy(gs_batch_sums *sums);

/*
 * After gs_batch_groups_find (groupsum.cu): evaluates exprs[0 .. nexprs-1]
 * (as gs_batch_sums_run does; nexprs may be 0) on the rows found and sums
 * them per distinct key: *rows gets nkeys counts of passing rows and
 * *results nkeys x nexprs sums (key k's e-th at k * nexprs + e), in the
 * order of the keys found; waits for the device.  At most
 * GS_GROUP_SUM_MAX_KEYS distinct keys.
 */
gs_status	gs_batch_groups_sum(gs_batch_groups *groups, gs_filter *filter, int nexprs,
								const gs_sum_expr *exprs, const uint64_t **rows,
								const gs_sum_result **results, char *errbuf, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSEL_FILTER_H */
