--
-- The grouped scan on special values: float keys and inputs (-0, NaN,
-- infinities), percentile fractions, and integer sums past 64 bits.
--
\i test/sql/groupagg_setup.sql

-- Special float values.  As keys: -0 joins the group of 0; every NaN
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
-- Percentile fractions: 0 and 1, arrays with NULL elements, the empty
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
-- Integer sums and averages: int8 values near 9e18 whose sums overflow
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

DROP TABLE ga_int;
\i test/sql/groupagg_teardown.sql
