/*
 * percentile_builtins.c
 *	  Lets gpusel answer PostgreSQL's built-in percentile_disc and
 *	  percentile_cont, for dashboards and tools that cannot change their SQL.
 *
 * With gpusel.replace_builtin_percentiles on (the default) and the
 * extension installed in the database, a planner hook points every Aggref
 * of a built-in percentile aggregate at the gpusel aggregate of the same
 * signature before the query is planned.  gpu_percentile and
 * gpu_percentile_cont return exactly what the built-ins return (the same
 * NULL rules, errors and SQLSTATEs, shareable final functions), so nothing
 * but the plan changes: a percentile over one table becomes the grouped
 * Custom Scan (GpuSelScan), and EXPLAIN VERBOSE names the gpusel aggregate.
 *
 * Only the plan is rewritten, never a stored view or rule, and only where
 * the user may execute both the built-in and the gpusel aggregate: the
 * executor then checks the gpusel one, so a built-in the user may not run
 * is left in the plan for PostgreSQL to refuse (42501) when the plan
 * starts.  The plan depends on the role it was made for and on the
 * built-ins' pg_proc rows, so a cached plan is made again after SET ROLE,
 * GRANT or REVOKE.  Planning happens in the
 * backend that loaded the library, so the hook exists once gpusel is
 * loaded (preloaded, LOAD, or any earlier gpusel call in the session).
 */
#include "postgres.h"

#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/value.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "guc.h"
#include "percentile_builtins.h"
#include "qual_compile.h"

/* One built-in aggregate and the gpusel aggregate that answers it. */
typedef struct BuiltinPercentile
{
	Oid			builtin;		/* pg_proc OID of the built-in */
	const char *name;			/* the gpusel aggregate ... */
	Oid			argtypes[2];	/* ... and its signature */
} BuiltinPercentile;

static const BuiltinPercentile builtin_percentiles[] = {
	{F_PERCENTILE_DISC_FLOAT8_ANYELEMENT, "gpu_percentile", {FLOAT8OID, ANYELEMENTOID}},
	{F_PERCENTILE_DISC__FLOAT8_ANYELEMENT, "gpu_percentile", {FLOAT8ARRAYOID, ANYELEMENTOID}},
	{F_PERCENTILE_CONT_FLOAT8_FLOAT8, "gpu_percentile_cont", {FLOAT8OID, FLOAT8OID}},
	{F_PERCENTILE_CONT_FLOAT8_INTERVAL, "gpu_percentile_cont", {FLOAT8OID, INTERVALOID}},
	{F_PERCENTILE_CONT__FLOAT8_FLOAT8, "gpu_percentile_cont", {FLOAT8ARRAYOID, FLOAT8OID}},
	{F_PERCENTILE_CONT__FLOAT8_INTERVAL, "gpu_percentile_cont", {FLOAT8ARRAYOID, INTERVALOID}},
};

#define NUM_BUILTIN_PERCENTILES lengthof(builtin_percentiles)

/* The gpusel aggregates in this database, InvalidOid where absent. */
static Oid	replacements[NUM_BUILTIN_PERCENTILES];
static bool replacements_known = false;
static bool extension_present = false;
static bool replacements_callback_registered = false;

static planner_hook_type prev_planner_hook = NULL;

/* Forgets the looked-up aggregates when pg_proc changes. */
static void
replacements_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	replacements_known = false;
}

/*
 * Looks up, once until pg_proc changes, the gpusel aggregate of each
 * built-in's signature in the extension's schema.  Returns false when the
 * extension is not installed in this database.
 */
static bool
lookup_replacements(void)
{
	Oid			filter_oid;
	char	   *nspname;

	if (!replacements_callback_registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, replacements_invalidate, (Datum) 0);
		replacements_callback_registered = true;
	}
	if (replacements_known)
		return extension_present;

	/* an invalidation arriving during the lookups clears this again */
	replacements_known = true;
	for (int i = 0; i < NUM_BUILTIN_PERCENTILES; i++)
		replacements[i] = InvalidOid;
	filter_oid = GpuselFilterFuncOid();
	nspname = OidIsValid(filter_oid) ? get_namespace_name(get_func_namespace(filter_oid)) : NULL;
	if (nspname != NULL)
	{
		for (int i = 0; i < NUM_BUILTIN_PERCENTILES; i++)
			replacements[i] =
				LookupFuncName(list_make2(makeString(nspname),
										  makeString((char *) builtin_percentiles[i].name)),
							   2, builtin_percentiles[i].argtypes, true);
	}
	extension_present = nspname != NULL;
	return extension_present;
}

/*
 * The gpusel aggregate that answers a built-in one, or InvalidOid: none
 * where the user may not execute the built-in or the gpusel aggregate, and
 * none where the latter is not PARALLEL SAFE (a database still at version
 * 1.0), which would make the whole query serial.
 */
static Oid
replacement_for(Oid aggfnoid, bool *is_builtin)
{
	*is_builtin = false;
	for (int i = 0; i < NUM_BUILTIN_PERCENTILES; i++)
	{
		if (builtin_percentiles[i].builtin != aggfnoid)
			continue;
		*is_builtin = true;
		if (!OidIsValid(replacements[i]) ||
			func_parallel(replacements[i]) != PROPARALLEL_SAFE ||
			pg_proc_aclcheck(aggfnoid, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK ||
			pg_proc_aclcheck(replacements[i], GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
			return InvalidOid;
		return replacements[i];
	}
	return InvalidOid;
}

/*
 * Whether an aggregate is one of gpusel's percentile aggregates in this
 * database; *continuous says gpu_percentile_cont rather than
 * gpu_percentile.  Uses the same cached lookup as the rewriting.
 */
bool
GpuselIsPercentileAggregate(Oid aggfnoid, bool *continuous)
{
	if (!lookup_replacements())
		return false;
	for (int i = 0; i < NUM_BUILTIN_PERCENTILES; i++)
	{
		if (replacements[i] == aggfnoid && OidIsValid(aggfnoid))
		{
			*continuous = strcmp(builtin_percentiles[i].name, "gpu_percentile_cont") == 0;
			return true;
		}
	}
	return false;
}

/* What the walker did. */
typedef struct ReplaceContext
{
	bool		replaced;		/* some Aggref now names a gpusel aggregate */
	List	   *builtins;		/* OIDs of the built-ins it considered */
} ReplaceContext;

/*
 * Query and expression walker: points the Aggrefs of built-in percentiles
 * at their gpusel aggregates, in this query and every query inside it
 * (subqueries in FROM, CTEs, sublinks).
 */
static bool
replace_walker(Node *node, void *context)
{
	ReplaceContext *ctx = (ReplaceContext *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, replace_walker, context, 0);
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;

		if (AGGKIND_IS_ORDERED_SET(aggref->aggkind) && aggref->aggfnoid < FirstNormalObjectId)
		{
			bool		is_builtin = false;

			/* looked up once until pg_proc changes */
			Oid			replacement = lookup_replacements() ?
				replacement_for(aggref->aggfnoid, &is_builtin) : InvalidOid;

			if (is_builtin)
				ctx->builtins = list_append_unique_oid(ctx->builtins, aggref->aggfnoid);
			if (OidIsValid(replacement))
			{
				aggref->aggfnoid = replacement;
				ctx->replaced = true;
			}
		}
	}
	return expression_tree_walker(node, replace_walker, context);
}

/* planner_hook: rewrites built-in percentiles, then plans as usual. */
static PlannedStmt *
gpusel_planner(Query *parse, const char *query_string, int cursorOptions,
			   ParamListInfo boundParams)
{
	ReplaceContext ctx = {false, NIL};
	PlannedStmt *result;
	ListCell   *lc;

	if (gpusel_replace_builtin_percentiles)
		(void) replace_walker((Node *) parse, &ctx);
	if (prev_planner_hook)
		result = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		result = standard_planner(parse, query_string, cursorOptions, boundParams);

	/*
	 * The choice depended on the user's EXECUTE rights: a cached plan is
	 * made again for another role, and after a GRANT or REVOKE on a
	 * built-in (the plan cache watches pg_proc rows the plan lists).
	 */
	if (ctx.builtins != NIL)
		result->dependsOnRole = true;
	foreach(lc, ctx.builtins)
	{
		PlanInvalItem *item = makeNode(PlanInvalItem);

		item->cacheId = PROCOID;
		item->hashValue = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(lfirst_oid(lc)));
		result->invalItems = lappend(result->invalItems, item);
	}
	return result;
}

/* Installs the planner hook. */
void
GpuselPercentileBuiltinsInit(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = gpusel_planner;
}
