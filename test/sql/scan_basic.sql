-- GpuSelScan: gpu_filter(), the planner's split into device and host quals,
-- and the executor's batches, parameters, rescans and MVCC.
-- Output is the same with and without a GPU: EXPLAIN ANALYZE runs with
-- gpusel.explain_device_details = off.
-- The planner hook is installed when the library loads: LOAD it (or preload
-- it) so that ordinary queries see it before any gpusel function is called.
LOAD 'gpusel';
SET gpusel.explain_device_details = off;
SET max_parallel_workers_per_gather = 0;

CREATE TABLE sb (id int4, a int2, b int4, c int8, x float4, y float8,
                 flag bool, d date, ts timestamp, tz timestamptz, t text);
INSERT INTO sb
SELECT g, CASE WHEN g % 13 <> 0 THEN (g % 200 - 100)::int2 END,
       CASE WHEN g % 17 <> 0 THEN g - 2500 END, g * 1000003::int8,
       ((g % 17) - 8) / 3.0, ((g % 23) - 11) / 7.0,
       CASE g % 3 WHEN 0 THEN true WHEN 1 THEN false END,
       date '2000-01-01' + g, timestamp '2000-01-01' + g * interval '1 hour',
       timestamptz '2000-01-01 00:00+00' + g * interval '1 minute',
       'row ' || g
FROM generate_series(1, 5003) g;
ANALYZE sb;

-- gpu_filter returns its argument, NULL included
SELECT gpu_filter(true), gpu_filter(false), gpu_filter(NULL);

-- its selectivity is that of its argument
CREATE FUNCTION plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;
SET gpusel.enable_scan = off;
SELECT plan_rows('SELECT * FROM sb WHERE gpu_filter(b > 4000)') =
       plan_rows('SELECT * FROM sb WHERE b > 4000') AS same_estimate,
       plan_rows('SELECT * FROM sb WHERE gpu_filter(b > 4000)') < 600 AS selective;
RESET gpusel.enable_scan;

-- the split: supported clauses run on the device, the rest on the host
EXPLAIN (COSTS OFF) SELECT * FROM sb WHERE gpu_filter(b > 10);
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(b > 10) AND t LIKE 'row 1%';
EXPLAIN (COSTS OFF) SELECT id FROM sb
  WHERE gpu_filter(a BETWEEN -5 AND 5 AND (y > 0 OR flag IS NOT TRUE)) AND c IN (1000003, 2000006);
EXPLAIN (COSTS OFF) SELECT id FROM sb
  WHERE gpu_filter(x::float8 * 2 > y AND a + b < 0 AND -c < 0 AND b / 3 = 1 AND a % 7 = 1);
EXPLAIN (COSTS OFF) SELECT id FROM sb
  WHERE gpu_filter(d > '2000-03-01' AND ts < '2000-02-01' AND tz >= '2000-01-02 00:00+00');
-- with enable_scan on (the default), other supported clauses join the device
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(b > 10) AND c < 100000000 AND t <> 'x';
-- with enable_scan off, only gpu_filter() clauses do
SET gpusel.enable_scan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(b > 10) AND c < 100000000 AND t <> 'x';
RESET gpusel.enable_scan;
-- not supported on the device: text, narrowing casts, functions; a date
-- against a timestamp column is (its midnight as int8, scan_datetime.sql)
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(t = 'row 5');
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(d < ts) AND gpu_filter(b > 0);
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(c::int4 > 0 OR abs(b) > 3) AND gpu_filter(b > 0);
-- a gpu_filter() clause the device cannot take plans no GpuSelScan
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE gpu_filter(t = 'row 5');

-- ordinary queries keep PostgreSQL's plan unless the GPU would run them
-- and the cost model says it pays
CREATE TABLE sb_big AS SELECT g AS k FROM generate_series(1, 100000) g;
ANALYZE sb_big;
SET gpusel.device = cpu;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb_big
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
SET gpusel.device = auto;
SET gpusel.min_rows = 1000000;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb_big
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
-- gpusel.device = gpu costs the scan for the GPU (planning only here):
-- an expensive predicate over 100000 rows goes to the device, a cheap one
-- or a small table stays on PostgreSQL's plan
SET gpusel.device = gpu;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb_big
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb_big WHERE k > 10;
EXPLAIN (COSTS OFF) SELECT id FROM sb WHERE b % 2 = 0 OR b % 3 = 0 OR b % 5 = 0;
-- with enable_scan off, only gpu_filter() reaches the device
SET gpusel.enable_scan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb_big
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
RESET gpusel.enable_scan;
RESET gpusel.device;
RESET gpusel.min_rows;
DROP TABLE sb_big;

-- results, in the heap's order
SELECT id, a, b FROM sb WHERE gpu_filter(b > 2480 AND a < -70) ORDER BY id;
SELECT count(*), sum(id) FROM sb WHERE gpu_filter(flag);
SELECT count(*) FROM sb WHERE gpu_filter(b IS NULL);
SELECT count(*) FROM sb WHERE gpu_filter(a IS NULL OR b IS NULL);
SELECT id, t FROM sb WHERE gpu_filter(id % 1000 = 1) AND t LIKE '%1';

-- batches across the table: 5003 rows in batches of 1024
SET gpusel.batch_rows = 1024;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM sb WHERE gpu_filter(b % 10 = 3);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM sb WHERE gpu_filter(b > 2490) AND t LIKE '%9%';
SELECT count(*), min(id), max(id) FROM sb WHERE gpu_filter(b % 10 = 3);
-- rows leave in the heap's order, across batch boundaries
SELECT bool_and(id = rn) AS in_order, count(*)
FROM (SELECT id, row_number() OVER () AS rn FROM sb WHERE gpu_filter(a IS NOT NULL OR a IS NULL)) s;
SELECT bool_and(c > p) AS in_order, count(*)
FROM (SELECT ctid AS c, lag(ctid) OVER () AS p FROM sb WHERE gpu_filter(b % 3 = 0)) s
WHERE p IS NOT NULL;
RESET gpusel.batch_rows;

-- an empty table, and a table emptied by DELETE
CREATE TABLE sb_empty (b int4);
SELECT count(*) FROM sb_empty WHERE gpu_filter(b > 0);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM sb_empty WHERE gpu_filter(b > 0);
INSERT INTO sb_empty VALUES (1), (2);
DELETE FROM sb_empty;
SELECT count(*) FROM sb_empty WHERE gpu_filter(b > 0);

-- MVCC: updated and deleted rows, and a cursor's older snapshot
CREATE TABLE sb_mvcc AS SELECT g AS k, g % 10 AS v FROM generate_series(1, 3000) g;
UPDATE sb_mvcc SET v = 100 WHERE k % 7 = 0;
DELETE FROM sb_mvcc WHERE k % 11 = 0;
SELECT count(*), sum(k) FROM sb_mvcc WHERE gpu_filter(v = 100);
SELECT count(*), sum(k) FROM sb_mvcc WHERE gpu_filter(v < 100);
BEGIN;
DECLARE cur CURSOR FOR SELECT count(*) FROM sb_mvcc WHERE gpu_filter(v = 100);
UPDATE sb_mvcc SET v = 100 WHERE k <= 100;
FETCH cur;
SELECT count(*) FROM sb_mvcc WHERE gpu_filter(v = 100);
ROLLBACK;

-- UPDATE and DELETE through the scan
BEGIN;
EXPLAIN (COSTS OFF) UPDATE sb_mvcc SET v = -1 WHERE gpu_filter(v = 3);
UPDATE sb_mvcc SET v = -1 WHERE gpu_filter(v = 3);
DELETE FROM sb_mvcc WHERE gpu_filter(v = -1 AND k > 1500);
SELECT count(*) FROM sb_mvcc WHERE v = -1;
SELECT count(*) FROM sb_mvcc WHERE gpu_filter(v = -1);
ROLLBACK;

-- prepared statements: custom plans, then the generic plan, whose parameters
-- become constants of the device program at scan start
PREPARE sbq(int4, float8) AS
  SELECT count(*) FROM sb WHERE gpu_filter(b > $1 AND y < $2);
EXECUTE sbq(100, 0.5);
EXECUTE sbq(200, 0.5);
EXECUTE sbq(300, 0.5);
EXECUTE sbq(400, 0.5);
EXECUTE sbq(500, 0.5);
EXECUTE sbq(600, 0.5);
EXECUTE sbq(-3000, 10);
EXECUTE sbq(NULL, 10);
EXPLAIN (COSTS OFF) EXECUTE sbq(700, 0.5);
DEALLOCATE sbq;
-- an array parameter is not a constant list: the clause stays on the host
SET plan_cache_mode = force_generic_plan;
PREPARE sbin(int8[]) AS SELECT count(*) FROM sb WHERE gpu_filter(c = ANY($1) OR b < -2495);
EXPLAIN (COSTS OFF) EXECUTE sbin('{1000003,2000006}');
EXECUTE sbin('{1000003,2000006}');
DEALLOCATE sbin;
RESET plan_cache_mode;

-- rescans: a correlated subquery (PARAM_EXEC) and the inner side of a nested loop
CREATE TABLE sb_outer (k int4);
INSERT INTO sb_outer VALUES (-2400), (0), (2400), (NULL), (0);
EXPLAIN (COSTS OFF)
  SELECT k, (SELECT count(*) FROM sb WHERE gpu_filter(sb.b < o.k)) FROM sb_outer o;
SELECT k, (SELECT count(*) FROM sb WHERE gpu_filter(sb.b < o.k)) FROM sb_outer o;
-- a LATERAL subquery, rescanned for every outer row with a new parameter value
EXPLAIN (COSTS OFF)
  SELECT o.k, s.n FROM sb_outer o,
    LATERAL (SELECT count(*) AS n, min(id) FROM sb WHERE gpu_filter(sb.b >= o.k AND sb.a >= 0)) s;
SELECT o.k, s.* FROM sb_outer o,
  LATERAL (SELECT count(*) AS n, min(id) FROM sb WHERE gpu_filter(sb.b >= o.k AND sb.a >= 0)) s;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT o.k, s.n FROM sb_outer o,
    LATERAL (SELECT count(*) AS n FROM sb WHERE gpu_filter(sb.b >= o.k AND sb.a >= 0)) s;
-- a rescan with unchanged parameters, and one in a semi join
SELECT o.k, EXISTS (SELECT 1 FROM sb WHERE gpu_filter(sb.b = o.k AND sb.a = 0)) FROM sb_outer o;

-- partitions: each partition gets its own GpuSelScan
CREATE TABLE sb_part (k int4, v float8) PARTITION BY RANGE (k);
CREATE TABLE sb_part_1 PARTITION OF sb_part FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE sb_part_2 PARTITION OF sb_part FOR VALUES FROM (1000) TO (MAXVALUE);
INSERT INTO sb_part SELECT g, g / 3.0 FROM generate_series(1, 2500) g;
ANALYZE sb_part;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb_part WHERE gpu_filter(v > 100);
SELECT count(*) FROM sb_part WHERE gpu_filter(v > 100);
EXPLAIN (COSTS OFF) SELECT * FROM sb_part WHERE gpu_filter(k < 10 AND v > 1);
SELECT * FROM sb_part WHERE gpu_filter(k < 10 AND v > 1);

-- errors are PostgreSQL's, and short circuits are kept
SELECT count(*) FROM sb WHERE gpu_filter(b * 1000000 > 0);
SELECT count(*) FROM sb WHERE gpu_filter(b <> 0 AND 10 / b > 1);
SELECT count(*) FROM sb WHERE gpu_filter(b = 0 OR 10 / b > 1);
SELECT count(*) FROM sb WHERE gpu_filter(10 / b > 1);
SELECT count(*) FROM sb WHERE b <> 0 AND gpu_filter(10 / b > 1);
-- after an error the next scan works (the device filter was freed)
SELECT count(*) FROM sb WHERE gpu_filter(b > 0);

-- LATERAL references keep PostgreSQL's parameterized scan
CREATE TABLE sb_lat (a int4, b int4);
INSERT INTO sb_lat SELECT g, g FROM generate_series(1, 3) g;
SELECT o.k, s.* FROM (VALUES (10), (20)) o(k)
  LEFT JOIN LATERAL (SELECT sb_lat.a, o.k AS ok FROM sb_lat WHERE gpu_filter(sb_lat.a > 1)) s ON true
  ORDER BY 1, 2;
DROP TABLE sb_lat;

-- a host qual PostgreSQL evaluates first, and that can fail, keeps later quals on the host
CREATE TABLE sb_order (a int4, n numeric);
INSERT INTO sb_order VALUES (1, 1);
EXPLAIN (COSTS OFF) SELECT * FROM sb_order WHERE n / 0 > 0 AND gpu_filter(a::int8 > 5);
SELECT * FROM sb_order WHERE n / 0 > 0 AND gpu_filter(a::int8 > 5);
DROP TABLE sb_order;

-- count(*) with every qual on the device is answered by the scan itself
EXPLAIN (COSTS OFF) SELECT count(*), count(*) AS again FROM sb WHERE gpu_filter(b % 7 = 1 AND y > 0);
SELECT (SELECT count(*) FROM sb WHERE gpu_filter(b % 7 = 1 AND y > 0)) =
       (SELECT count(*) FROM sb WHERE b % 7 = 1 AND y > 0) AS same_count;
SET gpusel.batch_rows = 1024;
SELECT (SELECT count(*) FROM sb WHERE gpu_filter(b % 3 <> 0 OR a IS NULL)) =
       (SELECT count(*) FROM sb WHERE b % 3 <> 0 OR a IS NULL) AS same_across_batches;
RESET gpusel.batch_rows;
-- in subqueries, whose range tables are flattened into the query's
EXPLAIN (COSTS OFF) SELECT (SELECT count(*) FROM sb WHERE gpu_filter(b > 10)) AS n,
                           (SELECT count(*) FROM sb WHERE gpu_filter(y < 0)) AS m;
SELECT (SELECT count(*) FROM sb WHERE gpu_filter(b > 10)) AS n,
       (SELECT count(*) FROM sb WHERE gpu_filter(y < 0)) AS m,
       (SELECT count(*) FROM sb WHERE b > 10) AS n_pg,
       (SELECT count(*) FROM sb WHERE y < 0) AS m_pg;
SELECT count(*) FROM sb_empty WHERE gpu_filter(b > 0);
SELECT count(*) FROM sb_mvcc WHERE gpu_filter(v = 3);
SELECT count(*) + 1 AS plus_one FROM sb WHERE gpu_filter(b > 2000) HAVING count(*) > 0;
-- not with a host qual, a Param, GROUP BY or another aggregate
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb WHERE gpu_filter(b > 10) AND t LIKE 'row 1%';
EXPLAIN (COSTS OFF) SELECT count(*), min(id) FROM sb WHERE gpu_filter(b > 10);
EXPLAIN (COSTS OFF) SELECT a, count(*) FROM sb WHERE gpu_filter(b > 10) GROUP BY a;

DROP TABLE sb, sb_empty, sb_mvcc, sb_outer, sb_part;
DROP FUNCTION plan_rows(text);
