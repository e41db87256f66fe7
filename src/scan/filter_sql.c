/*
 * filter_sql.c
 *	  gpu_filter(bool): returns its argument, so any query using it gives
 *	  the same answer everywhere; in a WHERE clause it marks the predicate
 *	  for the GPU scan (scan_plan.c).  Its planner support function makes
 *	  the wrapper invisible to the optimizer: the selectivity and cost are
 *	  those of the argument.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type_d.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "qual_compile.h"

PG_FUNCTION_INFO_V1(gpu_filter);
PG_FUNCTION_INFO_V1(gpu_filter_support);

/* Cached OID of gpu_filter(bool); valid only while filter_oid_known. */
static Oid	filter_oid = InvalidOid;
static bool filter_oid_known = false;
static bool filter_callback_registered = false;

/* SQL: gpu_filter(bool) returns its argument unchanged. */
Datum
gpu_filter(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(PG_GETARG_BOOL(0));
}

/*
 * Planner support for gpu_filter: the selectivity of gpu_filter(p) is that
 * of p, and the wrapper itself costs nothing, so plans and qual order are
 * those of the bare predicate.
 */
Datum
gpu_filter_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (list_length(req->args) != 1)
			PG_RETURN_POINTER(NULL);
		req->selectivity = clause_selectivity(req->root,
											  (Node *) linitial(req->args),
											  req->is_join ? 0 : req->varRelid,
											  req->jointype,
											  req->sjinfo);
		PG_RETURN_POINTER(req);
	}
	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;

		/* the argument is costed on its own by the caller's walk */
		req->startup = 0;
		req->per_tuple = 0;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/* Forgets the cached OID when pg_proc changes (the extension was created, dropped or moved). */
static void
filter_oid_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	filter_oid_known = false;
	filter_oid = InvalidOid;
}

/* The schema an extension lives in (PostgreSQL 15 has no get_extension_schema). */
static Oid
extension_schema(Oid extoid)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			nspoid = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		nspoid = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nspoid;
}

/*
 * The OID of gpu_filter(bool) in the schema of the gpusel extension, or
 * InvalidOid when the extension is not installed in this database; the
 * planner hook does nothing then.
 */
Oid
GpuselFilterFuncOid(void)
{
	Oid			extoid;
	Oid			argtypes[1] = {BOOLOID};

	if (filter_oid_known)
		return filter_oid;
	if (!filter_callback_registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, filter_oid_invalidate, (Datum) 0);
		filter_callback_registered = true;
	}

	filter_oid = InvalidOid;
	extoid = get_extension_oid("gpusel", true);
	if (OidIsValid(extoid))
	{
		Oid			nspoid = extension_schema(extoid);
		char	   *nspname = OidIsValid(nspoid) ? get_namespace_name(nspoid) : NULL;

		if (nspname != NULL)
			filter_oid = LookupFuncName(list_make2(makeString(nspname),
												   makeString("gpu_filter")),
										1, argtypes, true);
	}
	filter_oid_known = true;
	return filter_oid;
}
