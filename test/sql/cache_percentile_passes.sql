-- Percentile keys past work_mem over a cached table, on the CPU: the scan
-- counts the keys by bucket and reads the cache a second time, keeping only
-- the buckets that hold the ranks, instead of spilling every key.  Every
-- shape is compared with PostgreSQL's answer, over NULLs, NaN, -0 and +0,
-- the infinities, duplicates, all-equal keys, keys sorted as the table is
-- (a poor sample), groups first met after the counting began, and
-- aggregates beside the percentiles (which the second pass must not count
-- again).  Needs gpusel preloaded (the alternative output,
-- cache_percentile_passes_1.out, has none of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif
\i test/sql/cache_oracle.sql

SET max_parallel_workers_per_gather = 0;
SET gpusel.device = cpu;
SET gpusel.min_rows = 0;
CREATE TABLE cache_pp_t (id int8, grp int4, late int4, x float8, s float8, c int4, f float4,
                         d date, ts timestamp, i8 int8, sparse int4);
INSERT INTO cache_pp_t
SELECT g,
       CASE WHEN g % 101 = 0 THEN NULL ELSE g % 17 END,
       CASE WHEN g > 50000 THEN 100 + g % 7 ELSE g % 5 END,
       CASE WHEN g % 97 = 0 THEN 'NaN' WHEN g % 89 = 0 THEN '-0' WHEN g % 83 = 0 THEN '0'
            WHEN g % 79 = 0 THEN NULL WHEN g % 73 = 0 THEN 'Infinity' WHEN g % 71 = 0 THEN '-Infinity'
            ELSE ((g * 7919) % 10007) / 10007.0 - 0.5 END,
       g / 3,
       7,
       ((g * 31) % 1009) / 4.0,
       date '2001-01-01' + (g * 13) % 5000,
       timestamp '2020-01-01' + ((g * 17) % 100000) * interval '1 minute',
       (g::int8 * 1000003) % 999983 - 500000,
       CASE WHEN g % 100 = 0 THEN g % 13 END
FROM generate_series(1, 60013) g;
VACUUM ANALYZE cache_pp_t;
SELECT gpusel_cache('cache_pp_t');

-- the second pass as EXPLAIN ANALYZE reports it: passes, and whether the
-- keys kept are far fewer than the rows (with work_mem at its least, a
-- group's sample of held keys is small, and so are its buckets' number)
CREATE FUNCTION cache_pp_passes(q text) RETURNS TABLE (passes text, few_kept boolean, spilled boolean)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  passes := '0'; few_kept := NULL; spilled := false;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Percentile Second Passes:' THEN passes := substring(line from ': (\d+)'); END IF;
    IF line ~ 'Percentile Keys Kept:' THEN few_kept := substring(line from ': (\d+)')::int8 < 15000; END IF;
    IF line ~ 'Percentile Keys Spilled:' THEN spilled := true; END IF;
  END LOOP;
  RETURN NEXT;
END $$;

-- EXPLAIN ANALYZE's lines
CREATE FUNCTION cache_pp_plan(q text) RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;

SET work_mem = '64kB';
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0, 0.5, 0.9, 0.99, 1]) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp',
  'SELECT grp, percentile_cont(ARRAY[0.1, 0.5, 0.95]) WITHIN GROUP (ORDER BY x DESC) FROM cache_pp_t WHERE d > date ''2003-01-01'' GROUP BY grp',
  'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*), avg(i8), min(x), max(x) FROM cache_pp_t WHERE i8 > -400000',
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY s), percentile_cont(0.99) WITHIN GROUP (ORDER BY s) FROM cache_pp_t GROUP BY grp',
  'SELECT percentile_disc(ARRAY[0.001, 0.5, 0.999]) WITHIN GROUP (ORDER BY s) FROM cache_pp_t',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY c), percentile_cont(0.3) WITHIN GROUP (ORDER BY c) FROM cache_pp_t GROUP BY grp',
  'SELECT late, percentile_disc(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pp_t GROUP BY late',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY f), percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM cache_pp_t GROUP BY grp',
  'SELECT grp % 3, percentile_disc(0.9) WITHIN GROUP (ORDER BY d), percentile_disc(0.1) WITHIN GROUP (ORDER BY ts) FROM cache_pp_t GROUP BY 1',
  'SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY i8), count(*), sum(i8), min(d), max(ts), avg(x) FROM cache_pp_t GROUP BY grp',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY sparse), count(sparse) FROM cache_pp_t GROUP BY grp',
  'SELECT id % 1000, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY 1',
  'SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t WHERE x > 2 GROUP BY grp']);
-- hundreds of fractions a group, with repeats and NULL: the results read
-- many picked positions a group, ascending
SELECT r.* FROM (SELECT '{' || string_agg((i / 257.0)::text, ',') || ',0.5,0.5,NULL}' AS f
                 FROM generate_series(0, 257) i) s,
  cache_same_as_postgres(ARRAY[
    format('SELECT grp, percentile_disc(%L::float8[]) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp', f),
    format('SELECT grp, percentile_cont(%L::float8[]) WITHIN GROUP (ORDER BY x DESC) FROM cache_pp_t GROUP BY grp', f),
    format('SELECT percentile_disc(%L::float8[]) WITHIN GROUP (ORDER BY i8) FROM cache_pp_t', f)]) r;
-- read twice, few keys kept
SELECT * FROM cache_pp_passes('SELECT grp, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp');
SELECT * FROM cache_pp_passes('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pp_t');
-- keys sorted as the table is: the sample misses, more is kept, the answer is the same (above)
SELECT passes FROM cache_pp_passes('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY s) FROM cache_pp_t');

-- rows written since the build come from the heap, in both passes
UPDATE cache_pp_t SET x = -x, grp = grp + 1 WHERE id % 10 = 3 AND id < 20000;
DELETE FROM cache_pp_t WHERE id % 10 = 4 AND id > 40000;
INSERT INTO cache_pp_t (id, grp, x, s) SELECT g, g % 17, g / 1000.0, g FROM generate_series(70000, 75000) g;
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pp_t GROUP BY grp',
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s), sum(i8) FROM cache_pp_t']);
SELECT regexp_replace(line, 'Heap: [1-9][0-9]*', 'Heap: some') AS line
  FROM cache_pp_plan('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp')
  WHERE line ~ 'Second Passes|Source|Blocks From Heap';
-- a transaction's own writes: the heap is read, once
BEGIN;
UPDATE cache_pp_t SET x = x + 1 WHERE id % 7 = 0;
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pp_t GROUP BY grp']);
SELECT passes FROM cache_pp_passes('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp');
ROLLBACK;

-- within work_mem: one pass
RESET work_mem;
SELECT * FROM cache_pp_passes('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp');
-- under Gather every process reads its blocks twice too
-- (cache_percentile_rounds.sql), and the planner takes the Gather
SET work_mem = '64kB';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
CREATE FUNCTION cache_pp_gather(q text) RETURNS TABLE (gather boolean, passes text) LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM cache_pp_plan(q) WHERE line ~ 'Gather') > 0, (SELECT passes FROM cache_pp_passes(q))
$$;
SELECT * FROM cache_pp_gather('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp');
SET seq_page_cost = 0;
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT grp, percentile_disc(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY x), count(*) FROM cache_pp_t GROUP BY grp']);
SELECT * FROM cache_pp_gather('SELECT grp, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_pp_t GROUP BY grp');
RESET seq_page_cost;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;

SELECT gpusel_uncache('cache_pp_t');
DROP TABLE cache_pp_t;
DROP FUNCTION cache_pp_passes(text);
DROP FUNCTION cache_pp_gather(text);
DROP FUNCTION cache_pp_plan(text);
DROP FUNCTION cache_same_as_postgres(text[]);
DROP FUNCTION cache_zero_unsigned(text);
