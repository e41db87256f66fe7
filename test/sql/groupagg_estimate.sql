--
-- The groups the grouped scan expects for an expression key of one column:
-- PostgreSQL expects as many as the column has values; the scan bounds
-- date_trunc to a unit of a day or less by the column's span (from its
-- histogram) and an integer column % c by 2|c| - 1.  The estimate decides
-- between the serial and the parallel plan of a large grouped percentile.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.min_rows = 0;
SET gpusel.force_groupagg = on;

-- 25,000 distinct timestamps over 1,000,000 seconds (278 hours, 12 days), 12,500
-- values of k; ANALYZE samples every row of a table this small, so its
-- statistics and the estimates are the same every time
CREATE TABLE gest (k int4, ts timestamp, t text, x float8);
INSERT INTO gest
SELECT g % 12500, timestamp '2026-01-01' + (g * 40) * interval '1 second', 'e' || g % 40, g / 7.0
FROM generate_series(0, 24999) g;
ANALYZE gest;

-- the scan's estimated rows: its plan's "Plan Rows"
CREATE FUNCTION gest_rows(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  RETURN (jsonb_path_query_first(plan, 'strict $.**? (@."Custom Plan Provider" == "GpuSelScan")."Plan Rows"'))::bigint;
END $$;

SELECT q, gest_rows(q) AS estimate, (SELECT count(*) FROM gest) AS table_rows FROM (VALUES
  ('SELECT date_trunc(''hour'', ts), count(*) FROM gest GROUP BY 1'),      -- 278 hours: at most 279
  ('SELECT date_trunc(''day'', ts), count(*) FROM gest GROUP BY 1'),       -- 12 days: at most 13
  ('SELECT k % 100, count(*) FROM gest GROUP BY 1'),                       -- at most 199
  ('SELECT t, date_trunc(''hour'', ts), count(*) FROM gest GROUP BY 1, 2'), -- 40 x 279 at most
  ('SELECT k, count(*) FROM gest GROUP BY 1'),                             -- a column: PostgreSQL's own
  ('SELECT date_trunc(''month'', ts), count(*) FROM gest GROUP BY 1')      -- a calendar unit: PostgreSQL's own
) v(q);

-- a common value far from the others (in the most common values, not the
-- histogram) widens the span: 279 hours come, and the bound does not go under them
CREATE TABLE gest_mcv (ts timestamp);
INSERT INTO gest_mcv
SELECT timestamp '2026-01-01' + (g * 40) * interval '1 second' FROM generate_series(0, 23999) g;
INSERT INTO gest_mcv SELECT timestamp '2026-02-01' FROM generate_series(1, 1000);
ANALYZE gest_mcv;
SELECT gest_rows('SELECT date_trunc(''hour'', ts), count(*) FROM gest_mcv GROUP BY 1') >=
       (SELECT count(DISTINCT date_trunc('hour', ts)) FROM gest_mcv) AS not_under;

DROP TABLE gest_mcv;
DROP FUNCTION gest_rows(text);
DROP TABLE gest;
