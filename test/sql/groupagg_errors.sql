--
-- Errors from the grouped scan: the same error as PostgreSQL's plan raises.
--
\i test/sql/groupagg_setup.sql

-- Errors: the same error from PostgreSQL's plan and from the grouped
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

DROP TABLE ga_err;
\i test/sql/groupagg_teardown.sql
