-- SQL benchmark of the grouped scan (GpuSelScan's aggregate sink): query
-- shapes with WHERE, GROUP BY and aggregates beside percentiles, a text
-- key, and quals on numeric columns read where they fit, each timed
-- as PostgreSQL runs it (gpusel out of the way, serial) and as gpusel runs
-- it on the GPU and on its CPU path, in the same run, with the ratio.
-- Run with psql -v rows=20000000 -f test/bench/groupagg_bench.sql
\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 20000000
\endif
-- -v device=auto tries the script where there is no GPU
\if :{?device}
\else
\set device gpu
\endif
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET synchronize_seqscans = off;  -- float sums depend on where a scan starts
CREATE EXTENSION IF NOT EXISTS gpusel;
LOAD 'gpusel';  -- installs the planner hooks before the first query

-- the 8-column table of percentile_bench.sql
DROP TABLE IF EXISTS bench_t;
CREATE UNLOGGED TABLE bench_t AS
SELECT i::int8 AS id, random() AS x, random() * 1000 - 500 AS y, (random() * 1e6)::int4 AS k,
       (random() * 1e12)::int8 AS j, random()::float4 AS f, date '2000-01-01' + (i % 9000)::int AS d,
       (i % 101)::int4 AS grp
FROM generate_series(1, :rows) i;
VACUUM ANALYZE bench_t;
SELECT pg_size_pretty(pg_relation_size('bench_t')) AS table_size, count(*) AS rows FROM bench_t;

-- a text key beside it: a quarter of the rows, 1,000 names (its avg is of
-- integers: PostgreSQL sorts by the key, which reorders a float sum)
DROP TABLE IF EXISTS bench_text;
CREATE UNLOGGED TABLE bench_text AS
SELECT 'customer ' || (i::int8 * 7919 % 1000) AS name, random() AS x, (random() * 1e6)::int4 AS k
FROM generate_series(1, :rows / 4) i;
VACUUM ANALYZE bench_text;

-- numeric columns that reach the device only where their values fit: an
-- unconstrained one of 2 decimals (every value fits), a numeric(30,2), and
-- an unconstrained one of 20 decimals (none does) for the plan at the end;
-- a numeric(38,0) of values past 18 digits (compared as 128-bit halves),
-- and a date beside a timestamptz
DROP TABLE IF EXISTS bench_fit;
CREATE UNLOGGED TABLE bench_fit AS
SELECT round((random() * 2000 - 1000)::numeric, 2) AS u,
       round((random() * 1e9)::numeric, 2)::numeric(30,2) AS w,
       (random() * 1000)::numeric / 7 AS many_decimals,
       (random() * 1e37)::numeric(38,0) AS big,
       date '2000-01-01' + (random() * 3650)::int AS d,
       timestamptz '2000-01-01 00:00+00' + random() * interval '3650 days' AS tz
FROM generate_series(1, :rows / 2) i;
VACUUM ANALYZE bench_fit;

-- gpusel's settings as given, the others at their defaults, until the end of the transaction
CREATE FUNCTION pg_temp.apply(settings text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
  PERFORM set_config('gpusel.device', 'auto', true);
  PERFORM set_config('gpusel.min_rows', '100000', true);
  FOR i IN 1..coalesce(array_length(settings, 1), 0) BY 2 LOOP
    PERFORM set_config(settings[i], settings[i + 1], true);
  END LOOP;
END $$;

-- median wall time of a query, in ms, under the given settings
CREATE FUNCTION pg_temp.ms(query text, settings text[], reps int DEFAULT 3) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE t timestamptz; times float8[] := '{}'; dummy text;
BEGIN
  PERFORM pg_temp.apply(settings);
  FOR r IN 1..reps LOOP
    t := clock_timestamp();
    EXECUTE 'SELECT (' || query || ')::text' INTO dummy;
    times := times || extract(epoch FROM clock_timestamp() - t) * 1000;
  END LOOP;
  RETURN round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(times) v)::numeric, 1);
END $$;

-- PostgreSQL as it is: no gpusel plan, its own percentile_disc
\set pg '''{gpusel.enable_scan,off,gpusel.replace_builtin_percentiles,off}'''
\set gpu '''{gpusel.device,':device',gpusel.min_rows,0}'''
\set cpu '''{gpusel.device,cpu}'''

SELECT count(*) FROM bench_t;  -- warm the buffer cache

CREATE TEMP TABLE shapes (n int, what text, pg_query text, gpusel_query text);
INSERT INTO shapes VALUES
 (1, 'whole table, one fraction',
  'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t', NULL),
 (2, 'WHERE on a date + GROUP BY 101 groups, 3 fractions',
  'SELECT array_agg(p ORDER BY grp) FROM (SELECT grp, percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) p FROM bench_t WHERE d >= date ''2010-01-01'' GROUP BY grp) s', NULL),
 (3, 'WHERE keeping 50%, one fraction',
  'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t WHERE y > 0', NULL),
 (4, 'GROUP BY 10,000 groups (k % 10000), percentile_cont',
  'SELECT md5(array_agg(p ORDER BY g)::text) FROM (SELECT k % 10000 g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) p FROM bench_t GROUP BY k % 10000) s', NULL),
 (5, 'median with count(*) and avg beside it',
  'SELECT row(percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*), avg(y)) FROM bench_t', NULL),
 (6, 'sum + count under a 5-term filter',
  'SELECT row(sum(j), count(*)) FROM bench_t WHERE x > 0.1 AND y < 400 AND k > 1000 AND f < 0.95 AND d > date ''2001-01-01''',
  'SELECT row(sum(j), count(*)) FROM bench_t WHERE gpu_filter(x > 0.1 AND y < 400 AND k > 1000 AND f < 0.95 AND d > date ''2001-01-01'')'),
 (7, 'GROUP BY 101 groups: count, sum, avg, min, max',
  'SELECT array_agg(r ORDER BY grp) FROM (SELECT grp, row(count(*), sum(k), avg(y), min(x), max(d)) r FROM bench_t GROUP BY grp) s', NULL),
 (8, 'GROUP BY a text key (1,000 names, rows/4): count, avg, median',
  'SELECT md5(array_agg(r ORDER BY name)::text) FROM (SELECT name, row(count(*), avg(k), percentile_disc(0.5) WITHIN GROUP (ORDER BY x)) r FROM bench_text GROUP BY name) s', NULL),
 (9, 'count(*) under 2 quals on an unconstrained numeric (rows/2)',
  'SELECT count(*) FROM bench_fit WHERE u > 100.25 AND u < 900', NULL),
 (10, 'count(*) under numeric(30,2) and numeric quals (rows/2)',
  'SELECT count(*) FROM bench_fit WHERE w < 500000000.5 AND u * 2 > -1000', NULL),
 (11, 'count(*) under numeric(38,0) quals, values past 18 digits (rows/2)',
  'SELECT count(*) FROM bench_fit WHERE big > 2e36 AND big <= 7000000000000000000000000000000000000', NULL),
 (12, 'count(*) of a date column against a timestamptz column (rows/2)',
  'SELECT count(*) FROM bench_fit WHERE d <= tz', NULL),
 (13, 'percentiles of a numeric(30,2) whose values fit 18 digits (rows/2)',
  'SELECT percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY w) FROM bench_fit', NULL),
 (14, 'percentiles of a numeric(38,0) whose values all pass 18 digits (rows/2)',
  'SELECT percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY big) FROM bench_fit', NULL);

CREATE TEMP TABLE results AS
SELECT n, what,
       pg_temp.ms(pg_query, :pg, 1) AS postgres_ms,
       pg_temp.ms(coalesce(gpusel_query, pg_query), :gpu) AS gpu_ms,
       pg_temp.ms(coalesce(gpusel_query, pg_query), :cpu) AS cpu_ms
FROM shapes ORDER BY n;

-- the same answers in the same run, as text: every scan starts at block 0
-- (synchronize_seqscans off), so the float averages of shapes 5 and 7 add
-- their rows in the same order on every path and must agree to the bit
CREATE FUNCTION pg_temp.answer(query text, settings text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
  PERFORM pg_temp.apply(settings);
  EXECUTE 'SELECT (' || query || ')::text' INTO v;
  RETURN v;
END $$;
SELECT n, pg_temp.answer(pg_query, :pg) = pg_temp.answer(coalesce(gpusel_query, pg_query), :gpu) AS gpu_same,
       pg_temp.answer(pg_query, :pg) = pg_temp.answer(coalesce(gpusel_query, pg_query), :cpu) AS cpu_same
FROM shapes ORDER BY n;

SELECT n, what, postgres_ms, gpu_ms, round(postgres_ms / gpu_ms, 2) AS gpu_speedup,
       cpu_ms, round(postgres_ms / cpu_ms, 2) AS cpu_speedup
FROM results ORDER BY n;

-- where the GPU path's time goes, for shape 2
SET gpusel.device = :device; SET gpusel.min_rows = 0;
EXPLAIN (ANALYZE, COSTS OFF)
SELECT grp, percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) FROM bench_t
WHERE d >= date '2010-01-01' GROUP BY grp;
SELECT * FROM gpusel_stats();

-- numeric columns read where they fit: no batch goes back to the executor
-- where every value fits, every batch does where none does
SET gpusel.explain_device_details = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM bench_fit WHERE u > 100.25 AND u < 900;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM bench_fit WHERE many_decimals > 10;
