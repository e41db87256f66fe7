#!/usr/bin/env bash
# Percentiles over postgres_fdw partitions (GpuselShards), against the
# coordinator in PGHOST/PGPORT/PGUSER (a superuser; gpusel installed).
# Starts three throwaway shard servers on local ports (GPUSEL_SHARD_PORT,
# default 54331..54333; as the OS user SHARD_OS_USER when run as root,
# default gpusel_test), each with gpusel, and on the coordinator a table
# partitioned over them (three foreign partitions, an empty foreign one and
# a local one) beside a plain table with the same rows.
#
# Checks, each printing "ok: ..." or "FAIL: ...":
#   - every shape, in the three modes (defaults, JIT forced, plan_as_gpu),
#     answers through GpuselShards exactly what PostgreSQL answers over the
#     plain table with gpusel off, with one round and with many (a small
#     gpusel.shard_fetch_keys), the later rounds asking with fractions the
#     groups share and per group (gpusel.shard_round_fractions = 0);
#   - a LIMIT over grouped sums, and a local partition with row-level
#     security, keep PostgreSQL's plan;
#   - EXPLAIN ANALYZE shows the rounds, bytes and partition times;
#   - a shard raising an error ends the query with its error;
#   - a shard that is down ends the query with a connection error;
#   - cancel (statement_timeout) reaches the shard: its query stops.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
db=gpusel_shards
base_port=${GPUSEL_SHARD_PORT:-54331}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
tmp=$(mktemp -d /tmp/gpusel-shards.XXXXXX)
chmod 755 "$tmp"
runas=()
if [ "$(id -u)" = 0 ]; then
  user=${SHARD_OS_USER:-gpusel_test}
  id "$user" >/dev/null 2>&1 || useradd -M -s /bin/sh "$user"
  chown "$user" "$tmp"
  runas=(runuser -u "$user" --)
fi
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
shard_q() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$tmp" -p "$1" -U shard -d shard "${@:2}"; }

start_shard() {
  "${runas[@]}" "$bindir/pg_ctl" -D "$tmp/s$1" -l "$tmp/s$1.log" -w start \
    -o "-p $((base_port + $1 - 1)) -k $tmp -c listen_addresses= -c fsync=off" >/dev/null
}
stop_shards() {
  for i in 1 2 3; do
    [ -d "$tmp/s$i" ] && "${runas[@]}" "$bindir/pg_ctl" -D "$tmp/s$i" -m immediate stop >/dev/null 2>&1
  done
  psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap stop_shards EXIT

for i in 1 2 3; do
  "${runas[@]}" "$bindir/initdb" -D "$tmp/s$i" -A trust -U shard >"$tmp/initdb$i.log" 2>&1 \
    || { cat "$tmp/initdb$i.log"; echo "FAIL: initdb of shard $i"; exit 1; }
  start_shard "$i" || { cat "$tmp/s$i.log"; echo "FAIL: starting shard $i"; exit 1; }
  shard_q $((base_port + i - 1)) -d postgres -c "CREATE DATABASE shard" >/dev/null
  shard_q $((base_port + i - 1)) >/dev/null <<'SQL' || { echo "FAIL: shard $i setup"; exit 1; }
SET client_min_messages = warning;
CREATE EXTENSION gpusel;
CREATE TABLE m (s int4, id int8, g int4, k text, t timestamp, v float8, n numeric, i interval, w int4);
CREATE TABLE m_empty (LIKE m);
CREATE TABLE slow_rows (LIKE m);
INSERT INTO slow_rows SELECT 9, g, 1, 'a', '2020-01-01', g, g, '1 day', g FROM generate_series(1, 100000) g;
-- a view that fails on its rows, and one that takes its time over them
CREATE VIEW m_failing AS SELECT s, id, g, k, t, (1 / (w - w))::float8 AS v, n, i, w FROM m;
CREATE VIEW m_slow AS SELECT * FROM slow_rows WHERE pg_sleep(0.001) IS NOT NULL;
SQL
done

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || { echo "FAIL: coordinator database"; exit 1; }
q >/dev/null <<SQL || { echo "FAIL: coordinator setup"; exit 1; }
SET client_min_messages = warning;
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION gpusel;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp', port '$base_port', dbname 'shard');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp', port '$((base_port + 1))', dbname 'shard');
CREATE SERVER shard3 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp', port '$((base_port + 2))', dbname 'shard');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user 'shard');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (user 'shard');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard3 OPTIONS (user 'shard');
CREATE TABLE m (s int4, id int8, g int4, k text, t timestamp, v float8, n numeric, i interval, w int4)
  PARTITION BY LIST (s);
CREATE FOREIGN TABLE m1 PARTITION OF m FOR VALUES IN (1) SERVER shard1 OPTIONS (table_name 'm');
CREATE FOREIGN TABLE m2 PARTITION OF m FOR VALUES IN (2) SERVER shard2 OPTIONS (table_name 'm');
CREATE FOREIGN TABLE m3 PARTITION OF m FOR VALUES IN (3) SERVER shard3 OPTIONS (table_name 'm');
CREATE FOREIGN TABLE m5 PARTITION OF m FOR VALUES IN (5) SERVER shard3 OPTIONS (table_name 'm_empty');
CREATE TABLE m4 PARTITION OF m FOR VALUES IN (4);
-- the same rows in one plain table: PostgreSQL's answers
CREATE TABLE m_all (LIKE m);
INSERT INTO m_all
SELECT 1 + x % 4, x,
       CASE WHEN x % 53 = 0 THEN NULL ELSE x % 7 END,
       CASE WHEN x % 61 = 0 THEN NULL ELSE chr(97 + x % 5) || (x % 3) END,
       timestamp '2020-01-01' + (x * 7919 % 100000) * interval '1 minute',
       CASE x % 97 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
                   WHEN 4 THEN '-0' WHEN 5 THEN 0 ELSE ((x * 2654435761) % 100003)::float8 / 8 END,
       CASE x % 89 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' ELSE ((x * 40503) % 10007)::numeric / 100 END,
       ((x * 7) % 1000) * interval '1 second' + (x % 3) * interval '1 day',
       CASE WHEN x % 41 = 0 THEN NULL ELSE (x * 31) % 1000 END
FROM generate_series(1, 20011) x;
-- groups of their own: all equal, one row, one partition only, duplicates straddling
INSERT INTO m_all SELECT 1 + x % 4, 100000 + x, 100, 'eq', '2021-01-01', 42, 42, '1 hour', 1 FROM generate_series(1, 3001) x;
INSERT INTO m_all VALUES (2, 200000, 101, 'one', '2021-01-02', 7.5, 7.5, '2 hours', 2);
INSERT INTO m_all SELECT 3, 300000 + x, 102, 'solo', '2021-01-03', x % 10, x % 10, x * interval '1 s', x FROM generate_series(1, 999) x;
INSERT INTO m_all SELECT 1 + x % 4, 400000 + x, 103, 'dup', '2021-01-04', (x % 3)::float8, x % 3, (x % 3) * interval '1 s', x % 3 FROM generate_series(1, 5000) x;
INSERT INTO m SELECT * FROM m_all;
ANALYZE m_all;
SQL

# GPUSEL_SHARD_KEEP=1: leave the servers and data for a look by hand
if [ "${GPUSEL_SHARD_KEEP:-0}" = 1 ]; then
  trap - EXIT
  echo "kept: shards in $tmp, database $db"
  exit 0
fi

# PostgreSQL's answer over the plain table, with gpusel off
oracle() {
  local sql="$1 "
  q -c "SET gpusel.enable_scan = off" -c "SET gpusel.enable_shards = off" \
    -c "SET gpusel.replace_builtin_percentiles = off" -c "${sql//FROM m /FROM m_all }"
}
# the sharded plan's answer, and whether the plan was GpuselShards
sharded() {
  q -c "SET gpusel.force_groupagg = on" -c "SET gpusel.shard_fetch_keys = $2" \
    -c "SET gpusel.shard_round_fractions = $3" -c "$1"
}
plan_of() {
  q -c "SET gpusel.force_groupagg = on" -c "EXPLAIN (COSTS OFF) $1" | grep -c GpuselShards
}

shapes=(
  "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) + 0 FROM m"
  "SELECT g, count(*), count(v), sum(w), avg(w), min(v), max(v), percentile_disc(ARRAY[0, 0.1, 0.5, 0.9, 1]) WITHIN GROUP (ORDER BY v) FROM m GROUP BY g ORDER BY g"
  "SELECT g, percentile_cont(ARRAY[0, 0.25, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY v) FROM m GROUP BY g ORDER BY g"
  "SELECT g, percentile_disc(0.3) WITHIN GROUP (ORDER BY v DESC) + 0, percentile_cont(0.7) WITHIN GROUP (ORDER BY v DESC) FROM m GROUP BY g ORDER BY g"
  "SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY w), percentile_cont(0.5) WITHIN GROUP (ORDER BY i), count(*) FROM m WHERE v > 10 AND k <> 'a0' AND t >= '2020-01-15' GROUP BY k ORDER BY k"
  "SELECT g, percentile_disc(ARRAY[0.5, NULL, 0.99]) WITHIN GROUP (ORDER BY n), sum(n), avg(n), min(n), max(k) FROM m GROUP BY g ORDER BY g"
  "SELECT date_trunc('day', t) d, percentile_disc(0.9) WITHIN GROUP (ORDER BY id), avg(v::numeric(20,3)) FROM m WHERE g IN (100, 101, 102, 103) GROUP BY 1 ORDER BY 1"
  "SELECT g, k, gpu_percentile(0.5) WITHIN GROUP (ORDER BY v) + 0, gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY w) FROM m WHERE g >= 100 GROUP BY g, k ORDER BY g, k"
  "SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM m GROUP BY g HAVING count(*) > 1000 ORDER BY g"
  "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v), count(*), sum(w) FROM m WHERE w > 5000"
  "SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM m WHERE w > 5000 GROUP BY g"
  "SELECT s, percentile_disc(0.5) WITHIN GROUP (ORDER BY k) FROM m WHERE s IN (3, 4, 5) GROUP BY s ORDER BY s"
  "SELECT g, percentile_disc(0.25) WITHIN GROUP (ORDER BY v) + 0, max(t) FROM m GROUP BY g ORDER BY g LIMIT 3"
)

declare -A mode_options=(
  [default]=""
  [jit]="-c jit=on -c jit_above_cost=0 -c jit_inline_above_cost=0 -c jit_optimize_above_cost=0"
  [plan_as_gpu]="-c gpusel.plan_as_gpu=on -c gpusel.min_rows=0"
)
base_options="${PGOPTIONS:-}"
for mode in default jit plan_as_gpu; do
  export PGOPTIONS="$base_options ${mode_options[$mode]}"
  passed=0
  for shape in "${shapes[@]}"; do
    want=$(oracle "$shape" 2>&1)
    if [ "$(plan_of "$shape")" != 1 ]; then
      fail "$mode: not planned as GpuselShards: $shape"
      continue
    fi
    # one round fetching all; narrowing rounds with shared fractions; and per group
    for config in "32768 65536" "4 65536" "4 0"; do
      got=$(sharded "$shape" $config 2>&1)
      if [ "$got" = "$want" ]; then
        passed=$((passed + 1))
      else
        fail "$mode, shard_fetch_keys and shard_round_fractions $config: $shape"
        diff <(echo "$want") <(echo "$got") | grep "^>" | head -5
      fi
    done
  done
  ok "$mode: $passed of $((3 * ${#shapes[@]})) answers equal PostgreSQL's"
done
export PGOPTIONS="$base_options"

# under a LIMIT, sums (which may overflow in a group PostgreSQL's plan never reaches) keep its plan
limited=$(plan_of "SELECT g, sum(v), percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM m GROUP BY g ORDER BY g LIMIT 2")
[ "$limited" = 0 ] && ok "a LIMIT over groups with sums keeps PostgreSQL's plan" \
  || fail "a LIMIT over groups with sums was planned as GpuselShards"

# a local partition with row-level security enabled is not read by name
q >/dev/null <<'SQL'
CREATE TABLE m_rls (LIKE m) PARTITION BY LIST (s);
CREATE FOREIGN TABLE m_rls1 PARTITION OF m_rls FOR VALUES IN (1) SERVER shard1 OPTIONS (table_name 'm');
CREATE TABLE m_rls4 PARTITION OF m_rls FOR VALUES IN (4);
ALTER TABLE m_rls4 ENABLE ROW LEVEL SECURITY;
SQL
[ "$(plan_of "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM m_rls")" = 0 ] \
  && ok "a local partition with row-level security keeps PostgreSQL's plan" \
  || fail "a local partition with row-level security was planned as GpuselShards"

explain=$(q -c "SET gpusel.force_groupagg = on" -c "SET gpusel.shard_fetch_keys = 4" \
  -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM m GROUP BY g")
rounds=$(echo "$explain" | sed -n 's/.*Rounds: \([0-9]*\).*/\1/p')
bytes=$(echo "$explain" | sed -n 's/.*Bytes Received: \([0-9]*\).*/\1/p')
if [ "${rounds:-0}" -ge 3 ] && [ "${bytes:-0}" -gt 0 ] && echo "$explain" | grep -q "Partition Times: m1 "; then
  ok "EXPLAIN ANALYZE: $rounds rounds, $bytes bytes received, partition times shown"
else
  fail "EXPLAIN ANALYZE lacks rounds, bytes or times: $explain"
fi

q >/dev/null <<'SQL'
CREATE TABLE m_err (LIKE m) PARTITION BY LIST (s);
CREATE FOREIGN TABLE m_err1 PARTITION OF m_err FOR VALUES IN (1) SERVER shard1 OPTIONS (table_name 'm');
CREATE FOREIGN TABLE m_err2 PARTITION OF m_err FOR VALUES IN (2) SERVER shard2 OPTIONS (table_name 'm_failing');
CREATE TABLE m_slow (LIKE m) PARTITION BY LIST (s);
CREATE FOREIGN TABLE m_slow1 PARTITION OF m_slow FOR VALUES IN (9) SERVER shard1 OPTIONS (table_name 'm_slow');
SQL
err=$(q -c "SET gpusel.force_groupagg = on" -c "\\set VERBOSITY verbose" \
  -c "SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM m_err GROUP BY g" 2>&1)
if echo "$err" | grep -q "22012" && echo "$err" | grep -q "division by zero"; then
  ok "a shard's error ends the query with it (22012 division by zero)"
else
  fail "a shard's error: $err"
fi

"${runas[@]}" "$bindir/pg_ctl" -D "$tmp/s3" -m fast stop >/dev/null
err=$(q -c "SET gpusel.force_groupagg = on" -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM m" 2>&1)
if echo "$err" | grep -q 'could not connect to server "shard3"'; then
  ok "a shard that is down ends the query: $(echo "$err" | head -1)"
else
  fail "a shard that is down: $err"
fi
start_shard 3

err=$(q -c "SET gpusel.force_groupagg = on" -c "SET statement_timeout = '1s'" \
  -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM m_slow" 2>&1)
sleep 1
active=$(shard_q "$base_port" -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%m_slow%' AND state = 'active' AND pid <> pg_backend_pid()")
if echo "$err" | grep -q "canceling statement due to statement timeout" && [ "$active" = 0 ]; then
  ok "cancel reaches the shard: the query ended there too"
else
  fail "cancel: '$err', shard queries still active: $active"
fi

[ $failed = 0 ] && echo "shard tests passed"
exit $failed
