/*
 * filter.cu
 *	  Host side of the device WHERE filter (gpusel_filter.h): validates and
 *	  compiles the predicate program, owns per-slot pinned staging, device
 *	  buffers, streams and events, and drives submit / wait.
 *
 *	  A submitted batch runs, in order on the slot's stream: host-to-device
 *	  copies of the referenced columns (null bytes only where the batch has
 *	  NULLs), phase 1 with the predicate fused in, the scan, phase 3, and a
 *	  copy of the count and error flag back.  gs_filter_wait then copies
 *	  exactly 'count' positions back: the size is known only on the device,
 *	  and copying all nrows slots would move up to 100x more at low
 *	  selectivity.
 *
 *	  Every CUDA error becomes a gs_status with a message; nothing throws.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "gpusel_filter.h"
#include "gs_internal.cuh"
#include "filter_tuning.cuh"
#include "compact.cuh"
#include "predicate.cuh"

/* Positions and counts are uint32: keep a batch below 2^32 rows. */
#define GS_FILTER_MAX_ROWS (0xffffffffLL - GS_FILTER_GROUP_ROWS)

/* One staging slot: the host fills it while the device works on the other. */
typedef struct gs_slot
{
	cudaStream_t stream;
	cudaEvent_t ev_start;		/* before the first copy; in a wait, before the positions copy */
	cudaEvent_t ev_done;		/* after the count came back */
	cudaEvent_t ev_end;			/* after the positions came back */
	void	  **h_values;		/* pinned, every column */
	uint8_t   **h_nulls;		/* pinned, every column */
	void	  **d_values;		/* device, referenced columns only */
	uint8_t   **d_nulls;
	gs_dcolumn *h_table;		/* pinned column table for the interpreter */
	gs_dcolumn *d_table;		/* its device copy, uploaded when it changes */
	gs_dcolumn *next_table;		/* host scratch: the table a submit wants */
	int			table_valid;	/* d_table holds h_table's contents */
	uint32_t   *d_positions;
	uint32_t   *h_positions;	/* pinned */
	gs_compact_result *h_result;	/* pinned */
	gs_compact_workspace ws;
	long long	nrows;
	long long	npass;			/* rows passed, once waited for; -1 before */
	unsigned long long submits;	/* batches submitted to the slot so far */
	int			pending;		/* submitted, not yet waited for */
} gs_slot;

struct gs_filter
{
	int			ncols;
	gs_coltype *coltypes;
	unsigned char *col_used;
	long long	max_rows;
	int			nslots;
	int			num_sms;

	/* compiled program */
	int			ncode;
	int			stack_slots;
	gs_dinstr  *d_code;
	gs_const   *d_consts;

	/* "column op constant" as a range test (path == GS_FILTER_PATH_RANGE) */
	gs_filter_path path;
	int			force_interpreter;
	int			range_col;
	long long	range_lo;
	long long	range_hi;
	int			range_invert;

	gs_slot		slots[2];
};

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

/* Writes a message into errbuf (if any) and returns st. */
static gs_status
gs_fail(gs_status st, char *errbuf, size_t errlen, const char *fmt, ...)
{
	if (errbuf != NULL && errlen > 0)
	{
		va_list		ap;

		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return st;
}

/* Maps a CUDA error to a status and a message naming what failed. */
static gs_status
gs_cuda_fail(cudaError_t e, const char *what, char *errbuf, size_t errlen)
{
	char		what_here[160];

	snprintf(what_here, sizeof(what_here), "gpusel filter: %s", what);
	return gs_status_from_cuda(e, what_here, errbuf, errlen);
}

/* ------------------------------------------------------------------------
 * Program validation and compilation
 * ------------------------------------------------------------------------ */

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
static gs_status
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
static void
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

/* ------------------------------------------------------------------------
 * Launch
 * ------------------------------------------------------------------------ */

/* Runs the range path for column type T. */
template <typename T>
static cudaError_t
gs_launch_range(const gs_filter *f, const gs_dcolumn *c, long long n,
				uint32_t *d_positions, const gs_compact_workspace *ws,
				cudaStream_t stream)
{
	if (c->nulls != NULL)
	{
		gs_range_predicate<T, true> p;

		p.values = (const T *) c->values;
		p.nulls = c->nulls;
		p.lo = (typename gs_range_predicate<T, true>::K) f->range_lo;
		p.hi = (typename gs_range_predicate<T, true>::K) f->range_hi;
		p.invert = f->range_invert;
		p.stack_slots = 0;
		return gs_compact_run(p, n, d_positions, ws, f->num_sms, stream);
	}
	else
	{
		gs_range_predicate<T, false> p;

		p.values = (const T *) c->values;
		p.nulls = NULL;
		p.lo = (typename gs_range_predicate<T, false>::K) f->range_lo;
		p.hi = (typename gs_range_predicate<T, false>::K) f->range_hi;
		p.invert = f->range_invert;
		p.stack_slots = 0;
		return gs_compact_run(p, n, d_positions, ws, f->num_sms, stream);
	}
}

/*
 * Enqueues predicate + compaction over the columns in 'cols' (host array
 * of device pointers).  Picks the range path when allowed; the interpreter
 * reads the table from device memory, uploaded only when it changed (the
 * caller guarantees no earlier copy from h_table is still in flight).
 */
static gs_status
gs_launch_slot(gs_filter *f, gs_slot *s, const gs_dcolumn *cols, long long nrows,
			   uint32_t *d_positions, cudaStream_t stream, char *errbuf, size_t errlen)
{
	cudaError_t e;

	if (f->path == GS_FILTER_PATH_RANGE && !f->force_interpreter &&
		((uintptr_t) cols[f->range_col].values % 16) == 0 &&
		((uintptr_t) cols[f->range_col].nulls % 8) == 0)
	{
		const gs_dcolumn *c = &cols[f->range_col];

		switch (f->coltypes[f->range_col])
		{
			case GS_COL_INT2:
				e = gs_launch_range<int16_t>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			case GS_COL_INT4:
				e = gs_launch_range<int32_t>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			case GS_COL_INT8:
				e = gs_launch_range<int64_t>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			case GS_COL_FLOAT4:
				e = gs_launch_range<float>(f, c, nrows, d_positions, &s->ws, stream);
				break;
			default:
				e = gs_launch_range<double>(f, c, nrows, d_positions, &s->ws, stream);
				break;
		}
	}
	else
	{
		gs_program_predicate p;

		p.code = f->d_code;
		p.consts = f->d_consts;
		p.cols = s->d_table;
		p.ncode = f->ncode;
		p.stack_slots = f->stack_slots;
		e = cudaSuccess;
		if (f->ncols > 0 && nrows > 0 &&
			(!s->table_valid || memcmp(s->h_table, cols, f->ncols * sizeof(gs_dcolumn)) != 0))
		{
			memcpy(s->h_table, cols, f->ncols * sizeof(gs_dcolumn));
			s->table_valid = 0;
			e = cudaMemcpyAsync(s->d_table, s->h_table, f->ncols * sizeof(gs_dcolumn),
								cudaMemcpyHostToDevice, stream);
			s->table_valid = e == cudaSuccess;
		}
		if (e == cudaSuccess)
			e = gs_compact_run(p, nrows, d_positions, &s->ws, f->num_sms, stream);
	}
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "launching the filter kernels", errbuf, errlen);
	return GS_OK;
}

/* ------------------------------------------------------------------------
 * Creation and destruction
 * ------------------------------------------------------------------------ */

/* Frees one slot's resources; safe on a partly built slot. */
static void
gs_slot_free(gs_filter *f, gs_slot *s)
{
	if (s->stream != NULL)
		(void) cudaStreamSynchronize(s->stream);	/* nothing may still use the buffers */
	for (int c = 0; c < f->ncols; ++c)
	{
		if (s->h_values)
			cudaFreeHost(s->h_values[c]);
		if (s->h_nulls)
			cudaFreeHost(s->h_nulls[c]);
		if (s->d_values)
			cudaFree(s->d_values[c]);
		if (s->d_nulls)
			cudaFree(s->d_nulls[c]);
	}
	free(s->h_values);
	free(s->h_nulls);
	free(s->d_values);
	free(s->d_nulls);
	free(s->next_table);
	cudaFreeHost(s->h_table);
	cudaFree(s->d_table);
	cudaFree(s->d_positions);
	cudaFreeHost(s->h_positions);
	cudaFreeHost(s->h_result);
	gs_compact_workspace_free(&s->ws);
	if (s->ev_start)
		cudaEventDestroy(s->ev_start);
	if (s->ev_done)
		cudaEventDestroy(s->ev_done);
	if (s->ev_end)
		cudaEventDestroy(s->ev_end);
	if (s->stream)
		cudaStreamDestroy(s->stream);
	memset(s, 0, sizeof(*s));
}

/* Allocates one slot: stream, events, pinned staging, device buffers, scratch. */
static gs_status
gs_slot_create(gs_filter *f, gs_slot *s, char *errbuf, size_t errlen)
{
	const size_t rows = (size_t) (f->max_rows > 0 ? f->max_rows : 1);
	const size_t nc = (size_t) (f->ncols > 0 ? f->ncols : 1);
	cudaError_t e;

#define GS_TRY(call, what) do { e = (call); if (e != cudaSuccess) return gs_cuda_fail(e, what, errbuf, errlen); } while (0)

	s->npass = -1;
	GS_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "creating a stream");
	GS_TRY(cudaEventCreate(&s->ev_start), "creating an event");
	GS_TRY(cudaEventCreate(&s->ev_done), "creating an event");
	GS_TRY(cudaEventCreate(&s->ev_end), "creating an event");

	s->h_values = (void **) calloc(nc, sizeof(void *));
	s->h_nulls = (uint8_t **) calloc(nc, sizeof(uint8_t *));
	s->d_values = (void **) calloc(nc, sizeof(void *));
	s->d_nulls = (uint8_t **) calloc(nc, sizeof(uint8_t *));
	s->next_table = (gs_dcolumn *) calloc(nc, sizeof(gs_dcolumn));
	if (!s->h_values || !s->h_nulls || !s->d_values || !s->d_nulls || !s->next_table)
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");

	/* Device memory first: a too-large filter fails before pinning host memory. */
	for (int c = 0; c < f->ncols; ++c)
	{
		if (!f->col_used[c])
			continue;
		GS_TRY(cudaMalloc(&s->d_values[c], (rows * gs_coltype_width(f->coltypes[c]) + 15) & ~(size_t) 15),
			   "allocating a device column");
		GS_TRY(cudaMalloc((void **) &s->d_nulls[c], (rows + 15) & ~(size_t) 15), "allocating a device column");
	}
	GS_TRY(cudaMalloc((void **) &s->d_table, nc * sizeof(gs_dcolumn)), "allocating device memory");
	GS_TRY(cudaMalloc((void **) &s->d_positions, rows * sizeof(uint32_t)), "allocating device positions");
	GS_TRY(gs_compact_workspace_alloc(&s->ws, (long long) rows), "allocating compaction scratch");

	for (int c = 0; c < f->ncols; ++c)
	{
		GS_TRY(cudaHostAlloc(&s->h_values[c], (rows * gs_coltype_width(f->coltypes[c]) + 15) & ~(size_t) 15,
							 cudaHostAllocDefault), "allocating pinned staging");
		GS_TRY(cudaHostAlloc((void **) &s->h_nulls[c], (rows + 15) & ~(size_t) 15, cudaHostAllocDefault),
			   "allocating pinned staging");
	}
	GS_TRY(cudaHostAlloc((void **) &s->h_table, nc * sizeof(gs_dcolumn), cudaHostAllocDefault), "allocating pinned memory");
	memset(s->h_table, 0, nc * sizeof(gs_dcolumn));
	GS_TRY(cudaHostAlloc((void **) &s->h_positions, rows * sizeof(uint32_t), cudaHostAllocDefault), "allocating pinned positions");
	GS_TRY(cudaHostAlloc((void **) &s->h_result, sizeof(gs_compact_result), cudaHostAllocDefault), "allocating pinned memory");
#undef GS_TRY
	return GS_OK;
}

gs_status
gs_filter_create(gs_filter **filter, const gs_program *program,
				 int ncols, const gs_coltype *coltypes,
				 int64_t max_rows, int nslots,
				 char *errbuf, size_t errlen)
{
	gs_filter  *f;
	gs_dinstr	code[GS_MAX_PROGRAM_LENGTH];
	int			max_depth = 0;
	int			dev;
	gs_status	st;
	cudaError_t e;

	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	if (filter == NULL)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: filter pointer is NULL");
	*filter = NULL;
	if (ncols < 0 || (ncols > 0 && coltypes == NULL))
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad column list");
	for (int c = 0; c < ncols; ++c)
		if ((int) coltypes[c] < GS_COL_BOOL || (int) coltypes[c] > GS_COL_FLOAT8)
			return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: column %d has unknown type %d", c, (int) coltypes[c]);
	if (max_rows < 0 || max_rows > GS_FILTER_MAX_ROWS)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: max_rows %lld out of range 0..%lld",
					   (long long) max_rows, (long long) GS_FILTER_MAX_ROWS);
	if (nslots != 1 && nslots != 2)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: nslots must be 1 or 2, not %d", nslots);

	f = (gs_filter *) calloc(1, sizeof(gs_filter));
	if (f == NULL)
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");
	f->ncols = ncols;
	f->max_rows = max_rows;
	f->nslots = nslots;
	f->coltypes = (gs_coltype *) calloc(ncols > 0 ? ncols : 1, sizeof(gs_coltype));
	f->col_used = (unsigned char *) calloc(ncols > 0 ? ncols : 1, 1);
	if (f->coltypes == NULL || f->col_used == NULL)
	{
		gs_filter_destroy(f);
		return gs_fail(GS_OUT_OF_MEMORY, errbuf, errlen, "gpusel filter: out of memory");
	}
	if (ncols > 0)
		memcpy(f->coltypes, coltypes, ncols * sizeof(gs_coltype));

	st = gs_compile_program(program, ncols, coltypes, code, &max_depth, f->col_used, errbuf, errlen);
	if (st != GS_OK)
	{
		gs_filter_destroy(f);
		return st;
	}
	f->ncode = program->ncode;
	f->stack_slots = max_depth > 1 ? max_depth - 1 : 1;	/* top lives in a register */
	gs_detect_range(f, program);

	e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&f->num_sms, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = cudaMalloc((void **) &f->d_code, f->ncode * sizeof(gs_dinstr));
	if (e == cudaSuccess)
		e = cudaMemcpy(f->d_code, code, f->ncode * sizeof(gs_dinstr), cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = cudaMalloc((void **) &f->d_consts, (program->nconsts > 0 ? program->nconsts : 1) * sizeof(gs_const));
	if (e == cudaSuccess && program->nconsts > 0)
		e = cudaMemcpy(f->d_consts, program->consts, program->nconsts * sizeof(gs_const), cudaMemcpyHostToDevice);
	if (e != cudaSuccess)
	{
		st = gs_cuda_fail(e, "setting up the device program", errbuf, errlen);
		gs_filter_destroy(f);
		return st;
	}
	for (int i = 0; i < nslots; ++i)
	{
		st = gs_slot_create(f, &f->slots[i], errbuf, errlen);
		if (st != GS_OK)
		{
			gs_filter_destroy(f);
			return st;
		}
	}
	*filter = f;
	return GS_OK;
}

void
gs_filter_destroy(gs_filter *f)
{
	if (f == NULL)
		return;
	for (int i = 0; i < 2; ++i)
		gs_slot_free(f, &f->slots[i]);
	cudaFree(f->d_code);
	cudaFree(f->d_consts);
	free(f->coltypes);
	free(f->col_used);
	free(f);
	(void) cudaGetLastError();	/* frees after a failure may leave a non-sticky error */
}

/* ------------------------------------------------------------------------
 * Staging, submit, wait
 * ------------------------------------------------------------------------ */

void *
gs_filter_values(gs_filter *f, int slot, int col)
{
	if (f == NULL || slot < 0 || slot >= f->nslots || col < 0 || col >= f->ncols)
		return NULL;
	return f->slots[slot].h_values[col];
}

uint8_t *
gs_filter_nulls(gs_filter *f, int slot, int col)
{
	if (f == NULL || slot < 0 || slot >= f->nslots || col < 0 || col >= f->ncols)
		return NULL;
	return f->slots[slot].h_nulls[col];
}

gs_status
gs_filter_ship_columns(gs_filter *f, const uint8_t *cols, char *errbuf, size_t errlen)
{
	cudaError_t e;

	if (f == NULL || cols == NULL)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or column list");
	for (int i = 0; i < f->nslots; ++i)
		if (f->slots[i].pending)
			return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: columns must be added before a batch is submitted");
	for (int c = 0; c < f->ncols; ++c)
	{
		size_t		rows = (size_t) (f->max_rows > 0 ? f->max_rows : 1);

		if (!cols[c] || f->col_used[c])
			continue;
		for (int i = 0; i < f->nslots; ++i)
		{
			gs_slot    *s = &f->slots[i];

			/* the slot owns what it allocated here: gs_slot_free frees every column */
			e = cudaMalloc(&s->d_values[c], (rows * gs_coltype_width(f->coltypes[c]) + 15) & ~(size_t) 15);
			if (e == cudaSuccess)
				e = cudaMalloc((void **) &s->d_nulls[c], (rows + 15) & ~(size_t) 15);
			if (e != cudaSuccess)
				return gs_cuda_fail(e, "allocating a device column", errbuf, errlen);
			s->table_valid = 0;
		}
		f->col_used[c] = 1;
	}
	return GS_OK;
}

gs_status
gs_filter_submit(gs_filter *f, int slot, int64_t nrows, const uint8_t *has_nulls,
				 char *errbuf, size_t errlen)
{
	gs_slot    *s;
	cudaError_t e;
	gs_status	st;

	if (f == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (nrows < 0 || nrows > f->max_rows)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: %lld rows, the filter holds at most %lld",
					   (long long) nrows, f->max_rows);
	if (s->pending)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d was submitted and not waited for", slot);
	s->npass = -1;				/* the columns change now: the last batch is gone */
	s->submits++;

	e = cudaEventRecord(s->ev_start, s->stream);
	for (int c = 0; c < f->ncols && e == cudaSuccess; ++c)
	{
		const int	nulls = has_nulls == NULL || has_nulls[c] != 0;

		s->next_table[c].values = NULL;
		s->next_table[c].nulls = NULL;
		if (!f->col_used[c])
			continue;
		s->next_table[c].values = s->d_values[c];
		s->next_table[c].nulls = nulls ? s->d_nulls[c] : NULL;
		if (nrows == 0)
			continue;
		e = cudaMemcpyAsync(s->d_values[c], s->h_values[c], (size_t) nrows * gs_coltype_width(f->coltypes[c]),
							cudaMemcpyHostToDevice, s->stream);
		if (e == cudaSuccess && nulls)
			e = cudaMemcpyAsync(s->d_nulls[c], s->h_nulls[c], (size_t) nrows,
								cudaMemcpyHostToDevice, s->stream);
	}
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "copying a batch to the device", errbuf, errlen);

	/* The slot is idle (waited for), so h_table is free to change. */
	st = gs_launch_slot(f, s, s->next_table, nrows, s->d_positions, s->stream, errbuf, errlen);
	if (st != GS_OK)
		return st;
	e = cudaMemcpyAsync(s->h_result, s->ws.result, sizeof(gs_compact_result),
						cudaMemcpyDeviceToHost, s->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(s->ev_done, s->stream);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "queueing the result copy", errbuf, errlen);
	s->nrows = nrows;
	s->pending = 1;
	return GS_OK;
}

gs_status
gs_filter_wait(gs_filter *f, int slot, const uint32_t **positions, int64_t *count,
			   int *row_error, double *device_ms, char *errbuf, size_t errlen)
{
	gs_slot    *s;
	cudaError_t e;
	uint32_t	n;
	float		ms = 0.0f;
	float		copy_ms = 0.0f;

	if (f == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (!s->pending)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d has no batch submitted", slot);
	s->pending = 0;

	e = cudaEventSynchronize(s->ev_done);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "running the filter", errbuf, errlen);
	/*
	 * Device time is the batch's own work: from its first copy to its
	 * result, then the positions' copy, not the host's time between
	 * submitting and waiting (it fills the other slot meanwhile).
	 */
	e = cudaEventElapsedTime(&ms, s->ev_start, s->ev_done);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "timing the filter", errbuf, errlen);
	n = s->h_result->count;
	if ((long long) n > s->nrows)
		return gs_fail(GS_CUDA_ERROR, errbuf, errlen, "gpusel filter: device counted %u of %lld rows", n, s->nrows);
	e = cudaEventRecord(s->ev_start, s->stream);
	if (e == cudaSuccess && n > 0)
		e = cudaMemcpyAsync(s->h_positions, s->d_positions, (size_t) n * sizeof(uint32_t),
							cudaMemcpyDeviceToHost, s->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(s->ev_end, s->stream);
	if (e == cudaSuccess)
		e = cudaEventSynchronize(s->ev_end);
	if (e == cudaSuccess)
		e = cudaEventElapsedTime(&copy_ms, s->ev_start, s->ev_end);
	if (e != cudaSuccess)
		return gs_cuda_fail(e, "copying positions back", errbuf, errlen);
	ms += copy_ms;

	s->npass = n;
	if (positions)
		*positions = s->h_positions;
	if (count)
		*count = n;
	if (row_error)
		*row_error = s->h_result->row_error != 0;
	if (device_ms)
		*device_ms = ms;
	return GS_OK;
}

gs_status
gs_filter_device_batch(gs_filter *f, int slot, gs_device_batch *out, char *errbuf, size_t errlen)
{
	gs_slot    *s;

	if (f == NULL || out == NULL || slot < 0 || slot >= f->nslots)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad filter or slot %d", slot);
	s = &f->slots[slot];
	if (s->pending || s->npass < 0)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d holds no waited-for batch", slot);
	out->stream = s->stream;
	out->values = s->d_values;
	for (int c = 0; c < f->ncols && c < GS_MAX_PROGRAM_LENGTH; ++c)
		out->nulls[c] = s->next_table[c].nulls;	/* as the last submit set them */
	out->positions = s->d_positions;
	out->npositions = s->npass;
	out->batch = s->submits;
	out->ncols = f->ncols;
	out->coltypes = f->coltypes;
	return GS_OK;
}

/* ------------------------------------------------------------------------
 * Internal entry points (predicate.cuh)
 * ------------------------------------------------------------------------ */

gs_filter_path
gs_filter_get_path(const gs_filter *f)
{
	return f->path;
}

void
gs_filter_force_interpreter(gs_filter *f, int on)
{
	f->force_interpreter = on != 0;
}

gs_status
gs_filter_launch(gs_filter *f, int slot, const gs_dcolumn *cols, int64_t nrows,
				 uint32_t *d_positions, cudaStream_t stream, char *errbuf, size_t errlen)
{
	gs_slot    *s;

	if (f == NULL || slot < 0 || slot >= f->nslots || nrows < 0 || nrows > f->max_rows ||
		(cols == NULL && f->ncols > 0) || ((uintptr_t) d_positions % 16) != 0)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: bad launch arguments");
	s = &f->slots[slot];
	if (s->pending)
		return gs_fail(GS_INVALID_ARGUMENT, errbuf, errlen, "gpusel filter: slot %d has a batch pending", slot);
	/* A new table may overwrite h_table/d_table while an earlier launch, on any stream, still reads them. */
	if (f->ncols > 0 && (!s->table_valid || memcmp(s->h_table, cols, f->ncols * sizeof(gs_dcolumn)) != 0))
	{
		cudaError_t e = cudaDeviceSynchronize();

		if (e != cudaSuccess)
			return gs_cuda_fail(e, "synchronising the device", errbuf, errlen);
	}
	return gs_launch_slot(f, s, cols, nrows, d_positions, stream, errbuf, errlen);
}

const gs_compact_result *
gs_filter_device_result(const gs_filter *f, int slot)
{
	return f->slots[slot].ws.result;
}
