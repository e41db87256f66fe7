--
-- Numeric columns past 18 digits: unconstrained and wide columns where
-- their values fit, sums not bounded to 256 bits, numeric(p,s) of 19 to 38
-- digits as 128-bit halves, and percentiles of columns wider than 18 digits.
--
\i test/sql/scan_numeric_setup.sql

-- Numeric columns whose values need not fit 18 digits (unconstrained,
-- or a typmod of more digits with a scale of at most 18) travel where each
-- value fits: at the typmod's scale, or (unconstrained) at the largest
-- scale of the quals' constants and at least 6.  A value that does not fit
-- (more digits or decimals) trips the column's range guard and the
-- executor evaluates its batch; NaN and the infinities have stand-ins that
-- order as PostgreSQL orders them.  The first 3,000 rows fit (on a GPU,
-- those batches are the device's own answers); later ones mix in values
-- that do not.
CREATE TABLE nf (id int, u numeric, v numeric, w numeric(30,4), z numeric(25,-3));
INSERT INTO nf
SELECT i,
       CASE WHEN i <= 3000 THEN ((i * 7919) % 20001 - 10000) / 100.0 ELSE i / 7.0 END,
       round(((i * 104729) % 2000001 - 1000000) * 1.5, 1),
       CASE WHEN i <= 4500 THEN ((i * 7919) % 20001 - 10000) * 12345.6789 ELSE i * 1e20 END,
       CASE WHEN i % 997 = 0 THEN i * 1e21 ELSE (i % 1000 - 500) * 1000 END
FROM generate_series(1, 6000) i;
INSERT INTO nf VALUES
  (-1, 'NaN', 'Infinity', 'NaN', 'NaN'), (-2, 'Infinity', '-Infinity', 0, 0),
  (-3, '-Infinity', 'NaN', -0.0001, -1000), (-4, NULL, NULL, NULL, NULL),
  (-5, 1e30, -1e30, 99999999999999.9999, 999999999999999999000),
  (-6, 1e-30, 0.0000001, -99999999999999.9999, -1000000000000000000000),
  (-7, 0.333333, 123456789012.5, 1e25, 5000), (-8, 999999999999.999999, -0.0000005, 12345.6789, -5000);
ANALYZE nf;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nf WHERE gpu_filter(u > 1 AND v < u AND w >= 0 AND z <> 5000 AND u * 2 < w);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['u', 'v', 'w', 'z', '(u * 2)', '(u + w)', '(-v)', '(u - v)', '(w - z)'],
  ARRAY['0', '1.5', '-2.25', '0.333333', '100', '-100.5', '1e20', '-1e20', '123456789012.5', 'NaN',
        'Infinity', '-Infinity', '0.0000001', '1e-30', '49.99', '99999999999999.9999'], 'nf');
SELECT sum(n) AS cases_checked FROM checked;
SELECT pg_temp.rows_check($$SELECT id % 5, count(*), sum(id), sum(w), max(z) FROM nf
  WHERE gpu_filter(u > 10 AND w < 1e9) GROUP BY 1$$) AS grouped_fit;
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nf WHERE gpu_filter(v <= 'Infinity' AND u > '-Infinity')$$) AS infinities;
-- the scan that hands rows on (string_agg is not the grouped scan's)
SELECT pg_temp.rows_check($$SELECT id, u FROM nf WHERE gpu_filter(u > 10 AND w < 1e9 AND z <> 5000)$$) AS rows_out;
-- not under Gather: a numeric read where it fits needs the tuples on the CPU
\i test/sql/oracle_functions.sql
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT id % 5, count(*) FROM nf WHERE gpu_filter(u > 10) GROUP BY 1$$)
  LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather;
SELECT pg_temp.rows_check($$SELECT id % 5, count(*) FROM nf WHERE gpu_filter(u > 10) GROUP BY 1$$) AS parallel_settings;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE nf;

-- sum and avg of numeric inputs not bounded to 256 bits (unconstrained,
-- numeric(60,30), expressions of them): in 256 bits while the sum fits,
-- then, from the first value that would take it past them (or past scale
-- 80), as a numeric of PostgreSQL's own arithmetic for the rest of the
-- group.  Groups that never leave 256 bits, groups that leave them by
-- magnitude (1e70), by scale (1e-85), by one late value, NaN and the
-- infinities beside them.  min and max of such columns compare numerics,
-- keeping the later of equal values (2.5, 2.50, 2.500) as PostgreSQL does.
-- Never under Gather (such a cell holds a pointer).
CREATE TABLE nu (g int, u numeric, w numeric(60,30), k int);
INSERT INTO nu
SELECT i % 5,
       CASE i % 5 WHEN 0 THEN i / 7.0 WHEN 1 THEN i * 1e70 WHEN 2 THEN 1e-85 * i
                  WHEN 3 THEN round(i * 1.5, 1) ELSE CASE WHEN i = 9999 THEN 1e90 ELSE -i END END,
       i / 3.0, i % 3
FROM generate_series(1, 10000) i;
INSERT INTO nu VALUES (3, 'NaN', 1, 0), (2, 'Infinity', 2, 0), (6, 1e100, NULL, 1), (6, -1e100, 3, 1),
  (6, 1e-200, 4, 1), (7, 'Infinity', 1, 2), (7, '-Infinity', 1, 2), (8, NULL, NULL, 2),
  (9, 2.50, 2.5, 0), (9, 2.5, 2.500, 0), (9, 2.500, 2.50, 0);
ANALYZE nu;
EXPLAIN (COSTS OFF) SELECT g, sum(u), avg(w) FROM nu GROUP BY g;
SELECT pg_temp.rows_check($$SELECT g, sum(u), avg(u), sum(w), avg(w), sum(u * 2 - w), count(*) FROM nu GROUP BY g$$) AS unbounded_sums;
SELECT pg_temp.rows_check($$SELECT sum(u), avg(u), sum(w) FROM nu WHERE gpu_filter(k = 1)$$) AS unbounded_where;
SELECT pg_temp.rows_check($$SELECT k, sum(u), avg(u) FROM nu WHERE g IN (1, 2, 6) GROUP BY k$$) AS unbounded_keys;
SELECT pg_temp.rows_check($$SELECT g, min(u), max(u), min(w), max(w), count(u) FROM nu GROUP BY g$$) AS unbounded_extremes;
SELECT pg_temp.rows_check($$SELECT min(u), max(w) FROM nu WHERE gpu_filter(k = 0)$$) AS unbounded_extremes_where;
SELECT min(u)::text, max(u)::text, min(w)::text, max(w)::text FROM nu WHERE g = 9;
SELECT g, scale(sum(u)) AS sum_scale, left(avg(u)::text, 30) AS avg_start FROM nu GROUP BY g ORDER BY g;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT g, sum(u) FROM nu GROUP BY g$$) LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather,
       oracle_explain($$SELECT g, max(w) FROM nu GROUP BY g$$) LIKE '%Gather%GpuSelScan%' AS extremes_under_gather;
SELECT pg_temp.rows_check($$SELECT g, sum(u) FROM nu GROUP BY g$$) AS parallel_settings;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE nu;

-- numeric(p,s) columns of 19 to 38 digits (p - s <= 38 for a negative
-- scale), compared as they are with a numeric constant or a column of the
-- same scale, travel as the 128-bit v * 10^s in two int8 halves
-- (qual_numeric_wide.c): every value of the typmod is compared on the
-- device, NaN above every number.  Values cross multiples of 2^64 and 2^63,
-- where the halves change.  Taken into arithmetic, such a column travels
-- where it fits (section 10), in the same program as its halves.
CREATE TABLE nw (id int, a numeric(38,0), b numeric(38,10), c numeric(20,2),
                 d numeric(30,30), e numeric(25,-10), a2 numeric(38,0));
INSERT INTO nw
SELECT i,
       ((i * 7919) % 20001 - 10000)::numeric * 10 ^ (i % 34)::numeric + i,
       round(((i * 104729) % 20001 - 10000)::numeric * 10 ^ (i % 24)::numeric / 7, 10),
       round(((i * 104729) % 2000001 - 1000000) * 123456789012.34567, 2),
       ((i * 7919) % 19999 - 9999) * 1e-4 + i * 1e-30,
       ((i * 6007) % 20001 - 10000)::numeric * 10 ^ (i % 31)::numeric,
       CASE WHEN i % 7 = 0 THEN ((i * 7919) % 20001 - 10000)::numeric * 10 ^ (i % 34)::numeric + i
            ELSE ((i * 6007) % 20001 - 10000)::numeric * 10 ^ (i % 34)::numeric + i % 3 END
FROM generate_series(1, 5000) i;
INSERT INTO nw VALUES
  (-1, 18446744073709551616, 18446744073709551616, 999999999999999999.99, 0.999999999999999999999999999999, 99999999999999999999999990000000000, 18446744073709551615),
  (-2, 18446744073709551615, -18446744073709551616.0000000001, -999999999999999999.99, -0.999999999999999999999999999999, -99999999999999999999999990000000000, 18446744073709551617),
  (-3, -18446744073709551616, 9223372036854775808, 92233720368547758.08, 1e-30, 18446744073709551616, -18446744073709551616),
  (-4, 9223372036854775808, -9223372036854775808.5, -92233720368547758.08, -1e-30, -18446744073709551616, 9223372036854775807),
  (-5, 99999999999999999999999999999999999999, 9999999999999999999999999999.9999999999, 0, 0, 0, -99999999999999999999999999999999999999),
  (-6, -99999999999999999999999999999999999999, -9999999999999999999999999999.9999999999, -0.00, -0.0, -0, 99999999999999999999999999999999999999),
  (-7, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (-8, 'NaN', 1, 0.01, 0.5, 10000000000, 'NaN'),
  (-9, NULL, NULL, NULL, NULL, NULL, NULL), (-10, 0, -0.0000000001, 0.01, 0.000000000000000000000000000001, 10000000000, 0),
  (-11, -1, 36893488147419103232, -18446744073709551.61, 0.5, 36893488147419103232, -1);
ANALYZE nw;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nw WHERE gpu_filter(a > 1e20 AND b <= -5.5 AND c <> 0 AND d < 0.5 AND e >= 0 AND a < a2 AND a + 1 > 5);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['a', 'b', 'c', 'd', 'e', 'a2'],
  ARRAY['0', '-0.5', '0.5', '1', '-1', '18446744073709551616', '18446744073709551615.5', '-18446744073709551616',
        '-18446744073709551616.5', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
        '1e37', '-1e37', '99999999999999999999999999999999999999', '-99999999999999999999999999999999999999',
        '1e38', '-1e40', '1e-30', '5e-31', '999999999999999999.99', '0.01', 'NaN', 'Infinity', '-Infinity'], 'nw');
SELECT sum(n) AS cases_checked FROM checked;
CREATE FUNCTION pg_temp.wide_pairs() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE pair text; op text; got text; want text;
BEGIN
  FOREACH pair IN ARRAY ARRAY['a %s a2', 'a2 %s a', 'a %s b', 'c %s a', 'e %s a2'] LOOP
    FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM nw WHERE gpu_filter(' || pair || ')', op) INTO got;
      PERFORM set_config('gpusel.enable_scan', 'off', true);
      EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM nw WHERE ' || pair, op) INTO want;
      PERFORM set_config('gpusel.enable_scan', 'on', true);
      RETURN NEXT format(pair, op) || ': ' || CASE WHEN got = want THEN 'same' ELSE 'gpusel ' || got || ', PostgreSQL ' || want END;
    END LOOP;
  END LOOP;
END $$;
SELECT * FROM pg_temp.wide_pairs();
-- halves and the same column where it fits, in one program
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nw WHERE gpu_filter(a > 1e20 AND a + 1 > 5 AND a < a2)$$) AS halves_and_fit;
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nw WHERE gpu_filter((a >= 18446744073709551616 OR b < 0) AND NOT (e = 0) AND d IS NOT NULL)$$) AS three_valued;
SELECT pg_temp.rows_check($$SELECT id % 3, count(*), sum(c), max(b) FROM nw WHERE gpu_filter(a > 0 AND b < 1e20) GROUP BY 1$$) AS grouped_wide;
SELECT pg_temp.rows_check($$SELECT id, a, b FROM nw WHERE gpu_filter(a > 1e30 OR d < -0.5)$$) AS rows_out;
-- without nulls in a tuple, and with columns before the numerics
SELECT pg_temp.rows_check($$SELECT count(*), sum(id) FROM nw WHERE gpu_filter(e < 18446744073709551616) AND id > 0$$) AS no_nulls;
DROP TABLE nw;

-- percentile_disc over numeric columns wider than 18 digits (a scale of
-- at most 18) in the grouped scan: values that fit 18 digits at the scale
-- are int8 keys; the others get an ordered key of their digit count and
-- leading 15 digits and are kept with their group, and a percentile that
-- lands on such a key reads the kept value of its rank among those sharing
-- it (groupagg_bigkeys.c).  Groups of only big values, of big values on one
-- side, of 60 values that share one key (1e25 + i, both signs), NaN and
-- NULL; ascending and descending; fractions at 0, 1 and the edges between
-- the kinds.
CREATE TABLE npk (g int, w numeric(30,2), z numeric(40,0), n numeric(25,-3), f numeric(60,18));
INSERT INTO npk
SELECT i % 6,
       CASE WHEN i % 97 = 0 THEN i * 1e22 * (1 - 2 * (i % 2)) ELSE round(((i * 7919) % 200001 - 100000) / 100.0, 2) END,
       CASE WHEN i % 3 = 0 THEN i * 1e30 WHEN i % 3 = 1 THEN -i * 1e25 ELSE i END,
       i * 1e20 - 5e23,
       CASE WHEN i % 5 = 0 THEN i * 1e10 ELSE (i % 1000) / 1e6 END
FROM generate_series(1, 30000) i;
INSERT INTO npk VALUES (6, 1e27, 1e39, 1e27, 1e40), (6, -1e27, -1e39, -1e27, -1e40), (6, 1e27, 1e39, 1e27, 1e40),
  (7, 'NaN', 'NaN', 'NaN', 'NaN'), (7, 1e25, 5, 2e22, 0.5), (8, NULL, NULL, NULL, NULL), (1, 'NaN', 'NaN', 'NaN', 'NaN');
INSERT INTO npk SELECT 9, (1e25 + (i * 37) % 61) * (1 - 2 * (i % 2)), 1e35 + (i * 37) % 61, 1e24 + (i % 7) * 1000, 1e30 + i % 5
FROM generate_series(1, 60) i;
ANALYZE npk;
EXPLAIN (COSTS OFF) SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(ARRAY[0, 0.001, 0.01, 0.5, 0.99, 0.999, 1]) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g$$) AS wide_asc;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(ARRAY[0, 0.001, 0.01, 0.5, 0.99, 0.999, 1]) WITHIN GROUP (ORDER BY w DESC) FROM npk GROUP BY g$$) AS wide_desc;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(ARRAY[0, 0.33, 0.34, 0.5, 0.66, 0.67, 1]) WITHIN GROUP (ORDER BY z),
  percentile_disc(ARRAY[0, 0.33, 0.34, 0.66, 0.67, 1]) WITHIN GROUP (ORDER BY z DESC) FROM npk GROUP BY g$$) AS both_sides;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(0.25) WITHIN GROUP (ORDER BY n), percentile_disc(0.75) WITHIN GROUP (ORDER BY f DESC),
  gpu_percentile(0.9) WITHIN GROUP (ORDER BY f) FROM npk GROUP BY g$$) AS negative_scale_and_scale_18;
SELECT pg_temp.rows_check($$SELECT g, max(w), sum(w), count(*), percentile_disc(0.999) WITHIN GROUP (ORDER BY w) FROM npk
  WHERE gpu_filter(z > 5) GROUP BY g$$) AS beside_sum_and_max;
SELECT pg_temp.rows_check($$SELECT percentile_disc(ARRAY[0, 0.5, 0.9999, 1]) WITHIN GROUP (ORDER BY z) FROM npk$$) AS no_group_key;
SELECT g, percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY w) FROM npk WHERE g >= 6 GROUP BY g ORDER BY g;
-- the kept values live in one process: not under Gather
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain($$SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g$$)
  LIKE '%Gather%GpuSelScan%' AS gpusel_under_gather;
SELECT pg_temp.rows_check($$SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY w) FROM npk GROUP BY g$$) AS parallel_settings;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE npk;

DROP TABLE nm;
