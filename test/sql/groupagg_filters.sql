-- The grouped scan's WHERE clause as column tests (the CPU path runs each
-- block's comparisons densely while most of its rows pass, then over the
-- survivors alone) against PostgreSQL's answer: every comparison of every
-- column type with constants of its own and of wider types, ANDs of them
-- passing most rows and few, over NULLs, NaN, infinities, -0 and type
-- extremes, 5003 rows in batches of 1024.
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.batch_rows = 1024;
SET gpusel.min_rows = 0;

CREATE TABLE gf (id int4, a int2, b int4, c int8, x float4, y float8, d date, ts timestamp);
INSERT INTO gf
SELECT g,
       CASE WHEN g % 13 = 0 THEN NULL ELSE (g % 200 - 100)::int2 END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE g - 2500 END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE (g - 2500)::int8 * 1000003 END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE ((g % 17) - 8) / 3.0 END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE ((g % 31) - 15) / 7.0 END,
       CASE WHEN g % 37 = 0 THEN NULL ELSE date '2000-01-01' + g END,
       CASE WHEN g % 41 = 0 THEN NULL ELSE timestamp '2000-01-01' + g * interval '1 hour' END
FROM generate_series(1, 5003) g;
UPDATE gf SET x = 'NaN', y = 'NaN' WHERE id IN (7, 1500, 4999);
UPDATE gf SET x = 'Infinity', y = '-Infinity' WHERE id IN (8, 2100);
UPDATE gf SET x = '-Infinity', y = 'Infinity' WHERE id IN (9, 3333);
UPDATE gf SET x = '-0', y = '-0' WHERE id IN (10, 4000);
UPDATE gf SET x = '0', y = '0' WHERE id IN (20, 4001);
UPDATE gf SET a = 32767, b = 2147483647, c = 9223372036854775807, x = 3.4e38, y = 1.7e308 WHERE id = 30;
UPDATE gf SET a = -32768, b = -2147483648, c = -9223372036854775808, x = -3.4e38, y = -1.7e308 WHERE id = 31;
UPDATE gf SET d = 'infinity', ts = '-infinity' WHERE id = 32;
ANALYZE gf;

-- count, integer sums and a group key under pred, PostgreSQL's plan against
-- the grouped scan; placed says the grouped scan ran it with column tests
CREATE FUNCTION gf_check(pred text, OUT passing bigint, OUT placed bool, OUT same bool)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT md5(string_agg(r::text, '','' ORDER BY g)), sum(n) FROM '
                   '(SELECT id %% 7 AS g, count(*) AS n, sum(a) AS sa, sum(b) AS sb, sum(c) AS sc '
                   'FROM gf WHERE %s GROUP BY 1) r', pred);
  whole text := format('SELECT count(*), sum(b), sum(c) FROM gf WHERE %s', pred);
  ref text; got text; ref_whole text; got_whole text; line text;
BEGIN
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  EXECUTE q INTO ref, passing;
  EXECUTE format('SELECT row(t.*)::text FROM (%s) t', whole) INTO ref_whole;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.force_groupagg', 'on', true);
  EXECUTE q INTO got;
  EXECUTE format('SELECT row(t.*)::text FROM (%s) t', whole) INTO got_whole;
  placed := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || whole LOOP
    IF line LIKE '%Device Filter%' THEN placed := true; END IF;
  END LOOP;
  PERFORM set_config('gpusel.force_groupagg', 'off', true);
  same := ref IS NOT DISTINCT FROM got AND ref_whole IS NOT DISTINCT FROM got_whole;
  IF NOT same THEN
    RAISE NOTICE 'mismatch for %: % / % against % / %', pred, ref, ref_whole, got, got_whole;
  END IF;
END $$;

SELECT pred, (gf_check(pred)).* FROM (VALUES
  -- one comparison of each column type, with constants of its type and wider
  ('a < 10'), ('a >= -3::int2'), ('a = 0'), ('a > 3::int8'), ('a <= 32767'),
  ('b > 100'), ('b <= -5'), ('b = 0'), ('b >= 100::int2'), ('b < 2147483647::int8'),
  ('c > 5000000'), ('c = 1000003'), ('c >= -9223372036854775808'), ('c < 0::int4'),
  ('x > 0.5'), ('x < 0.5::float4'), ('x = 0'), ('x = -0.0::float4'), ('x >= ''NaN''::float4'),
  ('x < ''Infinity''::float4'), ('x > ''-Infinity'''), ('x <= 3.4e38::float4'),
  ('y < -1'), ('y = 0'), ('y = -0.0'), ('y >= ''NaN'''), ('y = ''NaN'''), ('y > ''Infinity'''),
  ('y < ''Infinity'''), ('y > -1.7e308'),
  ('d > ''2005-01-01'''), ('d = ''infinity'''), ('d < ''2000-02-01'''),
  ('ts < ''2000-03-01'''), ('ts >= ''-infinity'''),
  -- ANDs: most rows pass each (every test dense)
  ('x > -10 AND y < 10 AND b > -3000 AND c < 9e18::int8 AND d > ''1999-01-01'''),
  ('a > -101 AND b < 3000 AND x < 5 AND y >= -5 AND ts > ''1999-01-01'''),
  -- a selective first test (the rest over its survivors), and selective later ones
  ('b = 17 AND x > -10 AND y < 10 AND c > -9e18::int8'),
  ('b < -2400 AND a > -50 AND y < 1'),
  ('x > -10 AND y < 10 AND b = 1000 AND a < 500'),
  ('x > -10 AND c = 1000003 AND y >= ''-Infinity'''),
  -- a test no row passes, and one every non-NULL row passes
  ('b > 2147483647'), ('c < -9223372036854775808'), ('x >= ''-Infinity''::float4 AND y <= ''NaN''')
) v(pred);

-- the same tests on 5003 rows read in one batch
SET gpusel.batch_rows = 100000;
SELECT pred, (gf_check(pred)).* FROM (VALUES
  ('x > -10 AND y < 10 AND b > -3000'), ('b = 17 AND x > -10'), ('y = -0.0 AND x <= 0')
) v(pred);

-- the dense loops compare integers in their own width and floats as IEEE
-- does (NaN passes > and >=, -0 equals 0); a NaN constant keeps the keys
SET gpusel.batch_rows = 1024;
SELECT pred, (gf_check(pred)).* FROM (VALUES
  ('x >= 0::float4'), ('x > -0.0::float4'), ('x <= 0::float4'), ('x < ''NaN''::float4'),
  ('x > ''NaN''::float4'), ('x <= ''Infinity''::float4'), ('x > 0.5::float8'),
  ('y >= -0.0'), ('y > 0'), ('y <= ''-Infinity'''), ('y > ''NaN'''), ('y <= 0'),
  ('y >= ''Infinity'''), ('a > -3::int8'), ('a <= -100'), ('b >= -2147483648::int8'),
  ('c <= -1::int2'), ('d >= ''2000-01-01 12:00''::timestamp'),
  -- survivors of a selective test through the typed gathers
  ('b < -2000 AND y > 0 AND x >= 0::float4 AND a <= 0::int8 AND c > -9e18::int8'),
  ('b > 2000 AND x > 0.5 AND y <= 0 AND d < ''2020-01-01''')
) v(pred);
