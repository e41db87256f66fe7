# Sourced by the TPC-H benchmarks (tpch_bench.sh, tpch_cache_bench.sh): the
# generator and PostgreSQL's lineitem table, so that both find, load and
# reuse it the same way.  The caller sets repo (the repository root), site
# (where the generator goes when it is not on PATH) and psql_q.

# The generator's wheel holds one static executable
# (tpchgen_cli-<v>.data/scripts/tpchgen-cli); pip --target puts it in
# $site/bin.  Where pip is missing, the wheel is a zip file: unpack it with
# Python's zipfile (which drops the execute bit).
install_from_wheel() {
  local whl=$1
  rm -rf "$site"
  if ! python3 -m pip install -q --no-index --no-deps --target "$site" "$whl" >/dev/null 2>&1; then
    mkdir -p "$site" && python3 -m zipfile -e "$whl" "$site"
  fi
}

# Puts tpchgen-cli on PATH: as found, else from the wheel in .whl/, else from PyPI.
find_generator() {
  command -v tpchgen-cli >/dev/null && return 0
  local exe whl
  exe=$(find "$site" -type f -name tpchgen-cli 2>/dev/null | head -1 || true)
  if [ -z "$exe" ]; then
    whl=$(ls "$repo"/.whl/tpchgen_cli-*.whl 2>/dev/null | sort -V | tail -1 || true)
    if [ -n "$whl" ]; then
      echo "installing $(basename "$whl") into $site"
      install_from_wheel "$whl"
    else
      # --target, not --user: pip then neither needs a writable home nor
      # refuses a Debian Python as "externally managed" (PEP 668)
      echo "installing tpchgen-cli from PyPI into $site"
      PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --target "$site" tpchgen-cli >/dev/null
    fi
    exe=$(find "$site" -type f -name tpchgen-cli | head -1 || true)
    [ -n "$exe" ] || { echo "no tpchgen-cli executable in $site" >&2; return 1; }
  fi
  chmod +x "$exe"
  export PATH="$(dirname "$exe"):$PATH"
}

# Whether lineitem holds scale factor $1's rows, so loading (minutes at SF 2)
# is skipped: the SF is in the table's comment, which only a complete load
# writes (lineitem_finish), and the row count is about 6,001,215 x SF,
# within 0.1% of it at the SFs tried, so 1% tells an emptied or partial table.
lineitem_loaded() {
  local sf=$1 have
  have=$(psql_q -At -c "SELECT coalesce((SELECT substring(obj_description(oid, 'pg_class') FROM 'sf=([0-9.]+)')::numeric = $sf
                                         FROM pg_class WHERE oid = to_regclass('lineitem')), false)")
  if [ "$have" = t ]; then
    have=$(psql_q -At -c "SELECT abs(count(*) - 6001215 * $sf) <= 0.01 * 6001215 * $sf FROM lineitem")
  fi
  [ "$have" = t ]
}

# A new lineitem from the CSV on stdin (CSV, not tbl: tbl ends every line
# with '|', which COPY reads as one more, empty column).  One transaction
# creates the table and copies into it, so COPY can FREEZE the rows (no
# hint-bit writes on the first reads, little left for VACUUM); HEADER MATCH
# checks the generator's column names.  UNLOGGED: no WAL to write; a crash
# empties it, and lineitem_loaded then says to load it again.  Dropping the
# table drops its column cache.
lineitem_copy() {
  psql_q -1 -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS lineitem" \
    -c "$(sed 's/^CREATE TABLE lineitem/CREATE UNLOGGED TABLE lineitem/' "$repo/test/tpch/lineitem.sql")" \
    -c "COPY lineitem FROM STDIN (FORMAT csv, HEADER match, FREEZE)"
}

# After a load that succeeded whole (the caller checks its pipeline first):
# VACUUM, the comment that marks it complete for scale factor $1 ($4 says
# where the rows came from), and the times since $2 (start) and $3 (end of
# COPY), the copy's part named $5.
lineitem_finish() {
  local sf=$1 t0=$2 t1=$3 from=$4 what=$5 t2
  psql_q -c "VACUUM (FREEZE, ANALYZE) lineitem"
  t2=$(date +%s.%N)
  psql_q -c "COMMENT ON TABLE lineitem IS 'TPC-H lineitem, sf=$sf, $from'"
  awk -v a="$t0" -v b="$t1" -v c="$t2" -v sf="$sf" -v w="$what" \
    'BEGIN { printf "lineitem: loaded SF %s in %.1f s (%s), VACUUM (FREEZE, ANALYZE) %.1f s\n", sf, b - a, w, c - b }'
}
