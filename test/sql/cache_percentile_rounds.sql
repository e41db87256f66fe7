-- Percentile keys past work_mem under Gather over a cached table, on the
-- CPU: every process counts its keys by bucket (splitters the leader
-- sampled from the cache before the workers started), the leader picks the
-- buckets that hold the ranks, and every process reads its blocks again to
-- send only those buckets' keys.  Every shape is compared with
-- PostgreSQL's answer: NULLs, NaN, zeros (+0 until an UPDATE negates
-- some: the INSERT's CASE is numeric, which has no -0), the infinities,
-- all-equal keys, keys sorted as the table is (a poor sample), groups met
-- late, a filter that keeps no row, text keys, blocks changed since the
-- build (read from the heap in both rounds) and a rescan.  Needs gpusel
-- preloaded (the alternative output, cache_percentile_rounds_1.out, has
-- none of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif
\i test/sql/cache_oracle.sql

SET gpusel.device = cpu;
SET gpusel.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE cache_pr_t (id int8, grp int4, late int4, x float8, s float8, c int4,
                         d date, ts timestamp, i8 int8, sparse int4, tag text);
INSERT INTO cache_pr_t
SELECT g,
       CASE WHEN g % 101 = 0 THEN NULL ELSE g % 17 END,
       CASE WHEN g > 150000 THEN 100 + g % 7 ELSE g % 5 END,
       CASE WHEN g % 97 = 0 THEN 'NaN' WHEN g % 89 = 0 THEN '-0' WHEN g % 83 = 0 THEN '0'
            WHEN g % 79 = 0 THEN NULL WHEN g % 73 = 0 THEN 'Infinity' WHEN g % 71 = 0 THEN '-Infinity'
            ELSE ((g * 7919) % 10007) / 10007.0 - 0.5 END,
       g / 3,
       7,
       date '2001-01-01' + (g * 13) % 5000,
       timestamp '2020-01-01' + ((g * 17) % 100000) * interval '1 minute',
       (g::int8 * 1000003) % 999983 - 500000,
       CASE WHEN g % 100 = 0 THEN g % 13 END,
       'tag' || (g % 11)
FROM generate_series(1, 200003) g;
ALTER TABLE cache_pr_t SET (parallel_workers = 2);
VACUUM ANALYZE cache_pr_t;
SELECT gpusel_cache('cache_pr_t', ARRAY['id', 'grp', 'late', 'x', 's', 'c', 'd', 'ts', 'i8', 'sparse', 'tag']);

-- EXPLAIN ANALYZE: whether it ran under Gather, and its second passes
CREATE FUNCTION cache_pr_plan(q text) RETURNS TABLE (gather boolean, passes text) LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  gather := false; passes := '0';
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Gather' THEN gather := true; END IF;
    IF line ~ 'Percentile Second Passes:' THEN passes := substring(line from ': (\d+)'); END IF;
  END LOOP;
  RETURN NEXT;
END $$;

SET work_mem = '64kB';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
-- each shape's plan, read in two rounds under Gather where every
-- percentile is of a plain column: a cast, as percentile_cont of an integer
-- has, is not, and its keys would cross whole to the leader; the planner
-- then prefers a serial scan where that reads the cache twice (shape 7)
-- and keeps the Gather where both would spill (shape 10); and its answer
CREATE TABLE cache_pr_shapes (n int, q text);
INSERT INTO cache_pr_shapes SELECT i, q FROM unnest(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0, 0.5, 0.9, 0.99, 1]) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp',
  'SELECT grp, percentile_cont(ARRAY[0.1, 0.5, 0.95]) WITHIN GROUP (ORDER BY x DESC) FROM cache_pr_t WHERE d > date ''2003-01-01'' GROUP BY grp',
  'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*), avg(i8), min(x), max(x) FROM cache_pr_t WHERE i8 > -400000',
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY s), percentile_cont(0.99) WITHIN GROUP (ORDER BY s) FROM cache_pr_t GROUP BY grp',
  'SELECT percentile_disc(ARRAY[0.001, 0.5, 0.999]) WITHIN GROUP (ORDER BY s DESC) FROM cache_pr_t',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY c), percentile_cont(0.3) WITHIN GROUP (ORDER BY c) FROM cache_pr_t GROUP BY grp',
  'SELECT late, percentile_disc(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pr_t GROUP BY late',
  'SELECT grp % 3, percentile_disc(0.9) WITHIN GROUP (ORDER BY d), percentile_disc(0.1) WITHIN GROUP (ORDER BY ts) FROM cache_pr_t GROUP BY 1',
  'SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY i8), count(*), sum(i8), min(d), max(ts), avg(x) FROM cache_pr_t GROUP BY grp',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY sparse), count(sparse) FROM cache_pr_t GROUP BY grp',
  'SELECT id % 1000, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY 1',
  'SELECT tag, date_trunc(''day'', ts), percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY 1, 2',
  'SELECT tag, percentile_disc(0.5) WITHIN GROUP (ORDER BY i8 DESC), count(*) FROM cache_pr_t WHERE x < 0.25 GROUP BY tag',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t WHERE x > 2 GROUP BY grp',
  'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pr_t WHERE x > 2']) WITH ORDINALITY s(q, i);
SELECT n, p.* FROM cache_pr_shapes, cache_pr_plan(q) p ORDER BY n;
SELECT * FROM cache_same_as_postgres((SELECT array_agg(q ORDER BY n) FROM cache_pr_shapes));
-- in the groups' order, through a Gather Merge
SELECT * FROM cache_pr_plan('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp ORDER BY grp');
CREATE TABLE cache_pr_ordered AS
  SELECT row_number() OVER () AS n, r.* FROM
    (SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p FROM cache_pr_t GROUP BY grp ORDER BY grp) r;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
SELECT count(*) AS rows, count(*) FILTER (WHERE o.grp IS NOT DISTINCT FROM e.grp AND o.p IS NOT DISTINCT FROM e.p) AS same
  FROM cache_pr_ordered o
  JOIN (SELECT row_number() OVER () AS n, r.* FROM
          (SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p FROM cache_pr_t GROUP BY grp ORDER BY grp) r) e
  USING (n);
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
DROP TABLE cache_pr_ordered;

-- a rescan of the Gather, the inner side of a nested loop that stops at
-- the first match: each run reads in two rounds anew
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM cache_pr_plan('SELECT v.a, p.* FROM (VALUES (1), (5), (16)) v(a) LEFT JOIN (SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp) p ON p.grp = v.a');
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT v.a, p.* FROM (VALUES (1), (5), (16)) v(a) LEFT JOIN (SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp) p ON p.grp = v.a']);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- the workers' two rounds, with masks of several words (256 buckets for 7
-- groups), and with a worker as the consumer (a generic plan run with
-- parallel_leader_participation off).  A worker that starts after the
-- leader has read every block reads none, so the check that workers read
-- rows filters by arithmetic that the CPU evaluates row by row, which
-- gives them time to start.
CREATE TABLE cache_pr_big AS
  SELECT (g % 7)::int4 AS grp, ((g::int8 * 7919) % 100003) / 100003.0::float8 AS x,
         CASE WHEN g % 1000 = 0 THEN NULL ELSE g % 5 END AS y
  FROM generate_series(1, 1000003) g;
ALTER TABLE cache_pr_big SET (parallel_workers = 2);
VACUUM ANALYZE cache_pr_big;
SELECT gpusel_cache('cache_pr_big');
CREATE FUNCTION cache_pr_workers_read(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  line text;
  n bigint := 0;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Rows Read By Workers:' THEN n := substring(line from ': (\d+)')::bigint; END IF;
  END LOOP;
  RETURN n;
END $$;
SELECT * FROM cache_pr_plan('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_big GROUP BY grp');
SELECT max(cache_pr_workers_read('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_big
  WHERE x * x + y > -1 AND x * 7 > -5 AND x - y < 100 GROUP BY grp')) > 0 AS workers_read
  FROM generate_series(1, 6);
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY x), count(*), avg(y) FROM cache_pr_big GROUP BY grp',
  'SELECT percentile_cont(0.37) WITHIN GROUP (ORDER BY x DESC), percentile_disc(0.5) WITHIN GROUP (ORDER BY y), count(y) FROM cache_pr_big',
  'SELECT y, percentile_cont(ARRAY[0, 0.25, 1]) WITHIN GROUP (ORDER BY x) FROM cache_pr_big WHERE x < 0.7 GROUP BY y',
  'SELECT grp, percentile_disc(ARRAY[0.05, 0.95]) WITHIN GROUP (ORDER BY x DESC), sum(y) FROM cache_pr_big WHERE x * x + y > 0.5 AND x * 7 > -5 GROUP BY grp']);
SET plan_cache_mode = force_generic_plan;
PREPARE cache_pr_p(float8) AS
  SELECT grp, percentile_disc(ARRAY[0.2, 0.8]) WITHIN GROUP (ORDER BY x) AS p FROM cache_pr_big WHERE x > $1 GROUP BY grp;
CREATE TEMP TABLE cache_pr_leader AS EXECUTE cache_pr_p(0.1);
SET parallel_leader_participation = off;
CREATE TEMP TABLE cache_pr_worker AS EXECUTE cache_pr_p(0.1);
RESET parallel_leader_participation;
RESET plan_cache_mode;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE l.p = e.p) AS same_with_the_leader_consuming,
       count(*) FILTER (WHERE w.p = e.p) AS same_with_a_worker_consuming
  FROM (SELECT grp, percentile_disc(ARRAY[0.2, 0.8]) WITHIN GROUP (ORDER BY x) AS p FROM cache_pr_big WHERE x > 0.1 GROUP BY grp) e
  JOIN cache_pr_leader l USING (grp) JOIN cache_pr_worker w USING (grp);
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
DEALLOCATE cache_pr_p;
DROP TABLE cache_pr_leader, cache_pr_worker;
SELECT gpusel_uncache('cache_pr_big');
DROP TABLE cache_pr_big;
DROP FUNCTION cache_pr_workers_read(text);

-- rows written since the build come from the heap, in both rounds
UPDATE cache_pr_t SET x = -x, grp = grp + 1 WHERE id % 10 = 3 AND id < 60000;
DELETE FROM cache_pr_t WHERE id % 10 = 4 AND id > 120000;
INSERT INTO cache_pr_t (id, grp, x, s, tag) SELECT g, g % 17, g / 1000.0, g, 'new' FROM generate_series(300000, 315000) g;
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pr_t GROUP BY grp',
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s), sum(i8) FROM cache_pr_t',
  'SELECT tag, percentile_disc(0.25) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY tag']);
SELECT * FROM cache_pr_plan('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp');
-- the oracle reads a zero's sign as the same; where every zero a group
-- keeps is -0 (the zeros the UPDATE negated: every other zero is +0),
-- PostgreSQL returns -0 and so must the rounds: the text itself, beside
-- PostgreSQL's
SELECT * FROM cache_pr_plan('SELECT grp, percentile_disc(1) WITHIN GROUP (ORDER BY x) FROM cache_pr_t
  WHERE x <= 0 AND NOT (x = 0 AND NOT (id % 10 = 3 AND id < 60000)) GROUP BY grp');
CREATE TEMP TABLE cache_pr_signs AS
  SELECT grp, percentile_disc(1) WITHIN GROUP (ORDER BY x)::text AS p FROM cache_pr_t
  WHERE x <= 0 AND NOT (x = 0 AND NOT (id % 10 = 3 AND id < 60000)) GROUP BY grp;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE g.p = '-0') AS negative_zeros,
       count(*) FILTER (WHERE g.p = e.p) AS same_text
  FROM cache_pr_signs g
  JOIN (SELECT grp, percentile_disc(1) WITHIN GROUP (ORDER BY x)::text AS p FROM cache_pr_t
        WHERE x <= 0 AND NOT (x = 0 AND NOT (id % 10 = 3 AND id < 60000)) GROUP BY grp) e
  ON g.grp IS NOT DISTINCT FROM e.grp;
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
DROP TABLE cache_pr_signs;

-- off: every key crosses to the leader, which spills; the planner then
-- prefers reading the cache twice serially, unless pages cost nothing
SET gpusel.enable_parallel_second_pass = off;
SELECT * FROM cache_pr_plan('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp');
SET seq_page_cost = 0;
SELECT * FROM cache_pr_plan('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pr_t GROUP BY grp');
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pr_t GROUP BY grp']);
RESET seq_page_cost;
RESET gpusel.enable_parallel_second_pass;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;

SELECT gpusel_uncache('cache_pr_t');
DROP TABLE cache_pr_t;
DROP TABLE cache_pr_shapes;
DROP FUNCTION cache_pr_plan(text);
DROP FUNCTION cache_same_as_postgres(text[]);
DROP FUNCTION cache_zero_unsigned(text);
