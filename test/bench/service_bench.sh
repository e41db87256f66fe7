#!/usr/bin/env bash
# The first GPU query of a new connection, through the GPU service and on
# the per-backend path, in the same run: N connections (default 200) each
# open, run one filtered count on the GPU, and close.  Prints the median
# and worst query time and connection time of each path, and their ratio.
# The query runs serially: under Gather the GPU path is the leader's alone.
#
#   bash test/bench/service_bench.sh [N] [ROWS]
#
# Needs the server of PGHOST/PGPORT/PGUSER to run as the OS user in
# GPUSEL_PG_OSUSER (default pg) with its data directory in PGDATA
# (default /tmp/pgdata): it sets shared_preload_libraries = gpusel with
# ALTER SYSTEM and restarts the server with gpusel.service on, then off,
# and leaves it on.
set -uo pipefail
n=${1:-200}
rows=${2:-1000000}
osuser=${GPUSEL_PG_OSUSER:-pg}
data=${PGDATA:-/tmp/pgdata}
bindir=$(dirname "$(command -v pg_ctl)")

# restarts the server with gpusel preloaded and gpusel.service = $1 (gpusel
# defines that parameter only when it is preloaded)
restart_with() {
  if [ "$(psql -X -At -c 'SHOW shared_preload_libraries')" != gpusel ]; then
    psql -X -q -c "ALTER SYSTEM SET shared_preload_libraries = gpusel" || return 1
    su "$osuser" -c "$bindir/pg_ctl -D $data -w restart" >/dev/null || return 1
  fi
  psql -X -q -c "ALTER SYSTEM SET gpusel.service = $1" || return 1
  su "$osuser" -c "$bindir/pg_ctl -D $data -w restart" >/dev/null || return 1
  # the service's device process probes the GPU after the postmaster is up
  for _ in $(seq 1 100); do
    psql -X -At -c "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.1
  done
}

# one path: N connections, each timing its one GPU query
run_path() {
  local label=$1 times conns warm out
  times=$(mktemp); conns=$(mktemp); warm=$(mktemp); out=$(mktemp)
  for i in $(seq 1 "$n"); do
    local start end
    start=$(date +%s%N)
    PGOPTIONS="-c gpusel.device=gpu -c max_parallel_workers_per_gather=0" psql -X -At -c '\timing on' \
      -c "SELECT count(*) FROM svc_bench WHERE v < 0.25" -c "SELECT count(*) FROM svc_bench WHERE v < 0.25" >"$out" 2>&1
    grep -q ERROR "$out" && { cat "$out"; return 1; }
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$out" | sed -n 1p >>"$times"
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$out" | sed -n 2p >>"$warm"
    end=$(date +%s%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", (b - a) / 1000000 }' >>"$conns"
  done
  printf '%-12s first query median %8.2f ms  worst %8.2f ms; second query median %8.2f ms; connection median %8.2f ms  worst %8.2f ms  (%d connections)\n' \
    "$label" "$(sort -n "$times" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" "$(sort -n "$times" | tail -1)" \
    "$(sort -n "$warm" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "$(sort -n "$conns" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" "$(sort -n "$conns" | tail -1)" \
    "$(wc -l <"$times")"
  sort -n "$times" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' >"/tmp/svc_median_$label"
  rm -f "$times" "$conns" "$warm" "$out"
}

psql -X -q -c "DROP TABLE IF EXISTS svc_bench" \
  -c "CREATE TABLE svc_bench AS SELECT g AS id, random() AS v FROM generate_series(1, $rows) g" \
  -c "VACUUM ANALYZE svc_bench" || exit 1
psql -X -q -c "CREATE EXTENSION IF NOT EXISTS gpusel" || exit 1

restart_with on || exit 1
for _ in $(seq 1 100); do
  [ "$(psql -X -At -c "SELECT state FROM gpusel_service")" = up ] && break
  sleep 0.1
done
psql -X -At -c "SELECT state, devices, device_name FROM gpusel_service"
run_path service || exit 1
psql -X -At -c "SELECT 'service: ' || requests_done || ' requests, ' || errors || ' errors, ' || connections || ' connections open' FROM gpusel_service"

restart_with off || exit 1
run_path per-backend || exit 1

awk -v a="$(cat /tmp/svc_median_per-backend)" -v b="$(cat /tmp/svc_median_service)" \
  'BEGIN { printf "first GPU query in a new connection, median: per-backend / service = %.1fx\n", a / b }'
restart_with on
