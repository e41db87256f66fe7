-- gpusel_cache_refresh(): rebuilds this database's cached tables that writes
-- left stale (a share of their blocks written, or unusable: TRUNCATE, a
-- rewrite), on the same columns, and no other; a rebuild that fails is a
-- WARNING and the others go on.  The background worker that calls it is
-- tested by test/cache_refresh_test.sh.  Needs gpusel preloaded (the
-- alternative output, cache_refresh_1.out, has none of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif

SET max_parallel_workers_per_gather = 0;
SET gpusel.min_rows = 0;
SET gpusel.explain_device_details = off;
CREATE TABLE refresh_a (id int8, v int4, x float8) WITH (fillfactor = 50);
INSERT INTO refresh_a SELECT g, g % 100, g / 7.0 FROM generate_series(1, 30000) g;
CREATE TABLE refresh_b (id int8, v int4, x float8);
INSERT INTO refresh_b SELECT g, g % 50, g / 3.0 FROM generate_series(1, 30000) g;
SELECT gpusel_cache('refresh_a') AS a, gpusel_cache('refresh_b', ARRAY['id', 'v']) AS b;
CREATE VIEW refresh_state AS
  SELECT relation, columns, rows, changed_blocks > 0 AS changed, state
  FROM gpusel_cached_tables WHERE relation::text LIKE 'refresh_%' ORDER BY relation::text;
CREATE FUNCTION refresh_same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE gpu text; pg text;
BEGIN
  EXECUTE format('SELECT md5(string_agg(r::text, '','' ORDER BY r::text)) FROM (%s) r', q) INTO gpu;
  SET LOCAL gpusel.enable_scan = off;
  SET LOCAL gpusel.enable_groupagg = off;
  EXECUTE format('SELECT md5(string_agg(r::text, '','' ORDER BY r::text)) FROM (%s) r', q) INTO pg;
  RETURN gpu = pg;
END $$;
CREATE FUNCTION refresh_source(q text) RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;

-- nothing written: nothing to do
SELECT * FROM gpusel_cache_refresh();

-- one block of refresh_a and one of refresh_b written: below the default
-- share (0.1), nothing; with min_changed 0, both, refresh_b on its two columns
UPDATE refresh_a SET v = -1 WHERE id = 1;
UPDATE refresh_b SET v = -1 WHERE id = 1;
SELECT * FROM refresh_state;
SELECT * FROM gpusel_cache_refresh() ORDER BY 1;
SELECT * FROM gpusel_cache_refresh(0) ORDER BY 1;
SELECT * FROM refresh_state;
SELECT refresh_same('SELECT v, count(*), sum(id) FROM refresh_a WHERE v < 10 GROUP BY v');

-- every block of refresh_a written: even a share of 0.5 finds it, and it alone
UPDATE refresh_a SET v = v + 1 WHERE id % 4 = 0;
SET gpusel.cache_refresh_threshold = 0.5;
SELECT * FROM gpusel_cache_refresh() ORDER BY 1;
RESET gpusel.cache_refresh_threshold;
SELECT * FROM refresh_state;
SELECT refresh_same('SELECT v, count(*), sum(id) FROM refresh_a WHERE v < 10 GROUP BY v');

-- TRUNCATE and a rewrite leave caches that cannot serve scans: rebuilt whatever the share
TRUNCATE refresh_b;
INSERT INTO refresh_b SELECT g, g % 7, g FROM generate_series(1, 1000) g;
VACUUM FULL refresh_a;
SELECT * FROM refresh_state;
SELECT * FROM gpusel_cache_refresh(1) ORDER BY 1;
SELECT * FROM refresh_state;
SELECT line FROM refresh_source('SELECT count(*) FROM refresh_a WHERE v < 10') WHERE line ~ 'Source|Blocks From Heap';
SELECT refresh_same('SELECT v, count(*), sum(id) FROM refresh_b GROUP BY v');

-- a rebuild that fails (the table no longer fits) is a WARNING, and the
-- refresh goes on to the next table; then both are rebuilt
UPDATE refresh_a SET v = 0 WHERE id % 5 = 0;
UPDATE refresh_b SET v = 0 WHERE id % 5 = 0;
\set VERBOSITY terse
SET gpusel.cache_memory = 1;
SELECT * FROM gpusel_cache_refresh(0) ORDER BY 1;
RESET gpusel.cache_memory;
\set VERBOSITY default
SELECT * FROM refresh_state;
SELECT * FROM gpusel_cache_refresh(0) ORDER BY 1;

-- min_changed out of range
SELECT * FROM gpusel_cache_refresh(1.5);

SELECT gpusel_uncache('refresh_a'), gpusel_uncache('refresh_b');
DROP VIEW refresh_state;
DROP FUNCTION refresh_same(text);
DROP FUNCTION refresh_source(text);
DROP TABLE refresh_a, refresh_b;
