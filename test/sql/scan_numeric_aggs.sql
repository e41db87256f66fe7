--
-- sum, avg, min, max and percentile_disc of numeric columns in the grouped
-- scan, exact, serially and under Gather.
--
\i test/sql/scan_numeric_setup.sql

-- sum(numeric) and avg(numeric) in the grouped scan, exact: the sum of
-- the inputs at their largest display scale in 256 bits, NaN apart.  Each
-- result is compared with PostgreSQL's as text (value and display scale),
-- the oracle run with gpusel out of the way (no scan, built-in percentiles
-- not replaced).
CREATE FUNCTION pg_temp.agg_check(aggs text[], grp text, cond text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE a text; q text; got text; want text;
BEGIN
  FOREACH a IN ARRAY aggs LOOP
    q := format('SELECT string_agg(g::text || ''='' || coalesce(v::text, ''NULL''), '','' ORDER BY g) FROM (SELECT %s AS g, %s AS v FROM nm WHERE %s GROUP BY 1) s',
                grp, a, cond);
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
    EXECUTE q INTO got;
    PERFORM set_config('gpusel.enable_scan', 'off', true);
    PERFORM set_config('gpusel.replace_builtin_percentiles', 'off', true);
    EXECUTE q INTO want;
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
    RETURN NEXT format('%s by %s where %s: %s', a, grp, cond,
                       CASE WHEN got IS NOT DISTINCT FROM want THEN 'same' ELSE 'gpusel ' || coalesce(got, 'NULL') || ', PostgreSQL ' || coalesce(want, 'NULL') END);
  END LOOP;
END $$;
EXPLAIN (COSTS OFF) SELECT id % 7, sum(m * m2), avg(w), min(m), max(f) FROM nm WHERE gpu_filter(m > 0) GROUP BY 1;
SELECT * FROM pg_temp.agg_check(ARRAY['sum(m)', 'avg(m)', 'sum(m * m2)', 'avg(m * (1 - t) * (1 + f))',
  'sum(w)', 'avg(w)', 'sum(w * w)', 'sum(w * w * o)', 'sum(-f)', 'avg(t)', 'sum(big)', 'avg(m2 - 0.005)',
  'sum(o * 0.5)', 'count(*)', 'min(m)', 'max(m)', 'max(w)', 'min(f)', 'max(t)', 'min(o)', 'max(m2)'], 'id % 7', 'true');
SELECT * FROM pg_temp.agg_check(ARRAY['sum(m)', 'avg(m * m2)', 'sum(w * w)'], 'id % 3', 'gpu_filter(m > 10 AND m2 < 500)');
-- groups whose inputs are all NULL, or hold NaN; no row at all
SELECT * FROM pg_temp.agg_check(ARRAY['sum(m)', 'avg(m)', 'sum(m * m2)', 'min(m)', 'max(w)'], 'id % 2', 'gpu_filter(id < 0)');
SELECT * FROM pg_temp.agg_check(ARRAY['sum(m)', 'avg(m)'], '1', 'gpu_filter(m < -1e20)');
-- Without group keys (TPC-H Q6's shape) a GPU sums the numerics on the
-- device, one sum per aggregate and batch (groupagg_devsum.c); a batch
-- whose sum would leave 128 bits (sum(w * w * o): 5,000 products near
-- 10^35) or that holds NaN is still exact.  Here the CPU path answers.
CREATE FUNCTION pg_temp.sum_check(aggs text, cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE q text := format('SELECT ROW(%s)::text FROM nm WHERE %s', aggs, cond); got text; want text;
BEGIN
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  EXECUTE q INTO got;
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  EXECUTE q INTO want;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  RETURN format('%s where %s: %s', aggs, cond,
                CASE WHEN got IS NOT DISTINCT FROM want THEN 'same' ELSE 'gpusel ' || coalesce(got, 'NULL') || ', PostgreSQL ' || coalesce(want, 'NULL') END);
END $$;
EXPLAIN (COSTS OFF) SELECT sum(m * m2), count(*) FROM nm WHERE gpu_filter(m > 0);
SELECT s AS sum_check FROM (SELECT pg_temp.sum_check(a, c) AS s FROM unnest(ARRAY[
  'sum(m * m2), count(*)', 'sum(m), avg(m), count(*)', 'avg(m * (1 - t) * (1 + f)), sum(-f)',
  'sum(w * w), avg(m2 - 0.005), sum(o * 0.5)', 'sum(w * w * o), count(*)', 'sum(w * w * w)',
  'sum(m * m2), sum(m), sum(t), sum(f)']) a,
  unnest(ARRAY['gpu_filter(m > 0)', 'gpu_filter(id < 0)', 'gpu_filter(m BETWEEN -50 AND 50 AND o >= 0)']) c) x
ORDER BY s COLLATE "C";
-- an input that is not bounded (unconstrained numeric) too: section 11
EXPLAIN (COSTS OFF) SELECT sum(u) FROM nm WHERE gpu_filter(m > 0);
-- under Gather, the workers' sums combine exactly (planned as on a GPU
-- machine, without gpu_filter: a marked scan replaces the partial paths)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT g, sum(m * m2) FROM nm WHERE m > -500 GROUP BY 1;
SELECT * FROM pg_temp.agg_check(ARRAY['sum(m * m2)', 'avg(w * w)', 'sum(f)', 'avg(m)'], 'g', 'm > -500');
-- a table large enough that the workers read blocks too (how many depends
-- on when they start), whose groups the leader merges
CREATE TABLE nmp AS
SELECT i % 4 AS g, (((i::int8 * 7919) % 200001 - 100000) / 100.0)::numeric(15,2) AS m,
       CASE WHEN i % 100000 = 7 THEN 'NaN' ELSE (i % 1000) / 1000.0 END::numeric(6,3) AS d
FROM generate_series(1, 300000) i;
ANALYZE nmp;
CREATE FUNCTION pg_temp.nmp_check() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE a text; q text; got text; want text;
BEGIN
  FOREACH a IN ARRAY ARRAY['sum(m * (1 - d))', 'avg(m)', 'sum(d)', 'avg(m * m * d)', 'min(m)', 'max(d)'] LOOP
    q := format('SELECT string_agg(g::text || ''='' || coalesce(v::text, ''NULL''), '','' ORDER BY g) FROM (SELECT g, %s AS v FROM nmp WHERE m > -900 GROUP BY g) s', a);
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    EXECUTE q INTO got;
    PERFORM set_config('gpusel.enable_scan', 'off', true);
    EXECUTE q INTO want;
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    RETURN NEXT format('%s: %s', a, CASE WHEN got = want THEN 'same' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END);
  END LOOP;
END $$;
SELECT * FROM pg_temp.nmp_check();
DROP TABLE nmp;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpusel.plan_as_gpu;
RESET gpusel.min_rows;
SET max_parallel_workers_per_gather = 0;

-- percentile_disc over a numeric(p,s) column in the grouped scan: its
-- keys are the scaled integers (NaN last), the results numerics again with
-- the column's display scale.
EXPLAIN (COSTS OFF) SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY m) FROM nm WHERE gpu_filter(m2 > 0) GROUP BY g;
SELECT * FROM pg_temp.agg_check(ARRAY[
  'percentile_disc(0.5) WITHIN GROUP (ORDER BY m)',
  'percentile_disc(ARRAY[0, 0.25, NULL, 0.999, 1]) WITHIN GROUP (ORDER BY m)',
  'percentile_disc(0.9) WITHIN GROUP (ORDER BY m DESC)',
  'percentile_disc(1) WITHIN GROUP (ORDER BY w)',
  'percentile_disc(0) WITHIN GROUP (ORDER BY f)',
  'percentile_disc(0.5) WITHIN GROUP (ORDER BY t DESC)',
  'percentile_disc(0.3) WITHIN GROUP (ORDER BY o)',
  'row(percentile_disc(0.5) WITHIN GROUP (ORDER BY m2), sum(m2), avg(m), count(m))'],
  'g', 'true');
SELECT * FROM pg_temp.agg_check(ARRAY['percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY m)',
  'percentile_disc(1) WITHIN GROUP (ORDER BY m)'], '1', 'gpu_filter(m2 > 100 OR m = ''NaN'')');
SELECT * FROM pg_temp.agg_check(ARRAY['percentile_disc(0.5) WITHIN GROUP (ORDER BY m)'], 'id % 3', 'gpu_filter(id < 0)');
SELECT * FROM pg_temp.agg_check(ARRAY['percentile_disc(0.5) WITHIN GROUP (ORDER BY m)'], '1', 'gpu_filter(m < -1e20)');
-- an unbounded column (unconstrained numeric) stays with PostgreSQL's plan
EXPLAIN (COSTS OFF) SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY u) FROM nm WHERE gpu_filter(m > 0);
SELECT * FROM pg_temp.agg_check(ARRAY['percentile_disc(0.5) WITHIN GROUP (ORDER BY u)'], '1', 'gpu_filter(m > 0)');

DROP TABLE nm;
