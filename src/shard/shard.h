/*
 * shard.h
 *	  Exact percentiles over a partitioned table whose partitions are
 *	  postgres_fdw foreign tables (and local tables): the planner offers a
 *	  plan that answers the query by rounds of small queries to every
 *	  partition instead of fetching their rows (src/shard/).
 */
#ifndef GPUSEL_SHARD_H
#define GPUSEL_SHARD_H

extern void ShardPlanInit(void);
extern void ShardExecInit(void);

#endif							/* GPUSEL_SHARD_H */
