/*
 * qual_compile.c
 *	  Translation of WHERE clauses into the device's predicate program.
 *
 * Only an explicit allow-list reaches the device: columns, constants and
 * parameters of int2, int4, int8, float4, float8, bool, date, timestamp and
 * timestamptz; numeric(p,s) columns of at most 18 digits, and + - * over
 * them and numeric constants, compared with each other or with numeric
 * constants (qual_numeric_compile.c); the comparison
 * and arithmetic functions of those types named by OID below (PostgreSQL's cross-type integer and float variants
 * included); widening casts; AND, OR, NOT, IS [NOT] NULL, IS [NOT]
 * TRUE/FALSE/UNKNOWN; and "x = ANY(constant array)" (IN lists), or
 * "x <> ALL(...)".  Anything else keeps its clause on the CPU.
 *
 * Every allowed function has an exact device twin (cuda/predicate.cuh):
 * NULL in, NULL out; float order with NaN above +Infinity; overflow and
 * division by zero flag the row, after which the executor re-evaluates the
 * batch with PostgreSQL itself.  A date compared with a timestamp or
 * timestamptz constant becomes a date comparison (qual_datetime.c);
 * timestamp against timestamptz, or a date against a timestamp that is not
 * a constant, stays on the CPU; date +- integer runs as int4 arithmetic
 * with range guards (compile_date_arith).
 *
 * AND and OR short-circuit as PostgreSQL's ExecInterpExpr does, and the
 * list of quals stops at the first that is not true, as ExecQual does, so
 * a row the CPU would not evaluate further raises no error on the device.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "qual_compile.h"
#include "qual_compiler.h"

/* One allowed operator function and its device opcode. */
typedef struct DeviceOp
{
	Oid			funcid;
	int16		opcode;			/* gs_opcode */
	int16		kind;			/* gs_valkind the operation runs in */
	int16		nargs;
} DeviceOp;

#define CMP(f, op, k)	{f, op, k, 2}
#define ARITH(f, op, k) {f, op, k, 2}
#define UNARY(f, op, k) {f, op, k, 1}

/*
 * The allow-list.  Cross-type functions run in the wider kind: the device
 * widens an int2 operand of int24lt to int4, a float4 operand of float48pl
 * to float8, exactly as the C functions do.
 */
static const DeviceOp device_ops[] = {
	/* bool */
	CMP(F_BOOLEQ, GS_OP_EQ, GS_VK_BOOL), CMP(F_BOOLNE, GS_OP_NE, GS_VK_BOOL),
	CMP(F_BOOLLT, GS_OP_LT, GS_VK_BOOL), CMP(F_BOOLLE, GS_OP_LE, GS_VK_BOOL),
	CMP(F_BOOLGT, GS_OP_GT, GS_VK_BOOL), CMP(F_BOOLGE, GS_OP_GE, GS_VK_BOOL),
	/* int2 */
	CMP(F_INT2EQ, GS_OP_EQ, GS_VK_INT2), CMP(F_INT2NE, GS_OP_NE, GS_VK_INT2),
	CMP(F_INT2LT, GS_OP_LT, GS_VK_INT2), CMP(F_INT2LE, GS_OP_LE, GS_VK_INT2),
	CMP(F_INT2GT, GS_OP_GT, GS_VK_INT2), CMP(F_INT2GE, GS_OP_GE, GS_VK_INT2),
	ARITH(F_INT2PL, GS_OP_ADD, GS_VK_INT2), ARITH(F_INT2MI, GS_OP_SUB, GS_VK_INT2),
	ARITH(F_INT2MUL, GS_OP_MUL, GS_VK_INT2), ARITH(F_INT2DIV, GS_OP_DIV, GS_VK_INT2),
	ARITH(F_INT2MOD, GS_OP_MOD, GS_VK_INT2), UNARY(F_INT2UM, GS_OP_NEG, GS_VK_INT2),
	/* int4, and int2 with int4 */
	CMP(F_INT4EQ, GS_OP_EQ, GS_VK_INT4), CMP(F_INT4NE, GS_OP_NE, GS_VK_INT4),
	CMP(F_INT4LT, GS_OP_LT, GS_VK_INT4), CMP(F_INT4LE, GS_OP_LE, GS_VK_INT4),
	CMP(F_INT4GT, GS_OP_GT, GS_VK_INT4), CMP(F_INT4GE, GS_OP_GE, GS_VK_INT4),
	CMP(F_INT24EQ, GS_OP_EQ, GS_VK_INT4), CMP(F_INT24NE, GS_OP_NE, GS_VK_INT4),
	CMP(F_INT24LT, GS_OP_LT, GS_VK_INT4), CMP(F_INT24LE, GS_OP_LE, GS_VK_INT4),
	CMP(F_INT24GT, GS_OP_GT, GS_VK_INT4), CMP(F_INT24GE, GS_OP_GE, GS_VK_INT4),
	CMP(F_INT42EQ, GS_OP_EQ, GS_VK_INT4), CMP(F_INT42NE, GS_OP_NE, GS_VK_INT4),
	CMP(F_INT42LT, GS_OP_LT, GS_VK_INT4), CMP(F_INT42LE, GS_OP_LE, GS_VK_INT4),
	CMP(F_INT42GT, GS_OP_GT, GS_VK_INT4), CMP(F_INT42GE, GS_OP_GE, GS_VK_INT4),
	ARITH(F_INT4PL, GS_OP_ADD, GS_VK_INT4), ARITH(F_INT4MI, GS_OP_SUB, GS_VK_INT4),
	ARITH(F_INT4MUL, GS_OP_MUL, GS_VK_INT4), ARITH(F_INT4DIV, GS_OP_DIV, GS_VK_INT4),
	ARITH(F_INT4MOD, GS_OP_MOD, GS_VK_INT4), UNARY(F_INT4UM, GS_OP_NEG, GS_VK_INT4),
	ARITH(F_INT24PL, GS_OP_ADD, GS_VK_INT4), ARITH(F_INT24MI, GS_OP_SUB, GS_VK_INT4),
	ARITH(F_INT24MUL, GS_OP_MUL, GS_VK_INT4), ARITH(F_INT24DIV, GS_OP_DIV, GS_VK_INT4),
	ARITH(F_INT42PL, GS_OP_ADD, GS_VK_INT4), ARITH(F_INT42MI, GS_OP_SUB, GS_VK_INT4),
	ARITH(F_INT42MUL, GS_OP_MUL, GS_VK_INT4), ARITH(F_INT42DIV, GS_OP_DIV, GS_VK_INT4),
	/* int8, and int2 or int4 with int8 */
	CMP(F_INT8EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_INT8NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_INT8LT, GS_OP_LT, GS_VK_INT8), CMP(F_INT8LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_INT8GT, GS_OP_GT, GS_VK_INT8), CMP(F_INT8GE, GS_OP_GE, GS_VK_INT8),
	CMP(F_INT48EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_INT48NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_INT48LT, GS_OP_LT, GS_VK_INT8), CMP(F_INT48LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_INT48GT, GS_OP_GT, GS_VK_INT8), CMP(F_INT48GE, GS_OP_GE, GS_VK_INT8),
	CMP(F_INT84EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_INT84NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_INT84LT, GS_OP_LT, GS_VK_INT8), CMP(F_INT84LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_INT84GT, GS_OP_GT, GS_VK_INT8), CMP(F_INT84GE, GS_OP_GE, GS_VK_INT8),
	CMP(F_INT28EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_INT28NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_INT28LT, GS_OP_LT, GS_VK_INT8), CMP(F_INT28LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_INT28GT, GS_OP_GT, GS_VK_INT8), CMP(F_INT28GE, GS_OP_GE, GS_VK_INT8),
	CMP(F_INT82EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_INT82NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_INT82LT, GS_OP_LT, GS_VK_INT8), CMP(F_INT82LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_INT82GT, GS_OP_GT, GS_VK_INT8), CMP(F_INT82GE, GS_OP_GE, GS_VK_INT8),
	ARITH(F_INT8PL, GS_OP_ADD, GS_VK_INT8), ARITH(F_INT8MI, GS_OP_SUB, GS_VK_INT8),
	ARITH(F_INT8MUL, GS_OP_MUL, GS_VK_INT8), ARITH(F_INT8DIV, GS_OP_DIV, GS_VK_INT8),
	ARITH(F_INT8MOD, GS_OP_MOD, GS_VK_INT8), UNARY(F_INT8UM, GS_OP_NEG, GS_VK_INT8),
	ARITH(F_INT48PL, GS_OP_ADD, GS_VK_INT8), ARITH(F_INT48MI, GS_OP_SUB, GS_VK_INT8),
	ARITH(F_INT48MUL, GS_OP_MUL, GS_VK_INT8), ARITH(F_INT48DIV, GS_OP_DIV, GS_VK_INT8),
	ARITH(F_INT84PL, GS_OP_ADD, GS_VK_INT8), ARITH(F_INT84MI, GS_OP_SUB, GS_VK_INT8),
	ARITH(F_INT84MUL, GS_OP_MUL, GS_VK_INT8), ARITH(F_INT84DIV, GS_OP_DIV, GS_VK_INT8),
	ARITH(F_INT28PL, GS_OP_ADD, GS_VK_INT8), ARITH(F_INT28MI, GS_OP_SUB, GS_VK_INT8),
	ARITH(F_INT28MUL, GS_OP_MUL, GS_VK_INT8), ARITH(F_INT28DIV, GS_OP_DIV, GS_VK_INT8),
	ARITH(F_INT82PL, GS_OP_ADD, GS_VK_INT8), ARITH(F_INT82MI, GS_OP_SUB, GS_VK_INT8),
	ARITH(F_INT82MUL, GS_OP_MUL, GS_VK_INT8), ARITH(F_INT82DIV, GS_OP_DIV, GS_VK_INT8),
	/* float4 */
	CMP(F_FLOAT4EQ, GS_OP_EQ, GS_VK_FLOAT4), CMP(F_FLOAT4NE, GS_OP_NE, GS_VK_FLOAT4),
	CMP(F_FLOAT4LT, GS_OP_LT, GS_VK_FLOAT4), CMP(F_FLOAT4LE, GS_OP_LE, GS_VK_FLOAT4),
	CMP(F_FLOAT4GT, GS_OP_GT, GS_VK_FLOAT4), CMP(F_FLOAT4GE, GS_OP_GE, GS_VK_FLOAT4),
	ARITH(F_FLOAT4PL, GS_OP_ADD, GS_VK_FLOAT4), ARITH(F_FLOAT4MI, GS_OP_SUB, GS_VK_FLOAT4),
	ARITH(F_FLOAT4MUL, GS_OP_MUL, GS_VK_FLOAT4), ARITH(F_FLOAT4DIV, GS_OP_DIV, GS_VK_FLOAT4),
	UNARY(F_FLOAT4UM, GS_OP_NEG, GS_VK_FLOAT4),
	/* float8, and float4 with float8 */
	CMP(F_FLOAT8EQ, GS_OP_EQ, GS_VK_FLOAT8), CMP(F_FLOAT8NE, GS_OP_NE, GS_VK_FLOAT8),
	CMP(F_FLOAT8LT, GS_OP_LT, GS_VK_FLOAT8), CMP(F_FLOAT8LE, GS_OP_LE, GS_VK_FLOAT8),
	CMP(F_FLOAT8GT, GS_OP_GT, GS_VK_FLOAT8), CMP(F_FLOAT8GE, GS_OP_GE, GS_VK_FLOAT8),
	CMP(F_FLOAT48EQ, GS_OP_EQ, GS_VK_FLOAT8), CMP(F_FLOAT48NE, GS_OP_NE, GS_VK_FLOAT8),
	CMP(F_FLOAT48LT, GS_OP_LT, GS_VK_FLOAT8), CMP(F_FLOAT48LE, GS_OP_LE, GS_VK_FLOAT8),
	CMP(F_FLOAT48GT, GS_OP_GT, GS_VK_FLOAT8), CMP(F_FLOAT48GE, GS_OP_GE, GS_VK_FLOAT8),
	CMP(F_FLOAT84EQ, GS_OP_EQ, GS_VK_FLOAT8), CMP(F_FLOAT84NE, GS_OP_NE, GS_VK_FLOAT8),
	CMP(F_FLOAT84LT, GS_OP_LT, GS_VK_FLOAT8), CMP(F_FLOAT84LE, GS_OP_LE, GS_VK_FLOAT8),
	CMP(F_FLOAT84GT, GS_OP_GT, GS_VK_FLOAT8), CMP(F_FLOAT84GE, GS_OP_GE, GS_VK_FLOAT8),
	ARITH(F_FLOAT8PL, GS_OP_ADD, GS_VK_FLOAT8), ARITH(F_FLOAT8MI, GS_OP_SUB, GS_VK_FLOAT8),
	ARITH(F_FLOAT8MUL, GS_OP_MUL, GS_VK_FLOAT8), ARITH(F_FLOAT8DIV, GS_OP_DIV, GS_VK_FLOAT8),
	UNARY(F_FLOAT8UM, GS_OP_NEG, GS_VK_FLOAT8),
	ARITH(F_FLOAT48PL, GS_OP_ADD, GS_VK_FLOAT8), ARITH(F_FLOAT48MI, GS_OP_SUB, GS_VK_FLOAT8),
	ARITH(F_FLOAT48MUL, GS_OP_MUL, GS_VK_FLOAT8), ARITH(F_FLOAT48DIV, GS_OP_DIV, GS_VK_FLOAT8),
	ARITH(F_FLOAT84PL, GS_OP_ADD, GS_VK_FLOAT8), ARITH(F_FLOAT84MI, GS_OP_SUB, GS_VK_FLOAT8),
	ARITH(F_FLOAT84MUL, GS_OP_MUL, GS_VK_FLOAT8), ARITH(F_FLOAT84DIV, GS_OP_DIV, GS_VK_FLOAT8),
	/* date (int4 day numbers) and timestamps (int8 microseconds) compare as integers */
	CMP(F_DATE_EQ, GS_OP_EQ, GS_VK_INT4), CMP(F_DATE_NE, GS_OP_NE, GS_VK_INT4),
	CMP(F_DATE_LT, GS_OP_LT, GS_VK_INT4), CMP(F_DATE_LE, GS_OP_LE, GS_VK_INT4),
	CMP(F_DATE_GT, GS_OP_GT, GS_VK_INT4), CMP(F_DATE_GE, GS_OP_GE, GS_VK_INT4),
	CMP(F_TIMESTAMP_EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_TIMESTAMP_NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_TIMESTAMP_LT, GS_OP_LT, GS_VK_INT8), CMP(F_TIMESTAMP_LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_TIMESTAMP_GT, GS_OP_GT, GS_VK_INT8), CMP(F_TIMESTAMP_GE, GS_OP_GE, GS_VK_INT8),
	CMP(F_TIMESTAMPTZ_EQ, GS_OP_EQ, GS_VK_INT8), CMP(F_TIMESTAMPTZ_NE, GS_OP_NE, GS_VK_INT8),
	CMP(F_TIMESTAMPTZ_LT, GS_OP_LT, GS_VK_INT8), CMP(F_TIMESTAMPTZ_LE, GS_OP_LE, GS_VK_INT8),
	CMP(F_TIMESTAMPTZ_GT, GS_OP_GT, GS_VK_INT8), CMP(F_TIMESTAMPTZ_GE, GS_OP_GE, GS_VK_INT8),
};

/* One allowed cast function: widening only, never an error. */
typedef struct DeviceCast
{
	Oid			funcid;
	int16		from;
	int16		to;
} DeviceCast;

static const DeviceCast device_casts[] = {
	{F_INT4_INT2, GS_VK_INT2, GS_VK_INT4},
	{F_INT8_INT2, GS_VK_INT2, GS_VK_INT8},
	{F_INT8_INT4, GS_VK_INT4, GS_VK_INT8},
	{F_FLOAT4_INT2, GS_VK_INT2, GS_VK_FLOAT4},
	{F_FLOAT4_INT4, GS_VK_INT4, GS_VK_FLOAT4},
	{F_FLOAT4_INT8, GS_VK_INT8, GS_VK_FLOAT4},
	{F_FLOAT8_INT2, GS_VK_INT2, GS_VK_FLOAT8},
	{F_FLOAT8_INT4, GS_VK_INT4, GS_VK_FLOAT8},
	{F_FLOAT8_INT8, GS_VK_INT8, GS_VK_FLOAT8},
	{F_FLOAT8_FLOAT4, GS_VK_FLOAT4, GS_VK_FLOAT8},
};


/* Whether a value of kind 'have' may be an operand of an operation in kind 'want'. */
static bool
kind_fits(int have, int want)
{
	bool		have_int = have >= GS_VK_INT2 && have <= GS_VK_INT8;
	bool		want_int = want >= GS_VK_INT2 && want <= GS_VK_INT8;
	bool		have_float = have == GS_VK_FLOAT4 || have == GS_VK_FLOAT8;
	bool		want_float = want == GS_VK_FLOAT4 || want == GS_VK_FLOAT8;

	if (want_int)
		return have_int && have <= want;
	if (want_float)
		return have_float && have <= want;
	return want == GS_VK_BOOL && have == GS_VK_BOOL;
}

/* Pushes a constant. */
static int
compile_const(QualCompiler *qc, Const *c)
{
	int			kind = GpuselQualKindOfType(c->consttype);
	int			slot;

	if (kind < 0)
	{
		qc->failed = true;
		return -1;
	}
	slot = GpuselQualNewConst(qc);
	if (slot < 0)
		return -1;
	GpuselDatumToConst(c->constvalue, c->constisnull, c->consttype,
					   &qc->prog->consts[slot]);
	GpuselQualEmit(qc, GS_OP_CONST, kind, 0, slot, 0, 0, 1);
	return kind;
}

/*
 * Pushes a parameter as a constant that the executor fills in at scan
 * start: the program itself never changes during a query.
 */
static int
compile_param(QualCompiler *qc, Param *param)
{
	GpuselProgram *p = qc->prog;
	int			kind = GpuselQualKindOfType(param->paramtype);
	int			slot;

	if (kind < 0 ||
		(param->paramkind != PARAM_EXTERN && param->paramkind != PARAM_EXEC))
	{
		qc->failed = true;
		return -1;
	}
	slot = GpuselQualNewConst(qc);
	if (slot < 0)
		return -1;
	p->consts[slot].isnull = 1;
	p->param_slots[p->nparams] = slot;
	p->param_exprs[p->nparams] = (Expr *) param;
	p->nparams++;
	GpuselQualEmit(qc, GS_OP_CONST, kind, 0, slot, 0, 0, 1);
	return kind;
}

/* Finds an allowed operator function. */
static const DeviceOp *
find_op(Oid funcid)
{
	for (int i = 0; i < lengthof(device_ops); i++)
		if (device_ops[i].funcid == funcid)
			return &device_ops[i];
	return NULL;
}

/*
 * The arithmetic operator of an integer or float function the device
 * takes (int4pl, int8mod, float8mi, ...) and the kind it computes in;
 * false for any other function.
 */
bool
GpuselArithOperator(Oid funcid, gs_arith_op *op, int *kind)
{
	const DeviceOp *d = find_op(funcid);

	if (d == NULL || !GS_OP_IS_ARITH(d->opcode))
		return false;
	*op = GS_ARITH_OF_OP(d->opcode);
	*kind = d->kind;
	return true;
}

/* Finds an allowed cast function. */
static const DeviceCast *
find_cast(Oid funcid)
{
	for (int i = 0; i < lengthof(device_casts); i++)
		if (device_casts[i].funcid == funcid)
			return &device_casts[i];
	return NULL;
}

/*
 * Compiles date + integer, integer + date and date - integer (date_pli,
 * integer_pl_date, date_mii) as int4 arithmetic on day numbers.
 * PostgreSQL leaves an infinite date as it is and raises "date out of
 * range" for a result outside the dates: the date and the result each pass
 * a range guard of the finite dates, so an infinite date, or a result out
 * of range (int4 overflow included), makes the executor evaluate the batch
 * and give PostgreSQL's value or its error.
 */
static int
compile_date_arith(QualCompiler *qc, Oid funcid, List *args)
{
	bool		days_first = funcid == F_INTEGER_PL_DATE;
	Expr	   *date = (Expr *) (days_first ? lsecond(args) : linitial(args));
	Expr	   *days = (Expr *) (days_first ? linitial(args) : lsecond(args));
	int64		first_day = DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE;
	int64		last_day = DATE_END_JULIAN - POSTGRES_EPOCH_JDATE - 1;
	int			k;

	if (exprType((Node *) date) != DATEOID || GpuselQualCompileExpr(qc, date) != GS_VK_INT4)
	{
		qc->failed = true;
		return -1;
	}
	GpuselQualEmitRangeGuard(qc, GS_VK_INT4, first_day, last_day);
	k = GpuselQualCompileExpr(qc, days);
	if (k < 0 || !kind_fits(k, GS_VK_INT4))
	{
		qc->failed = true;
		return -1;
	}
	GpuselQualEmit(qc, funcid == F_DATE_MII ? GS_OP_SUB : GS_OP_ADD, GS_VK_INT4, 0, 0, 0, 2, 1);
	GpuselQualEmitRangeGuard(qc, GS_VK_INT4, first_day, last_day);
	return qc->failed ? -1 : GS_VK_INT4;
}

/*
 * Compiles an expression of device kind 'kind' compared with a bound the
 * compiler worked out: a date against a timestamp(tz) constant as a day
 * number (GpuselDateTimestampBound), a timestamp(tz) against a date
 * constant as an int8 (GpuselTimestampDateBound).
 */
static int
compile_against_bound(QualCompiler *qc, Expr *expr, int kind, int opcode, Datum bound)
{
	if (GpuselQualCompileExpr(qc, expr) != kind)
	{
		qc->failed = true;
		return -1;
	}
	return GpuselQualCompareWithBound(qc, opcode, kind, bound);
}

/*
 * Compiles a date compared with a timestamp that is not a constant: the
 * date's midnight (day number times the microseconds of a day) compared
 * with the timestamp as int8, behind a range guard of the dates that have
 * a timestamp, so an infinite date or one past the timestamps' range sends
 * its batch to the executor (qual_datetime.c).
 */
static int
compile_date_vs_timestamp(QualCompiler *qc, List *args, int date_arg, int opcode)
{
	int			slot;

	if (GpuselQualCompileExpr(qc, (Expr *) list_nth(args, date_arg)) != GS_VK_INT4)
	{
		qc->failed = true;
		return -1;
	}
	GpuselQualEmitRangeGuard(qc, GS_VK_INT4, DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE,
							 TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE - 1);
	GpuselQualEmit(qc, GS_OP_CAST, GS_VK_INT4, GS_VK_INT8, 0, 0, 1, 1);
	slot = GpuselQualNewConst(qc);
	if (slot < 0)
		return -1;
	GpuselDatumToConst(Int64GetDatum(USECS_PER_DAY), false, INT8OID, &qc->prog->consts[slot]);
	GpuselQualEmit(qc, GS_OP_CONST, GS_VK_INT8, 0, slot, 0, 0, 1);
	GpuselQualEmit(qc, GS_OP_MUL, GS_VK_INT8, 0, 0, 0, 2, 1);
	if (exprType((Node *) list_nth(args, 1 - date_arg)) != TIMESTAMPOID ||
		GpuselQualCompileExpr(qc, (Expr *) list_nth(args, 1 - date_arg)) != GS_VK_INT8)
	{
		qc->failed = true;
		return -1;
	}
	GpuselQualEmit(qc, opcode, GS_VK_INT8, 0, 0, 0, 2, 1);
	return qc->failed ? -1 : GS_VK_BOOL;
}

/*
 * Compiles a date column compared with a timestamptz the device computes:
 * the column travels as its midnight in the session's TimeZone
 * (GPUSEL_FORM_DATE_TIMESTAMPTZ), compared as int8 with the timestamptz.
 * A date that is not a plain column stays on the host.
 */
static int
compile_date_column_vs_timestamptz(QualCompiler *qc, List *args, int date_arg, int opcode)
{
	Var		   *var = (Var *) list_nth(args, date_arg);
	int			col;

	if (!IsA(var, Var) || !GpuselQualVarIsOurs(qc, var) || var->vartype != DATEOID ||
		exprType((Node *) list_nth(args, 1 - date_arg)) != TIMESTAMPTZOID)
	{
		qc->failed = true;
		return -1;
	}
	col = GpuselQualColumn(qc, var->varattno, GS_COL_INT8, GPUSEL_FORM_DATE_TIMESTAMPTZ, 0);
	if (col < 0)
		return -1;
	GpuselQualEmit(qc, GS_OP_COLUMN, GS_VK_INT8, 0, col, 0, 0, 1);
	if (GpuselQualCompileExpr(qc, (Expr *) list_nth(args, 1 - date_arg)) != GS_VK_INT8)
	{
		qc->failed = true;
		return -1;
	}
	/* the date's value is on the stack first: "date opcode timestamptz" */
	GpuselQualEmit(qc, opcode, GS_VK_INT8, 0, 0, 0, 2, 1);
	return qc->failed ? -1 : GS_VK_BOOL;
}

/* What a call compiler returns for a call that is not of its kind. */
#define CALL_NOT_MINE	(-2)

/* A date against a timestamp constant: the date against a day-number bound. */
static int
call_date_vs_timestamp_constant(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	int			date_arg;
	int			opcode;
	int32		bound;

	if (!GpuselDateTimestampBound(funcid, args, &date_arg, &opcode, &bound))
		return CALL_NOT_MINE;
	return compile_against_bound(qc, (Expr *) list_nth(args, date_arg), GS_VK_INT4, opcode,
								 Int32GetDatum(bound));
}

/* A timestamp against a date constant: the timestamp against an int8 bound. */
static int
call_timestamp_vs_date_constant(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	int			ts_arg;
	int			opcode;
	int64		bound;

	if (!GpuselTimestampDateBound(funcid, args, &ts_arg, &opcode, &bound))
		return CALL_NOT_MINE;
	return compile_against_bound(qc, (Expr *) list_nth(args, ts_arg), GS_VK_INT8, opcode,
								 Int64GetDatum(bound));
}

/* A date against a timestamp the device computes: its midnight, as int8. */
static int
call_date_vs_timestamp(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	int			date_arg;
	int			opcode;

	if (list_length(args) != 2 || !GpuselDateTimestampOp(funcid, &date_arg, &opcode))
		return CALL_NOT_MINE;
	return compile_date_vs_timestamp(qc, args, date_arg, opcode);
}

/* A date column against a timestamptz: the column read as its midnight in the TimeZone. */
static int
call_date_vs_timestamptz(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	int			date_arg;
	int			opcode;

	if (list_length(args) != 2 || !GpuselDateTimestamptzOp(funcid, &date_arg, &opcode))
		return CALL_NOT_MINE;
	return compile_date_column_vs_timestamptz(qc, args, date_arg, opcode);
}

/* date + integer, date - integer, integer + date. */
static int
call_date_arith(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	if ((funcid != F_DATE_PLI && funcid != F_DATE_MII && funcid != F_INTEGER_PL_DATE) ||
		list_length(args) != 2)
		return CALL_NOT_MINE;
	return compile_date_arith(qc, funcid, args);
}

/* A numeric comparison (qual_numeric_compile.c, qual_numeric_wide.c). */
static int
call_numeric_comparison(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	int			opcode = GpuselNumericComparison(funcid);

	if (opcode < 0 || list_length(args) != 2)
		return CALL_NOT_MINE;
	return GpuselQualCompileNumericComparison(qc, opcode, args);
}

/* An operator of the operator table, its operands of kinds that fit it. */
static int
call_operator(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	ListCell   *lc;

	if (op == NULL || list_length(args) != op->nargs)
		return CALL_NOT_MINE;
	foreach(lc, args)
	{
		int			k = GpuselQualCompileExpr(qc, (Expr *) lfirst(lc));

		if (k < 0 || !kind_fits(k, op->kind))
		{
			qc->failed = true;
			return -1;
		}
	}
	GpuselQualEmit(qc, op->opcode, op->kind, 0, 0, 0, op->nargs, 1);
	return op->opcode <= GS_OP_GE ? GS_VK_BOOL : op->kind;
}

/* A cast of the cast table. */
static int
call_cast(QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op)
{
	const DeviceCast *cast = find_cast(funcid);
	int			k;

	if (cast == NULL || list_length(args) != 1)
		return CALL_NOT_MINE;
	k = GpuselQualCompileExpr(qc, (Expr *) linitial(args));
	if (k != cast->from)
	{
		qc->failed = true;
		return -1;
	}
	GpuselQualEmit(qc, GS_OP_CAST, cast->from, cast->to, 0, 0, 1, 1);
	return cast->to;
}

/*
 * The call compilers, in the order they are asked: each takes the calls
 * of its kind and answers CALL_NOT_MINE to the others.  Those marked
 * "not operators" are asked only for functions outside the operator table.
 */
static const struct
{
	int			(*compile) (QualCompiler *qc, Oid funcid, List *args, const DeviceOp *op);
	bool		not_operators;
}			call_compilers[] = {
	{call_date_vs_timestamp_constant, true},
	{call_timestamp_vs_date_constant, true},
	{call_date_vs_timestamp, true},
	{call_date_vs_timestamptz, true},
	{call_date_arith, false},
	{call_numeric_comparison, true},
	{call_operator, false},
	{call_cast, false},
};

/* Compiles a call of an allowed operator or cast function: the first call compiler that takes it. */
static int
compile_call(QualCompiler *qc, Oid funcid, List *args)
{
	const DeviceOp *op = find_op(funcid);

	for (int i = 0; i < lengthof(call_compilers); i++)
	{
		int			kind;

		if (call_compilers[i].not_operators && op != NULL)
			continue;
		kind = call_compilers[i].compile(qc, funcid, args, op);
		if (kind != CALL_NOT_MINE)
			return kind;
	}
	qc->failed = true;
	return -1;
}

/* Points every recorded jump at the current end of the program. */
static void
patch_jumps(QualCompiler *qc, int *jumps, int njumps)
{
	for (int i = 0; i < njumps; i++)
		if (jumps[i] >= 0)
			qc->prog->code[jumps[i]].arg = qc->prog->ncode;
}

/*
 * AND / OR with PostgreSQL's short circuit: after each argument but the
 * last, a non-NULL false (AND) or true (OR) skips the rest and is the
 * result.  Pairwise combining keeps one value on the stack at every jump,
 * so all jumps reach the end with the same stack.
 */
static int
compile_and_or(QualCompiler *qc, BoolExpr *b)
{
	int			nargs = list_length(b->args);
	int		   *jumps = palloc(sizeof(int) * nargs);
	int			njumps = 0;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, b->args)
	{
		if (GpuselQualCompileExpr(qc, (Expr *) lfirst(lc)) != GS_VK_BOOL)
		{
			qc->failed = true;
			break;
		}
		if (i > 0)
			GpuselQualEmit(qc, b->boolop == AND_EXPR ? GS_OP_AND : GS_OP_OR,
				 GS_VK_BOOL, 0, 2, 0, 2, 1);
		if (i < nargs - 1)
			jumps[njumps++] = GpuselQualEmit(qc,
								   b->boolop == AND_EXPR ? GS_OP_JUMP_IF_FALSE : GS_OP_JUMP_IF_TRUE,
								   GS_VK_BOOL, 0, 0, 0, 1, 1);
		i++;
	}
	if (!qc->failed)
		patch_jumps(qc, jumps, njumps);
	pfree(jumps);
	return qc->failed ? -1 : GS_VK_BOOL;
}

/* x = ANY(constant array), or x <> ALL(...) as its negation. */
static int
compile_array_op(QualCompiler *qc, ScalarArrayOpExpr *saop)
{
	Oid			funcid = OidIsValid(saop->opfuncid) ? saop->opfuncid : get_opcode(saop->opno);
	const DeviceOp *op = find_op(funcid);
	Const	   *arr;
	ArrayType  *array;
	Oid			elemtype;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			first;
	int			k;

	if (op == NULL || list_length(saop->args) != 2 ||
		!((saop->useOr && op->opcode == GS_OP_EQ) ||
		  (!saop->useOr && op->opcode == GS_OP_NE)))
		goto fail;
	arr = (Const *) lsecond(saop->args);
	if (!IsA(arr, Const) || arr->constisnull)
		goto fail;
	elemtype = get_element_type(arr->consttype);
	if (GpuselQualKindOfType(elemtype) < 0 || !kind_fits(GpuselQualKindOfType(elemtype), op->kind))
		goto fail;

	k = GpuselQualCompileExpr(qc, (Expr *) linitial(saop->args));
	if (k < 0 || !kind_fits(k, op->kind))
		goto fail;

	array = DatumGetArrayTypeP(arr->constvalue);
	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(array, elemtype, elmlen, elmbyval, elmalign,
					  &elems, &nulls, &nelems);
	first = qc->prog->nconsts;
	for (int i = 0; i < nelems; i++)
	{
		int			slot = GpuselQualNewConst(qc);

		if (slot < 0)
			goto fail;
		GpuselDatumToConst(elems[i], nulls[i], elemtype, &qc->prog->consts[slot]);
	}
	GpuselQualEmit(qc, GS_OP_IN_CONSTS, op->kind, 0, first, nelems, 1, 1);
	if (!saop->useOr)
		GpuselQualEmit(qc, GS_OP_NOT, GS_VK_BOOL, 0, 0, 0, 1, 1);
	return qc->failed ? -1 : GS_VK_BOOL;

fail:
	qc->failed = true;
	return -1;
}

/* Compiles one expression; returns the kind it leaves on the stack or -1. */
int
GpuselQualCompileExpr(QualCompiler *qc, Expr *expr)
{
	check_stack_depth();
	if (qc->failed || expr == NULL)
	{
		qc->failed = true;
		return -1;
	}

	switch (nodeTag(expr))
	{
		case T_Var:
			return GpuselQualCompileVar(qc, (Var *) expr);
		case T_Const:
			return compile_const(qc, (Const *) expr);
		case T_Param:
			return compile_param(qc, (Param *) expr);
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) expr;
				Oid			funcid = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);

				return compile_call(qc, funcid, op->args);
			}
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) expr;

				/* gpu_filter(x) is x: it only marks the clause */
				if (OidIsValid(qc->marker) && f->funcid == qc->marker &&
					list_length(f->args) == 1)
					return GpuselQualCompileExpr(qc, (Expr *) linitial(f->args));
				return compile_call(qc, f->funcid, f->args);
			}
		case T_BoolExpr:
			{
				BoolExpr   *b = (BoolExpr *) expr;

				if (b->boolop == NOT_EXPR)
				{
					if (GpuselQualCompileExpr(qc, (Expr *) linitial(b->args)) != GS_VK_BOOL)
						break;
					GpuselQualEmit(qc, GS_OP_NOT, GS_VK_BOOL, 0, 0, 0, 1, 1);
					return qc->failed ? -1 : GS_VK_BOOL;
				}
				return compile_and_or(qc, b);
			}
		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) expr;

				if (nt->argisrow || GpuselQualCompileExpr(qc, nt->arg) < 0)
					break;
				GpuselQualEmit(qc, nt->nulltesttype == IS_NULL ? GS_OP_IS_NULL : GS_OP_IS_NOT_NULL,
					 GS_VK_BOOL, 0, 0, 0, 1, 1);
				return qc->failed ? -1 : GS_VK_BOOL;
			}
		case T_BooleanTest:
			{
				BooleanTest *bt = (BooleanTest *) expr;
				int			op;

				if (GpuselQualCompileExpr(qc, bt->arg) != GS_VK_BOOL)
					break;
				switch (bt->booltesttype)
				{
					case IS_TRUE:
						op = GS_OP_IS_TRUE;
						break;
					case IS_NOT_TRUE:
						op = GS_OP_IS_NOT_TRUE;
						break;
					case IS_FALSE:
						op = GS_OP_IS_FALSE;
						break;
					case IS_NOT_FALSE:
						op = GS_OP_IS_NOT_FALSE;
						break;
					case IS_UNKNOWN:
						op = GS_OP_IS_NULL;
						break;
					default:
						op = GS_OP_IS_NOT_NULL;
						break;
				}
				GpuselQualEmit(qc, op, GS_VK_BOOL, 0, 0, 0, 1, 1);
				return qc->failed ? -1 : GS_VK_BOOL;
			}
		case T_ScalarArrayOpExpr:
			return compile_array_op(qc, (ScalarArrayOpExpr *) expr);
		default:
			break;
	}
	qc->failed = true;
	return -1;
}

/*
 * Compiles a list of quals, in the given order, into one program that is
 * true where every qual is true.  As in ExecQual, a qual that is false or
 * NULL ends the row's evaluation.  Returns NULL when some qual, or the
 * whole list, does not fit the device.
 */
GpuselProgram *
GpuselCompileQuals(List *quals, Index relid)
{
	QualCompiler qc;
	int			nquals = list_length(quals);
	int		   *jumps;
	int			njumps = 0;
	int			i = 0;
	ListCell   *lc;

	if (nquals == 0)
		return NULL;
	memset(&qc, 0, sizeof(qc));
	qc.prog = palloc0(sizeof(GpuselProgram));
	qc.relid = relid;
	qc.marker = GpuselFilterFuncOid();
	qc.fit_scale = GpuselNumericConstsScale(quals);
	jumps = palloc(sizeof(int) * nquals);

	foreach(lc, quals)
	{
		if (GpuselQualCompileExpr(&qc, (Expr *) lfirst(lc)) != GS_VK_BOOL)
		{
			qc.failed = true;
			break;
		}
		if (i > 0)
			GpuselQualEmit(&qc, GS_OP_AND, GS_VK_BOOL, 0, 2, 0, 2, 1);
		if (i < nquals - 1)
			jumps[njumps++] = GpuselQualEmit(&qc, GS_OP_JUMP_IF_NOT_TRUE, GS_VK_BOOL, 0, 0, 0, 1, 1);
		i++;
	}
	if (qc.failed || qc.depth != 1)
	{
		pfree(jumps);
		pfree(qc.prog);
		return NULL;
	}
	/* a qual that is not true skips all the others */
	patch_jumps(&qc, jumps, njumps);
	pfree(jumps);
	return qc.prog;
}

/*
 * Whether some row could make the program raise an error (arithmetic);
 * comparisons, casts and boolean logic never do.
 */
bool
GpuselProgramCanError(const GpuselProgram *prog)
{
	for (int pc = 0; pc < prog->ncode; pc++)
	{
		int			op = prog->code[pc].op;

		if (GS_OP_IS_ARITH(op) || op == GS_OP_RANGE_GUARD)
			return true;
	}
	return false;
}

/*
 * Whether the program reads a column whose batch values cannot all become
 * its values again: a numeric read only where its values fit
 * (GPUSEL_FORM_NUMERIC_FIT) or as 128-bit halves, or a date read as its
 * midnight in the TimeZone.  The CPU evaluates such quals on the heap
 * tuples.
 */
bool
GpuselProgramHasUndecodableColumns(const GpuselProgram *prog)
{
	for (int c = 0; c < prog->ncols; c++)
		if (prog->form[c] != GPUSEL_FORM_PLAIN && GpuselFormLookup(prog->form[c])->decode == NULL)
			return true;
	return false;
}

/*
 * Whether some qual the device takes reads a column whose batch values
 * cannot become its values again (GpuselProgramHasUndecodableColumns), at
 * plan time: such a scan needs the tuples on the CPU.
 */
bool
GpuselQualsReadUndecodableColumns(List *quals, Index relid)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		GpuselProgram *prog = GpuselCompileQuals(list_make1(lfirst(lc)), relid);
		bool		undecodable = prog != NULL && GpuselProgramHasUndecodableColumns(prog);

		if (prog != NULL)
			pfree(prog);
		if (undecodable)
			return true;
	}
	return false;
}

/* Whether the device can evaluate a clause of the relation relid. */
bool
GpuselQualIsDeviceable(Expr *clause, Index relid)
{
	GpuselProgram *prog = GpuselCompileQuals(list_make1(clause), relid);

	if (prog == NULL)
		return false;
	pfree(prog);
	return true;
}

/* Walker of GpuselExprHasMarker. */
static bool
has_marker_walker(Node *node, void *context)
{
	Oid			marker = *(Oid *) context;

	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid == marker)
		return true;
	return expression_tree_walker(node, has_marker_walker, context);
}

/* Whether an expression calls gpu_filter() anywhere. */
bool
GpuselExprHasMarker(Node *node)
{
	Oid			marker = GpuselFilterFuncOid();

	if (!OidIsValid(marker))
		return false;
	return has_marker_walker(node, &marker);
}

/* Mutator of GpuselStripMarker. */
static Node *
strip_marker_mutator(Node *node, void *context)
{
	Oid			marker = *(Oid *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid == marker &&
		list_length(((FuncExpr *) node)->args) == 1)
		return strip_marker_mutator(linitial(((FuncExpr *) node)->args), context);
	return expression_tree_mutator(node, strip_marker_mutator, context);
}

/*
 * A copy of the clause without its gpu_filter() calls, which return their
 * argument unchanged; the executor's CPU path then evaluates the bare
 * predicate and EXPLAIN shows it.
 */
Expr *
GpuselStripMarker(Expr *clause)
{
	Oid			marker = GpuselFilterFuncOid();

	if (!OidIsValid(marker))
		return clause;
	return (Expr *) strip_marker_mutator((Node *) clause, &marker);
}
