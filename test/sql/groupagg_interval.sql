--
-- interval as a percentile input of the grouped scan: values kept whole
-- (kept_values.c) and sorted per group by interval_cmp; percentile_cont
-- interpolates with interval_mi, interval_mul and interval_pl.  Every
-- answer is compared with PostgreSQL's (ga_check, groupagg_setup.sql):
-- first as intervals (interval equality: equal spans), then as text, on
-- data where no two different values share a span, so which of them comes
-- back cannot differ.
--
\i test/sql/groupagg_setup.sql
SET gpusel.force_groupagg = on;

-- 20,011 rows in 13 groups: months, days and microseconds mixed, negative
-- values, the extremes of interval's range, NULLs; group 100 holds one
-- row, group 101 only NULLs, group 102 one value many times, and group 103
-- values of equal spans written differently ('1 mon' and '30 days').
CREATE TABLE gi (k int4, i interval, j int4);
INSERT INTO gi
SELECT g % 10,
       CASE WHEN g % 37 = 0 THEN NULL
            WHEN g % 1009 = 0 THEN interval '178000000 years'
            WHEN g % 1013 = 0 THEN interval '-178000000 years'
            ELSE make_interval(months => (g * 7) % 25 - 12, days => (g * 13) % 61 - 30,
                               secs => ((g * 7919) % 100003) * 0.25 - 12000) END,
       g % 7
FROM generate_series(1, 20000) g;
INSERT INTO gi VALUES (100, interval '3 days 4 hours', 1);
INSERT INTO gi SELECT 101, NULL, g FROM generate_series(1, 5) g;
INSERT INTO gi SELECT 102, interval '-2 mons 1 day', g FROM generate_series(1, 5) g;
INSERT INTO gi VALUES (103, interval '1 mon', 1), (103, interval '30 days', 2), (103, interval '1 day', 3);
ANALYZE gi;

SELECT * FROM ga_check($$SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY i) AS p, count(i) AS n
  FROM gi WHERE k <> 103 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, percentile_disc(ARRAY[0, 0.01, 0.5, 0.99, 1]) WITHIN GROUP (ORDER BY i DESC) AS p
  FROM gi WHERE k <> 103 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, percentile_cont(0.37) WITHIN GROUP (ORDER BY i) AS p, sum(j) AS s
  FROM gi WHERE k <> 103 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT k, percentile_cont(ARRAY[0, 0.25, 0.5, 0.9, 1]) WITHIN GROUP (ORDER BY i DESC) AS p
  FROM gi WHERE k <> 103 GROUP BY k$$);
SELECT * FROM ga_check($$SELECT j, gpu_percentile(0.5) WITHIN GROUP (ORDER BY i) AS p,
  gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY i) AS c FROM gi WHERE k < 100 GROUP BY j$$);
-- no GROUP BY, and under a WHERE that keeps no row
SELECT * FROM ga_check($$SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) AS p,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY i) AS c FROM gi$$, 0);
SELECT * FROM ga_check($$SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) AS p FROM gi WHERE j > 100$$, 0);

-- group 103: equal spans written differently, compared by interval equality
CREATE TEMP TABLE gi_gpusel AS
SELECT percentile_disc(ARRAY[0, 0.5, 0.6, 1]) WITHIN GROUP (ORDER BY i) AS d,
       percentile_disc(ARRAY[0, 0.5, 0.6, 1]) WITHIN GROUP (ORDER BY i DESC) AS dd,
       percentile_cont(ARRAY[0.3, 0.5, 0.8]) WITHIN GROUP (ORDER BY i) AS c
FROM gi WHERE k = 103;
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
CREATE TEMP TABLE gi_pg AS
SELECT percentile_disc(ARRAY[0, 0.5, 0.6, 1]) WITHIN GROUP (ORDER BY i) AS d,
       percentile_disc(ARRAY[0, 0.5, 0.6, 1]) WITHIN GROUP (ORDER BY i DESC) AS dd,
       percentile_cont(ARRAY[0.3, 0.5, 0.8]) WITHIN GROUP (ORDER BY i) AS c
FROM gi WHERE k = 103;
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
SELECT g.d = p.d AS disc_equal, g.dd = p.dd AS disc_desc_equal, g.c = p.c AS cont_equal
FROM gi_gpusel g, gi_pg p;
DROP TABLE gi_gpusel, gi_pg;

-- as text, where spans are not shared
CREATE TEMP TABLE gi_gpusel AS
SELECT k, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY i)::text AS d,
       percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY i)::text AS c
FROM gi WHERE k <> 103 GROUP BY k;
SET gpusel.enable_scan = off;
SET gpusel.replace_builtin_percentiles = off;
CREATE TEMP TABLE gi_pg AS
SELECT k, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY i)::text AS d,
       percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY i)::text AS c
FROM gi WHERE k <> 103 GROUP BY k;
RESET gpusel.enable_scan;
RESET gpusel.replace_builtin_percentiles;
SELECT (SELECT count(*) FROM gi_pg) AS groups,
       (SELECT count(*) FROM (SELECT * FROM gi_gpusel EXCEPT ALL SELECT * FROM gi_pg) d) AS mismatches;
SELECT d, c FROM gi_gpusel WHERE k = 100;

-- the plan: gpusel's grouped scan, never under Gather (values are copied a row at a time)
SELECT ga_plan($$SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM gi GROUP BY k$$);

DROP TABLE gi;
\i test/sql/groupagg_teardown.sql
