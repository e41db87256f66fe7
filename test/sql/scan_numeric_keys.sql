--
-- char(n) group keys of at most 7 bytes, and numeric columns of negative
-- scale.
--
\i test/sql/scan_numeric_setup.sql

-- char(n) group keys of at most 7 bytes (n characters in the database
-- encoding; TPC-H's l_returnflag and l_linestatus are char(1)) are keyed by
-- their bytes without trailing spaces, so that the grouped scan takes them;
-- numeric expressions over numeric(p,s) columns are computed in C, a row
-- whose value would leave 128 bits through the executor.
CREATE TABLE ch (rf char(1), ls char(1), wide char(3), q numeric(15,2), e numeric(15,2),
                 d numeric(15,2), big numeric(18,0));
INSERT INTO ch
SELECT (ARRAY['A', 'N', 'R', NULL, ' ', 'é'])[1 + i % 6], (ARRAY['F', 'O', 'f'])[1 + i % 3],
       (ARRAY['ab', 'ab ', 'abc', 'x', NULL])[1 + i % 5],
       1 + i % 50, round(i * 1.37 % 100000, 2), (i % 11) / 100.0,
       CASE WHEN i % 1000 = 0 THEN 999999999999999999 ELSE i END
FROM generate_series(1, 6000) i;
INSERT INTO ch VALUES ('A', 'F', 'ab', 'NaN', 1, 0, 1), ('', '', '', NULL, NULL, NULL, NULL);
ANALYZE ch;
EXPLAIN (COSTS OFF)
SELECT rf, ls, sum(q), sum(e * (1 - d) * (1 + d)), avg(d), count(*),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY e)
FROM ch WHERE gpu_filter(q < 40) GROUP BY rf, ls;
SELECT pg_temp.rows_check($$SELECT rf, ls, sum(q), sum(e * (1 - d) * (1 + d)), avg(d), count(*),
  percentile_disc(0.5) WITHIN GROUP (ORDER BY e) FROM ch WHERE gpu_filter(q < 40) GROUP BY rf, ls$$) AS keys_two_char1;
SELECT pg_temp.rows_check($$SELECT rf, count(*), sum(big * big * big), avg(-q + e * 2) FROM ch GROUP BY rf$$) AS wide_products;
SELECT pg_temp.rows_check($$SELECT wide, count(*), sum(q) FROM ch GROUP BY wide$$) AS char3_key;
SELECT pg_temp.rows_check($$SELECT ls, rf, percentile_disc(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY q DESC) FROM ch WHERE gpu_filter(e > 100) GROUP BY ls, rf$$) AS keys_and_pct;
-- the keys come out as stored: padded to n characters
SELECT rf, length(rf::text) AS len, octet_length(rf) AS bytes, count(*) FROM ch WHERE gpu_filter(q > 0) GROUP BY rf ORDER BY rf COLLATE "C";
DROP TABLE ch;

-- Negative scales travel at scale 0 (whole numbers of up to p - s
-- digits, stored with display scale 0) where p - s <= 18; wider ones, and
-- precisions above 38 digits, stay on the CPU with the same answers (c
-- now travels where its values fit, as section 10 shows).
CREATE TABLE nneg (id int, a numeric(5,-2), b numeric(16,-2), f numeric(1,-3),
                   c numeric(17,-2), d numeric(60,20), e numeric(40,0));
INSERT INTO nneg
SELECT i, ((i * 7919) % 199999 - 99999) * 100, ((i::int8 * 104729) % 2000001 - 1000000) * 100000000000,
       (i % 19 - 9) * 1000, i * 1000000000000000.0 + 100, i * 1e30 / 7, i * 1e35 + i
FROM generate_series(1, 3000) i;
INSERT INTO nneg VALUES (-1, 9999900, 999999999999999900, 9000, 9999999999999999900, 1e39, 9999999999999999999999999999999999999999),
  (-2, -9999900, -999999999999999900, -9000, -9999999999999999900, -1e39, -9999999999999999999999999999999999999999),
  (-3, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (-4, NULL, NULL, NULL, NULL, NULL, NULL), (-5, 0, 0, 0, 0, 0, 0),
  (-6, 149.99, 50, 499, 49, 1e-20, 0.4);
ANALYZE nneg;
SELECT a, b, f, scale(a) AS scale_a, scale(f) AS scale_f FROM nneg WHERE id IN (-6, -1) ORDER BY id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nneg WHERE gpu_filter(a > 0 AND b * 2 > a AND f < 0 AND c > 0 AND d > 0 AND e > 0);
TRUNCATE checked;
SELECT * FROM pg_temp.mismatches(ARRAY['a', 'b', 'f', '(a * 2 - b)', 'c', 'd', 'e'],
  ARRAY['0', '100', '150', '-9999900', '9999950', '1e17', 'NaN', '-1e40', '12345678901234567890123.5'], 'nneg');
SELECT sum(n) AS cases_checked FROM checked;
EXPLAIN (COSTS OFF) SELECT id % 3, sum(a), avg(b), sum(f * a), count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY a)
  FROM nneg WHERE gpu_filter(a > -5000000) GROUP BY 1;
SELECT pg_temp.rows_check($$SELECT id % 3, sum(a), avg(b), sum(f * a), count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY a)
  FROM nneg WHERE gpu_filter(a > -5000000) GROUP BY 1$$) AS negative_scales;
SELECT pg_temp.rows_check($$SELECT sum(a), sum(b * f), avg(f), min(a), max(b), max(f) FROM nneg WHERE gpu_filter(b > 0)$$) AS negative_scale_sums;
SELECT pg_temp.rows_check($$SELECT id % 3, sum(d), avg(e), min(d), max(e), percentile_disc(0.25) WITHIN GROUP (ORDER BY e)
  FROM nneg GROUP BY 1$$) AS wide_precisions;
DROP TABLE nneg;

DROP TABLE nm;
