--
-- Selecting each group's ranks among its keys, where groups hold from one
-- key to thousands: in memory and spilled past work_mem (the spilled
-- pairs are placed by group in one array per partition), for key orders
-- chosen against the partitioning (sorted, reverse-sorted, all equal, two
-- values, organ pipe, sawtooth), for one rank, neighbouring ranks
-- (percentile_cont) and many (an array of fractions), and for 4- and
-- 8-byte keys with NULL, NaN, the infinities and -0.  Every answer is
-- compared with PostgreSQL untouched (oracle_check: plan kind, rows,
-- mismatches that must be 0).
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
SET extra_float_digits = 1;
SET synchronize_seqscans = off;

\i test/sql/oracle_functions.sql

-- group g (0..2999) holds 1 + g % 700 rows, 3,000 groups and 1,047,100 keys
-- in all; shape s = g % 7 orders a group's keys (i is a row's place in it)
CREATE TABLE gsel (g int, s int, i int, f8 float8, f4 float4, i4 int4);
INSERT INTO gsel
SELECT g, g % 7, i,
       CASE g % 7
         WHEN 0 THEN 1000 + i                             -- sorted
         WHEN 1 THEN -1000 - i                            -- reverse-sorted
         WHEN 2 THEN 42                                   -- all equal
         WHEN 3 THEN 1 + i % 2                            -- two values
         WHEN 4 THEN 1 + abs(i - (g % 700) / 2)           -- organ pipe
         WHEN 5 THEN 1 + i % 17                           -- sawtooth
         ELSE 1 + (hashint4(g * 7919 + i) & 1023) / 8.0   -- random, with duplicates
       END,
       NULL, NULL
  FROM generate_series(0, 2999) g, generate_series(0, 699) i
 WHERE i <= g % 700;
UPDATE gsel SET f4 = f8 / 3, i4 = (f8 * 7)::int4;
-- NULLs, NaN, the infinities and -0 in some groups (no other key is zero: which
-- of -0 and 0 a rank returns would depend on the input's order)
UPDATE gsel SET f8 = CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-Infinity'
                                WHEN 3 THEN '-0' ELSE 'Infinity' END::float8,
                f4 = CASE i % 4 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN 'Infinity' ELSE NULL END::float4
 WHERE g % 11 = 10 AND i % 3 = 0;
ANALYZE gsel;

-- in memory: one rank, neighbouring ranks, many ranks, DESC
SELECT * FROM oracle_check($$
  SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p8,
         percentile_cont(0.37) WITHIN GROUP (ORDER BY f8) AS c8,
         percentile_disc(ARRAY[0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1]) WITHIN GROUP (ORDER BY f8) AS many,
         percentile_disc(0.25) WITHIN GROUP (ORDER BY f4 DESC) AS p4, count(*) AS n
  FROM gsel GROUP BY g $$);
SELECT * FROM oracle_check($$
  SELECT g, percentile_cont(ARRAY[0.5, 0.75]) WITHIN GROUP (ORDER BY i4) AS ci,
         percentile_disc(0.99) WITHIN GROUP (ORDER BY f4) AS p4
  FROM gsel GROUP BY g $$);
-- by shape, so that every group of a shape is one group of thousands of keys
SELECT * FROM oracle_check($$
  SELECT s, percentile_disc(ARRAY[0.001, 0.5, 0.999]) WITHIN GROUP (ORDER BY f8) AS p8,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY f4) AS c4
  FROM gsel GROUP BY s $$);

-- spilled past work_mem (the groups themselves stay within hash_mem): partitions
-- of consecutive groups, one array each
SET work_mem = '256kB';
SELECT * FROM oracle_check($$
  SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p8
  FROM gsel GROUP BY g $$);
SELECT * FROM oracle_check($$
  SELECT g, percentile_cont(0.37) WITHIN GROUP (ORDER BY f8) AS c8
  FROM gsel GROUP BY g $$);
SELECT * FROM oracle_check($$
  SELECT g, percentile_disc(ARRAY[0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1]) WITHIN GROUP (ORDER BY f8) AS many
  FROM gsel GROUP BY g $$);
SELECT * FROM oracle_check($$
  SELECT g, percentile_disc(0.25) WITHIN GROUP (ORDER BY f4 DESC) AS p4
  FROM gsel GROUP BY g $$);
SELECT * FROM oracle_check($$
  SELECT g, percentile_cont(ARRAY[0.5, 0.75]) WITHIN GROUP (ORDER BY i4) AS ci
  FROM gsel WHERE i % 3 <> 1 GROUP BY g $$);
-- a group alone past work_mem spills its own keys
SELECT * FROM oracle_check($$
  SELECT s, percentile_disc(ARRAY[0.001, 0.5, 0.999]) WITHIN GROUP (ORDER BY f8) AS p8,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY f4) AS c4
  FROM gsel GROUP BY s $$);
-- the keys did spill
CREATE FUNCTION gsel_spilled(q text, min_keys bigint) RETURNS bool LANGUAGE plpgsql AS $fn$
DECLARE
  plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
  RETURN coalesce((jsonb_path_query_first(plan, 'strict $.**."Percentile Keys Spilled"'))::bigint > min_keys, false);
END
$fn$;
SELECT gsel_spilled($$ SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) FROM gsel GROUP BY g $$, 500000);

-- a file's first group without keys (only NULLs), then a group past work_mem in
-- the same file: the large group is read back alone
SET work_mem = '64kB';
CREATE TABLE gsel_null_first (g text, v float8);
INSERT INTO gsel_null_first VALUES ('a', NULL), ('b', 1), ('a', NULL);
INSERT INTO gsel_null_first SELECT 'c', (hashint4(i) & 65535) / 3.0 FROM generate_series(1, 20000) i;
INSERT INTO gsel_null_first SELECT 'e', i FROM generate_series(1, 100) i;
ANALYZE gsel_null_first;
SELECT * FROM oracle_check($$
  SELECT g, percentile_disc(ARRAY[0.25, 0.5]) WITHIN GROUP (ORDER BY v) AS p, percentile_cont(0.9) WITHIN GROUP (ORDER BY v) AS c
  FROM gsel_null_first GROUP BY g $$);
SELECT gsel_spilled($$ SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM gsel_null_first GROUP BY g $$, 10000);
DROP TABLE gsel_null_first;
RESET work_mem;

DROP FUNCTION gsel_spilled(text, bigint);
DROP TABLE gsel;
DROP FUNCTION oracle_check(text, int);
DROP FUNCTION oracle_run(text, text);
DROP FUNCTION oracle_compare(text, int);
DROP FUNCTION oracle_plan_kind(text);
DROP FUNCTION oracle_explain(text);
