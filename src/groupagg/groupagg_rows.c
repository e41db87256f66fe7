/*
 * groupagg_rows.c
 *	  Rows into the grouped scan's groups: each row's group (groupagg_exec.c
 *	  finds or creates it), then its aggregates' cells and its percentile
 *	  keys, either a row at a time (a heap tuple, or a batch row whose
 *	  inputs need the executor) or a block of a batch's columns at a time.
 *
 * Rows arrive in scan order, and within a block each aggregate still sees
 * its group's rows in that order, so every order-dependent result is the
 * one a PostgreSQL aggregate fed in scan order gives (README, "Grouped and
 * filtered aggregates in one scan").
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "groupagg_internal.h"
#include "order_keys.h"
#include "scan_exec.h"

/* Appends one key of group g to a collection (room made by the caller). */
static inline void
append_pair(PercentileCollection *pc, int64 g, uint64 key)
{
	if (pc->groups != NULL)
		pc->groups[pc->nkeys] = (uint32) g;
	if (pc->key_bytes == 4)
		((uint32 *) pc->keys)[pc->nkeys] = (uint32) key;
	else
		((uint64 *) pc->keys)[pc->nkeys] = key;
	pc->nkeys++;
	pc->counts[g]++;
}

/* Appends one value kept whole of group g to a collection (room made by the caller). */
static inline void
append_kept_value(PercentileCollection *pc, int64 g, Datum value)
{
	if (pc->groups != NULL)
		pc->groups[pc->nkeys] = (uint32) g;
	memcpy(pc->keys + pc->nkeys * pc->key_bytes, DatumGetPointer(value), pc->key_bytes);
	pc->nkeys++;
	pc->counts[g]++;
}

/*
 * Appends a block's mapped keys (KeysOfColumn) to a collection without
 * GROUP BY: every key is group 0's, so the count and the key position stay
 * in locals instead of being stored and reloaded per row.
 */
static void
append_keys_one_group(PercentileCollection *pc, const uint64 *keys, const uint8 *nl,
					  const void *values, gs_coltype coltype, const uint32 *rows,
					  int64 start, int len)
{
	const KeyType *kt = pc->keytype;
	int64		n = pc->nkeys;

	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;
		uint64		key = keys[j];

		if (nl != NULL && nl[row])
			continue;			/* NULL keys are not counted */
		if (unlikely(key == kt->zero_key) && kt->is_negative_zero != NULL)
			pc->zeros[0] |= kt->is_negative_zero(GpuselLoadValue(values, row, coltype)) ? 1 : 2;
		if (pc->key_bytes == 4)
			((uint32 *) pc->keys)[n] = (uint32) key;
		else
			((uint64 *) pc->keys)[n] = key;
		n++;
	}
	pc->counts[0] += n - pc->nkeys;
	pc->nkeys = n;
}

/* Adds the current row's percentile keys to its group's collections. */
static inline void
add_row_keys(GroupAggSink *sink, int64 g)
{
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];
		Datum		v = sink->values[pc->input];
		uint64		key;

		if (sink->nulls[pc->input])
			continue;
		if (unlikely(pc->nkeys == pc->cap))
			GroupAggGrowCollection(sink, pc);
		if (pc->kept != NULL)
		{
			append_kept_value(pc, g, v);
			continue;
		}
		if (pc->big_keys)
			v = Int64GetDatum(GroupAggBigKeyScaled(sink, pc, g, v));
		key = pc->keytype->to_key(v);
		if (unlikely(key == pc->keytype->zero_key) && pc->keytype->is_negative_zero != NULL)
			pc->zeros[g] |= pc->keytype->is_negative_zero(v) ? 1 : 2;
		append_pair(pc, g, key);
	}
}

/* Adds the current row (values and nulls filled) to its group. */
static void
add_row(GroupAggSink *sink)
{
	int64		g = GroupAggFindGroup(sink);
	GroupCell  *cells = &sink->cells[g * sink->naggs];

	sink->rows_aggregated++;
	for (int a = 0; a < sink->naggs; a++)
	{
		GroupAggDesc *desc = &sink->aggs[a];

		if (desc->input >= 0 && sink->nulls[desc->input])
			continue;			/* strict: NULL inputs are skipped */
		desc->methods->update(sink, desc, &cells[a],
							  desc->input >= 0 ? sink->values[desc->input] : (Datum) 0);
	}
	add_row_keys(sink, g);
}

/* Adds one row that passed the WHERE clause, read from a heap tuple slot. */
void
GroupAggSinkAddSlot(GroupAggSink *sink, TupleTableSlot *slot)
{
	ExprContext *econtext = sink->ps->ps_ExprContext;

	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < sink->ninputs; i++)
	{
		GroupInput *in = &sink->inputs[i];

		sink->numvalues[i].native = false;
		if (in->state == NULL)
		{
			sink->values[i] = slot_getattr(slot, in->attno, &sink->nulls[i]);
			if (in->form != GPUSEL_FORM_PLAIN && !sink->nulls[i])
				sink->values[i] = Int64GetDatum(GpuselFormEncode(in->form, in->form_arg,
																 sink->values[i]));
		}
		else
			sink->values[i] = ExecEvalExpr(in->state, econtext, &sink->nulls[i]);
	}
	add_row(sink);
	GroupAggShipIfDue(sink);
}

/* Loads input i, a plain column, from row 'row' of a batch into the current row. */
static inline void
load_column_input(GroupAggSink *sink, int i, void *const *values, uint8 *const *nulls,
				  const uint8 *has_nulls, int64 row)
{
	GroupInput *in = &sink->inputs[i];
	int			c = in->column;

	sink->nulls[i] = has_nulls[c] && nulls[c][row];
	sink->values[i] = sink->nulls[i] ? (Datum) 0 :
		GpuselLoadValue(values[c], row, in->coltype);
}

/* Stores a batch row's columns in colslot, for the expression inputs. */
static void
load_expr_columns(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
				  const uint8 *has_nulls, int64 row)
{
	TupleTableSlot *slot = sink->colslot;
	MemoryContext old;

	ExecClearTuple(slot);
	/* numeric columns become numerics again, for this row only */
	old = MemoryContextSwitchTo(sink->ps->ps_ExprContext->ecxt_per_tuple_memory);
	for (int e = 0; e < sink->nexprcols; e++)
	{
		int			c = sink->exprcol_columns[e];
		int			a = sink->exprcol_attnos[e] - 1;
		bool		isnull = has_nulls[c] && nulls[c][row];

		slot->tts_isnull[a] = isnull;
		if (isnull)
			slot->tts_values[a] = (Datum) 0;
		else if (sink->exprcol_numeric_scale[e] >= 0)
			slot->tts_values[a] = GpuselScaledToNumeric(((const int64 *) values[c])[row],
														sink->exprcol_numeric_scale[e]);
		else
			slot->tts_values[a] = GpuselLoadValue(values[c], row, sink->exprcol_types[e]);
	}
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	sink->ps->ps_ExprContext->ecxt_scantuple = slot;
}

/*
 * Computes a numeric expression input in C over len rows of a batch into
 * numblock; a row whose value would leave 128 bits gets the executor's
 * numeric in exprvalues instead (it lives until the next block's reset).
 * exprnulls holds every row's NULL flag.
 */
static void
eval_numeric_block(GroupAggSink *sink, int i, void *const *values, uint8 *const *nulls,
				   const uint8 *has_nulls, const uint32 *rows, int64 start, int len)
{
	GroupInput *in = &sink->inputs[i];
	GroupNumericValue *nv = &sink->numblock[i * KEYS_BLOCK];
	bool	   *nls = &sink->exprnulls[i * KEYS_BLOCK];

	GroupAggNumericExprBlock(sink, in, values, nulls, has_nulls, rows, start, len, nv);
	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;

		if (likely(nv[j].native))
		{
			nls[j] = nv[j].isnull;
			continue;
		}
		if (sink->nexprcols > 0)
			load_expr_columns(sink, values, nulls, has_nulls, row);
		sink->exprvalues[i * KEYS_BLOCK + j] = ExecEvalExpr(in->colstate, sink->ps->ps_ExprContext,
															&nls[j]);
	}
}

/*
 * Evaluates every expression input over len rows of a batch into
 * exprvalues/exprnulls (exprs_by_block: pass-by-value results, which
 * outlive the per-block reset of the expression context), numeric ones
 * computed in C into numblock.
 */
static void
eval_exprs_by_block(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
					const uint8 *has_nulls, const uint32 *rows, int64 start, int len)
{
	ExprContext *econtext = sink->ps->ps_ExprContext;
	int			failing = -1;
	int			nrows;

	ResetExprContext(econtext);
	for (int i = 0; i < sink->ninputs; i++)
	{
		GroupInput *in = &sink->inputs[i];
		int			f;

		if (in->numexpr != NULL)
		{
			eval_numeric_block(sink, i, values, nulls, has_nulls, rows, start, len);
			continue;
		}
		if (in->native == NULL)
			continue;
		f = GroupAggNativeExprBlock(sink, in, values, nulls, has_nulls, rows, start, len,
									&sink->exprvalues[i * KEYS_BLOCK],
									&sink->exprnulls[i * KEYS_BLOCK]);
		if (f >= 0 && (failing < 0 || f < failing))
			failing = f;
	}

	/*
	 * The executor evaluates the other inputs row by row; when a native
	 * input fails at some row, it evaluates every input up to that row, so
	 * that the first error in row order is raised, as PostgreSQL would
	 */
	nrows = failing >= 0 ? failing + 1 : sink->exprs_need_row ? len : 0;
	for (int j = 0; j < nrows; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;

		if (sink->nexprcols > 0)
			load_expr_columns(sink, values, nulls, has_nulls, row);
		for (int i = 0; i < sink->ninputs; i++)
		{
			GroupInput *in = &sink->inputs[i];

			if (in->colstate != NULL && in->numexpr == NULL && (in->native == NULL || failing >= 0))
				sink->exprvalues[i * KEYS_BLOCK + j] =
					ExecEvalExpr(in->colstate, econtext, &sink->exprnulls[i * KEYS_BLOCK + j]);
		}
	}
	if (failing >= 0)
		elog(ERROR, "gpusel: a grouped key or input failed in C but not in the executor");
}

/* Loads input i of block row j (batch row 'row') into the current row. */
static inline void
load_block_input(GroupAggSink *sink, int i, void *const *values, uint8 *const *nulls,
				 const uint8 *has_nulls, int64 row, int j)
{
	if (sink->inputs[i].colstate != NULL)
	{
		sink->nulls[i] = sink->exprnulls[i * KEYS_BLOCK + j];
		sink->values[i] = sink->exprvalues[i * KEYS_BLOCK + j];
	}
	else
		load_column_input(sink, i, values, nulls, has_nulls, row);
}

/* Adds a block's values of an expression input to one aggregate's cells. */
static void
add_expr_block_to_cells(GroupAggSink *sink, GroupAggDesc *desc, int a,
						const int64 *groups, int len)
{
	const Datum *vals = &sink->exprvalues[desc->input * KEYS_BLOCK];
	const bool *nls = &sink->exprnulls[desc->input * KEYS_BLOCK];

	if (sink->inputs[desc->input].numexpr != NULL &&
		(desc->methods->flags & GROUPAGG_NUMERIC_SUM))
	{
		/* values computed in C, or the executor's numeric where C could not */
		const GroupNumericValue *nv = &sink->numblock[desc->input * KEYS_BLOCK];

		for (int j = 0; j < len; j++)
		{
			GroupCell  *cell = &sink->cells[groups[j] * sink->naggs + a];

			if (nls[j])
				continue;
			if (likely(nv[j].native))
				GroupAggNumericAddNative(cell, &nv[j]);
			else
				GroupAggNumericAdd(cell, vals[j], sink->cxt);
		}
		return;
	}
	for (int j = 0; j < len; j++)
		if (!nls[j])			/* strict: NULL inputs are skipped */
			desc->methods->update(sink, desc, &sink->cells[groups[j] * sink->naggs + a], vals[j]);
}

/* Adds a block's values of an expression input to a collection. */
static void
add_expr_block_to_collection(GroupAggSink *sink, PercentileCollection *pc,
							 const int64 *groups, int len)
{
	const Datum *vals = &sink->exprvalues[pc->input * KEYS_BLOCK];
	const bool *nls = &sink->exprnulls[pc->input * KEYS_BLOCK];
	const KeyType *kt = pc->keytype;

	while (pc->nkeys + len > pc->cap)
		GroupAggGrowCollection(sink, pc);
	for (int j = 0; j < len; j++)
	{
		Datum		v = vals[j];
		uint64		key;

		if (nls[j])
			continue;
		if (pc->big_keys)
			v = Int64GetDatum(GroupAggBigKeyScaled(sink, pc, groups[j], v));
		key = kt->to_key(v);
		if (unlikely(key == kt->zero_key) && kt->is_negative_zero != NULL)
			pc->zeros[groups[j]] |= kt->is_negative_zero(v) ? 1 : 2;
		append_pair(pc, groups[j], key);
	}
}

/*
 * The bits of a block's group key k, as probe_groups computes them (its
 * order key, or a plain 8-byte value as it is; 0 where NULL), with its
 * NULL flags, when it is a column or an expression computed in C: a
 * straight loop per type over the block.  False otherwise.
 */
static bool
block_key_bits(GroupAggSink *sink, int k, void *const *values, uint8 *const *nulls,
			   const uint8 *has_nulls, const uint32 *rows, int64 start, int len,
			   uint64 *bits, bool *isnull)
{
	GroupInput *in = &sink->inputs[k];
	const KeyType *kt = in->keytype;

	if (in->colstate == NULL)
	{
		const void *col = values[in->column];
		const uint8 *nl = has_nulls[in->column] ? nulls[in->column] : NULL;

		if (kt != NULL)
		{
			if (!KeysOfColumn(in->coltype, kt->typid, col, rows, start, len, bits))
				return false;
		}
		else
			for (int j = 0; j < len; j++)
				bits[j] = (uint64) GpuselLoadValue(col, rows != NULL ? (int64) rows[j] : start + j,
												   in->coltype);
		for (int j = 0; j < len; j++)
		{
			isnull[j] = nl != NULL && nl[rows != NULL ? (int64) rows[j] : start + j];
			bits[j] = isnull[j] ? 0 : bits[j];
		}
		return true;
	}
	if (in->native != NULL && kt != NULL)
	{
		/* an integer or timestamp result, already in exprvalues */
		const Datum *v = &sink->exprvalues[k * KEYS_BLOCK];
		const bool *nv = &sink->exprnulls[k * KEYS_BLOCK];

		for (int j = 0; j < len; j++)
		{
			isnull[j] = nv[j];
			bits[j] = nv[j] ? 0 : in->native->is_int8 ? KeyOfInt64(DatumGetInt64(v[j])) :
				KeyOfInt32(DatumGetInt32(v[j]));
		}
		return true;
	}
	return false;
}

/*
 * The groups of a block's rows, created when new, in row order.  When
 * every key's bits come by block, the rows whose keys already have a
 * group find it without loading the row; the others go through
 * GroupAggFindGroup.
 */
static void
find_block_groups(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
				  const uint8 *has_nulls, const uint32 *rows, int64 start, int len,
				  int64 *groups)
{
	uint64		bits[GROUPAGG_BLOCK_KEYS * KEYS_BLOCK];
	bool		isnull[GROUPAGG_BLOCK_KEYS * KEYS_BLOCK];
	bool		by_bits = sink->nkeys <= GROUPAGG_BLOCK_KEYS;

	for (int k = 0; k < sink->nkeys && by_bits; k++)
		by_bits = block_key_bits(sink, k, values, nulls, has_nulls, rows, start, len,
								 &bits[k * KEYS_BLOCK], &isnull[k * KEYS_BLOCK]);
	if (by_bits)
		GroupAggKnownGroups(sink, bits, isnull, len, groups);
	else
		memset(groups, -1, sizeof(int64) * len);
	/* new keys in row order, so that groups are numbered as the rows meet them */
	for (int j = 0; j < len; j++)
	{
		int64		row = rows != NULL ? (int64) rows[j] : start + j;

		if (groups[j] >= 0)
			continue;
		for (int k = 0; k < sink->nkeys; k++)
			load_block_input(sink, k, values, nulls, has_nulls, row, j);
		groups[j] = GroupAggFindGroup(sink);
	}
}

/*
 * A block's keys (mapped) of a collection counted by bucket
 * (groupagg_narrow.c): on the first pass counted, with its zeros noted; on
 * the second those of the buckets the results read kept as pairs.
 */
static void
narrow_block(GroupAggSink *sink, PercentileCollection *pc, const int64 *groups,
			 const uint64 *keys, const uint8 *nl, const void *values, gs_coltype coltype,
			 const uint32 *rows, int64 start, int len)
{
	const KeyType *kt = pc->keytype;
	bool		skip[KEYS_BLOCK];
	bool		keep[KEYS_BLOCK];
	int			n;

	for (int j = 0; j < len; j++)
		skip[j] = nl != NULL && nl[rows != NULL ? (int64) rows[j] : start + j];
	if (!sink->second_pass)
	{
		for (int j = 0; j < len; j++)
			if (unlikely(keys[j] == kt->zero_key) && kt->is_negative_zero != NULL && !skip[j])
				pc->zeros[groups[j]] |=
					kt->is_negative_zero(GpuselLoadValue(values, rows != NULL ? (int64) rows[j] :
														 start + j, coltype)) ? 1 : 2;
		/* shared splitters: every group met so far has its bucket counts */
		GroupAggNarrowReserve(sink, pc, sink->ngroups);
		GroupAggNarrowCount(pc, groups, keys, skip, len);
		return;
	}
	n = GroupAggNarrowKeep(pc, groups, keys, skip, len, keep);
	while (pc->nkeys + n > pc->cap)
		GroupAggGrowCollection(sink, pc);
	for (int j = 0; j < len; j++)
		if (keep[j])
			append_pair(pc, groups[j], keys[j]);
}

/*
 * The second pass over shared splitters (groupagg_narrow.c): of a block's
 * rows, those whose key of some collection lies in a bucket some group
 * wants, as row numbers into out[]; how many.  The others would be
 * dropped by every collection after their group was found.
 */
static int
wanted_block_rows(GroupAggSink *sink, void *const *values, const uint32 *rows, int64 start,
				  int len, uint32 *out)
{
	bool		want[KEYS_BLOCK];
	uint64		keys[KEYS_BLOCK];
	int			n = 0;

	memset(want, 0, sizeof(bool) * len);
	for (int c = 0; c < sink->ncollections; c++)
	{
		PercentileCollection *pc = &sink->collections[c];
		GroupInput *in = &sink->inputs[pc->input];

		/* a NULL's key is any: its row may pass here, and the collection skips it */
		(void) KeysOfColumn(in->coltype, pc->keytype->typid, values[in->column], rows, start,
							len, keys);
		GroupAggNarrowAnyWanted(pc, keys, len, want);
	}
	/* without a branch: few rows pass, at places a predictor cannot learn */
	if (rows != NULL)
		for (int j = 0; j < len; j++)
		{
			out[n] = rows[j];
			n += want[j];
		}
	else
		for (int j = 0; j < len; j++)
		{
			out[n] = (uint32) (start + j);
			n += want[j];
		}
	return n;
}

/*
 * Adds a batch's rows a block at a time when every input is a plain
 * column or an expression of them returning a pass-by-value type: the
 * block's expression inputs first, each row's group next, then each
 * aggregate in one loop over the block, then each collection's keys in one
 * loop (KeysOfColumn for a column).  Every aggregate still sees its
 * group's rows in scan order.
 */
static void
add_columns_by_block(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
					 const uint8 *has_nulls, const uint32 *positions, int64 nrows)
{
	int64		groups[KEYS_BLOCK];
	uint64		keys[KEYS_BLOCK];
	uint32		wanted_rows[KEYS_BLOCK];
	bool		prefilter = sink->second_pass && GroupAggNarrowPrefilters(sink);

	for (int64 start = 0; start < nrows; start += KEYS_BLOCK)
	{
		int			len = (int) Min(nrows - start, KEYS_BLOCK);
		const uint32 *rows = positions != NULL ? positions + start : NULL;
		int			naggs = sink->naggs;

		CHECK_FOR_INTERRUPTS();
		if (prefilter)
		{
			len = wanted_block_rows(sink, values, rows, start, len, wanted_rows);
			if (len == 0)
				continue;
			rows = wanted_rows;
		}
		if (sink->has_colstates)
			eval_exprs_by_block(sink, values, nulls, has_nulls, rows, start, len);
		if (sink->nkeys == 0)
			memset(groups, 0, sizeof(int64) * len);
		else
			find_block_groups(sink, values, nulls, has_nulls, rows, start, len, groups);
		if (!sink->second_pass)
			sink->rows_aggregated += len;

		/* the cells move as groups are added: read their address after */
		for (int a = 0; a < naggs && !sink->second_pass; a++)
		{
			GroupAggDesc *desc = &sink->aggs[a];
			GroupCell  *cells = sink->cells;
			GroupInput *in;
			const uint8 *nl;

			if (desc->collection >= 0)
				continue;
			if (desc->input < 0)
			{
				if (sink->nkeys == 0)
					cells[groups[0] * naggs + a].count += len;
				else
					for (int j = 0; j < len; j++)
						cells[groups[j] * naggs + a].count++;
				continue;
			}
			in = &sink->inputs[desc->input];
			if (in->colstate != NULL)
			{
				add_expr_block_to_cells(sink, desc, a, groups, len);
				continue;
			}
			nl = has_nulls[in->column] ? nulls[in->column] : NULL;
			desc->methods->update_block(sink, desc, a, groups, values[in->column], in->coltype,
										nl, rows, start, len);
		}

		for (int p = 0; p < sink->ncollections; p++)
		{
			PercentileCollection *pc = &sink->collections[p];
			GroupInput *in = &sink->inputs[pc->input];
			const KeyType *kt = pc->keytype;
			const uint8 *nl;
			bool		mapped;

			/* a second pass reads again only the collections counted by bucket */
			if (sink->second_pass && pc->narrow == NULL)
				continue;
			if (in->colstate != NULL)
			{
				add_expr_block_to_collection(sink, pc, groups, len);
				continue;
			}
			nl = has_nulls[in->column] ? nulls[in->column] : NULL;
			mapped = KeysOfColumn(in->coltype, kt->typid, values[in->column],
								  rows, start, len, keys);
			while (pc->narrow == NULL && pc->nkeys + len > pc->cap)
				GroupAggGrowCollection(sink, pc);
			if (pc->narrow != NULL)
			{
				narrow_block(sink, pc, groups, keys, nl, values[in->column], in->coltype,
							 rows, start, len);
				continue;
			}
			if (mapped && sink->nkeys == 0)
			{
				append_keys_one_group(pc, keys, nl, values[in->column], in->coltype,
									  rows, start, len);
				continue;
			}
			for (int j = 0; j < len; j++)
			{
				int64		row = rows != NULL ? (int64) rows[j] : start + j;
				uint64		key;

				if (nl != NULL && nl[row])
					continue;
				key = mapped ? keys[j] :
					kt->to_key(GpuselLoadValue(values[in->column], row, in->coltype));
				if (unlikely(key == kt->zero_key) && kt->is_negative_zero != NULL)
					pc->zeros[groups[j]] |=
						kt->is_negative_zero(GpuselLoadValue(values[in->column], row,
															 in->coltype)) ? 1 : 2;
				append_pair(pc, groups[j], key);
			}
		}
	}
	if (!sink->second_pass)
		sink->rows_from_columns += nrows;
}

/*
 * Adds the rows of a batch held as columns (GroupAggSinkSetColumns): the
 * rows at 'positions', or the first nrows rows when positions is NULL.
 */
void
GroupAggSinkAddColumns(GroupAggSink *sink, void *const *values, uint8 *const *nulls,
					   const uint8 *has_nulls, const uint32 *positions, int64 nrows)
{
	ExprContext *econtext = sink->ps->ps_ExprContext;

	if (sink->count_only)
	{
		/* count(*) alone: a batch's rows are counted whole, as the device passed them */
		for (int a = 0; a < sink->naggs; a++)
			sink->cells[a].count += nrows;
		sink->rows_aggregated += nrows;
		sink->rows_from_columns += nrows;
		return;
	}
	if (!sink->has_colstates || sink->exprs_by_block)
	{
		add_columns_by_block(sink, values, nulls, has_nulls, positions, nrows);
		GroupAggShipIfDue(sink);
		return;
	}
	for (int64 r = 0; r < nrows; r++)
	{
		int64		row = positions != NULL ? (int64) positions[r] : r;
		bool		loaded = false;

		if ((r & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* what an expression input allocates lives for one row */

		if (sink->has_colstates)
			ResetExprContext(econtext);
		for (int i = 0; i < sink->ninputs; i++)
		{
			GroupInput *in = &sink->inputs[i];

			sink->numvalues[i].native = false;
			if (in->numexpr != NULL &&
				GroupAggNumericExprEval(sink, in, values, nulls, has_nulls, row,
										&sink->numvalues[i]))
			{
				sink->nulls[i] = sink->numvalues[i].isnull;
				sink->values[i] = (Datum) 0;
			}
			else if (in->colstate != NULL)
			{
				/* the row's columns for the executor, once per row */
				if (!loaded && sink->nexprcols > 0)
					load_expr_columns(sink, values, nulls, has_nulls, row);
				loaded = true;
				sink->values[i] = ExecEvalExpr(in->colstate, econtext, &sink->nulls[i]);
			}
			else
				load_column_input(sink, i, values, nulls, has_nulls, row);
		}
		add_row(sink);
	}
	sink->rows_from_columns += nrows;
	GroupAggShipIfDue(sink);
}
