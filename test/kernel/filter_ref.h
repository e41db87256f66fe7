/*
 * filter_ref.h
 *	  Test support for filter_test.cu: a predicate-program builder, a
 *	  columnar table, and the CPU reference evaluator of gs_program
 *	  (gpusel_filter.h), written independently of the device code: it walks
 *	  the program with real jumps, on a plain array stack, and uses the C
 *	  compiler's overflow builtins for PostgreSQL's integer rules and
 *	  PostgreSQL 15's float.h checks for floats.  Included by one file only.
 */
#ifndef GPUSEL_FILTER_REF_H
#define GPUSEL_FILTER_REF_H

#include <cmath>
#include <limits>
#include <stdint.h>
#include <string.h>
#include <string>
#include <vector>

#include "gpusel_filter.h"

/* ------------------------------------------------------------------------
 * Program builder
 * ------------------------------------------------------------------------ */

/* A program under construction; tracks depth to fill max_stack. */
struct Prog
{
	std::string name;
	std::vector<gs_instr> code;
	std::vector<gs_const> consts;
	int			depth = 0, maxd = 0;

	explicit	Prog(std::string n) : name(n) {}

	Prog	   &emit(int op, int kind, int arg, int arg2, int delta, int kind2 = 0)
	{
		gs_instr	i;

		memset(&i, 0, sizeof(i));
		i.op = op;
		i.kind = kind;
		i.kind2 = kind2;
		i.arg = arg;
		i.arg2 = arg2;
		code.push_back(i);
		depth += delta;
		maxd = depth > maxd ? depth : maxd;
		return *this;
	}
	int			addc(int64_t i, double f, bool isf, bool isnull)
	{
		gs_const	c;

		memset(&c, 0, sizeof(c));
		if (isf)
			c.v.f = f;
		else
			c.v.i = i;
		c.isnull = isnull;
		consts.push_back(c);
		return (int) consts.size() - 1;
	}
	Prog	   &col(int c, int kind) { return emit(GS_OP_COLUMN, kind, c, 0, 1); }
	Prog	   &ci(int kind, int64_t v) { return emit(GS_OP_CONST, kind, addc(v, 0, false, false), 0, 1); }
	Prog	   &cf(int kind, double v) { return emit(GS_OP_CONST, kind, addc(0, v, true, false), 0, 1); }
	Prog	   &cnull(int kind) { return emit(GS_OP_CONST, kind, addc(0, 0, false, true), 0, 1); }
	Prog	   &bin(int op, int kind) { return emit(op, kind, 0, 0, -1); }
	Prog	   &un(int op, int kind = GS_VK_BOOL) { return emit(op, kind, 0, 0, 0); }
	Prog	   &cast(int from, int to) { return emit(GS_OP_CAST, from, 0, 0, 0, to); }
	Prog	   &andn(int n) { return emit(GS_OP_AND, 0, n, 0, 1 - n); }
	Prog	   &orn(int n) { return emit(GS_OP_OR, 0, n, 0, 1 - n); }
	/* a row error for a non-NULL integer top outside lo .. hi */
	Prog	   &guard(int kind, int64_t lo, int64_t hi)
	{
		int			l = addc(lo, 0, false, false);
		int			h = addc(hi, 0, false, false);

		return emit(GS_OP_RANGE_GUARD, kind, l, h, 0);
	}
	/* IN list: ints in iv (isf false) or doubles in fv; nulls[i] marks a NULL element. */
	Prog	   &in(int kind, std::vector<double> fv, std::vector<int64_t> iv, std::vector<int> nulls)
	{
		int			first = (int) consts.size();
		size_t		m = kind >= GS_VK_FLOAT4 ? fv.size() : iv.size();

		for (size_t i = 0; i < m; ++i)
			addc(i < iv.size() ? iv[i] : 0, i < fv.size() ? fv[i] : 0, kind >= GS_VK_FLOAT4,
				 i < nulls.size() && nulls[i]);
		return emit(GS_OP_IN_CONSTS, kind, first, (int) m, 0);
	}
	int			jump(int op) { emit(op, 0, -1, 0, 0); return (int) code.size() - 1; }
	Prog	   &land(int j) { code[j].arg = (int) code.size(); return *this; }
	gs_program	prog() const
	{
		gs_program	p;

		p.code = code.data();
		p.ncode = (int) code.size();
		p.consts = consts.data();
		p.nconsts = (int) consts.size();
		p.max_stack = maxd;
		return p;
	}
};

/* ------------------------------------------------------------------------
 * Column tables
 * ------------------------------------------------------------------------ */

static size_t
width_of(int t)
{
	return t == GS_COL_BOOL ? 1 : t == GS_COL_INT2 ? 2 : (t == GS_COL_INT4 || t == GS_COL_FLOAT4) ? 4 : 8;
}

/* Columnar rows: raw values at the type's width and null bytes. */
struct Table
{
	int64_t		n = 0;
	std::vector<gs_coltype> types;
	std::vector<std::vector<uint8_t>> vals, nulls;
	std::vector<uint8_t> has_nulls;

	void		add(gs_coltype t, bool nullable)
	{
		types.push_back(t);
		vals.emplace_back((size_t) n * width_of(t) + 16);
		nulls.emplace_back((size_t) n + 16, 0);
		has_nulls.push_back(nullable);
	}
	template <typename T> T *v(int c) { return (T *) vals[c].data(); }
	bool		isnull(int c, int64_t r) const { return has_nulls[c] && nulls[c][r]; }
};

/* ------------------------------------------------------------------------
 * CPU reference evaluator
 * ------------------------------------------------------------------------ */

struct RV
{
	bool		null;
	int64_t		i;				/* bool and int kinds */
	double		f;				/* float kinds (float4 values are floats) */
};

static bool
is_f(int k)
{
	return k == GS_VK_FLOAT4 || k == GS_VK_FLOAT8;
}

/* PostgreSQL's float comparison: NaN equal to NaN and above everything. */
static int
ref_fcmp(double a, double b)
{
	if (std::isnan(a) || std::isnan(b))
		return std::isnan(a) ? (std::isnan(b) ? 0 : 1) : -1;
	return a < b ? -1 : a > b ? 1 : 0;
}

static int
ref_cmp(int kind, const RV &a, const RV &b)
{
	if (is_f(kind))
		return ref_fcmp(a.f, b.f);
	return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
}

/* Integer arithmetic of width T with PostgreSQL's errors. */
template <typename T>
static int64_t
ref_iarith(int op, int64_t a64, int64_t b64, bool &err)
{
	T			a = (T) a64, b = (T) b64, r = 0;
	const T		tmin = std::numeric_limits<T>::min();

	switch (op)
	{
		case GS_OP_ADD:
			err |= __builtin_add_overflow(a, b, &r);
			break;
		case GS_OP_SUB:
			err |= __builtin_sub_overflow(a, b, &r);
			break;
		case GS_OP_MUL:
			err |= __builtin_mul_overflow(a, b, &r);
			break;
		case GS_OP_DIV:
			if (b == 0 || (b == -1 && a == tmin))
				err = true;
			else
				r = (T) (a / b);
			break;
		case GS_OP_MOD:
			if (b == 0)
				err = true;
			else
				r = b == -1 ? 0 : (T) (a % b);
			break;
	}
	return r;
}

/* Float arithmetic in F (float or double) as PostgreSQL 15's float.h. */
template <typename F>
static double
ref_farith(int op, double a64, double b64, bool &err)
{
	F			a = (F) a64, b = (F) b64, r = 0;

	switch (op)
	{
		case GS_OP_ADD:
			r = a + b;
			err |= std::isinf(r) && !std::isinf(a) && !std::isinf(b);
			break;
		case GS_OP_SUB:
			r = a - b;
			err |= std::isinf(r) && !std::isinf(a) && !std::isinf(b);
			break;
		case GS_OP_MUL:
			r = a * b;
			err |= (std::isinf(r) && !std::isinf(a) && !std::isinf(b)) || (r == 0 && a != 0 && b != 0);
			break;
		case GS_OP_DIV:
			if (b == 0 && !std::isnan(a))
			{
				err = true;
				break;
			}
			r = a / b;
			err |= (std::isinf(r) && !std::isinf(a)) || (r == 0 && a != 0 && !std::isinf(b));
			break;
	}
	return (double) r;
}

/* Stack value of a constant for an instruction of the given kind. */
static RV
ref_const(const gs_const &c, int kind)
{
	RV			v = {c.isnull != 0, 0, 0.0};

	if (kind == GS_VK_FLOAT4)
		v.f = (double) (float) c.v.f;
	else if (kind == GS_VK_FLOAT8)
		v.f = c.v.f;
	else
		v.i = c.v.i;
	return v;
}

/* Row r of column c as a stack value. */
static RV
ref_column(Table &t, int c, int64_t r)
{
	RV			v = {t.isnull(c, r), 0, 0.0};

	switch (t.types[c])
	{
		case GS_COL_BOOL: v.i = t.v<uint8_t>(c)[r] != 0; break;
		case GS_COL_INT2: v.i = t.v<int16_t>(c)[r]; break;
		case GS_COL_INT4: v.i = t.v<int32_t>(c)[r]; break;
		case GS_COL_INT8: v.i = t.v<int64_t>(c)[r]; break;
		case GS_COL_FLOAT4: v.f = t.v<float>(c)[r]; break;
		default: v.f = t.v<double>(c)[r]; break;
	}
	return v;
}

/* Evaluates the program on row r; true when it passes; err when the row raised an error. */
#define PUSH(x) (stk[sp++] = (x))
static bool
ref_eval(const Prog &p, Table &t, int64_t r, bool &err)
{
	RV			stk[GS_MAX_STACK + 1];
	int			sp = 0;			/* stk[sp - 1] is the top */
	size_t		pc = 0;

	err = false;
	while (pc < p.code.size())
	{
		const gs_instr &in = p.code[pc];
		RV			res = {false, 0, 0.0};

		switch (in.op)
		{
			case GS_OP_COLUMN: PUSH(ref_column(t, in.arg, r)); break;
			case GS_OP_CONST: PUSH(ref_const(p.consts[in.arg], in.kind)); break;
			case GS_OP_CAST:
				{
					RV		   &a = stk[sp - 1];

					if (a.null)
						break;
					if (in.kind2 == GS_VK_FLOAT8)
						a.f = in.kind == GS_VK_FLOAT4 ? a.f : (double) a.i;
					else if (in.kind2 == GS_VK_FLOAT4)
						a.f = (double) (float) a.i;
					break;
				}
			case GS_OP_EQ: case GS_OP_NE: case GS_OP_LT: case GS_OP_LE: case GS_OP_GT: case GS_OP_GE:
			case GS_OP_ADD: case GS_OP_SUB: case GS_OP_MUL: case GS_OP_DIV: case GS_OP_MOD:
				{
					RV			b = stk[sp - 1]; --sp;
					RV			a = stk[sp - 1]; --sp;

					res.null = a.null || b.null;
					if (!res.null && in.op <= GS_OP_GE)
					{
						int			c = ref_cmp(in.kind, a, b);

						res.i = in.op == GS_OP_EQ ? c == 0 : in.op == GS_OP_NE ? c != 0 :
							in.op == GS_OP_LT ? c < 0 : in.op == GS_OP_LE ? c <= 0 :
							in.op == GS_OP_GT ? c > 0 : c >= 0;
					}
					else if (!res.null)
					{
						switch (in.kind)
						{
							case GS_VK_INT2: res.i = ref_iarith<int16_t>(in.op, a.i, b.i, err); break;
							case GS_VK_INT4: res.i = ref_iarith<int32_t>(in.op, a.i, b.i, err); break;
							case GS_VK_INT8: res.i = ref_iarith<int64_t>(in.op, a.i, b.i, err); break;
							case GS_VK_FLOAT4: res.f = ref_farith<float>(in.op, a.f, b.f, err); break;
							default: res.f = ref_farith<double>(in.op, a.f, b.f, err); break;
						}
					}
					PUSH(res);
					break;
				}
			case GS_OP_NEG:
				{
					RV		   &a = stk[sp - 1];

					if (a.null)
						break;
					if (is_f(in.kind))
						a.f = -a.f;
					else if (in.kind == GS_VK_INT2)
						a.i = ref_iarith<int16_t>(GS_OP_SUB, 0, a.i, err);
					else if (in.kind == GS_VK_INT4)
						a.i = ref_iarith<int32_t>(GS_OP_SUB, 0, a.i, err);
					else
						a.i = ref_iarith<int64_t>(GS_OP_SUB, 0, a.i, err);
					break;
				}
			case GS_OP_AND: case GS_OP_OR:
				{
					bool		anynull = false, decided = false;
					bool		isand = in.op == GS_OP_AND;

					for (int k = 0; k < in.arg; ++k)
					{
						RV			a = stk[sp - 1]; --sp;

						if (a.null)
							anynull = true;
						else if ((a.i != 0) != isand)
							decided = true;
					}
					res.i = decided ? !isand : isand;
					res.null = !decided && anynull;
					PUSH(res);
					break;
				}
			case GS_OP_NOT:
				stk[sp - 1].i = stk[sp - 1].null ? 0 : !stk[sp - 1].i;
				break;
			case GS_OP_IS_NULL: case GS_OP_IS_NOT_NULL:
				res.i = stk[sp - 1].null == (in.op == GS_OP_IS_NULL);
				stk[sp - 1] = res;
				break;
			case GS_OP_IS_TRUE: res.i = !stk[sp - 1].null && stk[sp - 1].i; stk[sp - 1] = res; break;
			case GS_OP_IS_NOT_TRUE: res.i = !(!stk[sp - 1].null && stk[sp - 1].i); stk[sp - 1] = res; break;
			case GS_OP_IS_FALSE: res.i = !stk[sp - 1].null && !stk[sp - 1].i; stk[sp - 1] = res; break;
			case GS_OP_IS_NOT_FALSE: res.i = !(!stk[sp - 1].null && !stk[sp - 1].i); stk[sp - 1] = res; break;
			case GS_OP_IN_CONSTS:
				{
					RV			a = stk[sp - 1];
					bool		found = false, sawnull = false;

					for (int k = 0; k < in.arg2; ++k)
					{
						RV			c = ref_const(p.consts[in.arg + k], in.kind);

						if (c.null || a.null)
							sawnull = true;
						else if (ref_cmp(in.kind, a, c) == 0)
							found = true;
					}
					res.i = found;
					res.null = !found && sawnull;
					stk[sp - 1] = res;
					break;
				}
			case GS_OP_JUMP_IF_FALSE:
				if (!stk[sp - 1].null && !stk[sp - 1].i) { pc = in.arg; continue; }
				break;
			case GS_OP_JUMP_IF_TRUE:
				if (!stk[sp - 1].null && stk[sp - 1].i) { pc = in.arg; continue; }
				break;
			case GS_OP_JUMP_IF_NOT_TRUE:
				if (stk[sp - 1].null || !stk[sp - 1].i) { pc = in.arg; continue; }
				break;
			case GS_OP_RANGE_GUARD:
				if (!stk[sp - 1].null &&
					(stk[sp - 1].i < ref_const(p.consts[in.arg], in.kind).i ||
					 stk[sp - 1].i > ref_const(p.consts[in.arg2], in.kind).i))
					err = true;
				break;
		}
		if (err)
			return false;		/* PostgreSQL would stop here */
		++pc;
	}
	return !stk[sp - 1].null && stk[sp - 1].i;
}
#undef PUSH

/* Reference positions and any-error flag over the whole table. */
static void
ref_filter(const Prog &p, Table &t, std::vector<uint32_t> &pos, bool &anyerr)
{
	pos.clear();
	anyerr = false;
	for (int64_t r = 0; r < t.n; ++r)
	{
		bool		e;

		if (ref_eval(p, t, r, e))
			pos.push_back((uint32_t) r);
		anyerr |= e;
	}
}

#endif							/* GPUSEL_FILTER_REF_H */
