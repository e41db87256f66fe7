/*
 * guc.c
 *	  Definitions of every gpusel.* configuration parameter, in one place.
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "guc.h"

int			gpusel_device_mode = GPUSEL_DEVICE_AUTO;
int			gpusel_min_rows = 100000;
bool		gpusel_enable_scan = true;
bool		gpusel_enable_groupagg = true;
bool		gpusel_enable_group_order = true;
bool		gpusel_enable_parallel_second_pass = true;
bool		gpusel_enable_parallel = true;
int			gpusel_batch_rows = 1048576;
double		gpusel_device_setup_cost = 2000.0;
bool		gpusel_explain_device_details = true;
bool		gpusel_group_on_device = true;
bool		gpusel_plan_as_gpu = false;
bool		gpusel_force_groupagg = false;
bool		gpusel_enable_shards = true;
int			gpusel_shard_fetch_keys = 4096;
int			gpusel_shard_round_fractions = 65536;
bool		gpusel_replace_builtin_percentiles = true;
bool		gpusel_service_enabled = true;
int			gpusel_service_staging_mb = 2048;
int			gpusel_service_max_requests = 256;
int			gpusel_service_buffer_pool_mb = 2048;
int			gpusel_cache_refresh_naptime_s = 0;
double		gpusel_cache_refresh_threshold = 0.1;
int			gpusel_cache_memory_mb = 1024;
int			gpusel_cache_device_memory_mb = 4096;

static const struct config_enum_entry device_mode_options[] = {
	{"auto", GPUSEL_DEVICE_AUTO, false},
	{"gpu", GPUSEL_DEVICE_GPU, false},
	{"cpu", GPUSEL_DEVICE_CPU, false},
	{NULL, 0, false}
};

/* Defines the gpusel.* parameters and reserves the prefix. */
void
GpuselGucInit(void)
{
	DefineCustomEnumVariable("gpusel.device",
							 "Chooses where gpusel runs its work.",
							 "auto uses the GPU when one is usable and the input has at least "
							 "gpusel.min_rows rows; gpu always uses the GPU and raises an error "
							 "when none is usable; cpu never uses the GPU.",
							 &gpusel_device_mode,
							 GPUSEL_DEVICE_AUTO,
							 device_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.min_rows",
							"Smallest input, in rows, that gpusel.device = auto sends to the GPU.",
							"Smaller inputs are computed on the CPU, where a transfer would cost "
							"more than it saves.",
							&gpusel_min_rows,
							100000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.enable_scan",
							 "Lets the planner put ordinary WHERE clauses on the GPU.",
							 "When off, only predicates wrapped in gpu_filter() use the GPU scan.",
							 &gpusel_enable_scan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.enable_groupagg",
							 "Lets the planner answer grouped and filtered aggregates in one gpusel scan.",
							 "The scan filters, groups and aggregates (count, sum, avg, min, max, "
							 "percentiles) in one pass; it competes with PostgreSQL's plans on cost. "
							 "It also needs gpusel.enable_scan.",
							 &gpusel_enable_groupagg,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.enable_group_order",
							 "Lets gpusel's grouped scan return its groups in the query's ORDER BY.",
							 "Where the ORDER BY sorts by exactly the group keys, the scan sorts its "
							 "groups itself, by ranks of each key's distinct values, and no Sort is "
							 "planned above it.",
							 &gpusel_enable_group_order,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.enable_parallel_second_pass",
							 "Lets every process of a parallel grouped scan of a cached table read "
							 "its blocks twice for percentile keys.",
							 "The processes count their keys by bucket, the leader picks the buckets "
							 "that hold the ranks, and the processes read their blocks again to send "
							 "only those buckets' keys. Off, every key crosses to the leader, which "
							 "spills them past work_mem.",
							 &gpusel_enable_parallel_second_pass,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.enable_parallel",
							 "Lets the planner put gpusel's grouped scan under Gather.",
							 "Every process then reads, filters and groups its share of the table; "
							 "the leader merges the workers' groups and alone uses the GPU. The plan "
							 "competes on cost and follows PostgreSQL's parallel settings.",
							 &gpusel_enable_parallel,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.batch_rows",
							"Rows per batch that the GPU scan moves to the device at once.",
							NULL,
							&gpusel_batch_rows,
							1048576,
							1024, 64 * 1024 * 1024,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomRealVariable("gpusel.device_setup_cost",
							 "Sets the planner's estimate of the cost of starting a GPU scan.",
							 "Device buffers and pinned staging memory, a few milliseconds, in the "
							 "planner's units (one sequential page read).  Like parallel_setup_cost, "
							 "it keeps small tables off the GPU; 0 plans a small table as a large one.",
							 &gpusel_device_setup_cost,
							 2000.0,
							 0.0, DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.explain_device_details",
							 "Shows hardware-specific figures (device name, device time) in EXPLAIN ANALYZE.",
							 "Turn off for output that is the same on every machine, as in regression tests.",
							 &gpusel_explain_device_details,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.group_on_device",
							 "Puts a filtered GPU batch's rows into groups on the device.",
							 "Where the grouped scan has at most two group keys and one percentile "
							 "input, plain columns, and beside them only count(*) and sums and "
							 "averages of numerics and integer columns, the GPU finds each batch's "
							 "groups, sums them and keeps the percentile keys itself; off, the host "
							 "reads every passing row.  The answers are the same.",
							 &gpusel_group_on_device,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.plan_as_gpu",
							 "Plans queries as on a server with a usable GPU.",
							 "The planner offers and costs the GPU paths as gpusel.device = auto does "
							 "where a GPU is usable; where none is, those plans run on the CPU path "
							 "with the same results.  Lets a machine without a GPU test the plans "
							 "that GPU machines run.",
							 &gpusel_plan_as_gpu,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.force_groupagg",
							 "Plans the grouped scan wherever it can answer the query.",
							 "PostgreSQL's own grouping paths are dropped where the grouped scan "
							 "is offered, whatever the costs say (its serial and parallel plans "
							 "still compete).  For tests of the grouped scan on small tables; "
							 "enable_hashagg and enable_sort stay PostgreSQL's.",
							 &gpusel_force_groupagg,
							 false,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.enable_shards",
							 "Lets the planner answer percentiles over postgres_fdw partitions by rounds.",
							 "A grouped query with a percentile over a partitioned table whose "
							 "partitions are postgres_fdw foreign tables (and plain tables) is "
							 "answered by rounds of small queries to the partitions instead of "
							 "fetching every row, where that is cheaper.",
							 &gpusel_enable_shards,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.shard_fetch_keys",
							"Candidate keys of a rank, over all partitions, that a round fetches whole.",
							"Past this many, the next round asks each partition for evenly "
							"spaced keys of its candidates instead, narrowing them.  Small "
							"values mean more rounds and fewer bytes.",
							&gpusel_shard_fetch_keys,
							4096,
							1,
							1 << 24,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.shard_round_fractions",
							"Fractions a later round may share among a partition's groups.",
							"A later round asks a partition for keys at one constant array of "
							"fractions that all its groups share, which gpusel on the partition's "
							"server answers itself, when at most this many suffice; otherwise "
							"each group is asked for its own positions, which the server's "
							"PostgreSQL answers by sorting.  0 always asks per group.",
							&gpusel_shard_round_fractions,
							65536,
							0,
							1 << 24,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusel.replace_builtin_percentiles",
							 "Lets gpusel answer the built-in percentile_disc and percentile_cont.",
							 "The planner runs them as gpu_percentile and gpu_percentile_cont, which "
							 "return exactly the same values, in databases where the extension is "
							 "installed.",
							 &gpusel_replace_builtin_percentiles,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/* a PGC_POSTMASTER parameter may be defined only while the postmaster preloads */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomBoolVariable("gpusel.service",
								 "Runs the GPU service when gpusel is in shared_preload_libraries.",
								 "One process then owns the GPUs and every session sends it its device "
								 "work; off, each session uses the GPU on its own.",
								 &gpusel_service_enabled,
								 true,
								 PGC_POSTMASTER,
								 0,
								 NULL, NULL, NULL);

		DefineCustomIntVariable("gpusel.service_staging",
								"Size of the page-locked staging region the GPU service shares with sessions.",
								"Sessions fill batches and key chunks in it and the GPU copies from it "
								"directly; a session that finds no room computes on the CPU.",
								&gpusel_service_staging_mb,
								2048,
								64, INT_MAX / 2,
								PGC_POSTMASTER,
								GUC_UNIT_MB,
								NULL, NULL, NULL);

		DefineCustomIntVariable("gpusel.service_buffer_pool",
								"Device memory of finished queries' buffers the GPU service keeps for the next ones, on each GPU.",
								"Mapping and unmapping a scan's device buffers costs more than scanning a "
								"cached table; kept buffers give way when the column cache or a query "
								"needs the room. 0 gives every buffer back at once.",
								&gpusel_service_buffer_pool_mb,
								2048,
								0, INT_MAX / 2,
								PGC_POSTMASTER,
								GUC_UNIT_MB,
								NULL, NULL, NULL);
	}

	DefineCustomIntVariable("gpusel.cache_memory",
							"Shared memory the column cache's tables may take in all.",
							"gpusel_cache() refuses a table that would take the cache past it. "
							"The cache needs gpusel in shared_preload_libraries.",
							&gpusel_cache_memory_mb,
							1024,
							0, INT_MAX / 2,
							PGC_SUSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.cache_device_memory",
							"Device memory the column cache's tables may take in all, on each GPU.",
							"With the GPU service, gpusel_cache() also copies a table's columns to "
							"every GPU when they fit under this; otherwise the table is cached in "
							"shared memory only, with a notice. 0 keeps every cache off the GPUs.",
							&gpusel_cache_device_memory_mb,
							4096,
							0, INT_MAX / 2,
							PGC_SUSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.cache_refresh_naptime",
							"Time between the background refreshes of the column cache's tables.",
							"Every this often, a background worker rebuilds in each database the "
							"cached tables that gpusel_cache_refresh() finds stale. 0 turns the "
							"background refresh off. Needs gpusel in shared_preload_libraries.",
							&gpusel_cache_refresh_naptime_s,
							0,
							0, INT_MAX / 1000,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomRealVariable("gpusel.cache_refresh_threshold",
							 "Share of a cached table's blocks written since its build that makes a refresh rebuild it.",
							 "A table whose cache cannot serve scans (TRUNCATE, a rewrite) is rebuilt whatever "
							 "its share.",
							 &gpusel_cache_refresh_threshold,
							 0.1,
							 0.0, 1.0,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusel.service_max_requests",
							"Requests the GPU service runs at once; further ones wait.",
							"0 means no limit.",
							&gpusel_service_max_requests,
							256,
							0, 65536,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("gpusel");
}
