-- The column cache: gpusel's scans of a cached table answer exactly as
-- PostgreSQL does, through writes, rollbacks, TRUNCATE, VACUUM FULL and
-- trigger changes; its errors.  The cache needs gpusel preloaded: without
-- it, gpusel_cache() says so (the alternative output, cache_1.out).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
CREATE TABLE cache_nopreload (x int);
SELECT gpusel_cache('cache_nopreload');
DROP TABLE cache_nopreload;
\quit
\endif
\i test/sql/cache_oracle.sql

SET max_parallel_workers_per_gather = 0;
SET gpusel.min_rows = 0;
SET gpusel.explain_device_details = off;

-- adversarial values: NULLs, NaN, infinities, -0, duplicates, a text column
CREATE TABLE cache_t (id int8, grp int4, x float8, k int4, d date, m numeric(12,2), b bool, t text);
INSERT INTO cache_t
SELECT g, g % 37,
       CASE WHEN g % 101 = 0 THEN 'NaN' WHEN g % 103 = 0 THEN 'Infinity' WHEN g % 107 = 0 THEN '-Infinity'
            WHEN g % 109 = 0 THEN '-0' WHEN g % 11 = 0 THEN NULL ELSE (g::int8 * 7919 % 10007) / 10007.0 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g % 1000 END,
       date '2000-01-01' + (g % 5000),
       CASE WHEN g % 17 = 0 THEN NULL ELSE round(((g * 31) % 100000) / 7.0, 2) END,
       g % 3 = 0, 'row ' || g
FROM generate_series(1, 70001) g;

-- every shape, answered by gpusel and by PostgreSQL with gpusel off (no float
-- sums: under Gather their last digits depend on the order rows are added);
-- count(x) beside percentiles of x is the device's tally of their keys
CREATE FUNCTION cache_check() RETURNS TABLE (shape int, same boolean) LANGUAGE sql AS $$
  SELECT * FROM cache_same_as_postgres(ARRAY[
    'SELECT count(*), sum(k), avg(k), min(d), max(m), min(x), max(x) FROM cache_t WHERE x < 0.5 OR k > 900',
    'SELECT grp, count(*), sum(m), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_t WHERE d > ''2003-01-01'' GROUP BY grp',
    'SELECT grp, percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY k) FROM cache_t GROUP BY grp',
    'SELECT b, count(*), min(x), max(x) FROM cache_t WHERE k IS NULL OR x <> x GROUP BY b',
    'SELECT id, x, t FROM cache_t WHERE k BETWEEN 10 AND 12 AND d < ''2010-01-01''',
    'SELECT count(*) FROM cache_t WHERE m > 5000.25',
    'SELECT grp, count(x), percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_t GROUP BY grp',
    'SELECT count(x), count(k), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM cache_t WHERE d > ''2001-01-01'''])
$$;

-- where a scan's rows came from
CREATE FUNCTION cache_source(q text) RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;
CREATE VIEW cache_state AS
  SELECT relation, columns, rows, blocks, changed_blocks > 0 AS changed, state FROM gpusel_cached_tables;

SELECT gpusel_cache('cache_t');
SELECT * FROM cache_state;
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'cache_t'::regclass ORDER BY 1;
SELECT line FROM cache_source('SELECT count(*) FROM cache_t WHERE x < 0.5') WHERE line ~ 'Source|From';
SELECT * FROM cache_check();
-- with a device copy, count(x) beside percentiles of x leaves the rows grouped in device memory
SET gpusel.explain_device_details = on;
SELECT ((SELECT device_bytes > 0 FROM gpusel_cached_tables WHERE relation = 'cache_t'::regclass)
        AND current_setting('gpusel.device') <> 'cpu') = bool_or(line ~ 'Rows Grouped on Device: [1-9]') AS grouped_where_held
FROM cache_source('SELECT grp, count(x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_t GROUP BY grp');
SET gpusel.explain_device_details = off;

-- under Gather every process reads its share of the blocks through the cache
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT line FROM cache_source('SELECT grp, count(*), min(k) FROM cache_t WHERE x < 0.5 GROUP BY grp') WHERE line ~ 'Gather|Source';
SELECT * FROM cache_check();
SET max_parallel_workers_per_gather = 0;

-- writes after the build: their blocks come from the heap
UPDATE cache_t SET k = -k, x = x / 2 WHERE id % 997 = 0;
DELETE FROM cache_t WHERE id % 1009 = 1;
INSERT INTO cache_t SELECT g, 5, 0.25, 7, date '2020-01-01', 1.5, true, 'new' FROM generate_series(80001, 80400) g;
COPY cache_t FROM STDIN;
90001	3	0.125	8	2021-01-01	2.50	f	copied
90002	3	\N	\N	2021-01-02	\N	t	copied
\.
SELECT * FROM cache_state;
SELECT line FROM cache_source('SELECT count(*) FROM cache_t WHERE x < 0.5') WHERE line ~ 'Source|Blocks From Heap: [1-9]';
SELECT * FROM cache_check();
SET max_parallel_workers_per_gather = 2;
SELECT * FROM cache_check();
SET max_parallel_workers_per_gather = 0;

-- the session's own uncommitted writes, and a rolled-back subtransaction;
-- a transaction that writes the table reads it from the heap, and cannot
-- cache it
BEGIN;
UPDATE cache_t SET x = 0.75 WHERE id % 2 = 0 AND id < 30000;
SELECT count(*) FROM cache_source('SELECT count(*) FROM cache_t WHERE x < 0.5') WHERE line ~ 'Source';
SELECT * FROM cache_check() WHERE NOT same;
SAVEPOINT c;
\set VERBOSITY sqlstate
SELECT gpusel_cache('cache_t');
\set VERBOSITY default
ROLLBACK TO SAVEPOINT c;
SAVEPOINT s;
DELETE FROM cache_t WHERE grp = 4;
SELECT * FROM cache_check() WHERE NOT same;
ROLLBACK TO SAVEPOINT s;
SELECT * FROM cache_check() WHERE NOT same;
ROLLBACK;
SELECT * FROM cache_check() WHERE NOT same;

-- a write with session_replication_role = replica still marks its block
SET session_replication_role = replica;
UPDATE cache_t SET k = 123456 WHERE id = 500;
RESET session_replication_role;
SELECT count(*) FROM cache_t WHERE k = 123456;

-- a rebuild takes the writes in; its scans read nothing from the heap
SELECT gpusel_cache('cache_t', ARRAY['grp', 'x', 'k', 'd']);
SELECT * FROM cache_state;
SELECT line FROM cache_source('SELECT count(*) FROM cache_t WHERE x < 0.5') WHERE line ~ 'Source|From';
SELECT * FROM cache_check();
-- a scan that reads an uncached column reads the heap
SELECT count(*) FROM cache_source('SELECT count(*) FROM cache_t WHERE m > 10') WHERE line ~ 'Source';

-- a trigger disabled and enabled again: writes in between went unmarked
ALTER TABLE cache_t DISABLE TRIGGER gpusel_cache_track;
UPDATE cache_t SET x = 0.001 WHERE id % 3 = 1;
ALTER TABLE cache_t ENABLE ALWAYS TRIGGER gpusel_cache_track;
SELECT count(*) FROM cache_source('SELECT count(*) FROM cache_t WHERE x < 0.5') WHERE line ~ 'Source';
SELECT * FROM cache_check();

-- VACUUM FULL gives the table a new relfilenode; TRUNCATE empties it
SELECT gpusel_cache('cache_t');
VACUUM FULL cache_t;
SELECT count(*) FROM cache_source('SELECT count(*) FROM cache_t WHERE x < 0.5') WHERE line ~ 'Source';
SELECT * FROM cache_check();
SELECT gpusel_cache('cache_t');
BEGIN;
TRUNCATE cache_t;
INSERT INTO cache_t VALUES (1, 1, 0.5, 1, '2001-01-01', 1, true, 'one');
SELECT * FROM cache_check();
ROLLBACK;
SELECT state FROM cache_state;
SELECT * FROM cache_check();

-- a build that does not commit leaves no cache
SELECT gpusel_uncache('cache_t');
BEGIN;
SELECT gpusel_cache('cache_t') > 0 AS built;
ROLLBACK;
SELECT count(*) FROM cache_state;
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'cache_t'::regclass;

-- NULLs only in some blocks, changed blocks between cached ones: every
-- row's null bytes hold, serially and under Gather
CREATE TABLE cache_nulls AS
  SELECT g AS id, CASE WHEN g < 5000 AND g % 7 = 0 THEN NULL ELSE g END AS n, g % 5 AS grp
  FROM generate_series(1, 40000) g;
SELECT gpusel_cache('cache_nulls') > 0 AS built;
UPDATE cache_nulls SET n = n + 1 WHERE id % 4000 = 17;
-- PostgreSQL's answer, then gpusel's under Gather and serially
SET max_parallel_workers_per_gather = 2;
SET gpusel.enable_groupagg = off;
SELECT string_agg(r::text, ',' ORDER BY grp) FROM (SELECT grp, count(n), sum(n), min(n) FROM cache_nulls WHERE id > 0 GROUP BY grp) r;
RESET gpusel.enable_groupagg;
SELECT line FROM cache_source('SELECT grp, count(n), sum(n), min(n) FROM cache_nulls WHERE id > 0 GROUP BY grp') WHERE line ~ 'Gather|Source';
SELECT string_agg(r::text, ',' ORDER BY grp) FROM (SELECT grp, count(n), sum(n), min(n) FROM cache_nulls WHERE id > 0 GROUP BY grp) r;
SET max_parallel_workers_per_gather = 0;
SELECT string_agg(r::text, ',' ORDER BY grp) FROM (SELECT grp, count(n), sum(n), min(n) FROM cache_nulls WHERE id > 0 GROUP BY grp) r;
SELECT gpusel_uncache('cache_nulls');
DROP TABLE cache_nulls;

-- 1,000 builds, writes and drops leave nothing counted: a 2 MB budget still
-- holds a small table's one segment afterwards
CREATE TABLE cache_cycle (a int4, b int4);
INSERT INTO cache_cycle SELECT g, g FROM generate_series(1, 1000) g;
DO $$
BEGIN
  FOR i IN 1 .. 1000 LOOP
    PERFORM gpusel_cache('cache_cycle');
    UPDATE cache_cycle SET b = b + 1 WHERE a = i;
    IF i % 3 = 0 THEN PERFORM gpusel_uncache('cache_cycle'); END IF;
    COMMIT;
  END LOOP;
  PERFORM gpusel_uncache('cache_cycle');
END $$;
SELECT count(*) FROM cache_state;
-- a dropped database's caches are freed too: the budget below would not
-- hold both
SELECT current_database() AS cache_db \gset
CREATE DATABASE cache_gone_db;
\c cache_gone_db
CREATE EXTENSION gpusel;
CREATE TABLE cache_gone AS SELECT generate_series(1, 70000)::int4 AS a;
SELECT gpusel_cache('cache_gone') > 0 AS built;
\c :cache_db
DROP DATABASE cache_gone_db;
SET gpusel.cache_memory = 2;
SELECT gpusel_cache('cache_cycle');
RESET gpusel.cache_memory;
SELECT sum(b) FROM cache_cycle WHERE a > 0;
SELECT gpusel_uncache('cache_cycle');
DROP TABLE cache_cycle;

-- errors
\set VERBOSITY sqlstate
CREATE VIEW cache_v AS SELECT * FROM cache_t;
SELECT gpusel_cache('cache_v');
CREATE TEMP TABLE cache_temp (x int);
SELECT gpusel_cache('cache_temp');
CREATE TABLE cache_json (j jsonb);
SELECT gpusel_cache('cache_json', ARRAY['j']);
DROP TABLE cache_json;
SET gpusel.cache_memory = 1;
SELECT gpusel_cache('cache_t');
RESET gpusel.cache_memory;
SELECT count(*) FROM cache_state;
CREATE ROLE cache_other;
SET ROLE cache_other;
SELECT gpusel_cache('cache_t');
RESET ROLE;
DROP ROLE cache_other;
SELECT gpusel_cache_track();
\set VERBOSITY default

-- changed blocks at the edges of the marks' 32-block words, and a long
-- changed stretch across words: exactly those blocks come from the heap
-- (HOT updates keep each new version in its block)
SET max_parallel_workers_per_gather = 0;
CREATE TABLE cache_blocks (id int4, v int4) WITH (fillfactor = 50);
INSERT INTO cache_blocks SELECT g, g % 1000 FROM generate_series(1, 30000) g;
SELECT max((ctid::text::point)[0]) > 120 AS enough_blocks FROM cache_blocks;
SELECT gpusel_cache('cache_blocks') = 30000 AS built;
UPDATE cache_blocks SET v = v + 1000
WHERE ctid = ANY ('{"(0,1)","(31,1)","(32,1)","(33,1)","(63,1)","(64,1)","(95,1)"}'::tid[]);
SELECT line FROM cache_source('SELECT count(*), sum(v) FROM cache_blocks WHERE v > 500') WHERE line ~ 'Blocks From Heap';
SELECT count(*), sum(v) FROM cache_blocks WHERE v > 500;
UPDATE cache_blocks SET v = v + 1000 WHERE (ctid::text::point)[0] BETWEEN 40 AND 100 AND (ctid::text::point)[1] = 1;
SELECT line FROM cache_source('SELECT count(*), sum(v) FROM cache_blocks WHERE v > 500') WHERE line ~ 'Blocks From Heap';
SELECT count(*), sum(v) FROM cache_blocks WHERE v > 500;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
SELECT count(*), sum(v) FROM cache_blocks WHERE v > 500;
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
DROP TABLE cache_blocks;

-- a zero's sign where it is determined (the oracle above reads it as the
-- same): every zero of group 1 is -0, of group 2 +0, and each group's
-- median is a zero; read from the cache, serially and under Gather, the
-- text is PostgreSQL's
CREATE TABLE cache_zeros AS
  SELECT (i % 3) + 1 AS g,
         CASE WHEN i % 2 = 1 THEN i / 7.0 - 500
              WHEN i % 3 = 0 THEN '-0'::float8 ELSE '0'::float8 END::float8 AS x
  FROM generate_series(1, 20000) i;
ALTER TABLE cache_zeros SET (parallel_workers = 2);
ANALYZE cache_zeros;
SELECT gpusel_cache('cache_zeros') > 0 AS built;
SELECT bool_or(line ~ 'Source: column cache') AS reads_the_cache
  FROM cache_source('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_zeros WHERE g < 3 GROUP BY g');
CREATE TEMP TABLE cache_zeros_serial AS
  SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x)::text AS m,
         percentile_disc(ARRAY[0.3, 0.5]) WITHIN GROUP (ORDER BY x DESC)::text AS d
  FROM cache_zeros WHERE g < 3 GROUP BY g;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT bool_or(line ~ 'Gather') AND bool_or(line ~ 'Source: column cache') AS reads_the_cache_under_gather
  FROM cache_source('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_zeros WHERE g < 3 GROUP BY g');
CREATE TEMP TABLE cache_zeros_gather AS
  SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x)::text AS m,
         percentile_disc(ARRAY[0.3, 0.5]) WITHIN GROUP (ORDER BY x DESC)::text AS d
  FROM cache_zeros WHERE g < 3 GROUP BY g;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
SET gpusel.replace_builtin_percentiles = off;
SELECT s.g, s.m, s.d, s.m = e.m AND s.d = e.d AS serial_same, q.m = e.m AND q.d = e.d AS gather_same
  FROM cache_zeros_serial s JOIN cache_zeros_gather q USING (g)
  JOIN (SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x)::text AS m,
               percentile_disc(ARRAY[0.3, 0.5]) WITHIN GROUP (ORDER BY x DESC)::text AS d
        FROM cache_zeros WHERE g < 3 GROUP BY g) e USING (g)
  ORDER BY g;
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
RESET gpusel.replace_builtin_percentiles;
SELECT gpusel_uncache('cache_zeros');
DROP TABLE cache_zeros, cache_zeros_serial, cache_zeros_gather;

-- uncache drops the cache and the triggers; a dropped table's cache goes
SELECT gpusel_cache('cache_t') > 0 AS built;
SELECT gpusel_uncache('cache_t');
SELECT count(*) FROM cache_state;
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'cache_t'::regclass;
SELECT gpusel_cache('cache_t') > 0 AS built;
DROP VIEW cache_v;
DROP TABLE cache_t;
SELECT count(*) FROM cache_state;
DROP VIEW cache_state;
DROP FUNCTION cache_check();
DROP FUNCTION cache_same_as_postgres(text[]);
DROP FUNCTION cache_zero_unsigned(text);
DROP FUNCTION cache_source(text);
