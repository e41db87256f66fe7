/*
 * shard_internal.h
 *	  What the files of src/shard/ share: the aggregates a sharded plan
 *	  answers, the SQL it sends, the links to partitions and the rank search.
 *
 * A query over a partitioned table whose partitions are postgres_fdw
 * foreign tables (local partitions may be mixed in) is answered by rounds
 * of ordinary SQL sent to every partition at once:
 *
 *	round 1:   per group, each aggregate's partial state (count, sum, min,
 *			   max) and, per percentile input, the partition's count and its
 *			   exact quantiles at SHARD_FIRST_POINTS + 1 evenly spaced
 *			   fractions, which are keys at known positions of its order;
 *	round 2..: per group, the keys at chosen positions of each partition's
 *			   order (percentile_disc with fractions that name positions),
 *			   until every wanted rank lies in windows whose keys are all
 *			   known (shard_rounds.c).
 *
 * The partitions answer with PostgreSQL's own aggregates, so they need
 * nothing installed; a partition's server with gpusel runs them on its
 * own device or CPU path.
 */
#ifndef GPUSEL_SHARD_INTERNAL_H
#define GPUSEL_SHARD_INTERNAL_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"

/* Name of the plan node, in EXPLAIN. */
#define SHARD_SCAN_NAME		"GpuselShards"

/*
 * Tuning constants of the rounds.  The first round asks every partition for
 * its quantiles at 0, 1/128, ..., 1 (dyadic fractions, so the positions
 * they fall on are computed exactly here).  A later round fetches every
 * unknown key of a rank's windows when they hold at most
 * gpusel.shard_fetch_keys keys in all partitions, and otherwise
 * SHARD_NEXT_POINTS (at most that setting) evenly spaced ones in each
 * window, which narrows the windows about SHARD_NEXT_POINTS / 2 times.
 */
#define SHARD_FIRST_POINTS		128
#define SHARD_NEXT_POINTS		256
#define SHARD_MAX_ROUNDS		64
/* wanted positions further apart than this many times their least gap: separate ranges */
#define SHARD_RANGE_BREAK		8

/*
 * CustomScan.custom_private of the plan: Strings and Lists of them (OIDs as
 * text), and the partitions' remote flags as an integer List.  The
 * custom_scan_tlist holds the group keys, then the Aggrefs.
 */
#define SHARD_PRIV_RELNAME		0	/* the partitioned table's name */
#define SHARD_PRIV_USERID		1	/* whose user mappings reach the partitions */
#define SHARD_PRIV_PART_OIDS	2
#define SHARD_PRIV_PART_REMOTE	3
#define SHARD_PRIV_PART_FROM	4	/* each partition's table name in its own SQL */
#define SHARD_PRIV_WHERE		5	/* the WHERE clause's SQL, or "" */
#define SHARD_PRIV_KEYS			6	/* each group key's SQL */
#define SHARD_PRIV_AGG_INPUTS	7	/* each aggregate's input SQL, "" for count(*) */
#define SHARD_PRIV_COUNT		8

/* What one aggregate of the query is, for the partitions and for here. */
typedef enum ShardAggKind
{
	SHARD_COUNT_STAR,
	SHARD_COUNT,
	SHARD_SUM,
	SHARD_AVG,
	SHARD_MIN,
	SHARD_MAX,
	SHARD_PERCENTILE_DISC,
	SHARD_PERCENTILE_CONT
} ShardAggKind;

typedef struct ShardAggInfo
{
	ShardAggKind kind;
	Oid			input_type;		/* the input expression's type (none for count(*)) */
	Oid			result_type;	/* the aggregate's result type */
	Oid			partial_type;	/* the type of the partition's sum (SUM, AVG) */
	Oid			collation;		/* the input's comparison collation */
	bool		descending;		/* a percentile ordered DESC */
	bool		multi;			/* a percentile of a fraction array */
	Const	   *fraction;		/* a percentile's fraction (float8 or float8[]) */
} ShardAggInfo;

/* shard_aggs.c */
extern bool ShardAggClassify(Aggref *agg, ShardAggInfo *info);
extern Expr *ShardAggInput(Aggref *agg);
extern bool ShardAggIsPercentile(const ShardAggInfo *info);
extern char *ShardAggPartialSql(const ShardAggInfo *info, const char *input_sql);
extern int	ShardAggPartialColumns(const ShardAggInfo *info);
extern void ShardAggPartialTypes(const ShardAggInfo *info, Oid *types);
extern void ShardAggCombine(const ShardAggInfo *info, FmgrInfo *cmp, Datum *state,
							bool *isnull, const Datum *partial, const bool *partial_null);
extern Datum ShardAggFinal(const ShardAggInfo *info, const Datum *state,
						   const bool *isnull, bool *result_null);

/* shard_deparse.c */
extern bool ShardExprShippable(Node *expr, Index varno);
extern char *ShardDeparseExpr(Node *expr, Index varno, Oid relid);
extern char *ShardDeparseLiteral(Datum value, Oid type, int32 typmod);
extern int	ShardSetTransmissionModes(void);
extern void ShardResetTransmissionModes(int nestlevel);

/* shard_link.c: one partition's way to answer SQL */
typedef struct ShardLink ShardLink;

typedef struct ShardResult
{
	int			nrows;
	int			ncols;
	Datum	   *values;			/* nrows * ncols, row after row */
	bool	   *nulls;
} ShardResult;

extern ShardLink *ShardLinkOpen(Oid partition, bool remote, Oid userid);
extern void *ShardLinkChannel(ShardLink *link);
extern bool ShardLinkReady(ShardLink *link);
extern void ShardLinkWaitAny(ShardLink **links, int n);
extern void ShardLinkSend(ShardLink *link, const char *sql);
extern ShardResult *ShardLinkReceive(ShardLink *link, int ncols, const Oid *types,
									 const int32 *typmods, int64 *bytes);
extern void ShardLinkRelease(ShardLink *link);
extern bool ShardPartitionIsRemote(Oid partition, bool *supported);

/* shard_rounds.c: the keys known at positions of one partition's order */
typedef struct ShardPoints
{
	int64		n;				/* the partition's non-NULL inputs in this group */
	int			npoints;
	int64	   *positions;		/* 1-based, ascending */
	Datum	   *values;
} ShardPoints;

/* What the search knows of one wanted rank after a round. */
typedef struct ShardRankState
{
	bool		found;
	Datum		value;
	int64		fetch_keys;		/* unknown keys in its windows, all partitions */
} ShardRankState;

extern int	ShardPointsCountBetween(const ShardPoints *points, int64 lo, int64 hi);
extern void ShardPointsAdd(ShardPoints *points, const int64 *positions, const Datum *values,
						   int n);
extern void ShardRankSearch(ShardPoints *parts, int nparts, int64 rank, FmgrInfo *cmp,
							Oid collation, ShardRankState *state, int64 *lo, int64 *hi);
extern int	ShardWantedPositions(ShardPoints *points, int64 lo, int64 hi, bool all,
								 int64 *out, int max);

#endif							/* GPUSEL_SHARD_INTERNAL_H */
