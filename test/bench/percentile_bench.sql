-- SQL benchmark of gpu_percentile: each gpusel figure beside PostgreSQL's
-- percentile_disc (and tdigest, approximate) measured in the same run.
-- Run with psql -v rows=20000000 -f bench/percentile_bench.sql
\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 20000000
\endif
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE EXTENSION IF NOT EXISTS gpusel;
LOAD 'gpusel';  -- installs the planner hooks before the first query
-- the reference is PostgreSQL's own percentile_disc, not gpusel answering it
SET gpusel.replace_builtin_percentiles = off;
SELECT (SELECT count(*) FROM pg_available_extensions WHERE name = 'tdigest') > 0 AS have_tdigest \gset
\if :have_tdigest
CREATE EXTENSION IF NOT EXISTS tdigest;
\endif

-- 8 columns, the shape of the table in DESIGN.md
DROP TABLE IF EXISTS bench_t;
CREATE UNLOGGED TABLE bench_t AS
SELECT i::int8 AS id, random() AS x, random() * 1000 - 500 AS y, (random() * 1e6)::int4 AS k,
       (random() * 1e12)::int8 AS j, random()::float4 AS f, date '2000-01-01' + (i % 9000)::int AS d,
       (i % 101)::int4 AS grp
FROM generate_series(1, :rows) i;
VACUUM ANALYZE bench_t;
SELECT pg_size_pretty(pg_relation_size('bench_t')) AS table_size, count(*) AS rows FROM bench_t;

-- median wall time of a query, in ms
CREATE FUNCTION pg_temp.ms(query text, reps int DEFAULT 3) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE t timestamptz; times float8[] := '{}'; dummy text;
BEGIN
  FOR r IN 1..reps LOOP
    t := clock_timestamp();
    EXECUTE 'SELECT (' || query || ')::text' INTO dummy;
    times := times || extract(epoch FROM clock_timestamp() - t) * 1000;
  END LOOP;
  RETURN round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(times) v)::numeric, 1);
END $$;
-- a WHERE clause that keeps the whole-table scan away, evaluated once
CREATE FUNCTION pg_temp.noscan() RETURNS boolean LANGUAGE plpgsql STABLE AS 'BEGIN RETURN true; END';
CREATE FUNCTION pg_temp.ms_on(device text, query text) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gpusel.device', device, true);
  PERFORM set_config('gpusel.min_rows', '0', true);
  RETURN pg_temp.ms(query);
END $$;

-- the same, with gpusel answering the built-in aggregates as written
CREATE FUNCTION pg_temp.ms_builtin(device text, query text) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
  RETURN pg_temp.ms_on(device, query);
END $$;

SELECT count(*) FROM bench_t;  -- warm the buffer cache

CREATE TEMP TABLE results (what text, percentile_disc_ms numeric, gpu_ms numeric, cpu_ms numeric, tdigest_ms numeric);
INSERT INTO results VALUES
 ('single fraction, float8',
  pg_temp.ms('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t', 1),
  pg_temp.ms_on('gpu', 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t'),
  pg_temp.ms_on('cpu', 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t'),
  NULL),
 ('9 fractions, float8',
  pg_temp.ms('SELECT percentile_disc(ARRAY[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]) WITHIN GROUP (ORDER BY x) FROM bench_t', 1),
  pg_temp.ms_on('gpu', 'SELECT gpu_percentile(ARRAY[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]) WITHIN GROUP (ORDER BY x) FROM bench_t'),
  pg_temp.ms_on('cpu', 'SELECT gpu_percentile(ARRAY[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]) WITHIN GROUP (ORDER BY x) FROM bench_t'),
  NULL),
 ('single fraction, int8',
  pg_temp.ms('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY j) FROM bench_t', 1),
  pg_temp.ms_on('gpu', 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY j) FROM bench_t'),
  pg_temp.ms_on('cpu', 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY j) FROM bench_t'),
  NULL),
 ('single fraction, float8, aggregate path (gpusel.enable_scan off)',
  pg_temp.ms('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t', 1),
  pg_temp.ms_on('gpu', 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t WHERE pg_temp.noscan()'),
  pg_temp.ms_on('cpu', 'SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) FROM bench_t WHERE pg_temp.noscan()'),
  NULL),
 ('percentile_disc as written, 3 fractions (replace_builtin_percentiles)',
  pg_temp.ms('SELECT percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) FROM bench_t', 1),
  pg_temp.ms_builtin('gpu', 'SELECT percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) FROM bench_t'),
  pg_temp.ms_builtin('cpu', 'SELECT percentile_disc(ARRAY[0.5,0.9,0.99]) WITHIN GROUP (ORDER BY x) FROM bench_t'),
  NULL),
 ('per group, 101 groups',
  pg_temp.ms('SELECT array_agg(p) FROM (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) p FROM bench_t GROUP BY grp) s', 1),
  pg_temp.ms_on('gpu', 'SELECT array_agg(p) FROM (SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) p FROM bench_t GROUP BY grp) s'),
  pg_temp.ms_on('cpu', 'SELECT array_agg(p) FROM (SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) p FROM bench_t GROUP BY grp) s'),
  NULL);
\if :have_tdigest
UPDATE results SET tdigest_ms = pg_temp.ms('SELECT tdigest_percentile(x, 100, 0.5) FROM bench_t')
 WHERE what = 'single fraction, float8';
UPDATE results SET tdigest_ms = pg_temp.ms('SELECT tdigest_percentile(x, 100, ARRAY[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]) FROM bench_t')
 WHERE what = '9 fractions, float8';
\endif
SELECT count(*) AS scan_only_ms_rows, pg_temp.ms('SELECT count(x) FROM bench_t') AS count_x_ms FROM bench_t;

-- exactness check in the same run
SET gpusel.device = gpu; SET gpusel.min_rows = 0;
SELECT (SELECT gpu_percentile(ARRAY[0,0.1,0.5,0.9,1]) WITHIN GROUP (ORDER BY x) FROM bench_t)
     = (SELECT percentile_disc(ARRAY[0,0.1,0.5,0.9,1]) WITHIN GROUP (ORDER BY x) FROM bench_t) AS gpu_exact;
RESET gpusel.device; RESET gpusel.min_rows;

SELECT what, percentile_disc_ms, gpu_ms, round(percentile_disc_ms / gpu_ms, 2) AS gpu_speedup,
       cpu_ms, round(percentile_disc_ms / cpu_ms, 2) AS cpu_speedup,
       tdigest_ms, round(tdigest_ms / gpu_ms, 2) AS gpu_vs_tdigest
FROM results;
SELECT * FROM gpusel_stats();
