/*
 * groupagg_aggtable.c
 *	  The grouped scan's aggregates as a table, one row each: how a row's
 *	  value updates a group's cell, how a block of a batch column's values
 *	  does, how two processes' cells combine, the final value, and what the
 *	  planner and the device need to know of it.
 *
 * A cell starts zeroed (GroupCell).  Each aggregate keeps PostgreSQL's
 * result type, its overflow errors and, where the order of rows matters
 * (float sums, float8_accum), its group's rows in scan order.  Percentiles
 * keep no cell: their keys go to a collection (groupagg_rows.c), and their
 * final value is selected from it (groupagg_results.c).  Adding an
 * aggregate is a kind in groupagg.h, a row here, and its recognition in
 * groupagg_aggs.c.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "column_form.h"
#include "groupagg_internal.h"
#include "numeric_form.h"
#include "order_keys.h"

/* Integer input as int64, by its type. */
static inline int64
int_input(Datum value, Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		default:
			return DatumGetInt64(value);
	}
}

/* Float input as float8, by its type. */
static inline double
float_input(Datum value, Oid typid)
{
	return typid == FLOAT4OID ? (double) DatumGetFloat4(value) : DatumGetFloat8(value);
}

/*
 * float8_accum's step: Youngs-Cramer, with its overflow rule, on the three
 * parts of the state held apart, so that a caller keeping them in locals
 * lets the sum's chain run ahead of Sxx's divisions.
 */
static inline void
accum_float_parts(int64 *count, double *fsum, double *sxxp, double newval)
{
	double		n = (double) *count + 1.0;
	double		sx = *fsum + newval;
	double		sxx = *sxxp;

	if (*count > 0)
	{
		double		tmp = newval * n - sx;

		sxx += tmp * tmp / (n * (double) *count);
		if (isinf(sx) || isinf(sxx))
		{
			if (!isinf(*fsum) && !isinf(newval))
				float_overflow_error();
			sxx = get_float8_nan();
		}
	}
	else if (isnan(newval) || isinf(newval))
		sxx = get_float8_nan();
	(*count)++;
	*fsum = sx;
	*sxxp = sxx;
}

/* float4pl's and float8pl's sum, with their overflow rule. */
static inline double
add_float(double a, double b, bool single)
{
	double		r = single ? (double) ((float4) a + (float4) b) : a + b;

	if (unlikely(isinf(r)) && !isinf(a) && !isinf(b))
		float_overflow_error();
	return r;
}

/* A 128-bit integer as numeric. */
static Datum
int128_to_numeric(int128 value)
{
	char		buf[48];
	char	   *p = buf + sizeof(buf);
	uint128		u = value < 0 ? -(uint128) value : (uint128) value;

	*--p = '\0';
	do
	{
		*--p = '0' + (int) (u % 10);
		u /= 10;
	} while (u != 0);
	if (value < 0)
		*--p = '-';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(p),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * ---- row updates: inline in the block updates below, and called through
 * the table for a row at a time ----
 */

/* count(*) and count(x): one more row or non-NULL input. */
static inline void
update_count(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	cell->count++;
}

/* sum and avg of integers: exact in 128 bits. */
static inline void
update_int_sum(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	cell->isum += int_input(v, desc->input_type);
	cell->count++;
}

/* sum and avg of numerics: a native value, a scaled batch value or a numeric. */
static inline void
update_numeric_sum(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	if (sink->numvalues[desc->input].native)
		GroupAggNumericAddNative(cell, &sink->numvalues[desc->input]);
	else if (GpuselFormLookup(sink->inputs[desc->input].form)->scaled_numeric)
		GroupAggNumericAddScaled(cell, DatumGetInt64(v), sink->inputs[desc->input].form_arg);
	else
		GroupAggNumericAdd(cell, v, sink->cxt);
}

/* sum(float4): float4pl's steps in float4. */
static inline void
update_float4_sum(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	float4		x = DatumGetFloat4(v);

	if (cell->count == 0)
		cell->fsum = x;
	else
	{
		float4		s = (float4) cell->fsum;
		float4		r = s + x;

		if (unlikely(isinf(r)) && !isinf(s) && !isinf(x))
			float_overflow_error();
		cell->fsum = r;
	}
	cell->count++;
}

/* sum(float8): float8pl's steps. */
static inline void
update_float8_sum(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	float8		x = DatumGetFloat8(v);

	if (cell->count == 0)
		cell->fsum = x;
	else
	{
		float8		r = cell->fsum + x;

		if (unlikely(isinf(r)) && !isinf(cell->fsum) && !isinf(x))
			float_overflow_error();
		cell->fsum = r;
	}
	cell->count++;
}

/* avg(float4|float8): float8_accum's step. */
static inline void
update_avg_float(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	accum_float_parts(&cell->count, &cell->fsum, &cell->sxx, float_input(v, desc->input_type));
}

/* min and max: by the input's order key; of two equal values the later is kept, as PostgreSQL does. */
static inline void
update_extreme(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
	const KeyType *kt = sink->inputs[desc->input].keytype;
	uint64		key;

	/* a numeric column without keys: compared as numerics */
	if (kt == NULL)
	{
		GroupAggNumericExtreme(cell, v, desc->kind == GROUPAGG_MIN, sink->cxt);
		return;
	}
	key = kt->to_key(v);
	if (cell->count == 0 ||
		(desc->kind == GROUPAGG_MIN ? key <= cell->key : key >= cell->key))
	{
		cell->key = key;
		cell->value = v;
	}
	cell->count++;
}

/* Percentiles: nothing in the cell (their keys go to a collection). */
static inline void
update_none(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, Datum v)
{
}

/*
 * A block update made of a row update: a block's values of one batch
 * column into each row's group's cell, in the rows' order, NULL inputs
 * skipped (every aggregate here is strict), the row update inlined.
 */
#define DEFINE_BLOCK_UPDATE(block_name, row_update) \
static void \
block_name(GroupAggSink *sink, const GroupAggDesc *desc, int a, const int64 *groups, \
		   const void *values, gs_coltype coltype, const uint8 *nl, \
		   const uint32 *rows, int64 start, int len) \
{ \
	GroupCell  *cells = sink->cells; \
	int			naggs = sink->naggs; \
\
	for (int j = 0; j < len; j++) \
	{ \
		int64		row = rows != NULL ? (int64) rows[j] : start + j; \
\
		if (nl != NULL && nl[row]) \
			continue; \
		row_update(sink, desc, &cells[groups[j] * naggs + a], \
				   GpuselLoadValue(values, row, coltype)); \
	} \
}

DEFINE_BLOCK_UPDATE(block_count, update_count)
DEFINE_BLOCK_UPDATE(block_int_sum_rows, update_int_sum)
DEFINE_BLOCK_UPDATE(block_numeric_sum, update_numeric_sum)
DEFINE_BLOCK_UPDATE(block_float4_sum, update_float4_sum)
DEFINE_BLOCK_UPDATE(block_float8_sum, update_float8_sum)
DEFINE_BLOCK_UPDATE(block_extreme_rows, update_extreme)
DEFINE_BLOCK_UPDATE(block_avg_float_rows, update_avg_float)

/*
 * avg(float4|float8) of a block: without GROUP BY every row's cell is the
 * same one, so its non-NULL inputs are gathered first, then accumulated
 * with the state in three locals (the compiler packs the sum and Sxx into
 * one vector register, which chains each row's sum to the last row's
 * division).
 */
static void
block_avg_float(GroupAggSink *sink, const GroupAggDesc *desc, int a, const int64 *groups,
				const void *values, gs_coltype coltype, const uint8 *nl,
				const uint32 *rows, int64 start, int len)
{
	const float8 *f8 = (const float8 *) values;
	const float4 *f4 = (const float4 *) values;
	GroupCell  *cell = &sink->cells[groups[0] * sink->naggs + a];
	double		inputs[KEYS_BLOCK];
	int			n = 0;
	int64		count;
	double		fsum;
	double		sxx;

	if (sink->nkeys > 0 || (coltype != GS_COL_FLOAT8 && coltype != GS_COL_FLOAT4))
	{
		block_avg_float_rows(sink, desc, a, groups, values, coltype, nl, rows, start, len);
		return;
	}
	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;

		if (nl != NULL && nl[row])
			continue;
		inputs[n++] = coltype == GS_COL_FLOAT8 ? f8[row] : (double) f4[row];
	}
	count = cell->count;
	fsum = cell->fsum;
	sxx = cell->sxx;
	for (int j = 0; j < n; j++)
		accum_float_parts(&count, &fsum, &sxx, inputs[j]);
	cell->count = count;
	cell->fsum = fsum;
	cell->sxx = sxx;
}

/*
 * sum and avg of an integer column of a block, by a loop typed by the
 * column: into each row's group's cell, or, without GROUP BY, where every
 * row's cell is the same one, into a local, exactly in 128 bits.
 */
static void
block_int_sum(GroupAggSink *sink, const GroupAggDesc *desc, int a, const int64 *groups,
			  const void *values, gs_coltype coltype, const uint8 *nl,
			  const uint32 *rows, int64 start, int len)
{
	GroupCell  *cell = &sink->cells[groups[0] * sink->naggs + a];
	int128		sum = 0;
	int64		count = 0;

#define SUM_LOOP(ctype) \
	do { \
		const ctype *col = (const ctype *) values; \
		GroupCell  *cells = sink->cells; \
		int			naggs = sink->naggs; \
		if (sink->nkeys > 0) \
			for (int j = 0; j < len; j++) \
			{ \
				int64		row = rows != NULL ? (int64) rows[j] : start + j; \
				GroupCell  *c = &cells[groups[j] * naggs + a]; \
\
				if (nl != NULL && nl[row]) \
					continue; \
				c->isum += col[row]; \
				c->count++; \
			} \
		else if (rows == NULL && nl == NULL) \
		{ \
			for (int j = 0; j < len; j++) \
				sum += col[start + j]; \
			count = len; \
		} \
		else \
			for (int j = 0; j < len; j++) \
			{ \
				int64		row = rows != NULL ? (int64) rows[j] : start + j; \
				bool		valid = nl == NULL || !nl[row]; \
\
				sum += valid ? col[row] : 0; \
				count += valid; \
			} \
	} while (0)

	if (coltype == GS_COL_INT2 && desc->input_type == INT2OID)
		SUM_LOOP(int16);
	else if (coltype == GS_COL_INT4 && desc->input_type == INT4OID)
		SUM_LOOP(int32);
	else if (coltype == GS_COL_INT8 && desc->input_type == INT8OID)
		SUM_LOOP(int64);
	else
	{
		block_int_sum_rows(sink, desc, a, groups, values, coltype, nl, rows, start, len);
		return;
	}
#undef SUM_LOOP
	/* without GROUP BY: the block's sum and count, kept in locals */
	if (sink->nkeys == 0)
	{
		cell->isum += sum;
		cell->count += count;
	}
}

/*
 * min and max of a block: the keys of a column of a key type are computed
 * for the block at once (KeysOfColumn's straight loops), so that a row
 * costs a comparison with its group's key; the value is loaded only when
 * it becomes the group's.
 */
static void
block_extreme(GroupAggSink *sink, const GroupAggDesc *desc, int a, const int64 *groups,
			  const void *values, gs_coltype coltype, const uint8 *nl,
			  const uint32 *rows, int64 start, int len)
{
	const KeyType *kt = sink->inputs[desc->input].keytype;
	GroupCell  *cells = sink->cells;
	int			naggs = sink->naggs;
	bool		is_min = desc->kind == GROUPAGG_MIN;
	uint64		keys[KEYS_BLOCK];

	if (kt == NULL || !KeysOfColumn(coltype, kt->typid, values, rows, start, len, keys))
	{
		block_extreme_rows(sink, desc, a, groups, values, coltype, nl, rows, start, len);
		return;
	}
	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;
		GroupCell  *cell = &cells[groups[j] * naggs + a];
		uint64		key = keys[j];

		if (nl != NULL && nl[row])
			continue;
		/* of two equal values the later is kept, as in update_extreme */
		if (cell->count == 0 || (is_min ? key <= cell->key : key >= cell->key))
		{
			cell->key = key;
			cell->value = GpuselLoadValue(values, row, coltype);
		}
		cell->count++;
	}
}

/* Percentiles: their keys are collected by the caller. */
static void
block_none(GroupAggSink *sink, const GroupAggDesc *desc, int a, const int64 *groups,
		   const void *values, gs_coltype coltype, const uint8 *nl,
		   const uint32 *rows, int64 start, int len)
{
}

/* ---- combining a worker's cell into the consumer's ---- */

/* Counts add. */
static void
combine_count(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	dst->count += src->count;
}

/* Integer sums add, exactly. */
static void
combine_int_sum(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	dst->isum += src->isum;
	dst->count += src->count;
}

/* Float sums add with float4pl's or float8pl's rule. */
static void
combine_float_sum(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	dst->fsum = dst->count == 0 ? src->fsum :
		add_float(dst->fsum, src->fsum, desc->kind == GROUPAGG_SUM_FLOAT4);
	dst->count += src->count;
}

/* float8_combine. */
static void
combine_avg_float(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	double		n1,
				n2,
				n,
				sx,
				tmp,
				sxx;

	if (dst->count == 0)
	{
		*dst = *src;
		return;
	}
	n1 = (double) dst->count;
	n2 = (double) src->count;
	n = n1 + n2;
	sx = add_float(dst->fsum, src->fsum, false);
	tmp = dst->fsum / n1 - src->fsum / n2;
	sxx = dst->sxx + src->sxx + n1 * n2 * tmp * tmp / n;
	if (unlikely(isinf(sxx)) && !isinf(dst->sxx) && !isinf(src->sxx))
		float_overflow_error();
	dst->fsum = sx;
	dst->sxx = sxx;
	dst->count += src->count;
}

/* The more extreme key wins; of equal ones the later worker's. */
static void
combine_extreme(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	if (dst->count == 0 ||
		(desc->kind == GROUPAGG_MIN ? src->key <= dst->key : src->key >= dst->key))
	{
		dst->key = src->key;
		dst->value = src->value;
	}
	dst->count += src->count;
}

/* Numeric sums add in 256 bits. */
static void
combine_numeric_sum(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
	GroupAggNumericMerge(dst, src);
}

/* Percentiles: their keys come as pairs. */
static void
combine_none(const GroupAggDesc *desc, GroupCell *dst, const GroupCell *src)
{
}

/* ---- final values, as PostgreSQL's final functions give them ---- */

/* count: the rows or non-NULL inputs, 0 for none. */
static Datum
final_count(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return Int64GetDatum(cell->count);
}

/* sum(int2|int4) -> int8. */
static Datum
final_sum_int(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return Int64GetDatum((int64) cell->isum);
}

/* sum(int8) -> numeric. */
static Datum
final_sum_int8(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return int128_to_numeric(cell->isum);
}

/* avg(integers) -> numeric: numeric_div of the sum by the count. */
static Datum
final_avg_int(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return DirectFunctionCall2(numeric_div, int128_to_numeric(cell->isum),
							   NumericGetDatum(int64_to_numeric(cell->count)));
}

/* sum(float4) -> float4. */
static Datum
final_sum_float4(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return Float4GetDatum((float4) cell->fsum);
}

/* sum(float8) -> float8. */
static Datum
final_sum_float8(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return Float8GetDatum(cell->fsum);
}

/* avg(float) -> float8: float8_avg. */
static Datum
final_avg_float(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return Float8GetDatum(cell->fsum / (double) cell->count);
}

/* sum(numeric). */
static Datum
final_sum_numeric(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return GroupAggNumericSum(cell);
}

/* avg(numeric). */
static Datum
final_avg_numeric(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	return GroupAggNumericAvg(cell);
}

/* min and max: the value kept, decoded where its column was read as int8. */
static Datum
final_extreme(GroupAggSink *sink, const GroupAggDesc *desc, GroupCell *cell, int64 g, bool *isnull)
{
	GroupInput *in = &sink->inputs[desc->input];

	if (in->form != GPUSEL_FORM_PLAIN)
		return GpuselFormDecode(in->form, in->form_arg, DatumGetInt64(cell->value));
	return cell->value;
}

/* A numeric sum's cells cross when its input's typmods bound them (groupagg_numeric.c). */
static bool
numeric_sum_crosses(Expr *input)
{
	return GroupAggNumericInputBounded(input);
}

/* min and max of a numeric cross as scaled values: numeric(p,s) with p <= 18 only. */
static bool
extreme_crosses(Expr *input)
{
	int			scale;

	return exprType((Node *) input) != NUMERICOID ||
		GpuselNumericScale(NUMERICOID, exprTypmod((Node *) input), &scale);
}

/*
 * Percentile keys cross as order keys: not values kept whole (interval,
 * copied a row at a time by one process), nor numeric columns wider than
 * 18 digits, whose values past them are kept apart (groupagg_bigkeys.c).
 */
static bool
percentile_crosses(Expr *input)
{
	Oid			typid = exprType((Node *) input);
	int			scale;

	if (KeptValueTypeLookup(typid) != NULL)
		return false;
	return typid != NUMERICOID || GpuselNumericScale(NUMERICOID, exprTypmod((Node *) input), &scale);
}

/*
 * The table.  strict: NULL for a group without a non-NULL input.  flags:
 * what the planner and the device ask of an aggregate.  crosses: whether
 * a worker's part may go to the leader (NULL: always), which decides
 * whether the plan may go under Gather.
 */
static const GroupAggMethods methods[] = {
	{GROUPAGG_COUNT_STAR, "count(*)", false, 0,
	update_count, block_count, combine_count, final_count},
	{GROUPAGG_COUNT, "count", false, 0,
	update_count, block_count, combine_count, final_count},
	{GROUPAGG_SUM_INT, "sum", true, 0,
	update_int_sum, block_int_sum, combine_int_sum, final_sum_int},
	{GROUPAGG_SUM_INT8, "sum", true, 0,
	update_int_sum, block_int_sum, combine_int_sum, final_sum_int8},
	{GROUPAGG_SUM_FLOAT4, "sum", true, GROUPAGG_MAY_FAIL,
	update_float4_sum, block_float4_sum, combine_float_sum, final_sum_float4},
	{GROUPAGG_SUM_FLOAT8, "sum", true, GROUPAGG_MAY_FAIL,
	update_float8_sum, block_float8_sum, combine_float_sum, final_sum_float8},
	{GROUPAGG_AVG_INT, "avg", true, 0,
	update_int_sum, block_int_sum, combine_int_sum, final_avg_int},
	{GROUPAGG_AVG_FLOAT, "avg", true, GROUPAGG_MAY_FAIL,
	update_avg_float, block_avg_float, combine_avg_float, final_avg_float},
	{GROUPAGG_SUM_NUMERIC, "sum", true, GROUPAGG_NUMERIC_SUM,
	update_numeric_sum, block_numeric_sum, combine_numeric_sum, final_sum_numeric,
	numeric_sum_crosses},
	{GROUPAGG_AVG_NUMERIC, "avg", true, GROUPAGG_NUMERIC_SUM,
	update_numeric_sum, block_numeric_sum, combine_numeric_sum, final_avg_numeric,
	numeric_sum_crosses},
	{GROUPAGG_MIN, "min", true, 0,
	update_extreme, block_extreme, combine_extreme, final_extreme, extreme_crosses},
	{GROUPAGG_MAX, "max", true, 0,
	update_extreme, block_extreme, combine_extreme, final_extreme, extreme_crosses},
	{GROUPAGG_PERCENTILE_DISC, "percentile_disc", false, GROUPAGG_COLLECTS_KEYS,
	update_none, block_none, combine_none, GroupAggPercentileFinal, percentile_crosses},
	{GROUPAGG_PERCENTILE_CONT, "percentile_cont", false, GROUPAGG_COLLECTS_KEYS,
	update_none, block_none, combine_none, GroupAggPercentileFinal, percentile_crosses},
};

/* The table's row of an aggregate kind. */
const GroupAggMethods *
GroupAggMethodsOf(GroupAggKind kind)
{
	if ((int) kind < 0 || (int) kind >= lengthof(methods) || methods[kind].kind != kind)
		elog(ERROR, "gpusel: unexpected aggregate kind %d", (int) kind);
	return &methods[kind];
}

/* Whether a worker's partial state of this kind over this input can go to the leader. */
bool
GroupAggKindCrosses(GroupAggKind kind, Expr *input)
{
	const GroupAggMethods *m = GroupAggMethodsOf(kind);

	return m->crosses == NULL || m->crosses(input);
}

/* Whether an aggregate of this kind has a flag (GROUPAGG_MAY_FAIL ...). */
bool
GroupAggKindHas(GroupAggKind kind, int flag)
{
	return (GroupAggMethodsOf(kind)->flags & flag) != 0;
}
