#!/usr/bin/env bash
# The GPU service's failure handling, against a server that preloads gpusel
# (PGHOST/PGPORT/PGUSER; the database in $1, default gpusel_tap, must have
# the extension).  Runs with or without a GPU: the service keeps its place
# without one, and its test requests (gpusel_service_ping) need no device.
#
# Checks, each printing "ok: ..." or "FAIL: ...":
#   - the service shows in pg_stat_activity as "gpusel service" and is up;
#   - kill -9 of its device process during a request fails that request with
#     SQLSTATE 08006, leaves another session's running query and the
#     postmaster alone, the next query succeeds at once, and the service is
#     up again soon after;
#   - an injected CUDA error fails its request with SQLSTATE 38000 and the
#     service restarts;
#   - a cancel (statement_timeout) reaches a request held in the service;
#   - a session terminated during a request leaves no connection or block;
#   - with a GPU, parallel workers filter their blocks on the device;
#   - 1,000 connections opening and closing, each with a request (with a GPU,
#     a query on it), leave the staging region, the service's connections and
#     device memory where they were.
set -uo pipefail
db=${1:-gpusel_tap}
source "$(dirname "$0")/server_checks.sh"

wait_up && ok "service up" || fail "service not up: $(q 'SELECT * FROM gpusel_service')"
[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpusel service'")" = 1 ] \
  && ok "pg_stat_activity shows the gpusel service" || fail "no gpusel service in pg_stat_activity"
[ "$(q 'SELECT gpusel_service_ping(0) >= 0')" = t ] && ok "ping" || fail "ping"

pm_start=$(q "SELECT pg_postmaster_start_time()")
restarts=$(q "SELECT restarts FROM gpusel_service")

# kill -9 of the device process while a request is in flight
bystander_out=$(mktemp); victim_out=$(mktemp)
psql -X -At -d "$db" -c "SELECT pg_sleep(2), 'bystander done'" >"$bystander_out" 2>&1 &
bystander=$!
psql -X -At -d "$db" -v VERBOSITY=verbose -c "SELECT gpusel_service_ping(5000)" >"$victim_out" 2>&1 &
victim=$!
for _ in $(seq 1 50); do
  [ "$(q 'SELECT requests_in_flight FROM gpusel_service')" -ge 1 ] && break
  sleep 0.1
done
device_pid=$(q "SELECT device_pid FROM gpusel_service")
kill -9 "$device_pid"
wait $victim
grep -q "08006" "$victim_out" && grep -q "lost the connection to the gpusel service" "$victim_out" \
  && ok "the request in flight failed with 08006" || fail "request in flight: $(cat "$victim_out")"
[ "$(q "SELECT count(*) FROM generate_series(1, 1000) g WHERE g % 7 = 0")" = 142 ] \
  && ok "the next query ran at once" || fail "the next query"
wait $bystander
grep -q "bystander done" "$bystander_out" && ok "another session's query finished" \
  || fail "bystander: $(cat "$bystander_out")"
[ "$(q "SELECT pg_postmaster_start_time()")" = "$pm_start" ] && ok "the postmaster did not restart" \
  || fail "the postmaster restarted"
wait_up && [ "$(q "SELECT device_pid <> $device_pid AND restarts > $restarts FROM gpusel_service")" = t ] \
  && ok "a new device process is up" || fail "no new device process: $(q 'SELECT * FROM gpusel_service')"
[ "$(q 'SELECT gpusel_service_ping(0) >= 0')" = t ] && ok "ping after the restart" || fail "ping after the restart"

# an injected CUDA error
restarts=$(q "SELECT restarts FROM gpusel_service")
out=$(psql -X -At -d "$db" -v VERBOSITY=verbose -c "SELECT gpusel_service_inject_fault('cuda_error')" 2>&1)
echo "$out" | grep -q "38000" && ok "an injected CUDA error fails its request with 38000" || fail "cuda_error: $out"
for _ in $(seq 1 50); do
  [ "$(q "SELECT restarts > $restarts FROM gpusel_service")" = t ] && break
  sleep 0.1
done
wait_up && [ "$(q 'SELECT gpusel_service_ping(0) >= 0')" = t ] && ok "the service is back after the CUDA error" \
  || fail "service after the CUDA error"

# cancel reaches the service
start=$(date +%s%N)
out=$(psql -X -At -d "$db" -c "SET statement_timeout = 300" -c "SELECT gpusel_service_ping(10000)" 2>&1)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "$out" | grep -q "statement timeout" && [ "$ms" -lt 3000 ] && ok "a cancel stops a request in the service (${ms} ms)" \
  || fail "cancel: ${ms} ms, $out"

# a session terminated during a request leaves nothing behind
sleep 0.5
base_conn=$(q "SELECT connections FROM gpusel_service")
base_heap=$(q "SELECT staging_in_use_mb FROM gpusel_service")
psql -X -At -d "$db" -c "SELECT gpusel_service_ping(5000)" >/dev/null 2>&1 &
held=$!
sleep 0.5
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT gpusel_service_ping(5000)%' AND pid <> pg_backend_pid()" >/dev/null
wait $held
for _ in $(seq 1 50); do
  [ "$(q "SELECT connections <= $base_conn AND staging_in_use_mb <= $base_heap FROM gpusel_service")" = t ] && break
  sleep 0.1
done
[ "$(q "SELECT connections <= $base_conn AND staging_in_use_mb <= $base_heap FROM gpusel_service")" = t ] \
  && ok "a terminated session left no connection or staging" || fail "terminated session left: $(q 'SELECT * FROM gpusel_service')"

# 1,000 connections opening and closing; with a GPU, each runs a query on it
script=$(mktemp)
gpu=$(q "SELECT usable FROM gpusel_device_info()")
if [ "$gpu" = t ]; then
  q "CREATE TABLE IF NOT EXISTS service_test_t AS SELECT g AS id, g * 0.001 AS v FROM generate_series(1, 50000) g" >/dev/null
  printf '%s\n' "SET gpusel.device = gpu;" "SET gpusel.min_rows = 0;" "SET max_parallel_workers_per_gather = 0;" \
    "SELECT count(*) FROM service_test_t WHERE v < 25;" >"$script"
  # the first connections' device allocations stay for the process's life
  pgbench -n -C -c 4 -j 4 -t 25 -f "$script" "$db" >/dev/null 2>&1
  device_before=$(q "SELECT total_memory_mb - free_memory_mb FROM gpusel_device_info()")
else
  echo "SELECT gpusel_service_ping(0);" >"$script"
fi
before=$(q "SELECT requests_done FROM gpusel_service")
pgbench -n -C -c 4 -j 4 -t 250 -f "$script" "$db" >/dev/null 2>&1 || fail "pgbench"
for _ in $(seq 1 50); do
  [ "$(q "SELECT connections <= $base_conn AND staging_in_use_mb <= $base_heap FROM gpusel_service")" = t ] && break
  sleep 0.1
done
[ "$(q "SELECT requests_done - $before >= 1000 FROM gpusel_service")" = t ] \
  && ok "1,000 connections each sent their requests" || fail "1,000 connections: $(q 'SELECT * FROM gpusel_service')"
[ "$(q "SELECT connections <= $base_conn AND staging_in_use_mb <= $base_heap FROM gpusel_service")" = t ] \
  && ok "1,000 connections left the staging region and connections flat" \
  || fail "after 1,000 connections: $(q 'SELECT * FROM gpusel_service')"
if [ "$gpu" = t ]; then
  device_after=$(q "SELECT total_memory_mb - free_memory_mb FROM gpusel_device_info()")
  [ "$device_after" -le "$device_before" ] && ok "1,000 GPU queries left device memory flat (${device_before} MB in use, then ${device_after} MB)" \
    || fail "device memory grew: ${device_before} MB, then ${device_after} MB"
  q "DROP TABLE service_test_t" >/dev/null
fi

# With a GPU, parallel workers filter their own blocks on the device
# through the service, and the answers stay the CPU's
if [ "$gpu" = t ]; then
  q "CREATE TABLE service_par_t AS SELECT g AS id, g % 37 AS k, (g::int8 * 7919 % 100003) / 100003.0::float8 AS v FROM generate_series(1, 600001) g" >/dev/null
  q "ANALYZE service_par_t" >/dev/null
  par="-c gpusel.min_rows=0 -c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0 -c max_parallel_workers_per_gather=4 -c gpusel.explain_device_details=on"
  for shape in "SELECT k, count(*), sum(id), percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM service_par_t WHERE v < 0.7 GROUP BY k ORDER BY k" \
               "SELECT count(*), sum(id), min(v), max(v) FROM service_par_t WHERE v > 0.25 AND id % 3 <> 0"; do
    plan=$(PGOPTIONS="$par -c gpusel.device=gpu" psql -X -At -d "$db" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $shape" 2>&1)
    gpu_answer=$(PGOPTIONS="$par -c gpusel.device=gpu" psql -X -At -d "$db" -c "$shape")
    cpu_answer=$(PGOPTIONS="-c gpusel.device=cpu -c max_parallel_workers_per_gather=0" psql -X -At -d "$db" -c "$shape")
    echo "$plan" | grep -Eq "Workers on Device: [1-9]" \
      && ok "workers filtered on the device: $(echo "$plan" | grep -E 'Workers on Device|Rows Workers' | tr -s ' ' | paste -sd ' ')" \
      || fail "no worker on the device: $plan"
    [ -n "$gpu_answer" ] && [ "$gpu_answer" = "$cpu_answer" ] && ok "workers on the device answered as the CPU" \
      || fail "workers on the device answered '$gpu_answer', the CPU '$cpu_answer'"
  done
  q "DROP TABLE service_par_t" >/dev/null
fi

rm -f "$bystander_out" "$victim_out" "$script"
[ "$failures" = 0 ] && echo "service tests passed" || { echo "$failures service test(s) failed"; exit 1; }
