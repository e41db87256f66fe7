-- Two rounds under Gather over a cached table when the planner expects far
-- fewer groups than the rows hold (a column's n_distinct set too low): each
-- process counts by bucket only the groups whose counts fit the memory of a
-- hash table (at least twice the groups expected) and reads the others'
-- keys whole, so its memory stays bounded instead of growing by the
-- buckets' counts of every group.  Every answer is compared with
-- PostgreSQL's: groups counted in one process and read whole in another,
-- NULLs, NaN, -0, the infinities, DESC, two collections, a NULL fraction
-- (no rank read), and a worker as the consumer.  Needs gpusel preloaded
-- (the alternative output, cache_percentile_rounds_groups_1.out, has none
-- of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif
\i test/sql/cache_oracle.sql

SET gpusel.device = cpu;
SET gpusel.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
-- 20,011 groups of about 40 keys, met in a different order by each process
CREATE TABLE cache_prg_t AS
  SELECT i::int8 AS id,
         ((i::int8 * 7919) % 20011)::int4 AS g,
         CASE WHEN i % 97 = 0 THEN 'NaN' WHEN i % 89 = 0 THEN '-0' WHEN i % 83 = 0 THEN '0'
              WHEN i % 79 = 0 THEN NULL WHEN i % 73 = 0 THEN 'Infinity'
              WHEN i % 71 = 0 THEN '-Infinity'
              ELSE ((i::int8 * 104729) % 1000003) / 1000003.0 - 0.5 END::float8 AS x,
         CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 31) % 1009 END::int4 AS y
  FROM generate_series(1, 800003) i;
ALTER TABLE cache_prg_t ALTER COLUMN g SET (n_distinct = 20);
ALTER TABLE cache_prg_t SET (parallel_workers = 2);
VACUUM ANALYZE cache_prg_t;
SELECT gpusel_cache('cache_prg_t');

-- EXPLAIN ANALYZE: under Gather, read twice, rows read by workers, groups
-- read whole, memory
CREATE FUNCTION cache_prg_explain(q text)
  RETURNS TABLE (gather boolean, passes int, workers_read bigint, read_whole bigint, peak_kb bigint)
  LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  gather := false; passes := 0; workers_read := 0; read_whole := 0; peak_kb := 0;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Gather' THEN gather := true; END IF;
    IF line ~ 'Percentile Second Passes:' THEN passes := substring(line from ': (\d+)')::int; END IF;
    IF line ~ 'Rows Read By Workers:' THEN workers_read := substring(line from ': (\d+)')::bigint; END IF;
    IF line ~ 'Percentile Groups Read Whole:' THEN read_whole := substring(line from ': (\d+)')::bigint; END IF;
    IF line ~ 'Peak Memory Usage:' THEN peak_kb := substring(line from ': (\d+)')::bigint; END IF;
  END LOOP;
  RETURN NEXT;
END $$;

SET work_mem = '64kB';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
-- the plan expects 20 groups; the scan meets 20,011 and reads most whole.
-- Counting every group by bucket took 20 MB and more in each process;
-- within the bound, the leader's memory is its groups' (about 6 MB).  The
-- arithmetic filter, which the CPU evaluates row by row, gives the
-- workers time to start before the leader has read every block.
SELECT gather, passes, max(workers_read) > 0 AS workers_read, min(read_whole) > 10000 AS read_whole,
       max(peak_kb) < 12288 AS bounded
  FROM generate_series(1, 6),
       cache_prg_explain('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM cache_prg_t
                          WHERE x * x + y > -1 AND x * 7 > -5 AND x - y < 100 GROUP BY g')
  GROUP BY gather, passes;
SELECT * FROM cache_same_as_postgres(ARRAY[
  'SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*) FROM cache_prg_t GROUP BY g',
  'SELECT g, percentile_cont(ARRAY[0, 0.25, 0.9, 1]) WITHIN GROUP (ORDER BY x), avg(y) FROM cache_prg_t
     WHERE x * x + y > -1 AND x * 7 > -5 GROUP BY g',
  'SELECT g, percentile_disc(0.3) WITHIN GROUP (ORDER BY x DESC), percentile_cont(0.7) WITHIN GROUP (ORDER BY y)
     FROM cache_prg_t GROUP BY g',
  'SELECT g, percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x),
     count(x) FROM cache_prg_t GROUP BY g',
  'SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM cache_prg_t WHERE g % 3 = 1 GROUP BY g']);

-- a worker as the consumer: a generic plan run with parallel_leader_participation off
SET plan_cache_mode = force_generic_plan;
PREPARE cache_prg_p(float8) AS
  SELECT g, percentile_disc(ARRAY[0.2, 0.8]) WITHIN GROUP (ORDER BY x) AS p FROM cache_prg_t
  WHERE x > $1 GROUP BY g;
SET parallel_leader_participation = off;
CREATE TEMP TABLE cache_prg_worker AS EXECUTE cache_prg_p(-0.25);
RESET parallel_leader_participation;
RESET plan_cache_mode;
SET gpusel.enable_scan = off;
SET gpusel.enable_groupagg = off;
SET gpusel.replace_builtin_percentiles = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE w.p IS NOT DISTINCT FROM e.p) AS same
  FROM (SELECT g, percentile_disc(ARRAY[0.2, 0.8]) WITHIN GROUP (ORDER BY x) AS p FROM cache_prg_t
        WHERE x > -0.25 GROUP BY g) e
  FULL JOIN cache_prg_worker w USING (g);
RESET gpusel.enable_scan;
RESET gpusel.enable_groupagg;
RESET gpusel.replace_builtin_percentiles;
DEALLOCATE cache_prg_p;
DROP TABLE cache_prg_worker;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;
RESET work_mem;
SELECT gpusel_uncache('cache_prg_t');
DROP TABLE cache_prg_t;
DROP FUNCTION cache_prg_explain(text);
DROP FUNCTION cache_same_as_postgres(text[]);
DROP FUNCTION cache_zero_unsigned(text);
