#!/usr/bin/env bash
# TPC-H benchmark of gpusel: the lineitem table at a scale factor, loaded
# from tpchgen-cli, and TPC-H Q1 and Q6 (the validation parameters) beside
# two percentile queries over it, each timed as PostgreSQL runs it serially
# and with its parallel workers (gpusel out of the way), and as gpusel runs
# it on the GPU serially and under Gather, and on its CPU path, all in the
# same run on the same table.  Every answer is checked equal to PostgreSQL's
# serial answer in the same run.
#
#   bash test/bench/tpch_bench.sh [scale factor] [workers] [reps]
# needs PGHOST etc. of a server with gpusel installed (device_run.sh tpch).
# GPUSEL_BENCH_DEVICE=cpu (or auto) runs the "gpusel GPU" rows where there is
# no GPU (with PGOPTIONS='-c gpusel.plan_as_gpu=on' they take the plans a GPU
# machine makes, run on the CPU path); GPUSEL_BENCH_REPS sets reps when the
# argument is not given.
#
# The generator: tpchgen-cli on PATH, else the wheel in .whl/ at the
# repository root (the GPU machine has no network), else PyPI.  The wheel
# holds one static x86_64 executable (tag py3-none-manylinux...), so any
# Python 3 installs it; fetch it on a machine with network access by
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#     --platform manylinux2014_x86_64 -d .whl tpchgen-cli
# (.whl/ is ignored by git: never commit wheels or data.)
set -euo pipefail
sf=${1:-2}
workers=${2:-8}
reps=${3:-${GPUSEL_BENCH_REPS:-3}}	# the median of reps runs per configuration
device=${GPUSEL_BENCH_DEVICE:-gpu}
repo=$(cd "$(dirname "$0")/../.." && pwd)
site=/tmp/tpchgen-site	# where the generator is installed when it is not on PATH
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

[[ $sf =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "scale factor must be a number, not '$sf'" >&2; exit 2; }
[[ $workers =~ ^[0-9]+$ && $reps =~ ^[1-9][0-9]*$ ]] || { echo "workers and reps must be integers" >&2; exit 2; }

source "$repo/test/bench/tpch_lineitem.sh"

psql_q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpusel"

if lineitem_loaded "$sf"; then
  echo "lineitem: already loaded at SF $sf"
else
  find_generator
  echo "generator: $(tpchgen-cli --version)"
  t0=$(date +%s.%N)
  # the generator writes to stdout straight into COPY (no file on disk);
  # pipefail stops the script here unless both succeeded
  tpchgen-cli csv --scale-factor "$sf" --tables lineitem --stdout | lineitem_copy
  lineitem_finish "$sf" "$t0" "$(date +%s.%N)" "$(tpchgen-cli --version)" "generate + COPY"
fi
# every run, since the workers argument may differ from the last run's
psql_q -c "ALTER TABLE lineitem SET (parallel_workers = $workers)"

table_bytes=$(psql_q -At -c "SELECT pg_relation_size('lineitem')")
psql_q -At -F' ' -c "SELECT 'table: lineitem, SF $sf, ' || count(*) || ' rows, ' || pg_size_pretty(pg_relation_size('lineitem'))
                            || ' ($table_bytes bytes); $workers workers per Gather; ' || current_setting('max_parallel_workers')
                            || ' parallel workers in all; shared_buffers ' || current_setting('shared_buffers')
                            || ', work_mem ' || current_setting('work_mem') FROM lineitem"
[ "$device" = gpu ] || echo "(GPUSEL_BENCH_DEVICE=$device: the \"gpusel GPU\" rows run with gpusel.device = $device)"

# The configurations, applied in the session that runs the timed query.
# jit off everywhere: Debian's server has it on, and its compile time would
# blur PostgreSQL's figures.  LOAD installs gpusel's planner hooks before the
# first query; its GUCs are then known when SET.
prelude="SET client_min_messages = warning; SET jit = off; LOAD 'gpusel'; CREATE EXTENSION IF NOT EXISTS gpusel;"
pg_off="SET gpusel.enable_scan = off; SET gpusel.replace_builtin_percentiles = off;"
gpu_on="SET gpusel.device = $device; SET gpusel.min_rows = 0;"
names=("PostgreSQL" "PostgreSQL ${workers}w" "gpusel GPU" "gpusel GPU ${workers}w" "gpusel CPU")
settings=(
  "$pg_off SET max_parallel_workers_per_gather = 0;"
  "$pg_off SET max_parallel_workers_per_gather = $workers;"
  "$gpu_on SET max_parallel_workers_per_gather = 0;"
  "$gpu_on SET max_parallel_workers_per_gather = $workers;"
  "SET gpusel.device = cpu; SET max_parallel_workers_per_gather = 0;"
)
gpu_serial=2 gpu_parallel=3

# The queries of the test suite (test/tpch/queries.sql): Q1 and Q6 as the
# TPC-H specification writes them, with its validation substitution
# parameters, and two percentile queries; read back from the table it
# fills.
psql_q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS tpch_query" -f "$repo/test/tpch/queries.sql"
qnames=(Q1 Q6 P1 P2)
queries=()
for n in "${qnames[@]}"; do
  queries+=("$(psql_q -At -c "SELECT q FROM tpch_query WHERE name = '$n'")")
done

tmp=$(mktemp -d /tmp/tpch_bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# median of the given numbers
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# One session per query and configuration: the settings, the query once
# untimed (the warm-up, whose rows are the answer), its plan, then reps runs
# timed by psql's \timing with the rows sent to /dev/null (the Time lines
# still reach stdout).  \timing, not clock_timestamp() in plpgsql: a query
# EXECUTEd INTO a variable is never planned parallel.
# Writes $tmp/answer, $tmp/plan and $tmp/times; fails with psql's error in $tmp/err.
run_session() {
  local set=$1 q=$2
  { echo "$prelude $set"
    echo '\echo ==answer'; echo "$q;"
    echo '\echo ==plan'; echo "EXPLAIN (COSTS OFF) $q;"
    echo '\echo ==times'; echo '\o /dev/null'; echo '\timing on'
    for _ in $(seq "$reps"); do echo "$q;"; done
  } | psql -X -q -At -v ON_ERROR_STOP=1 >"$tmp/out" 2>"$tmp/err" || return 1
  awk -v d="$tmp" '/^==(answer|plan|times)$/ { f = d "/" substr($0, 3); next } { print > f }' "$tmp/out"
  touch "$tmp/answer" "$tmp/plan" "$tmp/times"
}

# the scan nodes and workers of a plan, in a few words
plan_summary() {
  # (grep finds nothing in some plans: not an error under pipefail)
  { grep -oE "Parallel Custom Scan \(GpuSelScan\)|Custom Scan \(GpuSelScan\)|Parallel Seq Scan|Seq Scan" "$1" || true; } |
    sed 's/Custom Scan (GpuSelScan)/GpuSelScan/' | awk '!seen[$0]++' >"$tmp/nodes"
  { grep -oE "Workers Planned: [0-9]+" "$1" || true; } | sed 's/Workers Planned: \([0-9]*\)/\1 workers/' | head -1 >>"$tmp/nodes"
  paste -sd, "$tmp/nodes" | sed 's/,/, /g'
}

declare -A ms=() same=() plan=() ans=()
for qi in "${!queries[@]}"; do
  for ci in "${!names[@]}"; do
    rm -f "$tmp"/answer "$tmp"/plan "$tmp"/times
    if run_session "${settings[$ci]}" "${queries[$qi]}"; then
      ms[$qi,$ci]=$(median $(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$tmp/times"))
      ans[$qi,$ci]=$(cat "$tmp/answer")
      plan[$qi,$ci]=$(plan_summary "$tmp/plan")
    else
      # one failing configuration (no GPU, say) must not hide the others
      ms[$qi,$ci]=failed
      ans[$qi,$ci]="error: $(grep -m1 ERROR "$tmp/err" || head -1 "$tmp/err")"
      plan[$qi,$ci]=
    fi
    if [ "${ms[$qi,$ci]}" = failed ]; then same[$qi,$ci]=error
    elif [ "${ans[$qi,$ci]}" = "${ans[$qi,0]}" ]; then same[$qi,$ci]=same
    else same[$qi,$ci]=DIFFERENT; fi
  done
done

echo
echo "== medians of $reps runs after a warm-up; x = PostgreSQL's time over this one (higher is faster)"
printf '%-5s %-17s %10s %9s %9s %7s  %-9s  %s\n' query config ms "vs PG" "vs PG ${workers}w" GB/s answer plan
for qi in "${!queries[@]}"; do
  for ci in "${!names[@]}"; do
    awk -v q="${qnames[$qi]}" -v c="${names[$ci]}" -v t="${ms[$qi,$ci]}" -v pg="${ms[$qi,0]}" -v pp="${ms[$qi,1]}" \
        -v b="$table_bytes" -v s="${same[$qi,$ci]}" -v p="${plan[$qi,$ci]}" '
      function x(r) { return (r ~ /^[0-9.]+$/ && t > 0) ? sprintf("%.2fx", r / t) : "-" }
      BEGIN {
        if (t !~ /^[0-9.]+$/) { printf "%-5s %-17s %10s %9s %9s %7s  %-9s  %s\n", q, c, t, "-", "-", "-", s, p; exit }
        printf "%-5s %-17s %10.1f %9s %9s %7.2f  %-9s  %s\n", q, c, t, x(pg), x(pp), b / (t * 1e6), s, p }'
  done
done

# an answer unlike PostgreSQL's is shown beside it
for qi in "${!queries[@]}"; do
  for ci in "${!names[@]}"; do
    if [ "${same[$qi,$ci]}" != same ]; then
      echo; echo "== ${qnames[$qi]}: ${names[$ci]} answered"; echo "${ans[$qi,$ci]}"
      echo "-- PostgreSQL answered"; echo "${ans[$qi,0]}"
    fi
  done
done

# which quals and aggregates reached the device, and where the time went
for qi in "${!queries[@]}"; do
  echo
  echo "== ${qnames[$qi]} under ${names[$gpu_serial]}: EXPLAIN (ANALYZE, COSTS OFF)"
  { echo "$prelude ${settings[$gpu_serial]}"; echo "EXPLAIN (ANALYZE, COSTS OFF) ${queries[$qi]};"; } |
    psql -X -q -v ON_ERROR_STOP=1 2>&1 || true
done

echo
echo "== table bytes per second, ${names[$gpu_parallel]} (the machine copies 8 KB pages at 36.1 GB/s with 8 threads)"
for qi in "${!queries[@]}"; do
  awk -v q="${qnames[$qi]}" -v t="${ms[$qi,$gpu_parallel]}" -v b="$table_bytes" '
    BEGIN { if (t ~ /^[0-9.]+$/ && t > 0) printf "%-5s %7.2f GB/s (%.0f ms)\n", q, b / (t * 1e6), t; else printf "%-5s %s\n", q, t }'
done
