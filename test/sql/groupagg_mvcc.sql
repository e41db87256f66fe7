--
-- The grouped scan over tables as the scan finds them (deleted and updated
-- rows, a temporary table, a materialized view), under row-level security,
-- and in prepared statements with a generic plan.
--
\i test/sql/groupagg_setup.sql

-- Tables as the scan finds them: rows deleted and updated in the
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
-- Row-level security: the policy's rows only.
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
-- Prepared statements with a generic plan: parameters in WHERE and
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

DROP MATERIALIZED VIEW ga_mv;
DROP TABLE ga_alt, ga_temp;
\i test/sql/groupagg_teardown.sql
