#!/usr/bin/env bash
# TPC-H benchmark of the column cache beside DuckDB: the lineitem table at a
# scale factor, generated once by tpchgen-cli as a CSV file that both
# PostgreSQL and DuckDB load (the same rows), and TPC-H Q1 and Q6 (the
# specification's text, validation parameters) with the median price per
# (l_returnflag, l_linestatus), each timed as
#   - PostgreSQL runs it with its parallel workers, gpusel out of the way;
#   - gpusel runs it reading the heap, with the same workers;
#   - gpusel runs it reading the column cache (gpusel_cache('lineitem')),
#     with the same workers;
#   - DuckDB runs it in memory with all its threads (its own table, loaded
#     from the same CSV file),
# all in the same run.  It prints the median of reps runs of each, the
# ratios to PostgreSQL and to DuckDB, the cache's build time and size, and
# whether each answer is PostgreSQL's.
#
#   bash test/bench/tpch_cache_bench.sh [scale factor] [workers] [reps]
# needs PGHOST etc. of a server with gpusel in shared_preload_libraries (the
# cache lives in its shared memory: gpusel.cache_memory must hold the
# table's cacheable columns, 0.55 GB per scale factor or more; where it does
# not, the columns the queries read are cached instead, and the output says
# so).  GPUSEL_BENCH_DEVICE=cpu where there is no GPU (the gpusel rows then
# run gpusel's CPU path); GPUSEL_BENCH_REPS sets reps when the argument is
# not given; GPUSEL_BENCH_DATA is the folder of the CSV files (default
# /tmp/tpch-data; about 0.75 GB per scale factor, kept for the next run).
# GPUSEL_BENCH_TIME_POSTGRES=0 leaves out the slow rows at large scale
# factors: PostgreSQL then runs each query once, untimed, for the answer
# every other is checked against, and gpusel's heap rows are not run.
#
# tpchgen-cli and the Python module duckdb: installed, else from the wheels
# in .whl/ at the repository root (the GPU machine has no network), else from
# PyPI.  Fetch the wheels on a machine with network access by
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl duckdb tpchgen-cli
# (.whl/ is ignored by git: never commit wheels or data.)
set -euo pipefail
sf=${1:-2}
workers=${2:-8}
reps=${3:-${GPUSEL_BENCH_REPS:-3}}	# the median of reps runs per configuration
device=${GPUSEL_BENCH_DEVICE:-gpu}
time_postgres=${GPUSEL_BENCH_TIME_POSTGRES:-1}
data=${GPUSEL_BENCH_DATA:-/tmp/tpch-data}
repo=$(cd "$(dirname "$0")/../.." && pwd)
site=/tmp/tpchgen-site	# where the generator is installed when it is not on PATH (as tpch_bench.sh)
duck_site=/tmp/duckdb-site	# where duckdb is installed when Python lacks it
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

[[ $sf =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "scale factor must be a number, not '$sf'" >&2; exit 2; }
[[ $workers =~ ^[0-9]+$ && $reps =~ ^[1-9][0-9]*$ ]] || { echo "workers and reps must be integers" >&2; exit 2; }

source "$repo/test/bench/tpch_lineitem.sh"

# duckdb's wheels are built per Python version (cp312-abi3: 3.12 or later):
# the newest wheel in .whl/ that this Python imports, else PyPI.  Where pip
# is missing, the wheel is unpacked as a zip file (its extension module
# loads without the execute bit).
find_duckdb() {
  python3 -c 'import duckdb' 2>/dev/null && return 0
  export PYTHONPATH="$duck_site${PYTHONPATH:+:$PYTHONPATH}"
  python3 -c 'import duckdb' 2>/dev/null && return 0
  local whl
  for whl in $(ls "$repo"/.whl/duckdb-*.whl 2>/dev/null | sort -rV); do
    rm -rf "$duck_site"
    if ! python3 -m pip install -q --no-index --no-deps --target "$duck_site" "$whl" >/dev/null 2>&1 &&
       ! python3 -m pip --version >/dev/null 2>&1; then
      mkdir -p "$duck_site" && python3 -m zipfile -e "$whl" "$duck_site"
    fi
    if python3 -c 'import duckdb' 2>/dev/null; then
      echo "installed $(basename "$whl") into $duck_site"
      return 0
    fi
  done
  echo "installing duckdb from PyPI into $duck_site"
  rm -rf "$duck_site"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --target "$duck_site" duckdb >/dev/null
  python3 -c 'import duckdb'
}

psql_q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpusel"

# The CSV file, once per scale factor: tpchgen-cli is deterministic, and
# PostgreSQL and DuckDB both load this file.  Written under another name and
# renamed when complete, so a failed run leaves no partial file behind.
# CSV, not tbl: tbl ends every line with '|', which COPY reads as one more
# (empty) column.
mkdir -p "$data"
csv="$data/lineitem-sf$sf.csv"
if [ ! -s "$csv" ]; then
  find_generator
  echo "generator: $(tpchgen-cli --version)"
  t0=$(date +%s.%N)
  tpchgen-cli csv --scale-factor "$sf" --tables lineitem --stdout >"$csv.part"
  mv "$csv.part" "$csv"
  awk -v a="$t0" -v b="$(date +%s.%N)" -v f="$csv" 'BEGIN { printf "generated %s in %.1f s\n", f, b - a }'
fi

# PostgreSQL's load as tpch_bench.sh does it (tpch_lineitem.sh: the table it
# leaves is reused here, and this one there), from the file DuckDB loads too.
# The answers below check that DuckDB's rows are the same: Q1 and the
# medians read nearly every row.  Through psql's stdin, so the server need
# not see the file.
if lineitem_loaded "$sf"; then
  echo "lineitem: already loaded at SF $sf"
else
  t0=$(date +%s.%N)
  lineitem_copy <"$csv"
  lineitem_finish "$sf" "$t0" "$(date +%s.%N)" "from $(basename "$csv")" "COPY"
fi
psql_q -c "ALTER TABLE lineitem SET (parallel_workers = $workers)"

find_duckdb

tmp=$(mktemp -d /tmp/tpch_cache_bench.XXXXXX)
cached=
# the cache takes the server's shared memory until dropped: drop it however
# the script ends
cleanup() {
  [ -z "$cached" ] || psql -X -q -c "SELECT gpusel_uncache('lineitem')" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The heap rows run with no cache: one left by an earlier run would serve them.
psql_q -At -c "SELECT gpusel_uncache('lineitem')" >/dev/null

psql_q -At -c "SELECT 'table: lineitem, SF $sf, ' || count(*) || ' rows, ' || pg_size_pretty(pg_relation_size('lineitem'))
                      || '; $workers workers per Gather; ' || current_setting('max_parallel_workers')
                      || ' parallel workers in all; shared_buffers ' || current_setting('shared_buffers')
                      || ', gpusel.cache_memory ' || current_setting('gpusel.cache_memory')
                      || ', gpusel.cache_device_memory ' || current_setting('gpusel.cache_device_memory') FROM lineitem"
[ "$device" = gpu ] || echo "(GPUSEL_BENCH_DEVICE=$device: the gpusel rows run with gpusel.device = $device)"

# The queries of the test suite (test/tpch/queries.sql): Q1 and Q6 as the
# TPC-H specification writes them, with its validation substitution
# parameters, and P1, the median price per (l_returnflag, l_linestatus).
# DuckDB runs Q1 and Q6 as written; its P1 spells the median
# quantile_disc(l_extendedprice, 0.5), which takes the same row as
# percentile_disc (the ceil(0.5 n)-th).
psql_q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS tpch_query" -f "$repo/test/tpch/queries.sql"
qnames=(Q6 Q1 P1)
for n in "${qnames[@]}"; do
  psql_q -At -c "SELECT q FROM tpch_query WHERE name = '$n'" >"$tmp/q.$n.sql"
done
sed -E 's/percentile_disc\(0\.5\) within group \(order by l_extendedprice\)/quantile_disc(l_extendedprice, 0.5)/I' \
  "$tmp/q.P1.sql" >"$tmp/dq.P1.sql"
grep -q 'quantile_disc(l_extendedprice, 0.5)' "$tmp/dq.P1.sql" || { echo "P1 in test/tpch/queries.sql is no longer the median this script rewrites for DuckDB" >&2; exit 1; }
cp "$tmp/q.Q6.sql" "$tmp/dq.Q6.sql"
cp "$tmp/q.Q1.sql" "$tmp/dq.Q1.sql"

# The configurations, applied in the session that runs the timed query.
# jit off: Debian's server has it on, and its compile time would blur
# PostgreSQL's figures.  LOAD installs gpusel's planner hooks before the
# first query; its GUCs are then known when SET.
prelude="SET client_min_messages = warning; SET jit = off; LOAD 'gpusel'; SET max_parallel_workers_per_gather = $workers;"
pg_off="SET gpusel.enable_scan = off; SET gpusel.enable_groupagg = off; SET gpusel.replace_builtin_percentiles = off;"
gpu_on="SET gpusel.device = $device; SET gpusel.min_rows = 0;"
configs=(pg heap cache duckdb)
[ "$time_postgres" = 1 ] || configs=(pg cache duckdb)
declare -A cname=([pg]="PostgreSQL ${workers}w" [heap]="gpusel heap ${workers}w" [cache]="gpusel cache ${workers}w" [duckdb]="DuckDB")
declare -A cset=([pg]="$pg_off" [heap]="$gpu_on" [cache]="$gpu_on" [scan]="$gpu_on SET gpusel.force_groupagg = on;")

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# One session per query and configuration: the settings, the query once
# untimed (the warm-up, whose rows are the answer), then reps runs timed by
# psql's \timing with the rows sent to /dev/null (the Time lines still reach
# stdout).  Then, in a session of its own, EXPLAIN ANALYZE for what the plan
# read: the scan node, the workers, and whether the rows came from the cache
# (and from device memory).
declare -A ms=() plan=()
run_pg() {	# run_pg config query [reps]
  local c=$1 n=$2 reps=${3:-$reps} q
  q=$(cat "$tmp/q.$n.sql")
  rm -f "$tmp/out" "$tmp/answer" "$tmp/times"
  if ! { echo "$prelude ${cset[$c]}"
         echo '\echo ==answer'; echo "$q;"
         echo '\echo ==times'; echo '\o /dev/null'; echo '\timing on'
         for _ in $(seq "$reps"); do echo "$q;"; done
       } | psql -X -q -At -v ON_ERROR_STOP=1 >"$tmp/out" 2>"$tmp/err"; then
    # one failing configuration must not hide the others
    ms[$n,$c]=failed
    echo "error: $(grep -m1 ERROR "$tmp/err" || head -1 "$tmp/err")" >"$tmp/ans.$n.$c"
    return
  fi
  awk -v d="$tmp" '/^==(answer|times)$/ { f = d "/" substr($0, 3); next } { print > f }' "$tmp/out"
  touch "$tmp/answer" "$tmp/times"
  mv "$tmp/answer" "$tmp/ans.$n.$c"
  if [ "$reps" = 0 ]; then
    ms[$n,$c]=untimed; plan[$n,$c]="(the answer only)"
    return
  fi
  ms[$n,$c]=$(median $(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$tmp/times"))
  plan[$n,$c]=$( { echo "$prelude ${cset[$c]}"; echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q;"; } |
    psql -X -q -At 2>/dev/null |
    { grep -oE "Parallel Custom Scan \(GpuSelScan\)|Custom Scan \(GpuSelScan\)|Parallel Seq Scan|Seq Scan|Workers Launched: [0-9]+|Source: column cache|Rows Read In Device Memory: [0-9]+" || true; } |
    sed -e 's/Custom Scan (GpuSelScan)/GpuSelScan/' -e 's/Workers Launched: \([0-9]*\)/\1 workers/' \
        -e 's/Source: column cache/from the cache/' -e 's/Rows Read In Device Memory: \([0-9]*\)/\1 rows in device memory/' |
    awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g' || true)
}

for n in "${qnames[@]}"; do
  if [ "$time_postgres" = 1 ]; then run_pg pg "$n"; run_pg heap "$n"; else run_pg pg "$n" 0; fi
done

# The cache: the whole table (every column it holds); a table past
# gpusel.cache_memory is refused whole, and then the columns the queries
# read are cached instead, less those of a type the cache does not hold.
# NOTICEs (a device copy that does not fit) are shown.
cache_build() {
  { echo "SET max_parallel_maintenance_workers = $workers;"; echo "SET client_min_messages = debug1;";
    echo '\timing on'; echo "SELECT gpusel_cache('lineitem'$1);"; } |
    psql -X -q -At -v ON_ERROR_STOP=1 >"$tmp/out" 2>"$tmp/err"
}
read_cols=(l_quantity l_extendedprice l_discount l_tax l_returnflag l_linestatus l_shipdate)
if cache_build ""; then
  cached=all
elif grep -q 'does not fit' "$tmp/err"; then
  echo "gpusel_cache('lineitem'): $(grep -m1 ERROR "$tmp/err"); caching the columns the queries read"
  cols=("${read_cols[@]}")
  while [ ${#cols[@]} -gt 0 ]; do
    if cache_build ", ARRAY['$(IFS=,; echo "${cols[*]}" | sed "s/,/', '/g")']"; then cached=some; break; fi
    bad=$(sed -n 's/.*column "\([a-z_]*\)" of type .* cannot be cached.*/\1/p' "$tmp/err" | head -1)
    [ -n "$bad" ] || break
    echo "  ($(sed -n 's/^ERROR: *//p' "$tmp/err" | head -1))"
    cols=($(printf '%s\n' "${cols[@]}" | grep -vx "$bad"))
  done
fi
if [ -n "$cached" ]; then
  { grep -v '^Time:' "$tmp/err" | grep -v '^DEBUG' || true; } | sed 's/^/  /'
  echo "cache: built in $(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$tmp/out") ms, $(head -1 "$tmp/out") rows, $workers parallel workers at most"
  grep -h "gpusel: cached\|gpusel: reading\|gpusel: the build's" "$tmp/err" | sed 's/^DEBUG: */  /'
  cp "$tmp/out" "$tmp/out.build"
  # built again over the first build's memory, as a refresh does
  if cache_build "$(psql_q -At -c "SELECT CASE WHEN array_length(columns, 1) = (SELECT count(*) FROM pg_attribute WHERE attrelid = 'lineitem'::regclass AND attnum > 0 AND NOT attisdropped) THEN '' ELSE ', ARRAY[' || string_agg(quote_literal(c), ', ') || ']' END FROM gpusel_cached_tables, unnest(columns) c WHERE relation = 'lineitem'::regclass GROUP BY columns")"; then
    echo "cache: built again in $(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$tmp/out") ms"
    grep -h "gpusel: cached\|gpusel: the build's" "$tmp/err" | sed 's/^DEBUG: */  /'
  fi
  # the queries' columns the cache lacks: a scan that reads one reads the heap
  psql_q -c "SELECT array_length(columns, 1) AS columns, rows, bytes, pg_size_pretty(bytes) AS size,
                    device_bytes, pg_size_pretty(device_bytes) AS device_size,
                    ARRAY(SELECT unnest('{$(IFS=,; echo "${read_cols[*]}")}'::text[]) EXCEPT ALL SELECT unnest(columns)) AS \"read, not cached\"
             FROM gpusel_cached_tables WHERE relation = 'lineitem'::regclass"
  for n in "${qnames[@]}"; do run_pg cache "$n"; done
  psql_q -At -c "SELECT 'cache: ' || hits || ' hits' FROM gpusel_cached_tables WHERE relation = 'lineitem'::regclass"
  # what the build is measured against: gpusel's scan reading the same columns from the heap,
  # same workers (char columns as group keys, the rest in device quals that keep every row)
  cached_cols="SELECT c, a.atttypid = 'bpchar'::regtype AS is_key FROM gpusel_cached_tables t, unnest(t.columns) c
                JOIN pg_attribute a ON a.attrelid = 'lineitem'::regclass AND a.attname = c WHERE t.relation = 'lineitem'::regclass"
  scan_qual=$(psql_q -At -c "SELECT coalesce(string_agg(quote_ident(c) || ' IS NOT NULL', ' AND '), 'true') FROM ($cached_cols) x WHERE NOT is_key")
  scan_keys=$(psql_q -At -c "SELECT string_agg(quote_ident(c), ', ') FROM ($cached_cols) x WHERE is_key")
  psql_q -At -c "SELECT gpusel_uncache('lineitem')" >/dev/null
  if [ -n "$scan_keys" ]; then
    echo "SELECT $scan_keys, count(*) FROM lineitem WHERE $scan_qual GROUP BY $scan_keys" >"$tmp/q.scan.sql"
  else
    echo "SELECT count(*) FROM lineitem WHERE $scan_qual" >"$tmp/q.scan.sql"
  fi
  run_pg scan scan
  echo "heap scan of the cached columns (gpusel, $workers workers): ${ms[scan,scan]} ms [${plan[scan,scan]}]; the build took $(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$tmp/out.build") ms"
  cached=
else
  echo "gpusel_cache('lineitem') failed: $(grep -m1 ERROR "$tmp/err" || head -1 "$tmp/err")"
  for n in "${qnames[@]}"; do ms[$n,cache]=failed; echo "error: cache not built" >"$tmp/ans.$n.cache"; done
fi

# DuckDB, after the cache is dropped (so that its memory is the server's no
# longer): an in-memory database with the default threads (all cores),
# lineitem read from the same CSV file with the specification's types, then
# per query one untimed run (the answer) and reps timed runs.  Answers are
# written as psql -At writes them: '|' between columns, NULL as ''.
python3 - "$csv" "$reps" "$tmp" "${qnames[@]}" <<'PY'
import sys, time, statistics, duckdb
csv, reps, tmp, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
con = duckdb.connect()
cols = {
    'l_orderkey': 'BIGINT', 'l_partkey': 'INTEGER', 'l_suppkey': 'INTEGER', 'l_linenumber': 'INTEGER',
    'l_quantity': 'DECIMAL(15,2)', 'l_extendedprice': 'DECIMAL(15,2)', 'l_discount': 'DECIMAL(15,2)',
    'l_tax': 'DECIMAL(15,2)', 'l_returnflag': 'VARCHAR', 'l_linestatus': 'VARCHAR', 'l_shipdate': 'DATE',
    'l_commitdate': 'DATE', 'l_receiptdate': 'DATE', 'l_shipinstruct': 'VARCHAR', 'l_shipmode': 'VARCHAR',
    'l_comment': 'VARCHAR'}
spec = '{' + ', '.join("'%s': '%s'" % kv for kv in cols.items()) + '}'
t0 = time.perf_counter()
con.execute("CREATE TABLE lineitem AS SELECT * FROM read_csv(?, header = true, delim = ',', quote = '\"', columns = %s)" % spec, [csv])
t1 = time.perf_counter()
rows = con.execute("SELECT count(*) FROM lineitem").fetchone()[0]
threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
print("DuckDB %s: lineitem, %d rows, loaded from the CSV file in %.1f s; %s threads" % (duckdb.__version__, rows, t1 - t0, threads))
def fmt(v):
    if v is None: return ''
    if isinstance(v, float): return repr(v)
    return str(v)
for n in names:
    q = open('%s/dq.%s.sql' % (tmp, n)).read()
    res = con.execute(q).fetchall()
    with open('%s/ans.%s.duckdb' % (tmp, n), 'w') as f:
        for r in res: f.write('|'.join(fmt(v) for v in r) + '\n')
    times = []
    for _ in range(reps):
        t = time.perf_counter(); con.execute(q).fetchall(); times.append((time.perf_counter() - t) * 1000)
    # the lower median, as the shell's median() for an even count
    with open('%s/ms.%s.duckdb' % (tmp, n), 'w') as f: f.write('%.3f\n' % sorted(times)[(len(times) - 1) // 2])
PY
for n in "${qnames[@]}"; do ms[$n,duckdb]=$(cat "$tmp/ms.$n.duckdb"); plan[$n,duckdb]=; done

# Is each answer PostgreSQL's?  gpusel's answers are PostgreSQL's output
# and must be the same text.  DuckDB's differ in form only: its averages are
# doubles (17 digits; PostgreSQL's numeric avg prints 20), so numbers are
# compared as numbers within a relative 1e-12 (a double's error is about
# 1e-16; one row more or less moves Q1's sums by more than 1e-10 at SF 100),
# text as text, row by row.
same_answer() {	# same_answer ref other tolerance
  python3 - "$@" <<'PY'
import sys
from decimal import Decimal, InvalidOperation
ref, other = (open(p).read().splitlines() for p in sys.argv[1:3])
tol = float(sys.argv[3])
def num(s):
    try: return Decimal(s)
    except InvalidOperation: return None
def field_same(a, b):
    if a == b: return True
    x, y = num(a), num(b)
    if tol == 0 or x is None or y is None: return False
    return abs(x - y) <= Decimal(tol) * max(abs(x), abs(y))
ok = len(ref) == len(other) and all(
    len(fr) == len(fo) and all(field_same(a, b) for a, b in zip(fr, fo))
    for fr, fo in ((r.split('|'), o.split('|')) for r, o in zip(ref, other)))
print('same' if ok else 'DIFFERENT')
PY
}
declare -A same=()
for n in "${qnames[@]}"; do
  for c in "${configs[@]}"; do
    if [ "${ms[$n,$c]}" = failed ] || [ "${ms[$n,pg]}" = failed ]; then same[$n,$c]=error
    elif [ "$c" = duckdb ]; then same[$n,$c]=$(same_answer "$tmp/ans.$n.pg" "$tmp/ans.$n.$c" 1e-12)
    else same[$n,$c]=$(same_answer "$tmp/ans.$n.pg" "$tmp/ans.$n.$c" 0); fi
  done
done

echo
echo "== medians of $reps runs after a warm-up; x = that one's time over this one's (higher is faster)"
printf '%-4s %-19s %10s %9s %9s  %-9s  %s\n' query config ms "vs PG" "vs DuckDB" answer plan
for n in "${qnames[@]}"; do
  for c in "${configs[@]}"; do
    awk -v q="$n" -v c="${cname[$c]}" -v t="${ms[$n,$c]}" -v pg="${ms[$n,pg]}" -v dk="${ms[$n,duckdb]}" \
        -v s="${same[$n,$c]}" -v p="${plan[$n,$c]:-}" '
      function x(r) { return (r ~ /^[0-9.]+$/ && t > 0) ? sprintf("%.2fx", r / t) : "-" }
      BEGIN {
        if (t !~ /^[0-9.]+$/) { printf "%-4s %-19s %10s %9s %9s  %-9s  %s\n", q, c, t, "-", "-", s, p; exit }
        printf "%-4s %-19s %10.1f %9s %9s  %-9s  %s\n", q, c, t, x(pg), x(dk), s, p }'
  done
done

# an answer unlike PostgreSQL's is shown beside it
for n in "${qnames[@]}"; do
  for c in "${configs[@]}"; do
    if [ "${same[$n,$c]}" != same ]; then
      echo; echo "== $n: ${cname[$c]} answered"; cat "$tmp/ans.$n.$c"
      echo "-- PostgreSQL answered"; cat "$tmp/ans.$n.pg"
    fi
  done
done
