--
-- The grouped scan within work_mem: past it a percentile collection's
-- (group, key) pairs spill to a temporary file and are sorted back by
-- PostgreSQL's tuplesort when the results need them, as PostgreSQL's own
-- sort spills.  Every answer is compared with PostgreSQL untouched
-- (oracle_check: plan kind, rows, mismatches that must be 0), and EXPLAIN
-- ANALYZE shows that the keys spilled while the sink's memory stayed a
-- small part of what the keys would have taken.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
SET extra_float_digits = 1;
SET synchronize_seqscans = off;

\i test/sql/oracle_functions.sql

-- 300,007 rows in 53 groups of uneven sizes, one group of one row and one
-- of NULLs only; NULLs, NaN, infinities, -0 and runs of equal values
CREATE TABLE gsp (id int, k int, f8 float8, f4 float4, i4 int4, i8 int8, d date, n numeric(12,2));
INSERT INTO gsp
SELECT g,
       CASE WHEN g % 101 = 0 THEN NULL ELSE (g::int8 * g % 53)::int END,
       CASE WHEN g % 17 = 0 THEN NULL WHEN g % 1009 = 0 THEN 'NaN' WHEN g % 2003 = 0 THEN '-Infinity'
            WHEN g % 3001 = 0 THEN '-0' ELSE (hashint4(g) % 100000) / 8.0 END,
       CASE WHEN g % 19 = 0 THEN NULL WHEN g % 4001 = 0 THEN 'Infinity' ELSE (hashint4(g) % 5000) / 4.0 END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE hashint4(g * 7) % 1000 END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE hashint4(g * 3)::int8 * 4001 END,
       CASE WHEN g % 31 = 0 THEN NULL ELSE date '2000-01-01' + hashint4(g) % 20000 END,
       CASE WHEN g % 37 = 0 THEN NULL ELSE (hashint4(g * 5) % 10000000) / 100.0 END
  FROM generate_series(1, 300000) g;
INSERT INTO gsp (id, k, f8, i4) VALUES (-1, 1000, 7.5, 7);
INSERT INTO gsp (id, k) SELECT -g, 1001 FROM generate_series(2, 7) g;
ANALYZE gsp;

SET work_mem = '64kB';

-- group keys: 8-byte keys (float8, int8, numeric as scaled int8) beside the group
SELECT * FROM oracle_check($$
  SELECT k, percentile_disc(ARRAY[0, 0.01, 0.5, 0.99, 1]) WITHIN GROUP (ORDER BY f8) AS p8,
         percentile_cont(0.37) WITHIN GROUP (ORDER BY f8) AS c8,
         percentile_disc(0.3) WITHIN GROUP (ORDER BY i8 DESC) AS pi8,
         percentile_disc(0.75) WITHIN GROUP (ORDER BY n) AS pn, count(*) AS n
  FROM gsp GROUP BY k $$);
-- 4-byte keys (float4, int4, date) beside the group
SELECT * FROM oracle_check($$
  SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY f4) AS p4,
         percentile_disc(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY i4 DESC) AS pi4,
         percentile_disc(0.2) WITHIN GROUP (ORDER BY d) AS pd, sum(i4) AS s
  FROM gsp GROUP BY k $$);
-- a WHERE clause, and keys that are expressions
SELECT * FROM oracle_check($$
  SELECT k % 5 AS k5, percentile_disc(0.9) WITHIN GROUP (ORDER BY f8) AS p, max(d) AS m
  FROM gsp WHERE i4 > 100 GROUP BY k % 5 $$);
-- the whole table, one group
SELECT * FROM oracle_check($$
  SELECT percentile_disc(ARRAY[0, 0.25, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY f8) AS p8,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY f8) AS c8,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p4,
         percentile_disc(0.123) WITHIN GROUP (ORDER BY n DESC) AS pn, count(*) AS n
  FROM gsp $$, 0);
SELECT * FROM oracle_check($$
  SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f4) AS p4 FROM gsp WHERE k < 10 $$, 0);

-- what spilled, and the sink's peak memory against the keys' own bytes
CREATE FUNCTION gsp_spill(q text, OUT spilled bool, OUT memory_bounded bool)
LANGUAGE plpgsql AS $fn$
DECLARE
  plan jsonb;
  keys bigint;
  peak bigint;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
  keys := jsonb_path_query_first(plan, 'strict $.**."Percentile Keys Spilled"');
  peak := jsonb_path_query_first(plan, 'strict $.**."Peak Memory Usage"');
  spilled := coalesce(keys > 100000, false);
  memory_bounded := peak < 1024;
END
$fn$;
-- 12 bytes a key in three collections of 300,000 rows would be more than 10 MB
SELECT * FROM gsp_spill($$
  SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8), percentile_disc(0.5) WITHIN GROUP (ORDER BY i8),
         percentile_disc(0.5) WITHIN GROUP (ORDER BY n)
  FROM gsp GROUP BY k $$);
SELECT * FROM gsp_spill($$ SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) FROM gsp $$);
-- within work_mem nothing spills
SET work_mem = '64MB';
SELECT spilled FROM gsp_spill($$ SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) FROM gsp GROUP BY k $$);
SET work_mem = '64kB';

-- under Gather the workers send their keys to the leader, which spills them
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM oracle_check($$
  SELECT k, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY f8) AS p8,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p4, count(*) AS n
  FROM gsp GROUP BY k $$);
SELECT * FROM oracle_check($$
  SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p8, percentile_disc(0.1) WITHIN GROUP (ORDER BY i8) AS p
  FROM gsp $$, 0);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;

DROP FUNCTION gsp_spill(text);
DROP TABLE gsp;
DROP FUNCTION oracle_check(text, int);
DROP FUNCTION oracle_run(text, text);
DROP FUNCTION oracle_compare(text, int);
DROP FUNCTION oracle_plan_kind(text);
DROP FUNCTION oracle_explain(text);
