--
-- Errors the grouped scan must not raise where PostgreSQL answers.  With an
-- ordered-set aggregate PostgreSQL's only plan sorts the rows and
-- finalizes group after group, so a LIMIT (or a cursor's FETCH) over groups
-- in the order of their keys stops before later groups' inputs are
-- computed, and an invalid fraction raises at the first group, before a
-- later row's overflow.  The grouped scan aggregates every group first:
-- where a key, an input, a float sum or an expression over the aggregates
-- may fail and the query may stop early, or where a constant fraction is
-- invalid, the query keeps PostgreSQL's plan.  Each answer is compared with
-- PostgreSQL untouched (gpusel.enable_scan and
-- gpusel.replace_builtin_percentiles off).
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
\set VERBOSITY default

CREATE TABLE el (k int, i int, d date, f float8);
INSERT INTO el SELECT 1, g, date '2000-01-01' + g, g FROM generate_series(1, 100) g;
INSERT INTO el VALUES (2, 2000000000, '5874897-12-31', 1e308), (2, 5, '2000-01-01', 1e308);
ANALYZE el;

-- the oracle: PostgreSQL's plan and its own percentiles
CREATE FUNCTION el_oracle(on_ boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gpusel.enable_scan', CASE WHEN on_ THEN 'off' ELSE 'on' END, false);
  PERFORM set_config('gpusel.replace_builtin_percentiles', CASE WHEN on_ THEN 'off' ELSE 'on' END, false);
END $$;

-- a failing input, a failing extreme's input: answered from the first group
EXPLAIN (COSTS OFF)
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT k, max(d + 1), percentile_disc(0.5) WITHIN GROUP (ORDER BY d) FROM el GROUP BY k ORDER BY k LIMIT 1;
-- a float sum overflows in the second group
SELECT k, sum(f), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
-- an expression over an aggregate, in the target list or HAVING
SELECT k, sum(i)::int4 + 1, percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k
HAVING sum(i)::int4 * 2 > 0 ORDER BY k LIMIT 1;
-- a cursor stops where its FETCH does
BEGIN;
DECLARE el_c CURSOR FOR
  SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k;
FETCH 1 FROM el_c;
COMMIT;
SELECT el_oracle(true);
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT k, max(d + 1), percentile_disc(0.5) WITHIN GROUP (ORDER BY d) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT k, sum(f), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT el_oracle(false);

-- nothing can fail: the grouped scan answers under the LIMIT
EXPLAIN (COSTS OFF)
SELECT k, sum(i), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
SELECT k, sum(i), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k LIMIT 1;
-- ordered by an aggregate, every group is computed in any plan: the same error
EXPLAIN (COSTS OFF)
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY 2 LIMIT 1;
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY 2 LIMIT 1;
-- and without a LIMIT
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k;
SELECT el_oracle(true);
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY 2 LIMIT 1;
SELECT k, sum(i * 3), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k ORDER BY k;
SELECT el_oracle(false);

-- an invalid constant fraction raises PostgreSQL's error, before any overflow
SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY i), sum(i * 3) FROM el GROUP BY k;
SELECT k, percentile_cont(-0.5) WITHIN GROUP (ORDER BY f), sum(i * 3) FROM el GROUP BY k;
SELECT k, percentile_disc(ARRAY[0.5, 'NaN']) WITHIN GROUP (ORDER BY i), sum(i * 3) FROM el GROUP BY k;
-- without rows: no group, no error; the whole table's one group raises
SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY i) FROM el WHERE i < 0 GROUP BY k;
SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY i) FROM el WHERE i < 0;
EXPLAIN (COSTS OFF) SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY i) FROM el GROUP BY k;
-- NULL fractions and fractions at the ends stay on the grouped scan
EXPLAIN (COSTS OFF)
SELECT k, percentile_disc(ARRAY[0, NULL, 1]) WITHIN GROUP (ORDER BY i), percentile_disc(NULL) WITHIN GROUP (ORDER BY i)
FROM el GROUP BY k;
SELECT k, percentile_disc(ARRAY[0, NULL, 1]) WITHIN GROUP (ORDER BY i), percentile_disc(NULL) WITHIN GROUP (ORDER BY i)
FROM el GROUP BY k ORDER BY k;
SELECT el_oracle(true);
SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY i), sum(i * 3) FROM el GROUP BY k;
SELECT k, percentile_cont(-0.5) WITHIN GROUP (ORDER BY f), sum(i * 3) FROM el GROUP BY k;
SELECT k, percentile_disc(ARRAY[0.5, 'NaN']) WITHIN GROUP (ORDER BY i), sum(i * 3) FROM el GROUP BY k;
SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY i) FROM el WHERE i < 0 GROUP BY k;
SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY i) FROM el WHERE i < 0;
SELECT k, percentile_disc(ARRAY[0, NULL, 1]) WITHIN GROUP (ORDER BY i), percentile_disc(NULL) WITHIN GROUP (ORDER BY i)
FROM el GROUP BY k ORDER BY k;
SELECT el_oracle(false);

DROP FUNCTION el_oracle(boolean);
DROP TABLE el;
