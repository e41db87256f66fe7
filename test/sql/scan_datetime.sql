-- Standard SQL shapes that reach the device filter: a date compared with a
-- timestamp or timestamptz constant (as "date '1994-01-01' + interval '1'
-- year" folds to), and the terms of an AND inside gpu_filter().  Every
-- answer is compared with PostgreSQL's own plan in the same session
-- (gpusel.enable_scan off, gpu_filter() absent).
SET max_parallel_workers_per_gather = 0;
SET gpusel.batch_rows = 1024;

-- dates around the epoch, daylight saving changes, the ends of the
-- timestamp range and of the date range, infinities and NULLs
CREATE TABLE dt (id int, d date, x float8);
INSERT INTO dt SELECT i, date '1995-01-01' + i, i * 0.5 FROM generate_series(0, 9000) i;
INSERT INTO dt (id, d) VALUES
  (-1, '4713-11-24 BC'), (-2, '4713-11-25 BC'), (-3, '0001-01-01'), (-4, '0001-12-31 BC'),
  (-5, '294276-12-30'), (-6, '294276-12-31'), (-7, '294277-01-01'), (-8, '5874897-12-31'),
  (-9, 'infinity'), (-10, '-infinity'), (-11, NULL), (-12, NULL), (-13, '2021-03-14'),
  (-14, '2021-11-07'), (-15, '1999-12-31'), (-16, '2000-01-01');
ANALYZE dt;

-- every comparison of d with each constant, either way round, through
-- gpusel (gpu_filter forces its scan) and through PostgreSQL; returns the
-- cases whose row sets differ, and counts the cases in checked
CREATE TEMP TABLE checked (n int);
CREATE FUNCTION pg_temp.mismatches(consts text[], typ text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  c text; op text; q text; pred text; got text; want text; n int := 0;
  session_jit text := current_setting('jit');
BEGIN
  -- JIT (forced in one of the suite's modes) compiles each query in ~0.4 s:
  -- of these thousands of cases, every 500th runs under the session's jit
  PERFORM set_config('jit', 'off', true);
  FOREACH c IN ARRAY consts LOOP
    FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
      FOREACH pred IN ARRAY ARRAY[format('d %s %L::%s', op, c, typ), format('%L::%s %s d', c, typ, op)] LOOP
        q := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM dt WHERE ';
        IF n % 500 = 0 THEN PERFORM set_config('jit', session_jit, true); END IF;
        PERFORM set_config('gpusel.enable_scan', 'on', true);
        EXECUTE q || 'gpu_filter(' || pred || ')' INTO got;
        PERFORM set_config('gpusel.enable_scan', 'off', true);
        EXECUTE q || pred INTO want;
        PERFORM set_config('gpusel.enable_scan', 'on', true);
        IF n % 500 = 0 THEN PERFORM set_config('jit', 'off', true); END IF;
        n := n + 1;
        IF got IS DISTINCT FROM want THEN
          RETURN NEXT format('%s under %s: gpusel %s, PostgreSQL %s', pred,
                             current_setting('TimeZone'), got, want);
        END IF;
      END LOOP;
    END LOOP;
  END LOOP;
  PERFORM set_config('jit', session_jit, true);
  INSERT INTO checked VALUES (n);
END $$;

-- 1. The plan: the comparison runs in the device filter, whatever the constant's type.
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE gpu_filter(d < date '1996-01-01' + interval '1' year);
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE gpu_filter('2000-01-01 12:00+00'::timestamptz >= d);
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE gpu_filter(d <> '2000-01-01'::timestamp);

-- 2. timestamp constants: midnights, a microsecond either side, the range's ends, infinities
SELECT * FROM pg_temp.mismatches(ARRAY[
  '2000-01-01 00:00', '2000-01-01 00:00:00.000001', '1999-12-31 23:59:59.999999',
  '2010-06-15 12:00', '1995-01-01 00:00', '2019-08-23 00:00', '2019-08-24 00:00',
  '4714-11-24 00:00 BC', '4714-11-24 00:00:00.000001 BC', '294276-12-31 23:59:59.999999',
  '294276-12-31 00:00', '294276-12-30 12:00', '0001-01-01 00:00', 'infinity', '-infinity'],
  'timestamp');

-- 3. timestamptz constants under four time zones: whole and half-hour
-- offsets, daylight saving changes, +14:00
SET TimeZone = 'UTC';
SELECT * FROM pg_temp.mismatches(ARRAY[
  '2000-01-01 00:00+00', '2000-01-01 00:00-05', '2000-01-01 00:00+05:30', '2021-03-14 05:00+00',
  '2021-03-14 07:00+00', '2021-11-07 04:00+00', '2021-11-07 05:00+00', '2021-11-07 06:00+00',
  '1999-12-31 10:00+00', '294276-12-31 23:59:59.999999+00', '4714-11-24 00:00+00 BC',
  'infinity', '-infinity'], 'timestamptz');
SET TimeZone = 'America/New_York';
SELECT * FROM pg_temp.mismatches(ARRAY[
  '2000-01-01 00:00+00', '2000-01-01 00:00-05', '2021-03-14 00:00', '2021-03-14 01:00',
  '2021-03-14 05:00+00', '2021-11-07 00:00', '2021-11-07 04:00+00', '2021-11-07 05:00+00',
  '294276-12-31 23:59:59.999999+00', '4714-11-24 00:00+00 BC', 'infinity', '-infinity'],
  'timestamptz');
SET TimeZone = 'Asia/Kolkata';
SELECT * FROM pg_temp.mismatches(ARRAY[
  '2000-01-01 00:00', '1999-12-31 18:30+00', '1999-12-31 18:29:59.999999+00',
  '294276-12-31 23:59:59.999999+00', '4714-11-24 00:00+00 BC', 'infinity'], 'timestamptz');
SET TimeZone = 'Pacific/Kiritimati';
SELECT * FROM pg_temp.mismatches(ARRAY[
  '2000-01-01 00:00', '1999-12-31 10:00+00', '1999-12-31 09:59:59+00',
  '294276-12-31 23:59:59.999999+00', '4714-11-24 00:00+00 BC', '-infinity'], 'timestamptz');
SELECT sum(n) AS cases_checked FROM checked;

-- 4. A prepared statement's plan, run under another TimeZone than it was
-- planned in: the day number follows the TimeZone of each execution.
SET TimeZone = 'UTC';
SET plan_cache_mode = force_generic_plan;
PREPARE tz_count AS SELECT count(*) FROM dt WHERE gpu_filter(d >= '2021-03-14 03:00+00'::timestamptz);
PREPARE tz_count_pg AS SELECT count(*) FROM dt WHERE d >= '2021-03-14 03:00+00'::timestamptz;
EXECUTE tz_count;
SET gpusel.enable_scan = off;
EXECUTE tz_count_pg;
SET gpusel.enable_scan = on;
SET TimeZone = 'America/New_York';
EXECUTE tz_count;
SET gpusel.enable_scan = off;
EXECUTE tz_count_pg;
SET gpusel.enable_scan = on;
DEALLOCATE tz_count;
DEALLOCATE tz_count_pg;
RESET plan_cache_mode;
RESET TimeZone;

-- 5. A date against a timestamp the device cannot compute stays with
-- PostgreSQL (against a timestamp column it runs on the device: section 8).
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE gpu_filter(d < now()::timestamp AND x > 1);

-- 6. The terms of an AND inside gpu_filter are quals of their own: the
-- device takes the terms it can run, the host the others, with the same
-- rows as PostgreSQL.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM dt WHERE gpu_filter(x > 100 AND d IS DISTINCT FROM date '2005-05-05' AND d < '2010-01-01'::timestamp);
SELECT count(*) FROM dt WHERE gpu_filter(x > 100 AND d IS DISTINCT FROM date '2005-05-05' AND d < '2010-01-01'::timestamp);
SET gpusel.enable_scan = off;
SELECT count(*) FROM dt WHERE x > 100 AND d IS DISTINCT FROM date '2005-05-05' AND d < '2010-01-01'::timestamp;
SET gpusel.enable_scan = on;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM dt WHERE gpu_filter(x > 100 AND extract(year FROM d) >= 2003 AND d < '2010-01-01'::timestamp);
SELECT count(*) FROM dt WHERE gpu_filter(x > 100 AND extract(year FROM d) >= 2003 AND d < '2010-01-01'::timestamp);
SET gpusel.enable_scan = off;
SELECT count(*) FROM dt WHERE x > 100 AND extract(year FROM d) >= 2003 AND d < '2010-01-01'::timestamp;
SET gpusel.enable_scan = on;
-- nested ANDs flatten; a term the device cannot run that may fail keeps
-- the terms after it on the host, as PostgreSQL evaluates them after it
EXPLAIN (COSTS OFF)
SELECT count(*) FROM dt WHERE gpu_filter((x > 100 AND (x < 4000 AND id % 7 = 1)) AND d > '2001-01-01'::date);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM dt WHERE gpu_filter(x > 100 AND id::numeric / (id - 3) > 0 AND d > '2001-01-01'::date);
SELECT count(*) FROM dt WHERE gpu_filter(x > 100 AND id::numeric / (id - 3) > 0 AND d > '2001-01-01'::date);
SET gpusel.enable_scan = off;
SELECT count(*) FROM dt WHERE x > 100 AND id::numeric / (id - 3) > 0 AND d > '2001-01-01'::date;
SET gpusel.enable_scan = on;
-- the division by zero is raised, as PostgreSQL raises it
SELECT count(*) FROM dt WHERE gpu_filter(x >= 0 AND 1 / (id - 3) > 0);
-- an OR is one qual, as before
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE gpu_filter(x > 100 OR extract(year FROM d) >= 2003);

-- 7. date + integer, integer + date and date - integer run on the device
-- as day arithmetic (the constant folds first where both sides are
-- constants).  An infinite date, which PostgreSQL leaves as it is, or a
-- result outside the dates sends its batch to the executor, which gives
-- PostgreSQL's value or its error.
CREATE TABLE dta AS SELECT id, d, (id % 200) - 100 AS n FROM dt WHERE id >= -13 AND id NOT IN (-5, -6, -7, -8, -1, -2);
INSERT INTO dta VALUES (-20, '2000-02-28', NULL), (-21, '2000-03-01', 2147483647);
ANALYZE dta;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM dta WHERE gpu_filter(d + 30 < date '2000-01-01' AND n + d >= date '1996-01-01' AND d - n > '1999-01-01'::timestamp);
CREATE FUNCTION pg_temp.date_arith() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE pred text; got text; want text;
  q text := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM dta WHERE ';
BEGIN
  FOREACH pred IN ARRAY ARRAY['d + 30 < date ''2000-01-01''', 'd - 7 >= date ''1995-03-01''',
    '10 + d = date ''1996-01-11''', 'd + n > date ''1998-06-01''', 'n + d <> date ''1996-02-29''',
    'd - n <= ''2001-01-01''::timestamp', 'd + 1 > ''2000-01-01 12:00''::timestamp',
    'd - 1 < ''2000-03-01 00:00+05''::timestamptz', 'd + (n % 7) = d', 'd - n * 2 > d + n',
    'd + 0 IS NULL', 'd - 36500 < date ''1900-01-01''']
  LOOP
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    EXECUTE q || 'gpu_filter(' || pred || ') AND id <> -21' INTO got;
    PERFORM set_config('gpusel.enable_scan', 'off', true);
    EXECUTE q || pred || ' AND id <> -21' INTO want;
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    RETURN NEXT pred || ': ' || CASE WHEN got = want THEN 'same' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END;
  END LOOP;
END $$;
SELECT * FROM pg_temp.date_arith();
-- infinities stay infinite: -infinity - 5 is before every date, infinity + 5 after
SELECT id, d FROM dta WHERE gpu_filter(d - 5 < date '1000-01-01' OR d + 5 > date '200000-01-01') ORDER BY id;
-- a result outside the dates raises PostgreSQL's error, on either path
SELECT count(*) FROM dt WHERE gpu_filter(d + 1 > date '2000-01-01');
SET gpusel.enable_scan = off;
SELECT count(*) FROM dt WHERE d + 1 > date '2000-01-01';
SET gpusel.enable_scan = on;
-- an int4 overflow of the day number (2147483647 days) is the same error
SELECT count(*) FROM dta WHERE gpu_filter(d + n > date '2000-01-01');
DROP TABLE dta;

-- 8. A date against a timestamp column: the date's midnight (day number
-- times the microseconds of a day) against the timestamp as int8.  An
-- infinite date, or one past the timestamps' range, fails a range guard
-- and its batch goes to the executor; the timestamp's infinities compare
-- as they are.  Against a timestamptz column, whose midnight depends on
-- the TimeZone, the date column travels as its midnight (section 10).
CREATE TABLE dts (id int, d date, ts timestamp, tz timestamptz);
INSERT INTO dts SELECT i, date '2000-01-01' + (i % 400),
  timestamp '2000-01-01' + (i * 7 % 400) * interval '1 day' + CASE i % 4 WHEN 0 THEN interval '0'
    WHEN 1 THEN interval '1 microsecond' WHEN 2 THEN -interval '1 microsecond' ELSE interval '13 hours' END,
  timestamptz '2000-01-01 00:00+00' + i * interval '1 hour'
FROM generate_series(1, 5000) i;
INSERT INTO dts VALUES (-1, 'infinity', '2000-01-01', NULL), (-2, '-infinity', 'infinity', NULL),
  (-3, '2000-01-01', 'infinity', NULL), (-4, '2000-01-01', '-infinity', NULL), (-5, NULL, '2000-01-01', NULL),
  (-6, '2000-01-01', NULL, NULL), (-7, '4713-11-24 BC', '4713-11-24 00:00:00 BC', NULL),
  (-8, '294276-12-31', '294276-12-31 23:59:59.999999', NULL), (-9, '5874897-12-31', '294276-12-31', NULL),
  (-10, '294277-01-01', 'infinity', NULL), (-11, 'infinity', 'infinity', NULL), (-12, '-infinity', '-infinity', NULL),
  (-13, '300000-01-01', '294276-12-31', NULL);
ANALYZE dts;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dts WHERE gpu_filter(d < ts AND ts >= d + 1 AND d <= tz);
CREATE FUNCTION pg_temp.date_vs_column() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE op text; pred text; got text; want text;
  -- the last date has no next day: d + 1 raises "date out of range" there, on either path
  q text := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM dts WHERE id <> -9 AND ';
BEGIN
  FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
    FOREACH pred IN ARRAY ARRAY[format('d %s ts', op), format('ts %s d', op), format('d + 1 %s ts', op),
                                format('d %s tz', op)] LOOP
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      EXECUTE q || 'gpu_filter(' || pred || ')' INTO got;
      PERFORM set_config('gpusel.enable_scan', 'off', true);
      EXECUTE q || pred INTO want;
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      IF got IS DISTINCT FROM want THEN
        RETURN NEXT format('%s: gpusel %s, PostgreSQL %s', pred, got, want);
      END IF;
    END LOOP;
  END LOOP;
  RETURN NEXT 'checked 24 predicates';
END $$;
SELECT * FROM pg_temp.date_vs_column();
SET TimeZone = 'America/New_York';
SELECT * FROM pg_temp.date_vs_column();
RESET TimeZone;
-- the scan that hands rows on: the same rows in the same order
CREATE TEMP TABLE dts_gpusel AS
  SELECT row_number() OVER () AS n, id FROM (SELECT id FROM dts WHERE gpu_filter(d < ts OR d > ts) OFFSET 0) s;
SET gpusel.enable_scan = off;
CREATE TEMP TABLE dts_pg AS
  SELECT row_number() OVER () AS n, id FROM (SELECT id FROM dts WHERE d < ts OR d > ts OFFSET 0) s;
SET gpusel.enable_scan = on;
SELECT count(*) AS rows, count(*) FILTER (WHERE g.id IS NULL OR p.id IS NULL) AS mismatches
FROM dts_gpusel g FULL JOIN dts_pg p USING (n, id);
DROP TABLE dts_gpusel, dts_pg;
-- in a grouped scan, rows that pass on the device and rows the executor rechecks
SELECT id % 3 AS g, count(*), min(ts) FROM dts WHERE gpu_filter(d <= ts) GROUP BY 1 ORDER BY 1;
SET gpusel.enable_scan = off;
SELECT id % 3 AS g, count(*), min(ts) FROM dts WHERE d <= ts GROUP BY 1 ORDER BY 1;
SET gpusel.enable_scan = on;
DROP TABLE dts;

-- 9. A timestamp or timestamptz column against a date constant: the column
-- against an int8 bound found by bisection over every int8 with
-- PostgreSQL's own comparison when the scan starts, so a timestamptz meets
-- the date's midnight in the TimeZone of the execution (across a DST
-- change, a half-hour zone), and infinite dates and dates past the
-- timestamps' range compare as PostgreSQL compares them.
CREATE TABLE tsd (id int, ts timestamp, tz timestamptz);
INSERT INTO tsd SELECT i, timestamp '2021-03-10' + i * interval '17 minutes' + CASE i % 3 WHEN 0 THEN interval '0'
    WHEN 1 THEN interval '1 microsecond' ELSE -interval '1 microsecond' END,
  timestamptz '2021-03-10 00:00+00' + i * interval '15 minutes' + CASE i % 5 WHEN 0 THEN -interval '1 microsecond' ELSE interval '0' END
FROM generate_series(1, 3000) i;
INSERT INTO tsd VALUES (-1, 'infinity', 'infinity'), (-2, '-infinity', '-infinity'), (-3, NULL, NULL),
  (-4, '4713-11-24 00:00:00 BC', '4713-11-24 00:00:00+00 BC'), (-5, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00'),
  (-6, '2021-03-14', '2021-03-14 05:00+00'), (-7, '2021-03-15', '2021-03-15 04:00+00'), (-8, '2021-03-14', '2021-03-14 00:00+00');
ANALYZE tsd;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tsd WHERE gpu_filter(ts < date '2021-03-14' AND tz >= date '2021-03-14' AND date '2021-03-15' > tz);
-- runs each predicate on table tab through gpusel (gpu_filter forces its
-- scan) and through PostgreSQL; returns those whose rows differ, then a
-- line with the count and the TimeZone.  JIT, forced in one of the suite's
-- modes, compiles each query: only every jit_every-th case runs under it.
CREATE FUNCTION pg_temp.pred_mismatches(tab text, preds text[], jit_every int) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE pred text; got text; want text; n int := 0;
  q text := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM ' || tab || ' WHERE ';
  session_jit text := current_setting('jit');
BEGIN
  FOREACH pred IN ARRAY preds LOOP
    PERFORM set_config('jit', CASE WHEN n % jit_every = 0 THEN session_jit ELSE 'off' END, true);
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    EXECUTE q || 'gpu_filter(' || pred || ')' INTO got;
    PERFORM set_config('gpusel.enable_scan', 'off', true);
    EXECUTE q || pred INTO want;
    PERFORM set_config('gpusel.enable_scan', 'on', true);
    n := n + 1;
    IF got IS DISTINCT FROM want THEN
      RETURN NEXT format('%s: gpusel %s, PostgreSQL %s', pred, got, want);
    END IF;
  END LOOP;
  PERFORM set_config('jit', session_jit, true);
  RETURN NEXT format('checked %s predicates under %s', n, current_setting('TimeZone'));
END $$;
CREATE FUNCTION pg_temp.column_vs_date() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT pg_temp.pred_mismatches('tsd', ARRAY(
    SELECT p FROM unnest(ARRAY['2021-03-14', '2021-03-15', '2021-03-10', '2021-03-01', '2021-04-02', 'infinity',
                               '-infinity', '4713-11-24 BC', '4713-11-23 BC', '294276-12-31', '294277-01-01',
                               '5874897-12-31']) d,
                  unnest(ARRAY['<', '<=', '=', '<>', '>=', '>']) op,
                  LATERAL unnest(ARRAY[format('ts %s %L::date', op, d), format('%L::date %s ts', d, op),
                                       format('tz %s %L::date', op, d), format('%L::date %s tz', d, op)]) p), 50)
$$;
SET TimeZone = 'America/New_York';
SELECT * FROM pg_temp.column_vs_date();
SET TimeZone = 'Asia/Kolkata';
SELECT * FROM pg_temp.column_vs_date();
-- a prepared statement's generic plan follows the TimeZone of each execution
SET plan_cache_mode = force_generic_plan;
PREPARE tz_count AS SELECT count(*) FROM tsd WHERE gpu_filter(tz >= date '2021-03-14' AND tz < date '2021-03-15');
SET TimeZone = 'America/New_York';
EXECUTE tz_count;
SET gpusel.enable_scan = off;
SELECT count(*) FROM tsd WHERE tz >= date '2021-03-14' AND tz < date '2021-03-15';
SET gpusel.enable_scan = on;
SET TimeZone = 'Asia/Kolkata';
EXECUTE tz_count;
SET gpusel.enable_scan = off;
SELECT count(*) FROM tsd WHERE tz >= date '2021-03-14' AND tz < date '2021-03-15';
SET gpusel.enable_scan = on;
DEALLOCATE tz_count;
RESET plan_cache_mode;
RESET TimeZone;
DROP TABLE tsd;

-- 10. A date column against a timestamptz the device computes: the host
-- reads the date as its midnight in the session's TimeZone, as PostgreSQL
-- converts it (date2timestamptz), and the device compares int8s.  The
-- infinities stay infinite; a date past the timestamps' range, or whose
-- local midnight falls before their start (4713-11-24 BC east of
-- Greenwich), lies just beyond every finite timestamp on its side, as
-- PostgreSQL orders it.  Every operator, both orders, under three zones,
-- with timestamps a microsecond either side of each local midnight.
CREATE TABLE dtz (id int, d date, tz timestamptz);
INSERT INTO dtz SELECT i, date '2021-03-01' + (i % 40),
  (date '2021-03-01' + (i * 7 % 40))::timestamp AT TIME ZONE (ARRAY['America/New_York', 'Asia/Kolkata', 'UTC'])[i % 3 + 1]
    + (i % 5 - 2) * interval '1 microsecond' + CASE WHEN i % 11 = 0 THEN interval '5 hours' ELSE interval '0' END
FROM generate_series(1, 4000) i;
INSERT INTO dtz VALUES (-1, 'infinity', 'infinity'), (-2, '-infinity', '-infinity'), (-3, 'infinity', '2021-03-14 00:00+00'),
  (-4, '-infinity', '2021-03-14 00:00+00'), (-5, '2021-03-14', 'infinity'), (-6, '2021-03-14', '-infinity'),
  (-7, NULL, '2021-03-14 00:00+00'), (-8, '2021-03-14', NULL), (-9, '4713-11-24 BC', '4713-11-24 00:00:00+00 BC'),
  (-10, '4713-11-25 BC', '4713-11-24 23:59:59+00 BC'), (-11, '294276-12-31', '294276-12-31 23:59:59.999999+00'),
  (-12, '294277-01-01', '294276-12-31 23:59:59.999999+00'), (-13, '5874897-12-31', 'infinity'),
  (-14, '294277-01-01', 'infinity'), (-15, '4713-11-24 BC', '-infinity');
ANALYZE dtz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dtz WHERE gpu_filter(d < tz AND tz <= d + 1);
CREATE FUNCTION pg_temp.date_vs_tz() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT pg_temp.pred_mismatches('dtz', ARRAY(
    SELECT p FROM unnest(ARRAY['<', '<=', '=', '<>', '>=', '>']) op,
                  LATERAL unnest(ARRAY[format('d %s tz', op), format('tz %s d', op),
                                       format('(d %s tz) IS NOT TRUE', op)]) p), 10)
$$;
SET TimeZone = 'America/New_York';
SELECT * FROM pg_temp.date_vs_tz();
SET TimeZone = 'Asia/Kolkata';
SELECT * FROM pg_temp.date_vs_tz();
SET TimeZone = 'UTC';
SELECT * FROM pg_temp.date_vs_tz();
-- a generic plan follows the TimeZone of each execution
SET plan_cache_mode = force_generic_plan;
PREPARE d_tz AS SELECT count(*), sum(id) FROM dtz WHERE gpu_filter(d <= tz);
SET TimeZone = 'America/New_York';
EXECUTE d_tz;
SET gpusel.enable_scan = off;
SELECT count(*), sum(id) FROM dtz WHERE d <= tz;
SET gpusel.enable_scan = on;
SET TimeZone = 'Asia/Kolkata';
EXECUTE d_tz;
SET gpusel.enable_scan = off;
SELECT count(*), sum(id) FROM dtz WHERE d <= tz;
SET gpusel.enable_scan = on;
DEALLOCATE d_tz;
RESET plan_cache_mode;
-- the grouped scan and the scan that hands rows on
SELECT id % 3 AS g, count(*), min(tz) FROM dtz WHERE gpu_filter(d >= tz) GROUP BY 1 ORDER BY 1;
SET gpusel.enable_scan = off;
SELECT id % 3 AS g, count(*), min(tz) FROM dtz WHERE d >= tz GROUP BY 1 ORDER BY 1;
SET gpusel.enable_scan = on;
-- the date itself as the group key and an input beside its midnight in the filter
CREATE TEMP TABLE dtz_groups AS SELECT d, count(*) AS n, max(d) AS top FROM dtz WHERE gpu_filter(d <= tz) GROUP BY d;
SET gpusel.enable_scan = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE g.n IS DISTINCT FROM p.n OR g.top IS DISTINCT FROM p.top) AS mismatches
FROM dtz_groups g FULL JOIN (SELECT d, count(*) AS n, max(d) AS top FROM dtz WHERE d <= tz GROUP BY d) p USING (d);
SET gpusel.enable_scan = on;
DROP TABLE dtz_groups;
SELECT count(*) AS rows, sum(id) AS ids FROM (SELECT id FROM dtz WHERE gpu_filter(d = tz OR NOT d < tz) OFFSET 0) s;
SET gpusel.enable_scan = off;
SELECT count(*) AS rows, sum(id) AS ids FROM (SELECT id FROM dtz WHERE d = tz OR NOT d < tz OFFSET 0) s;
SET gpusel.enable_scan = on;
RESET TimeZone;
DROP TABLE dtz;

DROP TABLE dt;
