--
-- The grouped scan's device paths: collections of 65,536 keys and more,
-- rows put into groups on the device, and integer expressions computed a
-- block at a time.
--
\i test/sql/groupagg_setup.sql

-- Collections of 65,536 keys and more: on the GPU every group's keys are
-- sorted at once and ranks read by index.  NULL and all-NULL groups, NaN,
-- +-Infinity, -0 beside +0 and alone, 4- and 8-byte keys, DESC, several
-- fractions, percentile_cont, groups of one key and groups of most keys.
--
CREATE TABLE ga_sorted (i int4, g int4, x float8, y int4, z float4);
-- -0 only in group 6 and +0 only in group 7 (PostgreSQL's choice between
-- the two in one group depends on its sort); no other value is zero
INSERT INTO ga_sorted
SELECT i,
       CASE WHEN i % 501 = 0 THEN NULL WHEN i % 7 = 0 THEN 0 ELSE i % 53 END,
       CASE WHEN i % 53 = 5 THEN NULL
            WHEN i % 53 = 6 AND i % 7 <> 0 AND i % 501 <> 0 THEN '-0'::float8
            WHEN i % 53 = 7 AND i % 7 <> 0 AND i % 501 <> 0 THEN 0
            WHEN i % 1009 = 1 THEN 'NaN'
            WHEN i % 1013 = 2 THEN 'Infinity'
            WHEN i % 1019 = 3 THEN '-Infinity'
            ELSE ((i * 7919) % 100003) * 0.25 - 9000.125 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE ((i::int8 * 104729) % 2000003 - 1000001)::int4 END,
       CASE WHEN i % 53 = 8 AND i % 7 <> 0 AND i % 501 <> 0 THEN '-0'::float4
            ELSE ((i * 31) % 65537 + 1)::float4 / 8 END
FROM generate_series(1, 150001) i;
INSERT INTO ga_sorted VALUES (0, 1000, 1.5, 7, 2), (0, 1001, NULL, NULL, NULL);
ANALYZE ga_sorted;
SELECT * FROM ga_check($$SELECT g, count(*) AS c,
  gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p50,
  gpu_percentile(ARRAY[0, 0.01, 0.99, 1]) WITHIN GROUP (ORDER BY x) AS pa,
  gpu_percentile_cont(0.37) WITHIN GROUP (ORDER BY x) AS pc
  FROM ga_sorted GROUP BY g$$);
SELECT * FROM ga_check($$SELECT g, gpu_percentile(0.9) WITHIN GROUP (ORDER BY y DESC) AS pd,
  gpu_percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY y) AS pc,
  gpu_percentile(0.5) WITHIN GROUP (ORDER BY z) AS pz
  FROM ga_sorted WHERE y IS DISTINCT FROM 7 OR g = 1000 GROUP BY g$$);
-- 5,300 groups of about 28 keys; each group's zeros have one sign
SELECT * FROM ga_check($$SELECT i % 5300 AS b, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p,
  gpu_percentile(ARRAY[0, 1]) WITHIN GROUP (ORDER BY x DESC) AS pe
  FROM ga_sorted GROUP BY 1$$);
DROP TABLE ga_sorted;

--
-- Rows into groups on the device: with a device qual, one plain key
-- column (or none), one collection over a plain column and count(*), the
-- GPU finds each batch's keys and appends the pairs itself.  Batches of
-- 10,000 rows, so that 200,003 rows make 21 (the first row of each comes
-- from its tuple); NULL keys, keys that are floats with -0 and +0 (two
-- byte patterns, one group), NaN keys, every key type, values with NULL,
-- NaN, +-Infinity and -0 alone in its group.  On the GPU, EXPLAIN ANALYZE
-- must say the rows were grouped there.
--
CREATE TABLE ga_dev (i int4, g int4, s int2, b bool, t date, fk float8, w int8,
                     x float8, y int4, z float4);
INSERT INTO ga_dev
SELECT i,
       CASE WHEN i % 211 = 0 THEN NULL ELSE i % 101 END,
       (i % 7 - 3)::int2,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i % 3 = 0 END,
       date '2020-01-01' + i % 1500,
       CASE WHEN i % 10 = 0 THEN '-0'::float8 WHEN i % 10 = 5 THEN 0
            WHEN i % 97 = 1 THEN 'NaN' ELSE (i % 40) * 0.5 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE (i::int8 * 2654435761) % 1000000007 - 500000000 END,
       CASE WHEN i % 19 = 0 THEN NULL
            WHEN i % 101 = 6 AND i % 211 <> 0 THEN '-0'::float8
            WHEN i % 1009 = 1 THEN 'NaN'
            WHEN i % 1013 = 2 THEN 'Infinity'
            WHEN i % 1019 = 3 THEN '-Infinity'
            ELSE ((i * 7919) % 100003) * 0.25 - 9000.125 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE ((i::int8 * 104729) % 2000003 - 1000001)::int4 END,
       ((i * 31) % 65537 - 30000)::float4 / 8
FROM generate_series(1, 200003) i;
ANALYZE ga_dev;
SET gpusel.batch_rows = 10000;
-- whether EXPLAIN ANALYZE of q shows the rows grouped on the device when it ran on the GPU
CREATE FUNCTION ga_grouped_where_run(q text) RETURNS boolean LANGUAGE plpgsql AS $fn$
DECLARE
  line text;
  on_gpu boolean := false;
  on_device boolean := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ' || q LOOP
    on_gpu := on_gpu OR line ~ 'Device: gpu';
    on_device := on_device OR line ~ 'Rows Grouped on Device: [1-9]';
  END LOOP;
  RETURN on_gpu = on_device;
END
$fn$;
SELECT * FROM ga_check($$SELECT g, count(*) AS c,
  gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p50,
  gpu_percentile(ARRAY[0, 0.01, 0.99, 1]) WITHIN GROUP (ORDER BY x) AS pa,
  gpu_percentile_cont(0.37) WITHIN GROUP (ORDER BY x) AS pc
  FROM ga_dev WHERE i % 3 <> 1 GROUP BY g$$);
SELECT ga_grouped_where_run($$SELECT g, count(*), gpu_percentile(0.5) WITHIN GROUP (ORDER BY x)
  FROM ga_dev WHERE i % 3 <> 1 GROUP BY g$$);
-- count(x) beside percentiles of x: the device's tally of the pairs it appended
SELECT * FROM ga_check($$SELECT g, count(x) AS cx, count(*) AS c, count(y) AS cy,
  gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p50
  FROM ga_dev WHERE i % 3 <> 1 GROUP BY g$$);
SELECT * FROM ga_check($$SELECT s, count(x) AS cx, gpu_percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY x DESC) AS pc
  FROM ga_dev WHERE y > -900000 GROUP BY s$$);
SELECT ga_grouped_where_run($$SELECT g, count(x), gpu_percentile(0.5) WITHIN GROUP (ORDER BY x)
  FROM ga_dev WHERE i % 3 <> 1 GROUP BY g$$);
SELECT * FROM ga_check($$SELECT s, gpu_percentile(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY y DESC) AS p,
  count(*) AS c FROM ga_dev WHERE y > -900000 GROUP BY s$$);
SELECT * FROM ga_check($$SELECT b, gpu_percentile(0.5) WITHIN GROUP (ORDER BY z) AS p,
  gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY z) AS pc FROM ga_dev WHERE i > 10 GROUP BY b$$);
SELECT * FROM ga_check($$SELECT t, count(*) AS c, gpu_percentile(0.5) WITHIN GROUP (ORDER BY w) AS p
  FROM ga_dev WHERE x < 100000 GROUP BY t$$);
SELECT * FROM ga_check($$SELECT fk, count(*) AS c, gpu_percentile(ARRAY[0.5, 1]) WITHIN GROUP (ORDER BY y) AS p
  FROM ga_dev WHERE i % 5 <> 2 GROUP BY fk$$);
SELECT * FROM ga_check($$SELECT w, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p
  FROM ga_dev WHERE i % 4 = 0 GROUP BY w$$);
SELECT ga_grouped_where_run($$SELECT w, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x)
  FROM ga_dev WHERE i % 4 = 0 GROUP BY w$$);
-- float4 values as float8 keys, int4 values as int8 keys (a cast the planner folds into the column)
SELECT * FROM ga_check($$SELECT g, gpu_percentile(0.25) WITHIN GROUP (ORDER BY z::float8) AS p
  FROM ga_dev WHERE y IS NOT NULL GROUP BY g$$);
-- no GROUP BY: one group, its pairs appended by the device
SELECT * FROM ga_check($$SELECT count(*) AS c, gpu_percentile(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS p
  FROM ga_dev WHERE y > 0$$, 0);
SELECT ga_grouped_where_run($$SELECT count(*), gpu_percentile(0.5) WITHIN GROUP (ORDER BY x)
  FROM ga_dev WHERE y > 0$$);
-- nothing passes; one row passes (quals whose estimates keep the grouped scan)
SELECT * FROM ga_check($$SELECT g, count(*) AS c, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p
  FROM ga_dev WHERE y + 0 > 5000000 GROUP BY g$$);
SELECT * FROM ga_check($$SELECT g, count(*) AS c, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p
  FROM ga_dev WHERE y + 0 > 5000000 OR i = 777 GROUP BY g$$);
RESET gpusel.batch_rows;
DROP FUNCTION ga_grouped_where_run(text);
DROP TABLE ga_dev;

--
-- <integer column> <op> <constant> keys and inputs, computed a block at
-- a time in C (groupagg_native.c): + - * / % over int4 and int8, NULLs,
-- the types' extremes, / -1 and % -1, and the errors PostgreSQL raises
-- (overflow, division by zero), the same with gpusel off and on.
--
CREATE TABLE ga_nat (i int4, a int4, b int8, x float8);
INSERT INTO ga_nat
SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 100003 - 50000 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE (i::int8 * 2654435761) % 1000000007 - 500000000 END,
       (i % 1000) * 0.5
FROM generate_series(1, 30011) i;
INSERT INTO ga_nat VALUES (0, 2147483647, 9223372036854775807, 1), (0, -2147483648, -9223372036854775808, 2);
ANALYZE ga_nat;
SELECT * FROM ga_check($$SELECT a % 97 AS g, count(*) AS c, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p,
  sum(b / 1000) AS s, min(a % -1) AS m1, max(b % -1) AS m2 FROM ga_nat GROUP BY a % 97$$);
SELECT * FROM ga_check($$SELECT b / 100000000 AS g, count(*) AS c, sum(a / -1) AS s, avg(b % 1000) AS av
  FROM ga_nat WHERE a <> -2147483648 OR a IS NULL GROUP BY b / 100000000$$);
SELECT * FROM ga_check($$SELECT a / 1000 AS g, sum(a + 5) AS s, sum(b - 7) AS d, sum(a * 3) AS m
  FROM ga_nat WHERE i > 0 GROUP BY a / 1000$$);
SELECT ga_plan($$SELECT a % 97, count(*) FROM ga_nat GROUP BY a % 97$$);
-- errors: the extremes overflow, a zero divisor divides by zero
SET gpusel.enable_scan = off;
SELECT a + 1 AS g, count(*) FROM ga_nat GROUP BY a + 1;
SELECT b * 2 AS g, count(*) FROM ga_nat GROUP BY b * 2;
SELECT a / -1 AS g, count(*) FROM ga_nat GROUP BY a / -1;
SELECT b - 1 AS g, count(*) FROM ga_nat GROUP BY b - 1;
SELECT a % 0 AS g, count(*) FROM ga_nat GROUP BY a % 0;
SELECT count(*), sum(b / 0) FROM ga_nat WHERE i > 0;
RESET gpusel.enable_scan;
SELECT a + 1 AS g, count(*) FROM ga_nat GROUP BY a + 1;
SELECT b * 2 AS g, count(*) FROM ga_nat GROUP BY b * 2;
SELECT a / -1 AS g, count(*) FROM ga_nat GROUP BY a / -1;
SELECT b - 1 AS g, count(*) FROM ga_nat GROUP BY b - 1;
SELECT a % 0 AS g, count(*) FROM ga_nat GROUP BY a % 0;
SELECT count(*), sum(b / 0) FROM ga_nat WHERE i > 0;
SELECT ga_plan($$SELECT a + 1 AS g, count(*) FROM ga_nat GROUP BY a + 1$$),
       ga_plan($$SELECT count(*), sum(b / 0) FROM ga_nat WHERE i > 0$$);
-- a NULL-only column divided by zero raises nothing
SELECT * FROM ga_check($$SELECT i % 3 AS g, count(*) AS c, sum(a / 0) AS s FROM ga_nat WHERE a IS NULL GROUP BY i % 3$$);
DROP TABLE ga_nat;

\i test/sql/groupagg_teardown.sql
