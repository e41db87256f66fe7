--
-- The grouped scan's block paths on the CPU, against PostgreSQL's answers:
-- groups found by a block of one key's order keys (new keys created in row
-- order after the known ones), date_trunc to a day or less computed in C,
-- min and max by a block's keys, grouped integer sums by typed loops, and
-- the ranks of small groups selected from a copy without a sort.  Over
-- NULLs, NaN, infinities, -0 and +0, timestamps before 1970 and 2000 and
-- at the ends of their range, unit boundaries, 3001 rows in batches of
-- 1024.
--
\i test/sql/groupagg_setup.sql
SET gpusel.batch_rows = 1024;
SET gpusel.min_rows = 0;

CREATE TABLE gb (id int4, ts timestamp, s2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date);
INSERT INTO gb
SELECT g,
       CASE WHEN g % 53 = 0 THEN NULL
            ELSE timestamp '1969-12-31 22:00' + (g - 1500) * interval '37 min 11.000123 s' END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE (g % 300 - 150)::int2 END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE g * 7919 % 2000 - 1000 END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE (g - 1500)::int8 * 3000000017 END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE ((g * 31) % 97 - 48) / 4.0 END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE ((g * 37) % 101 - 50) / 8.0 END,
       CASE WHEN g % 31 = 0 THEN NULL ELSE date '1999-12-20' + g % 40 END
FROM generate_series(1, 3001) g;
-- the ends of the ranges, exact unit boundaries and a microsecond either side
UPDATE gb SET ts = 'infinity' WHERE id IN (3, 2000);
UPDATE gb SET ts = '-infinity' WHERE id IN (4, 2999);
UPDATE gb SET ts = '4714-11-24 00:00:00 BC' WHERE id = 5;
UPDATE gb SET ts = '4714-11-24 23:59:59.999999 BC' WHERE id = 6;
UPDATE gb SET ts = '294276-12-31 23:59:59.999999' WHERE id = 7;
UPDATE gb SET ts = '2000-01-01 00:00:00' WHERE id = 8;
UPDATE gb SET ts = '1999-12-31 23:59:59.999999' WHERE id = 9;
UPDATE gb SET ts = '1970-01-01 00:00:00.000001' WHERE id = 10;
UPDATE gb SET ts = '1900-03-01 12:00:00' WHERE id = 11;
UPDATE gb SET ts = '2024-02-29 23:00:00' WHERE id = 12;
-- floats: NaN, the infinities, -0 before +0 and after it, in one group
UPDATE gb SET f4 = 'NaN', f8 = 'NaN' WHERE id IN (20, 1020);
UPDATE gb SET f4 = 'Infinity', f8 = '-Infinity' WHERE id = 21;
UPDATE gb SET f4 = '-Infinity', f8 = 'Infinity' WHERE id = 22;
UPDATE gb SET f4 = '-0', f8 = '-0' WHERE id IN (40, 2040);
UPDATE gb SET f4 = '0', f8 = '0' WHERE id IN (60, 1060);
UPDATE gb SET s2 = 32767, i4 = 2147483647, i8 = 9223372036854775807 WHERE id = 30;
UPDATE gb SET s2 = -32768, i4 = -2147483648, i8 = -9223372036854775808 WHERE id = 31;
ANALYZE gb;

-- date_trunc of each unit of a day or less (and spellings of them), as a key
SELECT * FROM ga_check($$SELECT date_trunc('hour', ts) AS h, count(*) AS c, sum(i4) AS s FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('day', ts) AS h, count(*) AS c, min(f8) AS m FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('minute', ts) AS h, count(*) AS c FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('second', ts) AS h, count(*) AS c FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('milliseconds', ts) AS h, count(*) AS c FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('microsecond', ts) AS h, count(*) AS c FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('HOURS', ts) AS h, count(*) AS c FROM gb GROUP BY 1$$);
-- the units the calendar decides stay with the executor, with the same answers
SELECT * FROM ga_check($$SELECT date_trunc('week', ts) AS h, count(*) AS c FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('month', ts) AS h, count(*) AS c FROM gb WHERE id > 12 GROUP BY 1$$);
-- date_trunc as an aggregate input, and beside an integer key expression
SELECT * FROM ga_check($$SELECT i4 % 7 AS k, min(date_trunc('hour', ts)) AS mn,
  max(date_trunc('minute', ts)) AS mx, count(*) AS c FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT date_trunc('hour', ts) AS h, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p,
  count(*) AS c FROM gb WHERE id % 3 <> 0 GROUP BY 1$$);

-- one key of each key type by block: min, max and integer sums per group
SELECT * FROM ga_check($$SELECT s2 AS k, count(*) AS c, min(f8) AS mn, max(f4) AS mx, sum(i4) AS s4,
  sum(i8) AS s8, sum(s2) AS ss, min(d) AS md, max(ts) AS mt FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT i4 AS k, count(*) AS c, max(f8) AS mx, min(i8) AS mn, avg(s2) AS a FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT i8 AS k, count(*) AS c, min(f4) AS mn, sum(i4) AS s FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT f8 AS k, count(*) AS c, min(i4) AS mn, max(i4) AS mx FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT f4 AS k, count(*) AS c, sum(i8) AS s, max(d) AS mx FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT d AS k, count(*) AS c, min(ts) AS mn, max(ts) AS mx, sum(s2) AS s FROM gb GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT ts AS k, count(*) AS c, sum(i4) AS s FROM gb GROUP BY 1$$);
-- several keys by block (NULLs, -0 and +0, NaN among them), and more keys
-- than a block takes (found row by row)
SELECT * FROM ga_check($$SELECT s2 % 5 AS a, date_trunc('hour', ts) AS b, count(*) AS c, sum(i4) AS s
  FROM gb GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT i4 % 3 AS a, f8 AS b, count(*) AS c, min(ts) AS m FROM gb GROUP BY 1, 2$$, 2);
SELECT * FROM ga_check($$SELECT d AS a, i8 % 4 AS b, f4 AS c3, count(*) AS c, max(f8) AS m FROM gb GROUP BY 1, 2, 3$$, 3);
SELECT * FROM ga_check($$SELECT s2 % 2 AS a, i4 % 2 AS b, i8 % 2 AS c3, f4 > 0 AS d4, d AS e, count(*) AS c
  FROM gb GROUP BY 1, 2, 3, 4, 5$$, 5);
SELECT * FROM ga_check($$SELECT t, k, count(*) AS c, sum(i4) AS s, max(f8) AS m FROM ga GROUP BY 1, 2$$, 2);
-- -0 and +0 in one group: min and max keep the later of equal values
SELECT * FROM ga_check($$SELECT id % 2 AS k, min(f8) AS mn, max(f8) AS mx, min(f4) AS mn4, max(f4) AS mx4
  FROM gb WHERE f8 = 0 OR id % 500 = 1 GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT min(f8) AS mn, max(f8) AS mx, min(f4) AS mn4, max(f4) AS mx4
  FROM gb WHERE f8 = 0$$, 0);
SELECT * FROM ga_check($$SELECT min(f8) AS mn, max(f8) AS mx, min(f4) AS mn4, max(f4) AS mx4
  FROM gb WHERE id IN (40, 60)$$, 0);
SELECT * FROM ga_check($$SELECT min(f8) AS mn, max(f8) AS mx, min(f4) AS mn4, max(f4) AS mx4
  FROM gb WHERE id IN (60, 2040)$$, 0);
-- an integer sum past int8 in one group
SELECT * FROM ga_check($$SELECT id % 3 AS k, sum(i8) AS s, avg(i8) AS a FROM gb WHERE i8 > 0 GROUP BY 1$$);

-- small groups' ranks: sizes 1 to 300 with duplicates, sorted and reversed,
-- all equal, one and two ranks (percentile_cont), three, and more ranks
-- than a copy is selected for (it is sorted then)
CREATE TABLE gs (g int4, v float8, w int4);
INSERT INTO gs
SELECT g, CASE g % 4 WHEN 0 THEN i WHEN 1 THEN -i WHEN 2 THEN 7 ELSE (i * 7919) % 13 END,
       (i * 31) % 17
FROM generate_series(1, 300) g, generate_series(1, g) i;
UPDATE gs SET v = 'NaN' WHERE g = 77 AND w = 3;
UPDATE gs SET v = '-0' WHERE g = 78 AND w = 4;
ANALYZE gs;
SELECT * FROM ga_check($$SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) AS p,
  percentile_cont(0.37) WITHIN GROUP (ORDER BY v) AS pc FROM gs GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT g, percentile_disc(ARRAY[0, 0.01, 0.5, 0.99, 1]) WITHIN GROUP (ORDER BY w) AS p,
  percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY v DESC) AS pc FROM gs GROUP BY 1$$);
SELECT * FROM ga_check($$SELECT g, percentile_disc(ARRAY[0.0,0.025,0.05,0.075,0.1,0.125,0.15,0.175,0.2,0.225,0.25,0.275,0.3,0.325,0.35,0.375,0.4,0.425,0.45,0.475,0.5,0.525,0.55,0.575,0.6,0.625,0.65,0.675,0.7,0.725,0.75,0.775,0.8,0.825,0.85,0.875,0.9,0.925,0.95,0.975,1.0])
  WITHIN GROUP (ORDER BY v) AS p FROM gs GROUP BY 1$$);

DROP TABLE gb, gs;
\i test/sql/groupagg_teardown.sql
