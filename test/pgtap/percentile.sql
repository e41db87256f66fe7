-- pgTAP: gpu_percentile under cancel, errors, spilling and large inputs.
BEGIN;
-- the reference is PostgreSQL's own aggregate, never gpusel answering it
SET LOCAL gpusel.replace_builtin_percentiles = off;
SELECT plan(8);

CREATE TEMP TABLE big AS
SELECT (random() * 1e9)::int8 AS i, random() AS f FROM generate_series(1, 400000);

-- Ctrl-C: a statement timeout cancels a long selection with SQLSTATE 57014
-- (WHEN OTHERS, and so throws_ok, does not catch a cancel)
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
  RETURN SQLSTATE;
END $$;
SET LOCAL statement_timeout = '200ms';
SELECT is(pg_temp.sqlstate_of($$SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g)
                                FROM generate_series(1, 100000000) g$$),
          '57014', 'a long selection can be cancelled');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY i) FROM big),
          (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM big),
          'the session works after a cancel');

-- beyond work_mem the keys spill and the answer stays exact
SET LOCAL work_mem = '64kB';
SELECT is((SELECT gpu_percentile(ARRAY[0, 0.01, 0.5, 0.99, 1]) WITHIN GROUP (ORDER BY f) FROM big),
          (SELECT percentile_disc(ARRAY[0, 0.01, 0.5, 0.99, 1]) WITHIN GROUP (ORDER BY f) FROM big),
          'spilled float8 input, five fractions');
SELECT is((SELECT gpu_percentile(0.3) WITHIN GROUP (ORDER BY i DESC) FROM big),
          (SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY i DESC) FROM big),
          'spilled int8 input, descending');
SELECT is((SELECT gpu_percentile_cont(0.77) WITHIN GROUP (ORDER BY f) FROM big),
          (SELECT percentile_cont(0.77) WITHIN GROUP (ORDER BY f) FROM big),
          'spilled percentile_cont');
RESET work_mem;

-- an error inside the aggregate leaves nothing behind
SELECT throws_ok($$SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY 1 / (g - 5000)) FROM generate_series(1, 10000) g$$,
                 '22012', 'division by zero', 'an error in the input expression surfaces unchanged');
SELECT is((SELECT gpu_percentile(0.25) WITHIN GROUP (ORDER BY f) FROM big),
          (SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY f) FROM big),
          'the session works after an error');

-- the same ORDER BY shared by several calls gives each its own answer
SELECT results_eq(
  $$SELECT gpu_percentile(0.1) WITHIN GROUP (ORDER BY f), gpu_percentile(0.9) WITHIN GROUP (ORDER BY f),
           gpu_percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM big$$,
  $$SELECT percentile_disc(0.1) WITHIN GROUP (ORDER BY f), percentile_disc(0.9) WITHIN GROUP (ORDER BY f),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM big$$,
  'shared state serves several final calls');

SELECT * FROM finish();
ROLLBACK;
