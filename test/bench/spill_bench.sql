-- The grouped scan's percentile keys past work_mem: the same grouped and
-- whole-table percentiles timed as PostgreSQL runs them (gpusel out of the
-- way, serial), and as gpusel runs them with work_mem large enough to hold
-- every key and with work_mem at 4MB (the keys spill; on the GPU the device
-- still holds them), in the same run, with each answer checked equal to
-- PostgreSQL's and the ratio printed.
-- Run with psql -v rows=5000000 -f test/bench/spill_bench.sql
\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 5000000
\endif
\if :{?device}
\else
\set device gpu
\endif
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE EXTENSION IF NOT EXISTS gpusel;
LOAD 'gpusel';

DROP TABLE IF EXISTS spill_t;
CREATE UNLOGGED TABLE spill_t AS
SELECT i::int8 AS id, random() AS x, (random() * 1e6)::int4 AS k, (i % 101)::int4 AS grp
FROM generate_series(1, :rows) i;
VACUUM ANALYZE spill_t;

CREATE TEMP TABLE spill_runs (shape text, how text, ms float8, answer text);

-- Runs q once under the given settings (each run sets all it depends on:
-- the settings last until the end of the calling statement) and records its
-- time and answer.
CREATE OR REPLACE FUNCTION spill_time(shape text, how text, q text, settings text[])
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  t0 timestamptz;
  answer text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(settings, 1), 0) BY 2 LOOP
    PERFORM set_config(settings[i], settings[i + 1], true);
  END LOOP;
  t0 := clock_timestamp();
  EXECUTE 'SELECT string_agg(r::text, '';'' ORDER BY r::text) FROM (' || q || ') r' INTO answer;
  INSERT INTO spill_runs VALUES (shape, how, extract(epoch FROM clock_timestamp() - t0) * 1000, md5(answer));
END
$fn$;

-- PostgreSQL untouched (with work_mem large and at 4MB), gpusel with every
-- key in memory, gpusel past work_mem
CREATE OR REPLACE FUNCTION spill_shape(shape text, q text, device text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM spill_time(shape, 'postgres', q, ARRAY['gpusel.enable_scan', 'off',
                     'gpusel.replace_builtin_percentiles', 'off', 'work_mem', '1GB']);
  PERFORM spill_time(shape, 'postgres, 4MB', q, ARRAY['gpusel.enable_scan', 'off',
                     'gpusel.replace_builtin_percentiles', 'off', 'work_mem', '4MB']);
  PERFORM spill_time(shape, 'gpusel, keys in memory', q, ARRAY['gpusel.enable_scan', 'on',
                     'gpusel.replace_builtin_percentiles', 'on', 'gpusel.device', device,
                     'work_mem', '1GB']);
  PERFORM spill_time(shape, 'gpusel, keys past 4MB', q, ARRAY['gpusel.enable_scan', 'on',
                     'gpusel.replace_builtin_percentiles', 'on', 'gpusel.device', device,
                     'work_mem', '4MB']);
END
$fn$;

SELECT spill_shape('GROUP BY 101 groups, 3 fractions',
  'SELECT grp, percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY x) FROM spill_t GROUP BY grp',
  :'device');
SELECT spill_shape('whole table, median of int4',
  'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY k) FROM spill_t', :'device');

SELECT r.shape, r.how, round(r.ms::numeric, 1) AS ms,
       round((p.ms / r.ms)::numeric, 2) AS x_postgres, r.answer = p.answer AS same_answer
FROM spill_runs r JOIN spill_runs p ON p.shape = r.shape AND p.how = 'postgres'
ORDER BY r.shape, r.how DESC;
DROP TABLE spill_t;
