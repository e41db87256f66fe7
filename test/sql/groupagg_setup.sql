--
-- What the grouped-aggregate suites (groupagg*.sql) share, included by
-- each with \i: settings, the oracle, and the main table ga.
--
-- ga_check(query, nkeys) runs a query twice: first as the oracle, with
-- gpusel out of the way (gpusel.enable_scan and
-- gpusel.replace_builtin_percentiles off: PostgreSQL's own plan and its
-- built-in percentile_disc and percentile_cont; gpu_percentile and
-- gpu_percentile_cont are spelt as the built-ins there), then with gpusel's
-- settings as they are.  It keeps both results in temp tables, joins them
-- on the group keys (the first nkeys columns) and shows the plan gpusel's
-- run had, the oracle's number of rows and the number of rows that do not
-- match, which must be 0.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET extra_float_digits = 1;

\i test/sql/oracle_functions.sql

-- The kind of plan a query gets (oracle_plan_kind).
CREATE FUNCTION ga_plan(q text) RETURNS text LANGUAGE sql AS $fn$
  SELECT oracle_plan_kind(oracle_explain(q))
$fn$;

-- Runs q as the oracle and with gpusel, and compares (oracle_check).
CREATE FUNCTION ga_check(q text, nkeys int DEFAULT 1,
                         OUT plan text, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE sql AS $fn$
  SELECT * FROM oracle_check(q, nkeys)
$fn$;

--
-- The main table: every type the grouped scan reads, NULLs in most columns,
-- a text and a numeric column.  Float values are multiples of 0.25 of
-- modest size, so sums and averages are exact in any order of summation.
--
CREATE TABLE ga (
  id int4, k int4, b bool, s2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  fk float8, d date, ts timestamp, tz timestamptz, t text, n numeric);
INSERT INTO ga
SELECT id,
       CASE WHEN id % 97 = 0 THEN NULL ELSE id % 37 END,
       CASE WHEN id % 11 = 0 THEN NULL ELSE id % 3 = 0 END,
       CASE WHEN id % 17 = 0 THEN NULL ELSE (id % 200 - 100) * 300 END,
       CASE WHEN id % 19 = 0 THEN NULL ELSE id * 7 % 1000 - 500 END,
       CASE WHEN id % 23 = 0 THEN NULL ELSE id::int8 * 1000003 - 2000000000 END,
       CASE WHEN id % 29 = 0 THEN NULL ELSE ((id % 400) - 200) * 0.25 END,
       CASE WHEN id % 13 = 0 THEN NULL ELSE ((id * 13) % 2000 - 1000) * 0.25 END,
       CASE WHEN id % 31 = 0 THEN NULL ELSE (id % 9 - 4) * 0.5 END,
       CASE WHEN id % 41 = 0 THEN NULL ELSE date '2020-01-01' + id % 50 END,
       CASE WHEN id % 43 = 0 THEN NULL ELSE timestamp '2020-01-01' + id * interval '17 minutes' END,
       CASE WHEN id % 47 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + id * interval '7 min 13 s' END,
       CASE WHEN id % 7 = 0 THEN NULL ELSE 'v' || id % 5 END,
       id / 8.0
FROM generate_series(1, 4000) id;
-- a group (k = 1000) whose aggregate inputs are all NULL
INSERT INTO ga (id, k, fk) SELECT 4000 + g, 1000, 1000 FROM generate_series(1, 5) g;
-- special float keys (k = 2000): -0 joins the group of 0; NaN (also with
-- its sign bit set, as -'NaN' and Infinity - Infinity give it), Infinity,
-- -Infinity and NULL are groups of their own
INSERT INTO ga (id, k, fk, f8, i4)
VALUES (4101, 2000, '-0', 1.5, 1), (4102, 2000, '-0', 2.5, 2),
       (4103, 2000, 'NaN', 1, 3), (4104, 2000, -'NaN'::float8, 2, 4),
       (4105, 2000, 'Infinity'::float8 - 'Infinity'::float8, 2.25, 5),
       (4106, 2000, 'Infinity', 3, 6), (4107, 2000, '-Infinity', 4, 7),
       (4108, 2000, NULL, 5, 8);
-- special float inputs, a group each (k = 2001 .. 2008); -0 and 0 never
-- share a group, where min, max and percentiles would depend on row order
INSERT INTO ga (id, k, f8, f4)
VALUES (4201, 2001, 'NaN', 'NaN'), (4202, 2001, 1, 1), (4203, 2001, 2, 2),
       (4204, 2002, 'Infinity', 'Infinity'), (4205, 2002, '-Infinity', '-Infinity'), (4206, 2002, 3, 3),
       (4207, 2003, '-0', '-0'), (4208, 2003, '-0', '-0'),
       (4209, 2004, 'Infinity', 'Infinity'), (4210, 2004, 5, 5), (4211, 2004, 6.5, 6.5),
       (4212, 2005, '-Infinity', '-Infinity'), (4213, 2005, 'NaN', 'NaN'),
       (4214, 2006, 0, 0), (4215, 2006, 0, 0), (4216, 2006, 7, 7),
       (4217, 2007, 'NaN', 'NaN'), (4218, 2007, -'NaN'::float8, -'NaN'::float4),
       (4219, 2008, -'NaN'::float8, -'NaN'::float4), (4220, 2008, -1, -1), (4221, 2008, 'Infinity', 'Infinity');
-- infinite dates and timestamps (k = 2009)
INSERT INTO ga (id, k, d, ts, tz)
VALUES (4301, 2009, 'infinity', '-infinity', 'infinity'), (4302, 2009, '-infinity', 'infinity', '-infinity'),
       (4303, 2009, '2020-02-02', '2020-02-02 02:02', '2020-02-02 02:02+00');
ANALYZE ga;
--
