-- Text, varchar, char(n) and uuid columns in the column cache: named in
-- gpusel_cache's column list, they are cached as codes of a dictionary of
-- the table, the same codes whichever build process read a row, and a
-- scan's text keys take those codes, with values of blocks written since
-- the build numbered after them.  Every shape is compared with
-- PostgreSQL's answer.  Needs gpusel preloaded (the alternative output,
-- cache_text_1.out, has none of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif
\i test/sql/cache_oracle.sql

SET max_parallel_workers_per_gather = 0;
SET gpusel.min_rows = 0;
-- few rows per block, so that the build asks for workers; NULLs, the empty
-- string, values long enough to be compressed, char(12) values stored
-- with and without trailing spaces, uuids
CREATE TABLE cache_text_t (id int8, ep text, v varchar(40), c12 char(12), u uuid,
                           ts timestamp, x float8, n int4)
  WITH (fillfactor = 10);
INSERT INTO cache_text_t
SELECT g,
       CASE WHEN g % 13 = 0 THEN NULL WHEN g % 11 = 0 THEN '' ELSE '/api/v1/endpoint' || (g % 40) END,
       CASE WHEN g % 9 = 0 THEN NULL ELSE repeat(chr(65 + g % 7), 1 + g % 5) END,
       CASE WHEN g % 4 = 0 THEN 'ab ' WHEN g % 4 = 1 THEN 'ab' WHEN g % 4 = 2 THEN NULL ELSE 'z' || (g % 3) END,
       CASE WHEN g % 6 = 0 THEN NULL ELSE ('00000000-0000-0000-0000-0000000000' || lpad((g % 30)::text, 2, '0'))::uuid END,
       timestamp '2026-01-01' + (g % 20000) * interval '1 second',
       CASE WHEN g % 97 = 0 THEN 'NaN' WHEN g % 89 = 0 THEN '-0' ELSE ((g * 7919) % 10007) / 10007.0 END,
       g % 1000
FROM generate_series(1, 30000) g;
-- a few long values, stored compressed
UPDATE cache_text_t SET ep = repeat('long endpoint ', 300) || (id % 3) WHERE id % 1000 = 7;
DELETE FROM cache_text_t WHERE id BETWEEN 5001 AND 8000;
VACUUM ANALYZE cache_text_t;
SELECT pg_relation_size('cache_text_t') / 8192 > 2048 AS many_blocks;

CREATE FUNCTION cache_text_check() RETURNS TABLE (shape int, same boolean) LANGUAGE sql AS $$
  SELECT * FROM cache_same_as_postgres(ARRAY[
    'SELECT ep, count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_text_t GROUP BY ep',
    'SELECT ep, date_trunc(''hour'', ts) h, percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_text_t GROUP BY 1, 2',
    'SELECT c12, length(c12), count(*), sum(n) FROM cache_text_t GROUP BY c12',
    'SELECT u, v, count(*), min(x), max(n) FROM cache_text_t GROUP BY u, v',
    'SELECT ep, c12, count(*), percentile_disc(0.25) WITHIN GROUP (ORDER BY n) FROM cache_text_t WHERE x < 0.5 GROUP BY 1, 2',
    'SELECT count(*), sum(n) FROM cache_text_t WHERE ep = ''/api/v1/endpoint3''',
    'SELECT v, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM cache_text_t WHERE n > 500 GROUP BY v'])
$$;
-- where the grouped shape's rows came from
CREATE FUNCTION cache_text_source() RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT ep, c12, u, count(*) FROM cache_text_t GROUP BY 1, 2, 3';
END $$;

-- not named, a text column is not cached: its values' dictionary could outgrow the cache
SELECT gpusel_cache('cache_text_t');
SELECT columns FROM gpusel_cached_tables WHERE relation = 'cache_text_t'::regclass;

-- named: built with workers, then by the building session alone
SET max_parallel_maintenance_workers = 4;
SELECT gpusel_cache('cache_text_t', ARRAY['ep', 'v', 'c12', 'u', 'ts', 'x', 'n']);
SELECT columns, rows FROM gpusel_cached_tables WHERE relation = 'cache_text_t'::regclass;
SELECT line FROM cache_text_source() WHERE line ~ 'Source|Rows From Cache|Blocks From Heap';
SELECT * FROM cache_text_check();
SET max_parallel_maintenance_workers = 0;
SELECT gpusel_cache('cache_text_t', ARRAY['ep', 'v', 'c12', 'u', 'ts', 'x', 'n']);
SELECT line FROM cache_text_source() WHERE line ~ 'Source|Rows From Cache|Blocks From Heap';
SELECT * FROM cache_text_check();

-- writes after the build: values the dictionary holds and values it does
-- not, read from the heap's changed blocks beside the cached ones
UPDATE cache_text_t SET ep = 'a new endpoint', c12 = 'new' WHERE id % 1999 = 0;
UPDATE cache_text_t SET ep = '/api/v1/endpoint7' WHERE id % 2003 = 0;
INSERT INTO cache_text_t VALUES (40000, 'another new one', 'ZZ', 'ab  ', gen_random_uuid(), '2026-01-01', 0.5, 1),
                                (40001, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT line FROM cache_text_source() WHERE line ~ 'Source|Blocks From Heap: [1-9]';
SELECT * FROM cache_text_check();

-- under Gather: each worker's dictionary takes the codes too, and crosses
-- to the leader with its groups
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM cache_text_check();
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- a rescan of the grouped scan (a LATERAL subquery with an outer parameter
-- in HAVING) numbers values again, the cache's codes first
SET enable_memoize = off;
CREATE FUNCTION cache_text_rescan() RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT o.v, s.* FROM (VALUES (0), (700), (NULL)) o(v),
    LATERAL (SELECT ep, count(*) AS c FROM cache_text_t GROUP BY ep HAVING count(*) > o.v) s';
END $$;
SELECT line FROM cache_text_rescan() WHERE line ~ 'Custom Scan|Source|Rows From Cache';
CREATE TEMP TABLE cache_text_rescan_gpusel AS SELECT o.v, s.* FROM (VALUES (0), (700), (NULL)) o(v),
  LATERAL (SELECT ep, count(*) AS c FROM cache_text_t GROUP BY ep HAVING count(*) > o.v) s;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
CREATE TEMP TABLE cache_text_rescan_pg AS SELECT o.v, s.* FROM (VALUES (0), (700), (NULL)) o(v),
  LATERAL (SELECT ep, count(*) AS c FROM cache_text_t GROUP BY ep HAVING count(*) > o.v) s;
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
RESET enable_memoize;
SELECT (SELECT count(*) FROM cache_text_rescan_pg) AS rows,
       (SELECT count(*) FROM (SELECT * FROM cache_text_rescan_gpusel EXCEPT ALL SELECT * FROM cache_text_rescan_pg) d) AS only_gpusel,
       (SELECT count(*) FROM (SELECT * FROM cache_text_rescan_pg EXCEPT ALL SELECT * FROM cache_text_rescan_gpusel) d) AS only_pg;
DROP FUNCTION cache_text_rescan();

-- a column with more distinct values than the cache codes is refused, and
-- the table's earlier cache stays
CREATE TABLE cache_text_many (id int4, s text);
INSERT INTO cache_text_many SELECT g, 'value ' || g FROM generate_series(1, 1048577) g;
SELECT gpusel_cache('cache_text_many', ARRAY['id']);
SELECT gpusel_cache('cache_text_many', ARRAY['id', 's']);
SELECT columns, rows FROM gpusel_cached_tables WHERE relation = 'cache_text_many'::regclass;
SELECT gpusel_uncache('cache_text_many');
DROP TABLE cache_text_many;

SELECT gpusel_uncache('cache_text_t');
DROP FUNCTION cache_text_check();
DROP FUNCTION cache_same_as_postgres(text[]);
DROP FUNCTION cache_zero_unsigned(text);
DROP FUNCTION cache_text_source();
DROP TABLE cache_text_t;
