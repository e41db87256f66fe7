/*
 * column_filter.c
 *	  The CPU's columnar filter (column_filter.h).
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
#include "nodes/primnodes.h"
#include "nodes/nodeFuncs.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "column_filter.h"
#include "order_keys.h"

/*
 * A block runs its tests densely while at least one row in this many is
 * left; below, over its survivors alone.
 */
#define FILTER_SPARSE_SHARE 8

/*
 * The dense loops are also built for AVX2, chosen at load time where the
 * CPU has it: 64-bit unsigned compares have no SSE2 instruction.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPUSEL_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GPUSEL_VECTOR_CLONES
#endif

/*
 * How a test's dense loop compares values: through their keys (any pair of
 * types KEY_LOOP_DISPATCH has), or, cheaper, in the values' own domain.
 * Integers pass when value - lo, wrapped to the key's width, is at most
 * span (the keys' range shifted by the sign bit); floats compare as IEEE
 * does, which is PostgreSQL's order for a constant that is not NaN.
 */
typedef enum DenseCompare
{
	DENSE_KEYS,					/* key_of(value) - lo <= span, in 64 bits */
	DENSE_INT32,				/* int2, int4, date compared in 32 bits */
	DENSE_INT64,				/* integers compared in int8 */
	DENSE_FLOAT					/* float4 or float8 against a number */
} DenseCompare;

/* One comparison of a batch column with a constant's key. */
typedef struct ColumnTest
{
	int			column;			/* in the batch */
	gs_coltype	coltype;
	Oid			coltypid;		/* the column's type ... */
	Oid			compared;		/* ... and the (wider) type it is compared in */
	const KeyType *keytype;		/* of the compared type */
	StrategyNumber strategy;	/* BTLessStrategyNumber .. BTGreaterStrategyNumber */
	uint64		key;			/* the constant's key */
	uint64		lo;				/* the keys that pass: lo .. lo + span */
	uint64		span;
	DenseCompare dense;			/* how and_test_dense compares */
	float8		bound;			/* DENSE_FLOAT: the constant, as compared */
} ColumnTest;


struct ColumnFilter
{
	int			ntests;
	ColumnTest *tests;
	bool		never;			/* a comparison with NULL: no row passes */
};

/*
 * The batch column holding attribute attno in the given form, or -1: an
 * attribute may travel in several (a date beside its midnight).
 */
static int
column_of(const GpuselProgram *prog, AttrNumber attno, int form)
{
	for (int c = 0; c < prog->ncols; c++)
		if (prog->attnos[c] == attno && prog->form[c] == form)
			return c;
	return -1;
}

/*
 * The type a column of type a and a constant of type b are compared in:
 * the same type, or the wider of two integer types or of float4 and
 * float8, as PostgreSQL's cross-type operators compare them; InvalidOid
 * for any other pair.
 */
static Oid
compared_type(Oid a, Oid b)
{
	if (a == b)
		return a;
	if ((a == INT2OID || a == INT4OID || a == INT8OID) &&
		(b == INT2OID || b == INT4OID || b == INT8OID))
		return (a == INT8OID || b == INT8OID) ? INT8OID : INT4OID;
	if ((a == FLOAT4OID || a == FLOAT8OID) && (b == FLOAT4OID || b == FLOAT8OID))
		return FLOAT8OID;
	return InvalidOid;
}

/* A value of type 'from' as a value of the wider type 'to' (compared_type). */
static inline Datum
widen_value(Datum value, Oid from, Oid to)
{
	if (from == to)
		return value;
	switch (from)
	{
		case INT2OID:
			return to == INT8OID ? Int64GetDatum(DatumGetInt16(value)) :
				Int32GetDatum(DatumGetInt16(value));
		case INT4OID:
			return Int64GetDatum(DatumGetInt32(value));
		case FLOAT4OID:
			return Float8GetDatum((float8) DatumGetFloat4(value));
		default:
			return value;
	}
}

/*
 * Chooses how the dense loop compares (DenseCompare), as set_range sets
 * the test's key range.  A float constant that is NaN keeps its keys: IEEE orders
 * nothing against NaN, PostgreSQL puts it above every number.
 */
static void
set_dense_compare(ColumnTest *t)
{
	t->dense = DENSE_KEYS;
	switch (t->compared)
	{
		case INT2OID:
		case INT4OID:
		case DATEOID:
			if (t->coltype == GS_COL_INT2 || t->coltype == GS_COL_INT4)
				t->dense = DENSE_INT32;
			break;
		case INT8OID:
			if (t->coltype == GS_COL_INT2 || t->coltype == GS_COL_INT4 ||
				t->coltype == GS_COL_INT8)
				t->dense = DENSE_INT64;
			break;
		case FLOAT4OID:
		case FLOAT8OID:
			{
				Datum		value = t->keytype->from_key(t->key);
				float8		bound = t->compared == FLOAT4OID ?
					(float8) DatumGetFloat4(value) : DatumGetFloat8(value);

				if ((t->coltype == GS_COL_FLOAT4 || t->coltype == GS_COL_FLOAT8) &&
					!isnan(bound))
				{
					t->dense = DENSE_FLOAT;
					t->bound = bound;
				}
				break;
			}
		default:
			break;
	}
}

/*
 * The test as a range of keys, lo .. lo + span, and how its dense loop
 * compares; false when no key passes (less than the smallest key, greater
 * than the largest).
 */
static bool
set_range(ColumnTest *t)
{
	uint64		max = t->keytype->key_bytes == 4 ? PG_UINT32_MAX : PG_UINT64_MAX;
	uint64		lo = 0;
	uint64		hi = max;

	switch (t->strategy)
	{
		case BTLessStrategyNumber:
			if (t->key == 0)
				return false;
			hi = t->key - 1;
			break;
		case BTLessEqualStrategyNumber:
			hi = t->key;
			break;
		case BTEqualStrategyNumber:
			lo = hi = t->key;
			break;
		case BTGreaterEqualStrategyNumber:
			lo = t->key;
			break;
		default:
			if (t->key == max)
				return false;
			lo = t->key + 1;
			break;
	}
	t->lo = lo;
	t->span = hi - lo;
	set_dense_compare(t);
	return true;
}

/* The btree strategy of a comparison opcode; InvalidStrategy for <>. */
static StrategyNumber
strategy_of_opcode(int opcode)
{
	switch (opcode)
	{
		case GS_OP_LT:
			return BTLessStrategyNumber;
		case GS_OP_LE:
			return BTLessEqualStrategyNumber;
		case GS_OP_EQ:
			return BTEqualStrategyNumber;
		case GS_OP_GE:
			return BTGreaterEqualStrategyNumber;
		case GS_OP_GT:
			return BTGreaterStrategyNumber;
		default:
			return InvalidStrategy;
	}
}

/*
 * Recognises <numeric column> <op> <numeric constant>, the column held as
 * scaled int8 in the batch, as the scaled column compared with an integer
 * bound (qual_numeric.c); <> is left out.
 */
static bool
make_numeric_test(OpExpr *op, Var *var, Const *cst, bool commuted,
				  const GpuselProgram *prog, ColumnTest *test, bool *never)
{
	Oid			funcid = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
	int			opcode = GpuselNumericComparison(funcid);
	int			bound_opcode;
	int64		bound;

	test->column = column_of(prog, var->varattno, GPUSEL_FORM_NUMERIC);
	if (opcode < 0 || test->column < 0 ||
		cst->consttype != NUMERICOID || cst->constisnull)
		return false;
	if (commuted)
		opcode = GpuselCommuteOpcode(opcode);
	GpuselNumericBound(opcode, cst->constvalue, prog->form_arg[test->column],
					   &bound_opcode, &bound);
	test->strategy = strategy_of_opcode(bound_opcode);
	if (test->strategy == InvalidStrategy)
		return false;
	test->coltype = GS_COL_INT8;
	test->coltypid = INT8OID;
	test->compared = INT8OID;
	test->keytype = KeyTypeLookup(INT8OID);
	test->key = test->keytype->to_key(Int64GetDatum(bound));
	if (!set_range(test))
		*never = true;
	return true;
}

/*
 * Recognises <date column> <op> <timestamp or timestamptz constant>, either
 * way round, as the date compared with a day number that gives the same
 * answers (qual_datetime.c); <> has no range of keys and is left out.
 */
static bool
make_date_timestamp_test(OpExpr *op, const GpuselProgram *prog, ColumnTest *test,
						 bool *never)
{
	Oid			funcid = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
	Var		   *var;
	int			date_arg;
	int			opcode;
	int32		bound;

	if (!GpuselDateTimestampBound(funcid, op->args, &date_arg, &opcode, &bound))
		return false;
	var = (Var *) list_nth(op->args, date_arg);
	if (!IsA(var, Var) || var->varattno <= 0 || var->vartype != DATEOID)
		return false;
	test->strategy = strategy_of_opcode(opcode);
	if (test->strategy == InvalidStrategy)
		return false;
	test->column = column_of(prog, var->varattno, GPUSEL_FORM_PLAIN);
	test->coltypid = DATEOID;
	test->compared = DATEOID;
	test->keytype = KeyTypeLookup(DATEOID);
	if (test->column < 0 || test->keytype == NULL ||
		!GpuselTypeIsDeviceable(DATEOID, &test->coltype))
		return false;
	test->key = test->keytype->to_key(DateADTGetDatum(bound));
	if (!set_range(test))
		*never = true;
	return true;
}

/*
 * Recognises <column> <op> <constant> (either way round) and fills *test;
 * *never is set when the constant is NULL.  False for any other qual.
 */
static bool
make_test(Expr *qual, const GpuselProgram *prog, ColumnTest *test, bool *never)
{
	OpExpr	   *op;
	Node	   *left;
	Node	   *right;
	Var		   *var;
	Const	   *cst;
	bool		commuted;
	Oid			compared;
	TypeCacheEntry *tc;
	int			strategy;

	test->dense = DENSE_KEYS;
	if (!IsA(qual, OpExpr) || list_length(((OpExpr *) qual)->args) != 2)
		return false;
	op = (OpExpr *) qual;
	if (make_date_timestamp_test(op, prog, test, never))
		return true;
	left = linitial(op->args);
	right = lsecond(op->args);
	if (IsA(left, Var) && IsA(right, Const))
	{
		var = (Var *) left;
		cst = (Const *) right;
		commuted = false;
	}
	else if (IsA(left, Const) && IsA(right, Var))
	{
		var = (Var *) right;
		cst = (Const *) left;
		commuted = true;
	}
	else
		return false;
	if (var->varattno <= 0)
		return false;
	if (var->vartype == NUMERICOID)
		return make_numeric_test(op, var, cst, commuted, prog, test, never);
	compared = compared_type(var->vartype, cst->consttype);
	test->keytype = KeyTypeLookup(compared);
	test->column = column_of(prog, var->varattno, GPUSEL_FORM_PLAIN);
	test->coltypid = var->vartype;
	test->compared = compared;
	if (test->keytype == NULL || test->column < 0 ||
		!GpuselTypeIsDeviceable(var->vartype, &test->coltype))
		return false;

	tc = lookup_type_cache(var->vartype, TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(tc->btree_opf))
		return false;
	strategy = get_op_opfamily_strategy(op->opno, tc->btree_opf);
	if (strategy < BTLessStrategyNumber || strategy > BTGreaterStrategyNumber)
		return false;
	if (commuted)
		strategy = BTMaxStrategyNumber + 1 - strategy;	/* a < x is x > a */
	test->strategy = strategy;
	if (cst->constisnull)
		*never = true;
	else
	{
		test->key = test->keytype->to_key(widen_value(cst->constvalue, cst->consttype,
													  compared));
		if (!set_range(test))
			*never = true;
	}
	return true;
}

/*
 * Adds the tests of a qual: one comparison, or an AND (such as the one
 * inside gpu_filter()) of comparisons and ANDs, since in a WHERE clause a
 * row passes an AND exactly when it passes every arm.  Adds nothing and
 * returns false unless every arm is a comparison.
 */
static bool
add_tests(ColumnFilter *filter, Expr *qual, const GpuselProgram *prog)
{
	int			saved = filter->ntests;
	bool		saved_never = filter->never;
	ListCell   *lc;

	if (!is_andclause(qual))
	{
		filter->tests = repalloc(filter->tests, sizeof(ColumnTest) * (filter->ntests + 1));
		if (!make_test(qual, prog, &filter->tests[filter->ntests], &filter->never))
			return false;
		filter->ntests++;
		return true;
	}
	foreach(lc, ((BoolExpr *) qual)->args)
	{
		if (!add_tests(filter, (Expr *) lfirst(lc), prog))
		{
			filter->ntests = saved;
			filter->never = saved_never;
			return false;
		}
	}
	return true;
}

/*
 * Takes the quals it can evaluate over columns out of 'quals' (each
 * compiled in the program's columns); the others are returned in *rest, in
 * their order.  The caller must run the tests first only where no qual
 * can raise an error, so the order does not change which rows fail.
 * Returns NULL when no qual is a column test.
 */
ColumnFilter *
ColumnFilterCreate(List *quals, const GpuselProgram *prog, List **rest)
{
	ColumnFilter *filter = palloc0(sizeof(ColumnFilter));
	ListCell   *lc;

	filter->tests = palloc(sizeof(ColumnTest));
	*rest = NIL;
	foreach(lc, quals)
	{
		Expr	   *qual = (Expr *) lfirst(lc);

		if (!add_tests(filter, qual, prog))
			*rest = lappend(*rest, lfirst(lc));
	}
	if (filter->ntests == 0)
	{
		pfree(filter->tests);
		pfree(filter);
		return NULL;
	}
	return filter;
}

/* Whether a key passes a test. */
static inline bool
key_passes(uint64 key, const ColumnTest *t)
{
	return key - t->lo <= t->span;
}

/*
 * Runs LOOP(ctype, wide, test) for a test compared in its values' domain
 * (DenseCompare), where test is an expression of the value v, widened to
 * 'wide'; runs 'otherwise' for DENSE_KEYS.  The locals lo32, span32, lo64,
 * span, c8 and c4 are the caller's (VALUE_TEST_LOCALS).
 */
#define VALUE_TEST_LOCALS(t) \
	const uint32 lo32 = (uint32) (t)->lo ^ 0x80000000; \
	const uint32 span32 = (uint32) (t)->span; \
	const uint64 lo64 = (t)->lo ^ UINT64CONST(0x8000000000000000); \
	const uint64 span = (t)->span; \
	const float8 c8 = (t)->bound; \
	const float4 c4 = (float4) (t)->bound
/* a strategy's IEEE test of v against c: NaN fails <, <=, = and passes >, >= */
#define FLOAT_TESTS(t, LOOP, ctype, wide, c) \
	switch ((t)->strategy) \
	{ \
		case BTLessStrategyNumber: LOOP(ctype, wide, v < (c)); break; \
		case BTLessEqualStrategyNumber: LOOP(ctype, wide, v <= (c)); break; \
		case BTEqualStrategyNumber: LOOP(ctype, wide, v == (c)); break; \
		case BTGreaterEqualStrategyNumber: LOOP(ctype, wide, !(v < (c))); break; \
		default: LOOP(ctype, wide, !(v <= (c))); break; \
	}
#define VALUE_TEST_DISPATCH(t, LOOP, otherwise) \
	switch ((t)->dense) \
	{ \
		case DENSE_INT32: \
			/* the key is the value with its sign bit flipped: subtract the value */ \
			if ((t)->coltype == GS_COL_INT2) LOOP(int16, uint32, v - lo32 <= span32); \
			else LOOP(int32, uint32, v - lo32 <= span32); \
			break; \
		case DENSE_INT64: \
			if ((t)->coltype == GS_COL_INT2) LOOP(int16, uint64, v - lo64 <= span); \
			else if ((t)->coltype == GS_COL_INT4) LOOP(int32, uint64, v - lo64 <= span); \
			else LOOP(int64, uint64, v - lo64 <= span); \
			break; \
		case DENSE_FLOAT: \
			/* float4 against float4 in float4: c4 is exact, twice the lanes */ \
			if ((t)->coltype == GS_COL_FLOAT8) FLOAT_TESTS(t, LOOP, float8, float8, c8) \
			else if ((t)->compared == FLOAT4OID) FLOAT_TESTS(t, LOOP, float4, float4, c4) \
			else FLOAT_TESTS(t, LOOP, float4, float8, c8) \
			break; \
		default: \
			otherwise; \
	}

/*
 * ANDs into pass[0..len) whether rows first..first + len of a batch pass a
 * test, one straight loop per pair of types (no gather, no branch per
 * row), so that every test of a block runs over it while it sits in L1.
 * False for a pair of types without such a loop (the caller gathers
 * instead).
 */
static bool GPUSEL_VECTOR_CLONES
and_test_dense(const ColumnTest *t, const GpuselStaging *staging, int64 first, int len,
			   uint8 *pass)
{
	const void *values = staging->values[t->column];
	const uint64 lo = t->lo;

	VALUE_TEST_LOCALS(t);

#define KEY_LOOP(ctype, key_of) \
	do { \
		const ctype *col = (const ctype *) values + first; \
		for (int j = 0; j < len; j++) \
			pass[j] &= (uint8) ((uint64) key_of(col[j]) - lo <= span); \
	} while (0)
#define VALUE_LOOP(ctype, wide, test) \
	do { \
		const ctype *col = (const ctype *) values + first; \
		for (int j = 0; j < len; j++) \
		{ \
			wide		v = (wide) col[j]; \
			pass[j] &= (uint8) (test); \
		} \
	} while (0)

	VALUE_TEST_DISPATCH(t, VALUE_LOOP,
						KEY_LOOP_DISPATCH(t->coltype, t->compared, KEY_LOOP, return false));
#undef VALUE_LOOP
#undef KEY_LOOP
	/* a NULL fails every comparison */
	if (staging->has_nulls[t->column])
	{
		const uint8 *nulls = staging->nulls[t->column] + first;

		for (int j = 0; j < len; j++)
			pass[j] &= (uint8) (nulls[j] == 0);
	}
	return true;
}

/*
 * Keeps the rows of one test that pass among rows[0..count), written to
 * positions (which may be rows itself: a row is written no later than it
 * is read).  Returns how many passed.
 */
static int64
apply_test(const ColumnTest *t, const GpuselStaging *staging, const uint32 *rows,
		   int64 count, uint32 *positions)
{
	const void *values = staging->values[t->column];
	const uint8 *nulls = staging->has_nulls[t->column] ? staging->nulls[t->column] : NULL;
	uint64		keys[KEYS_BLOCK];
	int64		kept = 0;

	/* locals: the stores to positions could alias the test (no strict aliasing) */
	const uint64 lo = t->lo;

	VALUE_TEST_LOCALS(t);

	/* branch-free: every row is written, only those that pass are kept */
#define GATHER_LOOP(ctype, wide, test) \
	do { \
		const ctype *col = (const ctype *) values; \
		for (int64 j = 0; j < count; j++) \
		{ \
			uint32		row = rows[j]; \
			wide		v = (wide) col[row]; \
			bool		passes = (test); \
			if (nulls != NULL) \
				passes &= !nulls[row]; \
			positions[kept] = row; \
			kept += passes; \
		} \
	} while (0)

	VALUE_TEST_DISPATCH(t, GATHER_LOOP, break);
#undef GATHER_LOOP
	if (t->dense != DENSE_KEYS)
		return kept;

	for (int64 start = 0; start < count; start += KEYS_BLOCK)
	{
		int			len = (int) Min(count - start, KEYS_BLOCK);
		const uint32 *block = rows + start;

		if (KeysOfColumn(t->coltype, t->compared, values, block, 0, len, keys))
		{
			for (int j = 0; j < len; j++)
			{
				uint32		row = block[j];
				bool		pass = keys[j] - lo <= span;

				if (nulls != NULL)
					pass &= !nulls[row];
				positions[kept] = row;
				kept += pass;
			}
			continue;
		}
		for (int j = 0; j < len; j++)
		{
			uint32		row = block[j];
			Datum		v;

			if (nulls != NULL && nulls[row])
				continue;
			v = widen_value(GpuselLoadValue(values, row, t->coltype), t->coltypid, t->compared);
			if (key_passes(t->keytype->to_key(v), t))
				positions[kept++] = row;
		}
	}
	return kept;
}

/* How many of pass[0..len) are set. */
static int GPUSEL_VECTOR_CLONES
count_passing(const uint8 *pass, int len)
{
	int			n = 0;

	for (int j = 0; j < len; j++)
		n += pass[j];
	return n;
}

/*
 * Writes base + j for each j in [0, len) whose pass[j] is set to out, in
 * order, and returns how many: eight rows at a time, skipping eight that
 * all failed at once (a selective test leaves most so), and branch-free
 * within them (every row written, only those that pass kept).
 */
static inline int
emit_passing(const uint8 *pass, int len, uint32 base, uint32 *out)
{
	int			n = 0;
	int			j = 0;

	for (; j + 8 <= len; j += 8)
	{
		uint64		eight;

		memcpy(&eight, pass + j, sizeof(eight));
		if (eight == 0)
			continue;
		for (int b = 0; b < 8; b++)
		{
			out[n] = base + j + b;
			n += pass[j + b];
		}
	}
	for (; j < len; j++)
	{
		out[n] = base + j;
		n += pass[j];
	}
	return n;
}

/*
 * Runs the tests over the first nrows rows of a batch; writes the rows
 * that pass every test (a NULL fails) to positions, in order, and returns
 * their number.  A block of rows runs its tests densely, each ANDed into
 * a byte per row, while at least 1/FILTER_SPARSE_SHARE of the block is
 * left; then its survivors are gathered and the remaining tests run over
 * them alone, so a selective first test spares the others most rows.
 */
int64
ColumnFilterApply(ColumnFilter *filter, const GpuselStaging *staging, int64 nrows,
				  uint32 *positions)
{
	int64		kept = 0;

	if (filter->never)
		return 0;
	for (int64 first = 0; first < nrows; first += KEYS_BLOCK)
	{
		int			len = (int) Min(nrows - first, KEYS_BLOCK);
		uint8		pass[KEYS_BLOCK];
		uint32	   *out = positions + kept;
		int			live = len;
		int64		n = 0;
		int			i;

		memset(pass, 1, len);
		for (i = 0; i < filter->ntests && live * FILTER_SPARSE_SHARE >= len; i++)
		{
			if (!and_test_dense(&filter->tests[i], staging, first, len, pass))
				break;
			/* the count only chooses how the next test runs */
			if (i + 1 < filter->ntests)
				live = count_passing(pass, len);
		}
		n = emit_passing(pass, len, (uint32) first, out);
		for (; i < filter->ntests && n > 0; i++)
			n = apply_test(&filter->tests[i], staging, out, n, out);
		kept += n;
	}
	return kept;
}
