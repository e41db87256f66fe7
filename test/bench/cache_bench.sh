#!/usr/bin/env bash
# Benchmark of the column cache: each shape timed as PostgreSQL runs it
# (gpusel out of the way, with its parallel workers), as gpusel runs it from
# the heap, and as gpusel runs it from the column cache, on the GPU and on
# the CPU path, each with the same workers, all in the same run on the same
# table, with the ratios and the cached columns' bytes per second.  Every
# answer is checked equal to PostgreSQL's (a float sum under Gather may
# differ in its last digits, as PostgreSQL's own parallel sums do).  Needs a server with gpusel in
# shared_preload_libraries (PGHOST etc.).
#
#   bash test/bench/cache_bench.sh [rows] [workers]
set -euo pipefail
rows=${1:-${GPUSEL_BENCH_ROWS:-10000000}}
workers=${2:-8}
reps=${GPUSEL_BENCH_REPS:-5}	# the median of reps runs
device=${GPUSEL_BENCH_DEVICE:-gpu}	# cpu where there is no GPU
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql_q <<SQL
CREATE EXTENSION IF NOT EXISTS gpusel;
DROP TABLE IF EXISTS cache_bench_t;
SET max_parallel_workers_per_gather = 0;
CREATE UNLOGGED TABLE cache_bench_t AS
SELECT i::int8 AS id, random() AS x, random() * 1000 - 500 AS y, (random() * 1e6)::int4 AS k,
       (random() * 1e12)::int8 AS j, random()::float4 AS f, date '2000-01-01' + (i % 9000)::int AS d,
       (i % 101)::int4 AS grp, '/api/v1/endpoint' || (i % 40) AS ep,
       timestamp '2026-01-01' + (i % 2000000) * interval '1 second' AS ts
FROM generate_series(1, $rows) i;
ALTER TABLE cache_bench_t SET (parallel_workers = $workers);
VACUUM ANALYZE cache_bench_t;
SQL
# every column: the text one is cached only where named
cache_call="SELECT gpusel_cache('cache_bench_t', ARRAY['id', 'x', 'y', 'k', 'j', 'f', 'd', 'grp', 'ep', 'ts'])"
built=$( { echo '\timing on'; echo "$cache_call;"; } | psql -X -q -At | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
cached_bytes=$(psql -X -At -c "SELECT bytes FROM gpusel_cached_tables WHERE relation = 'cache_bench_t'::regclass")
device_bytes=$(psql -X -At -c "SELECT device_bytes FROM gpusel_cached_tables WHERE relation = 'cache_bench_t'::regclass")
echo "table: $rows rows, $(psql -X -At -c "SELECT pg_relation_size('cache_bench_t')") heap bytes, $cached_bytes cached bytes ($device_bytes in device memory); cache built in $built ms"
# the device's memory bandwidth, from its data sheet, for the cached columns' GB/s to be read against
gpu_name=$(psql -X -At -c "SELECT coalesce(device_name, '') FROM gpusel_device_info()")
case "$gpu_name" in
  *H200*) peak_gbs=4800 ;;
  *H100*HBM3*|*H100\ SXM*) peak_gbs=3350 ;;
  *H100*) peak_gbs=2000 ;;
  *A100*80GB*) peak_gbs=2039 ;;
  *A100*) peak_gbs=1555 ;;
  *L40S*|*L40*) peak_gbs=864 ;;
  *) peak_gbs=0 ;;
esac
if [ "$peak_gbs" -gt 0 ]; then
  echo "device: $gpu_name, memory bandwidth $peak_gbs GB/s (data sheet); cache_GB/s below is the cached table's bytes over the query's time"
else
  echo "device: ${gpu_name:-none}; its memory bandwidth is not known here"
fi

shapes=(
  "count(*) under a selective filter|SELECT count(*) FROM cache_bench_t WHERE x < 0.01 AND k > 1000"
  "sum + count under a 5-term filter|SELECT sum(j), count(*) FROM cache_bench_t WHERE x > 0.1 AND y < 400 AND k > 1000 AND f < 0.95 AND d > date '2001-01-01'"
  "WHERE + GROUP BY 101 groups, 3 fractions|SELECT grp, percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) FROM cache_bench_t WHERE d >= date '2010-01-01' GROUP BY grp ORDER BY grp"
  "a median beside count and avg|SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*), avg(k) FROM cache_bench_t WHERE k > 1000"
  "GROUP BY 10,000 groups (k % 10000), percentile_cont|SELECT k % 10000 g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM cache_bench_t GROUP BY 1 ORDER BY 1"
  "p50/p95/p99 per text key per hour|SELECT ep, date_trunc('hour', ts) h, percentile_cont(ARRAY[0.5,0.95,0.99]) WITHIN GROUP (ORDER BY x) FROM cache_bench_t GROUP BY 1, 2 ORDER BY 1, 2"
  "GROUP BY 101 groups: count, sum, min, max|SELECT grp, count(*), sum(k), min(x), max(d) FROM cache_bench_t WHERE f < 0.9 GROUP BY grp ORDER BY grp"
)
off="SET gpusel.enable_scan = off; SET gpusel.enable_groupagg = off; SET gpusel.replace_builtin_percentiles = off;"
declare -A config=(
  [pg_workers]="$off SET max_parallel_workers_per_gather = $workers;"
  [gpusel_heap]="SET max_parallel_workers_per_gather = $workers; SET gpusel.device = $device; SET gpusel.min_rows = 0;"
  [cache_$device]="SET max_parallel_workers_per_gather = $workers; SET gpusel.device = $device; SET gpusel.min_rows = 0;"
  [cache_cpu]="SET max_parallel_workers_per_gather = $workers; SET gpusel.device = cpu;"
)
order=(pg_workers gpusel_heap "cache_$device")
[ "$device" = cpu ] || order+=(cache_cpu)
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_query() {
  local times
  times=$( { echo "$1"; echo "$2;"; echo '\timing on'; for _ in $(seq "$reps"); do echo "$2;"; done; } |
           psql -X -q -At -v ON_ERROR_STOP=1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
  median $times
}
answer() { { echo "$1"; echo "$2;"; } | psql -X -q -At -v ON_ERROR_STOP=1 | md5sum | cut -c1-12; }
source_of() { { echo "$1"; echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $2;"; } | psql -X -q -At |
  { grep -Eo "Source: column cache|Rows Read In Device Memory: [0-9]+|Workers Launched: [0-9]+" || true; } | paste -sd ";"; }

printf '\n%-42s %-12s %10s %8s %9s %10s %7s  %s\n' shape config ms vs_pg vs_heap cache_GB/s of_peak "source / same answer"
for shape in "${shapes[@]}"; do
  what=${shape%%|*}; query=${shape#*|}
  # the heap configurations run with the cache dropped, the cached ones with it built
  psql -X -q -c "SELECT gpusel_uncache('cache_bench_t')" >/dev/null
  ref=$(answer "${config[pg_workers]}" "$query")
  declare -A ms=()
  for c in "${order[@]}"; do
    if [ "$c" = "cache_$device" ]; then psql -X -q -c "$cache_call" >/dev/null; fi
    ms[$c]=$(time_query "${config[$c]}" "$query")
    same=$([ "$(answer "${config[$c]}" "$query")" = "$ref" ] && echo same || echo DIFFERENT)
    src=$(source_of "${config[$c]}" "$query")
    awk -v w="$what" -v c="$c" -v t="${ms[$c]}" -v pg="${ms[pg_workers]}" -v h="${ms[gpusel_heap]:-0}" \
        -v b="$cached_bytes" -v s="$same" -v p="${src:-heap}" -v peak="$peak_gbs" \
      'BEGIN { gbs = b / (t * 1e6)
               printf "%-42s %-12s %10.1f %8.2f %9s %10s %7s  %s; %s\n", w, c, t, pg / t,
               (h > 0 ? sprintf("%.2f", h / t) : "-"), (c ~ /cache/ ? sprintf("%.1f", gbs) : "-"),
               (c == "cache_gpu" && peak > 0 ? sprintf("%.1f%%", 100 * gbs / peak) : "-"), p, s }'
  done
done
psql -X -q -c "SELECT gpusel_uncache('cache_bench_t')" -c "DROP TABLE cache_bench_t" >/dev/null
