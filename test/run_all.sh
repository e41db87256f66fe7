#!/usr/bin/env bash
# Runs every gpusel test: installs what is missing (as root, on Debian),
# builds, installs, starts a throwaway PostgreSQL, runs the pg_regress suite,
# the pgTAP suite and the kernel tests, stops the server, and exits non-zero
# on any failure.
#
#   bash test/run_all.sh                  everything, from a fresh machine
#   GPUSEL_TEST_EXISTING=1 bash test/run_all.sh
#                                         only the suites, against the server
#                                         in PGHOST/PGPORT/PGUSER (the GPU
#                                         machine's bundle), nothing built
#   GPUSEL_TEST_DEVICE=gpu ...            the same suites with gpusel.device = gpu
#                                         and gpusel.min_rows = 0
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
failures=()
note() { printf '\n== %s\n' "$*"; }

if [ "${GPUSEL_TEST_EXISTING:-0}" != 1 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    need=()
    for p in postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl make gcc; do
      dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
      note "installing ${need[*]}"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null || { echo "apt-get install failed"; exit 1; }
    fi
  fi
  export PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
  note "building with $PG_CONFIG"
  make -s PG_CONFIG="$PG_CONFIG" || exit 1
  make -s PG_CONFIG="$PG_CONFIG" install || exit 1

  bindir=$("$PG_CONFIG" --bindir)
  tmp=$(mktemp -d /tmp/gpusel-test.XXXXXX)
  chmod 755 "$tmp"
  port=${GPUSEL_TEST_PORT:-54329}
  runas=()
  if [ "$(id -u)" = 0 ]; then
    # initdb refuses to run as root: the server runs as an ordinary user
    id gpusel_test >/dev/null 2>&1 || useradd -M -s /bin/sh gpusel_test
    chown gpusel_test "$tmp"
    runas=(runuser -u gpusel_test --)
    export PGUSER=gpusel_test
  else
    export PGUSER=$(id -un)
  fi
  note "starting a throwaway server in $tmp on port $port"
  "${runas[@]}" "$bindir/initdb" -D "$tmp/data" -A trust -U "$PGUSER" >"$tmp/initdb.log" 2>&1 \
    || { cat "$tmp/initdb.log"; exit 1; }
  "${runas[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w start \
    -o "-p $port -k $tmp -c listen_addresses= -c fsync=off" >/dev/null \
    || { cat "$tmp/server.log"; exit 1; }
  export PGHOST=$tmp PGPORT=$port PGDATABASE=postgres
  trap '"${runas[@]}" "$bindir/pg_ctl" -D "$tmp/data" -m fast stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
fi

export PG_CONFIG=${PG_CONFIG:-pg_config}
if [ "${GPUSEL_TEST_DEVICE:-}" = gpu ]; then
  export PGOPTIONS="${PGOPTIONS:-} -c gpusel.device=gpu -c gpusel.min_rows=0"
fi

note "pg_regress suite (${GPUSEL_TEST_DEVICE:-default device})"
regress="$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress"
outdir=$(mktemp -d /tmp/gpusel-regress.XXXXXX)
tests=$(sed -n 's/^REGRESS = //p' Makefile)
if ! "$regress" --inputdir=. --outputdir="$outdir" --load-extension=gpusel \
     --dbname=gpusel_regression $tests; then
  cat "$outdir/regression.diffs" 2>/dev/null | head -200
  failures+=(pg_regress)
fi

note "pgTAP suite"
psql -q -X -v ON_ERROR_STOP=1 -c 'DROP DATABASE IF EXISTS gpusel_tap' -c 'CREATE DATABASE gpusel_tap' >/dev/null || failures+=(pgtap-setup)
psql -q -X -v ON_ERROR_STOP=1 -d gpusel_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION gpusel' >/dev/null || failures+=(pgtap-setup)
pg_prove -d gpusel_tap test/pgtap/*.sql || failures+=(pgtap)

note "loading through session_preload_libraries and shared_preload_libraries"
got=$(PGOPTIONS="${PGOPTIONS:-} -c session_preload_libraries=gpusel" psql -X -At -d gpusel_tap -c 'SHOW gpusel.device') \
  && [ -n "$got" ] && echo "session_preload_libraries: gpusel.device = $got" || failures+=(session_preload)
if [ "${GPUSEL_TEST_EXISTING:-0}" != 1 ]; then
  "${runas[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w restart \
    -o "-p $port -k $tmp -c listen_addresses= -c fsync=off -c shared_preload_libraries=gpusel" >/dev/null \
    || { cat "$tmp/server.log"; failures+=(shared_preload); }
  got=$(psql -X -At -d gpusel_tap -c 'SHOW gpusel.device' \
        -c 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 9) g')
  [ "$got" = "$(printf 'auto\n5')" ] && echo "shared_preload_libraries: ok" || { echo "shared_preload_libraries: got '$got'"; failures+=(shared_preload); }
fi

note "kernel tests"
for t in test/kernel/run*.sh; do
  [ -e "$t" ] || continue
  bash "$t" || failures+=("$t")
done

if [ ${#failures[@]} -gt 0 ]; then
  note "FAILED: ${failures[*]}"
  exit 1
fi
note "all gpusel tests passed"
