/*
 * shard_deparse.c
 *	  The SQL text a partition runs: which expressions may travel, and how
 *	  they and the literals of a round are written.
 *
 * An expression travels only when every partition computes it as this
 * server does: built-in immutable functions and operators over built-in
 * types, the default collation, no parameters, subqueries or system
 * columns (the rule postgres_fdw applies to what it ships).  Text is
 * written with the modes postgres_fdw sets on its connections (DateStyle
 * ISO, IntervalStyle postgres, extra_float_digits 3, search_path
 * pg_catalog), so literals read back the same and names resolve to the
 * built-ins on the remote side.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_proc.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "shard_internal.h"

/* Whether an object is one of PostgreSQL's own (the same on every server). */
static inline bool
builtin(Oid oid)
{
	return oid < FirstGenbkiObjectId;
}

/* Whether a collation orders text as the partitions' default does. */
static inline bool
collation_ok(Oid collation)
{
	return !OidIsValid(collation) || collation == DEFAULT_COLLATION_OID;
}

/* Whether a function is built in and immutable. */
static bool
function_ok(Oid funcid)
{
	return builtin(funcid) && func_volatile(funcid) == PROVOLATILE_IMMUTABLE;
}

/* Walker: false at the first node a partition might compute differently. */
static bool
unshippable_walker(Node *node, Index *varno)
{
	if (node == NULL)
		return false;
	if (IsA(node, List) || IsA(node, CaseWhen))
		return expression_tree_walker(node, unshippable_walker, varno);
	if (!builtin(exprType(node)) || !collation_ok(exprCollation(node)) ||
		!collation_ok(exprInputCollation(node)))
		return true;
	switch (nodeTag(node))
	{
		case T_Var:
			{
				Var		   *var = (Var *) node;

				return var->varno != *varno || var->varlevelsup != 0 || var->varattno <= 0;
			}
		case T_Const:
			return false;
		case T_FuncExpr:
			if (!function_ok(((FuncExpr *) node)->funcid))
				return true;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			if (!builtin(((OpExpr *) node)->opno) || !function_ok(((OpExpr *) node)->opfuncid))
				return true;
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			if (!builtin(((ScalarArrayOpExpr *) node)->opno) ||
				!function_ok(((ScalarArrayOpExpr *) node)->opfuncid))
				return true;
			break;
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_ArrayExpr:
		case T_CaseExpr:
		case T_CaseTestExpr:
		case T_CoalesceExpr:
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, unshippable_walker, varno);
}

/* Whether an expression over relation varno may be sent to partitions. */
bool
ShardExprShippable(Node *expr, Index varno)
{
	if (contain_mutable_functions(expr))
		return false;
	return !unshippable_walker(expr, &varno);
}

/*
 * Sets the modes in which values are written for and read from partitions;
 * returns the GUC nest level to reset them with.
 */
int
ShardSetTransmissionModes(void)
{
	int			nestlevel = NewGUCNestLevel();

	(void) set_config_option("datestyle", "ISO", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("intervalstyle", "postgres", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("extra_float_digits", "3", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("search_path", "pg_catalog", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return nestlevel;
}

/* Undoes ShardSetTransmissionModes. */
void
ShardResetTransmissionModes(int nestlevel)
{
	AtEOXact_GUC(true, nestlevel);
}

/*
 * An expression over relation varno (the partitioned table relid) as SQL
 * text naming the table's columns unqualified.
 */
char *
ShardDeparseExpr(Node *expr, Index varno, Oid relid)
{
	Node	   *copy = copyObject(expr);
	List	   *context;
	char	   *sql;
	int			nest;

	if (varno != 1)
		ChangeVarNodes(copy, varno, 1, 0);
	context = deparse_context_for(get_rel_name(relid), relid);
	nest = ShardSetTransmissionModes();
	PG_TRY();
	{
		sql = deparse_expression(copy, context, false, true);
	}
	PG_FINALLY();
	{
		ShardResetTransmissionModes(nest);
	}
	PG_END_TRY();
	return sql;
}

/* A value as a SQL literal of its type, read back the same everywhere. */
char *
ShardDeparseLiteral(Datum value, Oid type, int32 typmod)
{
	Oid			output;
	bool		varlena;
	char	   *text;
	char	   *typname;
	int			nest;

	getTypeOutputInfo(type, &output, &varlena);
	nest = ShardSetTransmissionModes();
	PG_TRY();
	{
		text = OidOutputFunctionCall(output, value);
		typname = format_type_with_typemod(type, typmod);
	}
	PG_FINALLY();
	{
		ShardResetTransmissionModes(nest);
	}
	PG_END_TRY();
	return psprintf("%s::%s", quote_literal_cstr(text), typname);
}
