#!/usr/bin/env bash
# The CPU path's parallel scans of the column cache: three shapes (a
# selective count, sum + count under five terms, count/sum/min/max by 101
# groups) timed over the heap and over the cache, per number of workers set
# on the table, gpusel.device = cpu; then EXPLAIN ANALYZE of each with the
# last count.  The best three of seven runs in one psql session.  Beside them,
# the floor a parallel plan cannot go under: PostgreSQL's own count(*) of a
# 100,000-row table with the same workers, which is mostly the workers'
# start and exit.  Needs a server
# with gpusel in shared_preload_libraries (PGHOST etc.).
#
#   bash test/bench/cache_workers_bench.sh [rows] ["workers ..."]
set -uo pipefail
rows=${1:-10000000}
workers=(${2:-0 2 4 8})
db=${GPUSEL_BENCH_DB:-postgres}
p() { psql -X -q -At -d "$db" "$@"; }
p <<SQL >/dev/null
CREATE EXTENSION IF NOT EXISTS gpusel;
DROP TABLE IF EXISTS cache_workers_t;
SET max_parallel_workers_per_gather = 0;
CREATE UNLOGGED TABLE cache_workers_t AS
SELECT i::int8 AS id, random() AS x, random() * 1000 - 500 AS y, (random() * 1e6)::int4 AS k,
       (random() * 1e12)::int8 AS j, random()::float4 AS f, date '2000-01-01' + (i % 9000)::int AS d,
       (i % 101)::int4 AS grp
FROM generate_series(1, $rows) i;
VACUUM ANALYZE cache_workers_t;
DROP TABLE IF EXISTS cache_workers_floor;
CREATE UNLOGGED TABLE cache_workers_floor AS SELECT i::int8 AS id, random() AS x FROM generate_series(1, 100000) i;
VACUUM ANALYZE cache_workers_floor;
SQL
shapes=(
  "SELECT count(*) FROM cache_workers_t WHERE x < 0.01 AND k > 1000"
  "SELECT sum(j), count(*) FROM cache_workers_t WHERE x > 0.1 AND y < 400 AND k > 1000 AND f < 0.95 AND d > date '2001-01-01'"
  "SELECT grp, count(*), sum(k), min(x), max(d) FROM cache_workers_t WHERE f < 0.9 GROUP BY grp ORDER BY grp"
)
# the best three of seven runs, in ms
best3() {
  { echo "$1"; echo '\timing on'; for _ in 1 2 3 4 5 6 7; do echo "$2 \\g /dev/null"; done; } | p 2>&1 \
    | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sort -g | head -3 | tr '\n' ' '
}
declare -A heap
for w in "${workers[@]}"; do
  p -c "ALTER TABLE cache_workers_floor SET (parallel_workers = $w)" >/dev/null
  echo "workers $w: PostgreSQL's count(*) of 100,000 rows (the floor of a parallel plan)"
  printf '  floor  %s\n' "$(best3 "SET gpusel.enable_scan = off; SET max_parallel_workers_per_gather = $w; SET parallel_setup_cost = 0; SET min_parallel_table_scan_size = 0;" \
    "SELECT count(*) FROM cache_workers_floor WHERE x < 0.01")"
  p -c "ALTER TABLE cache_workers_t SET (parallel_workers = $w)" >/dev/null
  for i in "${!shapes[@]}"; do
    heap[$w,$i]=$(best3 "SET gpusel.device = cpu; SET max_parallel_workers_per_gather = $w;" "${shapes[$i]}")
  done
done
p -c "SELECT gpusel_cache('cache_workers_t')" >/dev/null
for w in "${workers[@]}"; do
  p -c "ALTER TABLE cache_workers_t SET (parallel_workers = $w)" >/dev/null
  for i in "${!shapes[@]}"; do
    echo "workers $w: ${shapes[$i]:0:70}"
    printf '  heap   %s\n' "${heap[$w,$i]}"
    printf '  cache  %s\n' "$(best3 "SET gpusel.device = cpu; SET max_parallel_workers_per_gather = $w;" "${shapes[$i]}")"
  done
done
last=${workers[${#workers[@]}-1]}
for q in "${shapes[@]}"; do
  p -c "SET gpusel.device = cpu" -c "SET max_parallel_workers_per_gather = $last" \
    -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) $q" | grep -v "^ *Output:"
done
p -c "SELECT gpusel_uncache('cache_workers_t')" -c "DROP TABLE cache_workers_t" -c "DROP TABLE cache_workers_floor" >/dev/null
