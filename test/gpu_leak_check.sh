#!/usr/bin/env bash
# GPU machine only: 1,000 gpu_percentile queries in one backend (most of
# them with rows grouped on the device, some of those cancelled), then 1,000
# parallel grouped scans (Gather, workers), some of each cancelled by a
# statement timeout and some failing (in a worker, for the parallel ones),
# must leave the device memory in use where it started.  Needs a server with gpusel installed
# (PGHOST/PGPORT/PGUSER) and a usable GPU; skips, saying so, without one.
set -uo pipefail
usable=$(psql -X -At -c 'CREATE EXTENSION IF NOT EXISTS gpusel' -c 'SELECT usable FROM gpusel_device_info()' | tail -1)
if [ "$usable" != t ]; then
  echo "SKIP: no usable GPU ($(psql -X -At -c 'SELECT reason FROM gpusel_device_info()'))"
  exit 0
fi
script=$(mktemp /tmp/gpusel-leak.XXXXXX.sql)
serial_query() {
  case $(($1 % 10)) in
    0) echo "SET statement_timeout = '30ms'; SELECT gpu_percentile(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY x) FROM lk, generate_series(1, 3); RESET statement_timeout;" ;;
    3) echo "SET statement_timeout = '4ms'; SELECT count(*), gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM lk WHERE x < 0.9 GROUP BY i ORDER BY 1 LIMIT 1; RESET statement_timeout;" ;;
    5) echo "SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY 1 / (i - i)) FROM lk;" ;;
    7) echo "SELECT gpu_percentile(2) WITHIN GROUP (ORDER BY x) FROM lk;" ;;
    *) echo "SELECT gpu_percentile(0.$1) WITHIN GROUP (ORDER BY i) FROM lk WHERE x < 0.$(($1 % 9 + 1));" ;;
  esac
}
# under Gather: a table workers can read, parallel plans forced
parallel_query() {
  case $(($1 % 10)) in
    0) echo "SET statement_timeout = '5ms'; SELECT i % 1000, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM lkp GROUP BY 1 ORDER BY 2 LIMIT 1; RESET statement_timeout;" ;;
    5) echo "SELECT grp, count(*) FROM lkp WHERE 1 / (i - i) > 0 GROUP BY grp;" ;;
    3) echo "SELECT count(*) FROM lkp WHERE x < 0.$(($1 % 9 + 1)) AND i > 1000;" ;;
    7) echo "SELECT gpu_percentile(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY x) FROM lkp;" ;;
    *) echo "SELECT grp, gpu_percentile(0.$1) WITHIN GROUP (ORDER BY i), avg(x) FROM lkp WHERE x < 0.$(($1 % 9 + 1)) GROUP BY grp ORDER BY grp LIMIT 1;" ;;
  esac
}
{
  echo "LOAD 'gpusel'; SET gpusel.device = gpu; SET gpusel.min_rows = 0;"
  echo "CREATE TEMP TABLE lk AS SELECT random() AS x, (random() * 1e9)::int8 AS i FROM generate_series(1, 500000);"
  echo "CREATE TABLE lkp AS SELECT random() AS x, (random() * 1e9)::int8 AS i, g % 101 AS grp FROM generate_series(1, 500000) g;"
  echo "ANALYZE lkp; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 4;"
  echo "EXPLAIN (COSTS OFF) SELECT grp, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM lkp GROUP BY grp;"
  # every shape once first: the device's memory pools reach their working size
  for q in 1 2 3 5 7 10; do serial_query $q; parallel_query $q; done
  echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM lk WHERE x < 0.9 GROUP BY i;"
  echo "SELECT 'before', free_memory_mb FROM gpusel_device_info();"
  for q in $(seq 1 1000); do serial_query $q; done
  echo "SELECT 'between', free_memory_mb FROM gpusel_device_info();"
  for q in $(seq 1 1000); do parallel_query $q; done
  echo "DROP TABLE lkp;"
  echo "SELECT 'after', free_memory_mb FROM gpusel_device_info();"
  echo "SELECT 'stats', gpu_selections, cpu_selections, gpu_fallbacks FROM gpusel_stats();"
} > "$script"
out=$(psql -X -At -F ' ' -f "$script" 2>&1)
before=$(echo "$out" | awk '$1 == "before" {print $2}')
after=$(echo "$out" | awk '$1 == "after" {print $2}')
echo "$out" | grep -E '^stats' 
echo "cancelled: $(echo "$out" | grep -c 'canceling statement') failed: $(echo "$out" | grep -c -E 'division by zero|not between 0 and 1')"
echo "parallel plans: $(echo "$out" | grep -c 'Parallel Custom Scan (GpuSelScan)') (1 expected)"
echo "serial rows grouped on the device: $(echo "$out" | grep -m1 -o 'Rows Grouped on Device: [0-9]*' || echo none)"
between=$(echo "$out" | awk '$1 == "between" {print $2}')
echo "device free memory before: ${before} MB, after the serial queries: ${between} MB, after: ${after} MB"
rm -f "$script"
if [ -z "$before" ] || [ "$before" != "$after" ]; then
  echo "FAIL: device memory in use changed"
  exit 1
fi
# grep -c reads all of its input (grep -q would end the pipe early under pipefail)
if [ "$(echo "$out" | grep -c 'Parallel Custom Scan (GpuSelScan)')" -lt 1 ]; then
  echo "FAIL: the parallel queries did not plan as the parallel grouped scan"
  exit 1
fi
echo "PASS: device memory unchanged after 2000 queries (1000 of them parallel)"
