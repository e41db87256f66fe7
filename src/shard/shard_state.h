/*
 * shard_state.h
 *	  The executor state of GpuselShards, shared by the node's methods
 *	  (shard_exec.c) and the rounds that fill it (shard_search.c).
 */
#ifndef GPUSEL_SHARD_STATE_H
#define GPUSEL_SHARD_STATE_H

#include "shard_internal.h"

/* One wanted rank of one percentile input in a group. */
typedef struct ShardRank
{
	int			input;
	int64		rank;			/* 1-based, ascending */
	ShardRankState state;
} ShardRank;

/* One group: its keys, partial states and what is known of its keys. */
typedef struct ShardGroup
{
	uint32		hash;
	Datum	   *keys;
	bool	   *key_nulls;
	Datum	   *states;			/* the aggregates' partial columns */
	bool	   *state_nulls;
	ShardPoints *points;		/* [input * nparts + partition] */
	int64	  **wanted;			/* positions asked for this round, same index */
	int		   *nwanted;
	int			nranks;
	ShardRank  *ranks;
} ShardGroup;

typedef struct ShardScanState
{
	CustomScanState css;
	/* from the plan */
	char	   *relname;
	Oid			userid;
	int			nparts;
	Oid		   *part_oids;
	char	  **part_from;
	bool	   *part_remote;
	char	   *where_sql;
	int			nkeys;
	char	  **key_sql;
	Oid		   *key_types;
	int32	   *key_typmods;
	FmgrInfo   *key_hash;
	FmgrInfo   *key_eq;
	Oid		   *key_colls;
	int			naggs;
	ShardAggInfo *aggs;
	int		   *agg_column;		/* first partial column of each aggregate */
	int		   *agg_input;		/* percentile input of each aggregate, or -1 */
	FmgrInfo   *agg_cmp;		/* min and max: the input type's comparison */
	char	  **agg_sql;
	int			nstates;
	int			ninputs;
	char	  **input_sql;
	Oid		   *input_types;
	Oid		   *input_colls;
	FmgrInfo   *input_cmp;
	/* the run */
	MemoryContext run_cxt;
	bool		done;
	ShardLink **links;
	ShardGroup **groups;
	int			ngroups;
	int			groups_capacity;
	int		   *slots;			/* open addressing: group index + 1, 0 empty */
	int			nslots;
	int			next;
	double	  **shared;			/* a later round's shared fractions, [input * nparts + part] */
	int		   *nshared;
	bool	   *shared_stalled;	/* the last shared round gave a group nothing new */
	/* for EXPLAIN ANALYZE */
	int			rounds;
	int64		bytes;
	double	   *part_ms;
	double		round_ms[SHARD_MAX_ROUNDS + 1];
} ShardScanState;

/* shard_search.c */
extern void ShardRunRounds(ShardScanState *state);
extern int64 ShardGroupCount(ShardScanState *state, ShardGroup *g, int input);
extern int	ShardFractionRanks(const ShardAggInfo *info, double f, int64 n, int64 *ranks,
							   double *proportion);
extern ShardRank *ShardGroupRank(ShardGroup *g, int input, int64 rank, bool create);

#endif							/* GPUSEL_SHARD_STATE_H */
