#!/usr/bin/env bash
# Runs every gpusel test: installs what is missing (as root, on Debian),
# builds, installs, starts a throwaway PostgreSQL, copies the old install
# scripts of test/fixtures beside the installed ones (in every mode, into
# PG_CONFIG's extension directory), runs the pg_regress suite,
# the pgTAP suite, the suite again with gpusel preloaded (the GPU service
# on), the service's failure tests, the tests over postgres_fdw shard
# servers, the CPU unit tests and the kernel tests, stops the server,
# and exits non-zero on any failure.
#
#   bash test/run_all.sh                  everything, from a fresh machine
#   GPUSEL_TEST_EXISTING=1 bash test/run_all.sh
#                                         only the suites, against the server
#                                         in PGHOST/PGPORT/PGUSER (the GPU
#                                         machine's bundle), nothing built
#   GPUSEL_TEST_DEVICE=gpu ...            the same suites with gpusel.device = gpu
#                                         and gpusel.min_rows = 0
#   GPUSEL_TEST_KERNELS=0 ...             leave out the kernel tests
#
# The SQL suites run in three modes (defaults, JIT forced, plan_as_gpu);
# see sql_modes below.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
failures=()
note() { printf '\n== %s\n' "$*"; }

source test/server.sh
if [ "${GPUSEL_TEST_EXISTING:-0}" != 1 ]; then
  gpusel_install_packages || { echo "installing packages failed"; exit 1; }
  note "building and installing"
  gpusel_build_install || exit 1
  note "starting a throwaway server"
  gpusel_start_server || exit 1
fi

export PG_CONFIG=${PG_CONFIG:-pg_config}
note "installing the upgrade suite's fixtures"
gpusel_install_fixtures && echo "test/fixtures -> $("$PG_CONFIG" --sharedir)/extension" || failures+=(fixtures)
if [ "${GPUSEL_TEST_DEVICE:-}" = gpu ]; then
  export PGOPTIONS="${PGOPTIONS:-} -c gpusel.device=gpu -c gpusel.min_rows=0"
fi

# The SQL suites run three times: with PostgreSQL's defaults; with JIT
# compiling every expression (Debian's server has jit = on, and JIT deforms
# by the descriptor an expression was built for); and planning as a GPU
# machine would (gpusel.plan_as_gpu), so the automatic GPU plans run here on
# the CPU path.  The server keeps PostgreSQL's defaults otherwise.
sql_modes=(default jit plan_as_gpu)
declare -A mode_options=(
  [default]=""
  [jit]="-c jit=on -c jit_above_cost=0 -c jit_inline_above_cost=0 -c jit_optimize_above_cost=0"
  [plan_as_gpu]="-c gpusel.plan_as_gpu=on -c gpusel.min_rows=0"
)
regress="$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress"
tests=$(sed -n 's/^REGRESS = //p' Makefile)
# runs the pg_regress suite once, showing the differences when it fails
run_regress() {
  local outdir
  outdir=$(mktemp -d /tmp/gpusel-regress.XXXXXX)
  "$regress" --bindir="$("$PG_CONFIG" --bindir)" --inputdir=test --outputdir="$outdir" --load-extension=gpusel \
    --dbname=gpusel_regression $tests && return 0
  head -200 "$outdir/regression.diffs" 2>/dev/null
  return 1
}
base_options="${PGOPTIONS:-}"
for mode in "${sql_modes[@]}"; do
  export PGOPTIONS="$base_options ${mode_options[$mode]}"

  note "pg_regress suite, $mode (${GPUSEL_TEST_DEVICE:-default device})"
  run_regress || failures+=("pg_regress-$mode")

  note "pgTAP suite, $mode"
  psql -q -X -v ON_ERROR_STOP=1 -c 'DROP DATABASE IF EXISTS gpusel_tap' -c 'CREATE DATABASE gpusel_tap' >/dev/null || failures+=(pgtap-setup)
  psql -q -X -v ON_ERROR_STOP=1 -d gpusel_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION gpusel' >/dev/null || failures+=(pgtap-setup)
  pg_prove -d gpusel_tap test/pgtap/*.sql || failures+=("pgtap-$mode")
done
export PGOPTIONS="$base_options"

note "loading through session_preload_libraries and shared_preload_libraries"
got=$(PGOPTIONS="${PGOPTIONS:-} -c session_preload_libraries=gpusel" psql -X -At -d gpusel_tap -c 'SHOW gpusel.device') \
  && [ -n "$got" ] && echo "session_preload_libraries: gpusel.device = $got" || failures+=(session_preload)
if [ "${GPUSEL_TEST_EXISTING:-0}" != 1 ]; then
  gpusel_restart_server "-c shared_preload_libraries=gpusel" || failures+=(shared_preload)
  got=$(psql -X -At -d gpusel_tap -c 'SHOW gpusel.device' \
        -c 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 9) g')
  [ "$got" = "$(printf 'auto\n5')" ] && echo "shared_preload_libraries: ok" || { echo "shared_preload_libraries: got '$got'"; failures+=(shared_preload); }

  # preloaded, the GPU service runs (without a GPU here: every query on the
  # CPU, through the same suite and the same answers)
  note "pg_regress suite, default, with the GPU service (shared_preload_libraries)"
  run_regress || failures+=("pg_regress-service")
fi

if [ "$(psql -X -At -d gpusel_tap -c 'SHOW shared_preload_libraries' 2>/dev/null)" = gpusel ]; then
  # the column cache needs the preloaded server's shared memory
  note "isolation tests (column cache under concurrent writers)"
  isolation="$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/isolation/pg_isolation_regress"
  iso_out=$(mktemp -d /tmp/gpusel-isolation.XXXXXX)
  "$isolation" --bindir="$("$PG_CONFIG" --bindir)" --inputdir=test/isolation --outputdir="$iso_out" \
    --load-extension=gpusel --dbname=gpusel_isolation $(sed -n 's/^ISOLATION = //p' Makefile) \
    || { head -100 "$iso_out/regression.diffs" 2>/dev/null; failures+=(isolation); }

  note "GPU service: failure handling"
  bash test/service_test.sh gpusel_tap || failures+=(service)

  note "column cache in device memory"
  bash test/cache_device_test.sh gpusel_tap || failures+=(cache_device)

  note "column cache: the background refresh"
  bash test/cache_refresh_test.sh gpusel_tap || failures+=(cache_refresh)
fi

note "percentiles over postgres_fdw partitions (three shard servers)"
bash test/shard_test.sh || failures+=(shards)

note "CPU unit tests"
for t in test/unit/run*.sh; do
  bash "$t" || failures+=("$t")
done

note "kernel tests"
[ "${GPUSEL_TEST_KERNELS:-1}" = 0 ] && echo "kernel tests run separately (GPUSEL_TEST_KERNELS=0)"
for t in test/kernel/run*.sh; do
  [ "${GPUSEL_TEST_KERNELS:-1}" = 0 ] && break
  [ -e "$t" ] || continue
  bash "$t" || failures+=("$t")
done

if [ ${#failures[@]} -gt 0 ]; then
  note "FAILED: ${failures[*]}"
  exit 1
fi
note "all gpusel tests passed"
