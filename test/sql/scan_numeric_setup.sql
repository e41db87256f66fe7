--
-- What the numeric suites (scan_numeric*.sql) share, included by each with
-- \i: settings, the table nm, and checks against PostgreSQL's own plan.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.batch_rows = 1024;

CREATE TABLE nm (
  id int,
  m numeric(15,2),     -- TPC-H's DECIMAL(15,2)
  w numeric(18,0),     -- the widest that fits: 18 digits
  f numeric(18,18),    -- all decimals
  t numeric(4,6),      -- scale above precision: |v| < 0.01
  o numeric(1,0),
  m2 numeric(15,2),
  n5 numeric(5,-2),    -- negative scale: whole numbers, at scale 0
  u numeric,           -- unconstrained: where its values fit (section 10)
  big numeric(20,2),   -- more than 18 digits: likewise
  g int                -- a group key
);
INSERT INTO nm
SELECT i,
       round(((i * 7919) % 200001 - 100000) / 100.0, 2),
       ((i * 104729) % 2000001 - 1000000)::numeric * 100000000000,
       ((i * 31) % 1000) / 1000.0 + ((i * 17) % 97) * 1e-15,
       ((i * 13) % 200 - 100) / 100000.0,
       (i % 19) - 9,
       round(((i * 6007) % 200001 - 100000) / 100.0, 2),
       (i % 1000) * 100,
       i / 7.0,
       i * 1000000000.01,
       i % 5
FROM generate_series(1, 5000) i;
-- the extremes, zeros written in every way, NaN and NULL
INSERT INTO nm (id, m, w, f, t, o, m2) VALUES
  (-1, 9999999999999.99, 999999999999999999, 0.999999999999999999, 0.009999, 9, 9999999999999.99),
  (-2, -9999999999999.99, -999999999999999999, -0.999999999999999999, -0.009999, -9, -9999999999999.99),
  (-3, 0, 0, 0, 0, 0, 0), (-4, -0.00, -0, -0.0, -0.000000, -0, 0.00),
  (-5, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (-6, 'NaN', 1, 0.5, 0.005, 1, 'NaN'),
  (-7, NULL, NULL, NULL, NULL, NULL, NULL), (-8, 0.01, 1, 1e-18, 0.000001, 1, -0.01),
  (-9, 1e12, 1e17, 1e-10, 1e-6, 5, 1e12), (-10, 10000.00, 10000, 0.0001, 0.0001, 1, 10000);
ANALYZE nm;

-- every comparison of each device column with each constant, either way
-- round, through gpusel (gpu_filter forces its scan) and through
-- PostgreSQL; returns the cases whose row sets differ
CREATE TEMP TABLE checked (n int);
CREATE FUNCTION pg_temp.mismatches(cols text[], consts text[], tab text DEFAULT 'nm') RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  col text; c text; op text; q text; pred text; got text; want text; n int := 0;
  session_jit text := current_setting('jit');
BEGIN
  -- JIT (forced in one of the suite's modes) compiles each query in ~0.4 s:
  -- of these thousands of cases, every 500th runs under the session's jit
  PERFORM set_config('jit', 'off', true);
  FOREACH col IN ARRAY cols LOOP
    FOREACH c IN ARRAY consts LOOP
      FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
        FOREACH pred IN ARRAY ARRAY[format('%s %s %L::numeric', col, op, c),
                                    format('%L::numeric %s %s', c, op, col)] LOOP
          q := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM ' || tab || ' WHERE ';
          IF n % 500 = 0 THEN PERFORM set_config('jit', session_jit, true); END IF;
          PERFORM set_config('gpusel.enable_scan', 'on', true);
          EXECUTE q || 'gpu_filter(' || pred || ')' INTO got;
          PERFORM set_config('gpusel.enable_scan', 'off', true);
          EXECUTE q || pred INTO want;
          PERFORM set_config('gpusel.enable_scan', 'on', true);
          IF n % 500 = 0 THEN PERFORM set_config('jit', 'off', true); END IF;
          n := n + 1;
          IF got IS DISTINCT FROM want THEN
            RETURN NEXT format('%s: gpusel %s, PostgreSQL %s', pred, got, want);
          END IF;
        END LOOP;
      END LOOP;
    END LOOP;
  END LOOP;
  PERFORM set_config('jit', session_jit, true);
  INSERT INTO checked VALUES (n);
END $$;


CREATE FUNCTION pg_temp.rows_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE got text; want text; wq text;
BEGIN
  wq := 'SELECT string_agg(s::text, '';'' ORDER BY s::text) FROM (' || q || ') s';
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
  EXECUTE wq INTO got;
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'off', true);
  EXECUTE replace(wq, 'gpu_filter', '') INTO want;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.replace_builtin_percentiles', 'on', true);
  RETURN CASE WHEN got IS NOT DISTINCT FROM want THEN 'same' ELSE 'gpusel ' || coalesce(got, 'NULL') || ' | PostgreSQL ' || coalesce(want, 'NULL') END;
END $$;
