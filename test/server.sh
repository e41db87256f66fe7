# Shared by test/run_all.sh and test/demo.sh: install what is missing, build,
# and run a throwaway PostgreSQL server.  Source it, then call the functions.

# Installs missing Debian packages when run as root.
gpusel_install_packages() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 0
  local need=() p
  for p in postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl make gcc; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  echo "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
}

# Builds and installs gpusel into the PostgreSQL of PG_CONFIG.
gpusel_build_install() {
  export PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
  make -s PG_CONFIG="$PG_CONFIG" && make -s PG_CONFIG="$PG_CONFIG" install
}

# Copies the old versions' install scripts of test/fixtures, which gpusel does
# not ship, beside the installed ones: the upgrade suite starts from them.
gpusel_install_fixtures() {
  local dir
  dir="$("$PG_CONFIG" --sharedir)/extension"
  cp test/fixtures/gpusel--*.sql "$dir/" || { echo "could not copy test/fixtures into $dir"; return 1; }
}

# Starts a throwaway server (as an ordinary user when root) and exports
# PGHOST, PGPORT, PGUSER, PGDATABASE; extra server options in $1.
gpusel_start_server() {
  GPUSEL_BINDIR=$("$PG_CONFIG" --bindir)
  GPUSEL_TMP=$(mktemp -d /tmp/gpusel-server.XXXXXX)
  chmod 755 "$GPUSEL_TMP"
  GPUSEL_PORT=${GPUSEL_TEST_PORT:-54329}
  GPUSEL_RUNAS=()
  if [ "$(id -u)" = 0 ]; then
    # initdb refuses to run as root: the server runs as an ordinary user
    id gpusel_test >/dev/null 2>&1 || useradd -M -s /bin/sh gpusel_test
    chown gpusel_test "$GPUSEL_TMP"
    GPUSEL_RUNAS=(runuser -u gpusel_test --)
    export PGUSER=gpusel_test
  else
    export PGUSER=$(id -un)
  fi
  "${GPUSEL_RUNAS[@]}" "$GPUSEL_BINDIR/initdb" -D "$GPUSEL_TMP/data" -A trust -U "$PGUSER" >"$GPUSEL_TMP/initdb.log" 2>&1 \
    || { cat "$GPUSEL_TMP/initdb.log"; return 1; }
  GPUSEL_SERVER_OPTS="-p $GPUSEL_PORT -k $GPUSEL_TMP -c listen_addresses= -c fsync=off ${1:-}"
  "${GPUSEL_RUNAS[@]}" "$GPUSEL_BINDIR/pg_ctl" -D "$GPUSEL_TMP/data" -l "$GPUSEL_TMP/server.log" -w start \
    -o "$GPUSEL_SERVER_OPTS" >/dev/null || { cat "$GPUSEL_TMP/server.log"; return 1; }
  export PGHOST=$GPUSEL_TMP PGPORT=$GPUSEL_PORT PGDATABASE=postgres
  trap gpusel_stop_server EXIT
}

# Restarts the throwaway server with extra options in $1.
gpusel_restart_server() {
  "${GPUSEL_RUNAS[@]}" "$GPUSEL_BINDIR/pg_ctl" -D "$GPUSEL_TMP/data" -l "$GPUSEL_TMP/server.log" -w restart \
    -o "$GPUSEL_SERVER_OPTS ${1:-}" >/dev/null || { cat "$GPUSEL_TMP/server.log"; return 1; }
}

# Stops the throwaway server and removes its files.
gpusel_stop_server() {
  [ -n "${GPUSEL_TMP:-}" ] || return 0
  "${GPUSEL_RUNAS[@]}" "$GPUSEL_BINDIR/pg_ctl" -D "$GPUSEL_TMP/data" -m fast stop >/dev/null 2>&1
  rm -rf "$GPUSEL_TMP"
  GPUSEL_TMP=
}
