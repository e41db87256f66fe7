--
-- Query shapes of the grouped scan: expressions as keys and inputs, HAVING,
-- WHERE, several keys, one group and none, empty input, and the shapes left
-- to PostgreSQL.
--
\i test/sql/groupagg_setup.sql

-- Expressions as keys and as aggregate inputs, and expressions over keys
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
-- HAVING: with aggregates of the target list, with an aggregate only in
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
-- WHERE with grouping: device and host quals, none matching, and an
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
-- Several keys of different types.
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
-- One group, and no GROUP BY at all.
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
-- Empty input: GROUP BY gives no rows; without GROUP BY, one row with
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
-- Shapes left to PostgreSQL: not the grouped scan, same answers.
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

DROP TABLE ga_empty, ga_pk;
\i test/sql/groupagg_teardown.sql
