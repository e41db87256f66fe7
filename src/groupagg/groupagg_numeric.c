/*
 * groupagg_numeric.c
 *	  sum(numeric) and avg(numeric) in the grouped scan, exact.
 *
 * PostgreSQL adds numerics in arbitrary precision; the result's display
 * scale is the largest of the inputs'.  A cell here holds the sum as a
 * 256-bit integer times 10^scale, the scale being the largest input
 * display scale so far (the sum is rescaled when a larger one arrives),
 * and counts NaN and infinities apart, as numeric's accumulator does.  An
 * input whose values are bounded well inside 256 bits
 * (GroupAggNumericInputBounded) never overflows in a sum of 2^63 rows: its
 * overflow checks are a guard, never an answer, and its cells travel
 * between parallel processes as they are (the int128 fields hold the sum's
 * two halves, the key field the scale and the specials seen).
 *
 * An unbounded input (unconstrained numeric, a typmod of more digits) is
 * added the same way while the sum fits; the first value that would take
 * it past 256 bits, or past a scale it can reach, turns the cell into a
 * numeric sum of PostgreSQL's own arithmetic (numeric_add) for the rest of
 * the group, exact either way.  Such a cell holds a pointer, so those
 * inputs are not offered under Gather.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "groupagg_internal.h"
#include "numeric_core.h"
#include "numeric_stored.h"
#include "qual_compile.h"

/* The cell's key field: the sum's scale in the low 16 bits, then what was seen. */
#define CELL_SCALE_MASK		0xFFFF
#define CELL_SAW_NAN		(UINT64CONST(1) << 16)
#define CELL_SAW_PINF		(UINT64CONST(1) << 17)
#define CELL_SAW_NINF		(UINT64CONST(1) << 18)
#define CELL_NUMERIC		(UINT64CONST(1) << 19)	/* the finite sum is the numeric in value */

/* Input digits (at the input's own scale) of a bounded input: 2^256 > 10^77, sums of 2^63 rows add 19. */
#define MAX_INPUT_DIGITS	57
/* The largest scale a 256-bit sum takes: sum_to_numeric writes at most 96 digits */
#define MAX_SUM_SCALE		80

/* A 256-bit two's complement integer, least significant word first. */
typedef struct Int256
{
	uint64		w[4];
} Int256;

/* The cell's sum as an Int256. */
static inline Int256
cell_sum(const GroupCell *cell)
{
	Int256		v;
	uint128		lo = (uint128) cell->isum;
	uint128		hi = (uint128) cell->ihigh;

	v.w[0] = (uint64) lo;
	v.w[1] = (uint64) (lo >> 64);
	v.w[2] = (uint64) hi;
	v.w[3] = (uint64) (hi >> 64);
	return v;
}

/* Stores an Int256 as the cell's sum. */
static inline void
set_cell_sum(GroupCell *cell, Int256 v)
{
	cell->isum = (int128) (((uint128) v.w[1] << 64) | v.w[0]);
	cell->ihigh = (int128) (((uint128) v.w[3] << 64) | v.w[2]);
}

static inline bool
int256_negative(Int256 v)
{
	return (int64) v.w[3] < 0;
}

static Int256
int256_negate(Int256 v)
{
	Int256		r;
	uint64		carry = 1;

	for (int i = 0; i < 4; i++)
	{
		uint128		t = (uint128) (~v.w[i]) + carry;

		r.w[i] = (uint64) t;
		carry = (uint64) (t >> 64);
	}
	return r;
}

/* Raised if a sum leaves 256 bits, which the planner's bound rules out. */
static void
sum_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("numeric sum out of gpusel's range"),
			 errdetail("The sum of the group's values needs more than 256 bits.")));
}

/* a + b into *r; false where the signed sum overflows. */
static bool
int256_add_ok(Int256 a, Int256 b, Int256 *r)
{
	uint64		carry = 0;

	for (int i = 0; i < 4; i++)
	{
		uint128		t = (uint128) a.w[i] + b.w[i] + carry;

		r->w[i] = (uint64) t;
		carry = (uint64) (t >> 64);
	}
	return !(int256_negative(a) == int256_negative(b) && int256_negative(*r) != int256_negative(a));
}

/* a + b, with the signed overflow check. */
static Int256
int256_add(Int256 a, Int256 b)
{
	Int256		r;

	if (!int256_add_ok(a, b, &r))
		sum_overflow();
	return r;
}

/* v * m into *r for a non-negative v and m < 2^64; false where it leaves 255 bits. */
static bool
magnitude_mul_ok(Int256 v, uint64 m, Int256 *r)
{
	uint64		carry = 0;

	for (int i = 0; i < 4; i++)
	{
		uint128		t = (uint128) v.w[i] * m + carry;

		r->w[i] = (uint64) t;
		carry = (uint64) (t >> 64);
	}
	return carry == 0 && !int256_negative(*r);
}

/* v * 10^k into *r, any sign; false where it overflows. */
static bool
int256_scale_up_ok(Int256 v, int k, Int256 *r)
{
	bool		neg = int256_negative(v);

	if (neg)
		v = int256_negate(v);
	for (; k > 0; k -= 19)
	{
		uint64		m = 1;

		for (int i = 0; i < Min(k, 19); i++)
			m *= 10;
		if (!magnitude_mul_ok(v, m, &v))
			return false;
	}
	*r = neg ? int256_negate(v) : v;
	return true;
}

/* v * 10^k, any sign, with the overflow check. */
static Int256
int256_scale_up(Int256 v, int k)
{
	Int256		r;

	if (!int256_scale_up_ok(v, k, &r))
		sum_overflow();
	return r;
}

/* Divides a non-negative v by d in place and returns the remainder. */
static uint64
magnitude_divmod(Int256 *v, uint64 d)
{
	uint128		rem = 0;

	for (int i = 3; i >= 0; i--)
	{
		uint128		cur = (rem << 64) | v->w[i];

		v->w[i] = (uint64) (cur / d);
		rem = cur % d;
	}
	return (uint64) rem;
}

/*
 * A finite stored numeric as an integer times 10^dscale: the digit string
 * times 10^shift, where a negative shift drops zero decimals past the
 * display scale.
 */
static bool
stored_to_int256_ok(const NumericStored *n, Int256 *r)
{
	Int256		v = {{0, 0, 0, 0}};
	int			shift = numeric_stored_shift(n);

	for (int i = 0; i < n->ndigits; i++)
	{
		Int256		d = {{(uint64) numeric_stored_digit(n, i), 0, 0, 0}};

		if (!magnitude_mul_ok(v, NUMERIC_STORED_BASE, &v) || !int256_add_ok(v, d, &v))
			return false;
	}
	if (shift > 0 && !int256_scale_up_ok(v, shift, &v))
		return false;
	for (; shift < 0; shift++)
		(void) magnitude_divmod(&v, 10);
	*r = n->negative ? int256_negate(v) : v;
	return true;
}

/* A 128-bit integer as an Int256. */
static inline Int256
int256_from_int128(int128 x)
{
	Int256		v;
	uint128		u = (uint128) x;

	v.w[0] = (uint64) u;
	v.w[1] = (uint64) (u >> 64);
	v.w[2] = v.w[3] = x < 0 ? ~UINT64CONST(0) : 0;
	return v;
}

/*
 * Adds v * 10^-scale to the cell's sum: the sum takes the larger of the
 * two scales, as numeric addition does.  False, with the cell unchanged,
 * where the rescaled sum, the rescaled value or the new sum would leave
 * 256 bits.
 */
static bool
add_at_scale_ok(GroupCell *cell, Int256 v, int scale)
{
	int			cell_scale = (int) (cell->key & CELL_SCALE_MASK);
	Int256		sum = cell_sum(cell);

	if (scale > cell_scale)
	{
		if (!int256_scale_up_ok(sum, scale - cell_scale, &sum))
			return false;
		cell_scale = scale;
	}
	else if (scale < cell_scale && !int256_scale_up_ok(v, cell_scale - scale, &v))
		return false;
	if (!int256_add_ok(sum, v, &sum))
		return false;
	set_cell_sum(cell, sum);
	cell->key = (cell->key & ~(uint64) CELL_SCALE_MASK) | (uint64) cell_scale;
	return true;
}

/* add_at_scale_ok for a bounded input, whose sum never leaves 256 bits. */
static void
add_at_scale(GroupCell *cell, Int256 v, int scale)
{
	if (!add_at_scale_ok(cell, v, scale))
		sum_overflow();
}

/*
 * add_at_scale for a 128-bit value: while the sum fits 128 bits (its high
 * half only repeats the sign) and has the value's scale, one 128-bit
 * addition; otherwise the 256-bit way.
 */
static inline void
add_int128_at_scale(GroupCell *cell, int128 v, int scale)
{
	int			cell_scale = (int) (cell->key & CELL_SCALE_MASK);
	int128		r;

	if (likely(scale == cell_scale &&
			   cell->ihigh == (cell->isum < 0 ? -1 : 0) &&
			   !__builtin_add_overflow(cell->isum, v, &r)))
	{
		cell->isum = r;
		cell->ihigh = r < 0 ? -1 : 0;
		return;
	}
	add_at_scale(cell, int256_from_int128(v), scale);
}

/*
 * Adds a finite stored numeric to the cell's 256-bit sum; false, with the
 * cell unchanged, where the value, the rescaled sum or the new sum would
 * not fit.
 */
static bool
add_stored(GroupCell *cell, const NumericStored *n)
{
	Int256		v;

	return n->dscale <= MAX_SUM_SCALE && stored_to_int256_ok(n, &v) &&
		add_at_scale_ok(cell, v, n->dscale);
}

static Datum sum_to_numeric(const GroupCell *cell);

/* Adds a finite numeric to a cell's sum held as a numeric in cxt, once it is one. */
static void
add_as_numeric(GroupCell *cell, Datum value, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Datum		sum;

	if (!(cell->key & CELL_NUMERIC))
	{
		cell->value = sum_to_numeric(cell);
		cell->key |= CELL_NUMERIC;
	}
	sum = DirectFunctionCall2(numeric_add, cell->value, value);
	pfree(DatumGetPointer(cell->value));
	cell->value = sum;
	MemoryContextSwitchTo(old);
}

/*
 * Adds one non-NULL numeric input to a sum(numeric) or avg(numeric) cell:
 * in 256 bits while the sum fits, then as a numeric in cxt.
 */
void
GroupAggNumericAdd(GroupCell *cell, Datum value, MemoryContext cxt)
{
	NumericStored n;

	numeric_stored_decode(value, &n);
	cell->count++;
	switch (n.kind)
	{
		case NUMERIC_STORED_IS_NAN:
			cell->key |= CELL_SAW_NAN;
			return;
		case NUMERIC_STORED_IS_PINF:
			cell->key |= CELL_SAW_PINF;
			return;
		case NUMERIC_STORED_IS_NINF:
			cell->key |= CELL_SAW_NINF;
			return;
		default:
			break;
	}
	if ((cell->key & CELL_NUMERIC) || !add_stored(cell, &n))
		add_as_numeric(cell, value, cxt);
}

/*
 * Adds one value of a numeric(p,s) column, read as int8 times 10^scale
 * (GS_NUMERIC_NAN for NaN), to a sum(numeric) or avg(numeric) cell:
 * the stored value's display scale is the column's.
 */
void
GroupAggNumericAddScaled(GroupCell *cell, int64 scaled, int scale)
{
	cell->count++;
	if (scaled == GS_NUMERIC_NAN)
	{
		cell->key |= CELL_SAW_NAN;
		return;
	}
	add_int128_at_scale(cell, scaled, scale);
}

/* Adds the cell of the same aggregate and group from another process. */
void
GroupAggNumericMerge(GroupCell *dst, const GroupCell *src)
{
	int			ds = (int) (dst->key & CELL_SCALE_MASK);
	int			ss = (int) (src->key & CELL_SCALE_MASK);
	Int256		a = cell_sum(dst);
	Int256		b = cell_sum(src);

	if ((dst->key | src->key) & CELL_NUMERIC)
		elog(ERROR, "gpusel cannot merge a numeric sum held as a numeric");
	if (ds < ss)
		a = int256_scale_up(a, ss - ds);
	else if (ss < ds)
		b = int256_scale_up(b, ds - ss);
	set_cell_sum(dst, int256_add(a, b));
	dst->key = ((dst->key | src->key) & ~(uint64) CELL_SCALE_MASK) | (uint64) Max(ds, ss);
	dst->count += src->count;
}

/*
 * min(numeric) or max(numeric) of a column without keys (not numeric(p,s)
 * read as scaled int8): compared by numeric_cmp, keeping the later of two
 * equal values as numeric_smaller and numeric_larger do (1.0 and 1.00 are
 * equal), the kept value copied into cxt.
 */
void
GroupAggNumericExtreme(GroupCell *cell, Datum value, bool is_min, MemoryContext cxt)
{
	struct varlena *v;

	if (cell->count > 0)
	{
		int			c = DatumGetInt32(DirectFunctionCall2(numeric_cmp, value, cell->value));

		if (is_min ? c > 0 : c < 0)
		{
			cell->count++;
			return;
		}
		pfree(DatumGetPointer(cell->value));
	}
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
	cell->value = PointerGetDatum(MemoryContextAlloc(cxt, VARSIZE_ANY(v)));
	memcpy(DatumGetPointer(cell->value), v, VARSIZE_ANY(v));
	if (v != (struct varlena *) DatumGetPointer(value))
		pfree(v);
	cell->count++;
}

/* The cell's finite sum as a numeric with the sum's display scale. */
static Datum
sum_to_numeric(const GroupCell *cell)
{
	Int256		v = cell_sum(cell);
	int			scale = (int) (cell->key & CELL_SCALE_MASK);
	bool		neg = int256_negative(v);
	char		digits[96];
	char		text[112];
	int			nd = 0;
	int			pos = 0;

	if (neg)
		v = int256_negate(v);
	/* the decimal digits, least significant first */
	do
	{
		digits[nd++] = (char) ('0' + magnitude_divmod(&v, 10));
	} while (v.w[0] != 0 || v.w[1] != 0 || v.w[2] != 0 || v.w[3] != 0);
	while (nd <= scale)
		digits[nd++] = '0';
	if (neg)
		text[pos++] = '-';
	for (int i = nd - 1; i >= 0; i--)
	{
		text[pos++] = digits[i];
		if (i == scale && scale > 0)
			text[pos++] = '.';
	}
	text[pos] = '\0';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(text),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * The special result the inputs' NaN and infinities give, as numeric's
 * sum and avg give it; false when they were all finite.
 */
static bool
special_result(const GroupCell *cell, Datum *result)
{
	const char *s;

	if ((cell->key & CELL_SAW_NAN) ||
		((cell->key & CELL_SAW_PINF) && (cell->key & CELL_SAW_NINF)))
		s = "NaN";
	else if (cell->key & CELL_SAW_PINF)
		s = "Infinity";
	else if (cell->key & CELL_SAW_NINF)
		s = "-Infinity";
	else
		return false;
	*result = DirectFunctionCall3(numeric_in, CStringGetDatum(s),
								  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return true;
}

/* sum(numeric)'s result for a cell with at least one input. */
Datum
GroupAggNumericSum(const GroupCell *cell)
{
	Datum		result;

	if (special_result(cell, &result))
		return result;
	if (cell->key & CELL_NUMERIC)
		return cell->value;
	return sum_to_numeric(cell);
}

/* avg(numeric)'s result: the sum divided by the count, by numeric_div as PostgreSQL does. */
Datum
GroupAggNumericAvg(const GroupCell *cell)
{
	Datum		result;

	if (special_result(cell, &result))
		return result;
	return DirectFunctionCall2(numeric_div,
							   (cell->key & CELL_NUMERIC) ? cell->value : sum_to_numeric(cell),
							   NumericGetDatum(int64_to_numeric(cell->count)));
}

/*
 * The decimal digits a numeric expression's values can have, at their own
 * display scale, and that scale; false when unknown: a numeric column of
 * bounded typmod, a numeric constant, and + - * of them.
 */
static bool
numeric_bound(Expr *expr, int *digits, int *scale)
{
	List	   *args;
	gs_arith_op op;
	int			d1, s1, d2, s2;

	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;
		GpuselNumericShape shape;

		/* numeric(p,-k) holds integers of p + k digits */
		if (!GpuselNumericShapeOf(var->vartype, var->vartypmod, &shape) || !shape.constrained)
			return false;
		*digits = shape.digits;
		*scale = shape.scale;
		return true;
	}
	if (IsA(expr, Const))
	{
		Const	   *c = (Const *) expr;
		NumericStored n;

		if (c->consttype != NUMERICOID || c->constisnull)
			return false;
		numeric_stored_decode(c->constvalue, &n);
		if (n.kind != NUMERIC_STORED_FINITE)
			return false;
		*scale = n.dscale;
		*digits = Max(0, n.weight + 1) * NUMERIC_STORED_BASE_DECIMALS + n.dscale;
		return true;
	}
	if (!GpuselNumericArith(expr, &op, &args))
		return false;
	if (op == GS_ARITH_NEG)
		return numeric_bound(linitial(args), digits, scale);
	if (!numeric_bound(linitial(args), &d1, &s1) ||
		!numeric_bound(lsecond(args), &d2, &s2))
		return false;
	switch (op)
	{
		case GS_ARITH_ADD:
		case GS_ARITH_SUB:
			*scale = Max(s1, s2);
			*digits = Max(d1 + *scale - s1, d2 + *scale - s2) + 1;
			return true;
		case GS_ARITH_MUL:
			*scale = s1 + s2;
			*digits = d1 + d2;
			return true;
		default:
			return false;
	}
}

/*
 * Whether sum/avg over this numeric input stays inside the cell's 256 bits
 * for any rows: its values are bounded (numeric_bound) to MAX_INPUT_DIGITS.
 */
bool
GroupAggNumericInputBounded(Expr *input)
{
	int			digits;
	int			scale;

	return numeric_bound(input, &digits, &scale) && digits <= MAX_INPUT_DIGITS;
}

/*
 * Native numeric expressions: + - * and unary minus over numeric(p,s)
 * columns read from a batch as scaled int8 and numeric constants, a
 * program of numeric_core.h's steps evaluated per row in 128 bits with the
 * scale PostgreSQL's numeric arithmetic gives (max of the operands' for +
 * and -, their sum for *), so the result is PostgreSQL's exactly.  NULL in
 * gives NULL out, NaN in gives NaN.  A row whose value would leave 128 bits
 * is handed to the executor instead.  The device's batch sums run the same
 * program (GroupAggNumericDeviceSum).
 */
struct GroupNumericExpr
{
	int			nsteps;
	int			scale;			/* the result's scale */
	gs_num_step steps[GS_NUM_MAX_STEPS];	/* a GS_NUM_COLUMN's col is a batch
											 * column (numeric_expr_columns) */
	int			exprcols[GS_NUM_MAX_STEPS]; /* a GS_NUM_COLUMN's expression column */
};

/*
 * Appends the steps computing expr and sets *scale to the scale of its
 * values, as numeric arithmetic gives it (the larger of the operands' for
 * + and -, with the shifts that bring both to it; their sum for *).  False
 * when some node is not taken, or some scale passes GS_NUM_MAX_SCALE,
 * beyond which 1 leaves 128 bits.
 */
static bool
compile_numeric_steps(GroupAggSink *sink, Expr *expr, GroupNumericExpr *ne, int *scale)
{
	gs_num_step *st;
	List	   *args;
	gs_arith_op op;
	int			s1;
	int			s2 = 0;

	if (ne->nsteps >= GS_NUM_MAX_STEPS)
		return false;
	st = &ne->steps[ne->nsteps];
	memset(st, 0, sizeof(*st));
	if (IsA(expr, Var))
	{
		for (int e = 0; e < sink->nexprcols; e++)
			if (sink->exprcol_attnos[e] == ((Var *) expr)->varattno &&
				sink->exprcol_numeric_scale[e] >= 0)
			{
				st->op = GS_NUM_COLUMN;
				st->col = -1;
				ne->exprcols[ne->nsteps] = e;
				ne->nsteps++;
				*scale = sink->exprcol_numeric_scale[e];
				return *scale <= GS_NUM_MAX_SCALE;
			}
		return false;
	}
	if (IsA(expr, Const))
	{
		Const	   *c = (Const *) expr;
		NumericStored n;
		Int256		v;

		if (c->consttype != NUMERICOID || c->constisnull)
			return false;
		numeric_stored_decode(c->constvalue, &n);
		if (n.kind != NUMERIC_STORED_FINITE)
			return false;
		/* a constant that fits 63 bits */
		if (!stored_to_int256_ok(&n, &v) ||
			!((v.w[1] == 0 && v.w[2] == 0 && v.w[3] == 0 && (int64) v.w[0] >= 0) ||
			  (v.w[1] == ~UINT64CONST(0) && v.w[2] == ~UINT64CONST(0) &&
			   v.w[3] == ~UINT64CONST(0) && (int64) v.w[0] < 0)))
			return false;
		st->op = GS_NUM_CONST;
		st->constant = (int64) v.w[0];
		ne->nsteps++;
		*scale = n.dscale;
		return *scale <= GS_NUM_MAX_SCALE;
	}
	if (!GpuselNumericArith(expr, &op, &args))
		return false;
	if (!compile_numeric_steps(sink, (Expr *) linitial(args), ne, &s1) ||
		(op != GS_ARITH_NEG && !compile_numeric_steps(sink, (Expr *) lsecond(args), ne, &s2)) ||
		ne->nsteps >= GS_NUM_MAX_STEPS)
		return false;
	st = &ne->steps[ne->nsteps];
	memset(st, 0, sizeof(*st));
	st->op = op;
	ne->nsteps++;
	switch (op)
	{
		case GS_ARITH_NEG:
			*scale = s1;
			break;
		case GS_ARITH_MUL:
			*scale = s1 + s2;
			break;
		default:
			st->shift_a = Max(s2 - s1, 0);
			st->shift_b = Max(s1 - s2, 0);
			*scale = Max(s1, s2);
			break;
	}
	return *scale <= GS_NUM_MAX_SCALE;
}

/* Points the program's column steps at the batch columns of their expression columns. */
static void
numeric_expr_columns(GroupAggSink *sink, GroupNumericExpr *ne)
{
	for (int i = 0; i < ne->nsteps; i++)
		if (ne->steps[i].op == GS_NUM_COLUMN)
			ne->steps[i].col = sink->exprcol_columns[ne->exprcols[i]];
}

/* Makes in->numexpr when the input is a numeric expression the steps take. */
void
GroupAggNumericExprInit(GroupAggSink *sink, GroupInput *in)
{
	GroupNumericExpr *ne;

	in->numexpr = NULL;
	if (in->typid != NUMERICOID || in->colstate == NULL)
		return;
	/* in the query's memory: sink->cxt is reset with the groups */
	ne = palloc0(sizeof(GroupNumericExpr));
	if (compile_numeric_steps(sink, in->expr, ne, &ne->scale))
	{
		numeric_expr_columns(sink, ne);
		in->numexpr = ne;
	}
	else
		pfree(ne);
}

/* Follows a new mapping of the sink's expression columns to batch columns (GroupAggSinkSetColumns). */
void
GroupAggNumericExprSetColumns(GroupAggSink *sink, GroupInput *in)
{
	if (in->numexpr != NULL)
		numeric_expr_columns(sink, in->numexpr);
}

/* The batch's columns as the steps read them. */
static inline gs_num_columns
batch_columns(void *const *values, uint8 *const *nulls, const uint8 *has_nulls)
{
	gs_num_columns cols;

	cols.values = (const void *const *) values;
	cols.nulls = (const uint8 *const *) nulls;
	cols.has_nulls = has_nulls;
	cols.widths = NULL;			/* numeric columns: scaled int8 */
	return cols;
}

/*
 * A result of the steps as a GroupNumericValue: native unless it left 128
 * bits (NULL is native whatever else).
 */
static inline void
numeric_value(int128 v, uint8 flags, int scale, GroupNumericValue *out)
{
	out->isnull = (flags & GS_NUM_NULL) != 0;
	out->nan = !out->isnull && (flags & GS_NUM_NAN) != 0;
	out->native = out->isnull || (flags & GS_NUM_UNFIT) == 0;
	out->v = v;
	out->scale = scale;
}

/*
 * Evaluates in->numexpr on row 'row' of a batch into *out; false when a
 * value would leave 128 bits (then the executor evaluates the row).
 */
bool
GroupAggNumericExprEval(GroupAggSink *sink, GroupInput *in, void *const *values,
						uint8 *const *nulls, const uint8 *has_nulls, int64 row,
						GroupNumericValue *out)
{
	GroupNumericExpr *ne = in->numexpr;
	gs_num_columns cols = batch_columns(values, nulls, has_nulls);
	gs_num_value r = gs_num_eval_row(ne->steps, ne->nsteps, &cols, row);

	numeric_value(r.v, r.flags, ne->scale, out);
	return out->native;
}

/*
 * Evaluates in->numexpr over len rows of a batch (positions 'rows' or the
 * rows from 'start') into out[], a step at a time over GS_NUM_LANES rows,
 * which spends the step's dispatch once per lane set.  A row whose value
 * would leave 128 bits comes back with native false: the executor then
 * computes it.  The values are GroupAggNumericExprEval's.
 */
void
GroupAggNumericExprBlock(GroupAggSink *sink, GroupInput *in, void *const *values,
						 uint8 *const *nulls, const uint8 *has_nulls, const uint32 *rows,
						 int64 start, int len, GroupNumericValue *out)
{
	GroupNumericExpr *ne = in->numexpr;
	gs_num_columns cols = batch_columns(values, nulls, has_nulls);
	gs_num_lanes stack[GS_NUM_MAX_STEPS];

	for (int first = 0; first < len; first += GS_NUM_LANES)
	{
		int			n = Min(GS_NUM_LANES, len - first);

		gs_num_eval_lanes(ne->steps, ne->nsteps, &cols, rows,
						  rows != NULL ? first : start + first, n, stack);
		for (int j = 0; j < n; j++)
			numeric_value(stack[0].v[j], stack[0].flags[j], ne->scale, &out[first + j]);
	}
}

/* Adds one natively computed numeric input to a sum(numeric) or avg(numeric) cell. */
void
GroupAggNumericAddNative(GroupCell *cell, const GroupNumericValue *value)
{
	cell->count++;
	if (value->nan)
	{
		cell->key |= CELL_SAW_NAN;
		return;
	}
	add_int128_at_scale(cell, value->v, value->scale);
}

/*
 * Writes a numeric input as a program of the device's batch sums
 * (cuda/batchsum.cu): a numeric(p,s) column read as int8, or in->numexpr's
 * steps as they are, which the device runs as the host does.  *scale is
 * the scale of the values.  False when the input is neither.
 */
bool
GroupAggNumericDeviceSum(GroupAggSink *sink, GroupInput *in, gs_sum_expr *out, int *scale)
{
	memset(out, 0, sizeof(*out));
	if (in->colstate == NULL)
	{
		if (!GpuselFormLookup(in->form)->scaled_numeric || in->column < 0)
			return false;
		out->ncode = 1;
		out->code[0].op = GS_NUM_COLUMN;
		out->code[0].col = in->column;
		*scale = in->form_arg;
		return true;
	}
	if (in->numexpr == NULL || in->numexpr->nsteps > GS_SUM_MAX_CODE)
		return false;
	memcpy(out->code, in->numexpr->steps, sizeof(gs_num_step) * in->numexpr->nsteps);
	out->ncode = in->numexpr->nsteps;
	*scale = in->numexpr->scale;
	return true;
}

/*
 * Adds what the device summed over a batch (values non-NULL inputs, nans of
 * them NaN, the rest summing to 'sum' at 'scale') to a sum(numeric) or
 * avg(numeric) cell.
 */
void
GroupAggNumericAddBatchSum(GroupCell *cell, int128 sum, int scale, int64 values, int64 nans)
{
	cell->count += values;
	if (nans > 0)
		cell->key |= CELL_SAW_NAN;
	if (values > nans)
		add_int128_at_scale(cell, sum, scale);
}
