-- Defects found by trying gpusel from outside, each reproduced: every query
-- here must give PostgreSQL's answer or PostgreSQL's error.
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;

-- 1. count(*) taken inside GpuSelScan compiles its quals for the heap tuples
-- it reads, not for its one-row output: with JIT forced, deforming must read
-- the right attributes (b is the second column, c the third).
CREATE TABLE r04 (a int4, b int4, c int4, d int4, e int4, y float8);
INSERT INTO r04 SELECT g, g, g, g, g, g FROM generate_series(1, 1000) g;
UPDATE r04 SET c = NULL WHERE a % 100 = 0;
ANALYZE r04;
SET jit = on;
SET jit_above_cost = 0;
SET jit_inline_above_cost = 0;
SET jit_optimize_above_cost = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM r04 WHERE gpu_filter(b > 500);
SELECT count(*) FROM r04 WHERE gpu_filter(b > 500);
SELECT count(*) FROM r04 WHERE gpu_filter(c > 500);
SELECT count(*) FROM r04 WHERE gpu_filter(e > 10 AND y < 900.5);
SELECT count(*) FROM r04 WHERE gpu_filter(c IS NULL);
-- the row form and a host qual over later columns, under JIT too
SELECT sum(e), count(*) FROM r04 WHERE gpu_filter(d % 7 = 0) AND y::text LIKE '%5';
SET gpusel.enable_scan = off;
SELECT count(*) FROM r04 WHERE b > 500;
SELECT count(*) FROM r04 WHERE c > 500;
RESET gpusel.enable_scan;
RESET jit;
RESET jit_above_cost;
RESET jit_inline_above_cost;
RESET jit_optimize_above_cost;

-- 2. A host qual that PostgreSQL evaluates first and that fails through a
-- parameter keeps the device quals behind it: the error is raised.
CREATE TABLE r01 (a int2, b int4, c int8, y float8);
INSERT INTO r01 SELECT g % 100, g, g, g / 7.0 FROM generate_series(1, 1000) g;
ANALYZE r01;
SET plan_cache_mode = force_generic_plan;
PREPARE p(float8) AS SELECT b FROM r01
  WHERE gpu_filter(b > 2147483647 OR c > 9223372036854775807 OR a > 32767) AND sqrt($1) > y;
EXPLAIN (COSTS OFF) EXECUTE p(-1);
EXECUTE p(-1);
EXECUTE p(4);
-- the same with an initplan that fails, in both of PostgreSQL's orders
SELECT b FROM r01 WHERE gpu_filter(b > 2147483647) AND 1 / (SELECT 0) > y;
SELECT b FROM r01 WHERE 1 / (SELECT 0) > y AND
  gpu_filter(b > 2147483647 OR c > 9223372036854775807 OR a > 32767);
SET gpusel.enable_scan = off;
SELECT b FROM r01 WHERE b > 2147483647 AND 1 / (SELECT 0) > y;
SELECT b FROM r01 WHERE 1 / (SELECT 0) > y AND
  (b > 2147483647 OR c > 9223372036854775807 OR a > 32767);
RESET gpusel.enable_scan;
-- an initplan's output runs its subquery on first use: a host qual reading
-- one may fail too, so the device quals stay behind it
CREATE TABLE r01_zero (z int);
INSERT INTO r01_zero VALUES (0);
SELECT count(*) FROM r01 WHERE y::text = (SELECT (1 / z)::text FROM r01_zero)
  AND gpu_filter(b < 0 OR b % 7 = 100 OR c < 0);
SET gpusel.enable_scan = off;
SELECT count(*) FROM r01 WHERE y::text = (SELECT (1 / z)::text FROM r01_zero)
  AND (b < 0 OR b % 7 = 100 OR c < 0);
RESET gpusel.enable_scan;
DROP TABLE r01_zero;
-- a parameter qual that cannot fail does not hold the device quals back
PREPARE p2(int8) AS SELECT count(*) FROM r01 WHERE gpu_filter(b > 990) AND c > $1;
EXPLAIN (COSTS OFF) EXECUTE p2(0);
EXECUTE p2(0);
DEALLOCATE p;
DEALLOCATE p2;
RESET plan_cache_mode;

-- 3. WHERE CURRENT OF over scans that answer an aggregate: PostgreSQL's error.
BEGIN;
DECLARE c1 CURSOR FOR SELECT count(*) FROM r04 WHERE gpu_filter(b > 500);
EXPLAIN (COSTS OFF) SELECT count(*) FROM r04 WHERE gpu_filter(b > 500);
UPDATE r04 SET y = -1 WHERE CURRENT OF c1;
ROLLBACK;
BEGIN;
DECLARE c1 CURSOR FOR SELECT count(*) FROM r04 WHERE gpu_filter(b > 500);
FETCH 1 FROM c1;
UPDATE r04 SET y = -1 WHERE CURRENT OF c1;
ROLLBACK;
BEGIN;
DECLARE c2 CURSOR FOR SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY b) FROM r04;
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY b) FROM r04;
FETCH 1 FROM c2;
UPDATE r04 SET y = -1 WHERE CURRENT OF c2;
ROLLBACK;
-- a cursor over the row form of the scan updates the row it stands on
BEGIN;
DECLARE c3 CURSOR FOR SELECT a FROM r04 WHERE gpu_filter(b > 995);
FETCH 2 FROM c3;
UPDATE r04 SET y = -1 WHERE CURRENT OF c3 RETURNING a, y;
ROLLBACK;

-- A table read but not locked by an UPDATE (UPDATE ... FROM) keeps
-- PostgreSQL's scan: an EvalPlanQual recheck re-fetches its row into the
-- scan node's own slot, which a custom scan cannot take
EXPLAIN (COSTS OFF)
UPDATE r01 SET y = 0 FROM r04 WHERE r01.b = r04.a AND gpu_filter(r04.b > 990);

-- A policy marked with gpu_filter never takes away the Tid Scan that
-- WHERE CURRENT OF needs.
CREATE ROLE regress_gpusel_cursor;
CREATE TABLE r05 (id int4, owner int4, v int4);
INSERT INTO r05 SELECT g, g % 2, g FROM generate_series(1, 100) g;
ALTER TABLE r05 ENABLE ROW LEVEL SECURITY;
CREATE POLICY r05_p ON r05 USING (gpu_filter(owner = 1));
GRANT SELECT, UPDATE ON r05 TO regress_gpusel_cursor;
SET ROLE regress_gpusel_cursor;
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM r05 WHERE id > 10 FOR UPDATE;
FETCH 1 FROM c;
EXPLAIN (COSTS OFF) UPDATE r05 SET v = -1 WHERE CURRENT OF c;
UPDATE r05 SET v = -1 WHERE CURRENT OF c RETURNING id, v;
COMMIT;
SELECT id, v FROM r05 WHERE v < 0;
RESET ROLE;
DROP TABLE r05;
DROP ROLE regress_gpusel_cursor;

-- 4. The aggregates do not keep the plan below them serial.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpusel.enable_scan = off;
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY y) FROM r04 WHERE b > 3;
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY y) FROM r04 WHERE b > 3;
SELECT gpu_percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY y) FROM r04 WHERE b > 3;
RESET gpusel.enable_scan;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- 5. gpusel.plan_as_gpu plans as a GPU machine would; without a GPU those
-- plans run on the CPU path, with PostgreSQL's answers.
CREATE TABLE r06 AS SELECT g AS k, (g * 7919) % 100003 AS v, (g / 4.0)::float8 AS y
FROM generate_series(1, 100000) g;
ANALYZE r06;
-- an expensive host qual, which PostgreSQL evaluates last
CREATE FUNCTION r06_keep(float8) RETURNS bool LANGUAGE plpgsql IMMUTABLE COST 1000
AS $$ BEGIN RETURN $1::text LIKE '%.5%'; END $$;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM r06
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
SELECT count(*) FROM r06
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
EXPLAIN (COSTS OFF) SELECT k, v FROM r06
  WHERE (v % 2 = 0 OR v % 3 = 0 OR v % 5 = 0 OR v % 7 = 0 OR v % 11 = 0) AND r06_keep(y);
SELECT count(*), sum(k), md5(string_agg(k::text || ':' || v::text, ',')) FROM (SELECT k, v FROM r06
  WHERE (v % 2 = 0 OR v % 3 = 0 OR v % 5 = 0 OR v % 7 = 0 OR v % 11 = 0) AND r06_keep(y)) s;
-- a small table keeps PostgreSQL's plan, as on a GPU machine
EXPLAIN (COSTS OFF) SELECT count(*) FROM r01 WHERE b % 2 = 0 OR b % 3 = 0;
RESET gpusel.plan_as_gpu;
RESET gpusel.min_rows;
SET gpusel.enable_scan = off;
SELECT count(*) FROM r06
  WHERE k % 2 = 0 OR k % 3 = 0 OR k % 5 = 0 OR k % 7 = 0 OR k % 11 = 0 OR k % 13 = 0;
SELECT count(*), sum(k), md5(string_agg(k::text || ':' || v::text, ',')) FROM (SELECT k, v FROM r06
  WHERE (v % 2 = 0 OR v % 3 = 0 OR v % 5 = 0 OR v % 7 = 0 OR v % 11 = 0) AND r06_keep(y)) s;
RESET gpusel.enable_scan;
DROP TABLE r06;
DROP FUNCTION r06_keep(float8);

DROP TABLE r01;
DROP TABLE r04;
