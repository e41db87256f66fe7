--
-- The grouped GpuSelScan under Gather (parallel feeding), differentially
-- against PostgreSQL: parallel workers read the table's blocks, and one
-- process, the consumer (the leader, or the first worker when
-- parallel_leader_participation is off), returns the groups.
--
-- pa_check(query, nkeys) is groupagg.sql's ga_check: it runs a query as the
-- oracle (gpusel out of the way: gpusel.enable_scan and
-- gpusel.replace_builtin_percentiles off, PostgreSQL's built-in
-- percentile_disc and percentile_cont, gpu_filter(x) as (x), no JIT,
-- enable_hashagg and enable_sort on), then with gpusel's settings as they
-- are, and counts the rows that do not match, which must be 0.  It also says whether gpusel's run
-- had the parallel plan: a Gather above a Parallel Custom Scan (GpuSelScan).
--
LOAD 'gpusel';
SET extra_float_digits = 1;
-- parallel plans wherever PostgreSQL allows them
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SET gpusel.explain_device_details = off;

\i test/sql/oracle_functions.sql

-- Whether the plan is the parallel grouped scan.
CREATE FUNCTION pa_is_parallel(plan text) RETURNS bool LANGUAGE sql AS $fn$
  SELECT plan LIKE '%Gather%' AND plan LIKE '%Parallel Custom Scan (GpuSelScan)%'
$fn$;

-- Runs q as the oracle, then with gpusel's settings as they are, and
-- compares the results.  The plans are those of the CREATE TABLE AS that
-- runs each query.
CREATE FUNCTION pa_check(q text, nkeys int DEFAULT 1,
                         OUT plan text, OUT parallel bool, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  oq text := replace(replace(replace(q, 'gpu_percentile_cont(', 'percentile_cont('),
                             'gpu_percentile(', 'percentile_disc('), 'gpu_filter(', '(');
  p text;
BEGIN
  PERFORM oracle_run('CREATE TEMP TABLE pa_oracle AS ' || oq, 'CREATE TEMP TABLE pa_oracle AS ' || oq);
  p := oracle_explain('CREATE TEMP TABLE pa_gpusel AS ' || q);
  plan := oracle_plan_kind(p);
  parallel := pa_is_parallel(p);
  EXECUTE 'CREATE TEMP TABLE pa_gpusel AS ' || q;
  SELECT c.total_rows, c.mismatches INTO total_rows, mismatches FROM oracle_compare('pa', nkeys) c;
END
$fn$;

-- The same for two prepared statements of the same query: the oracle's,
-- planned (at its first run) and run with gpusel out of the way, and
-- gpusel's, with its cached plan as it is.  One statement, so that an
-- error leaves no table behind.
CREATE FUNCTION pa_check_prepared(oracle_exec text, gpusel_exec text, nkeys int DEFAULT 1,
                                  OUT plan text, OUT parallel bool, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  p text;
BEGIN
  -- the plan is made at the statement's first run: the oracle's with gpusel away
  PERFORM oracle_run('CREATE TEMP TABLE pa_oracle AS EXECUTE ' || oracle_exec, 'EXECUTE ' || oracle_exec);
  p := oracle_explain('EXECUTE ' || gpusel_exec);
  plan := oracle_plan_kind(p);
  parallel := pa_is_parallel(p);
  EXECUTE 'CREATE TEMP TABLE pa_gpusel AS EXECUTE ' || gpusel_exec;
  SELECT c.total_rows, c.mismatches INTO total_rows, mismatches FROM oracle_compare('pa', nkeys) c;
END
$fn$;

-- EXPLAIN ANALYZE's lines that are the same whatever number of workers
-- started: the actual row counts and loops (shared among the processes),
-- Workers Launched and the per-loop removed rows are left out.
CREATE FUNCTION pa_explain_analyze(q text) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN line ~ '(Workers Launched|Rows Removed by)';
    RETURN NEXT regexp_replace(line, ' \(actual rows=\d+ loops=\d+\)', '');
  END LOOP;
END
$fn$;

--
-- The table: 300,005 rows in about 3,700 blocks (ten of the feed's
-- 32,768-row chunks), every type the grouped scan reads, NULLs in most
-- columns, five rows NULL everywhere but id.  Values that are summed are
-- multiples of 0.25 of modest size, so sums are exact in any order (the
-- parallel scan adds in another order than a serial one); pf and pf4, for
-- min, max and percentiles, hold NaN and both infinities and never -0.
--
CREATE TABLE pa (
  id int4, k int4, g int4, b bool, s2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  pf float8, pf4 float4, d date, ts timestamp);
INSERT INTO pa
SELECT id,
       CASE WHEN id % 101 = 0 THEN NULL ELSE id % 53 END,
       CASE WHEN id % 997 = 0 THEN NULL ELSE id % 100000 END,
       CASE WHEN id % 11 = 0 THEN NULL ELSE id % 3 = 0 END,
       CASE WHEN id % 17 = 0 THEN NULL ELSE (id % 200 - 100) * 300 END,
       CASE WHEN id % 19 = 0 THEN NULL ELSE id * 7 % 1000 - 500 END,
       CASE WHEN id % 23 = 0 THEN NULL ELSE id::int8 * 1000003 - 2000000000 END,
       CASE WHEN id % 29 = 0 THEN NULL ELSE ((id % 41) - 20) * 0.25 END,
       CASE WHEN id % 13 = 0 THEN NULL ELSE ((id * 13) % 2001 - 1000) * 0.25 END,
       CASE WHEN id % 31 = 0 THEN NULL WHEN id % 1009 = 0 THEN 'NaN'
            WHEN id % 1013 = 0 THEN 'Infinity' WHEN id % 1019 = 0 THEN '-Infinity'
            ELSE (id::int8 * 7919 % 100003) / 8.0 - 5000 END,
       CASE WHEN id % 37 = 0 THEN NULL WHEN id % 1021 = 0 THEN 'NaN'
            WHEN id % 1031 = 0 THEN 'Infinity' WHEN id % 1033 = 0 THEN '-Infinity'
            ELSE (id::int8 * 104729 % 65537) / 4.0 - 8000 END,
       CASE WHEN id % 41 = 0 THEN NULL ELSE date '2020-01-01' + id % 500 END,
       CASE WHEN id % 43 = 0 THEN NULL ELSE timestamp '2020-01-01' + (id % 7919) * interval '17 minutes' END
FROM generate_series(1, 300000) id;
INSERT INTO pa (id) SELECT 300000 + g FROM generate_series(1, 5) g;
-- every page all-visible (pa_alt below is not vacuumed)
VACUUM ANALYZE pa;
SELECT count(*) AS table_rows, count(*) FILTER (WHERE pf = 'NaN') AS pf_nan,
       count(*) FILTER (WHERE pf = 'Infinity') AS pf_inf, count(*) FILTER (WHERE pf = '-Infinity') AS pf_minf,
       count(*) FILTER (WHERE pf = 0 AND pf::text = '-0') AS pf_minus_zero
FROM pa;
SELECT pg_relation_size('pa') / current_setting('block_size')::int > 1000 AS many_blocks;

-- PostgreSQL's own grouping is left out (gpusel.force_groupagg), as a few
-- groups would give it a Partial Aggregate under Gather that beats the
-- grouped scan (pa_check's oracle runs PostgreSQL's plan); the per-row
-- work, which the parallel grouped scan shares among the processes, is made
-- dearer, so that it beats the serial one also where the groups are many;
-- work_mem holds the estimate of 100,000 groups.
SET gpusel.force_groupagg = on;
SET cpu_operator_cost = 0.01;
SET work_mem = '64MB';

--
-- 1. The plans: a Gather above a Parallel Custom Scan (GpuSelScan) with
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
-- 2. Every aggregate over every type, grouped by an int4 key with a NULL
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
-- 3. Percentiles: gpusel's names, single fractions and arrays, ASC and
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
-- 4. Keys: NULL groups (int, bool, float with NaN and infinities), about
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
-- 5. WHERE: comparisons of a column with a constant, cross-type, an AND of
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
-- columns the scan copies.
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
-- 6. Empty and one-row tables.
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
-- 7. Execution shapes.
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
-- the same with count(t), a column of another type
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
-- 8. Errors: the same error as PostgreSQL's, with the leader as the
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

RESET gpusel.force_groupagg;
RESET cpu_operator_cost;
RESET work_mem;
--
-- A worker whose percentile keys fill two chunks (about 123,000 float8
-- keys for a one-column scan) sends its partial aggregate and starts a new
-- one while it still reads: 1,000,003 rows over 5 processes make more
-- than one part each, with and without GROUP BY.
-- NULLs, NaN and the infinities among them; no -0 (which zero comes out is
-- up to the order, in PostgreSQL too).
--
CREATE TABLE pa_keys AS
SELECT CASE WHEN g % 101 = 0 THEN NULL
            WHEN g % 997 = 0 THEN 'NaN'::float8
            WHEN g % 991 = 0 THEN '-Infinity'::float8
            WHEN g % 983 = 0 THEN 'Infinity'::float8
            ELSE ((g::int8 * 7919) % 200003 - 100001) * 0.25 END AS x,
       (g % 5000)::int4 AS i
FROM generate_series(1, 1000003) g;
ANALYZE pa_keys;
SELECT * FROM pa_check($$SELECT gpu_percentile(ARRAY[0, 0.001, 0.25, 0.5, 0.75, 0.999, 1]) WITHIN GROUP (ORDER BY x) AS p
  FROM pa_keys$$, 0);
SELECT * FROM pa_check($$SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x DESC) AS p,
  gpu_percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY i) AS pc, count(x) AS c, sum(i) AS s
  FROM pa_keys WHERE i < 4000$$, 0);
SELECT * FROM pa_check($$SELECT i % 7 AS g, gpu_percentile(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS p,
  count(*) AS c, max(x) AS mx, sum(i) AS s, avg(i) AS a FROM pa_keys GROUP BY i % 7$$);

DROP TABLE pa, pa_alt, pa_wide, pa_empty, pa_one, pa_outer, pa_small, pa_err, pa_keys;
DROP FUNCTION pa_check(text, int);
DROP FUNCTION pa_check_prepared(text, text, int);
DROP FUNCTION oracle_compare(text, int);
DROP FUNCTION oracle_run(text, text);
DROP FUNCTION pa_explain_analyze(text);
DROP FUNCTION pa_is_parallel(text);
DROP FUNCTION oracle_plan_kind(text);
DROP FUNCTION oracle_explain(text);
