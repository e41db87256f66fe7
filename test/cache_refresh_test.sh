#!/usr/bin/env bash
# The column cache's background refresh, against a server that preloads
# gpusel (PGHOST/PGPORT/PGUSER; the database in $1, default gpusel_tap, must
# have the extension; the user a superuser).  Turns the refresh on for the
# test with ALTER SYSTEM (gpusel.cache_refresh_naptime = 1 s) and back off.
#
# Checks, each printing "ok: ..." or "FAIL: ...":
#   - the refresh's worker rebuilds, within 30 s, a table most of whose
#     blocks were written: no changed block left, a later build, the same
#     answers as PostgreSQL's, read from the cache;
#   - it leaves alone a table with one row updated (a block or two written,
#     under the default share of 0.1);
#   - with the naptime back at 0 it rebuilds nothing more.
set -uo pipefail
db=${1:-gpusel_tap}
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
state() { q -c "SELECT changed_blocks || ' ' || built_at FROM gpusel_cached_tables WHERE relation = '$1'::regclass"; }
answer() {
  q -c "SET gpusel.min_rows = 0" -c "SET gpusel.enable_scan = $2" -c "SET gpusel.enable_groupagg = $2" \
    -c "SELECT string_agg(v || ':' || n || ':' || s, ',' ORDER BY v) FROM (SELECT v, count(*) n, sum(id) s FROM $1 WHERE v < 20 GROUP BY v) r"
}
off() { q -c "ALTER SYSTEM RESET gpusel.cache_refresh_naptime" -c "SELECT pg_reload_conf()" >/dev/null; }
trap off EXIT

q >/dev/null <<'SQL' || { echo "FAIL: setup"; exit 1; }
SET client_min_messages = warning;
DROP TABLE IF EXISTS refresh_hot, refresh_cold;
CREATE TABLE refresh_hot (id int8, v int4) WITH (fillfactor = 50);
INSERT INTO refresh_hot SELECT g, g % 100 FROM generate_series(1, 20000) g;
CREATE TABLE refresh_cold (id int8, v int4);
INSERT INTO refresh_cold SELECT g, g % 100 FROM generate_series(1, 20000) g;
SELECT gpusel_cache('refresh_hot'), gpusel_cache('refresh_cold');
SQL
cold_before=$(state refresh_cold | cut -d' ' -f2-)
hot_before=$(state refresh_hot | cut -d' ' -f2-)
q -c "UPDATE refresh_hot SET v = v + 1 WHERE id % 3 = 0" -c "UPDATE refresh_cold SET v = v + 1 WHERE id = 5"
q -c "ALTER SYSTEM SET gpusel.cache_refresh_naptime = 1" -c "SELECT pg_reload_conf()" >/dev/null

for _ in $(seq 60); do
  [ "$(state refresh_hot | cut -d' ' -f1)" = 0 ] && break
  sleep 0.5
done
hot_after=$(state refresh_hot)
if [ "${hot_after%% *}" = 0 ] && [ "${hot_after#* }" != "$hot_before" ]; then
  ok "the refresh rebuilt the written table in the background (built $hot_before, then ${hot_after#* })"
else
  fail "the written table was not rebuilt within 30 s: $hot_after (built $hot_before)"
fi
if [ "$(answer refresh_hot on)" = "$(answer refresh_hot off)" ]; then
  ok "the rebuilt cache answers as PostgreSQL does"
else
  fail "the rebuilt cache's answer differs from PostgreSQL's"
fi
src=$(q -c "SET gpusel.min_rows = 0" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM refresh_hot WHERE v < 20" | grep -E "Source|Blocks From Heap" | tr -s ' ' | paste -sd';')
[ "$src" = " Source: column cache; Blocks From Heap: 0" ] && ok "scans read the rebuilt cache, no block from the heap" || fail "scans of the rebuilt cache: '$src'"

sleep 2
cold_after=$(state refresh_cold)
if [ "${cold_after%% *}" != 0 ] && [ "${cold_after#* }" = "$cold_before" ]; then
  ok "a table with one row updated was left as it was"
else
  fail "the table with one row updated changed: $cold_after (built $cold_before)"
fi

off
sleep 1.5
q -c "UPDATE refresh_hot SET v = v + 1 WHERE id % 3 = 1"
built=$(state refresh_hot | cut -d' ' -f2-)
sleep 3
after=$(state refresh_hot)
if [ "${after#* }" = "$built" ] && [ "${after%% *}" != 0 ]; then
  ok "with gpusel.cache_refresh_naptime back at 0, nothing was rebuilt"
else
  fail "the refresh went on after it was turned off: $after"
fi

q -c "SELECT gpusel_uncache('refresh_hot'), gpusel_uncache('refresh_cold')" -c "DROP TABLE refresh_hot, refresh_cold" >/dev/null
[ $failed = 0 ] && echo "cache refresh tests passed" || { echo "cache refresh tests FAILED"; exit 1; }
