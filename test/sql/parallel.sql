--
-- The grouped GpuSelScan under Gather, differentially against PostgreSQL:
-- the plans, every aggregate over every type, percentiles and keys.
--
\i test/sql/parallel_setup.sql

--
-- The plans: a Gather above a Parallel Custom Scan (GpuSelScan) with
-- the Group Key and the Device Filter; gpusel.enable_parallel off gives
-- the serial scan.
--
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(f8), avg(i4), min(d), max(ts) FROM pa GROUP BY k;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(f8) FROM pa WHERE i4 > 2.5::float8 AND d < date '2021-01-01' GROUP BY g;
EXPLAIN (COSTS OFF) SELECT count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) FROM pa;
SET gpusel.enable_parallel = off;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(f8), avg(i4), min(d), max(ts) FROM pa GROUP BY k;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(f8) FROM pa WHERE i4 > 2.5::float8 AND d < date '2021-01-01' GROUP BY g;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s, avg(i4) AS a FROM pa GROUP BY k$$);
RESET gpusel.enable_parallel;

--
-- Every aggregate over every type, grouped by an int4 key with a NULL
-- group.
--
SELECT * FROM pa_check($$SELECT k, count(*) AS c, count(b) AS cb, count(s2) AS cs2, count(i4) AS ci4,
  count(i8) AS ci8, count(f4) AS cf4, count(f8) AS cf8, count(pf) AS cpf, count(d) AS cd,
  count(ts) AS cts FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, sum(s2) AS s_s2, sum(i4) AS s_i4, sum(i8) AS s_i8, sum(f4) AS s_f4,
  sum(f8) AS s_f8, sum(pf) AS s_pf FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, avg(s2) AS a_s2, avg(i4) AS a_i4, avg(i8) AS a_i8, avg(f4) AS a_f4,
  avg(f8) AS a_f8, avg(pf) AS a_pf FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, min(s2) AS mn_s2, max(s2) AS mx_s2, min(i4) AS mn_i4, max(i4) AS mx_i4,
  min(i8) AS mn_i8, max(i8) AS mx_i8, min(f4) AS mn_f4, max(f4) AS mx_f4, min(f8) AS mn_f8,
  max(f8) AS mx_f8 FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, min(pf) AS mn_pf, max(pf) AS mx_pf, min(pf4) AS mn_pf4, max(pf4) AS mx_pf4,
  min(d) AS mn_d, max(d) AS mx_d, min(ts) AS mn_ts, max(ts) AS mx_ts FROM pa GROUP BY k$$);
-- the NULL group, shown
SELECT k, count(*), count(f8), sum(i4), sum(i8), sum(f4), avg(s2), avg(f8), min(pf), max(pf), min(d), max(ts)
FROM pa WHERE k IS NULL GROUP BY k;

--
-- Percentiles: gpusel's names, single fractions and arrays, ASC and
-- DESC, over NaN and the infinities; the built-in names, which gpusel
-- answers through gpusel.replace_builtin_percentiles.
--
SELECT * FROM pa_check($$SELECT k, gpu_percentile(0.5) WITHIN GROUP (ORDER BY pf) AS p1,
  gpu_percentile(ARRAY[0, 0.1, 0.5, 0.9, 1]) WITHIN GROUP (ORDER BY pf4) AS p2,
  gpu_percentile(0.3) WITHIN GROUP (ORDER BY pf DESC) AS p3,
  gpu_percentile(ARRAY[0.99, NULL, 0.01]) WITHIN GROUP (ORDER BY i8 DESC) AS p4,
  gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY pf) AS c1,
  gpu_percentile_cont(ARRAY[0, 0.25, 0.75, 1]) WITHIN GROUP (ORDER BY pf DESC) AS c2,
  gpu_percentile_cont(0.9) WITHIN GROUP (ORDER BY f4) AS c3 FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY s2) AS p_s2,
  percentile_disc(0.25) WITHIN GROUP (ORDER BY i4) AS p_i4,
  percentile_disc(ARRAY[0, 1]) WITHIN GROUP (ORDER BY d) AS p_d,
  percentile_disc(0.75) WITHIN GROUP (ORDER BY ts DESC) AS p_ts,
  percentile_disc(ARRAY[0.5, 1]) WITHIN GROUP (ORDER BY pf) AS p_pf,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY pf4) AS c_pf4,
  percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY f8 DESC) AS c_f8 FROM pa GROUP BY k$$);
EXPLAIN (COSTS OFF) SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) FROM pa GROUP BY k;
SELECT k, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY pf) AS p,
  percentile_cont(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY pf4 DESC) AS c
FROM pa WHERE k IN (0, 1) OR k IS NULL GROUP BY k ORDER BY k;

--
-- Keys: NULL groups (int, bool, float with NaN and infinities), about
-- 100,000 groups, several keys, expressions, one group, no GROUP BY.
--
SELECT * FROM pa_check($$SELECT b, count(*) AS c, sum(i4) AS s, max(pf) AS m FROM pa GROUP BY b$$);
SELECT * FROM pa_check($$SELECT pf, count(*) AS c, sum(f8) AS s FROM pa GROUP BY pf$$);
SELECT * FROM pa_check($$SELECT g, count(*) AS c, sum(f8) AS s, avg(i8) AS a, min(d) AS mn, max(pf) AS mx,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM pa GROUP BY g$$);
SELECT * FROM pa_check($$SELECT k, b, d, count(*) AS c, sum(f4) AS s FROM pa GROUP BY 1, 2, 3$$, 3);
SELECT * FROM pa_check($$SELECT k % 7 AS k7, date_trunc('month', ts) AS m, count(*) AS c, sum(i4) AS s,
  min(pf4) AS mn FROM pa GROUP BY 1, 2$$, 2);
SELECT * FROM pa_check($$SELECT i4 / 100 AS i100, d - date '2020-01-01' AS dd, count(*) AS c, max(ts) AS m
  FROM pa GROUP BY 1, 2$$, 2);
SELECT * FROM pa_check($$SELECT k * 0 AS z, count(*) AS c, sum(i8) AS s, avg(f8) AS a,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p FROM pa GROUP BY 1$$);
SELECT * FROM pa_check($$SELECT count(*) AS c, count(pf) AS cp, sum(i4) AS s4, sum(i8) AS s8, sum(f4) AS sf4,
  sum(f8) AS sf8, avg(s2) AS a, min(pf) AS mn, max(pf4) AS mx, min(ts) AS mt FROM pa$$, 0);
SELECT * FROM pa_check($$SELECT gpu_percentile(ARRAY[0, 0.25, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY pf) AS p,
  gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY pf4) AS c, count(*) AS n FROM pa$$, 0);
SELECT * FROM pa_check($$SELECT count(*) AS c FROM pa$$, 0);
SELECT count(*), sum(i4), sum(f8), min(pf), max(pf), percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) FROM pa;

--

\i test/sql/parallel_teardown.sql
