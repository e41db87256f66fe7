--
-- The grouped GpuSelScan under Gather over WHERE clauses, tables of other
-- shapes (dropped and added columns, wide rows, empty and one-row
-- tables), execution shapes (workers, prepared statements, rescans,
-- changed rows) and errors.
--
\i test/sql/parallel_setup.sql

-- WHERE: comparisons of a column with a constant, cross-type, an AND of
-- several, a date, OR, IS NULL, IN, BETWEEN, expressions, nothing passing;
-- HAVING; gpu_filter.
--
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM pa WHERE i4 > 2.5::float8 GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(i8) AS s, max(pf) AS m FROM pa
  WHERE f4 < 1.5::float8 AND s2 > 300::int8 AND i8 >= -2147483649 AND pf <> 'NaN' GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, min(ts) AS m FROM pa
  WHERE d >= date '2020-06-01' AND d < date '2020-09-01' GROUP BY k$$);
SELECT * FROM pa_check($$SELECT b, count(*) AS c, sum(f4) AS s FROM pa
  WHERE (ts < timestamp '2020-03-01' OR pf IS NULL) AND k IN (1, 2, 3, 5, 8) GROUP BY b$$);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, avg(i4) AS a FROM pa
  WHERE i4 BETWEEN -100 AND 100 AND NOT b AND f8 * 2 + 1 > 0 GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM pa WHERE pf > 'NaN'::float8 GROUP BY k$$);
SELECT * FROM pa_check($$SELECT count(*) AS c, sum(f8) AS s FROM pa WHERE pf > 'NaN'::float8$$, 0);
SELECT * FROM pa_check($$SELECT count(*) AS c FROM pa WHERE pf >= 'Infinity'::float8 AND i4 % 2 = 0$$, 0);
SELECT * FROM pa_check($$SELECT count(*) AS c FROM pa WHERE i4 > 0 AND f8 < 100$$, 0);
SELECT * FROM pa_check($$SELECT k, count(*) AS c FROM pa GROUP BY k HAVING count(*) > 5600$$);
SELECT * FROM pa_check($$SELECT k, sum(f8) AS s FROM pa WHERE i4 > 0 GROUP BY k
  HAVING percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) > 0 OR max(d) IS NULL$$);
SELECT * FROM pa_check($$SELECT g, count(*) AS c FROM pa GROUP BY g HAVING sum(i4) > 900$$);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM pa
  WHERE gpu_filter(i4 > 0 AND f8 < 100) GROUP BY k$$);
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM pa WHERE i4 > 2.5::float8 AND d >= date '2020-06-01' GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(f8) FROM pa WHERE gpu_filter(i4 > 0 AND f8 < 100) GROUP BY k;

-- A table as the scan finds it: a text column first, a dropped column,
-- columns added with a default that the older rows lack, never vacuumed.
-- count(t) counts a column of another type, which is not among the
-- columns the scan copies: the workers, which send columns, would have
-- nothing to read, so that scan is not put under Gather.
CREATE TABLE pa_alt (t text, k int4, gone int8, x float8) WITH (autovacuum_enabled = off);
INSERT INTO pa_alt SELECT CASE WHEN g % 9 = 0 THEN NULL ELSE repeat('x', g % 13) END, g % 7, g, g * 0.5
FROM generate_series(1, 100000) g;
ALTER TABLE pa_alt DROP COLUMN gone;
ALTER TABLE pa_alt ADD COLUMN z int4 DEFAULT 7;
ALTER TABLE pa_alt ADD COLUMN w float8 DEFAULT 2.5;
ALTER TABLE pa_alt ADD COLUMN e date;
INSERT INTO pa_alt SELECT 'y', g % 7, g * 0.25, g % 3, g * 0.25, date '2021-01-01' + g % 1000
FROM generate_series(1, 40000) g;
ANALYZE pa_alt;
SELECT * FROM pa_check($$SELECT z, k, count(*) AS c, sum(w) AS sw, sum(x) AS sx, min(e) AS me, max(e) AS mx,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY w) AS p FROM pa_alt GROUP BY 1, 2$$, 2);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(w) AS s FROM pa_alt WHERE z > 6 AND x < 20000 GROUP BY k$$);
SELECT * FROM pa_check($$SELECT k, count(t) AS ct, count(*) AS c, sum(x) AS s FROM pa_alt GROUP BY k$$);
SELECT z, count(*), sum(w), count(e) FROM pa_alt GROUP BY z ORDER BY z;
-- 80 columns: the feed's chunks shrink to stay within its shared memory
-- (about 6,000 rows each here)
DO $$
BEGIN
  EXECUTE (SELECT format('CREATE TABLE pa_wide (%s)', string_agg(format('c%s int4', i), ', ' ORDER BY i))
           FROM generate_series(0, 79) i);
  EXECUTE (SELECT format('INSERT INTO pa_wide SELECT %s FROM generate_series(1, 40000) g',
                         string_agg(format('(g + %s) %% 7', i), ', ' ORDER BY i))
           FROM generate_series(0, 79) i);
END $$;
ANALYZE pa_wide;
SELECT * FROM pa_check((SELECT 'SELECT c0, ' ||
  string_agg(format('sum(c%s) AS s%s', i, i), ', ' ORDER BY i) || ' FROM pa_wide WHERE c1 < 6 GROUP BY c0'
  FROM generate_series(1, 79) i));

--
-- Empty and one-row tables.
--
CREATE TABLE pa_empty (LIKE pa);
ANALYZE pa_empty;
CREATE TABLE pa_one (LIKE pa);
INSERT INTO pa_one VALUES (1, 7, 7, true, 2, 3, 4, 0.5, 1.25, 'NaN', '-Infinity', '2020-02-02', '2020-02-02 02:02');
ANALYZE pa_one;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s, percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) AS p
  FROM pa_empty GROUP BY k$$);
SELECT * FROM pa_check($$SELECT count(*) AS c, sum(i8) AS s, avg(f4) AS a, min(d) AS m,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY pf) AS p FROM pa_empty$$, 0);
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(s2) AS s, avg(i8) AS a, max(pf) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY pf4) AS p FROM pa_one GROUP BY k$$);
SELECT * FROM pa_check($$SELECT count(*) AS c, sum(f8) AS s, min(ts) AS m,
  percentile_cont(ARRAY[0, 1]) WITHIN GROUP (ORDER BY pf) AS p FROM pa_one WHERE i4 > 2$$, 0);
SELECT * FROM pa_check($$SELECT count(*) AS c, sum(f8) AS s FROM pa_one WHERE i4 > 3$$, 0);
SELECT count(*), sum(f8), percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) FROM pa_empty;
SELECT k, count(*), sum(f8), percentile_disc(0.5) WITHIN GROUP (ORDER BY pf4) FROM pa_one GROUP BY k;

--
-- Execution shapes.
--
-- No worker starts: the Gather's plan runs in the leader alone, which
-- reads every block itself.
SET max_parallel_workers = 0;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s, max(pf) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY pf4) AS p FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT g, count(*) AS c, sum(i4) AS s FROM pa WHERE f4 > 0 GROUP BY g$$);
SELECT * FROM pa_explain_analyze($$SELECT k, count(*), sum(f8) FROM pa WHERE i4 > 0 GROUP BY k$$);
RESET max_parallel_workers;
-- gpusel.batch_rows smaller than a chunk
SET gpusel.batch_rows = 1024;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s, min(ts) AS m FROM pa WHERE i4 <> 0 GROUP BY k$$);
RESET gpusel.batch_rows;

-- A generic plan made with parallel_leader_participation on, run with it
-- on (the leader is the consumer), then off (a worker is), then off with
-- one worker (it reads every block itself), then off with no worker (the
-- leader runs the plan after all).  Parameters in the device quals.
SET plan_cache_mode = force_generic_plan;
PREPARE pa_oracle_p(int, float8) AS SELECT k, count(*) AS c, sum(f8) AS s, max(pf) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) AS p FROM pa WHERE i4 > $1 AND f8 < $2 GROUP BY k;
PREPARE pa_gpusel_p(int, float8) AS SELECT k, count(*) AS c, sum(f8) AS s, max(pf) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) AS p FROM pa WHERE i4 > $1 AND f8 < $2 GROUP BY k;
EXPLAIN (COSTS OFF) EXECUTE pa_gpusel_p(100, 50);
SELECT * FROM pa_check_prepared('pa_oracle_p(100, 50)', 'pa_gpusel_p(100, 50)');
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) EXECUTE pa_gpusel_p(-200, 100);
SELECT * FROM pa_check_prepared('pa_oracle_p(-200, 100)', 'pa_gpusel_p(-200, 100)');
SET max_parallel_workers = 1;
SELECT * FROM pa_check_prepared('pa_oracle_p(0, 0)', 'pa_gpusel_p(0, 0)');
SET max_parallel_workers = 0;
SELECT * FROM pa_check_prepared('pa_oracle_p(-1000, 1000)', 'pa_gpusel_p(-1000, 1000)');
RESET max_parallel_workers;
-- the same with count(t), a column of another type: a serial plan, whatever the settings
SET parallel_leader_participation = on;
PREPARE pa_oracle_t(int) AS SELECT k, count(t) AS ct, count(*) AS c, sum(x) AS s FROM pa_alt WHERE k <> $1 GROUP BY k;
PREPARE pa_gpusel_t(int) AS SELECT k, count(t) AS ct, count(*) AS c, sum(x) AS s FROM pa_alt WHERE k <> $1 GROUP BY k;
EXPLAIN (COSTS OFF) EXECUTE pa_gpusel_t(3);
SET parallel_leader_participation = off;
SELECT * FROM pa_check_prepared('pa_oracle_t(3)', 'pa_gpusel_t(3)');
SET max_parallel_workers = 0;
SELECT * FROM pa_check_prepared('pa_oracle_t(4)', 'pa_gpusel_t(4)');
RESET max_parallel_workers;
DEALLOCATE pa_oracle_t;
DEALLOCATE pa_gpusel_t;
-- a query planned now, with participation off, is not the parallel grouped scan
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s FROM pa WHERE i4 > 0 GROUP BY k$$);
RESET parallel_leader_participation;
SELECT * FROM pa_check_prepared('pa_oracle_p(400, -100)', 'pa_gpusel_p(400, -100)');
DEALLOCATE pa_oracle_p;
DEALLOCATE pa_gpusel_p;
RESET plan_cache_mode;

-- Rescans.  An uncorrelated ANY subquery that cannot be hashed (<) runs
-- again for every outer row and stops at its first match, so the Gather
-- below it is shut down early and started over.
CREATE TABLE pa_outer (v int4);
INSERT INTO pa_outer VALUES (0), (5000), (5650), (6000), (NULL);
-- read by the leader alone, so that it is not a parallel scan too
ALTER TABLE pa_outer SET (parallel_workers = 0);
ANALYZE pa_outer;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT o.v, o.v < ANY (SELECT count(*) FROM pa GROUP BY k) AS a FROM pa_outer o;
SELECT * FROM pa_check($$SELECT o.v, o.v < ANY (SELECT count(*) FROM pa GROUP BY k) AS a,
  o.v * 100 > ALL (SELECT sum(i4) FROM pa WHERE f8 > 0 GROUP BY k) AS b FROM pa_outer o$$);
RESET enable_material;
-- a join whose other side is read once per group; a LATERAL subquery with
-- an outer reference in HAVING, which keeps it out of a parallel plan
-- (the grouped scan is rescanned serially under the nested loop)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_memoize = off;
EXPLAIN (COSTS OFF) SELECT o.v, s.k, s.c FROM pa_outer o
  JOIN (SELECT k, count(*) AS c FROM pa GROUP BY k) s ON s.k = o.v / 1000;
SELECT * FROM pa_check($$SELECT o.v, s.k, s.c, s.p FROM pa_outer o
  JOIN (SELECT k, count(*) AS c, percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) AS p FROM pa GROUP BY k) s
  ON s.k = o.v / 1000$$, 2);
EXPLAIN (COSTS OFF) SELECT o.v, s.* FROM pa_outer o,
  LATERAL (SELECT k, count(*) AS c, sum(f8) AS s FROM pa GROUP BY k HAVING count(*) > o.v) s;
SELECT * FROM pa_check($$SELECT o.v, s.* FROM pa_outer o,
  LATERAL (SELECT k, count(*) AS c, sum(f8) AS s FROM pa GROUP BY k HAVING count(*) > o.v) s$$, 2);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET enable_memoize;

-- LIMIT and ORDER BY over the groups; a LIMIT that stops reading them early
EXPLAIN (COSTS OFF) SELECT k, count(*) AS c, sum(f8) AS s FROM pa GROUP BY k ORDER BY s DESC, k LIMIT 5;
SELECT k, count(*) AS c, sum(f8) AS s FROM pa GROUP BY k ORDER BY s DESC, k LIMIT 5;
SELECT * FROM pa_check($$SELECT row_number() OVER () AS rn, t.* FROM
  (SELECT k, count(*) AS c, sum(f8) AS s FROM pa GROUP BY k ORDER BY s DESC, k LIMIT 10) t$$);
SELECT * FROM pa_check($$SELECT row_number() OVER () AS rn, t.* FROM
  (SELECT g, sum(i4) AS s, sum(f8) AS s8 FROM pa WHERE g IS NOT NULL GROUP BY g ORDER BY s, g LIMIT 20 OFFSET 5) t$$);
SELECT * FROM pa_check($$SELECT count(*) AS c FROM (SELECT k FROM pa GROUP BY k LIMIT 3) t$$, 0);
SELECT * FROM pa_check($$SELECT count(*) AS c FROM (SELECT g, count(*) FROM pa GROUP BY g LIMIT 1) t$$, 0);
-- a small table: the leader has read it all and stops before the workers start
CREATE TABLE pa_small AS SELECT g % 10 AS k, (g * 0.25)::float8 AS x FROM generate_series(1, 20000) g;
ANALYZE pa_small;
SELECT * FROM pa_check($$SELECT count(*) AS c FROM (SELECT k, count(*) FROM pa_small GROUP BY k LIMIT 1) t$$, 0);
SELECT * FROM pa_check($$SELECT count(*) AS c, count(DISTINCT k) AS dk
  FROM (SELECT k, sum(x) AS x FROM pa_small GROUP BY k LIMIT 2) t$$, 0);

-- EXPLAIN ANALYZE: the consumer reports every row the scan read
SELECT * FROM pa_explain_analyze($$SELECT k, count(*), sum(f8) FROM pa WHERE i4 > 0 GROUP BY k$$);
SELECT * FROM pa_explain_analyze($$SELECT count(*) FROM pa$$);

-- Rows deleted and updated in the current transaction: the workers see
-- what the leader sees.
BEGIN;
DELETE FROM pa WHERE id % 5 = 0;
UPDATE pa SET k = k + 1, f8 = f8 + 0.5 WHERE id % 5 = 1;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s, max(pf) AS m,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM pa GROUP BY k$$);
SELECT * FROM pa_check($$SELECT count(*) AS c, sum(f8) AS s FROM pa WHERE i4 > 0$$, 0);
ROLLBACK;

--
-- Errors: the same error as PostgreSQL's, with the leader as the
-- consumer and with a worker as the consumer (parallel_leader_participation
-- off at execution, with a generic plan made while it was on), in the WHERE
-- clause, an aggregate and a key; then the session goes on.  Only the
-- message is shown: which process meets the row first varies.
--
CREATE TABLE pa_err (k int4, x float8, i int4);
INSERT INTO pa_err SELECT g % 10, g * 0.25, g FROM generate_series(1, 30000) g;
-- k = 100: its float8 sum overflows
INSERT INTO pa_err VALUES (100, 1e308, 30001), (100, 1e308, 30002);
INSERT INTO pa_err SELECT g % 10, g * 0.25, g FROM generate_series(30003, 60000) g;
ANALYZE pa_err;
\set VERBOSITY terse
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
SELECT k, sum(x) FROM pa_err GROUP BY k;
SELECT k, count(*) FROM pa_err WHERE 1 / (i - i) > 0 GROUP BY k;
SELECT k, count(*) FROM pa_err WHERE 100 / (i - 30001) > 0 GROUP BY k;
SELECT 100 / (i - 45000) AS q, count(*) FROM pa_err GROUP BY 1;
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
SELECT oracle_plan_kind(p) AS plan, pa_is_parallel(p) AS parallel
FROM (VALUES (oracle_explain($$SELECT k, sum(x) FROM pa_err GROUP BY k$$)),
             (oracle_explain($$SELECT k, count(*) FROM pa_err WHERE 1 / (i - i) > 0 GROUP BY k$$)),
             (oracle_explain($$SELECT k, count(*) FROM pa_err WHERE 100 / (i - 30001) > 0 GROUP BY k$$)),
             (oracle_explain($$SELECT 100 / (i - 45000) AS q, count(*) FROM pa_err GROUP BY 1$$))) v(p);
-- parallel_leader_participation on
SELECT k, sum(x) FROM pa_err GROUP BY k;
SELECT k, count(*) FROM pa_err WHERE 1 / (i - i) > 0 GROUP BY k;
SELECT k, count(*) FROM pa_err WHERE 100 / (i - 30001) > 0 GROUP BY k;
SELECT 100 / (i - 45000) AS q, count(*) FROM pa_err GROUP BY 1;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(x) AS s FROM pa_err WHERE k < 100 GROUP BY k$$);
-- parallel_leader_participation off at execution: a worker is the consumer
SET plan_cache_mode = force_generic_plan;
PREPARE pa_err_sum AS SELECT k, sum(x) FROM pa_err GROUP BY k;
PREPARE pa_err_div AS SELECT k, count(*) FROM pa_err WHERE 1 / (i - i) > 0 GROUP BY k;
PREPARE pa_err_div1 AS SELECT k, count(*) FROM pa_err WHERE 100 / (i - 30001) > 0 GROUP BY k;
PREPARE pa_err_key AS SELECT 100 / (i - 45000) AS q, count(*) FROM pa_err GROUP BY 1;
-- planned now, with parallel_leader_participation on
EXPLAIN (COSTS OFF) EXECUTE pa_err_sum;
SELECT s AS stmt, oracle_plan_kind(oracle_explain('EXECUTE ' || s)) AS plan, pa_is_parallel(oracle_explain('EXECUTE ' || s)) AS parallel
FROM unnest(ARRAY['pa_err_sum', 'pa_err_div', 'pa_err_div1', 'pa_err_key']) s;
SET parallel_leader_participation = off;
EXECUTE pa_err_sum;
EXECUTE pa_err_div;
EXECUTE pa_err_div1;
EXECUTE pa_err_key;
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(x) AS s FROM pa_err WHERE k < 100 GROUP BY k$$);
RESET parallel_leader_participation;
DEALLOCATE pa_err_sum;
DEALLOCATE pa_err_div;
DEALLOCATE pa_err_div1;
DEALLOCATE pa_err_key;
RESET plan_cache_mode;
\set VERBOSITY default
-- the session goes on: the parallel grouped scan again
SELECT * FROM pa_check($$SELECT k, count(*) AS c, sum(f8) AS s, avg(i8) AS a,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY pf) AS p FROM pa GROUP BY k$$);

DROP TABLE pa_alt, pa_wide, pa_empty, pa_one, pa_outer, pa_small, pa_err;
\i test/sql/parallel_teardown.sql
