-- GpuSelScan against PostgreSQL's own scan: every predicate gives the same
-- rows in the same order, or the same error.  The reference runs the bare
-- predicate with gpusel.enable_scan = off (a sequential scan); the other
-- side wraps it in gpu_filter().  Tables hold NULLs, NaN, infinities, -0,
-- type extremes and 5003 rows, read in batches of 1024.
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.batch_rows = 1024;

CREATE TABLE sd (id int4, a int2, b int4, c int8, x float4, y float8,
                 flag bool, d date, ts timestamp, tz timestamptz);
INSERT INTO sd
SELECT g,
       CASE WHEN g % 13 = 0 THEN NULL ELSE (g % 200 - 100)::int2 END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE g - 2500 END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE (g - 2500)::int8 * 1000003 END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE ((g % 17) - 8) / 3.0 END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE ((g % 31) - 15) / 7.0 END,
       CASE g % 3 WHEN 0 THEN true WHEN 1 THEN false END,
       CASE WHEN g % 37 = 0 THEN NULL ELSE date '2000-01-01' + g END,
       CASE WHEN g % 41 = 0 THEN NULL ELSE timestamp '2000-01-01' + g * interval '1 hour' END,
       CASE WHEN g % 43 = 0 THEN NULL ELSE timestamptz '2000-01-01 00:00+00' + g * interval '1 minute' END
FROM generate_series(1, 5003) g;
-- special values, spread over the batches
UPDATE sd SET x = 'NaN', y = 'NaN' WHERE id IN (7, 1500, 4999);
UPDATE sd SET x = 'Infinity', y = '-Infinity' WHERE id IN (8, 2100);
UPDATE sd SET x = '-Infinity', y = 'Infinity' WHERE id IN (9, 3333);
UPDATE sd SET x = '-0', y = '-0' WHERE id IN (10, 4000);
UPDATE sd SET d = 'infinity', ts = 'infinity', tz = '-infinity' WHERE id IN (11, 2222);
UPDATE sd SET d = '-infinity', ts = '-infinity', tz = 'infinity' WHERE id IN (12, 3030);
CREATE TABLE sd_ext (id int4, a int2, b int4, c int8, x float4, y float8);
INSERT INTO sd_ext VALUES
  (1, 32767, 2147483647, 9223372036854775807, 3.4e38, 1.7e308),
  (2, -32768, -2147483648, -9223372036854775808, -3.4e38, -1.7e308),
  (3, 0, 0, 0, 1e-45, 5e-324),
  (4, 1, 1, 1, 1, 1),
  (5, -1, -1, -1, -1, -1),
  (6, NULL, NULL, NULL, NULL, NULL);
INSERT INTO sd_ext SELECT g + 6, (g % 50)::int2, g, g, g, g FROM generate_series(1, 1100) g;
ANALYZE sd;
ANALYZE sd_ext;

-- Runs pred over tbl both ways; reports the row count (or error), whether
-- the GpuSelScan ran it on the device, and whether both sides agree on
-- rows, order and errors.
CREATE FUNCTION sd_check(tbl text, pred text, host_pred text DEFAULT 'true',
                         OUT rows text, OUT placed text, OUT agrees bool)
LANGUAGE plpgsql AS $$
DECLARE
  q text := 'SELECT md5(string_agg(row_to_json(s)::text, '','' ORDER BY rn)), count(*)'
            ' FROM (SELECT row_number() OVER () AS rn, t.* FROM %s t WHERE %s) s';
  ref_md5 text; ref_n bigint; ref_err text;
  gpu_md5 text; gpu_n bigint; gpu_err text;
  plan text;
BEGIN
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  BEGIN
    EXECUTE format(q, tbl, pred || ' AND ' || host_pred) INTO ref_md5, ref_n;
  EXCEPTION WHEN OTHERS THEN ref_err := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  BEGIN
    EXECUTE format(q, tbl, 'gpu_filter(' || pred || ') AND ' || host_pred) INTO gpu_md5, gpu_n;
  EXCEPTION WHEN OTHERS THEN gpu_err := SQLSTATE || ': ' || SQLERRM;
  END;
  FOR plan IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM %s t WHERE gpu_filter(%s)', tbl, pred)
  LOOP
    IF plan LIKE '%Device Filter%' THEN placed := 'device'; END IF;
  END LOOP;
  placed := coalesce(placed, 'host');
  rows := coalesce(ref_err, ref_n::text);
  agrees := ref_err IS NOT DISTINCT FROM gpu_err AND ref_md5 IS NOT DISTINCT FROM gpu_md5
            AND ref_n IS NOT DISTINCT FROM gpu_n;
  IF NOT agrees THEN
    RAISE NOTICE 'mismatch for %: reference % rows, error %; gpu_filter % rows, error %',
      pred, ref_n, ref_err, gpu_n, gpu_err;
  END IF;
END $$;

CREATE TABLE sd_preds (n serial, tbl text, pred text);
INSERT INTO sd_preds (tbl, pred) VALUES
  -- comparisons of every type, columns with constants and with columns
  ('sd', 'b > 100'), ('sd', 'b <= -5'), ('sd', 'b = 0'), ('sd', 'b <> 7'),
  ('sd', 'a < 10'), ('sd', 'a >= -3'), ('sd', 'a = b'), ('sd', 'b < a'),
  ('sd', 'c > 5000000'), ('sd', 'c = b'), ('sd', 'a <= c'), ('sd', 'c <> a'),
  ('sd', 'c >= 1000003::int4'), ('sd', 'b = 100::int2'), ('sd', 'a > 3::int8'),
  ('sd', 'x > 0.5'), ('sd', 'y < -1'), ('sd', 'x = y'), ('sd', 'x < y'),
  ('sd', 'y = ''NaN'''), ('sd', 'x = ''NaN''::float4'), ('sd', 'y > ''Infinity'''),
  ('sd', 'x <> x'), ('sd', 'y >= ''NaN'''), ('sd', 'x < ''Infinity''::float4'),
  ('sd', 'y = 0'), ('sd', 'x = -0.0::float4'), ('sd', 'y > ''-Infinity'' AND y < ''Infinity'''),
  ('sd', 'x::float8 <= y'), ('sd', 'a::float4 < x'), ('sd', 'b::float8 > y * 100'),
  ('sd', 'c::float8 > 1e9'), ('sd', 'c::float4 < -1e6::float4'), ('sd', 'a::int8 > c'),
  ('sd', 'flag'), ('sd', 'NOT flag'), ('sd', 'flag IS TRUE'), ('sd', 'flag IS NOT TRUE'),
  ('sd', 'flag IS FALSE'), ('sd', 'flag IS NOT FALSE'), ('sd', 'flag IS UNKNOWN'),
  ('sd', 'flag IS NOT UNKNOWN'), ('sd', 'flag = (b > 0)'), ('sd', 'flag <> (a < 0)'),
  ('sd', 'flag < (b > 0)'), ('sd', 'flag >= true'),
  ('sd', 'd > ''2005-01-01'''), ('sd', 'd = ''infinity'''), ('sd', 'd <= ''-infinity'''),
  ('sd', 'ts < ''2000-03-01'''), ('sd', 'ts >= ''infinity'''), ('sd', 'ts <> ''2000-01-01 05:00'''),
  ('sd', 'tz >= ''2000-01-02 00:00+00'''), ('sd', 'tz < ''-infinity'' OR tz > ''2000-01-03 12:00+00'''),
  -- BETWEEN, IN, = ANY, NULL tests, three-valued logic
  ('sd', 'b BETWEEN -10 AND 10'), ('sd', 'b NOT BETWEEN -2000 AND 2000'),
  ('sd', 'b BETWEEN SYMMETRIC 10 AND -10'), ('sd', 'y BETWEEN -0.5 AND 0.5'),
  ('sd', 'b IN (1, 2, 3, 2400)'), ('sd', 'b IN (1, 2, NULL)'), ('sd', 'b NOT IN (1, 2, 3)'),
  ('sd', 'b NOT IN (1, NULL)'), ('sd', 'a IN (1, 2, 3)'), ('sd', 'y IN (1.0, ''NaN'', -0.0)'),
  ('sd', 'c = ANY (''{1000003, 2000006, -2500007500}'')'), ('sd', 'b = ANY (''{}''::int4[])'),
  ('sd', 'b <> ALL (''{}''::int4[])'), ('sd', 'x = ANY (ARRAY[1, 2.5, ''Infinity''])'),
  ('sd', 'b IS NULL'), ('sd', 'a IS NOT NULL'), ('sd', 'b IS NULL OR a > 0'),
  ('sd', '(b > 0 AND a < 0) OR NOT (c > 0)'), ('sd', '(b > 0) IS NOT TRUE'),
  ('sd', 'NOT (a > 0 OR b > 0)'), ('sd', '(a > 0) = (b > 0)'), ('sd', 'a > 0 AND b > 0 AND c > 0 AND x > 0 AND y > 0'),
  ('sd', 'a > 50 OR b > 2000 OR c < -2000000000 OR flag'),
  -- arithmetic, overflow, division by zero, short circuits
  ('sd', 'b + 1 > 0'), ('sd', 'a * a > 100'), ('sd', 'a - b < 0'), ('sd', '-b > 0'), ('sd', '-a < a'),
  ('sd', 'b / 7 = 3'), ('sd', 'b % 7 = 3'), ('sd', 'a % 3 = -1'), ('sd', 'c / 1000003 = b'),
  ('sd', 'c % 10 = 3'), ('sd', 'a + b > 0'), ('sd', 'b * a < 0'), ('sd', 'c - b > 0'), ('sd', 'b * c > 0'),
  ('sd', 'x * x > 1'), ('sd', 'x / 3 < 1'), ('sd', 'y + x > 0'), ('sd', 'x - y > 0'),
  ('sd', 'y * 2 > 1'), ('sd', 'y / 2 > 1'), ('sd', '-y > 0'), ('sd', '-x > 0'),
  ('sd', 'b * 1000000 > 0'), ('sd', 'a * 400 > 0'), ('sd', 'c * 10000000000000 > 0'),
  ('sd', 'b / 0 > 1'), ('sd', 'b % 0 = 0'), ('sd', 'y / 0 > 0'), ('sd', 'x / 0::float4 > 0'),
  ('sd', 'y * 1e308 > 0'), ('sd', 'x * 1e38::float4 > 0'), ('sd', 'y / 1e308 > 0 AND y <> 0'),
  ('sd', 'b <> 0 AND 100 / b > 1'), ('sd', 'b = 0 OR 100 / b > 1'), ('sd', '100 / b > 1'),
  ('sd', 'a <> 0 AND b / a > 3'), ('sd', 'NOT (b = 0) AND (100 % b) = 1'),
  ('sd', 'b IS NULL OR b = 0 OR 100 / b = 1'),
  -- not for the device: stays on the host, same answer (but d < ts, a date
  -- against a timestamp column, which the device takes as its midnight)
  ('sd', 'b::text LIKE ''1%'''), ('sd', 'd < ts'), ('sd', 'c::int4 > 0'), ('sd', 'abs(b) < 3'),
  -- type extremes
  ('sd_ext', 'b + 1 > 0'), ('sd_ext', 'b - 1 < 0'), ('sd_ext', '-b > 0'), ('sd_ext', 'b / -1 > 0'),
  ('sd_ext', 'b % -1 = 0'), ('sd_ext', 'a + 1 > 0'), ('sd_ext', '-a > 0'), ('sd_ext', 'a / -1 > 0'),
  ('sd_ext', 'c + 1 > 0'), ('sd_ext', '-c > 0'), ('sd_ext', 'c / -1 > 0'), ('sd_ext', 'c % -1 = 0'),
  ('sd_ext', 'c * 2 > 0'), ('sd_ext', 'b * 2 > 0'), ('sd_ext', 'a * 2 > 0'),
  ('sd_ext', 'x * 10 > 0'), ('sd_ext', 'y * 10 > 0'), ('sd_ext', 'y / 1e10 > 0'), ('sd_ext', 'x / 1e10::float4 > 0'),
  ('sd_ext', 'y * y >= 0'), ('sd_ext', 'x + x > 0'), ('sd_ext', 'y - y = 0'),
  ('sd_ext', 'b > 2147483646'), ('sd_ext', 'c < -9223372036854775807'), ('sd_ext', 'a = -32768'),
  ('sd_ext', 'b::int8 * 2 > 0'), ('sd_ext', 'c::float8 > 9.2e18'), ('sd_ext', 'b::float4 = 2147483648::float4'),
  ('sd_ext', 'id > 6 AND b * b > 0'), ('sd_ext', 'id > 6 AND c * c > 0'), ('sd_ext', 'id < 3 OR a * 1000 > 0');

SELECT n, tbl, pred, c.* FROM sd_preds, LATERAL sd_check(tbl, pred) c ORDER BY n;

-- quals split between device and host in one scan, against the plain scan
SELECT * FROM sd_check('sd', 'b > 0', 'b::text LIKE ''%7'' OR d < ts');
SELECT * FROM sd_check('sd', 'c > 0', 'b::text LIKE ''%7''');
SELECT * FROM sd_check('sd', '10 / b > 1', 'b::text <> ''0''');
-- a cheaper host qual runs first in PostgreSQL's order and rejects the rows
-- the device qual would fail on: no error (the device's error sends the
-- batch back to the CPU, which evaluates the quals in that order)
SELECT * FROM sd_check('sd', '10 / b + 0 * b > 1', 'b::text <> ''0''');
SELECT * FROM sd_check('sd', 'b * 1000000 / 1000000 > 0', 'abs(b) < 2000');
SELECT * FROM sd_check('sd', 'x > 0', 'flag AND x::text <> ''1''');

DROP TABLE sd, sd_ext, sd_preds;
DROP FUNCTION sd_check(text, text, text);
