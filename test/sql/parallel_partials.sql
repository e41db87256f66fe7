--
-- Parallel workers whose percentile keys fill their chunks send partial
-- aggregates while they still read.
--
\i test/sql/parallel_setup.sql
RESET gpusel.force_groupagg;
RESET cpu_operator_cost;
RESET work_mem;

--
-- A worker whose percentile keys fill two chunks (about 123,000 float8
-- keys for a one-column scan) sends its partial aggregate and starts a new
-- one while it still reads: 1,000,003 rows over 5 processes make more
-- than one part each, with and without GROUP BY.
-- NULLs, NaN and the infinities among them; no -0 (which zero comes out is
-- up to the order, in PostgreSQL too).
--
CREATE TABLE pa_keys AS
SELECT CASE WHEN g % 101 = 0 THEN NULL
            WHEN g % 997 = 0 THEN 'NaN'::float8
            WHEN g % 991 = 0 THEN '-Infinity'::float8
            WHEN g % 983 = 0 THEN 'Infinity'::float8
            ELSE ((g::int8 * 7919) % 200003 - 100001) * 0.25 END AS x,
       (g % 5000)::int4 AS i
FROM generate_series(1, 1000003) g;
ANALYZE pa_keys;
SELECT * FROM pa_check($$SELECT gpu_percentile(ARRAY[0, 0.001, 0.25, 0.5, 0.75, 0.999, 1]) WITHIN GROUP (ORDER BY x) AS p
  FROM pa_keys$$, 0);
SELECT * FROM pa_check($$SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x DESC) AS p,
  gpu_percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY i) AS pc, count(x) AS c, sum(i) AS s
  FROM pa_keys WHERE i < 4000$$, 0);
SELECT * FROM pa_check($$SELECT i % 7 AS g, gpu_percentile(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS p,
  count(*) AS c, max(x) AS mx, sum(i) AS s, avg(i) AS a FROM pa_keys GROUP BY i % 7$$);

DROP TABLE pa_keys;
\i test/sql/parallel_teardown.sql
