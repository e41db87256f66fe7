--
-- GpuSelScan's grouped aggregates, differentially against PostgreSQL.
--
-- ga_check(query, nkeys) runs a query twice: first as the oracle, with
-- gpusel out of the way (gpusel.enable_scan and
-- gpusel.replace_builtin_percentiles off: PostgreSQL's own plan and its
-- built-in percentile_disc and percentile_cont; gpu_percentile and
-- gpu_percentile_cont are spelt as the built-ins there), then with gpusel's
-- settings as they are.  It keeps both results in temp tables, joins them
-- on the group keys (the first nkeys columns) and shows the plan gpusel's
-- run had, the oracle's number of rows and the number of rows that do not
-- match, which must be 0.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET extra_float_digits = 1;

\i sql/oracle_functions.sql

-- The kind of plan a query gets (oracle_plan_kind).
CREATE FUNCTION ga_plan(q text) RETURNS text LANGUAGE sql AS $fn$
  SELECT oracle_plan_kind(oracle_explain(q))
$fn$;

-- Runs q as the oracle and with gpusel, and compares (oracle_check).
CREATE FUNCTION ga_check(q text, nkeys int DEFAULT 1,
                         OUT plan text, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE sql AS $fn$
  SELECT * FROM oracle_check(q, nkeys)
$fn$;

--
-- The main table: every type the grouped scan reads, NULLs in most columns,
-- a text and a numeric column.  Float values are multiples of 0.25 of
-- modest size, so sums and averages are exact in any order of summation.
--
CREATE TABLE ga (
  id int4, k int4, b bool, s2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  fk float8, d date, ts timestamp, tz timestamptz, t text, n numeric);
INSERT INTO ga
SELECT id,
       CASE WHEN id % 97 = 0 THEN NULL ELSE id % 37 END,
       CASE WHEN id % 11 = 0 THEN NULL ELSE id % 3 = 0 END,
       CASE WHEN id % 17 = 0 THEN NULL ELSE (id % 200 - 100) * 300 END,
       CASE WHEN id % 19 = 0 THEN NULL ELSE id * 7 % 1000 - 500 END,
       CASE WHEN id % 23 = 0 THEN NULL ELSE id::int8 * 1000003 - 2000000000 END,
       CASE WHEN id % 29 = 0 THEN NULL ELSE ((id % 400) - 200) * 0.25 END,
       CASE WHEN id % 13 = 0 THEN NULL ELSE ((id * 13) % 2000 - 1000) * 0.25 END,
       CASE WHEN id % 31 = 0 THEN NULL ELSE (id % 9 - 4) * 0.5 END,
       CASE WHEN id % 41 = 0 THEN NULL ELSE date '2020-01-01' + id % 50 END,
       CASE WHEN id % 43 = 0 THEN NULL ELSE timestamp '2020-01-01' + id * interval '17 minutes' END,
       CASE WHEN id % 47 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + id * interval '7 min 13 s' END,
       CASE WHEN id % 7 = 0 THEN NULL ELSE 'v' || id % 5 END,
       id / 8.0
FROM generate_series(1, 4000) id;
-- a group (k = 1000) whose aggregate inputs are all NULL
INSERT INTO ga (id, k, fk) SELECT 4000 + g, 1000, 1000 FROM generate_series(1, 5) g;
-- special float keys (k = 2000): -0 joins the group of 0; NaN (also with
-- its sign bit set, as -'NaN' and Infinity - Infinity give it), Infinity,
-- -Infinity and NULL are groups of their own
INSERT INTO ga (id, k, fk, f8, i4)
VALUES (4101, 2000, '-0', 1.5, 1), (4102, 2000, '-0', 2.5, 2),
       (4103, 2000, 'NaN', 1, 3), (4104, 2000, -'NaN'::float8, 2, 4),
       (4105, 2000, 'Infinity'::float8 - 'Infinity'::float8, 2.25, 5),
       (4106, 2000, 'Infinity', 3, 6), (4107, 2000, '-Infinity', 4, 7),
       (4108, 2000, NULL, 5, 8);
-- special float inputs, a group each (k = 2001 .. 2008); -0 and 0 never
-- share a group, where min, max and percentiles would depend on row order
INSERT INTO ga (id, k, f8, f4)
VALUES (4201, 2001, 'NaN', 'NaN'), (4202, 2001, 1, 1), (4203, 2001, 2, 2),
       (4204, 2002, 'Infinity', 'Infinity'), (4205, 2002, '-Infinity', '-Infinity'), (4206, 2002, 3, 3),
       (4207, 2003, '-0', '-0'), (4208, 2003, '-0', '-0'),
       (4209, 2004, 'Infinity', 'Infinity'), (4210, 2004, 5, 5), (4211, 2004, 6.5, 6.5),
       (4212, 2005, '-Infinity', '-Infinity'), (4213, 2005, 'NaN', 'NaN'),
       (4214, 2006, 0, 0), (4215, 2006, 0, 0), (4216, 2006, 7, 7),
       (4217, 2007, 'NaN', 'NaN'), (4218, 2007, -'NaN'::float8, -'NaN'::float4),
       (4219, 2008, -'NaN'::float8, -'NaN'::float4), (4220, 2008, -1, -1), (4221, 2008, 'Infinity', 'Infinity');
-- infinite dates and timestamps (k = 2009)
INSERT INTO ga (id, k, d, ts, tz)
VALUES (4301, 2009, 'infinity', '-infinity', 'infinity'), (4302, 2009, '-infinity', 'infinity', '-infinity'),
       (4303, 2009, '2020-02-02', '2020-02-02 02:02', '2020-02-02 02:02+00');
ANALYZE ga;
--
-- 1. The plans.  The grouped scan is chosen on cost, with or without a
-- GPU: one node with "Group Key:" lines and no Aggregate above it.
--
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(f8), avg(i4), min(d), max(ts) FROM ga GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, b, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8),
  percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY f8 DESC) FROM ga GROUP BY k, b;
EXPLAIN (COSTS OFF) SELECT date_trunc('hour', ts), count(t), sum(i4 * 2) FROM ga
  WHERE f8 > 0 AND t LIKE 'v1%' GROUP BY 1 HAVING max(i8) > 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(f8), min(tz) FROM ga;

--
-- 2. The check detects a difference: this query answers differently when
-- gpusel is on, so every row mismatches.
--
SELECT * FROM ga_check($$SELECT k, count(*) + (current_setting('gpusel.enable_scan') = 'on')::int AS c
  FROM ga WHERE k < 3 GROUP BY k$$);

--
-- 3. Every aggregate over every type, grouped by an int4 key with a NULL
-- group and a group (k = 1000) whose inputs are all NULL.
--
SELECT * FROM ga_check($$SELECT k, count(*) AS c, count(f8) AS cf, count(t) AS ct, count(b) AS cb,
  count(ts) AS cts FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, sum(s2) AS s_s2, sum(i4) AS s_i4, sum(i8) AS s_i8, sum(f4) AS s_f4,
  sum(f8) AS s_f8 FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, avg(s2) AS a_s2, avg(i4) AS a_i4, avg(i8) AS a_i8, avg(f4) AS a_f4,
  avg(f8) AS a_f8 FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, min(s2) AS mn_s2, max(s2) AS mx_s2, min(i4) AS mn_i4, max(i4) AS mx_i4,
  min(i8) AS mn_i8, max(i8) AS mx_i8, min(f4) AS mn_f4, max(f4) AS mx_f4, min(f8) AS mn_f8,
  max(f8) AS mx_f8 FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, min(d) AS mn_d, max(d) AS mx_d, min(ts) AS mn_ts, max(ts) AS mx_ts,
  min(tz) AS mn_tz, max(tz) AS mx_tz FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p_f8,
  percentile_disc(0.1) WITHIN GROUP (ORDER BY s2) AS p_s2,
  percentile_disc(0.9) WITHIN GROUP (ORDER BY i4) AS p_i4,
  percentile_disc(0.3) WITHIN GROUP (ORDER BY i8) AS p_i8,
  percentile_disc(0.7) WITHIN GROUP (ORDER BY f4) AS p_f4,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY d) AS p_d,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY ts) AS p_ts,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY tz) AS p_tz,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY f8) AS pc_f8 FROM ga GROUP BY k$$);
-- the NULL group and the all-NULL group, shown (the check above compared them)
SELECT k, count(*), count(f8), sum(i4), sum(i8), avg(s2), avg(f8), min(d), max(tz),
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p,
  percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY f8) AS pc
FROM ga WHERE k IS NULL OR k = 1000 GROUP BY k ORDER BY k;

--
-- 4. Special float values.  As keys: -0 joins the group of 0; every NaN
-- (whatever its sign bit), Infinity, -Infinity and NULL are groups of their
-- own.  As inputs: NaN sorts above Infinity in min, max and percentiles;
-- sums over them follow IEEE.  The WHERE clause leaves few rows, so
-- PostgreSQL's own grouping is left out (gpusel.force_groupagg) to keep the grouped scan.
--
SET gpusel.force_groupagg = on;
SELECT * FROM ga_check($$SELECT fk, count(*) AS c, sum(f8) AS s, min(i4) AS mn, max(i4) AS mx,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p FROM ga GROUP BY fk$$);
SELECT fk, count(*) AS c, sum(f8) AS s, min(i4) AS mn FROM ga WHERE k = 2000 GROUP BY fk ORDER BY fk;
SELECT * FROM ga_check($$SELECT k, count(f8) AS c, sum(f8) AS s8, avg(f8) AS a8, min(f8) AS mn8, max(f8) AS mx8,
  sum(f4) AS s4, avg(f4) AS a4, min(f4) AS mn4, max(f4) AS mx4 FROM ga WHERE k BETWEEN 2001 AND 2008 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, percentile_disc(ARRAY[0, 0.25, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY f8) AS p8,
  percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY f8 DESC) AS p8d,
  percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY f4) AS p4,
  percentile_cont(ARRAY[0, 0.3, 0.5, 1]) WITHIN GROUP (ORDER BY f8) AS pc8,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY f8 DESC) AS pc8d FROM ga WHERE k BETWEEN 2001 AND 2008 GROUP BY k$$);
SELECT k, count(f8), sum(f8), avg(f8), min(f8), max(f8),
  percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY f8) AS p,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY f8) AS pc
FROM ga WHERE k BETWEEN 2001 AND 2008 GROUP BY k ORDER BY k;
-- infinite dates and timestamps
SELECT * FROM ga_check($$SELECT k, min(d) AS mn_d, max(d) AS mx_d, min(ts) AS mn_ts, max(ts) AS mx_ts,
  min(tz) AS mn_tz, max(tz) AS mx_tz, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY d) AS p_d,
  percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY ts DESC) AS p_ts,
  percentile_disc(0.25) WITHIN GROUP (ORDER BY tz) AS p_tz FROM ga WHERE k >= 2009 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT d, ts, tz, count(*) AS c FROM ga WHERE k >= 2009 GROUP BY 1, 2, 3$$, 3);
RESET gpusel.force_groupagg;

--
-- 5. Percentile fractions: 0 and 1, arrays with NULL elements, the empty
-- array, a NULL fraction, DESC, percentile_cont single and array, and
-- gpusel's own names (the oracle runs the built-ins there).
--
SELECT * FROM ga_check($$SELECT k, percentile_disc(0) WITHIN GROUP (ORDER BY f8) AS p0,
  percentile_disc(1) WITHIN GROUP (ORDER BY f8) AS p1,
  percentile_disc(0.333) WITHIN GROUP (ORDER BY i4 DESC) AS pd,
  percentile_disc(ARRAY[0.5, NULL, 0.01, 0.99]) WITHIN GROUP (ORDER BY f8) AS pa,
  percentile_disc(ARRAY[NULL, 0.25]) WITHIN GROUP (ORDER BY ts DESC) AS pts,
  percentile_disc('{}'::float8[]) WITHIN GROUP (ORDER BY f8) AS pe,
  percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY f8) AS pn,
  percentile_cont(0.25) WITHIN GROUP (ORDER BY f8) AS pc,
  percentile_cont(ARRAY[1, NULL, 0, 0.125]) WITHIN GROUP (ORDER BY f8 DESC) AS pca,
  percentile_cont('{}'::float8[]) WITHIN GROUP (ORDER BY f8) AS pce FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, gpu_percentile(0.5) WITHIN GROUP (ORDER BY f8) AS g1,
  gpu_percentile(ARRAY[0.2, 0.8]) WITHIN GROUP (ORDER BY d DESC) AS g2,
  gpu_percentile_cont(0.75) WITHIN GROUP (ORDER BY f8) AS g3,
  gpu_percentile_cont(ARRAY[0.5, NULL]) WITHIN GROUP (ORDER BY f8 DESC) AS g4 FROM ga GROUP BY k$$);
-- ORDER BY ... USING > is DESC; NULLS FIRST changes nothing, NULLs are skipped
SELECT * FROM ga_check($$SELECT k, percentile_disc(0.25) WITHIN GROUP (ORDER BY f8 USING >) AS pu,
  percentile_disc(0.25) WITHIN GROUP (ORDER BY f8 NULLS FIRST) AS pn FROM ga GROUP BY k$$);
SELECT k, percentile_disc(ARRAY[0.5, NULL, 1]) WITHIN GROUP (ORDER BY f8) AS pa,
  percentile_disc('{}'::float8[]) WITHIN GROUP (ORDER BY f8) AS pe,
  percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY f8) AS pn,
  percentile_cont(ARRAY[0.5, 0.1]) WITHIN GROUP (ORDER BY f8 DESC) AS pcd
FROM ga WHERE k IN (1, 2, 1000, 2004) GROUP BY k ORDER BY k;

--
-- 6. Expressions as keys and as aggregate inputs, and expressions over keys
-- and aggregates in the target list.
--
SELECT * FROM ga_check($$SELECT (id % 10) * 1000 + k AS e, count(*) AS c, sum(f8) AS s FROM ga GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('hour', ts) AS h, count(*) AS c, min(i4) AS mn, max(tz) AS mx
  FROM ga GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT d - date '2020-01-01' AS dd, ts::date AS tsd, count(*) AS c FROM ga
  WHERE k IS DISTINCT FROM 2009 GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT f8 > 0 AS pos, coalesce(k, -1) AS k1, count(*) AS c, sum(f4) AS s FROM ga GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT date_trunc('day', tz) AS day, count(*) AS c, max(tz) AS m FROM ga GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT k, sum(i4 * 2 + 1) AS a, avg(f8 * 4) AS b2, max(ts + interval '1 day') AS c,
  min(d + 7) AS d2, count(CASE WHEN b THEN 1 END) AS e, sum(s2::int8 * 1000000000000) AS f,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY f8 / 2 + 1) AS g,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY -i4) AS h FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, k * 10 AS k10, sum(i4) * 2 AS s2x, max(f8) - min(f8) AS rng,
  coalesce(sum(i8), -1) AS s8, count(*) > 100 AS big, sum(i4) AS s4 FROM ga GROUP BY k$$, 2);
-- count of any type and of constants, aggregates over the key itself
SELECT * FROM ga_check($$SELECT k, count(n) AS cn, count(t || 'x') AS ct, count(1) AS c1,
  count(NULL::int4) AS cnull, sum(1) AS s1, max(k) AS mk,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY k) AS pk FROM ga GROUP BY k$$);
-- a key expression that fails only on rows the WHERE clause removes, with
-- a host qual (t IS NULL exactly where id % 7 = 0)
SELECT * FROM ga_check($$SELECT 100 / (id % 7) AS q, count(*) AS c FROM ga WHERE t IS NOT NULL GROUP BY 1$$);
-- the same with a device qual
SELECT * FROM ga_check($$SELECT 100 / (id % 7) AS q, count(*) AS c FROM ga WHERE id % 7 <> 0 GROUP BY 1$$);

--
-- 7. HAVING: with aggregates of the target list, with an aggregate only in
-- HAVING, with a percentile, and over keys only.
--
SELECT * FROM ga_check($$SELECT k, count(*) AS c FROM ga GROUP BY k HAVING count(*) >= 108$$);
SELECT * FROM ga_check($$SELECT k, count(*) AS c FROM ga GROUP BY k HAVING sum(i8) > 0$$);
SELECT * FROM ga_check($$SELECT k, avg(f8) AS a FROM ga GROUP BY k
  HAVING percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) > 0 OR max(d) IS NULL$$);
SET gpusel.force_groupagg = on;
SELECT * FROM ga_check($$SELECT k, min(ts) AS m FROM ga GROUP BY k HAVING k % 2 = 0 AND min(f4) < 0$$);
RESET gpusel.force_groupagg;
-- no aggregate in the target list at all
SELECT * FROM ga_check($$SELECT k FROM ga GROUP BY k HAVING count(*) >= 108$$);
-- window functions over the groups
SELECT * FROM ga_check($$SELECT k, sum(count(*)) OVER () AS w, rank() OVER (ORDER BY sum(i4), k) AS r
  FROM ga GROUP BY k$$);
SELECT k, count(*) FROM ga GROUP BY k HAVING sum(i4) < -5000 OR sum(i4) IS NULL ORDER BY k;

--
-- 8. WHERE with grouping: device and host quals, none matching, and an
-- aggregate input that fails on rows the WHERE clause removes.
--
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM ga WHERE f8 > 0 AND b GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, count(*) AS c, max(i4) AS m FROM ga WHERE t LIKE 'v1%' GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, sum(1000 / i4) AS q FROM ga WHERE i4 <> 0 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT b, count(*) AS c, avg(i8) AS a FROM ga
  WHERE id BETWEEN 100 AND 900 AND (ts < '2020-01-05' OR d IS NULL) GROUP BY b$$);
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(i4) AS s, avg(i4) AS a FROM ga WHERE i4 > 400 GROUP BY k$$);
-- system columns and an initplan in the WHERE clause (a TID range scan,
-- which reads only the blocks from 20 on, would otherwise be cheaper than
-- the grouped scan's read of every block)
SET enable_tidscan = off;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM ga
  WHERE ctid >= '(20,0)' AND tableoid = 'ga'::regclass AND xmin::text <> '0' GROUP BY k$$);
RESET enable_tidscan;
-- an index scan that reads a handful of rows is cheaper than the grouped
-- scan's read of every block, and keeps PostgreSQL's plan
CREATE INDEX ga_id_idx ON ga (id);
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(i4) AS s FROM ga WHERE id = 500 GROUP BY k$$);
DROP INDEX ga_id_idx;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM ga
  WHERE i4 > (SELECT avg(i4) FROM ga) GROUP BY k$$);

--
-- 9. Several keys of different types.
--
SELECT * FROM ga_check($$SELECT k % 5 AS k5, b, d, count(*) AS c, sum(i4) AS s FROM ga GROUP BY 1, 2, 3$$, 3);
SELECT * FROM ga_check($$SELECT b, fk, ts, count(*) AS c, max(f8) AS m FROM ga GROUP BY 1, 2, 3$$, 3);
SELECT * FROM ga_check($$SELECT s2, f4, count(*) AS c, min(i8) AS m FROM ga GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT i8 % 7 AS i87, tz, k, count(*) AS c FROM ga GROUP BY 1, 2, 3$$, 3);
SELECT * FROM ga_check($$SELECT k, b, d, fk, ts, count(*) AS c, sum(f8) AS s,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p FROM ga GROUP BY 1, 2, 3, 4, 5$$, 5);
-- a key that is not in the target list
SELECT * FROM ga_check($$SELECT count(*) AS c, sum(f8) AS s FROM ga GROUP BY k, b$$, 0);

--
-- 10. One group, and no GROUP BY at all.
--
SELECT * FROM ga_check($$SELECT k * 0 AS z, count(*) AS c, sum(i8) AS s, avg(f8) AS a,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p FROM ga GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT count(*) AS c, count(f8) AS cf, sum(i4) AS s, avg(i8) AS a, min(ts) AS mn,
  max(f8) AS mx FROM ga$$, 0);
SELECT * FROM ga_check($$SELECT count(*) AS c, sum(i4) AS s FROM ga WHERE b$$, 0);
-- without GROUP BY every row is the one group's: avg(float) runs on its
-- state held in locals, count(*) adds a block at once and the keys go in a
-- block at a time (NULLs, NaN, Infinity and -0 among them; with a WHERE
-- clause the rows come as positions; k < 100 leaves the special values out)
SELECT * FROM ga_check($$SELECT count(*) AS c, count(f4) AS cf, avg(f8) AS a8, avg(f4) AS a4,
  percentile_disc(ARRAY[0, 0.1, 0.75, 1]) WITHIN GROUP (ORDER BY f8) AS p8,
  percentile_disc(0.2) WITHIN GROUP (ORDER BY f4 DESC) AS p4,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY i4) AS pc FROM ga$$, 0);
SELECT * FROM ga_check($$SELECT count(*) AS c, avg(f8) AS a8, avg(f4) AS a4,
  percentile_disc(ARRAY[0.1, 0.75]) WITHIN GROUP (ORDER BY f8) AS p8 FROM ga WHERE i4 > 0$$, 0);
SELECT * FROM ga_check($$SELECT count(*) AS c, avg(f8) AS a8, avg(f4) AS a4,
  percentile_disc(ARRAY[0.1, 0.75]) WITHIN GROUP (ORDER BY f8) AS p8 FROM ga WHERE k < 100$$, 0);
SELECT count(*), avg(f8), avg(f4), percentile_disc(ARRAY[0.1, 0.75]) WITHIN GROUP (ORDER BY f8)
FROM ga WHERE k < 100;

--
-- 11. Empty input: GROUP BY gives no rows; without GROUP BY, one row with
-- count 0 and NULLs.
--
CREATE TABLE ga_empty (LIKE ga);
ANALYZE ga_empty;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p
  FROM ga_empty GROUP BY k$$);
SET gpusel.force_groupagg = on;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM ga WHERE i4 > 1000000 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT count(*) AS c, count(f8) AS cf, sum(i8) AS s, avg(i4) AS a, min(d) AS m
  FROM ga WHERE i4 > 1000000$$, 0);
SELECT count(*), count(f8), sum(i8), sum(f8), avg(i4), min(d), max(tz) FROM ga WHERE i4 > 1000000;
SELECT k, count(*) FROM ga WHERE i4 > 1000000 GROUP BY k;
RESET gpusel.force_groupagg;

--
-- 12. Integer sums and averages: int8 values near 9e18 whose sums overflow
-- int64 (PostgreSQL's numeric result is exact), int2 and int4 sums beyond
-- int4, averages as numeric with PostgreSQL's scale.
--
CREATE TABLE ga_int (k int4, s2 int2, i4 int4, i8 int8);
INSERT INTO ga_int SELECT g % 20, (g % 65536) - 32768, 2147483647 - g % 3, g * 12345 FROM generate_series(1, 3000) g;
INSERT INTO ga_int VALUES
  (100, 32767, 2147483647, 9000000000000000000), (100, 32767, 2147483647, 9000000000000000000),
  (100, 32767, 2147483647, 9223372036854775807),
  (101, -32768, -2147483648, -9000000000000000000), (101, -32768, -2147483648, -9223372036854775808),
  (101, -32768, -2147483648, -9223372036854775808),
  (102, 1, 1, 9223372036854775807), (102, -1, -1, -9223372036854775808), (102, 0, 0, 9223372036854775807),
  (103, 1, 1, 1), (103, 2, 2, 2), (103, 2, 2, 2);
ANALYZE ga_int;
SELECT * FROM ga_check($$SELECT k, sum(s2) AS s_s2, sum(i4) AS s_i4, sum(i8) AS s_i8,
  avg(s2) AS a_s2, avg(i4) AS a_i4, avg(i8) AS a_i8, min(i8) AS mn, max(i8) AS mx, min(s2) AS mn2,
  max(i4) AS mx4 FROM ga_int GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY i8) AS p8,
  percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY s2 DESC) AS p2,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p4 FROM ga_int GROUP BY k$$);
SELECT * FROM ga_check($$SELECT i8, s2, count(*) AS c FROM ga_int GROUP BY 1, 2$$, 2);
SELECT k, sum(s2), sum(i4), sum(i8), avg(s2), avg(i4), avg(i8) FROM ga_int WHERE k >= 100 GROUP BY k ORDER BY k;

--
-- 13. Errors: the same error from PostgreSQL's plan and from the grouped
-- scan.  A constant fraction outside [0, 1] keeps PostgreSQL's plan, which
-- raises it at the first group (groupagg_limit.sql).
--
CREATE TABLE ga_err (k int4, x float8, y float4, i int4);
INSERT INTO ga_err SELECT g % 10, g * 0.25, g * 0.25, g FROM generate_series(1, 3000) g;
-- k = 100: float8 and float4 sums overflow, and 100 / i fails; k = 101:
-- avg(float8) overflows in its sum of squares, which PostgreSQL checks too
INSERT INTO ga_err VALUES (100, 1e308, 3e38, 0), (100, 1e308, 3e38, 1),
  (101, 1e200, 1e30, 1), (101, -1e200, -1e30, 1);
ANALYZE ga_err;
EXPLAIN (COSTS OFF) SELECT k, sum(x) FROM ga_err GROUP BY k;
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
SELECT k, sum(x) FROM ga_err GROUP BY k;
SELECT k, sum(y) FROM ga_err GROUP BY k;
SELECT k, avg(x) FROM ga_err WHERE k <> 100 GROUP BY k;
SELECT avg(x), avg(y) FROM ga_err WHERE k <> 100;
SELECT k, sum(100 / i) FROM ga_err GROUP BY k;
SELECT k, sum(i * 1000000) FROM ga_err GROUP BY k;
SELECT 100 / i AS q, count(*) FROM ga_err GROUP BY 1;
SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM ga_err GROUP BY k;
SELECT k, percentile_cont(-0.5) WITHIN GROUP (ORDER BY x) FROM ga_err GROUP BY k;
SELECT k, percentile_disc(ARRAY[0.5, 'NaN']) WITHIN GROUP (ORDER BY i) FROM ga_err GROUP BY k;
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
SELECT ga_plan($$SELECT k, sum(x) FROM ga_err GROUP BY k$$),
       ga_plan($$SELECT k, sum(y) FROM ga_err GROUP BY k$$),
       ga_plan($$SELECT k, avg(x) FROM ga_err WHERE k <> 100 GROUP BY k$$),
       ga_plan($$SELECT avg(x), avg(y) FROM ga_err WHERE k <> 100$$),
       ga_plan($$SELECT k, sum(100 / i) FROM ga_err GROUP BY k$$),
       ga_plan($$SELECT k, sum(i * 1000000) FROM ga_err GROUP BY k$$),
       ga_plan($$SELECT 100 / i AS q, count(*) FROM ga_err GROUP BY 1$$),
       ga_plan($$SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM ga_err GROUP BY k$$),
       ga_plan($$SELECT k, percentile_cont(-0.5) WITHIN GROUP (ORDER BY x) FROM ga_err GROUP BY k$$),
       ga_plan($$SELECT k, percentile_disc(ARRAY[0.5, 'NaN']) WITHIN GROUP (ORDER BY i) FROM ga_err GROUP BY k$$);
SELECT k, sum(x) FROM ga_err GROUP BY k;
SELECT k, sum(y) FROM ga_err GROUP BY k;
SELECT k, avg(x) FROM ga_err WHERE k <> 100 GROUP BY k;
SELECT avg(x), avg(y) FROM ga_err WHERE k <> 100;
SELECT k, sum(100 / i) FROM ga_err GROUP BY k;
SELECT k, sum(i * 1000000) FROM ga_err GROUP BY k;
SELECT 100 / i AS q, count(*) FROM ga_err GROUP BY 1;
SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM ga_err GROUP BY k;
SELECT k, percentile_cont(-0.5) WITHIN GROUP (ORDER BY x) FROM ga_err GROUP BY k;
SELECT k, percentile_disc(ARRAY[0.5, 'NaN']) WITHIN GROUP (ORDER BY i) FROM ga_err GROUP BY k;
-- without the failing rows, the same queries answer
SELECT * FROM ga_check($$SELECT k, sum(x) AS s8, sum(y) AS s4, avg(x) AS a FROM ga_err WHERE k < 100 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT avg(x) AS a8, avg(y) AS a4, count(*) AS c FROM ga_err WHERE k < 100$$, 0);

--
-- 14. About 100,000 groups: 300,000 rows keyed by i % 100000.  The groups
-- stay in memory, so the grouped scan is offered where their estimate fits
-- work_mem x hash_mem_multiplier (groupagg_plan.c); with 4MB it does not.
--
CREATE TABLE ga_big (i int4, g int4, x float8, y int8, d date);
INSERT INTO ga_big SELECT i, i % 100000, (i % 1013) * 0.25 - 100, i::int8 * 3, date '2000-01-01' + i % 3000
FROM generate_series(1, 300000) i;
ANALYZE ga_big;
SET work_mem = '4MB';
SELECT ga_plan($$SELECT g, count(*) AS c, sum(x) AS s, avg(y) AS a, min(d) AS mn, max(x) AS mx,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS p FROM ga_big GROUP BY g$$);
SET work_mem = '64MB';
SELECT * FROM ga_check($$SELECT g, count(*) AS c, sum(x) AS s, avg(y) AS a, min(d) AS mn, max(x) AS mx,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS p FROM ga_big GROUP BY g$$);
RESET work_mem;
SELECT * FROM ga_check($$SELECT g % 1000 AS g1000, x > 0 AS pos, count(*) AS c, sum(y) AS s
  FROM ga_big WHERE i % 3 <> 0 GROUP BY 1, 2$$, 2);

--
-- 15. Several batches: the main table is read 1024 rows at a time.
--
SET gpusel.batch_rows = 1024;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s, avg(i4) AS a, min(ts) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT fk, b, count(t) AS c, max(tz) AS m FROM ga WHERE f8 <> 0 GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT g % 97 AS g97, count(*) AS c, sum(x) AS s FROM ga_big GROUP BY 1$$);
RESET gpusel.batch_rows;

--
-- 16. Shapes left to PostgreSQL: not the grouped scan, same answers.
--
EXPLAIN (COSTS OFF) SELECT lower(t), count(*), sum(f8) FROM ga GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT i4) FROM ga GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(f8) FILTER (WHERE b) FROM ga GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, b, count(*) FROM ga GROUP BY GROUPING SETS ((k), (b));
SELECT * FROM ga_check($$SELECT lower(t) AS l, count(*) AS c, sum(f8) AS s FROM ga GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT k, count(DISTINCT i4) AS c FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, sum(f8) FILTER (WHERE b) AS s FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, b, count(*) AS c FROM ga GROUP BY GROUPING SETS ((k), (b))$$, 0);
SELECT * FROM ga_check($$SELECT n, count(*) AS c FROM ga GROUP BY n$$);
-- an aggregate the scan does not compute, an ordered aggregate, a volatile
-- input, a column that depends on the primary key
EXPLAIN (COSTS OFF) SELECT k, stddev(f8) FROM ga GROUP BY k;
SELECT * FROM ga_check($$SELECT k, stddev(f8) AS sd, count(*) AS c FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, sum(f8 ORDER BY f8) AS s FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, count(CASE WHEN random() < 2 THEN 1 END) AS c FROM ga GROUP BY k$$);
CREATE TABLE ga_pk (id int4 PRIMARY KEY, k int4, x float8);
INSERT INTO ga_pk SELECT g, g % 10, g * 0.5 FROM generate_series(1, 3000) g;
ANALYZE ga_pk;
EXPLAIN (COSTS OFF) SELECT id, k, sum(x) FROM ga_pk GROUP BY id;
SELECT * FROM ga_check($$SELECT id, k, sum(x) AS s FROM ga_pk GROUP BY id$$);
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(x) AS s FROM ga_pk GROUP BY k$$);

--
-- 17. Rescans: the grouped scan under a nested loop, with an outer
-- parameter in HAVING, as a LATERAL subquery and in a subplan.
--
SET enable_memoize = off;
CREATE TABLE ga_outer (v int4);
INSERT INTO ga_outer VALUES (0), (50), (100), (105), (110), (NULL);
ANALYZE ga_outer;
EXPLAIN (COSTS OFF) SELECT o.v, s.* FROM ga_outer o,
  LATERAL (SELECT k, count(*) AS c, sum(f8) AS s FROM ga GROUP BY k HAVING count(*) > o.v) s;
SELECT * FROM ga_check($$SELECT o.v, s.* FROM ga_outer o,
  LATERAL (SELECT k, count(*) AS c, sum(f8) AS s FROM ga GROUP BY k HAVING count(*) > o.v) s$$, 2);
EXPLAIN (COSTS OFF) SELECT o.v, (SELECT max(c) FROM (SELECT k, count(*) AS c FROM ga GROUP BY k
  HAVING count(*) < o.v) z) AS m FROM ga_outer o;
SELECT * FROM ga_check($$SELECT o.v, (SELECT max(c) FROM (SELECT k, count(*) AS c FROM ga GROUP BY k
  HAVING count(*) < o.v) z) AS m FROM ga_outer o$$);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT o.v, s.c FROM ga_outer o
  JOIN (SELECT k, count(*) AS c FROM ga GROUP BY k) s ON s.k = o.v / 10;
SELECT * FROM ga_check($$SELECT o.v, s.k, s.c FROM ga_outer o
  JOIN (SELECT k, count(*) AS c, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k) s
  ON s.k = o.v / 10$$, 2);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET enable_memoize;

--
-- 18. Tables as the scan finds them: rows deleted and updated in the
-- current transaction, columns added with a default (old rows lack them)
-- or dropped, a text column first, a temporary table, a materialized view.
--
BEGIN;
DELETE FROM ga WHERE id % 5 = 0;
UPDATE ga SET k = k + 1, f8 = f8 + 0.5 WHERE id % 5 = 1;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s, max(i4) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k$$);
ROLLBACK;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM ga GROUP BY k$$);
CREATE TABLE ga_alt (t text, k int4, gone int8, x float8);
INSERT INTO ga_alt SELECT repeat('x', g % 13), g % 7, g, g * 0.5 FROM generate_series(1, 3000) g;
ALTER TABLE ga_alt DROP COLUMN gone;
ALTER TABLE ga_alt ADD COLUMN z int4 DEFAULT 7;
ALTER TABLE ga_alt ADD COLUMN w float8 DEFAULT 2.5;
ALTER TABLE ga_alt ADD COLUMN e date;
INSERT INTO ga_alt SELECT 'y', g % 7, g, g % 3, g * 0.25, date '2021-01-01' + g FROM generate_series(1, 100) g;
ANALYZE ga_alt;
SELECT * FROM ga_check($$SELECT z, k, count(*) AS c, sum(w) AS sw, sum(x) AS sx, count(t) AS ct,
  min(e) AS me, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) AS p FROM ga_alt GROUP BY 1, 2$$, 2);
SELECT z, count(*), sum(w), count(e) FROM ga_alt GROUP BY z ORDER BY z;
CREATE TEMP TABLE ga_temp AS SELECT * FROM ga;
ANALYZE ga_temp;
SELECT * FROM ga_check($$SELECT k, b, count(*) AS c, sum(f8) AS s, min(ts) AS m FROM ga_temp GROUP BY 1, 2$$, 2);
CREATE MATERIALIZED VIEW ga_mv AS SELECT * FROM ga WHERE id % 2 = 0;
ANALYZE ga_mv;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, avg(i8) AS a FROM ga_mv GROUP BY k$$);

--
-- 19. Row-level security: the policy's rows only.
--
CREATE ROLE regress_groupagg_rls;
CREATE TABLE ga_rls (k int4, x float8, i int4, owner text);
-- the hidden rows have i = 0, which would fail 100 / i
INSERT INTO ga_rls SELECT g % 5, g * 0.25, CASE WHEN g % 2 = 0 THEN g % 3 + 1 ELSE 0 END,
  CASE WHEN g % 2 = 0 THEN 'regress_groupagg_rls' ELSE 'other' END
FROM generate_series(1, 4000) g;
ANALYZE ga_rls;
ALTER TABLE ga_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY ga_rls_p ON ga_rls USING (owner = current_user);
GRANT SELECT ON ga_rls TO regress_groupagg_rls;
SET ROLE regress_groupagg_rls;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(100 / i) FROM ga_rls WHERE x > 10 GROUP BY k;
SELECT k, count(*), sum(x), sum(100 / i), min(x), max(x) FROM ga_rls WHERE x > 10 GROUP BY k ORDER BY k;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(x) AS s, sum(100 / i) AS q,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY 100 / i) AS p FROM ga_rls GROUP BY k$$);
SELECT * FROM ga_check($$SELECT 100 / i AS q, count(*) AS c FROM ga_rls GROUP BY 1$$);
RESET ROLE;
DROP TABLE ga_rls;
DROP ROLE regress_groupagg_rls;

--
-- 20. Prepared statements with a generic plan: parameters in WHERE and
-- HAVING, run twice with different values; a parameter as the fraction,
-- which leaves the query to PostgreSQL's grouping.  A prepared statement
-- is planned at its first EXECUTE, so the oracle's run with gpusel off.
--
SET plan_cache_mode = force_generic_plan;
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
PREPARE ga_oracle_p(int) AS SELECT k, count(*) AS c, sum(f8) AS s,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga WHERE i4 > $1 GROUP BY k HAVING sum(i4) > $1 * 10;
PREPARE ga_oracle_f(float8) AS SELECT k, count(*) AS c,
  percentile_disc($1) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k;
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
PREPARE ga_gpusel_p(int) AS SELECT k, count(*) AS c, sum(f8) AS s,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga WHERE i4 > $1 GROUP BY k HAVING sum(i4) > $1 * 10;
PREPARE ga_gpusel_f(float8) AS SELECT k, count(*) AS c,
  percentile_disc($1) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k;
EXPLAIN (COSTS OFF) EXECUTE ga_gpusel_p(100);
EXPLAIN (COSTS OFF) EXECUTE ga_gpusel_f(0.5);
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
SELECT ga_plan('EXECUTE ga_oracle_p(100)') AS oracle_p_plan,
       ga_plan('EXECUTE ga_oracle_f(0.25)') AS oracle_f_plan;
CREATE TEMP TABLE ga_oracle AS EXECUTE ga_oracle_p(100);
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
CREATE TEMP TABLE ga_gpusel AS EXECUTE ga_gpusel_p(100);
SELECT * FROM oracle_compare('ga', 1);
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
CREATE TEMP TABLE ga_oracle AS EXECUTE ga_oracle_p(-300);
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
CREATE TEMP TABLE ga_gpusel AS EXECUTE ga_gpusel_p(-300);
SELECT * FROM oracle_compare('ga', 1);
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
CREATE TEMP TABLE ga_oracle AS EXECUTE ga_oracle_f(0.25);
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
CREATE TEMP TABLE ga_gpusel AS EXECUTE ga_gpusel_f(0.25);
SELECT * FROM oracle_compare('ga', 1);
DEALLOCATE ga_oracle_p;
DEALLOCATE ga_oracle_f;
DEALLOCATE ga_gpusel_p;
DEALLOCATE ga_gpusel_f;
RESET plan_cache_mode;

-- The CPU's column tests (column_filter.c): <column> <op> <constant> over
-- the batch's columns, either way round, cross-type (float4 against a
-- float8 constant, int2/int4 against int8), inside gpu_filter's AND, with
-- NaN, -0 and infinities; the rest of the quals after them.
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(i8) AS s FROM ga
  WHERE f4 < 0.1::float8 AND 10 <= i4 AND s2 > 300::int8 GROUP BY k$$);
SET gpusel.enable_scan = off;
SELECT count(*) AS oracle_c, sum(i4) AS oracle_s FROM ga
  WHERE fk >= '-0'::float8 AND fk <= 'Infinity' AND f8 <> 0 AND d < date '2020-01-30' \gset
RESET gpusel.enable_scan;
EXPLAIN (COSTS OFF) SELECT count(*), sum(i4) FROM ga
  WHERE gpu_filter(fk >= '-0'::float8 AND fk <= 'Infinity' AND f8 <> 0 AND d < date '2020-01-30');
SELECT count(*) = :oracle_c AND sum(i4) = :oracle_s AS same FROM ga
  WHERE gpu_filter(fk >= '-0'::float8 AND fk <= 'Infinity' AND f8 <> 0 AND d < date '2020-01-30');
-- every arm a comparison: the AND becomes column tests
SET gpusel.enable_scan = off;
SELECT count(*) AS oracle_c, sum(i4) AS oracle_s FROM ga
  WHERE fk >= '-0'::float8 AND fk <= 'Infinity' AND f4 > -20 AND d < date '2020-01-30' \gset
RESET gpusel.enable_scan;
SELECT count(*) = :oracle_c AND sum(i4) = :oracle_s AS same FROM ga
  WHERE gpu_filter(fk >= '-0'::float8 AND fk <= 'Infinity' AND f4 > -20 AND d < date '2020-01-30');
SELECT * FROM ga_check($$SELECT count(*) AS c, min(fk) AS lo, max(fk) AS hi FROM ga
  WHERE fk = 'NaN'::float8 OR fk < '-Infinity'::float8$$, 0);
SELECT * FROM ga_check($$SELECT count(*) AS c FROM ga WHERE fk > 'NaN'::float8$$, 0);
SELECT * FROM ga_check($$SELECT count(*) AS c FROM ga WHERE fk >= 'NaN'::float8 AND f4 = 0.25$$, 0);
SELECT * FROM ga_check($$SELECT k, count(*) AS c FROM ga
  WHERE ts >= timestamp '2020-01-05' AND tz < timestamptz '2020-01-10 00:00+00' AND b GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, count(*) AS c FROM ga
  WHERE i8 > -2147483649 AND s2 < 32767::int8 AND i4 >= -2147483648::int8 GROUP BY k$$);

-- more input columns (260) than a batch holds (256): the row path, same answers
DO $$
BEGIN
  EXECUTE (SELECT format('CREATE TABLE ga_wide (%s)', string_agg(format('c%s int4', i), ', ' ORDER BY i))
           FROM generate_series(0, 259) i);
  EXECUTE (SELECT format('INSERT INTO ga_wide SELECT %s FROM generate_series(1, 3000) g',
                         string_agg(format('(g + %s) %% 7', i), ', ' ORDER BY i))
           FROM generate_series(0, 259) i);
END $$;
ANALYZE ga_wide;
SELECT * FROM ga_check((SELECT 'SELECT c0, ' ||
  string_agg(format('sum(c%s) AS s%s', i, i), ', ' ORDER BY i) || ' FROM ga_wide GROUP BY c0'
  FROM generate_series(1, 259) i));
DROP TABLE ga_wide;

-- EXPLAIN ANALYZE counts the rows HAVING removes apart from those the WHERE
-- clause's host quals remove (each "Rows Removed by Filter" under its own
-- Filter), and says how many rows reached the groups as columns
SET gpusel.explain_device_details = off;
SET gpusel.force_groupagg = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT k, count(*) FROM ga WHERE t <> 'v1' GROUP BY k HAVING count(*) > 70;
SELECT count(*) AS groups_kept FROM (SELECT k FROM ga WHERE t <> 'v1' GROUP BY k HAVING count(*) > 70) s;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT k, count(*) FROM ga WHERE i4 > 0 GROUP BY k HAVING count(*) > 30;
RESET gpusel.force_groupagg;
RESET gpusel.explain_device_details;

--
-- 21. Collections of 65,536 keys and more: on the GPU every group's keys are
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
-- 22. Rows into groups on the device: with a device qual, one plain key
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
-- 23. <integer column> <op> <constant> keys and inputs, computed a block at
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

DROP MATERIALIZED VIEW ga_mv;
DROP TABLE ga, ga_empty, ga_int, ga_err, ga_big, ga_pk, ga_outer, ga_alt, ga_temp;
DROP FUNCTION ga_check(text, int);
DROP FUNCTION ga_plan(text);
DROP FUNCTION oracle_check(text, int);
DROP FUNCTION oracle_compare(text, int);
DROP FUNCTION oracle_run(text, text);
DROP FUNCTION oracle_plan_kind(text);
DROP FUNCTION oracle_explain(text);
