/*
 * groupagg_order.c
 *	  Groups returned in the query's ORDER BY, where it sorts by exactly the
 *	  group keys: the planner offers the grouped scan with those path keys,
 *	  and PostgreSQL's Sort above it goes away.
 *
 * A Sort of the groups compares whole keys, text through strcoll, about
 * log2(groups) times per group: for 22,240 groups of a text key and an
 * hour it took longer than grouping ten million rows on the device.  Here
 * each key's distinct values are found by their bytes (datum_image_hash),
 * only those are sorted with the ORDER BY's own comparison, each group gets
 * a rank per key, and the groups are sorted by their ranks.  Values that
 * compare equal get equal ranks, and no two groups have equal keys, so the
 * order is the one the Sort gives.
 */
#include "postgres.h"

#include "commands/explain.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "column_form.h"
#include "groupagg_internal.h"

/* One ORDER BY item: a group key and how it sorts. */
typedef struct GroupOrderItem
{
	int			key;			/* the group key's index */
	Oid			sortop;
	Oid			collation;
	bool		nulls_first;
} GroupOrderItem;

/* Whether group key 'key' is among the pathkey's members. */
static bool
pathkey_is_key(PathKey *pk, Expr *key)
{
	ListCell   *lc;

	foreach(lc, pk->pk_eclass->ec_members)
	{
		EquivalenceMember *em = lfirst(lc);

		if (equal(em->em_expr, key))
			return true;
	}
	return false;
}

/*
 * The order in which the grouped scan can return its groups for the
 * query's ORDER BY, as custom_private items (a List of IntLists: key,
 * sort operator, collation, nulls first); NIL unless the ORDER BY sorts
 * by every group key, once each, and by nothing else, so that its order
 * of the groups is total.
 */
List *
GroupAggSortOrder(PlannerInfo *root, List *keys)
{
	List	   *order = NIL;
	Bitmapset  *used = NULL;
	ListCell   *lc;

	if (keys == NIL || list_length(root->sort_pathkeys) != list_length(keys))
		return NIL;
	foreach(lc, root->sort_pathkeys)
	{
		PathKey    *pk = lfirst(lc);
		int			found = -1;
		int			k = 0;
		ListCell   *lk;
		Oid			type;
		Oid			sortop;

		if (pk->pk_eclass->ec_has_volatile)
			return NIL;
		foreach(lk, keys)
		{
			if (!bms_is_member(k, used) && pathkey_is_key(pk, lfirst(lk)))
			{
				found = k;
				break;
			}
			k++;
		}
		if (found < 0)
			return NIL;
		used = bms_add_member(used, found);
		type = exprType((Node *) list_nth(keys, found));
		sortop = get_opfamily_member(pk->pk_opfamily, type, type, pk->pk_strategy);
		if (!OidIsValid(sortop))
			return NIL;
		order = lappend(order, list_make4_int(found, (int) sortop,
											  (int) pk->pk_eclass->ec_collation,
											  pk->pk_nulls_first ? 1 : 0));
	}
	return order;
}

/* Takes the plan's order (GroupAggSortOrder's list) into the sink, as it starts. */
void
GroupAggSinkSetOrder(GroupAggSink *sink, List *order)
{
	GroupOrderItem *items;
	int			i = 0;
	ListCell   *lc;

	sink->norder = list_length(order);
	if (sink->norder == 0)
		return;
	/* the plan's, for every scan: not in sink->cxt, which a rescan resets */
	items = palloc(sizeof(GroupOrderItem) * sink->norder);
	foreach(lc, order)
	{
		List	   *item = lfirst(lc);

		items[i].key = linitial_int(item);
		items[i].sortop = (Oid) lsecond_int(item);
		items[i].collation = (Oid) lthird_int(item);
		items[i].nulls_first = lfourth_int(item) != 0;
		i++;
	}
	sink->order_items = items;
}

/* A distinct value of one key and its place in the table: qsort's element. */
typedef struct DistinctValue
{
	Datum		value;
	bool		isnull;
	int64		index;			/* its place in the table, kept through the sort */
} DistinctValue;

/* Compares two distinct values by the item's comparison: qsort_arg's. */
static int
distinct_cmp(const void *a, const void *b, void *arg)
{
	const DistinctValue *x = a;
	const DistinctValue *y = b;

	return ApplySortComparator(x->value, x->isnull, y->value, y->isnull, (SortSupport) arg);
}

/*
 * Ranks every group's value of one key into rank[g * stride]: its distinct
 * values by their bytes in an open-addressing table, sorted with the
 * ORDER BY's comparison, equal ones ranked alike.  Returns one more than
 * the greatest rank.
 */
static uint32
rank_key(GroupAggSink *sink, const GroupOrderItem *item, uint32 *rank, int stride)
{
	int64		n = sink->ngroups;
	GroupInput *in = &sink->inputs[item->key];
	/* a key read as int8 (a dictionary code, a short char(n)): its int8 tells values apart */
	bool		coded = in->form != GPUSEL_FORM_PLAIN;
	int16		typlen = sizeof(int64);
	bool		typbyval = true;
	uint64		slots = 16;
	uint32	   *table;
	DistinctValue *distinct;
	int64		capacity = Min(n, 1024);
	uint32	   *rank_of;
	int64		ndistinct = 0;
	SortSupportData ssup;

	if (!coded)
		get_typlenbyval(in->typid, &typlen, &typbyval);
	while (slots < (uint64) n * 2)
		slots <<= 1;
	table = palloc0(sizeof(uint32) * slots);	/* distinct value + 1, 0 when empty */
	distinct = palloc(sizeof(DistinctValue) * capacity);
	/* rank[] holds each group's distinct value until the values are ranked */
	for (int64 g = 0; g < n; g++)
	{
		bool		isnull = sink->keynulls[g * sink->nkeys + item->key];
		Datum		v = sink->keyvalues[g * sink->nkeys + item->key];
		uint64		h = isnull ? 0 : typbyval ? (uint64) v :
			(uint64) datum_image_hash(v, typbyval, typlen);
		uint64		s = (h * UINT64CONST(0x9E3779B97F4A7C15)) & (slots - 1);

		for (;;)
		{
			int64		d = (int64) table[s] - 1;

			if (d < 0)
			{
				if (ndistinct == capacity)
				{
					capacity *= 2;
					distinct = repalloc_huge(distinct, sizeof(DistinctValue) * capacity);
				}
				distinct[ndistinct].value = v;
				distinct[ndistinct].isnull = isnull;
				distinct[ndistinct].index = ndistinct;
				table[s] = (uint32) ++ndistinct;
				rank[g * stride] = (uint32) (ndistinct - 1);
				break;
			}
			if (distinct[d].isnull == isnull &&
				(isnull || datum_image_eq(distinct[d].value, v, typbyval, typlen)))
			{
				rank[g * stride] = (uint32) d;
				break;
			}
			s = (s + 1) & (slots - 1);
		}
		if ((g & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(table);

	/* the distinct values as their type has them, for the comparison */
	if (coded)
		for (int64 i = 0; i < ndistinct; i++)
			if (!distinct[i].isnull)
				distinct[i].value = GpuselFormDecode(in->form, in->form_arg,
													 DatumGetInt64(distinct[i].value));
	memset(&ssup, 0, sizeof(ssup));
	ssup.ssup_cxt = CurrentMemoryContext;
	ssup.ssup_collation = item->collation;
	ssup.ssup_nulls_first = item->nulls_first;
	PrepareSortSupportFromOrderingOp(item->sortop, &ssup);
	qsort_arg(distinct, ndistinct, sizeof(DistinctValue), distinct_cmp, &ssup);
	rank_of = palloc(sizeof(uint32) * Max(ndistinct, 1));
	for (int64 i = 0; i < ndistinct; i++)
		rank_of[distinct[i].index] =
			(i > 0 && distinct_cmp(&distinct[i - 1], &distinct[i], &ssup) == 0) ?
			rank_of[distinct[i - 1].index] : (uint32) i;
	for (int64 g = 0; g < n; g++)
		rank[g * stride] = rank_of[rank[g * stride]];
	pfree(distinct);
	pfree(rank_of);
	return (uint32) Max(ndistinct, 1);
}

/* Compares two groups by their ranks, key after key: qsort_arg's. */
static int
ranks_cmp(const void *a, const void *b, void *arg)
{
	const uint32 *ranks = ((const uint32 *const *) arg)[0];
	int			stride = (int) (intptr_t) ((void *const *) arg)[1];
	const uint32 *x = ranks + *(const int64 *) a * stride;
	const uint32 *y = ranks + *(const int64 *) b * stride;

	for (int i = 0; i < stride; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/*
 * The groups in the plan's order, as a permutation of their numbers in
 * sink->cxt (a rescan's reset frees it); NULL where the plan asked for none.  Where the ranks
 * of all keys together take few values (their product at most a few per
 * group: 40 texts times 556 hours for 22,240 groups), a counting sort by
 * that one number places the groups; otherwise a sort compares the ranks.
 */
int64 *
GroupAggOrderGroups(GroupAggSink *sink)
{
	MemoryContext old;
	MemoryContext work;
	uint32	   *ranks;
	int64	   *order;
	int64		n = sink->ngroups;
	int			norder = sink->norder;
	double		range = 1;
	uint32	   *nranks;

	if (norder == 0)
		return NULL;
	order = MemoryContextAlloc(sink->cxt, sizeof(int64) * Max(n, 1));
	for (int64 g = 0; g < n; g++)
		order[g] = g;
	if (n < 2)
		return order;
	/* decoded keys and the tables live only while ranking */
	work = AllocSetContextCreate(CurrentMemoryContext, "gpusel group order",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	ranks = palloc(sizeof(uint32) * n * norder);
	nranks = palloc(sizeof(uint32) * norder);
	for (int i = 0; i < norder; i++)
	{
		nranks[i] = rank_key(sink, &sink->order_items[i], ranks + i, norder);
		range *= nranks[i];
	}
	if (range <= 4.0 * n + 1024)
	{
		int64	   *start = palloc0(sizeof(int64) * ((int64) range + 1));
		int64	   *value = palloc(sizeof(int64) * n);

		/* each group's ranks as one number, key after key */
		for (int64 g = 0; g < n; g++)
		{
			int64		v = 0;

			for (int i = 0; i < norder; i++)
				v = v * nranks[i] + ranks[g * norder + i];
			value[g] = v;
			start[v + 1]++;
		}
		for (int64 v = 0; v < (int64) range; v++)
			start[v + 1] += start[v];
		for (int64 g = 0; g < n; g++)
			order[start[value[g]]++] = g;
	}
	else
	{
		void	   *arg[2];

		arg[0] = ranks;
		arg[1] = (void *) (intptr_t) norder;
		qsort_arg(order, n, sizeof(int64), ranks_cmp, arg);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
	return order;
}

/* EXPLAIN: the order the groups come out in, as a Sort node shows its keys. */
void
GroupAggOrderExplain(GroupAggSink *sink, List *deparse_cxt, bool useprefix, ExplainState *es)
{
	List	   *items = NIL;

	for (int i = 0; i < sink->norder; i++)
	{
		const GroupOrderItem *item = &sink->order_items[i];
		GroupInput *in = &sink->inputs[item->key];
		char	   *text = deparse_expression((Node *) in->expr, deparse_cxt, useprefix, false);
		TypeCacheEntry *tc = lookup_type_cache(in->typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		bool		desc = item->sortop == tc->gt_opr;

		if (desc)
			text = psprintf("%s DESC", text);
		else if (item->sortop != tc->lt_opr)
			text = psprintf("%s USING %s", text, get_opname(item->sortop));
		if (item->nulls_first && !desc)
			text = psprintf("%s NULLS FIRST", text);
		else if (!item->nulls_first && desc)
			text = psprintf("%s NULLS LAST", text);
		items = lappend(items, text);
	}
	if (items != NIL)
		ExplainPropertyList("Group Order", items, es);
}
