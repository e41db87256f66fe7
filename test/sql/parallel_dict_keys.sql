--
-- Group keys numbered by a dictionary (text, varchar, char(n) and uuid)
-- in the grouped scan, serially and under Gather: each worker numbers the
-- values it reads in its own dictionary and sends the dictionary before its
-- groups; the consumer numbers those values in its own.  Every answer is
-- compared with PostgreSQL's (pa_check, parallel_setup.sql).
--
\i test/sql/parallel_setup.sql

-- 200,003 rows: 700 names, a few long ones (20,000 bytes: a value longer
-- than one of the feed's pieces of a dictionary must cross whole), names
-- that differ only in trailing spaces (different text, equal char(n)),
-- empty strings, NULLs; uuids of 5,000 values and NULLs.
CREATE TABLE pa_dict (id int4, t text, v varchar(10), c char(12), c40 char(40), u uuid,
                      x float8, k int4);
INSERT INTO pa_dict (id, t, v, c, u, x, k)
SELECT g,
       CASE WHEN g % 97 = 0 THEN NULL
            WHEN g % 89 = 0 THEN ''
            WHEN g % 1009 = 0 THEN repeat('long name ' || (g % 3), 2000)
            WHEN g % 3 = 0 THEN 'name ' || (g % 350) || '  '
            ELSE 'name ' || (g % 350) END,
       CASE WHEN g % 101 = 0 THEN NULL ELSE 'v' || (g % 40) END,
       CASE WHEN g % 103 = 0 THEN NULL ELSE 'c' || (g % 30) END,
       CASE WHEN g % 107 = 0 THEN NULL ELSE md5((g % 5000)::text)::uuid END,
       CASE WHEN g % 53 = 0 THEN NULL ELSE ((g * 7919) % 100003) * 0.5 END,
       g % 13
FROM generate_series(1, 200003) g;
-- char(40): values that differ only in trailing spaces are one group
UPDATE pa_dict SET c40 = left(t, 40);
VACUUM ANALYZE pa_dict;

-- under Gather: the plan must be the parallel grouped scan
SELECT * FROM pa_check($$SELECT t, count(*) AS n, sum(k) AS s,
  gpu_percentile(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS p FROM pa_dict GROUP BY t$$);
SELECT * FROM pa_check($$SELECT v, c, count(x) AS n,
  gpu_percentile_cont(0.9) WITHIN GROUP (ORDER BY x DESC) AS p FROM pa_dict GROUP BY v, c$$, 2);
SELECT * FROM pa_check($$SELECT u, count(*) AS n, min(x) AS lo, max(x) AS hi,
  gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS p FROM pa_dict GROUP BY u$$);
SELECT * FROM pa_check($$SELECT u, t, k, count(*) AS n FROM pa_dict WHERE x > 1000 GROUP BY u, t, k$$, 3);
-- char(n): equal values that differ in trailing spaces make one group, returned padded
SELECT * FROM pa_check($$SELECT c40, count(*) AS n FROM pa_dict GROUP BY c40$$);

-- small work_mem: workers send several partial aggregates, each with its
-- dictionary numbered anew
SET work_mem = '256kB';
SELECT * FROM pa_check($$SELECT t, count(*) AS n,
  gpu_percentile(0.25) WITHIN GROUP (ORDER BY x) AS p FROM pa_dict GROUP BY t$$);
RESET work_mem;

-- serially
SET max_parallel_workers_per_gather = 0;
SELECT * FROM pa_check($$SELECT t, u, count(*) AS n, sum(x) AS s FROM pa_dict GROUP BY t, u$$, 2);
SELECT * FROM pa_check($$SELECT c, v, count(*) AS n FROM pa_dict WHERE k > 3 GROUP BY c, v$$, 2);
RESET max_parallel_workers_per_gather;

-- EXPLAIN ANALYZE: every row reaches the groups from the batch's columns
SELECT line FROM pa_explain_analyze($$SELECT u, count(*) FROM pa_dict GROUP BY u$$) AS line
WHERE line ~ '(Gather|Parallel Custom Scan|Rows From Columns|Groups)';

DROP TABLE pa_dict;
\i test/sql/parallel_teardown.sql
