-- Benchmark of numeric columns that reach the device only where their
-- values fit 18 digits (unconstrained numeric, numeric(30,2)): a count and
-- a sum under quals on them, as PostgreSQL runs them (serial, gpusel out of
-- the way) and as gpusel runs them on the GPU and on its CPU path, in the
-- same run, with the ratio and a check of the answers.  A last query over
-- a column whose values do not fit shows the batches going to the executor.
-- Run with psql -v rows=10000000 -f test/bench/numeric_fit_bench.sql
\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 10000000
\endif
\if :{?device}
\else
\set device gpu
\endif
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE EXTENSION IF NOT EXISTS gpusel;
LOAD 'gpusel';

DROP TABLE IF EXISTS bench_fit;
CREATE UNLOGGED TABLE bench_fit AS
SELECT i AS id, round((random() * 2000 - 1000)::numeric, 2) AS u,
       round((random() * 1e9)::numeric, 2)::numeric(30,2) AS w,
       (random() * 1000)::numeric / 7 AS many_decimals
FROM generate_series(1, :rows) i;
VACUUM ANALYZE bench_fit;
SELECT pg_size_pretty(pg_relation_size('bench_fit')) AS table_size;

-- median wall time of a query, in ms, with gpusel's scan on or off
CREATE FUNCTION pg_temp.ms(query text, gpusel bool, device text, reps int DEFAULT 3) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE t timestamptz; times float8[] := '{}'; dummy text;
BEGIN
  PERFORM set_config('gpusel.enable_scan', gpusel::text, true);
  PERFORM set_config('gpusel.device', device, true);
  PERFORM set_config('gpusel.min_rows', '0', true);
  FOR r IN 1..reps LOOP
    t := clock_timestamp();
    EXECUTE 'SELECT (' || query || ')::text' INTO dummy;
    times := times || extract(epoch FROM clock_timestamp() - t) * 1000;
  END LOOP;
  RETURN round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(times) v)::numeric, 1);
END $$;
CREATE FUNCTION pg_temp.answer(query text, gpusel bool, device text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
  PERFORM set_config('gpusel.enable_scan', gpusel::text, true);
  PERFORM set_config('gpusel.device', device, true);
  PERFORM set_config('gpusel.min_rows', '0', true);
  EXECUTE 'SELECT (' || query || ')::text' INTO v;
  RETURN v;
END $$;

SELECT count(*) FROM bench_fit;  -- warm the buffer cache
CREATE TEMP TABLE shapes (n int, what text, query text);
INSERT INTO shapes VALUES
 (1, 'count(*) under 2 quals on an unconstrained numeric',
  'SELECT count(*) FROM bench_fit WHERE u > 100.25 AND u < 900'),
 (2, 'count(*) under numeric(30,2) and unconstrained quals',
  'SELECT count(*) FROM bench_fit WHERE w < 500000000.5 AND u * 2 > -1000'),
 (3, 'sum(id) under a qual on an unconstrained numeric',
  'SELECT sum(id) FROM bench_fit WHERE u >= 0');
CREATE TEMP TABLE results AS
SELECT n, what, pg_temp.ms(query, false, 'auto', 1) AS postgres_ms,
       pg_temp.ms(query, true, :'device') AS gpu_ms, pg_temp.ms(query, true, 'cpu') AS cpu_ms,
       pg_temp.answer(query, false, 'auto') = pg_temp.answer(query, true, :'device') AS gpu_same
FROM shapes ORDER BY n;
SELECT n, what, postgres_ms, gpu_ms, round(postgres_ms / gpu_ms, 2) AS gpu_speedup,
       cpu_ms, round(postgres_ms / cpu_ms, 2) AS cpu_speedup, gpu_same
FROM results ORDER BY n;

-- where the values fit, no batch goes back; where none does, every one does
SET gpusel.device = :device; SET gpusel.min_rows = 0; SET gpusel.explain_device_details = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM bench_fit WHERE u > 100.25 AND u < 900;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM bench_fit WHERE many_decimals > 10;
