#!/usr/bin/env bash
# Percentiles over postgres_fdw shards: GpuselShards beside PostgreSQL's own
# plan (every row fetched to the coordinator), the same run, same answers.
#
#   bash test/bench/shard_bench.sh [rows per shard] [shards]
#
# Against the coordinator in PGHOST/PGPORT/PGUSER (a superuser, gpusel
# installed).  Starts the shard servers on local ports (GPUSEL_SHARD_PORT,
# default 54341 and up; as SHARD_OS_USER when root, default gpusel_test),
# each with gpusel and the GPU service preloaded; GPUSEL_BENCH_GPUS="0 1"
# binds shard i to GPU i mod 2 through CUDA_VISIBLE_DEVICES.  Each shard holds
# a table of (g int4: 100 groups, v float8); the coordinator's table is
# partitioned over them, with postgres_fdw's fetch_size at 10000 for
# PostgreSQL's plan.  Prints, for a percentile per group (3 fractions):
# PostgreSQL's time, gpusel's time (each the best of its runs in one session)
# and their ratio, the rounds, and the bytes the coordinator received per
# group and fraction.
#   GPUSEL_BENCH_GPUS_ALT="0 1"   then restart the shards on those GPUs and time
#                                 gpusel again, beside the first binding
#   GPUSEL_BENCH_SKIP_PG=1        leave out PostgreSQL's plan (minutes at 25M rows)
#   GPUSEL_SHARD_LOG_MS=1000      print the shards' statements that took that long
#   GPUSEL_BENCH_PG_REPS=1        time PostgreSQL's plan this many times (default: reps)
#   GPUSEL_BENCH_CACHE=1          each shard keeps its table in gpusel's column
#                                 cache (device memory with the GPU service), so
#                                 the shards' rounds read columns, not the heap
set -uo pipefail
rows=${1:-25000000}
nshards=${2:-4}
reps=${GPUSEL_BENCH_REPS:-3}
gpus=(${GPUSEL_BENCH_GPUS:-})
base_port=${GPUSEL_SHARD_PORT:-54341}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
db=gpusel_shard_bench
tmp=$(mktemp -d /tmp/gpusel-shard-bench.XXXXXX)
chmod 755 "$tmp"
runas=()
if [ "$(id -u)" = 0 ]; then
  user=${SHARD_OS_USER:-gpusel_test}
  id "$user" >/dev/null 2>&1 || useradd -M -s /bin/sh "$user"
  chown "$user" "$tmp"
  runas=(runuser -u "$user" --)
fi
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
shard_q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$tmp" -p "$1" -U shard -d shard "${@:2}"; }
cleanup() {
  for i in $(seq 1 "$nshards"); do
    [ -d "$tmp/s$i" ] && "${runas[@]}" "$bindir/pg_ctl" -D "$tmp/s$i" -m immediate stop >/dev/null 2>&1
  done
  psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
q -c "CREATE EXTENSION postgres_fdw" -c "CREATE EXTENSION gpusel" \
  -c "CREATE TABLE m (s int4, g int4, v float8) PARTITION BY LIST (s)" >/dev/null
for i in $(seq 1 "$nshards"); do
  port=$((base_port + i - 1))
  env=()
  [ ${#gpus[@]} -gt 0 ] && env=(env CUDA_VISIBLE_DEVICES=${gpus[$(((i - 1) % ${#gpus[@]}))]})
  "${runas[@]}" "$bindir/initdb" -D "$tmp/s$i" -A trust -U shard >/dev/null 2>&1 || { echo "initdb failed"; exit 1; }
  "${runas[@]}" "${env[@]}" "$bindir/pg_ctl" -D "$tmp/s$i" -l "$tmp/s$i.log" -w start \
    -o "-p $port -k $tmp -c listen_addresses= -c fsync=off -c shared_buffers=${GPUSEL_SHARD_SHARED_BUFFERS:-2GB} -c work_mem=256MB -c max_worker_processes=24 -c max_parallel_workers=16 -c max_parallel_workers_per_gather=4 -c shared_preload_libraries=gpusel -c log_min_duration_statement=${GPUSEL_SHARD_LOG_MS:--1}" >/dev/null \
    || { cat "$tmp/s$i.log"; exit 1; }
  shard_q $port -d postgres -c "CREATE DATABASE shard" >/dev/null
  q -c "CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp', port '$port', dbname 'shard', fetch_size '10000')" \
    -c "CREATE USER MAPPING FOR CURRENT_USER SERVER shard$i OPTIONS (user 'shard')" \
    -c "CREATE FOREIGN TABLE m$i PARTITION OF m FOR VALUES IN ($i) SERVER shard$i OPTIONS (table_name 'm')" >/dev/null
done
start=$(date +%s)
for i in $(seq 1 "$nshards"); do
  shard_q $((base_port + i - 1)) -c "CREATE EXTENSION gpusel" \
    -c "CREATE UNLOGGED TABLE m (s int4, g int4, v float8)" \
    -c "INSERT INTO m SELECT $i, x % 100, random() * 1000 FROM generate_series(1, $rows) x" \
    -c "VACUUM ANALYZE m" >/dev/null &
done
wait
# each shard's table cached (again after every restart: the cache is in memory)
cache_shards() {
  [ "${GPUSEL_BENCH_CACHE:-0}" = 1 ] || return 0
  for i in $(seq 1 "$nshards"); do
    # a service still starting would leave the table in shared memory only
    ( for _ in $(seq 1 100); do
        [ "$(shard_q $((base_port + i - 1)) -c "SELECT state FROM gpusel_service" 2>/dev/null)" = up ] && break
        sleep 0.1
      done
      shard_q $((base_port + i - 1)) -c "SELECT gpusel_cache('m')" >/dev/null ) &
  done
  wait
  printf "shards' tables cached:"
  for i in $(seq 1 "$nshards"); do
    printf ' %s' "$(shard_q $((base_port + i - 1)) -c "SELECT rows || ' rows, ' || pg_size_pretty(bytes) || ' (device ' || pg_size_pretty(device_bytes) || ')' FROM gpusel_cached_tables")"
  done
  echo
}
cache_shards
# the planner needs the partitions' sizes: postgres_fdw samples them remotely
q -c "ANALYZE m" >/dev/null
echo "$nshards shards of $rows rows loaded in $(( $(date +%s) - start )) s"
[ ${#gpus[@]} -gt 0 ] && echo "shards bound to GPUs: ${gpus[*]}"

# GPUSEL_SHARD_KEEP=1: leave the servers and data for a look by hand
if [ "${GPUSEL_SHARD_KEEP:-0}" = 1 ]; then
  trap - EXIT
  echo "kept: shards in $tmp, database $db"
  exit 0
fi

query="SELECT g, percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY v) FROM m GROUP BY g ORDER BY g"
# best of reps, in ms, of the query under settings
# in one session, as an application keeps its connection: the first run also
# connects to the shards (and they to their GPU services)
best() {
  local settings=$1 out=$2 log=$tmp/best.log t
  { echo "$settings"; echo '\timing on'; for _ in $(seq 1 "$reps"); do echo "$query \\g $out"; done; } \
    | psql -X -q -v ON_ERROR_STOP=1 -d "$db" > "$log" 2>&1
  t=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$log" | sort -g | head -1)
  [ -n "$t" ] || { echo "the query failed:" >&2; cat "$log" >&2; return 1; }
  echo "$t"
}
# nvidia-smi's share of time each GPU ran a kernel, sampled while gpusel is
# timed: whether the GPUs are what the rounds wait for
util_start() {
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 50 > "$tmp/util.$1" 2>/dev/null &
  util_pid=$!
}
util_stop() {
  [ -n "${util_pid:-}" ] || return 0
  kill "$util_pid" 2>/dev/null; wait "$util_pid" 2>/dev/null; util_pid=
}
util_report() {
  [ -f "$tmp/util.$1" ] || return 0
  awk -F', *' '{ s[$1] += $2; n[$1]++ } END { for (g in s) printf "GPU %s busy %.0f%%  ", g, s[g] / n[g] }' "$tmp/util.$1"
}
# starts shard i (bound to the GPUs of the list in $2, if any); restart with $3
shard_ctl() {
  local i=$1 list=($2) env=()
  [ ${#list[@]} -gt 0 ] && env=(env CUDA_VISIBLE_DEVICES=${list[$(((i - 1) % ${#list[@]}))]})
  "${runas[@]}" "${env[@]}" "$bindir/pg_ctl" -D "$tmp/s$i" -l "$tmp/s$i.log" -w "$3" \
    -o "-p $((base_port + i - 1)) -k $tmp -c listen_addresses= -c fsync=off -c shared_buffers=${GPUSEL_SHARD_SHARED_BUFFERS:-2GB} -c work_mem=256MB -c max_worker_processes=24 -c max_parallel_workers=16 -c max_parallel_workers_per_gather=4 -c shared_preload_libraries=gpusel -c log_min_duration_statement=${GPUSEL_SHARD_LOG_MS:--1}" >/dev/null
}
if [ "${GPUSEL_BENCH_SKIP_PG:-0}" = 1 ]; then
  pg_ms=
else
  pg_ms=$(reps=${GPUSEL_BENCH_PG_REPS:-$reps} best "SET gpusel.enable_shards = off; SET gpusel.replace_builtin_percentiles = off;" "$tmp/pg.out") || exit 1
fi
util_start first
gs_ms=$(best "" "$tmp/gs.out") || exit 1
util_stop
gs_util=$(util_report first)
[ -n "$pg_ms" ] || cp "$tmp/gs.out" "$tmp/pg.out"
same=$(cmp -s "$tmp/pg.out" "$tmp/gs.out" && echo same || echo DIFFERENT)
plan=$(q -c "EXPLAIN (ANALYZE, COSTS OFF) $query")
rounds=$(echo "$plan" | sed -n 's/.*Rounds: \([0-9]*\).*/\1/p')
bytes=$(echo "$plan" | sed -n 's/.*Bytes Received: \([0-9]*\).*/\1/p')
echo "$plan" | head -12 | sed "s/^/  /"
# with GPUSEL_SHARD_LOG_MS: each shard's statements that took at least that long
if [ -n "${GPUSEL_SHARD_LOG_MS:-}" ]; then
  for i in $(seq 1 "$nshards"); do
    echo "shard $i:"; grep -o "duration: [0-9.]* ms  statement: .\{0,60\}" "$tmp/s$i.log" | tail -6
  done
fi
printf 'percentile per group (100 groups, 3 fractions), %d x %d rows\n' "$nshards" "$rows"
if [ -n "$pg_ms" ]; then
  printf '  PostgreSQL (rows fetched): %10.1f ms\n' "$pg_ms"
  printf '  gpusel (rounds):           %10.1f ms   %.1fx faster, answers %s\n' "$gs_ms" \
    "$(awk -v a="$pg_ms" -v b="$gs_ms" 'BEGIN { print a / b }')" "$same"
else
  printf '  gpusel (rounds):           %10.1f ms   (PostgreSQL not run)\n' "$gs_ms"
fi
[ -n "$gs_util" ] && echo "  while gpusel ran: $gs_util"
printf '  rounds %s, bytes received %s, %.0f bytes per group and fraction\n' "${rounds:-?}" "${bytes:-?}" \
  "$(awk -v b="${bytes:-0}" 'BEGIN { print b / 300 }')"

# GPUSEL_BENCH_GPUS_ALT="0 1": the shards restarted on those GPUs, timed again
if [ -n "${GPUSEL_BENCH_GPUS_ALT:-}" ]; then
  for i in $(seq 1 "$nshards"); do shard_ctl "$i" "$GPUSEL_BENCH_GPUS_ALT" restart || exit 1; done
  cache_shards
  util_start alt
  alt_ms=$(best "" "$tmp/alt.out") || exit 1
  util_stop
  alt_util=$(util_report alt)
  alt_same=$(cmp -s "$tmp/gs.out" "$tmp/alt.out" && echo same || echo DIFFERENT)
  printf '  gpusel, shards on GPUs %s: %10.1f ms   %.2fx the first binding (%s), answers %s\n' \
    "$GPUSEL_BENCH_GPUS_ALT" "$alt_ms" "$(awk -v a="$gs_ms" -v b="$alt_ms" 'BEGIN { print a / b }')" \
    "${GPUSEL_BENCH_GPUS:-all GPUs visible}" "$alt_same"
  [ -n "$alt_util" ] && echo "  while gpusel ran: $alt_util"
fi
# with GPUSEL_BENCH_CACHE: whether the shards' rounds read their caches
if [ "${GPUSEL_BENCH_CACHE:-0}" = 1 ]; then
  printf "  shards' cache hits:"
  for i in $(seq 1 "$nshards"); do printf ' %s' "$(shard_q $((base_port + i - 1)) -c "SELECT hits FROM gpusel_cached_tables")"; done
  echo
fi
