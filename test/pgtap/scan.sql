-- pgTAP: the GpuSelScan under cancel, errors, rescans, prepared statements
-- and device choice, compared with PostgreSQL's own scan.
BEGIN;
SELECT plan(19);
LOAD 'gpusel';
SET LOCAL max_parallel_workers_per_gather = 0;

CREATE TEMP TABLE sc AS
SELECT g AS id, CASE WHEN g % 11 = 0 THEN NULL ELSE g % 1000 END AS v,
       (g % 97) / 7.0 AS f, g % 5 = 0 AS flag
FROM generate_series(1, 200003) g;
ANALYZE sc;

-- the plan text of a query
CREATE FUNCTION pg_temp.plan_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; result text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    result := result || line || E'\n';
  END LOOP;
  RETURN result;
END $$;
-- SQLSTATE of a query, catching a cancel (WHEN OTHERS, and so throws_ok, does not)
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'finished';
EXCEPTION
  WHEN query_canceled THEN RETURN SQLSTATE;
  WHEN OTHERS THEN RETURN SQLSTATE;
END $$;

SELECT has_function('gpu_filter', ARRAY['boolean'], 'gpu_filter(boolean) exists');
SELECT is(ARRAY[gpu_filter(true), gpu_filter(false), gpu_filter(NULL)], ARRAY[true, false, NULL],
          'gpu_filter returns its argument');
SELECT matches(pg_temp.plan_of('SELECT * FROM sc WHERE gpu_filter(v > 10)'),
               'Custom Scan \(GpuSelScan\) on sc', 'gpu_filter plans a GpuSelScan');
SELECT matches(pg_temp.plan_of('SELECT * FROM sc WHERE gpu_filter(v > 10) AND f::text LIKE ''1%'''),
               'Device Filter: \(v > 10\).*Filter: \(\(f\)::text ~~', 'the split shows in EXPLAIN');
SELECT doesnt_match(pg_temp.plan_of('SELECT * FROM sc WHERE v > 10'), 'GpuSelScan',
                    'a cheap ordinary predicate keeps PostgreSQL''s plan');

-- same rows, same order as the sequential scan
SET LOCAL gpusel.batch_rows = 4096;
SELECT results_eq(
  $$SELECT id FROM sc WHERE gpu_filter((v BETWEEN 100 AND 200 OR f > 13) AND flag IS NOT TRUE)$$,
  $$SELECT id FROM sc WHERE (v BETWEEN 100 AND 200 OR f > 13) AND flag IS NOT TRUE ORDER BY ctid$$,
  'rows and order match the sequential scan over 49 batches');
SELECT results_eq(
  $$SELECT count(*), sum(v) FROM sc WHERE gpu_filter(v IS NULL OR v * 3 < 30)$$,
  $$SELECT count(*), sum(v) FROM sc WHERE v IS NULL OR v * 3 < 30$$,
  'count(*) without re-reading tuples');
RESET gpusel.batch_rows;

-- errors are PostgreSQL's, and the session keeps working after them
SELECT throws_ok($$SELECT count(*) FROM sc WHERE gpu_filter(v * 10000000 > 0)$$,
                 '22003', 'integer out of range', 'integer overflow raises PostgreSQL''s error');
SELECT throws_ok($$SELECT count(*) FROM sc WHERE gpu_filter(100 / v > 1)$$,
                 '22012', 'division by zero', 'division by zero raises PostgreSQL''s error');
SELECT is((SELECT count(*) FROM sc WHERE gpu_filter(v <> 0 AND 100 / v > 1)),
          (SELECT count(*) FROM sc WHERE v <> 0 AND 100 / v > 1),
          'short circuit: no error where PostgreSQL raises none');

-- Ctrl-C: a statement timeout cancels a long scan between rows and batches
SET LOCAL statement_timeout = '300ms';
SELECT is(pg_temp.sqlstate_of($$SELECT count(*) FROM sc WHERE gpu_filter(v >= 0) AND pg_sleep(0.0005) IS NOT NULL$$),
          '57014', 'a long scan can be cancelled');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT count(*) FROM sc WHERE gpu_filter(v > 500)),
          (SELECT count(*) FROM sc WHERE v > 500), 'the session works after a cancel');

-- rescans with new parameter values, and unchanged ones
SELECT results_eq(
  $$SELECT k, (SELECT count(*) FROM sc WHERE gpu_filter(sc.v < k.k)) FROM (VALUES (0), (10), (10), (999), (NULL)) k(k)$$,
  $$SELECT k, (SELECT count(*) FROM sc WHERE sc.v < k.k) FROM (VALUES (0), (10), (10), (999), (NULL)) k(k)$$,
  'a correlated subquery rescans with each outer value');

-- prepared statements across the switch to a generic plan
PREPARE scq(int, float8) AS SELECT count(*) FROM sc WHERE gpu_filter(v > $1 AND f < $2);
CREATE TEMP TABLE scq_out (n int, got bigint, want bigint);
DO $$
DECLARE got bigint; want bigint;
BEGIN
  FOR i IN 1..8 LOOP
    EXECUTE format('EXECUTE scq(%s, %s)', i * 100, i) INTO got;
    SELECT count(*) INTO want FROM sc WHERE v > i * 100 AND f < i;
    INSERT INTO scq_out VALUES (i, got, want);
  END LOOP;
END $$;
SELECT is((SELECT count(*) FROM scq_out WHERE got = want), 8::bigint,
          'eight executions of a prepared statement, generic plan included');
DEALLOCATE scq;

-- EXPLAIN ANALYZE reports batches and scanned rows
SET LOCAL gpusel.batch_rows = 65536;
CREATE FUNCTION pg_temp.analyze_of(query text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || query INTO j;
  RETURN j->0->'Plan';
END $$;
SELECT is((SELECT (p->>'Batches')::int FROM pg_temp.analyze_of('SELECT * FROM sc WHERE gpu_filter(v > 990)') p),
          4, 'four batches of 65536 rows for 200003 rows');
SELECT is((SELECT (p->>'Rows Scanned')::int FROM pg_temp.analyze_of('SELECT * FROM sc WHERE gpu_filter(v > 990)') p),
          200003, 'every row scanned once');
RESET gpusel.batch_rows;

-- gpusel.device = cpu runs the same plan on the CPU
SET LOCAL gpusel.device = cpu;
SELECT is((SELECT count(*) FROM sc WHERE gpu_filter(f > 12 AND v < 500)),
          (SELECT count(*) FROM sc WHERE f > 12 AND v < 500), 'gpusel.device = cpu answers the same');

-- gpusel.device = gpu: the GPU, or an error with a hint at execution
SET LOCAL gpusel.device = gpu;
SELECT CASE WHEN (SELECT usable FROM gpusel_device_info())
  THEN lives_ok($$SELECT count(*) FROM sc WHERE gpu_filter(v > 10)$$, 'gpusel.device = gpu scans on the GPU')
  ELSE throws_ok($$SELECT count(*) FROM sc WHERE gpu_filter(v > 10)$$,
                 '55000', 'no usable GPU for gpusel', 'gpusel.device = gpu without a GPU raises 55000')
  END;
SELECT lives_ok($$EXPLAIN SELECT count(*) FROM sc WHERE gpu_filter(v > 10)$$,
                'EXPLAIN without ANALYZE needs no device');
SET LOCAL gpusel.device = auto;

SELECT * FROM finish();
ROLLBACK;
