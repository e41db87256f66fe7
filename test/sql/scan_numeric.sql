-- numeric columns in the device filter: numeric(p,s) with p <= 18 and
-- 0 <= s <= 18 travel as int8 scaled by 10^s (NaN above every value), and
-- compare with numeric constants through exact integer bounds.  Every
-- answer is compared with PostgreSQL's own plan in the same session.
\i test/sql/scan_numeric_setup.sql

-- The plans: the columns that fit go to the device filter, the others stay.
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(m BETWEEN .06 - 0.01 AND .06 + 0.01 AND m < 24);
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(m < m2 AND w >= 0 AND f <> 0.5 AND t > 0 AND o = 1);
EXPLAIN (COSTS OFF) SELECT count(*) FROM nm WHERE gpu_filter(n5 > 100 AND u > 1 AND big > 1 AND m < w AND m > 1 AND m::float8 > 1 AND o > 1);

-- Each device column against constants: exact at its scale, between two
-- of its values, beyond its range, NaN, infinities, zeros, tiny values
SELECT * FROM pg_temp.mismatches(ARRAY['m', 'w', 'f', 't', 'o', 'm2'], ARRAY[
  '0', '-0.000', '0.01', '0.005', '-0.005', '0.015', '24', '23.999', '-100', '1000.5',
  '9999999999999.99', '9999999999999.995', '-9999999999999.99', '-10000000000000', '1e12',
  '999999999999999999', '1000000000000000000', '-999999999999999999', '1e30', '-1e30',
  '0.999999999999999999', '0.9999999999999999995', '1e-18', '5e-19', '1e-30', '-1e-30',
  '0.009999', '0.0099995', '0.000001', '9', '-9', '9.5', 'NaN', 'Infinity', '-Infinity']);
SELECT sum(n) AS cases_checked FROM checked;

-- Two columns of one scale compare on the device, NaN with NaN included.
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

-- The TPC-H Q6 shape, with a numeric sum of the rows that pass, and the
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

-- Columns after variable-width ones are read by walking each tuple's
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

DROP TABLE nm_finite;
DROP TABLE nm;
