-- SQL benchmark of the GPU scan: count(*) and SELECT * with a one-term and
-- a five-term predicate, gpusel beside serial PostgreSQL and PostgreSQL with
-- 8 parallel workers, measured in the same run.  Uses bench_t from
-- percentile_bench.sql (20M rows, 8 columns).
\set ON_ERROR_STOP 1
LOAD 'gpusel';
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
-- runs a query under settings given as name=value pairs, local to the call
CREATE FUNCTION pg_temp.ms_with(settings text[], query text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE kv text; r numeric;
BEGIN
  FOREACH kv IN ARRAY settings LOOP
    PERFORM set_config(split_part(kv, '=', 1), split_part(kv, '=', 2), true);
  END LOOP;
  r := pg_temp.ms(query);
  RETURN r;
END $$;

SET jit = off;
SET max_parallel_workers = 8;
SELECT count(*) FROM bench_t;  -- warm the buffer cache
SELECT 'SELECT count(*) FROM bench_t WHERE x < 0.5' AS q1 \gset
SELECT 'SELECT count(*) FROM bench_t WHERE x < 0.9 AND y > -400 AND k < 900000 AND j > 100000000 AND f < 0.95' AS q5 \gset
SELECT 'SELECT sum(id) FROM (SELECT * FROM bench_t WHERE x < 0.5 OFFSET 0) s' AS s1 \gset
SELECT 'SELECT sum(id) FROM (SELECT * FROM bench_t WHERE x < 0.9 AND y > -400 AND k < 900000 AND j > 100000000 AND f < 0.95 OFFSET 0) s' AS s5 \gset

CREATE TEMP TABLE scan_results (what text, serial_ms numeric, parallel8_ms numeric, gpusel_ms numeric);
INSERT INTO scan_results
SELECT w, pg_temp.ms_with('{max_parallel_workers_per_gather=0,gpusel.enable_scan=off}', q),
          pg_temp.ms_with('{max_parallel_workers_per_gather=8,gpusel.enable_scan=off,parallel_setup_cost=0,min_parallel_table_scan_size=0}', q),
          pg_temp.ms_with('{max_parallel_workers_per_gather=0,gpusel.device=gpu,gpusel.min_rows=0}',
                          regexp_replace(q, 'WHERE (.*?)( OFFSET 0\)|$)', 'WHERE gpu_filter(\1)\2'))
FROM (VALUES ('count(*), 1 term', :'q1'), ('count(*), 5 terms', :'q5'),
             ('SELECT *, 1 term', :'s1'), ('SELECT *, 5 terms', :'s5')) v(w, q);

SELECT what, serial_ms, parallel8_ms, gpusel_ms,
       round(serial_ms / gpusel_ms, 2) AS vs_serial, round(parallel8_ms / gpusel_ms, 2) AS vs_parallel8
FROM scan_results;
SET gpusel.device = gpu; SET gpusel.min_rows = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM bench_t WHERE gpu_filter(x < 0.9 AND y > -400 AND k < 900000 AND j > 100000000 AND f < 0.95);
