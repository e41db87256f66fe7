-- The built-in percentile_disc and percentile_cont answered by gpusel
-- (gpusel.replace_builtin_percentiles, on by default).  The reference is
-- PostgreSQL's own final functions under other aggregate names, which
-- gpusel never touches, so nothing here compares gpusel with itself.
LOAD 'gpusel';
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
SHOW gpusel.replace_builtin_percentiles;

CREATE AGGREGATE ref_disc(float8 ORDER BY anyelement) (
  SFUNC = ordered_set_transition, STYPE = internal,
  FINALFUNC = percentile_disc_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = SHAREABLE);
CREATE AGGREGATE ref_disc(float8[] ORDER BY anyelement) (
  SFUNC = ordered_set_transition, STYPE = internal,
  FINALFUNC = percentile_disc_multi_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = SHAREABLE);
CREATE AGGREGATE ref_cont(float8 ORDER BY float8) (
  SFUNC = ordered_set_transition, STYPE = internal,
  FINALFUNC = percentile_cont_float8_final, FINALFUNC_MODIFY = SHAREABLE);
CREATE AGGREGATE ref_cont(float8[] ORDER BY float8) (
  SFUNC = ordered_set_transition, STYPE = internal,
  FINALFUNC = percentile_cont_float8_multi_final, FINALFUNC_MODIFY = SHAREABLE);
CREATE AGGREGATE ref_cont(float8 ORDER BY interval) (
  SFUNC = ordered_set_transition, STYPE = internal,
  FINALFUNC = percentile_cont_interval_final, FINALFUNC_MODIFY = SHAREABLE);

-- groups of every awkward shape: NULLs, NaN, infinities, all-equal, two
-- values, one row, only NULLs, sorted and reverse-sorted, 1000+7 rows
CREATE TABLE pbi (g int, x float8, i int4, d date, t text, iv interval);
INSERT INTO pbi SELECT 1, v, CASE WHEN abs(v) < 1e6 THEN v::int4 END,
       CASE WHEN abs(v) < 1e6 THEN date '2020-01-01' + v::int4 END, 'r' || v,
       CASE WHEN abs(v) < 1e6 THEN v * interval '1 minute' END
  FROM unnest(ARRAY[3.5, -1, NULL, 10, 2, 'NaN', 'Infinity', '-Infinity', 7, 7]::float8[]) v;
INSERT INTO pbi SELECT 2, 5, 5, date '2020-01-01', 'same', '1 hour' FROM generate_series(1, 37);
INSERT INTO pbi SELECT 3, g % 2, g % 2, date '2020-01-01' + g % 2, (g % 2)::text, (g % 2) * interval '1 day'
  FROM generate_series(1, 33) g;
INSERT INTO pbi VALUES (4, 42, 42, date '2042-04-02', 'one', '42 seconds');
INSERT INTO pbi VALUES (5, NULL, NULL, NULL, NULL, NULL), (5, NULL, NULL, NULL, NULL, NULL);
INSERT INTO pbi SELECT 6, g, g, date '2000-01-01' + g, lpad(g::text, 5, '0'), g * interval '1 second'
  FROM generate_series(1, 1007) g;
INSERT INTO pbi SELECT 7, -g, -g, date '2000-01-01' - g, lpad(g::text, 5, '0'), -g * interval '1 second'
  FROM generate_series(1, 1007) g;
ANALYZE pbi;

-- the plans: gpusel's aggregates, and the grouped GpuSelScan
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM pbi GROUP BY g;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY x) FROM pbi WHERE g = 6;
EXPLAIN (COSTS OFF) SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM pbi;
SET gpusel.replace_builtin_percentiles = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM pbi GROUP BY g;
RESET gpusel.replace_builtin_percentiles;

-- every group, every fraction, every form: the number of disagreements
SELECT count(*) AS compared, count(*) FILTER (WHERE b IS NULL) AS null_results,
       count(*) FILTER (WHERE a IS DISTINCT FROM b) AS disagreements
FROM (
  SELECT g, f,
         percentile_disc(f) WITHIN GROUP (ORDER BY x)::text AS a, ref_disc(f) WITHIN GROUP (ORDER BY x)::text AS b
  FROM pbi, unnest(ARRAY[0, 0.01, 0.25, 0.5, 0.75, 0.99, 1]::float8[]) f GROUP BY g, f
  UNION ALL
  SELECT g, f, percentile_disc(f) WITHIN GROUP (ORDER BY x DESC)::text, ref_disc(f) WITHIN GROUP (ORDER BY x DESC)::text
  FROM pbi, unnest(ARRAY[0, 0.3, 1]::float8[]) f GROUP BY g, f
  UNION ALL
  SELECT g, f, percentile_disc(f) WITHIN GROUP (ORDER BY i)::text, ref_disc(f) WITHIN GROUP (ORDER BY i)::text
  FROM pbi, unnest(ARRAY[0, 0.5, 1]::float8[]) f GROUP BY g, f
  UNION ALL
  SELECT g, f, percentile_disc(f) WITHIN GROUP (ORDER BY d)::text, ref_disc(f) WITHIN GROUP (ORDER BY d)::text
  FROM pbi, unnest(ARRAY[0, 0.5, 1]::float8[]) f GROUP BY g, f
  UNION ALL
  SELECT g, f, percentile_disc(f) WITHIN GROUP (ORDER BY t)::text, ref_disc(f) WITHIN GROUP (ORDER BY t)::text
  FROM pbi, unnest(ARRAY[0, 0.5, 1]::float8[]) f GROUP BY g, f
  UNION ALL
  SELECT g, f, percentile_cont(f) WITHIN GROUP (ORDER BY x)::text, ref_cont(f) WITHIN GROUP (ORDER BY x)::text
  FROM pbi, unnest(ARRAY[0, 0.1, 0.5, 0.95, 1]::float8[]) f GROUP BY g, f
  UNION ALL
  SELECT g, f, percentile_cont(f) WITHIN GROUP (ORDER BY iv)::text, ref_cont(f) WITHIN GROUP (ORDER BY iv)::text
  FROM pbi, unnest(ARRAY[0, 0.1, 0.5, 1]::float8[]) f GROUP BY g, f
) s;

-- the array forms, NULL fractions and an empty array included
SELECT g,
       percentile_disc(ARRAY[0.5, NULL, 0, 1]) WITHIN GROUP (ORDER BY x)
         IS NOT DISTINCT FROM ref_disc(ARRAY[0.5, NULL, 0, 1]) WITHIN GROUP (ORDER BY x) AS disc_same,
       percentile_cont(ARRAY[0.5, NULL, 0.25]) WITHIN GROUP (ORDER BY x)
         IS NOT DISTINCT FROM ref_cont(ARRAY[0.5, NULL, 0.25]) WITHIN GROUP (ORDER BY x) AS cont_same,
       percentile_disc('{}'::float8[]) WITHIN GROUP (ORDER BY x)
         IS NOT DISTINCT FROM ref_disc('{}'::float8[]) WITHIN GROUP (ORDER BY x) AS empty_same
FROM pbi GROUP BY g ORDER BY g;

-- several fractions over one ORDER BY share one state, as the built-ins do
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS p50, percentile_disc(0.9) WITHIN GROUP (ORDER BY x) AS p90,
       ref_disc(0.5) WITHIN GROUP (ORDER BY x) AS ref_p50, ref_disc(0.9) WITHIN GROUP (ORDER BY x) AS ref_p90
FROM pbi WHERE g = 6;

-- whole table (the grouped scan), no rows, a NULL fraction
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) AS gpusel, (SELECT ref_disc(0.5) WITHIN GROUP (ORDER BY i) FROM pbi) AS pg
FROM pbi;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), ref_disc(0.5) WITHIN GROUP (ORDER BY x) FROM pbi WHERE g = 99;
SELECT percentile_disc(NULL) WITHIN GROUP (ORDER BY x), ref_disc(NULL) WITHIN GROUP (ORDER BY x) FROM pbi;

-- errors are PostgreSQL's, with its SQLSTATE
\set VERBOSITY sqlstate
SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM pbi;
SELECT percentile_cont('NaN') WITHIN GROUP (ORDER BY x) FROM pbi;
SELECT percentile_disc(ARRAY[0.5, -0.1]) WITHIN GROUP (ORDER BY x) FROM pbi;
\set VERBOSITY default
SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM pbi;

-- inside views, subqueries, CTEs and sublinks; the view itself still names
-- the built-in
CREATE VIEW pbi_medians AS
  SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS med FROM pbi GROUP BY g;
SELECT pg_get_viewdef('pbi_medians')::text LIKE '%percentile_disc%' AS view_keeps_builtin;
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM pbi_medians WHERE g = 6;
SELECT (SELECT array_agg(med::text ORDER BY g) FROM pbi_medians)
     = (SELECT array_agg(m::text ORDER BY g) FROM
          (SELECT g, ref_disc(0.5) WITHIN GROUP (ORDER BY x) AS m FROM pbi GROUP BY g) s) AS view_same;
WITH c AS (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS m FROM pbi WHERE g = 7)
SELECT m, (SELECT ref_cont(0.5) WITHIN GROUP (ORDER BY x) FROM pbi WHERE g = 7) AS ref FROM c;
SELECT count(*) FROM pbi
WHERE x > (SELECT percentile_disc(0.9) WITHIN GROUP (ORDER BY x) FROM pbi p WHERE p.g = pbi.g);
SELECT count(*) FROM pbi
WHERE x > (SELECT ref_disc(0.9) WITHIN GROUP (ORDER BY x) FROM pbi p WHERE p.g = pbi.g);

-- a user who may not execute gpusel's aggregate keeps PostgreSQL's
CREATE ROLE regress_gpusel_builtin;
GRANT SELECT ON pbi TO regress_gpusel_builtin;
REVOKE EXECUTE ON FUNCTION gpu_percentile(float8, anyelement) FROM PUBLIC;
SET ROLE regress_gpusel_builtin;
EXPLAIN (VERBOSE, COSTS OFF) SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM pbi WHERE g = 6;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM pbi WHERE g = 6;
RESET ROLE;
GRANT EXECUTE ON FUNCTION gpu_percentile(float8, anyelement) TO PUBLIC;
DROP OWNED BY regress_gpusel_builtin;
DROP ROLE regress_gpusel_builtin;

DROP VIEW pbi_medians;
DROP TABLE pbi;
DROP AGGREGATE ref_disc(float8 ORDER BY anyelement);
DROP AGGREGATE ref_disc(float8[] ORDER BY anyelement);
DROP AGGREGATE ref_cont(float8 ORDER BY float8);
DROP AGGREGATE ref_cont(float8[] ORDER BY float8);
DROP AGGREGATE ref_cont(float8 ORDER BY interval);
