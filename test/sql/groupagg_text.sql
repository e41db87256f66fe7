--
-- Text group keys of the grouped scan (types/form_text_dict.c): text,
-- varchar and char(n) columns numbered by a dictionary, differentially against
-- PostgreSQL untouched: oracle_check(query, nkeys) of oracle_functions.sql
-- runs a query as the oracle, then with gpusel, and shows the plan kind
-- gpusel's run had, the oracle's rows and the rows that do not match (0).
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET extra_float_digits = 1;

\i test/sql/oracle_functions.sql

--
-- NULL keys, the empty string, values that differ only in trailing spaces
-- (distinct as text and varchar, equal as char(n)), multibyte characters,
-- compressed values of 4,000 bytes, and a group (k = 7) whose inputs are
-- all NULL.
--
CREATE TABLE tk (id int4, t text, v varchar(12), c char(10), k int4, x float8, n numeric(12,2));
INSERT INTO tk
SELECT id,
       CASE WHEN id % 17 = 0 THEN NULL WHEN id % 23 = 0 THEN '' ELSE 'grp ' || (id % 41) END,
       CASE WHEN id % 19 = 0 THEN NULL ELSE 'é' || (id % 7) || repeat(' ', id % 3) END,
       CASE WHEN id % 29 = 0 THEN NULL ELSE 'c' || (id % 5) || repeat(' ', id % 4) END,
       id % 3,
       CASE WHEN id % 31 = 0 THEN NULL ELSE (id % 1000) * 0.25 END,
       id * 0.01
FROM generate_series(1, 5003) id;
INSERT INTO tk (id, t, v, c, k, x)
SELECT 6000 + g, repeat('long', 1000) || (g % 2), 'v', 'c', 7, NULL FROM generate_series(1, 6) g;
ANALYZE tk;

-- the plans: one grouped scan, with a device qual where there is one
EXPLAIN (COSTS OFF) SELECT t, count(*), avg(x) FROM tk GROUP BY t;
EXPLAIN (COSTS OFF) SELECT c, v, k, count(*) FROM tk WHERE x > 100 GROUP BY c, v, k;

SELECT * FROM oracle_check($$SELECT t, count(*) AS c, count(x) AS cx, sum(k) AS s, avg(x) AS a,
  min(x) AS mn, max(n) AS mx, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS p,
  percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC) AS pc FROM tk GROUP BY t$$);
SELECT * FROM oracle_check($$SELECT v, count(*) AS c, sum(n) AS s, percentile_disc(0.5) WITHIN GROUP (ORDER BY id) AS p
  FROM tk GROUP BY v$$);
-- char(n): the group's value comes back padded as stored
SELECT * FROM oracle_check($$SELECT c, octet_length(c) AS oc, count(*) AS cnt, avg(x) AS a FROM tk GROUP BY c$$);
SELECT c, octet_length(c), count(*) FROM tk GROUP BY c ORDER BY c;
-- several keys, text beside int4, with device quals, HAVING and an expression of the keys
SELECT * FROM oracle_check($$SELECT t, k, c, count(*) AS cnt, sum(x) AS s FROM tk WHERE x > 100 GROUP BY t, k, c$$, 3);
SELECT * FROM oracle_check($$SELECT v, k, length(v) AS len, count(*) AS cnt FROM tk GROUP BY v, k
  HAVING count(*) > 100 AND max(x) > 10$$, 2);
SELECT * FROM oracle_check($$SELECT t, gpu_percentile(0.9) WITHIN GROUP (ORDER BY x) AS p FROM tk
  WHERE k = 1 AND x < 200 GROUP BY t$$);
-- the key not in the target list, and no row at all
SELECT * FROM oracle_check($$SELECT count(*) AS cnt, sum(x) AS s FROM tk GROUP BY t$$, 0);
SET gpusel.force_groupagg = on;
SELECT * FROM oracle_check($$SELECT t, count(*) AS cnt FROM tk WHERE x < -1 GROUP BY t$$);
RESET gpusel.force_groupagg;
-- rows across many batches
SET gpusel.batch_rows = 1024;
SELECT * FROM oracle_check($$SELECT t, v, count(*) AS cnt, avg(x) AS a FROM tk GROUP BY t, v$$, 2);
RESET gpusel.batch_rows;

--
-- 100,000 groups: the dictionary grows many times
--
CREATE TABLE tk_many AS
SELECT g AS id, md5((g % 100000)::text) AS t, (g % 1000)::float8 AS x FROM generate_series(1, 230001) g;
ANALYZE tk_many;
-- work_mem x hash_mem_multiplier holds the estimate of 100,000 groups
SET work_mem = '64MB';
SELECT * FROM oracle_check($$SELECT t, count(*) AS c, sum(x) AS s, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS p
  FROM tk_many GROUP BY t$$);
RESET work_mem;

--
-- Under Gather each worker's dictionary crosses to the leader before its
-- groups (parallel_dict_keys.sql tests more); PostgreSQL's own grouping is
-- left out, as its Partial Aggregate would be cheaper here; work_mem holds
-- the estimate of groups.
--
SET gpusel.force_groupagg = on;
SET work_mem = '64MB';
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT t, count(*) FROM tk_many GROUP BY t$$) LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather;
SELECT total_rows, mismatches FROM oracle_check($$SELECT t, count(*) AS c, max(x) AS m FROM tk_many GROUP BY t$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpusel.force_groupagg;
RESET work_mem;
SET max_parallel_workers_per_gather = 0;

--
-- Left to PostgreSQL: a nondeterministic collation (equal values with
-- other bytes), char without a length (equal values that differ in
-- trailing spaces), a key expression.  Same answers.
--
CREATE COLLATION tk_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE tk_other (t text COLLATE tk_nocase, b bpchar, x float8);
INSERT INTO tk_other SELECT CASE WHEN g % 2 = 0 THEN 'Abc' ELSE 'aBC' END,
  CASE WHEN g % 3 = 0 THEN 'z' ELSE 'z  ' END, g FROM generate_series(1, 300) g;
ANALYZE tk_other;
SELECT oracle_plan_kind(oracle_explain($$SELECT t, count(*) FROM tk_other GROUP BY t$$)) AS nondeterministic,
       oracle_plan_kind(oracle_explain($$SELECT b, count(*) FROM tk_other GROUP BY b$$)) AS unbounded_bpchar,
       oracle_plan_kind(oracle_explain($$SELECT lower(t), count(*) FROM tk GROUP BY 1$$)) AS expression;
SELECT * FROM oracle_check($$SELECT count(*) AS c, sum(x) AS s FROM tk_other GROUP BY t$$, 0);
SELECT * FROM oracle_check($$SELECT octet_length(b) AS ob, count(*) AS c FROM tk_other GROUP BY b$$, 0);
SELECT * FROM oracle_check($$SELECT lower(t) AS l, count(*) AS c FROM tk GROUP BY 1$$);

DROP TABLE tk, tk_many, tk_other;
DROP COLLATION tk_nocase;
