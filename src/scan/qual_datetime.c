/*
 * qual_datetime.c
 *	  Comparisons of a date with a timestamp or timestamptz constant, turned
 *	  into comparisons of the date with a date.
 *
 * "l_shipdate < date '1994-01-01' + interval '1' year" folds to a date
 * compared with a timestamp constant.  The device compares dates as int4
 * day numbers, so the constant becomes a day number with the same answer
 * for every date: PostgreSQL converts the date to a timestamp (midnight;
 * for timestamptz, midnight in the session's TimeZone) and compares, and
 * that conversion never decreases as the date grows, -infinity and
 * +infinity included.  The dates that compare below the constant are
 * therefore all dates below some bound, found by bisection with
 * PostgreSQL's own comparison function, so the bound is exact by
 * construction, whatever the time zone, its rules or the range limits.
 *
 * The bound is computed when the qual is compiled, which the executor does
 * at each scan's start, so a timestamptz bound follows the TimeZone of the
 * execution, as PostgreSQL's stable comparison does.
 *
 * A date compared with a timestamp that is not a constant (a column, an
 * expression the device computes) is the date's midnight, its day number
 * times the microseconds of a day, compared with the timestamp as int8:
 * PostgreSQL's comparison for every date that has a timestamp, the
 * timestamp's infinities included.  An infinite date, or one past the
 * timestamps' range, fails a range guard and its batch goes to the
 * executor.  Against a timestamptz, midnight depends on the TimeZone's
 * rules at each date, which the device does not hold: the host reads such
 * a date column as its midnight in the session's TimeZone
 * (GPUSEL_FORM_DATE_TIMESTAMPTZ, GpuselDateMidnightTz) and the device
 * compares that with the timestamptz.
 *
 * A timestamp or timestamptz that the device computes (a column) compared
 * with a date constant is the timestamp compared with an int8 bound, found
 * the same way by bisection over every int8, when the qual is compiled:
 * for timestamptz, the date's midnight in the execution's TimeZone.
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "utils/date.h"
#include "pgtime.h"
#include "utils/fmgroids.h"
#include "utils/timestamp.h"

#include "qual_compile.h"

/* One date-versus-timestamp comparison function. */
typedef struct DateTimestampOp
{
	Oid			funcid;
	int16		opcode;			/* gs_opcode, as "date OP constant" */
	bool		date_first;		/* the date is the first argument */
	bool		with_tz;		/* the other side is timestamptz */
} DateTimestampOp;

static const DateTimestampOp date_timestamp_ops[] = {
	{F_DATE_LT_TIMESTAMP, GS_OP_LT, true, false}, {F_DATE_LE_TIMESTAMP, GS_OP_LE, true, false},
	{F_DATE_EQ_TIMESTAMP, GS_OP_EQ, true, false}, {F_DATE_NE_TIMESTAMP, GS_OP_NE, true, false},
	{F_DATE_GT_TIMESTAMP, GS_OP_GT, true, false}, {F_DATE_GE_TIMESTAMP, GS_OP_GE, true, false},
	/* timestamp OP date is date (reversed OP) timestamp */
	{F_TIMESTAMP_LT_DATE, GS_OP_GT, false, false}, {F_TIMESTAMP_LE_DATE, GS_OP_GE, false, false},
	{F_TIMESTAMP_EQ_DATE, GS_OP_EQ, false, false}, {F_TIMESTAMP_NE_DATE, GS_OP_NE, false, false},
	{F_TIMESTAMP_GT_DATE, GS_OP_LT, false, false}, {F_TIMESTAMP_GE_DATE, GS_OP_LE, false, false},
	{F_DATE_LT_TIMESTAMPTZ, GS_OP_LT, true, true}, {F_DATE_LE_TIMESTAMPTZ, GS_OP_LE, true, true},
	{F_DATE_EQ_TIMESTAMPTZ, GS_OP_EQ, true, true}, {F_DATE_NE_TIMESTAMPTZ, GS_OP_NE, true, true},
	{F_DATE_GT_TIMESTAMPTZ, GS_OP_GT, true, true}, {F_DATE_GE_TIMESTAMPTZ, GS_OP_GE, true, true},
	{F_TIMESTAMPTZ_LT_DATE, GS_OP_GT, false, true}, {F_TIMESTAMPTZ_LE_DATE, GS_OP_GE, false, true},
	{F_TIMESTAMPTZ_EQ_DATE, GS_OP_EQ, false, true}, {F_TIMESTAMPTZ_NE_DATE, GS_OP_NE, false, true},
	{F_TIMESTAMPTZ_GT_DATE, GS_OP_LT, false, true}, {F_TIMESTAMPTZ_GE_DATE, GS_OP_LE, false, true},
};

/* The first and one past the last day number of a finite date. */
#define FIRST_DATE	(DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE)
#define END_DATE	(DATE_END_JULIAN - POSTGRES_EPOCH_JDATE)


/*
 * Every date in order: position 0 is -infinity, 1.. the finite dates, and
 * the last +infinity.
 */
#define NPOSITIONS	((int64) (END_DATE - FIRST_DATE) + 2)

/* The date at a position of that order. */
static DateADT
date_at(int64 pos)
{
	if (pos == 0)
		return DATEVAL_NOBEGIN;
	if (pos == NPOSITIONS - 1)
		return DATEVAL_NOEND;
	return (DateADT) (FIRST_DATE + pos - 1);
}

/* PostgreSQL's comparison of a date with the constant: -1, 0 or 1. */
static int
compare_date(DateADT d, Datum constant, bool with_tz)
{
	int32		c = with_tz ?
		date_cmp_timestamptz_internal(d, DatumGetTimestampTz(constant)) :
		date_cmp_timestamp_internal(d, DatumGetTimestamp(constant));

	return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

/*
 * The first position whose date compares at least 'least' (0 or 1) with
 * the constant, NPOSITIONS when none does.
 */
static int64
first_at_least(Datum constant, bool with_tz, int least)
{
	int64		lo = 0;
	int64		hi = NPOSITIONS;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (compare_date(date_at(mid), constant, with_tz) >= least)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * "x opcode constant" over values in an order where those at positions
 * below 'below' compare less than the constant and below..through-1 equal
 * to it, as "position *out_opcode *position": *position is npositions
 * where no value is at it, which with LE is always true and with GT always
 * false for every value.  False when two values equal the constant.
 */
static bool
position_bound(int opcode, int128 below, int128 through, int128 npositions, int *out_opcode,
			   int128 *position)
{
	switch (opcode)
	{
		case GS_OP_LT:
		case GS_OP_LE:
			*position = opcode == GS_OP_LT ? below : through;
			*out_opcode = *position == npositions ? GS_OP_LE : GS_OP_LT;
			return true;
		case GS_OP_GT:
		case GS_OP_GE:
			*position = opcode == GS_OP_GE ? below : through;
			*out_opcode = *position == npositions ? GS_OP_GT : GS_OP_GE;
			return true;
		case GS_OP_EQ:
		case GS_OP_NE:
			if (through == below)
			{
				/* no value equals the constant */
				*position = npositions;
				*out_opcode = opcode == GS_OP_EQ ? GS_OP_GT : GS_OP_LE;
				return true;
			}
			if (through != below + 1)
				return false;	/* two values equal it: cannot happen */
			*position = below;
			*out_opcode = opcode;
			return true;
	}
	return false;
}

/*
 * If funcid compares a date with a timestamp (without time zone): sets
 * *date_arg to the date's argument and *opcode so that "date opcode
 * timestamp" is the function's comparison, and returns true.
 */
bool
GpuselDateTimestampOp(Oid funcid, int *date_arg, int *opcode)
{
	for (int i = 0; i < lengthof(date_timestamp_ops); i++)
		if (date_timestamp_ops[i].funcid == funcid && !date_timestamp_ops[i].with_tz)
		{
			*date_arg = date_timestamp_ops[i].date_first ? 0 : 1;
			*opcode = date_timestamp_ops[i].opcode;
			return true;
		}
	return false;
}

/*
 * If funcid compares a date with a timestamptz: sets *date_arg to the
 * date's argument and *opcode so that "date opcode timestamptz" is the
 * function's comparison, and returns true.
 */
bool
GpuselDateTimestamptzOp(Oid funcid, int *date_arg, int *opcode)
{
	for (int i = 0; i < lengthof(date_timestamp_ops); i++)
		if (date_timestamp_ops[i].funcid == funcid && date_timestamp_ops[i].with_tz)
		{
			*date_arg = date_timestamp_ops[i].date_first ? 0 : 1;
			*opcode = date_timestamp_ops[i].opcode;
			return true;
		}
	return false;
}

/*
 * The date-versus-timestamp comparison funcid is, when one argument is a
 * non-NULL constant: the date (date_constant) or the other one, set in *c;
 * NULL for any other call.
 */
static const DateTimestampOp *
op_with_constant(Oid funcid, List *args, bool date_constant, Const **c)
{
	const DateTimestampOp *op = NULL;

	for (int i = 0; i < lengthof(date_timestamp_ops); i++)
		if (date_timestamp_ops[i].funcid == funcid)
			op = &date_timestamp_ops[i];
	if (op == NULL || list_length(args) != 2)
		return NULL;
	/* the date is the first argument exactly when date_first */
	*c = (Const *) (op->date_first == date_constant ? linitial(args) : lsecond(args));
	if (!IsA(*c, Const) || (*c)->constisnull)
		return NULL;
	return op;
}

/*
 * If funcid compares a date with a timestamp or timestamptz, and the other
 * argument is a non-NULL constant: sets *date_arg to the date's argument
 * and *opcode and *bound so that "date opcode bound", compared as int4,
 * has the function's answer for every date, NULL included, and returns
 * true.  An answer that is the same for every non-NULL date comes back as
 * "<= INT32_MAX" (always true) or "> INT32_MAX" (always false).
 */
bool
GpuselDateTimestampBound(Oid funcid, List *args, int *date_arg, int *opcode, int32 *bound)
{
	Const	   *c;
	const DateTimestampOp *op = op_with_constant(funcid, args, false, &c);
	int64		below;
	int64		through;
	int128		position;

	if (op == NULL)
		return false;
	*date_arg = op->date_first ? 0 : 1;

	/* dates at positions < below compare less; below..through-1 equal */
	below = first_at_least(c->constvalue, op->with_tz, 0);
	through = first_at_least(c->constvalue, op->with_tz, 1);

	if (!position_bound(op->opcode, below, through, NPOSITIONS, opcode, &position))
		return false;
	*bound = position == NPOSITIONS ? PG_INT32_MAX : date_at((int64) position);
	return true;
}

/* PostgreSQL's comparison of a timestamp (int8) with the date constant: -1, 0 or 1. */
static int
compare_timestamp(int64 t, DateADT d, bool with_tz)
{
	int32		c = with_tz ?
		date_cmp_timestamptz_internal(d, (TimestampTz) t) :
		date_cmp_timestamp_internal(d, (Timestamp) t);

	return c > 0 ? -1 : (c < 0 ? 1 : 0);
}

/*
 * The first timestamp, as an offset from INT64_MIN (every int8 in order,
 * the infinities at the ends), that compares at least 'least' (0 or 1)
 * with the date, 2^64 when none does.
 */
static int128
first_timestamp_at_least(DateADT d, bool with_tz, int least)
{
	int128		lo = 0;
	int128		hi = (int128) 1 << 64;

	while (lo < hi)
	{
		int128		mid = lo + (hi - lo) / 2;

		if (compare_timestamp((int64) (mid + PG_INT64_MIN), d, with_tz) >= least)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * If funcid compares a timestamp or timestamptz with a date, and the date
 * is a non-NULL constant: sets *ts_arg to the timestamp's argument and
 * *opcode and *bound so that "timestamp opcode bound", compared as int8,
 * has the function's answer for every timestamp, NULL included, and
 * returns true.  The bound is found by bisection over every int8 with
 * PostgreSQL's own comparison, so for timestamptz it is the date's
 * midnight in the session's TimeZone, and a date past the timestamps'
 * range orders as PostgreSQL orders it.  An answer that is the same for
 * every non-NULL timestamp comes back as "<= INT64_MAX" (always true) or
 * "> INT64_MAX" (always false).
 */
bool
GpuselTimestampDateBound(Oid funcid, List *args, int *ts_arg, int *opcode, int64 *bound)
{
	Const	   *c;
	const DateTimestampOp *op = op_with_constant(funcid, args, true, &c);
	int128		none = (int128) 1 << 64;
	int128		below;
	int128		through;
	int128		position;

	if (op == NULL)
		return false;
	*ts_arg = op->date_first ? 1 : 0;

	/* timestamps below 'below' compare less than the date; below..through-1 equal */
	below = first_timestamp_at_least(DatumGetDateADT(c->constvalue), op->with_tz, 0);
	through = first_timestamp_at_least(DatumGetDateADT(c->constvalue), op->with_tz, 1);

	/* the table's opcode is "date OP timestamp": turned round */
	if (!position_bound(GpuselCommuteOpcode(op->opcode), below, through, none, opcode, &position))
		return false;
	*bound = position == none ? PG_INT64_MAX : (int64) (position + PG_INT64_MIN);
	return true;
}
