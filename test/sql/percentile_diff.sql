-- Differential tests: gpu_percentile against percentile_disc and
-- gpu_percentile_cont against percentile_cont on generated data, for every
-- type family, distribution and size.  Each line counts the groups where
-- gpusel and PostgreSQL disagree: every count must be 0.  The same file runs
-- on the CPU path (CI) and, with gpusel.device = gpu, on the GPU.
SET extra_float_digits = 0;
-- the reference is PostgreSQL's own aggregate, never gpusel answering it
SET gpusel.replace_builtin_percentiles = off;
SELECT setseed(0.4242);

CREATE TABLE cases (cid serial, dist text, n int);
INSERT INTO cases (dist, n)
SELECT d, n
FROM unnest(ARRAY['uniform', 'equal', 'two', 'sorted', 'reverse', 'dups', 'nulls', 'special']) d,
     unnest(ARRAY[1, 2, 31, 32, 33, 1023, 1024, 1025, 70001]) n;

-- base values as float8, in insertion order (sorted stays sorted)
CREATE TABLE base AS
SELECT c.cid, c.dist, i,
       CASE c.dist
         WHEN 'uniform' THEN random() * 2e6 - 1e6
         WHEN 'equal' THEN 7
         WHEN 'two' THEN CASE WHEN random() < 0.5 THEN -3 ELSE 5 END
         WHEN 'sorted' THEN i
         WHEN 'reverse' THEN -i
         WHEN 'dups' THEN floor(random() * 16) - 8
         WHEN 'nulls' THEN CASE WHEN random() < 0.3 THEN NULL ELSE random() * 1000 END
         WHEN 'special' THEN (ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', '1.5', '-2.5', NULL,
                                    '1e308', '-1e-308'])[1 + floor(random() * 10)::int]::float8
       END AS v
FROM cases c, generate_series(1, c.n) i
ORDER BY c.cid, i;

CREATE TABLE t_int2 AS SELECT cid, (v / 100)::int2 AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_int4 AS SELECT cid, v::int4 AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_int8 AS SELECT cid, (v * 1e9)::int8 AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_float4 AS SELECT cid, v::float4 AS x FROM base
  WHERE v IS NULL OR v = 0 OR v = 'NaN' OR abs(v) = 'Infinity' OR abs(v) BETWEEN 1e-30 AND 1e30;
CREATE TABLE t_float8 AS SELECT cid, v AS x FROM base;
CREATE TABLE t_date AS SELECT cid, date '2000-01-01' + (v / 100)::int AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_timestamp AS SELECT cid, timestamp '2000-01-01' + v * interval '1 second' AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_timestamptz AS SELECT cid, timestamptz '2000-01-01 00:00+00' + v * interval '1 second' AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_numeric AS SELECT cid, v::numeric AS x FROM base WHERE dist <> 'special';
CREATE TABLE t_text AS SELECT cid, v::text AS x FROM base;
CREATE TABLE t_interval AS SELECT cid, v * interval '1 minute' AS x FROM base WHERE dist <> 'special';

-- one comparison over a table :tbl, shared by every type
\set compare 'SELECT :''tbl'' AS tbl, count(*) AS groups, count(*) FILTER (WHERE g0 IS DISTINCT FROM p0 OR g1 IS DISTINCT FROM p1 OR g5 IS DISTINCT FROM p5) AS single_bad, count(*) FILTER (WHERE ga IS DISTINCT FROM pa) AS array_bad, count(*) FILTER (WHERE gd IS DISTINCT FROM pd) AS desc_bad FROM (SELECT cid, gpu_percentile(0) WITHIN GROUP (ORDER BY x) g0, percentile_disc(0) WITHIN GROUP (ORDER BY x) p0, gpu_percentile(1) WITHIN GROUP (ORDER BY x) g1, percentile_disc(1) WITHIN GROUP (ORDER BY x) p1, gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) g5, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) p5, gpu_percentile(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x) ga, percentile_disc(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x) pa, gpu_percentile(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x DESC) gd, percentile_disc(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x DESC) pd FROM ' :tbl ' GROUP BY cid) s;'
\set fractions '{0, 0.001, 0.1, 0.25, 0.3333333333333333, 0.5, 0.75, 0.9, 0.999, 1, NULL, 0.03125, 0.0009765625}'

\set tbl t_int2
:compare
\set tbl t_int4
:compare
\set tbl t_int8
:compare
\set tbl t_float4
:compare
\set tbl t_float8
:compare
\set tbl t_date
:compare
\set tbl t_timestamp
:compare
\set tbl t_timestamptz
:compare
\set tbl t_numeric
:compare
\set tbl t_text
:compare
\set tbl t_interval
:compare

-- percentile_cont on float8 and interval
\set cont 'SELECT :''tbl'' AS tbl, count(*) AS groups, count(*) FILTER (WHERE g5 IS DISTINCT FROM p5 OR g3 IS DISTINCT FROM p3) AS single_bad, count(*) FILTER (WHERE ga IS DISTINCT FROM pa) AS array_bad, count(*) FILTER (WHERE gd IS DISTINCT FROM pd) AS desc_bad FROM (SELECT cid, gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY x) g5, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) p5, gpu_percentile_cont(0.3) WITHIN GROUP (ORDER BY x) g3, percentile_cont(0.3) WITHIN GROUP (ORDER BY x) p3, gpu_percentile_cont(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x) ga, percentile_cont(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x) pa, gpu_percentile_cont(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x DESC) gd, percentile_cont(:''fractions''::float8[]) WITHIN GROUP (ORDER BY x DESC) pd FROM ' :tbl ' GROUP BY cid) s;'
\set tbl t_float8
:cont
\set tbl t_interval
:cont

-- thousands of fractions: ranks so dense that the CPU sorts a group's keys
-- instead of selecting each rank (groups of 1,023 keys and more; 4- and
-- 8-byte keys), and under a small work_mem selects them again
SELECT '{' || string_agg((i / 1999.0)::text, ',') || ', NULL, 0.5}' AS fractions
FROM generate_series(0, 1999) i \gset
\set tbl t_int4
:compare
\set tbl t_int8
:compare
\set tbl t_float4
:compare
\set tbl t_float8
:compare
\set tbl t_date
:compare
\set tbl t_timestamp
:compare
\set tbl t_float8
:cont
SET work_mem = '64kB';
\set tbl t_float8
:compare
RESET work_mem;
\set fractions '{0, 0.001, 0.1, 0.25, 0.3333333333333333, 0.5, 0.75, 0.9, 0.999, 1, NULL, 0.03125, 0.0009765625}'

-- past work_mem: keys spill to a temporary file and selection streams over it
SET work_mem = '64kB';
\set tbl t_int8
:compare
\set tbl t_float8
:compare
\set tbl t_float4
:compare
\set tbl t_text
:compare
RESET work_mem;

-- the whole table as one group, larger than a staging chunk
SELECT count(*) AS rows,
       gpu_percentile(:'fractions'::float8[]) WITHIN GROUP (ORDER BY x)
         IS NOT DISTINCT FROM percentile_disc(:'fractions'::float8[]) WITHIN GROUP (ORDER BY x) AS same
FROM t_float8;

DROP TABLE cases, base, t_int2, t_int4, t_int8, t_float4, t_float8, t_date, t_timestamp,
  t_timestamptz, t_numeric, t_text, t_interval;
