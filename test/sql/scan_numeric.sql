-- numeric columns in the device filter: numeric(p,s) with p <= 18 and
-- 0 <= s <= 18 travel as int8 scaled by 10^s (NaN above every value), and
-- compare with numeric constants through exact integer bounds.  Every
-- answer is compared with PostgreSQL's own plan in the same session.
SET max_parallel_workers_per_gather = 0;
SET gpusel.batch_rows = 1024;

CREATE TABLE nm (
  id int,
  m numeric(15,2),     -- TPC-H's DECIMAL(15,2)
  w numeric(18,0),     -- the widest that fits: 18 digits
  f numeric(18,18),    -- all decimals
  t numeric(4,6),      -- scale above precision: |v| < 0.01
  o numeric(1,0),
  m2 numeric(15,2),
  n5 numeric(5,-2),    -- negative scale: whole numbers, at scale 0
  u numeric,           -- unconstrained: where its values fit (section 10)
  big numeric(20,2),   -- more than 18 digits: likewise
  g int                -- a group key
);
INSERT INTO nm
SELECT i,
       round(((i * 7919) % 200001 - 100000) / 100.0, 2),
       ((i * 104729) % 2000001 - 1000000)::numeric * 100000000000,
       ((i * 31) % 1000) / 1000.0 + ((i * 17) % 97) * 1e-15,
       ((i * 13) % 200 - 100) / 100000.0,
       (i % 19) - 9,
       round(((i * 6007) % 200001 - 100000) / 100.0, 2),
       (i % 1000) * 100,
       i / 7.0,
       i * 1000000000.01,
       i % 5
FROM generate_series(1, 5000) i;
-- the extremes, zeros written in every way, NaN and NULL
INSERT INTO nm (id, m, w, f, t, o, m2) VALUES
  (-1, 9999999999999.99, 999999999999999999, 0.999999999999999999, 0.009999, 9, 9999999999999.99),
  (-2, -9999999999999.99, -999999999999999999, -0.999999999999999999, -0.009999, -9, -9999999999999.99),
  (-3, 0, 0, 0, 0, 0, 0), (-4, -0.00, -0, -0.0, -0.000000, -0, 0.00),
  (-5, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (-6, 'NaN', 1, 0.5, 0.005, 1, 'NaN'),
  (-7, NULL, NULL, NULL, NULL, NULL, NULL), (-8, 0.01, 1, 1e-18, 0.000001, 1, -0.01),
  (-9, 1e12, 1e17, 1e-10, 1e-6, 5, 1e12), (-10, 10000.00, 10000, 0.0001, 0.0001, 1, 10000);
ANALYZE nm;

-- every comparison of each device column with each constant, either way
-- round, through gpusel (gpu_filter forces its scan) and through
-- PostgreSQL; returns the cases whose row sets differ
CREATE TEMP TABLE checked (n int);
CREATE FUNCTION pg_temp.mismatches(cols text[], consts text[], tab text DEFAULT 'nm') RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  col text; c text; op text; q text; pred text; got text; want text; n int := 0;
  session_jit text := current_setting('jit');
BEGIN
  -- JIT (forced in one of the suite's modes) compiles each query in ~0.4 s:
  -- of these thousands of cases, every 500th runs under the session's jit
  PERFORM set_config('jit', 'off', true);
  FOREACH col IN ARRAY cols LOOP
    FOREACH c IN ARRAY consts LOOP
      FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
        FOREACH pred IN ARRAY ARRAY[format('%s %s %L::numeric', col, op, c),
                                    format('%L::numeric %s %s', c, op, col)] LOOP
          q := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM ' || tab || ' WHERE ';
          IF n % 500 = 0 THEN PERFORM set_config('jit', session_jit, true); END IF;
          PERFORM set_config('gpusel.enable_scan', 'on', true);
          EXECUTE q || 'gpu_filter(' || pred || ')' INTO got;
          PERFORM set_config('gpusel.enable_scan', 'off', true);
          EXECUTE q || pred INTO want;
          PERFORM set_config('gpusel.enable_scan', 'on', true);
          IF n % 500 = 0 THEN PERFORM set_config('jit', 'off', true); END IF;
          n := n + 1;
          IF got IS DISTINCT FROM want THEN
            RETURN NEXT format('%s: gpusel %s, PostgreSQL %s', pred, got, want);
          END IF;
        END LOOP;
      END LOOP;
    END LOOP;
  END LOOP;
  PERFORM set_config('jit', session_jit, true);
  INSERT INTO checked VALUES (n);
END $$;

-- 1. The plans: the columns that fit go to the device filter, the others stay.
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(m BETWEEN .06 - 0.01 AND .06 + 0.01 AND m < 24);
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(m < m2 AND w >= 0 AND f <> 0.5 AND t > 0 AND o = 1);
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(n5 > 100 AND u > 1 AND big > 1 AND m < w AND m > 1 AND m::float8 > 1 AND o > 1);

-- 2. Each device column against constants: exact at its scale, between two
-- of its values, beyond its range, NaN, infinities, zeros, tiny values
SELECT * FROM pg_temp.mismatches(ARRAY['m', 'w', 'f', 't', 'o', 'm2'], ARRAY[
  '0', '-0.000', '0.01', '0.005', '-0.005', '0.015', '24', '23.999', '-100', '1000.5',
  '9999999999999.99', '9999999999999.995', '-9999999999999.99', '-10000000000000', '1e12',
  '999999999999999999', '1000000000000000000', '-999999999999999999', '1e30', '-1e30',
  '0.999999999999999999', '0.9999999999999999995', '1e-18', '5e-19', '1e-30', '-1e-30',
  '0.009999', '0.0099995', '0.000001', '9', '-9', '9.5', 'NaN', 'Infinity', '-Infinity']);
SELECT sum(n) AS cases_checked FROM checked;

-- 3. Two columns of one scale compare on the device, NaN with NaN included.
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(m <= m2);
CREATE FUNCTION pg_temp.column_pairs() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE op text; got text; want text;
BEGIN
  FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM nm WHERE gpu_filter(m %s m2)', op) INTO got;
    PERFORM set_config('gpusel.enable_scan', 'off', true);
    EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM nm WHERE m %s m2', op) INTO want;
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    RETURN NEXT format('m %s m2: %s', op, CASE WHEN got = want THEN 'same' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END);
  END LOOP;
END $$;
SELECT * FROM pg_temp.column_pairs();

-- 3b. + - * and unary minus over these columns and numeric constants, on
-- the device as scaled int8 at numeric's result scale (qual_numeric_compile.c):
-- a step that leaves int8, a NaN taken into arithmetic, or a result beyond
-- +-(10^18 - 1) makes the executor evaluate the batch (w * w overflows,
-- the NaN rows meet every expression).  t * f (scale 24) stays on the CPU.
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm
  WHERE gpu_filter(m * (1 - t) > 1000 AND -m < w - 5 AND m * m2 <= f * 2 AND t * f > 0);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['(m * m2)', '(m * (1 - t))', '(m - m2)', '(m + w)', '(-m)',
  '(w * w)', '(w * o)', '(f * 2)', '(m * 0.5 + 1)', '(o - m * 3)', '(m * m2 * o)', '(-(m - 0.001))'],
  ARRAY['0', '1000', '-1000.005', '0.5', '1e17', '-1e18', '999999999999999999.5', 'NaN', '1e-9', '-24']);
SELECT sum(n) AS cases_checked FROM checked;
-- the same without NaN and with w below 10^9, so that no batch goes back to
-- the executor: on a GPU these answers are the device's own
CREATE TABLE nm_finite AS SELECT * FROM nm WHERE m <> 'NaN' AND w <> 'NaN' AND f <> 'NaN' AND t <> 'NaN'
  AND o <> 'NaN' AND m2 <> 'NaN' AND abs(w) < 1e9;
INSERT INTO nm_finite (id, m, w, f, t, o, m2)
SELECT -100 - i, round((i * 7919 % 20001 - 10000) / 100.0, 2), i * 1000 - 500000, 0.5, 0.005, i % 3, 24.00
FROM generate_series(1, 1000) i;
ANALYZE nm_finite;
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['(m * m2)', '(m * (1 - t))', '(m - m2)', '(m + w)', '(-m)',
  '(w * w)', '(w * o)', '(m * 0.5 + 1)', '(o - m * 3)', '(m * m2 * o)'],
  ARRAY['0', '1000', '-1000.005', '0.5', '1e12', '-24', '2500000'], 'nm_finite');
SELECT sum(n) AS cases_checked FROM checked;
CREATE FUNCTION pg_temp.expr_pairs(tab text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE pair text; op text; got text; want text;
  q text := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM ' || tab || ' WHERE ';
BEGIN
  FOREACH pair IN ARRAY ARRAY['m * m2 %s w', 'm - m2 %s 0 * w', 'm * 2 %s m + m', 'm %s w',
                              'f %s m * m2', 'o * 1000 %s m', '-m %s m2 * 1.5'] LOOP
    FOREACH op IN ARRAY ARRAY['<', '=', '>='] LOOP
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      EXECUTE q || 'gpu_filter(' || format(pair, op) || ')' INTO got;
      PERFORM set_config('gpusel.enable_scan', 'off', true);
      EXECUTE q || format(pair, op) INTO want;
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      RETURN NEXT tab || ': ' || format(pair, op) || ': ' ||
        CASE WHEN got = want THEN 'same' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END;
    END LOOP;
  END LOOP;
END $$;
SELECT * FROM pg_temp.expr_pairs('nm');
SELECT * FROM pg_temp.expr_pairs('nm_finite');

-- 4. The TPC-H Q6 shape, with a numeric sum of the rows that pass, and the
-- columns that stay on the CPU beside device quals.
SELECT sum(m * m2) AS revenue, count(*) FROM nm
WHERE gpu_filter(m BETWEEN .06 - 0.01 AND .06 + 0.01 OR m >= 100 AND m < 24000) AND o < 5;
SET gpusel.enable_scan = off;
SELECT sum(m * m2) AS revenue, count(*) FROM nm
WHERE (m BETWEEN .06 - 0.01 AND .06 + 0.01 OR m >= 100 AND m < 24000) AND o < 5;
SET gpusel.enable_scan = on;
SELECT count(*), sum(id) FROM nm WHERE gpu_filter(m > 50 AND u > 100 AND n5 >= 500 AND big < 1e13);
SET gpusel.enable_scan = off;
SELECT count(*), sum(id) FROM nm WHERE m > 50 AND u > 100 AND n5 >= 500 AND big < 1e13;
SET gpusel.enable_scan = on;
-- rows handed back to the executor keep their numerics as stored
SELECT id, m, w, f, t, o FROM nm WHERE gpu_filter(m > 9999999999999 OR m < -9999999999999 OR o = 'NaN') ORDER BY id;

-- 5. Columns after variable-width ones are read by walking each tuple's
-- attributes (nulls, alignment, short and long varlena headers); a tuple
-- written before a column was added lacks it and is deformed through a slot.
CREATE TABLE walk (t text, id int, b bool, v varchar, s int2, m numeric(15,2), junk text,
                   f4 float4, d date, i8 int8, f8 float8);
INSERT INTO walk
SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE repeat('x', i % 300) END, i, i % 3 = 0,
       CASE WHEN i % 5 = 0 THEN NULL ELSE repeat('y', i % 140) END, (i % 1000)::int2,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 97 = 0 THEN 'NaN' ELSE (i % 5000) / 4.0 END,
       repeat('z', i % 3), (i % 777)::float4 / 7, date '2000-01-01' + i % 4000,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i::int8 * 1000003 END, i / 3.0
FROM generate_series(1, 6000) i;
ALTER TABLE walk DROP COLUMN junk;
ALTER TABLE walk ADD COLUMN late int4 DEFAULT 42;
INSERT INTO walk (t, id, b, v, s, m, f4, d, i8, f8, late)
SELECT 'new', i, true, NULL, 7, 1.25, 0.5, date '2020-02-02', NULL, 0.25, i FROM generate_series(6001, 6100) i;
CREATE FUNCTION pg_temp.walk_check() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE pred text; got text; want text;
  q text := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) || '':'' || coalesce(sum(s), 0) || '':'' || coalesce(sum(i8), 0) FROM walk WHERE ';
BEGIN
  FOREACH pred IN ARRAY ARRAY['b', 'NOT b', 's > 500', 'm > 600.25', 'm < 100', 'm = ''NaN''', 'm IS NULL',
                              'f4 > 50', 'd >= ''2005-01-01''', 'i8 < 2000000000', 'i8 IS NULL',
                              'f8 > 1000', 'late > 42', 'late = 42', 'b AND m > 10 AND s < 900 AND d < ''2009-01-01''']
  LOOP
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    EXECUTE q || 'gpu_filter(' || pred || ')' INTO got;
    PERFORM set_config('gpusel.enable_scan', 'off', true);
    EXECUTE q || pred INTO want;
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    RETURN NEXT format('%s: %s', pred, CASE WHEN got = want THEN 'same (' || got || ')' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END);
  END LOOP;
END $$;
SELECT * FROM pg_temp.walk_check();
DROP TABLE walk;

-- 6. sum(numeric) and avg(numeric) in the grouped scan, exact: the sum of
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

-- 7. percentile_disc over a numeric(p,s) column in the grouped scan: its
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

-- 8. char(n) group keys of at most 7 bytes (n characters in the database
-- encoding; TPC-H's l_returnflag and l_linestatus are char(1)) are keyed by
-- their bytes without trailing spaces, so that the grouped scan takes them;
-- numeric expressions over numeric(p,s) columns are computed in C, a row
-- whose value would leave 128 bits through the executor.
CREATE TABLE ch (rf char(1), ls char(1), wide char(3), q numeric(15,2), e numeric(15,2),
                 d numeric(15,2), big numeric(18,0));
INSERT INTO ch
SELECT (ARRAY['A', 'N', 'R', NULL, ' ', 'é'])[1 + i % 6], (ARRAY['F', 'O', 'f'])[1 + i % 3],
       (ARRAY['ab', 'ab ', 'abc', 'x', NULL])[1 + i % 5],
       1 + i % 50, round(i * 1.37 % 100000, 2), (i % 11) / 100.0,
       CASE WHEN i % 1000 = 0 THEN 999999999999999999 ELSE i END
FROM generate_series(1, 6000) i;
INSERT INTO ch VALUES ('A', 'F', 'ab', 'NaN', 1, 0, 1), ('', '', '', NULL, NULL, NULL, NULL);
ANALYZE ch;
EXPLAIN (COSTS OFF)
SELECT rf, ls, sum(q), sum(e * (1 - d) * (1 + d)), avg(d), count(*),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY e)
FROM ch WHERE gpu_filter(q < 40) GROUP BY rf, ls;
CREATE FUNCTION pg_temp.rows_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE got text; want text; wq text;
BEGIN
  wq := 'SELECT string_agg(s::text, '';'' ORDER BY s::text) FROM (' || q || ') s';
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
  EXECUTE wq INTO got;
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'off', true);
  EXECUTE replace(wq, 'gpu_filter', '') INTO want;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
  RETURN CASE WHEN got IS NOT DISTINCT FROM want THEN 'same' ELSE 'gpusel ' || coalesce(got, 'NULL') || ' | PostgreSQL ' || coalesce(want, 'NULL') END;
END $$;
SELECT pg_temp.rows_check($$SELECT rf, ls, sum(q), sum(e * (1 - d) * (1 + d)), avg(d), count(*),
  percentile_disc(0.5) WITHIN GROUP (ORDER BY e) FROM ch WHERE gpu_filter(q < 40) GROUP BY rf, ls$$) AS keys_two_char1;
SELECT pg_temp.rows_check($$SELECT rf, count(*), sum(big * big * big), avg(-q + e * 2) FROM ch GROUP BY rf$$) AS wide_products;
SELECT pg_temp.rows_check($$SELECT wide, count(*), sum(q) FROM ch GROUP BY wide$$) AS char3_key;
SELECT pg_temp.rows_check($$SELECT ls, rf, percentile_disc(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY q DESC) FROM ch WHERE gpu_filter(e > 100) GROUP BY ls, rf$$) AS keys_and_pct;
-- the keys come out as stored: padded to n characters
SELECT rf, length(rf::text) AS len, octet_length(rf) AS bytes, count(*) FROM ch WHERE gpu_filter(q > 0) GROUP BY rf ORDER BY rf COLLATE "C";
DROP TABLE ch;

-- 9. Negative scales travel at scale 0 (whole numbers of up to p - s
-- digits, stored with display scale 0) where p - s <= 18; wider ones, and
-- precisions above 38 digits, stay on the CPU with the same answers (c
-- now travels where its values fit, as section 10 shows).
CREATE TABLE nneg (id int, a numeric(5,-2), b numeric(16,-2), f numeric(1,-3),
                   c numeric(17,-2), d numeric(60,20), e numeric(40,0));
INSERT INTO nneg
SELECT i, ((i * 7919) % 199999 - 99999) * 100, ((i::int8 * 104729) % 2000001 - 1000000) * 100000000000,
       (i % 19 - 9) * 1000, i * 1000000000000000.0 + 100, i * 1e30 / 7, i * 1e35 + i
FROM generate_series(1, 3000) i;
INSERT INTO nneg VALUES (-1, 9999900, 999999999999999900, 9000, 9999999999999999900, 1e39, 9999999999999999999999999999999999999999),
  (-2, -9999900, -999999999999999900, -9000, -9999999999999999900, -1e39, -9999999999999999999999999999999999999999),
  (-3, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (-4, NULL, NULL, NULL, NULL, NULL, NULL), (-5, 0, 0, 0, 0, 0, 0),
  (-6, 149.99, 50, 499, 49, 1e-20, 0.4);
ANALYZE nneg;
SELECT a, b, f, scale(a) AS scale_a, scale(f) AS scale_f FROM nneg WHERE id IN (-6, -1) ORDER BY id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nneg WHERE gpu_filter(a > 0 AND b * 2 > a AND f < 0 AND c > 0 AND d > 0 AND e > 0);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['a', 'b', 'f', '(a * 2 - b)', 'c', 'd', 'e'],
  ARRAY['0', '100', '150', '-9999900', '9999950', '1e17', 'NaN', '-1e40', '12345678901234567890123.5'], 'nneg');
SELECT sum(n) AS cases_checked FROM checked;
EXPLAIN (COSTS OFF) SELECT id % 3, sum(a), avg(b), sum(f * a), count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY a)
  FROM nneg WHERE gpu_filter(a > -5000000) GROUP BY 1;
SELECT pg_temp.rows_check($$SELECT id % 3, sum(a), avg(b), sum(f * a), count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY a)
  FROM nneg WHERE gpu_filter(a > -5000000) GROUP BY 1$$) AS negative_scales;
SELECT pg_temp.rows_check($$SELECT sum(a), sum(b * f), avg(f), min(a), max(b), max(f) FROM nneg WHERE gpu_filter(b > 0)$$) AS negative_scale_sums;
SELECT pg_temp.rows_check($$SELECT id % 3, sum(d), avg(e), min(d), max(e), percentile_disc(0.25) WITHIN GROUP (ORDER BY e)
  FROM nneg GROUP BY 1$$) AS wide_precisions;
DROP TABLE nneg;

-- 10. Numeric columns whose values need not fit 18 digits (unconstrained,
-- or a typmod of more digits with a scale of at most 18) travel where each
-- value fits: at the typmod's scale, or (unconstrained) at the largest
-- scale of the quals' constants and at least 6.  A value that does not fit
-- (more digits or decimals) trips the column's range guard and the
-- executor evaluates its batch; NaN and the infinities have stand-ins that
-- order as PostgreSQL orders them.  The first 3,000 rows fit (on a GPU,
-- those batches are the device's own answers); later ones mix in values
-- that do not.
CREATE TABLE nf (id int, u numeric, v numeric, w numeric(30,4), z numeric(25,-3));
INSERT INTO nf
SELECT i,
       CASE WHEN i <= 3000 THEN ((i * 7919) % 20001 - 10000) / 100.0 ELSE i / 7.0 END,
       round(((i * 104729) % 2000001 - 1000000) * 1.5, 1),
       CASE WHEN i <= 4500 THEN ((i * 7919) % 20001 - 10000) * 12345.6789 ELSE i * 1e20 END,
       CASE WHEN i % 997 = 0 THEN i * 1e21 ELSE (i % 1000 - 500) * 1000 END
FROM generate_series(1, 6000) i;
INSERT INTO nf VALUES
  (-1, 'NaN', 'Infinity', 'NaN', 'NaN'), (-2, 'Infinity', '-Infinity', 0, 0),
  (-3, '-Infinity', 'NaN', -0.0001, -1000), (-4, NULL, NULL, NULL, NULL),
  (-5, 1e30, -1e30, 99999999999999.9999, 999999999999999999000),
  (-6, 1e-30, 0.0000001, -99999999999999.9999, -1000000000000000000000),
  (-7, 0.333333, 123456789012.5, 1e25, 5000), (-8, 999999999999.999999, -0.0000005, 12345.6789, -5000);
ANALYZE nf;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nf WHERE gpu_filter(u > 1 AND v < u AND w >= 0 AND z <> 5000 AND u * 2 < w);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['u', 'v', 'w', 'z', '(u * 2)', '(u + w)', '(-v)', '(u - v)', '(w - z)'],
  ARRAY['0', '1.5', '-2.25', '0.333333', '100', '-100.5', '1e20', '-1e20', '123456789012.5', 'NaN',
        'Infinity', '-Infinity', '0.0000001', '1e-30', '49.99', '99999999999999.9999'], 'nf');
SELECT sum(n) AS cases_checked FROM checked;
SELECT pg_temp.rows_check($$SELECT id % 5, count(*), sum(id), sum(w), max(z) FROM nf
  WHERE gpu_filter(u > 10 AND w < 1e9) GROUP BY 1$$) AS grouped_fit;
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nf WHERE gpu_filter(v <= 'Infinity' AND u > '-Infinity')$$) AS infinities;
-- the scan that hands rows on (string_agg is not the grouped scan's)
SELECT pg_temp.rows_check($$SELECT id, u FROM nf WHERE gpu_filter(u > 10 AND w < 1e9 AND z <> 5000)$$) AS rows_out;
-- not under Gather: a numeric read where it fits needs the tuples on the CPU
\i test/sql/oracle_functions.sql
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT id % 5, count(*) FROM nf WHERE gpu_filter(u > 10) GROUP BY 1$$)
  LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather;
SELECT pg_temp.rows_check($$SELECT id % 5, count(*) FROM nf WHERE gpu_filter(u > 10) GROUP BY 1$$) AS parallel_settings;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE nf;

-- 11. sum and avg of numeric inputs not bounded to 256 bits (unconstrained,
-- numeric(60,30), expressions of them): in 256 bits while the sum fits,
-- then, from the first value that would take it past them (or past scale
-- 80), as a numeric of PostgreSQL's own arithmetic for the rest of the
-- group.  Groups that never leave 256 bits, groups that leave them by
-- magnitude (1e70), by scale (1e-85), by one late value, NaN and the
-- infinities beside them.  min and max of such columns compare numerics,
-- keeping the later of equal values (2.5, 2.50, 2.500) as PostgreSQL does.
-- Never under Gather (such a cell holds a pointer).
CREATE TABLE nu (g int, u numeric, w numeric(60,30), k int);
INSERT INTO nu
SELECT i % 5,
       CASE i % 5 WHEN 0 THEN i / 7.0 WHEN 1 THEN i * 1e70 WHEN 2 THEN 1e-85 * i
                  WHEN 3 THEN round(i * 1.5, 1) ELSE CASE WHEN i = 9999 THEN 1e90 ELSE -i END END,
       i / 3.0, i % 3
FROM generate_series(1, 10000) i;
INSERT INTO nu VALUES (3, 'NaN', 1, 0), (2, 'Infinity', 2, 0), (6, 1e100, NULL, 1), (6, -1e100, 3, 1),
  (6, 1e-200, 4, 1), (7, 'Infinity', 1, 2), (7, '-Infinity', 1, 2), (8, NULL, NULL, 2),
  (9, 2.50, 2.5, 0), (9, 2.5, 2.500, 0), (9, 2.500, 2.50, 0);
ANALYZE nu;
EXPLAIN (COSTS OFF) SELECT g, sum(u), avg(w) FROM nu GROUP BY g;
SELECT pg_temp.rows_check($$SELECT g, sum(u), avg(u), sum(w), avg(w), sum(u * 2 - w), count(*) FROM nu GROUP BY g$$) AS unbounded_sums;
SELECT pg_temp.rows_check($$SELECT sum(u), avg(u), sum(w) FROM nu WHERE gpu_filter(k = 1)$$) AS unbounded_where;
SELECT pg_temp.rows_check($$SELECT k, sum(u), avg(u) FROM nu WHERE g IN (1, 2, 6) GROUP BY k$$) AS unbounded_keys;
SELECT pg_temp.rows_check($$SELECT g, min(u), max(u), min(w), max(w), count(u) FROM nu GROUP BY g$$) AS unbounded_extremes;
SELECT pg_temp.rows_check($$SELECT min(u), max(w) FROM nu WHERE gpu_filter(k = 0)$$) AS unbounded_extremes_where;
SELECT min(u)::text, max(u)::text, min(w)::text, max(w)::text FROM nu WHERE g = 9;
SELECT g, scale(sum(u)) AS sum_scale, left(avg(u)::text, 30) AS avg_start FROM nu GROUP BY g ORDER BY g;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT g, sum(u) FROM nu GROUP BY g$$) LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather,
       oracle_explain($$SELECT g, max(w) FROM nu GROUP BY g$$) LIKE '%Gather%GpuSelScan%' AS extremes_under_gather;
SELECT pg_temp.rows_check($$SELECT g, sum(u) FROM nu GROUP BY g$$) AS parallel_settings;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE nu;

-- 12. numeric(p,s) columns of 19 to 38 digits (p - s <= 38 for a negative
-- scale), compared as they are with a numeric constant or a column of the
-- same scale, travel as the 128-bit v * 10^s in two int8 halves
-- (qual_numeric_wide.c): every value of the typmod is compared on the
-- device, NaN above every number.  Values cross multiples of 2^64 and 2^63,
-- where the halves change.  Taken into arithmetic, such a column travels
-- where it fits (section 10), in the same program as its halves.
CREATE TABLE nw (id int, a numeric(38,0), b numeric(38,10), c numeric(20,2),
                 d numeric(30,30), e numeric(25,-10), a2 numeric(38,0));
INSERT INTO nw
SELECT i,
       ((i * 7919) % 20001 - 10000)::numeric * 10 ^ (i % 34)::numeric + i,
       round(((i * 104729) % 20001 - 10000)::numeric * 10 ^ (i % 24)::numeric / 7, 10),
       round(((i * 104729) % 2000001 - 1000000) * 123456789012.34567, 2),
       ((i * 7919) % 19999 - 9999) * 1e-4 + i * 1e-30,
       ((i * 6007) % 20001 - 10000)::numeric * 10 ^ (i % 31)::numeric,
       CASE WHEN i % 7 = 0 THEN ((i * 7919) % 20001 - 10000)::numeric * 10 ^ (i % 34)::numeric + i
            ELSE ((i * 6007) % 20001 - 10000)::numeric * 10 ^ (i % 34)::numeric + i % 3 END
FROM generate_series(1, 5000) i;
INSERT INTO nw VALUES
  (-1, 18446744073709551616, 18446744073709551616, 999999999999999999.99, 0.999999999999999999999999999999, 99999999999999999999999990000000000, 18446744073709551615),
  (-2, 18446744073709551615, -18446744073709551616.0000000001, -999999999999999999.99, -0.999999999999999999999999999999, -99999999999999999999999990000000000, 18446744073709551617),
  (-3, -18446744073709551616, 9223372036854775808, 92233720368547758.08, 1e-30, 18446744073709551616, -18446744073709551616),
  (-4, 9223372036854775808, -9223372036854775808.5, -92233720368547758.08, -1e-30, -18446744073709551616, 9223372036854775807),
  (-5, 99999999999999999999999999999999999999, 9999999999999999999999999999.9999999999, 0, 0, 0, -99999999999999999999999999999999999999),
  (-6, -99999999999999999999999999999999999999, -9999999999999999999999999999.9999999999, -0.00, -0.0, -0, 99999999999999999999999999999999999999),
  (-7, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (-8, 'NaN', 1, 0.01, 0.5, 10000000000, 'NaN'),
  (-9, NULL, NULL, NULL, NULL, NULL, NULL), (-10, 0, -0.0000000001, 0.01, 0.000000000000000000000000000001, 10000000000, 0),
  (-11, -1, 36893488147419103232, -18446744073709551.61, 0.5, 36893488147419103232, -1);
ANALYZE nw;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nw WHERE gpu_filter(a > 1e20 AND b <= -5.5 AND c <> 0 AND d < 0.5 AND e >= 0 AND a < a2 AND a + 1 > 5);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['a', 'b', 'c', 'd', 'e', 'a2'],
  ARRAY['0', '-0.5', '0.5', '1', '-1', '18446744073709551616', '18446744073709551615.5', '-18446744073709551616',
        '-18446744073709551616.5', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
        '1e37', '-1e37', '99999999999999999999999999999999999999', '-99999999999999999999999999999999999999',
        '1e38', '-1e40', '1e-30', '5e-31', '999999999999999999.99', '0.01', 'NaN', 'Infinity', '-Infinity'], 'nw');
SELECT sum(n) AS cases_checked FROM checked;
CREATE FUNCTION pg_temp.wide_pairs() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE pair text; op text; got text; want text;
BEGIN
  FOREACH pair IN ARRAY ARRAY['a %s a2', 'a2 %s a', 'a %s b', 'c %s a', 'e %s a2'] LOOP
    FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM nw WHERE gpu_filter(' || pair || ')', op) INTO got;
      PERFORM set_config('gpusel.enable_scan', 'off', true);
      EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM nw WHERE ' || pair, op) INTO want;
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      RETURN NEXT format(pair, op) || ': ' || CASE WHEN got = want THEN 'same' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END;
    END LOOP;
  END LOOP;
END $$;
SELECT * FROM pg_temp.wide_pairs();
-- halves and the same column where it fits, in one program
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nw WHERE gpu_filter(a > 1e20 AND a + 1 > 5 AND a < a2)$$) AS halves_and_fit;
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nw WHERE gpu_filter((a >= 18446744073709551616 OR b < 0) AND NOT (e = 0) AND d IS NOT NULL)$$) AS three_valued;
SELECT pg_temp.rows_check($$SELECT id % 3, count(*), sum(c), max(b) FROM nw WHERE gpu_filter(a > 0 AND b < 1e20) GROUP BY 1$$) AS grouped_wide;
SELECT pg_temp.rows_check($$SELECT id, a, b FROM nw WHERE gpu_filter(a > 1e30 OR d < -0.5)$$) AS rows_out;
-- without nulls in a tuple, and with columns before the numerics
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nw WHERE gpu_filter(e < 18446744073709551616) AND id > 0$$) AS no_nulls;
DROP TABLE nw;

-- 13. percentile_disc over numeric columns wider than 18 digits (a scale of
-- at most 18) in the grouped scan: values that fit 18 digits at the scale
-- are int8 keys; the others get an ordered key of their digit count and
-- leading 15 digits and are kept with their group, and a percentile that
-- lands on such a key reads the kept value of its rank among those sharing
-- it (groupagg_bigkeys.c).  Groups of only big values, of big values on one
-- side, of 60 values that share one key (1e25 + i, both signs), NaN and
-- NULL; ascending and descending; fractions at 0, 1 and the edges between
-- the kinds.
CREATE TABLE npk (g int, w numeric(30,2), z numeric(40,0), n numeric(25,-3), f numeric(60,18));
INSERT INTO npk
SELECT i % 6,
       CASE WHEN i % 97 = 0 THEN i * 1e22 * (1 - 2 * (i % 2)) ELSE round(((i * 7919) % 200001 - 100000) / 100.0, 2) END,
       CASE WHEN i % 3 = 0 THEN i * 1e30 WHEN i % 3 = 1 THEN -i * 1e25 ELSE i END,
       i * 1e20 - 5e23,
       CASE WHEN i % 5 = 0 THEN i * 1e10 ELSE (i % 1000) / 1e6 END
FROM generate_series(1, 30000) i;
INSERT INTO npk VALUES (6, 1e27, 1e39, 1e27, 1e40), (6, -1e27, -1e39, -1e27, -1e40), (6, 1e27, 1e39, 1e27, 1e40),
  (7, 'NaN', 'NaN', 'NaN', 'NaN'), (7, 1e25, 5, 2e22, 0.5), (8, NULL, NULL, NULL, NULL), (1, 'NaN', 'NaN', 'NaN', 'NaN');
INSERT INTO npk SELECT 9, (1e25 + (i * 37) % 61) * (1 - 2 * (i % 2)), 1e35 + (i * 37) % 61, 1e24 + (i % 7) * 1000, 1e30 + i % 5
FROM generate_series(1, 60) i;
ANALYZE npk;
EXPLAIN (COSTS OFF) SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(ARRAY[0, 0.001, 0.01, 0.5, 0.99, 0.999, 1]) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g$$) AS wide_asc;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(ARRAY[0, 0.001, 0.01, 0.5, 0.99, 0.999, 1]) WITHIN GROUP (ORDER BY w DESC) FROM npk GROUP BY g$$) AS wide_desc;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(ARRAY[0, 0.33, 0.34, 0.5, 0.66, 0.67, 1]) WITHIN GROUP (ORDER BY z),
  percentile_disc(ARRAY[0, 0.33, 0.34, 0.66, 0.67, 1]) WITHIN GROUP (ORDER BY z DESC) FROM npk GROUP BY g$$) AS both_sides;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(0.25) WITHIN GROUP (ORDER BY n), percentile_disc(0.75) WITHIN GROUP (ORDER BY f DESC),
  gpu_percentile(0.9) WITHIN GROUP (ORDER BY f) FROM npk GROUP BY g$$) AS negative_scale_and_scale_18;
SELECT pg_temp.rows_check($$SELECT g, max(w), sum(w), count(*), percentile_disc(0.999) WITHIN GROUP (ORDER BY w) FROM npk
  WHERE gpu_filter(z > 5) GROUP BY g$$) AS beside_sum_and_max;
SELECT pg_temp.rows_check($$SELECT percentile_disc(ARRAY[0, 0.5, 0.9999, 1]) WITHIN GROUP (ORDER BY z) FROM npk$$) AS no_group_key;
SELECT g, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY w) FROM npk WHERE g >= 6 GROUP BY g ORDER BY g;
-- the kept values live in one process: not under Gather
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g$$)
  LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g$$) AS parallel_settings;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE npk;

DROP TABLE nm;
