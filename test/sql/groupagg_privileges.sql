--
-- Privileges where the grouped scan computes in place of PostgreSQL's
-- executor.  PostgreSQL checks EXECUTE on every aggregate when its plan
-- starts (EXPLAIN included), on the functions behind operators and
-- function calls in quals, group keys and aggregate inputs, on the
-- built-in percentile a user wrote (not on gpusel's aggregate that answers
-- it), and SELECT on every column read; row-level security filters rows.
-- Each case first shows, as the superuser, that the query is answered by
-- the grouped scan, then what the user without the privilege gets:
-- PostgreSQL's error (42501) and message, or its rows.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
\set VERBOSITY default

CREATE ROLE regress_gpusel_lowpriv;
CREATE TABLE gp (g int, k int, f float8, d date);
INSERT INTO gp SELECT g, g % 5, g / 3.0, date '2000-01-01' + g FROM generate_series(1, 10000) g;
ANALYZE gp;
GRANT SELECT ON gp TO regress_gpusel_lowpriv;

-- the plans the user would get
EXPLAIN (COSTS OFF) SELECT sum(g) FROM gp;
EXPLAIN (COSTS OFF) SELECT k, sum(g) FROM gp GROUP BY k;
EXPLAIN (COSTS OFF) SELECT count(*) FROM gp WHERE g > 5;
EXPLAIN (COSTS OFF) SELECT k, max(d), percentile_disc(0.5) WITHIN GROUP (ORDER BY f) FROM gp GROUP BY k;

-- 1. EXECUTE on the aggregate itself
REVOKE EXECUTE ON FUNCTION sum(int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION count() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION max(date) FROM PUBLIC;
SET ROLE regress_gpusel_lowpriv;
SELECT sum(g) FROM gp;
SELECT k, sum(g) FROM gp GROUP BY k ORDER BY k LIMIT 1;
SELECT count(*) FROM gp WHERE g > 5;
SELECT k, max(d) FROM gp GROUP BY k ORDER BY k LIMIT 1;
EXPLAIN (COSTS OFF) SELECT k, max(d) FROM gp GROUP BY k;
-- what the user may run is answered
SELECT k, min(d), count(g) FROM gp GROUP BY k ORDER BY k;
RESET ROLE;
GRANT EXECUTE ON FUNCTION sum(int4) TO PUBLIC;
GRANT EXECUTE ON FUNCTION count() TO PUBLIC;
GRANT EXECUTE ON FUNCTION max(date) TO PUBLIC;

-- gpusel's own aggregates, whatever the grouped scan does with them
REVOKE EXECUTE ON FUNCTION gpu_percentile(float8, anyelement) FROM PUBLIC;
SET ROLE regress_gpusel_lowpriv;
SELECT k, gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM gp GROUP BY k ORDER BY k LIMIT 1;
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM gp;
RESET ROLE;
GRANT EXECUTE ON FUNCTION gpu_percentile(float8, anyelement) TO PUBLIC;

-- 2. the built-in percentile the user wrote, which gpusel answers
REVOKE EXECUTE ON FUNCTION percentile_disc(float8, anyelement) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION percentile_cont(float8, float8) FROM PUBLIC;
SET ROLE regress_gpusel_lowpriv;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f) FROM gp;
SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM gp GROUP BY k ORDER BY k LIMIT 1;
-- under PostgreSQL's own Aggregate node (FILTER)
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f) FILTER (WHERE g > 3) FROM gp;
EXPLAIN (COSTS OFF) SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f) FROM gp;
-- the array form was not revoked
SELECT percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY g) FROM gp;
RESET ROLE;

-- a prepared statement follows GRANT and REVOKE made after it was planned
SET ROLE regress_gpusel_lowpriv;
PREPARE gp_q AS SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY g) FROM gp GROUP BY k ORDER BY k;
EXECUTE gp_q;
RESET ROLE;
GRANT EXECUTE ON FUNCTION percentile_disc(float8, anyelement) TO PUBLIC;
SET ROLE regress_gpusel_lowpriv;
EXPLAIN (COSTS OFF) EXECUTE gp_q;
EXECUTE gp_q;
RESET ROLE;
REVOKE EXECUTE ON FUNCTION percentile_disc(float8, anyelement) FROM PUBLIC;
SET ROLE regress_gpusel_lowpriv;
EXECUTE gp_q;
DEALLOCATE gp_q;
RESET ROLE;
-- and a plan made for the superuser is not reused for the user
PREPARE gp_q2 AS SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY g) FROM gp;
EXECUTE gp_q2;
SET ROLE regress_gpusel_lowpriv;
EXECUTE gp_q2;
RESET ROLE;
DEALLOCATE gp_q2;
GRANT EXECUTE ON FUNCTION percentile_disc(float8, anyelement) TO PUBLIC;
GRANT EXECUTE ON FUNCTION percentile_cont(float8, float8) TO PUBLIC;

-- functions behind operators and calls in quals, keys and inputs
EXPLAIN (COSTS OFF) SELECT k, sum(g) FROM gp WHERE g + 1 > 5 GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k + 1, count(*) FROM gp GROUP BY k + 1;
EXPLAIN (COSTS OFF) SELECT k, sum(g * 2) FROM gp GROUP BY k;
REVOKE EXECUTE ON FUNCTION int4pl(int4, int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION int4mul(int4, int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION abs(float8) FROM PUBLIC;
SET ROLE regress_gpusel_lowpriv;
SELECT k, sum(g) FROM gp WHERE g + 1 > 5 GROUP BY k;
SELECT k + 1, count(*) FROM gp GROUP BY k + 1;
SELECT k, sum(g * 2) FROM gp GROUP BY k;
SELECT k, max(abs(f)) FROM gp GROUP BY k;
SELECT count(*) FROM gp WHERE abs(f) > 3;
-- none of them revoked: answered
SELECT k, sum(g - 1) FROM gp WHERE g - 1 > 5 GROUP BY k ORDER BY k;
RESET ROLE;
GRANT EXECUTE ON FUNCTION int4pl(int4, int4) TO PUBLIC;
GRANT EXECUTE ON FUNCTION int4mul(int4, int4) TO PUBLIC;
GRANT EXECUTE ON FUNCTION abs(float8) TO PUBLIC;

-- column privileges: a column the user may not read, in a key, an input or a qual
REVOKE SELECT ON gp FROM regress_gpusel_lowpriv;
GRANT SELECT (k, g) ON gp TO regress_gpusel_lowpriv;
SET ROLE regress_gpusel_lowpriv;
SELECT k, sum(g) FROM gp GROUP BY k ORDER BY k;
SELECT k, max(d) FROM gp GROUP BY k;
SELECT d, count(*) FROM gp GROUP BY d;
SELECT k, count(*) FROM gp WHERE f > 1 GROUP BY k;
SELECT count(*) FROM gp;
RESET ROLE;
GRANT SELECT ON gp TO regress_gpusel_lowpriv;

-- row-level security: the user's groups hold only the rows the policy shows
ALTER TABLE gp ENABLE ROW LEVEL SECURITY;
CREATE POLICY gp_p ON gp FOR SELECT USING (g > 3000);
SET ROLE regress_gpusel_lowpriv;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(g), percentile_disc(0.5) WITHIN GROUP (ORDER BY g) FROM gp GROUP BY k;
SELECT k, count(*), sum(g), percentile_disc(0.5) WITHIN GROUP (ORDER BY g) FROM gp GROUP BY k ORDER BY k;
RESET ROLE;
-- the same rows as the superuser sees them through the policy's condition, from PostgreSQL
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
SELECT k, count(*), sum(g), percentile_disc(0.5) WITHIN GROUP (ORDER BY g) FROM gp WHERE g > 3000 GROUP BY k ORDER BY k;
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;

DROP TABLE gp;
DROP ROLE regress_gpusel_lowpriv;
