-- Building the column cache with parallel workers: each reads chunks of
-- blocks and places its rows in heap order, so every scan of the cache
-- answers as PostgreSQL does, whichever process read a row, whatever
-- max_parallel_maintenance_workers is.  Needs gpusel preloaded (the
-- alternative output, cache_build_1.out, has none of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif
\i test/sql/cache_oracle.sql

SET max_parallel_workers_per_gather = 0;
SET gpusel.min_rows = 0;
-- few rows per block: thousands of blocks, so the build asks for workers;
-- NULLs of n only in the last rows (only some chunks have them), NaN, -0,
-- infinities, deleted rows (empty stretches of blocks)
CREATE TABLE cache_build_t (id int8, grp int4, x float8, n int4, d date, m numeric(10,2))
  WITH (fillfactor = 10);
INSERT INTO cache_build_t
SELECT g, g % 23,
       CASE WHEN g % 97 = 0 THEN 'NaN' WHEN g % 89 = 0 THEN '-0' WHEN g % 83 = 0 THEN '-Infinity'
            WHEN g % 79 = 0 THEN NULL ELSE ((g * 7919) % 10007) / 10007.0 END,
       CASE WHEN g > 39000 AND g % 5 = 0 THEN NULL ELSE g % 1000 END,
       date '2001-01-01' + g % 3000,
       CASE WHEN g % 7 = 0 THEN NULL ELSE ((g * 31) % 100000) / 7.0 END
FROM generate_series(1, 40000) g;
DELETE FROM cache_build_t WHERE id BETWEEN 10001 AND 14000;
VACUUM cache_build_t;
SELECT pg_relation_size('cache_build_t') / 8192 > 2048 AS many_blocks;

-- every shape, answered through the cache and by PostgreSQL with gpusel off
CREATE FUNCTION cache_build_check() RETURNS TABLE (shape int, same boolean) LANGUAGE sql AS $$
  SELECT * FROM cache_same_as_postgres(ARRAY[
    'SELECT count(*), sum(n), min(x), max(x), min(d), max(m), sum(m) FROM cache_build_t WHERE x < 0.5 OR n > 900',
    'SELECT grp, count(*), count(n), sum(n), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_build_t GROUP BY grp',
    'SELECT id, x, n FROM cache_build_t WHERE n BETWEEN 10 AND 11 OR id IN (1, 10000, 14001, 40000)',
    'SELECT count(*) FROM cache_build_t WHERE n IS NULL',
    'SELECT percentile_cont(ARRAY[0, 0.25, 0.5, 1]) WITHIN GROUP (ORDER BY id) FROM cache_build_t WHERE d > ''2003-01-01'''])
$$;
CREATE FUNCTION cache_build_source() RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM cache_build_t WHERE x < 0.5';
END $$;

-- with workers, then by the building session alone: the same rows in the same places
SET max_parallel_maintenance_workers = 4;
SELECT gpusel_cache('cache_build_t');
SELECT rows, blocks, changed_blocks FROM gpusel_cached_tables WHERE relation = 'cache_build_t'::regclass;
SELECT line FROM cache_build_source() WHERE line ~ 'Source|Rows From Cache|Blocks From Heap';
SELECT * FROM cache_build_check();
SET max_parallel_maintenance_workers = 0;
SELECT gpusel_cache('cache_build_t');
SELECT * FROM cache_build_check();

-- writes after a parallel build come from the heap
SET max_parallel_maintenance_workers = 4;
SELECT gpusel_cache('cache_build_t');
UPDATE cache_build_t SET n = -n, x = 0.25 WHERE id % 1999 = 0;
INSERT INTO cache_build_t VALUES (50000, 1, 0.125, NULL, '2002-02-02', 1.25);
SELECT * FROM cache_build_check();

-- a build that does not fit ends with the error, workers or not; the earlier
-- cache stays
-- (terse: the detail counts whatever else the server has cached)
\set VERBOSITY terse
SET gpusel.cache_memory = 1;
SELECT gpusel_cache('cache_build_t');
RESET gpusel.cache_memory;
SELECT count(*) FROM gpusel_cached_tables WHERE relation = 'cache_build_t'::regclass;

-- an error in a subtransaction leaves the session able to build again
BEGIN;
SAVEPOINT s;
SET LOCAL gpusel.cache_memory = 1;
SELECT gpusel_cache('cache_build_t');
ROLLBACK TO SAVEPOINT s;
SELECT gpusel_cache('cache_build_t');
COMMIT;
\set VERBOSITY default
SELECT * FROM cache_build_check();

SELECT gpusel_uncache('cache_build_t');

-- a build that runs out of room in a worker, while the session waits for
-- that worker's chunk: the error ends the build, the session goes on
CREATE TABLE cache_build_w (id int8, v int4) WITH (fillfactor = 30);
INSERT INTO cache_build_w SELECT g, g % 10 FROM generate_series(1, 300000) g;
\set VERBOSITY terse
SET gpusel.cache_memory = 4;
SELECT gpusel_cache('cache_build_w');
SELECT gpusel_cache('cache_build_w');
RESET gpusel.cache_memory;
\set VERBOSITY default
SELECT gpusel_cache('cache_build_w');
SELECT count(*), sum(v) FROM cache_build_w WHERE v < 5;
SELECT gpusel_uncache('cache_build_w');
DROP TABLE cache_build_w;
DROP FUNCTION cache_build_check();
DROP FUNCTION cache_same_as_postgres(text[]);
DROP FUNCTION cache_zero_unsigned(text);
DROP FUNCTION cache_build_source();
DROP TABLE cache_build_t;
