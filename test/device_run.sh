#!/usr/bin/env bash
# GPU machine only (the device tool), from the repository root, with the
# extension staged by `make install DESTDIR=$PWD/.device/stage` and the
# kernel binaries built in test/kernel/bin (run_all.sh adds the upgrade
# suite's test/fixtures to the server's install).  Phases: tests, bench (default both).
#   bash test/device_run.sh tests|kernels|suites|service|bench|groupbench|spillbench|parbench|tpch|profile|all
# With PG_EXTRA_OPTS="-c shared_preload_libraries=gpusel" the server runs the
# GPU service, and every phase goes through it.
set -uo pipefail
phase=${1:-all}
out=${OUT:-/tmp/gpusel-out}
mkdir -p "$out"
bash .device/pg-device-up.sh .device/stage >/dev/null || exit 1
source /tmp/pgenv
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0

if [ "$phase" = suites ]; then
  GPUSEL_TEST_EXISTING=1 GPUSEL_TEST_DEVICE=gpu GPUSEL_TEST_KERNELS=0 bash test/run_all.sh >"$out/suites.log" 2>&1 || status=1
  grep -E "^(ok|not ok)|tests passed|failed|FAILED|passed|Result|SKIP" "$out/suites.log" | tail -25
fi

if [ "$phase" = service ]; then
  # needs PG_EXTRA_OPTS="-c shared_preload_libraries=gpusel"
  echo "== GPU service: answers through the service beside the CPU's"
  psql -X -q -c "CREATE EXTENSION IF NOT EXISTS gpusel" \
    -c "CREATE TABLE svc_t AS SELECT g AS id, g % 1000 AS k, random() AS v, (random() * 1e6)::int AS n FROM generate_series(1, 3000000) g" \
    -c "VACUUM ANALYZE svc_t" || status=1
  for _ in $(seq 1 100); do [ "$(psql -X -At -c 'SELECT state FROM gpusel_service')" = up ] && break; sleep 0.1; done
  psql -X -c "SELECT state, devices, device_name, staging_mb FROM gpusel_service" -c "SELECT * FROM gpusel_service_devices()"
  for qry in "SELECT count(*), sum(n) FROM svc_t WHERE v < 0.3 AND n > 1000" \
             "SELECT md5(string_agg(k || ':' || p, ',' ORDER BY k)) FROM (SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) AS p FROM svc_t GROUP BY k) s" \
             "SELECT gpu_percentile(ARRAY[0.01, 0.5, 0.99]) WITHIN GROUP (ORDER BY n) FROM svc_t" \
             "SELECT md5(string_agg(k || ':' || c || ':' || s, ',' ORDER BY k)) FROM (SELECT k, count(*) c, sum(n) s FROM svc_t WHERE v < 0.5 GROUP BY k) s"; do
    gpu=$(PGOPTIONS="-c gpusel.device=gpu -c gpusel.min_rows=0" psql -X -At -c "$qry")
    cpu=$(PGOPTIONS="-c gpusel.device=cpu" psql -X -At -c "$qry")
    [ "$gpu" = "$cpu" ] && echo "same: $qry" || { echo "DIFFERENT: $qry: gpu '$gpu' cpu '$cpu'"; status=1; }
  done
  psql -X -At -c "SET gpusel.device = gpu" -c "SET max_parallel_workers_per_gather = 0" \
    -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM svc_t WHERE v < 0.3 AND n > 1000" | grep -E "Scan|Device|Service|Time"
  psql -X -c "SELECT requests_done, errors, restarts, staging_in_use_mb, last_error FROM gpusel_service"
  echo "== GPU service: failure handling"
  bash test/service_test.sh postgres || status=1
  echo "== GPU service: first GPU query of ${GPUSEL_BENCH_CONNECTIONS:-200} new connections"
  bash test/bench/service_bench.sh "${GPUSEL_BENCH_CONNECTIONS:-200}" || status=1
fi

if [ "$phase" = tests ] || [ "$phase" = kernels ] || [ "$phase" = all ]; then
  echo "== kernel tests"
  for t in test/kernel/bin/select_test test/kernel/bin/filter_test test/kernel/bin/groupsort_test \
           test/kernel/bin/groupbatch_test test/kernel/bin/batchsum_test; do
    [ -x "$t" ] && { "$t" --quick 2>&1 | tail -3 || status=1; }
  done
fi

if [ "$phase" = tests ] || [ "$phase" = all ]; then
  echo "== SQL suites with gpusel.device = gpu, gpusel.min_rows = 0"
  GPUSEL_TEST_EXISTING=1 GPUSEL_TEST_DEVICE=gpu GPUSEL_TEST_KERNELS=0 bash test/run_all.sh >"$out/suites.log" 2>&1 || status=1
  grep -E "^(ok|not ok)|tests passed|failed|FAILED|passed|Result|SKIP" "$out/suites.log" | tail -25
  echo "== leak check"
  bash test/gpu_leak_check.sh 2>&1 | tail -5 || status=1
  echo "== input over 1 GB of keys (150M int8, reverse-sorted)"
  psql -X -At -c "SET work_mem = '12GB'" -c "SET gpusel.device = gpu" -c '\timing on' \
    -c "SELECT gpu_percentile(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY 150000001 - g) = '{1,75000000,150000000}' AS exact FROM generate_series(1::int8, 150000000) g" \
    -c "SELECT gpu_selections, gpu_fallbacks FROM gpusel_stats()" 2>&1 | tail -4
fi

if [ "$phase" = groupbench ] || [ "$phase" = all ]; then
  echo "== grouped scan benchmark (${GPUSEL_BENCH_ROWS:-20000000} rows)"
  psql -X -v rows="${GPUSEL_BENCH_ROWS:-20000000}" -f test/bench/groupagg_bench.sql >"$out/groupbench.log" 2>&1 || status=1
  tail -90 "$out/groupbench.log"
fi

if [ "$phase" = spillbench ] || [ "$phase" = all ]; then
  echo "== grouped percentile keys past work_mem (${GPUSEL_SPILL_ROWS:-5000000} rows)"
  psql -X -v rows="${GPUSEL_SPILL_ROWS:-5000000}" -f test/bench/spill_bench.sql >"$out/spillbench.log" 2>&1 || status=1
  tail -12 "$out/spillbench.log"
fi

if [ "$phase" = parbench ] || [ "$phase" = all ]; then
  echo "== parallel feeding benchmark (${GPUSEL_BENCH_ROWS:-20000000} rows, ${GPUSEL_BENCH_WORKERS:-8} workers)"
  bash test/bench/parallel_bench.sh "${GPUSEL_BENCH_ROWS:-20000000}" "${GPUSEL_BENCH_WORKERS:-8}" >"$out/parbench.log" 2>&1 || status=1
  tail -60 "$out/parbench.log"
fi

if [ "$phase" = tpch ]; then
  # TPC-H lineitem at SF GPUSEL_TPCH_SF (default 2; about 1.8 GB at SF 2),
  # generated by tpchgen-cli from the wheel in .whl (this machine has no
  # network: the run call must carry .whl along with .device; see
  # tpch_bench.sh for the pip download that fetches it).  The load is
  # skipped when the server already holds lineitem at that SF.  At SF 2 the
  # 20 sessions of 1 + 3 runs may near the 10 minutes of one command:
  # GPUSEL_BENCH_REPS=1 or GPUSEL_TPCH_SF=1 then.
  echo "== TPC-H benchmark (SF ${GPUSEL_TPCH_SF:-2}, ${GPUSEL_BENCH_WORKERS:-8} workers)"
  bash test/bench/tpch_bench.sh "${GPUSEL_TPCH_SF:-2}" "${GPUSEL_BENCH_WORKERS:-8}" >"$out/tpch.log" 2>&1 || status=1
  # the figures and the answers' check; of the plans, the scans, their
  # filters and times (the whole plans are in the log); then the GB/s
  sed -n '1,/^== Q1 under/p' "$out/tpch.log" | grep -v '^== Q1 under'
  sed -n '/^== Q1 under/,/^== table bytes per second/p' "$out/tpch.log" |
    grep -E '^== |Scan|Filter|Execution Time' | grep -v '^== table bytes'
  sed -n '/^== table bytes per second/,$p' "$out/tpch.log"
fi

if [ "$phase" = profile ]; then
  # where a serial shape's time goes on the GPU path: EXPLAIN ANALYZE, and
  # perf's flat profile of the backend where perf is installed
  rows=${GPUSEL_BENCH_ROWS:-20000000}
  query=${GPUSEL_PROFILE_QUERY:-SELECT row(percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*), avg(y)) FROM bench_t}
  psql -X -q -v rows="$rows" >"$out/profile.log" 2>&1 <<SQL
CREATE EXTENSION IF NOT EXISTS gpusel;
CREATE UNLOGGED TABLE IF NOT EXISTS bench_t AS
SELECT i::int8 AS id, random() AS x, random() * 1000 - 500 AS y, (random() * 1e6)::int4 AS k,
       (random() * 1e12)::int8 AS j, random()::float4 AS f, date '2000-01-01' + (i % 9000)::int AS d,
       (i % 101)::int4 AS grp
FROM generate_series(1, :rows) i;
VACUUM ANALYZE bench_t;
SQL
  settings="LOAD 'gpusel'; SET max_parallel_workers_per_gather = 0; SET gpusel.device = gpu; SET gpusel.min_rows = 0; SET gpusel.explain_device_details = on;"
  for dev in gpu cpu; do
    echo "-- $dev path"
    psql -X -c "$settings SET gpusel.device = $dev" -c '\timing on' -c "$query" -c "$query" -c "$query" 2>&1 | grep Time
  done
  psql -X -c "$settings" -c "EXPLAIN (ANALYZE, COSTS OFF, BUFFERS) $query" 2>&1 | tee -a "$out/profile.log"
  if command -v perf >/dev/null; then
    (printf '%s\n%s\n\\watch 0.01\n' "$settings" "$query" | PGAPPNAME=prof timeout 20 psql -X >/dev/null 2>&1 &)
    sleep 4
    pid=$(psql -X -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'prof'")
    perf record -g -p "$pid" -o "$out/perf.data" -- sleep 8 >/dev/null 2>&1
    perf report -i "$out/perf.data" --no-children -g none --sort dso,sym 2>/dev/null | grep -v '^#' | head -40
  else
    echo "perf: not installed"
  fi
fi

if [ "$phase" = bench ] || [ "$phase" = all ]; then
  echo "== SQL benchmark (20M rows)"
  psql -X -v rows="${GPUSEL_BENCH_ROWS:-20000000}" -f test/bench/percentile_bench.sql >"$out/bench.log" 2>&1 || status=1
  tail -22 "$out/bench.log"
  echo "== SQL scan benchmark"
  psql -X -f test/bench/scan_bench.sql >"$out/scan_bench.log" 2>&1 || status=1
  tail -30 "$out/scan_bench.log"
  echo "== kernel benchmarks"
  for b in test/kernel/bin/select_bench test/kernel/bin/filter_bench; do
    [ -x "$b" ] && "$b" >"$out/$(basename $b).log" 2>&1 && tail -40 "$out/$(basename $b).log"
  done
fi
exit $status
