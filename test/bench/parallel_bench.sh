#!/usr/bin/env bash
# Benchmark of parallel feeding: each shape timed as PostgreSQL
# runs it serially and with its parallel workers (gpusel out of the way),
# and as gpusel runs it under Gather on the GPU and on its CPU path, and
# serially on the GPU, all in the same run on the same table, with the
# ratios and the table bytes per second each achieved.  Answers are checked
# equal to PostgreSQL's serial answer in the same run.
#
#   bash test/bench/parallel_bench.sh [rows] [workers]
# needs PGHOST etc. of a server with gpusel installed (device_run.sh).
set -euo pipefail
rows=${1:-${GPUSEL_BENCH_ROWS:-20000000}}
workers=${2:-8}
device=${GPUSEL_BENCH_DEVICE:-gpu}
reps=${GPUSEL_BENCH_REPS:-3}	# the median of reps runs per config
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql_q <<SQL
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS gpusel;
DROP TABLE IF EXISTS bench_t;
CREATE UNLOGGED TABLE bench_t AS
SELECT i::int8 AS id, random() AS x, random() * 1000 - 500 AS y, (random() * 1e6)::int4 AS k,
       (random() * 1e12)::int8 AS j, random()::float4 AS f, date '2000-01-01' + (i % 9000)::int AS d,
       (i % 101)::int4 AS grp, '/api/v1/endpoint' || (i % 40) AS ep,
       timestamp '2026-01-01' + (i % 2000000) * interval '1 second' AS ts
FROM generate_series(1, $rows) i;
ALTER TABLE bench_t SET (parallel_workers = $workers);
VACUUM ANALYZE bench_t;
SQL
table_bytes=$(psql -X -At -c "SELECT pg_relation_size('bench_t')")
echo "table: $rows rows, $table_bytes bytes; $workers workers per Gather"

# settings of each configuration
declare -A config=(
  [pg_serial]="SET gpusel.enable_scan = off; SET gpusel.replace_builtin_percentiles = off; SET max_parallel_workers_per_gather = 0;"
  [pg_parallel]="SET gpusel.enable_scan = off; SET gpusel.replace_builtin_percentiles = off; SET max_parallel_workers_per_gather = $workers;"
  [gpu_serial]="SET gpusel.device = $device; SET gpusel.min_rows = 0; SET max_parallel_workers_per_gather = 0;"
  [gpu_parallel]="SET gpusel.device = $device; SET gpusel.min_rows = 0; SET max_parallel_workers_per_gather = $workers;"
  [cpu_parallel]="SET gpusel.device = cpu; SET max_parallel_workers_per_gather = $workers;"
)
configs=(pg_serial pg_parallel gpu_serial gpu_parallel cpu_parallel)

shapes=(
  "count(*) under a 5-term filter|SELECT count(*) FROM bench_t WHERE x > 0.1 AND y < 400 AND k > 1000 AND f < 0.95 AND d > date '2001-01-01'"
  "count(*) under a 1-term filter|SELECT count(*) FROM bench_t WHERE x > 0.5"
  "whole-table percentile|SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t"
  "WHERE + GROUP BY 101 groups, 3 fractions|SELECT grp, percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) FROM bench_t WHERE d >= date '2010-01-01' GROUP BY grp ORDER BY grp"
  "sum + count under a 5-term filter|SELECT sum(j), count(*) FROM bench_t WHERE x > 0.1 AND y < 400 AND k > 1000 AND f < 0.95 AND d > date '2001-01-01'"
  "GROUP BY 10,000 groups, percentile_cont|SELECT k % 10000 g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t GROUP BY 1 ORDER BY 1"
  "GROUP BY 100,000 groups, percentile_cont|SELECT k % 100000 g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t GROUP BY 1 ORDER BY 1"
  "p50/p95/p99 per text key per hour|SELECT ep, date_trunc('hour', ts) h, percentile_cont(ARRAY[0.5,0.95,0.99]) WITHIN GROUP (ORDER BY x) FROM bench_t GROUP BY 1, 2 ORDER BY 1, 2"
)
# GPUSEL_BENCH_SHAPES="1 6": only those shapes (numbered from 1)
all_shapes=("${shapes[@]}")
if [ -n "${GPUSEL_BENCH_SHAPES:-}" ]; then
  chosen=()
  for n in $GPUSEL_BENCH_SHAPES; do chosen+=("${shapes[$((n - 1))]}"); done
  shapes=("${chosen[@]}")
fi
explain_shape=${GPUSEL_BENCH_EXPLAIN:-4}

# median of the given numbers
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# runs one query reps times after one warm-up in one session: "ms1 ms2 ..."
time_query() {
  local settings=$1 query=$2
  { echo "LOAD 'gpusel'; $settings"; echo "$query;"; echo '\timing on'
    for _ in $(seq $reps); do echo "$query;"; done; } |
    psql -X -q -At -v ON_ERROR_STOP=1 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tr '\n' ' '
}

answer() { { echo "LOAD 'gpusel'; $1"; echo "$2;"; } | psql -X -q -At -v ON_ERROR_STOP=1 | md5sum | cut -c1-12; }

plan_of() {
  { echo "LOAD 'gpusel'; $1"; echo "EXPLAIN (COSTS OFF) $2;"; } | psql -X -q -At |
    grep -oE "Parallel Custom Scan \(GpuSelScan\)|Custom Scan \(GpuSelScan\)|Parallel Seq Scan|Workers Planned: [0-9]+|Seq Scan" | sort -u | tr '\n' ';'
}

printf '\n%-42s %-13s %10s %8s %8s %9s  %s\n' shape config ms vs_pg vs_pgpar GB/s "plan / same answer"
for shape in "${shapes[@]}"; do
  what=${shape%%|*}; query=${shape#*|}
  ref=$(answer "${config[pg_serial]}" "$query")
  declare -A ms=()
  for c in "${configs[@]}"; do
    t=$(time_query "${config[$c]}" "$query")
    ms[$c]=$(median $t)
  done
  for c in "${configs[@]}"; do
    same=$([ "$(answer "${config[$c]}" "$query")" = "$ref" ] && echo same || echo DIFFERENT)
    awk -v w="$what" -v c="$c" -v t="${ms[$c]}" -v pg="${ms[pg_serial]}" -v pp="${ms[pg_parallel]}" \
        -v b="$table_bytes" -v p="$(plan_of "${config[$c]}" "$query")" -v s="$same" \
        'BEGIN { printf "%-42s %-13s %10.1f %8.2f %8.2f %9.2f  %s %s\n", w, c, t, pg / t, pp / t, b / (t * 1e6), p, s }' 
  done
  unset ms
done

echo
for c in gpu_serial gpu_parallel; do
  echo "== where the time goes, $c: ${all_shapes[$((explain_shape - 1))]%%|*}"
  { echo "LOAD 'gpusel'; ${config[$c]}"
    echo "EXPLAIN (ANALYZE, COSTS OFF) ${all_shapes[$((explain_shape - 1))]#*|};"; } | psql -X -q
done
