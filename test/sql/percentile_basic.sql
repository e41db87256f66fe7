-- gpu_percentile and gpu_percentile_cont: PostgreSQL's semantics, case by case.
-- Each query shows gpusel's answer beside the built-in one.
SET extra_float_digits = 0;
-- the reference is PostgreSQL's own aggregate, never gpusel answering it
SET gpusel.replace_builtin_percentiles = off;

CREATE TABLE pb (g int, x float8, i int4, t text, iv interval);
INSERT INTO pb VALUES
  (1, 3.5, 3, 'c', '3 hours'), (1, -1, -1, 'a', '1 day'), (1, NULL, NULL, NULL, NULL),
  (1, 10, 10, 'b', '-5 minutes'), (1, 2, 2, 'B', '10 seconds'),
  (2, NULL, NULL, NULL, NULL),
  (3, 'NaN', 7, 'x', '1 year'), (3, 'Infinity', 8, 'y', '1 month'),
  (3, '-Infinity', 9, 'z', '1 week'), (3, '-0', 0, 'w', '0'), (3, 1.5, 0, 'v', '1 hour');

-- single fraction, per group, including a group of only NULLs
SELECT g,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS pg
FROM pb GROUP BY g ORDER BY g;

-- fractions 0 and 1, and fractions that land exactly on a rank
SELECT gpu_percentile(0) WITHIN GROUP (ORDER BY i) AS gpu0, percentile_disc(0) WITHIN GROUP (ORDER BY i) AS pg0,
       gpu_percentile(1) WITHIN GROUP (ORDER BY i) AS gpu1, percentile_disc(1) WITHIN GROUP (ORDER BY i) AS pg1,
       gpu_percentile(0.25) WITHIN GROUP (ORDER BY i) AS gpu25, percentile_disc(0.25) WITHIN GROUP (ORDER BY i) AS pg25
FROM pb;

-- NaN sorts above Infinity, -0 equals 0
SELECT gpu_percentile(ARRAY[0, 0.2, 0.4, 0.6, 0.8, 1]) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_disc(ARRAY[0, 0.2, 0.4, 0.6, 0.8, 1]) WITHIN GROUP (ORDER BY x) AS pg
FROM pb WHERE g = 3;

-- descending order
SELECT gpu_percentile(0.2) WITHIN GROUP (ORDER BY x DESC) AS gpu,
       percentile_disc(0.2) WITHIN GROUP (ORDER BY x DESC) AS pg
FROM pb;

-- no rows, NULL fraction
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS pg
FROM pb WHERE false;
SELECT gpu_percentile(NULL) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_disc(NULL) WITHIN GROUP (ORDER BY x) AS pg
FROM pb;

-- fractions out of range: the same error and SQLSTATE, even with no rows
\set VERBOSITY default
SELECT gpu_percentile(1.5) WITHIN GROUP (ORDER BY x) FROM pb;
SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM pb;
SELECT gpu_percentile(-0.1) WITHIN GROUP (ORDER BY x) FROM pb WHERE false;
SELECT gpu_percentile('NaN') WITHIN GROUP (ORDER BY x) FROM pb;
SELECT gpu_percentile(ARRAY[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM pb;
SELECT gpu_percentile_cont(2) WITHIN GROUP (ORDER BY x) FROM pb;
\set VERBOSITY terse
DO $$
BEGIN
  PERFORM gpu_percentile(2) WITHIN GROUP (ORDER BY x) FROM pb;
EXCEPTION WHEN numeric_value_out_of_range THEN
  RAISE NOTICE 'SQLSTATE %', SQLSTATE;
END $$;
\set VERBOSITY default

-- array form: shape, NULL elements, empty arrays, no rows
SELECT gpu_percentile(ARRAY[[0.1, NULL], [0.9, 0.5]]) WITHIN GROUP (ORDER BY i) AS gpu,
       percentile_disc(ARRAY[[0.1, NULL], [0.9, 0.5]]) WITHIN GROUP (ORDER BY i) AS pg
FROM pb;
SELECT array_dims(gpu_percentile('[3:4]={0.1,0.9}'::float8[]) WITHIN GROUP (ORDER BY i)) AS gpu,
       array_dims(percentile_disc('[3:4]={0.1,0.9}'::float8[]) WITHIN GROUP (ORDER BY i)) AS pg
FROM pb;
SELECT gpu_percentile('{}'::float8[]) WITHIN GROUP (ORDER BY i) AS gpu,
       percentile_disc('{}'::float8[]) WITHIN GROUP (ORDER BY i) AS pg
FROM pb;
SELECT gpu_percentile(ARRAY[0.5]) WITHIN GROUP (ORDER BY i) AS gpu,
       percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY i) AS pg
FROM pb WHERE false;
SELECT gpu_percentile(NULL::float8[]) WITHIN GROUP (ORDER BY i) AS gpu,
       percentile_disc(NULL::float8[]) WITHIN GROUP (ORDER BY i) AS pg
FROM pb;

-- types without a key path: text under collations, numeric, a non-default operator
SELECT gpu_percentile(ARRAY[0, 0.3, 0.6, 1]) WITHIN GROUP (ORDER BY t COLLATE "C") AS gpu,
       percentile_disc(ARRAY[0, 0.3, 0.6, 1]) WITHIN GROUP (ORDER BY t COLLATE "C") AS pg
FROM pb;
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY t USING ~>~) AS gpu,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY t USING ~>~) AS pg
FROM pb;
SELECT gpu_percentile(0.4) WITHIN GROUP (ORDER BY x::numeric) AS gpu,
       percentile_disc(0.4) WITHIN GROUP (ORDER BY x::numeric) AS pg
FROM pb WHERE g = 1;

-- percentile_cont on float8 and interval, single and array
SELECT gpu_percentile_cont(0.3) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_cont(0.3) WITHIN GROUP (ORDER BY x) AS pg
FROM pb WHERE g = 1;
SELECT gpu_percentile_cont(ARRAY[0, 0.3, NULL, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_cont(ARRAY[0, 0.3, NULL, 0.5, 1]) WITHIN GROUP (ORDER BY x) AS pg
FROM pb WHERE g = 1;
SELECT gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS gpu,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS pg
FROM pb WHERE g = 3;
SELECT gpu_percentile_cont(0.35) WITHIN GROUP (ORDER BY iv) AS gpu,
       percentile_cont(0.35) WITHIN GROUP (ORDER BY iv) AS pg
FROM pb;
SELECT gpu_percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY iv DESC) AS gpu,
       percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY iv DESC) AS pg
FROM pb;

-- several percentiles over one ORDER BY share one state (shareable final function)
SELECT gpu_percentile(0.1) WITHIN GROUP (ORDER BY i) AS a,
       gpu_percentile(0.9) WITHIN GROUP (ORDER BY i) AS b,
       gpu_percentile(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY i) AS c,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY t) AS d,
       gpu_percentile(0.9) WITHIN GROUP (ORDER BY t) AS e
FROM pb;

-- every key type, as a query result
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i::int2) AS int2,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY i::int8 * 1000000000000) AS int8,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY x::float4) AS float4,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY date '2020-02-28' + i) AS date,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY timestamp '2020-02-28 12:00' + iv) AS ts,
       gpu_percentile(0.5) WITHIN GROUP (ORDER BY timestamptz '2020-02-28 12:00+00' + iv) IS NOT NULL AS tstz
FROM pb;

-- percentiles are not window functions, as with the built-ins
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY x) OVER () FROM pb;

DROP TABLE pb;
