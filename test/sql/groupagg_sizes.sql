--
-- The grouped scan at size: about 100,000 groups, and a table read in many
-- batches.
--
\i test/sql/groupagg_setup.sql

-- About 100,000 groups: 300,000 rows keyed by i % 100000.  The groups
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
-- Several batches: the main table is read 1024 rows at a time.
--
SET gpusel.batch_rows = 1024;
SELECT * FROM ga_check($$SELECT k, count(*) AS c, sum(f8) AS s, avg(i4) AS a, min(ts) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k$$);
SELECT * FROM ga_check($$SELECT fk, b, count(t) AS c, max(tz) AS m FROM ga WHERE f8 <> 0 GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT g % 97 AS g97, count(*) AS c, sum(x) AS s FROM ga_big GROUP BY 1$$);
RESET gpusel.batch_rows;

--

DROP TABLE ga_big;
\i test/sql/groupagg_teardown.sql
