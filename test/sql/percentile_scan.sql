-- gpu_percentile over a whole table, answered by the grouped scan with one
-- group (Custom Scan (GpuSelScan)) instead of an Aggregate: the same
-- answers as percentile_disc, every time.
LOAD 'gpusel';
SET extra_float_digits = 0;
-- the reference is PostgreSQL's own aggregate, never gpusel answering it
SET gpusel.replace_builtin_percentiles = off;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.25);
CREATE TABLE ps (id int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date, ts timestamp, t text);
INSERT INTO ps
SELECT g, (g % 300 - 150)::int2, CASE WHEN g % 17 = 0 THEN NULL ELSE (random() * 1e6)::int4 END,
       (random() * 1e15)::int8 - 5e14::int8, random()::float4,
       (ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0.5', NULL]::float8[])[1 + g % 6] * (CASE WHEN g % 7 = 0 THEN 1 ELSE random() END),
       date '2000-01-01' + g % 5000, timestamp '2000-01-01' + g * interval '1 minute', 'row ' || g
FROM generate_series(1, 70001) g;
ANALYZE ps;

EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i4) FROM ps;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT gpu_percentile(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY f8 DESC) FROM ps;

-- one query per column type, fraction form and order, each beside percentile_disc
\set fr '{0, 0.001, 0.25, 0.5, 0.9, 0.999, 1, NULL}'
SELECT (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY i2) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY i2) FROM ps) AS int2,
       (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY i4 DESC) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY i4 DESC) FROM ps) AS int4_desc,
       (SELECT gpu_percentile(0.3) WITHIN GROUP (ORDER BY i8) FROM ps)
       = (SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY i8) FROM ps) AS int8,
       (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY f4) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY f4) FROM ps) AS float4,
       (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY f8) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY f8) FROM ps) AS float8,
       (SELECT gpu_percentile(0.77) WITHIN GROUP (ORDER BY d DESC) FROM ps)
       = (SELECT percentile_disc(0.77) WITHIN GROUP (ORDER BY d DESC) FROM ps) AS date,
       (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY ts) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY ts) FROM ps) AS ts;

-- NaN above Infinity, and a NULL, a bad and an empty fraction
SELECT gpu_percentile(1) WITHIN GROUP (ORDER BY f8) FROM ps;
SELECT gpu_percentile(NULL::float8) WITHIN GROUP (ORDER BY f8) FROM ps;
SELECT gpu_percentile('{}'::float8[]) WITHIN GROUP (ORDER BY f8) FROM ps;
SELECT gpu_percentile(1.5) WITHIN GROUP (ORDER BY f8) FROM ps;

-- MVCC: deleted and updated rows, a column added later, a dropped column
DELETE FROM ps WHERE id % 3 = 0;
UPDATE ps SET i4 = -i4 WHERE id % 5 = 0;
ALTER TABLE ps ADD COLUMN late int4 DEFAULT 42;
INSERT INTO ps (id, late) SELECT g, g FROM generate_series(100001, 100100) g;
ALTER TABLE ps DROP COLUMN i2;
SELECT (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY i4) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY i4) FROM ps) AS after_dml,
       (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY late) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY late) FROM ps) AS added_column;

-- past work_mem the keys spill, and the answer stays exact
SET work_mem = '64kB';
SELECT (SELECT gpu_percentile(:'fr'::float8[]) WITHIN GROUP (ORDER BY i8) FROM ps)
       = (SELECT percentile_disc(:'fr'::float8[]) WITHIN GROUP (ORDER BY i8) FROM ps) AS spilled;
RESET work_mem;

-- empty and all-NULL inputs give NULL
CREATE TABLE ps_empty (v float8);
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY v) FROM ps_empty;
INSERT INTO ps_empty VALUES (NULL), (NULL);
SELECT gpu_percentile(ARRAY[0.5]) WITHIN GROUP (ORDER BY v) FROM ps_empty;

-- not used with a WHERE clause, GROUP BY, an expression, a USING order, or enable_scan off
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i4) FROM ps WHERE id > 10;
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i4) FROM ps GROUP BY id % 2;
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i4 + 1) FROM ps;
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY t) FROM ps;
SET gpusel.enable_scan = off;
EXPLAIN (COSTS OFF) SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i4) FROM ps;
RESET gpusel.enable_scan;

-- as an uncorrelated subquery (an InitPlan)
SELECT v, (SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY f4) FROM ps) IS NOT NULL AS answered
FROM (VALUES (1), (2)) s(v);

DROP TABLE ps, ps_empty;
