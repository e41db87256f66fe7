--
-- What the parallel suites (parallel*.sql) share, included by each with
-- \i: settings, the oracle, and the main table pa.  The grouped
-- GpuSelScan under Gather (parallel feeding): parallel workers read the
-- table's blocks, and one process, the consumer (the leader, or the first
-- worker when parallel_leader_participation is off), returns the groups.
--
-- pa_check(query, nkeys) is groupagg_setup.sql's ga_check: it runs a query as the
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
