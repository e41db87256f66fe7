/*
 * filter_verify.cu
 *	  The device filter's program verifier: checks a gs_program (opcodes,
 *	  kinds, indices, stack depth, forward jumps that meet the fall-through
 *	  path with the same stack shape, one bool left at the end) and compiles
 *	  it to device instructions with their stack depth, and recognises
 *	  "column op constant" so that it runs as a range test instead of
 *	  through the interpreter.  Host code only.
 */
#include <stdlib.h>
#include <string.h>

#include "filter_internal.cuh"

/* Whether k is an integer kind. */
static int
gs_kind_is_int(int k)
{
	return k == GS_VK_INT2 || k == GS_VK_INT4 || k == GS_VK_INT8;
}

/* Whether k is a float kind. */
static int
gs_kind_is_float(int k)
{
	return k == GS_VK_FLOAT4 || k == GS_VK_FLOAT8;
}

/*
 * Whether a value of kind 'have' may be an operand of an operation in kind
 * 'want': same family and no wider (int4 in an int8 op is PostgreSQL's
 * int48 operators; float4 in a float8 op its float48 operators).
 */
static int
gs_kind_fits(int have, int want)
{
	if (gs_kind_is_int(want))
		return gs_kind_is_int(have) && have <= want;
	if (gs_kind_is_float(want))
		return gs_kind_is_float(have) && have <= want;
	return want == GS_VK_BOOL && have == GS_VK_BOOL;
}

/* Whether a constant is a valid value of kind k (NULL always is). */
static int
gs_const_fits(const gs_const *c, int k)
{
	if (c->isnull)
		return 1;
	switch (k)
	{
		case GS_VK_BOOL:
			return c->v.i == 0 || c->v.i == 1;
		case GS_VK_INT2:
			return c->v.i >= -32768 && c->v.i <= 32767;
		case GS_VK_INT4:
			return c->v.i >= -2147483648LL && c->v.i <= 2147483647LL;
		default:
			return 1;
	}
}

/* Whether CAST from -> to is one the device implements. */
static int
gs_cast_ok(int from, int to)
{
	if (gs_kind_is_int(from) && gs_kind_is_int(to))
		return to > from;
	if (gs_kind_is_int(from) && gs_kind_is_float(to))
		return 1;
	return from == GS_VK_FLOAT4 && to == GS_VK_FLOAT8;
}

/* Stack shape at one program point: depth and the kind of every slot. */
typedef struct gs_shape
{
	int			known;
	int			depth;
	signed char kinds[GS_MAX_STACK];
} gs_shape;

/* Whether two shapes agree (depth and every slot kind). */
static int
gs_shape_equal(const gs_shape *a, const gs_shape *b)
{
	return a->depth == b->depth && memcmp(a->kinds, b->kinds, a->depth) == 0;
}

/*
 * Checks the program (opcodes, kinds, indices, stack depth, forward jumps
 * that meet the fall-through path with the same stack shape, a single
 * bool left at the end) and writes the device instructions with their
 * depth.  Sets col_used[c] for every referenced column.
 */
gs_status
gs_compile_program(const gs_program *p, int ncols, const gs_coltype *coltypes,
				   gs_dinstr *out, int *max_depth, unsigned char *col_used,
				   char *errbuf, size_t errlen)
{
	gs_shape   *at;				/* shapes recorded by jumps, per target */
	gs_shape	cur;
	int			maxd = 0;

#define GS_BAD(...) do { free(at); return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, __VA_ARGS__); } while (0)

	if (p == NULL || p->code == NULL || p->ncode < 1 || p->ncode > GS_MAX_PROGRAM_LENGTH)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen,
					   "gpusel filter: program must have 1 to %d instructions",
					   GS_MAX_PROGRAM_LENGTH);
	if (p->nconsts < 0 || p->nconsts > GS_MAX_PROGRAM_CONSTS ||
		(p->nconsts > 0 && p->consts == NULL))
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen,
					   "gpusel filter: program must have 0 to %d constants",
					   GS_MAX_PROGRAM_CONSTS);
	at = (gs_shape *) calloc(p->ncode + 1, sizeof(gs_shape));
	if (at == NULL)
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");
	memset(&cur, 0, sizeof(cur));

	for (int pc = 0; pc <= p->ncode; ++pc)
	{
		if (at[pc].known && !gs_shape_equal(&at[pc], &cur))
			GS_BAD("gpusel filter: pc %d: a jump arrives with a different stack than the preceding instruction leaves", pc);
		if (pc == p->ncode)
			break;

		const gs_instr *ins = &p->code[pc];
		const int	op = ins->op;
		const int	kind = ins->kind;
		const int	d = cur.depth;
		const int	top = d > 0 ? cur.kinds[d - 1] : -1;
		const int	below = d > 1 ? cur.kinds[d - 2] : -1;
		int			pops = 0;
		int			result = -1;	/* kind pushed, or -1 for none */

		out[pc].op = ins->op;
		out[pc].kind = ins->kind;
		out[pc].kind2 = ins->kind2;
		out[pc].depth = (int16_t) d;
		out[pc].arg = ins->arg;
		out[pc].arg2 = ins->arg2;

		if (op < 0 || op >= GS_OP_COUNT)
			GS_BAD("gpusel filter: pc %d: unknown opcode %d", pc, op);
		if (op != GS_OP_COLUMN && op != GS_OP_CONST && d < 1)
			GS_BAD("gpusel filter: pc %d: stack underflow", pc);

		switch (op)
		{
			case GS_OP_COLUMN:
				if (ins->arg < 0 || ins->arg >= ncols)
					GS_BAD("gpusel filter: pc %d: column %d out of range (%d columns)", pc, ins->arg, ncols);
				if (kind != (int) coltypes[ins->arg])
					GS_BAD("gpusel filter: pc %d: column %d has type %d, instruction says %d",
						   pc, ins->arg, (int) coltypes[ins->arg], kind);
				col_used[ins->arg] = 1;
				result = kind;
				break;
			case GS_OP_CONST:
				if (ins->arg < 0 || ins->arg >= p->nconsts)
					GS_BAD("gpusel filter: pc %d: constant %d out of range (%d constants)", pc, ins->arg, p->nconsts);
				if (kind < GS_VK_BOOL || kind > GS_VK_FLOAT8)
					GS_BAD("gpusel filter: pc %d: bad kind %d", pc, kind);
				if (!gs_const_fits(&p->consts[ins->arg], kind))
					GS_BAD("gpusel filter: pc %d: constant %d out of range for kind %d", pc, ins->arg, kind);
				result = kind;
				break;
			case GS_OP_CAST:
				if (!gs_cast_ok(kind, ins->kind2) || !gs_kind_fits(top, kind))
					GS_BAD("gpusel filter: pc %d: unsupported cast %d -> %d of a kind %d value", pc, kind, ins->kind2, top);
				pops = 1;
				result = ins->kind2;
				break;
			case GS_OP_EQ:
			case GS_OP_NE:
			case GS_OP_LT:
			case GS_OP_LE:
			case GS_OP_GT:
			case GS_OP_GE:
			case GS_OP_ADD:
			case GS_OP_SUB:
			case GS_OP_MUL:
			case GS_OP_DIV:
			case GS_OP_MOD:
				{
					const int	is_cmp = op <= GS_OP_GE;

					if (d < 2)
						GS_BAD("gpusel filter: pc %d: stack underflow", pc);
					if (kind < GS_VK_BOOL || kind > GS_VK_FLOAT8 ||
						(!is_cmp && kind == GS_VK_BOOL) ||
						(op == GS_OP_MOD && !gs_kind_is_int(kind)))
						GS_BAD("gpusel filter: pc %d: opcode %d has no kind %d variant", pc, op, kind);
					if (!gs_kind_fits(top, kind) || !gs_kind_fits(below, kind))
						GS_BAD("gpusel filter: pc %d: operands of kinds %d, %d do not fit kind %d", pc, below, top, kind);
					pops = 2;
					result = is_cmp ? GS_VK_BOOL : kind;
					break;
				}
			case GS_OP_NEG:
				if (!(gs_kind_is_int(kind) || gs_kind_is_float(kind)) || !gs_kind_fits(top, kind))
					GS_BAD("gpusel filter: pc %d: negation of kind %d in kind %d", pc, top, kind);
				pops = 1;
				result = kind;
				break;
			case GS_OP_AND:
			case GS_OP_OR:
				if (ins->arg < 2 || ins->arg > d)
					GS_BAD("gpusel filter: pc %d: AND/OR of %d values with %d on the stack", pc, ins->arg, d);
				for (int i = d - ins->arg; i < d; ++i)
					if (cur.kinds[i] != GS_VK_BOOL)
						GS_BAD("gpusel filter: pc %d: AND/OR of a non-bool value", pc);
				pops = ins->arg;
				result = GS_VK_BOOL;
				break;
			case GS_OP_NOT:
			case GS_OP_IS_TRUE:
			case GS_OP_IS_NOT_TRUE:
			case GS_OP_IS_FALSE:
			case GS_OP_IS_NOT_FALSE:
				if (top != GS_VK_BOOL)
					GS_BAD("gpusel filter: pc %d: boolean test of a non-bool value", pc);
				pops = 1;
				result = GS_VK_BOOL;
				break;
			case GS_OP_IS_NULL:
			case GS_OP_IS_NOT_NULL:
				pops = 1;
				result = GS_VK_BOOL;
				break;
			case GS_OP_RANGE_GUARD:
				if (!gs_kind_is_int(kind) || !gs_kind_fits(top, kind))
					GS_BAD("gpusel filter: pc %d: range guard of kind %d on a kind %d value", pc, kind, top);
				if (ins->arg < 0 || ins->arg >= p->nconsts || ins->arg2 < 0 || ins->arg2 >= p->nconsts ||
					p->consts[ins->arg].isnull || p->consts[ins->arg2].isnull ||
					!gs_const_fits(&p->consts[ins->arg], kind) || !gs_const_fits(&p->consts[ins->arg2], kind))
					GS_BAD("gpusel filter: pc %d: range guard bounds %d, %d are not constants of kind %d",
						   pc, ins->arg, ins->arg2, kind);
				pops = 1;
				result = kind;
				break;
			case GS_OP_IN_CONSTS:
				if (kind < GS_VK_BOOL || kind > GS_VK_FLOAT8 || !gs_kind_fits(top, kind))
					GS_BAD("gpusel filter: pc %d: IN list of kind %d on a kind %d value", pc, kind, top);
				if (ins->arg < 0 || ins->arg2 < 0 || (long long) ins->arg + ins->arg2 > p->nconsts)
					GS_BAD("gpusel filter: pc %d: IN list constants %d..%d out of range", pc, ins->arg, ins->arg + ins->arg2 - 1);
				for (int i = 0; i < ins->arg2; ++i)
					if (!gs_const_fits(&p->consts[ins->arg + i], kind))
						GS_BAD("gpusel filter: pc %d: IN list constant %d out of range for kind %d", pc, ins->arg + i, kind);
				pops = 1;
				result = GS_VK_BOOL;
				break;
			case GS_OP_JUMP_IF_FALSE:
			case GS_OP_JUMP_IF_TRUE:
			case GS_OP_JUMP_IF_NOT_TRUE:
				if (top != GS_VK_BOOL)
					GS_BAD("gpusel filter: pc %d: jump on a non-bool value", pc);
				if (ins->arg <= pc || ins->arg > p->ncode)
					GS_BAD("gpusel filter: pc %d: jump target %d is not forward within the program", pc, ins->arg);
				if (at[ins->arg].known && !gs_shape_equal(&at[ins->arg], &cur))
					GS_BAD("gpusel filter: pc %d: jumps to %d arrive with different stacks", pc, ins->arg);
				at[ins->arg] = cur;
				at[ins->arg].known = 1;
				break;			/* the value stays */
		}

		cur.depth -= pops;
		if (result >= 0)
		{
			if (cur.depth >= GS_MAX_STACK)
				GS_BAD("gpusel filter: pc %d: stack deeper than %d", pc, GS_MAX_STACK);
			cur.kinds[cur.depth++] = (signed char) result;
		}
		if (cur.depth > maxd)
			maxd = cur.depth;
	}
	if (cur.depth != 1 || cur.kinds[0] != GS_VK_BOOL)
		GS_BAD("gpusel filter: program must leave exactly one bool (leaves %d values)", cur.depth);
	if (p->max_stack < maxd || p->max_stack > GS_MAX_STACK)
		GS_BAD("gpusel filter: max_stack is %d, program reaches %d (limit %d)", p->max_stack, maxd, GS_MAX_STACK);
#undef GS_BAD
	free(at);
	*max_depth = maxd;
	return GS_OK;
}

/*
 * If the program is "column op constant" (either order) on an int or float
 * column with a non-NULL constant, turns it into lo <= key <= hi (XOR
 * invert) on the column's order key and selects the range path.  Integer
 * ranges are clamped to the column type, so the test runs in its width.
 */
void
gs_detect_range(gs_filter *f, const gs_program *p)
{
	const long long KMIN = (long long) 0x8000000000000000ULL, KMAX = 0x7fffffffffffffffLL;
	const gs_instr *col, *cst;
	int			op, ctype;
	long long	k, lo, hi, tmin = KMIN, tmax = KMAX;
	int			invert = 0, empty = 0;

	f->path = GS_FILTER_PATH_INTERPRETER;
	if (p->ncode != 3 || p->code[2].op < GS_OP_EQ || p->code[2].op > GS_OP_GE)
		return;
	op = p->code[2].op;
	if (p->code[0].op == GS_OP_COLUMN && p->code[1].op == GS_OP_CONST)
	{
		col = &p->code[0];
		cst = &p->code[1];
	}
	else if (p->code[0].op == GS_OP_CONST && p->code[1].op == GS_OP_COLUMN)
	{
		/* const op col == col (mirrored op) const */
		col = &p->code[1];
		cst = &p->code[0];
		op = op == GS_OP_LT ? GS_OP_GT : op == GS_OP_GT ? GS_OP_LT :
			op == GS_OP_LE ? GS_OP_GE : op == GS_OP_GE ? GS_OP_LE : op;
	}
	else
		return;
	ctype = f->coltypes[col->arg];
	if (ctype == GS_COL_BOOL || p->consts[cst->arg].isnull)
		return;

	if (gs_kind_is_int(cst->kind))
	{
		k = p->consts[cst->arg].v.i;
		tmin = ctype == GS_COL_INT2 ? -32768 : ctype == GS_COL_INT4 ? -2147483648LL : KMIN;
		tmax = ctype == GS_COL_INT2 ? 32767 : ctype == GS_COL_INT4 ? 2147483647LL : KMAX;
	}
	else
	{
		double		c = p->consts[cst->arg].v.f;

		if (cst->kind == GS_VK_FLOAT4)
			c = (double) (float) c;
		k = gs_float_key(c);
	}

	switch (op)
	{
		case GS_OP_EQ:
		case GS_OP_NE:
			lo = hi = k;
			invert = op == GS_OP_NE;
			break;
		case GS_OP_LT:
			empty = k == KMIN;
			lo = KMIN;
			hi = k - (empty ? 0 : 1);
			break;
		case GS_OP_LE:
			lo = KMIN;
			hi = k;
			break;
		case GS_OP_GT:
			empty = k == KMAX;
			lo = k + (empty ? 0 : 1);
			hi = KMAX;
			break;
		default:
			lo = k;
			hi = KMAX;
			break;
	}
	if (!empty)
	{
		lo = lo < tmin ? tmin : lo;
		hi = hi > tmax ? tmax : hi;
		empty = lo > hi;
	}
	if (empty)
	{
		/* Nothing in range == everything out of range. */
		lo = tmin;
		hi = tmax;
		invert = !invert;
	}
	f->range_col = col->arg;
	f->range_lo = lo;
	f->range_hi = hi;
	f->range_invert = invert;
	f->path = GS_FILTER_PATH_RANGE;
}
