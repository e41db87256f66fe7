#!/usr/bin/env bash
# The column cache's copy in device memory, against a server that preloads
# gpusel (PGHOST/PGPORT/PGUSER; the database in $1, default gpusel_tap,
# must have the extension).  With a GPU behind the GPU service:
#   - gpusel_cache() puts the table's columns in device memory (device_bytes),
#     written while the table is read, or after the read where the table's
#     statistics understate its rows;
#   - every shape answers as PostgreSQL does with gpusel out of the way,
#     reading the cached rows in device memory (EXPLAIN ANALYZE), before
#     and after writes that send changed blocks to the heap;
#   - a row that raises an error on the device raises PostgreSQL's error;
#   - kill -9 of the service's device process in the middle of a scan of a
#     device copy fails that scan cleanly; the copy is gone, the host copy
#     answers the same, and gpusel_cache() makes a new copy;
#   - 200 cache/write/uncache cycles leave device memory where it was.
# Without a GPU: the table is cached in shared memory only, device_bytes 0,
# and the answers are PostgreSQL's.
# Each check prints "ok: ..." or "FAIL: ...".
set -uo pipefail
db=${1:-gpusel_tap}
source "$(dirname "$0")/server_checks.sh"
pg_off="-c gpusel.enable_scan=off -c gpusel.enable_groupagg=off -c gpusel.replace_builtin_percentiles=off -c max_parallel_workers_per_gather=0"

wait_up 20 || fail "service not up: $(q 'SELECT * FROM gpusel_service')"
gpu=$(q "SELECT devices > 0 FROM gpusel_service")
# the device path where there is a GPU, else the CPU path over the same cache
on_gpu="-c gpusel.device=$([ "$gpu" = t ] && echo gpu || echo cpu) -c gpusel.min_rows=0 -c max_parallel_workers_per_gather=0"


q "DROP TABLE IF EXISTS cache_dev_t" >/dev/null
q "CREATE TABLE cache_dev_t AS
   SELECT g AS id, ((g::int8 * 7919) % 1000)::int4 AS k,
          CASE WHEN g % 17 = 0 THEN NULL ELSE ((g::int8 * 104729) % 1000003) / 1000003.0::float8 END AS v,
          CASE WHEN g % 5 = 0 THEN 'NaN'::numeric ELSE ((g * 31) % 100000) / 100.0 END::numeric(12,2) AS m,
          date '2020-01-01' + (g % 1000) AS d, g % 101 AS grp,
          CASE WHEN g % 13 = 0 THEN NULL WHEN g = 777777 THEN -9223372036854775808
               WHEN g = 888888 THEN 9223372036854775807
               ELSE g::int8 * 1000003 - 500000000000 END AS big,
          (ARRAY['A', 'N', 'R'])[g % 3 + 1]::char(1) AS rf,
          CASE WHEN g % 11 = 0 THEN NULL ELSE (ARRAY['O', 'F'])[g % 2 + 1] END::char(1) AS ls,
          CASE WHEN g % 19 = 0 THEN NULL WHEN g = 500001 THEN 'infinity'::timestamp
               WHEN g = 500002 THEN '-infinity'::timestamp
               ELSE timestamp '1999-12-31 20:00' + (g * 37) * interval '1 second' END AS ts,
          CASE WHEN g % 23 = 0 THEN NULL WHEN g % 29 = 0 THEN '' ELSE '/api/v1/endpoint' || (g % 40) END AS ep
   FROM generate_series(1, 1000003) g" >/dev/null
q "ANALYZE cache_dev_t" >/dev/null
# a text column is cached where named: its values' codes
cols="ARRAY['id', 'k', 'v', 'm', 'd', 'grp', 'big', 'rf', 'ls', 'ts', 'ep']"
q "SELECT gpusel_cache('cache_dev_t', $cols)" >/dev/null
[ "$(q "SELECT columns @> '{rf,ls,ep}' FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")" = t ] \
  && ok "char(1) and text columns are cached" || fail "char(1) or text columns not cached: $(q "SELECT columns FROM gpusel_cached_tables")"
device_bytes=$(q "SELECT device_bytes FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")
if [ "$gpu" = t ]; then
  [ "$device_bytes" -gt 0 ] && ok "the cache's columns are in device memory ($device_bytes bytes)" \
    || fail "no device copy: $(q "SELECT * FROM gpusel_cached_tables")"
else
  [ "$device_bytes" = 0 ] && ok "without a GPU the cache is in shared memory only" || fail "device_bytes $device_bytes without a GPU"
fi

shapes=(
  "SELECT count(*) FROM cache_dev_t WHERE v < 0.01 AND k > 10"
  "SELECT count(*), sum(m), avg(k) FROM cache_dev_t WHERE v > 0.1 AND k < 900 AND d > date '2020-02-01'"
  "SELECT sum(big), avg(big), count(*) FROM cache_dev_t WHERE v > 0.2 AND id NOT IN (777777, 888888)"
  "SELECT sum(big), count(*) FROM cache_dev_t WHERE v > 0.2"
  "SELECT rf, percentile_disc(0.5) WITHIN GROUP (ORDER BY m) FROM cache_dev_t WHERE v < 0.8 GROUP BY rf ORDER BY 1"
  "SELECT grp, percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY v) FROM cache_dev_t WHERE d >= date '2021-01-01' GROUP BY grp ORDER BY grp"
  "SELECT grp, count(*), sum(k), min(v), max(d) FROM cache_dev_t WHERE v < 0.9 GROUP BY grp ORDER BY grp"
  "SELECT id, k, v FROM cache_dev_t WHERE v BETWEEN 0.5 AND 0.5005 AND k <> 3 ORDER BY id"
  "SELECT id, sum(m), count(*) FROM cache_dev_t WHERE v < 0.05 GROUP BY id ORDER BY 1"
  "SELECT sum(k), avg(grp), count(*) FROM cache_dev_t WHERE v > 0.5"
)
# shapes the device groups itself (EXPLAIN: Rows Grouped on Device): TPC-H Q1's
# two char(1) keys (one with NULLs) with numeric sums, averages and count(*);
# int8 sums beside a NaN stand-in (id 888888: that batch goes to the host);
# two keys with a percentile and sums beside it; int4 sums and averages;
# no WHERE clause (the device filters by a constant TRUE); counts and sums
# over more than 4,096 keys a batch (10,000 and about 17,000)
grouped_shapes=(
  "SELECT rf, ls, count(*), sum(m), avg(k) FROM cache_dev_t WHERE d <= date '2022-06-01' GROUP BY rf, ls ORDER BY 1, 2"
  "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v), count(*), avg(k) FROM cache_dev_t WHERE k > 100"
  "SELECT rf, ls, percentile_disc(0.5) WITHIN GROUP (ORDER BY m), count(*) FROM cache_dev_t GROUP BY rf, ls ORDER BY 1, 2"
  "SELECT grp, sum(k), avg(big), count(*) FROM cache_dev_t GROUP BY grp ORDER BY 1"
  "SELECT rf, ls, sum(m), sum(m * (1 - m)), sum(m * (1 - m) * (1 + m)), avg(m), count(*) FROM cache_dev_t WHERE d <= date '2022-06-01' GROUP BY rf, ls ORDER BY 1, 2"
  "SELECT ls, rf, sum(big), avg(big), count(*) FROM cache_dev_t WHERE v > 0.3 GROUP BY ls, rf ORDER BY 1, 2"
  "SELECT rf, ls, percentile_disc(0.5) WITHIN GROUP (ORDER BY m), count(*), sum(m) FROM cache_dev_t WHERE v < 0.9 GROUP BY rf, ls ORDER BY 1, 2"
  "SELECT grp, rf, percentile_cont(ARRAY[0.1, 0.5]) WITHIN GROUP (ORDER BY v), avg(m) FROM cache_dev_t WHERE k > 10 GROUP BY grp, rf ORDER BY 1, 2"
  "SELECT k, count(*), sum(m) FROM cache_dev_t WHERE v < 0.5 GROUP BY k ORDER BY 1"
  "SELECT k % 100, percentile_cont(0.5) WITHIN GROUP (ORDER BY v), count(*) FROM cache_dev_t GROUP BY 1 ORDER BY 1"
  "SELECT id % 10000 g, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM cache_dev_t GROUP BY 1 ORDER BY 1"
  "SELECT big % 1000 g, count(*), sum(m) FROM cache_dev_t WHERE v < 0.7 AND id NOT IN (777777, 888888) GROUP BY 1 ORDER BY 1"
  "SELECT k / 10, rf, count(*), avg(k) FROM cache_dev_t GROUP BY 1, 2 ORDER BY 1, 2"
  "SELECT k * -3, percentile_disc(0.9) WITHIN GROUP (ORDER BY d) FROM cache_dev_t WHERE v > 0.5 GROUP BY 1 ORDER BY 1"
  "SELECT k - 2147483000 g, count(*) FROM cache_dev_t WHERE k < 20 GROUP BY 1 ORDER BY 1"
  "SELECT date_trunc('hour', ts) h, percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY v) FROM cache_dev_t GROUP BY 1 ORDER BY 1"
  "SELECT rf, date_trunc('day', ts), count(*), avg(k) FROM cache_dev_t WHERE v < 0.5 GROUP BY 1, 2 ORDER BY 1, 2"
  "SELECT date_trunc('Minutes', ts) mi, count(*), sum(m) FROM cache_dev_t WHERE k < 3 GROUP BY 1 ORDER BY 1"
  "SELECT date_trunc('milliseconds', ts), percentile_disc(0.5) WITHIN GROUP (ORDER BY k) FROM cache_dev_t WHERE k = 7 GROUP BY 1 ORDER BY 1"
  "SELECT ep, count(*), avg(k) FROM cache_dev_t GROUP BY ep ORDER BY 1"
  "SELECT ep, date_trunc('hour', ts) h, percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY v) FROM cache_dev_t GROUP BY 1, 2 ORDER BY 1, 2"
  "SELECT ep, rf, percentile_disc(0.5) WITHIN GROUP (ORDER BY m), count(*), sum(m) FROM cache_dev_t WHERE v < 0.5 GROUP BY 1, 2 ORDER BY 1, 2"
  "SELECT id % 10000 g, count(*), sum(m), avg(k) FROM cache_dev_t GROUP BY 1 ORDER BY 1"
  "SELECT ep, date_trunc('day', ts) dd, count(*), sum(k) FROM cache_dev_t GROUP BY 1, 2 ORDER BY 1, 2"
)
# key expressions whose rows raise PostgreSQL's error: the device hands the
# batch to the host, which raises it
error_shapes=(
  "SELECT k % 0, count(*) FROM cache_dev_t GROUP BY 1"
  "SELECT big * 100000000 g, count(*) FROM cache_dev_t GROUP BY 1"
  "SELECT k + 2147483000 g, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM cache_dev_t GROUP BY 1"
  "SELECT big - 9223372036854775000, count(*) FROM cache_dev_t GROUP BY 1"
)
compare_all() {
  local when=$1
  for shape in "${shapes[@]}" "${grouped_shapes[@]}"; do
    want=$(PGOPTIONS="$pg_off" psql -X -At -d "$db" -c "$shape" 2>&1)
    got=$(PGOPTIONS="$on_gpu" psql -X -At -d "$db" -c "$shape" 2>&1)
    [ -n "$want" ] && ! echo "$want" | grep -q ERROR && [ "$want" = "$got" ] && ok "$when: ${shape:0:60}... as PostgreSQL" || fail "$when: $shape differs from PostgreSQL"
    if [ "$gpu" = t ] && [ "${2:-}" = device ]; then
      plan=$(PGOPTIONS="$on_gpu" psql -X -At -d "$db" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $shape")
      echo "$plan" | grep -Eq "Rows Read In Device Memory: [1-9]" \
        && ok "$when: read in device memory ($(echo "$plan" | grep -E 'Rows Read In Device|Blocks From Heap' | tr -s ' ' | paste -sd ' '))" \
        || fail "$when: not read in device memory: $plan"
    fi
  done
}
compare_all "cached" device
# a key the device does not compute (weeks depend on the calendar): the host's answer
for shape in "SELECT date_trunc('week', ts), count(*) FROM cache_dev_t GROUP BY 1 ORDER BY 1"; do
  want=$(PGOPTIONS="$pg_off" psql -X -At -d "$db" -c "$shape" 2>&1)
  got=$(PGOPTIONS="$on_gpu" psql -X -At -d "$db" -c "$shape" 2>&1)
  [ -n "$want" ] && [ "$want" = "$got" ] && ok "${shape:0:60}... as PostgreSQL" || fail "$shape differs from PostgreSQL"
done
for shape in "${error_shapes[@]}"; do
  want=$(PGOPTIONS="$pg_off" psql -X -At -d "$db" -c "$shape" 2>&1)
  got=$(PGOPTIONS="$on_gpu" psql -X -At -d "$db" -c "$shape" 2>&1)
  [ "$want" = "$got" ] && echo "$got" | grep -Eq "ERROR:  .*(out of range|division by zero)" \
    && ok "a key expression's error is PostgreSQL's: $got" || fail "$shape: PostgreSQL '$want', gpusel '$got'"
done
if [ "$gpu" = t ]; then
  for shape in "${grouped_shapes[@]}"; do
    plan=$(PGOPTIONS="$on_gpu" psql -X -At -d "$db" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $shape")
    echo "$plan" | grep -Eq "Rows Grouped on Device: [1-9]" \
      && ok "grouped on the device ($(echo "$plan" | grep -E 'Rows Grouped on Device|Rows Aggregated' | tr -s ' ' | paste -sd ' '))" \
      || fail "not grouped on the device: $shape: $plan"
  done
fi

if [ "$gpu" = t ]; then
  # the build's processes write the device copy as they read, where the
  # table's statistics bound its rows; statistics that understate them make
  # the build copy after the read instead; both copies answer the same
  build_log() { psql -X -At -d "$db" -c "SET client_min_messages = debug1" -c "SELECT gpusel_cache('cache_dev_t', $cols)" 2>&1 | grep "rows read"; }
  log=$(build_log)
  echo "$log" | grep -q "written while reading" && ok "the device copy was written while reading: $log" \
    || fail "the device copy was not written while reading: $log"
  q "UPDATE pg_class SET reltuples = 1000 WHERE oid = 'cache_dev_t'::regclass" >/dev/null
  log=$(build_log)
  ! echo "$log" | grep -q "written while reading" && echo "$log" | grep -q "1000003 rows read" \
    && ok "rows past the statistics' bound: the copy was made after the read: $log" \
    || fail "rows past the bound: $log"
  [ "$(q "SELECT device_bytes > 0 FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")" = t ] \
    && ok "the copy made after the read is in device memory" || fail "no device copy after the read"
  compare_all "copied after the read" device
  q "ANALYZE cache_dev_t" >/dev/null
  log=$(build_log)
  echo "$log" | grep -q "written while reading" && ok "after ANALYZE the copy is written while reading again" \
    || fail "after ANALYZE: $log"
fi

# writes: their blocks come from the heap, the rest from device memory
q "UPDATE cache_dev_t SET v = v / 2, k = k + 1 WHERE id % 50000 = 7" >/dev/null
q "DELETE FROM cache_dev_t WHERE id BETWEEN 400000 AND 400100" >/dev/null
q "INSERT INTO cache_dev_t SELECT g, g % 1000, 0.5001, 1.5, date '2021-06-01', g % 101, g, 'N', 'F', NULL, CASE WHEN g % 2 = 0 THEN '/api/v1/endpoint3' ELSE '/a new endpoint' END FROM generate_series(2000000, 2000999) g" >/dev/null
compare_all "after writes" device

# a row the device cannot evaluate: PostgreSQL's error, from the CPU's re-evaluation
want=$(PGOPTIONS="$pg_off" psql -X -At -d "$db" -c "SELECT count(*) FROM cache_dev_t WHERE 10 / (k - 500) > 0" 2>&1)
got=$(PGOPTIONS="$on_gpu" psql -X -At -d "$db" -c "SELECT count(*) FROM cache_dev_t WHERE 10 / (k - 500) > 0" 2>&1)
[ "$want" = "$got" ] && echo "$got" | grep -q "division by zero" && ok "a row error is PostgreSQL's: $got" \
  || fail "row error: PostgreSQL '$want', gpusel '$got'"

if [ "$gpu" = t ]; then
  # the device process dies in the middle of a scan of a device copy (a cursor
  # between its batches of 4M rows): the scan's next request fails with the
  # service's error and the session goes on; the copies die with the process;
  # the host copy answers, a rebuild copies again
  q "CREATE TABLE cache_kill_t AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 9000000) g" >/dev/null
  q "SELECT gpusel_cache('cache_kill_t')" >/dev/null
  kill_out=$(mktemp)
  { echo "SET gpusel.device = gpu; SET gpusel.min_rows = 0; SET max_parallel_workers_per_gather = 0;"
    echo "BEGIN; DECLARE c CURSOR FOR SELECT id FROM cache_kill_t WHERE k < 900; FETCH 1 FROM c;"
    echo "SELECT pg_sleep(2);"
    echo "MOVE ALL FROM c;"
    echo "ROLLBACK;"
    echo "SELECT 'session goes on';"
  } | psql -X -At -d "$db" -v VERBOSITY=verbose >"$kill_out" 2>&1 &
  scan=$!
  sleep 1
  kill -9 "$(q "SELECT device_pid FROM gpusel_service")"
  wait $scan
  grep -Eq "ERROR: +(08006|55000|38000)" "$kill_out" && grep -q "session goes on" "$kill_out" \
    && ok "a scan of the device copy whose device process died fails cleanly: $(grep -m1 -E 'ERROR' "$kill_out")" \
    || fail "scan during the kill: $(cat "$kill_out")"
  rm -f "$kill_out"
  sleep 0.5
  wait_up 20 || fail "service not back: $(q 'SELECT * FROM gpusel_service')"
  [ "$(q "SELECT device_bytes FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")" = 0 ] \
    && ok "after the device process died the view shows no device copy" || fail "device_bytes after the restart: $(q 'SELECT * FROM gpusel_cached_tables')"
  compare_all "after the restart, from shared memory"
  # a lost device copy makes the table stale: the refresh rebuilds it, with no block written
  refreshed=$(q "SELECT string_agg(t::text, ',') FROM gpusel_cache_refresh() t")
  echo "$refreshed" | grep -q "cache_dev_t" && echo "$refreshed" | grep -q "cache_kill_t" \
    && [ "$(q "SELECT device_bytes > 0 FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")" = t ] \
    && ok "gpusel_cache_refresh() rebuilt the tables whose device copies were lost ($refreshed)" \
    || fail "refresh after the device copy was lost: '$refreshed', $(q 'SELECT relation, device_bytes FROM gpusel_cached_tables')"
  [ -z "$(q "SELECT string_agg(t::text, ',') FROM gpusel_cache_refresh() t")" ] \
    && ok "a second refresh finds nothing stale" || fail "a second refresh rebuilt again"
  q "SELECT gpusel_cache('cache_dev_t', $cols)" >/dev/null
  [ "$(q "SELECT device_bytes > 0 FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")" = t ] \
    && ok "gpusel_cache() made a new device copy" || fail "no device copy after the rebuild"
  compare_all "rebuilt" device
  # a build while the device process restarts waits for it instead of caching in shared memory only
  kill -9 "$(q "SELECT device_pid FROM gpusel_service")"
  sleep 0.2
  state_then=$(q "SELECT state FROM gpusel_service")
  q "SELECT gpusel_cache('cache_dev_t', $cols)" >/dev/null
  [ "$(q "SELECT device_bytes > 0 FROM gpusel_cached_tables WHERE relation = 'cache_dev_t'::regclass")" = t ] \
    && ok "gpusel_cache() called while the service was $state_then waited for it and made a device copy" \
    || fail "no device copy from a build while the service was $state_then: $(q 'SELECT relation, device_bytes FROM gpusel_cached_tables')"

  # 200 cycles of cache, write, query, uncache: device memory stays flat
  q "SELECT gpusel_uncache('cache_dev_t')" >/dev/null
  sleep 1.5
  before=$(q "SELECT total_memory_mb - free_memory_mb FROM gpusel_device_info()")
  q "CREATE TABLE cache_cycle_t AS SELECT g AS id, g % 100 AS k, g * 0.5 AS v FROM generate_series(1, 100000) g" >/dev/null
  for i in $(seq 1 200); do
    echo "SELECT gpusel_cache('cache_cycle_t'); UPDATE cache_cycle_t SET k = k + 1 WHERE id = $i; SET gpusel.device = gpu; SET gpusel.min_rows = 0; SELECT count(*) FROM cache_cycle_t WHERE k > 50; SELECT gpusel_uncache('cache_cycle_t');"
  done | psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 >/dev/null || fail "cycles failed"
  sleep 1.5
  q "SELECT count(*) FROM gpusel_device_info()" >/dev/null
  after=$(q "SELECT total_memory_mb - free_memory_mb FROM gpusel_device_info()")
  [ "$after" -le "$((before + 64))" ] && ok "200 cache/write/uncache cycles left device memory flat (${before} MB, then ${after} MB)" \
    || fail "device memory grew over 200 cycles: ${before} MB, then ${after} MB"
  q "DROP TABLE cache_cycle_t" >/dev/null
  q "DROP TABLE cache_kill_t" >/dev/null
fi
q "SELECT gpusel_uncache('cache_dev_t')" >/dev/null
q "DROP TABLE cache_dev_t" >/dev/null
[ "$failures" = 0 ] && echo "cache device tests passed" || { echo "$failures cache device test(s) failed"; exit 1; }
