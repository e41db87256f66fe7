/*
 * shard_link.c
 *	  How a round's SQL reaches a partition and its rows come back.
 *
 * A foreign partition is reached through postgres_fdw's own connection
 * (GetConnection, looked up in its library when first needed): the same
 * connection cache, user mapping rules and remote transaction postgres_fdw
 * uses, so every round of a query sees one remote snapshot (postgres_fdw
 * runs REPEATABLE READ remotely), an error on the remote side arrives as
 * that error, and on cancel or error postgres_fdw's abort handling cancels
 * the remote query.  Queries are sent to all connections before any result
 * is awaited, so the partitions work at the same time; results come back
 * in binary, read by each type's receive function.
 *
 * A local partition answers the same SQL through SPI, in the query's
 * snapshot.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "shard_internal.h"

/* postgres_fdw's connection functions (contrib/postgres_fdw, connection.c). */
typedef PGconn *(*GetConnectionFn) (UserMapping *user, bool will_prep_stmt, void **state);
typedef void (*ReleaseConnectionFn) (PGconn *conn);
typedef PGresult *(*GetResultFn) (PGconn *conn, const char *query);
typedef void (*ReportErrorFn) (int elevel, PGresult *res, PGconn *conn, bool clear,
							   const char *sql);

static GetConnectionFn fdw_get_connection = NULL;
static ReleaseConnectionFn fdw_release_connection = NULL;
static GetResultFn fdw_get_result = NULL;
static ReportErrorFn fdw_report_error = NULL;

struct ShardLink
{
	Oid			partition;
	bool		remote;
	PGconn	   *conn;			/* remote: postgres_fdw's connection */
	char	   *sql;			/* the query sent and not yet answered */
};

/* Looks up postgres_fdw's connection functions once. */
static void
load_postgres_fdw(void)
{
	const char *lib = "$libdir/postgres_fdw";

	if (fdw_get_connection != NULL)
		return;
	fdw_release_connection = (ReleaseConnectionFn)
		load_external_function(lib, "ReleaseConnection", true, NULL);
	fdw_get_result = (GetResultFn) load_external_function(lib, "pgfdw_get_result", true, NULL);
	fdw_report_error = (ReportErrorFn)
		load_external_function(lib, "pgfdw_report_error", true, NULL);
	fdw_get_connection = (GetConnectionFn)
		load_external_function(lib, "GetConnection", true, NULL);
}

/*
 * Whether a partition is a foreign table; *supported says whether it is a
 * plain table or a postgres_fdw foreign table, the two kinds a sharded
 * plan reads.
 */
bool
ShardPartitionIsRemote(Oid partition, bool *supported)
{
	char		relkind = get_rel_relkind(partition);
	ForeignTable *table;
	ForeignServer *server;
	ForeignDataWrapper *fdw;
	char	   *handler;

	*supported = false;
	if (relkind == RELKIND_RELATION)
	{
		*supported = true;
		return false;
	}
	if (relkind != RELKIND_FOREIGN_TABLE)
		return false;
	table = GetForeignTable(partition);
	server = GetForeignServer(table->serverid);
	fdw = GetForeignDataWrapper(server->fdwid);
	handler = OidIsValid(fdw->fdwhandler) ? get_func_name(fdw->fdwhandler) : NULL;
	*supported = handler != NULL && strcmp(handler, "postgres_fdw_handler") == 0;
	return true;
}

/* Opens the way to one partition, for queries run as userid. */
ShardLink *
ShardLinkOpen(Oid partition, bool remote, Oid userid)
{
	ShardLink  *link = palloc0(sizeof(ShardLink));

	link->partition = partition;
	link->remote = remote;
	if (remote)
	{
		ForeignTable *table = GetForeignTable(partition);
		UserMapping *user = GetUserMapping(userid, table->serverid);
		void	   *state = NULL;

		load_postgres_fdw();
		link->conn = fdw_get_connection(user, false, &state);
	}
	return link;
}

/* The connection a link answers on (NULL for a local partition). */
void *
ShardLinkChannel(ShardLink *link)
{
	return link->conn;
}

/* Whether the answer to the query sent can be read without waiting. */
bool
ShardLinkReady(ShardLink *link)
{
	if (!link->remote)
		return true;
	/* a broken connection is "ready": reading it reports the error */
	if (!PQconsumeInput(link->conn))
		return true;
	return !PQisBusy(link->conn);
}

/* Waits until one of the links' connections has data, or an interrupt. */
void
ShardLinkWaitAny(ShardLink **links, int n)
{
	WaitEventSet *volatile set = CreateWaitEventSet(CurrentMemoryContext, n + 2);

	PG_TRY();
	{
		WaitEvent	event;

		AddWaitEventToSet(set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
		AddWaitEventToSet(set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
		for (int i = 0; i < n; i++)
			if (links[i]->remote)
				AddWaitEventToSet(set, WL_SOCKET_READABLE, PQsocket(links[i]->conn), NULL, NULL);
		if (WaitEventSetWait(set, -1, &event, 1, PG_WAIT_EXTENSION) > 0 &&
			(event.events & WL_LATCH_SET))
			ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	PG_FINALLY();
	{
		FreeWaitEventSet(set);
	}
	PG_END_TRY();
}

/* Sends a query; a local partition runs it when its answer is asked for. */
void
ShardLinkSend(ShardLink *link, const char *sql)
{
	link->sql = pstrdup(sql);
	/* results in binary: arrays of thousands of keys are read without parsing text */
	if (link->remote && !PQsendQueryParams(link->conn, sql, 0, NULL, NULL, NULL, NULL, 1))
		fdw_report_error(ERROR, NULL, link->conn, false, sql);
}

/*
 * Reads a column's value of an expected type from its binary form (libpq
 * ends every value with a zero byte, as receive functions expect).
 */
static Datum
read_value(FmgrInfo *receive, Oid ioparam, char *data, int len, int32 typmod)
{
	StringInfoData buf;
	Datum		value;

	buf.data = data;
	buf.len = len;
	buf.maxlen = len + 1;
	buf.cursor = 0;
	value = ReceiveFunctionCall(receive, &buf, ioparam, typmod);
	if (buf.cursor != buf.len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("incorrect binary data format in a partition's answer")));
	return value;
}

/* A remote partition's rows, read from their binary form. */
static ShardResult *
receive_remote(ShardLink *link, int ncols, const Oid *types, const int32 *typmods,
			   int64 *bytes)
{
	PGresult   *volatile res = NULL;
	ShardResult *result = palloc0(sizeof(ShardResult));

	PG_TRY();
	{
		FmgrInfo   *receive;
		Oid		   *ioparams;

		res = fdw_get_result(link->conn, link->sql);
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			fdw_report_error(ERROR, res, link->conn, false, link->sql);
		if (PQnfields(res) != ncols)
			elog(ERROR, "gpusel: a partition answered %d columns, not %d", PQnfields(res), ncols);
		result->nrows = PQntuples(res);
		result->ncols = ncols;
		result->values = palloc(sizeof(Datum) * Max(1, result->nrows * ncols));
		result->nulls = palloc(sizeof(bool) * Max(1, result->nrows * ncols));
		receive = palloc(sizeof(FmgrInfo) * Max(1, ncols));
		ioparams = palloc(sizeof(Oid) * Max(1, ncols));
		for (int c = 0; c < ncols; c++)
		{
			Oid			fn;

			if (PQftype(res, c) != types[c])
				elog(ERROR, "gpusel: a partition answered type %u, not %u", PQftype(res, c),
					 types[c]);
			getTypeBinaryInputInfo(types[c], &fn, &ioparams[c]);
			fmgr_info(fn, &receive[c]);
		}
		for (int r = 0; r < result->nrows; r++)
		{
			for (int c = 0; c < ncols; c++)
			{
				int			i = r * ncols + c;

				result->nulls[i] = PQgetisnull(res, r, c);
				*bytes += PQgetlength(res, r, c) + 4;
				result->values[i] = result->nulls[i] ? (Datum) 0 :
					read_value(&receive[c], ioparams[c], PQgetvalue(res, r, c),
							   PQgetlength(res, r, c), typmods[c]);
			}
		}
	}
	PG_FINALLY();
	{
		if (res != NULL)
			PQclear(res);
	}
	PG_END_TRY();
	return result;
}

/* A local partition's rows, through SPI, copied out of SPI's memory. */
static ShardResult *
receive_local(ShardLink *link, int ncols, const Oid *types)
{
	MemoryContext caller = CurrentMemoryContext;
	ShardResult *result = palloc0(sizeof(ShardResult));
	TupleDesc	desc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "gpusel: SPI_connect failed");
	if (SPI_execute(link->sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpusel: a local partition's query did not run: %s", link->sql);
	desc = SPI_tuptable->tupdesc;
	if (desc->natts != ncols)
		elog(ERROR, "gpusel: a local partition answered %d columns, not %d", desc->natts, ncols);
	for (int c = 0; c < ncols; c++)
		if (TupleDescAttr(desc, c)->atttypid != types[c])
			elog(ERROR, "gpusel: a local partition answered type %u, not %u",
				 TupleDescAttr(desc, c)->atttypid, types[c]);
	MemoryContextSwitchTo(caller);
	result->nrows = (int) SPI_processed;
	result->ncols = ncols;
	result->values = palloc(sizeof(Datum) * Max(1, result->nrows * ncols));
	result->nulls = palloc(sizeof(bool) * Max(1, result->nrows * ncols));
	for (int r = 0; r < result->nrows; r++)
	{
		for (int c = 0; c < ncols; c++)
		{
			int			i = r * ncols + c;
			Form_pg_attribute att = TupleDescAttr(desc, c);
			Datum		value = heap_getattr(SPI_tuptable->vals[r], c + 1, desc,
											 &result->nulls[i]);

			result->values[i] = result->nulls[i] ? (Datum) 0 :
				datumCopy(value, att->attbyval, att->attlen);
		}
	}
	SPI_finish();
	return result;
}

/*
 * Waits for the answer to the query sent, with the types (and typmods) its
 * columns must have; adds the bytes received to *bytes.
 */
ShardResult *
ShardLinkReceive(ShardLink *link, int ncols, const Oid *types, const int32 *typmods,
				 int64 *bytes)
{
	ShardResult *result;

	if (link->sql == NULL)
		elog(ERROR, "gpusel: no query waits on a partition");
	if (link->remote)
		result = receive_remote(link, ncols, types, typmods, bytes);
	else
		result = receive_local(link, ncols, types);
	pfree(link->sql);
	link->sql = NULL;
	return result;
}

/* Gives the connection back to postgres_fdw. */
void
ShardLinkRelease(ShardLink *link)
{
	if (link->remote && link->conn != NULL)
		fdw_release_connection(link->conn);
	link->conn = NULL;
}
