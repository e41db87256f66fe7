--
-- GpuSelScan's grouped aggregates, differentially against PostgreSQL: the
-- plans, the check itself, and every aggregate over every type.
--
\i test/sql/groupagg_setup.sql

-- The plans.  The grouped scan is chosen on cost, with or without a
-- GPU: one node with "Group Key:" lines and no Aggregate above it.
--
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(f8), avg(i4), min(d), max(ts) FROM ga GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, b, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8),
  percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY f8 DESC) FROM ga GROUP BY k, b;
EXPLAIN (COSTS OFF) SELECT date_trunc('hour', ts), count(t), sum(i4 * 2) FROM ga
  WHERE f8 > 0 AND t LIKE 'v1%' GROUP BY 1 HAVING max(i8) > 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(f8), min(tz) FROM ga;

--
-- The check detects a difference: this query answers differently when
-- gpusel is on, so every row mismatches.
--
SELECT * FROM ga_check($$SELECT k, count(*) + (current_setting('gpusel.enable_scan') = 'on')::int AS c
  FROM ga WHERE k < 3 GROUP BY k$$);

--
-- Every aggregate over every type, grouped by an int4 key with a NULL
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

\i test/sql/groupagg_teardown.sql
