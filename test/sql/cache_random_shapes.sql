-- Random tables and percentile queries over the column cache, each answer
-- compared with PostgreSQL's.  Every case draws, from its own seed: a
-- size (1 row to 250,003), a distribution of the percentile column
-- (uniform, skewed, five values, all equal, sorted, reverse-sorted) with a
-- share of NaN, the infinities, -0, 0 and NULL, the number of groups
-- (1 to 20,000, some keys NULL), sometimes a wrong n_distinct, sometimes
-- writes after the build (their blocks then come from the heap), work_mem,
-- the workers, and six queries (percentile_disc or _cont, one fraction or
-- an array of them, ASC or DESC, count/sum/avg/min/max beside, a filter,
-- no key, one or two).  Half the cases run on the CPU (where percentile
-- keys past work_mem are read in two rounds under Gather), half with the
-- session's gpusel.device.  Each statement of a case runs on its own, so
-- that the queries run in a transaction that has not written the table
-- (one that has reads the heap).  Needs gpusel preloaded (the alternative
-- output, cache_random_shapes_1.out, has none of it).
SELECT current_setting('shared_preload_libraries') ~ 'gpusel' AS preloaded \gset
\if :preloaded
\else
\quit
\endif

CREATE TABLE cache_rs_results (seed int, cpu boolean, q text, cached boolean, rounds boolean,
                               same boolean);

-- a row's text with every number -0 written 0: where a group holds both
-- zeros, which one PostgreSQL's percentile_disc returns depends on the
-- order its sort met them in, under Gather on the workers' timing
CREATE FUNCTION cache_rs_zero_unsigned(t text) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT regexp_replace(t, '(^|[^0-9.eE+-])-0(?=$|[^0-9.eE])', '\10', 'g') $$;

-- one of the choices, drawn
CREATE FUNCTION cache_rs_pick(choices text[]) RETURNS text LANGUAGE sql VOLATILE AS
$$ SELECT choices[1 + floor(random() * array_length(choices, 1))::int] $$;

-- The statements of case 'seed', in order.
CREATE FUNCTION cache_rs_case(seed int) RETURNS SETOF text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n int;
  ngroups int;
  x text;
  g text;
  q text;
  fractions text;
  kind text;
  col text;
BEGIN
  PERFORM setseed((seed % 997) / 997.0);
  n := cache_rs_pick('{1,37,1000,30011,120007,250003}')::int;
  ngroups := cache_rs_pick('{1,3,17,50,2000,20000}')::int;
  x := cache_rs_pick(ARRAY['random()', 'power(random(), 8)', 'floor(random() * 5)', '0.25',
                           'i::float8', '(-i)::float8']);
  x := format($f$CASE WHEN random() < %s THEN (ARRAY['NaN','Infinity','-Infinity','-0','0',NULL])[1 + floor(random() * 6)::int]::float8 ELSE %s END$f$,
              cache_rs_pick('{0,0.01,0.2}'), x);
  g := CASE WHEN random() < 0.8
            THEN format('CASE WHEN random() < 0.02 THEN NULL ELSE floor(random() * %s)::int4 END', ngroups)
            ELSE format('(i %% %s)::int4', ngroups) END;
  RETURN NEXT format($f$SELECT setseed(%s)$f$, (seed % 991) / 991.0);
  RETURN NEXT format($f$CREATE TABLE cache_rs_t WITH (autovacuum_enabled = off) AS
    SELECT i::int8 AS id, %s AS g, 'k' || ((i * 7) %% %s) AS t,
    %s AS x, (random() * 1000)::int8 - 500 AS y, date '2020-01-01' + (i %% 400) AS d
    FROM generate_series(1, %s) i$f$, g, ngroups / 3 + 1, x, n);
  RETURN NEXT format('ALTER TABLE cache_rs_t SET (parallel_workers = %s)', cache_rs_pick('{1,2,3}'));
  IF random() < 0.3 THEN
    RETURN NEXT format('ALTER TABLE cache_rs_t ALTER COLUMN g SET (n_distinct = %s)', cache_rs_pick('{1,5,100000}'));
  END IF;
  RETURN NEXT 'ANALYZE cache_rs_t';
  RETURN NEXT $s$SELECT gpusel_cache('cache_rs_t', ARRAY['id', 'g', 't', 'x', 'y', 'd'])$s$;
  IF random() < 0.4 THEN
    RETURN NEXT format('UPDATE cache_rs_t SET x = -x, g = g + 1 WHERE id %% %s = 0', cache_rs_pick('{7,13,101}'));
    RETURN NEXT format('DELETE FROM cache_rs_t WHERE id %% %s = 1', cache_rs_pick('{11,17}'));
    RETURN NEXT format($f$INSERT INTO cache_rs_t SELECT i, i %% 5, 'new', i / 7.0, i, date '2021-01-01'
      FROM generate_series(%s, %s) i$f$, n + 1, n + cache_rs_pick('{1,500,5000}')::int);
  END IF;
  RETURN NEXT format('SET work_mem = %L', cache_rs_pick('{64kB,64kB,256kB}'));
  RETURN NEXT format('SET max_parallel_workers_per_gather = %s', cache_rs_pick('{1,2,3}'));
  RETURN NEXT CASE WHEN seed % 2 = 0 THEN 'SET gpusel.device = cpu' ELSE 'RESET gpusel.device' END;
  FOR k IN 1 .. 6 LOOP
    SELECT string_agg(f, ',' ORDER BY f::numeric) INTO fractions
      FROM (SELECT f FROM unnest('{0,0.001,0.1,0.25,0.5,0.5,0.75,0.9,0.99,1}'::text[]) f
            ORDER BY random() LIMIT cache_rs_pick('{1,1,2,3,5}')::int) s;
    IF fractions ~ ',' OR random() < 0.5 THEN
      fractions := 'ARRAY[' || fractions || ']';
    END IF;
    kind := cache_rs_pick('{percentile_disc,percentile_cont}');
    col := CASE WHEN kind = 'percentile_disc' THEN cache_rs_pick('{x,x,y,d}') ELSE cache_rs_pick('{x,x,y}') END;
    q := format('%s(%s) WITHIN GROUP (ORDER BY %s%s)%s', kind, fractions, col,
                CASE WHEN random() < 0.3 THEN ' DESC' ELSE '' END,
                cache_rs_pick(ARRAY['', ', count(*)', ', count(*), sum(y), avg(y)', ', min(x), max(d)']));
    g := cache_rs_pick('{g,g,t,"g, t",""}');
    q := CASE WHEN g = '' THEN format('SELECT %s FROM cache_rs_t', q)
              ELSE format('SELECT %s, %s FROM cache_rs_t', g, q) END ||
         cache_rs_pick(ARRAY['', '', ' WHERE y > 0', ' WHERE x < 0.5', $w$ WHERE d > date '2020-06-01'$w$]) ||
         CASE WHEN g = '' THEN '' ELSE ' GROUP BY ' || g END;
    RETURN NEXT format('SELECT cache_rs_check(%s, %L)', seed, q);
  END LOOP;
  RETURN NEXT $s$SELECT gpusel_uncache('cache_rs_t')$s$;
  RETURN NEXT 'DROP TABLE cache_rs_t';
  RETURN NEXT 'RESET gpusel.device';
END $$;

-- Runs query q as gpusel runs it and as PostgreSQL does, and notes whether
-- the answers are the same rows and whether it read the cache in two rounds.
CREATE FUNCTION cache_rs_check(seed int, q text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  gpu text;
  pg text;
  cached boolean := false;
  gather boolean := false;
  passes boolean := false;
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    cached := cached OR line ~ 'Source: column cache';
    gather := gather OR line ~ 'Gather';
    passes := passes OR line ~ 'Percentile Second Passes: [1-9]';
  END LOOP;
  EXECUTE format('SELECT md5(coalesce(string_agg(cache_rs_zero_unsigned(r::text), '','' ORDER BY cache_rs_zero_unsigned(r::text)), '''')) FROM (%s) r', q) INTO gpu;
  SET LOCAL gpusel.enable_scan = off;
  SET LOCAL gpusel.enable_groupagg = off;
  SET LOCAL gpusel.replace_builtin_percentiles = off;
  EXECUTE format('SELECT md5(coalesce(string_agg(cache_rs_zero_unsigned(r::text), '','' ORDER BY cache_rs_zero_unsigned(r::text)), '''')) FROM (%s) r', q) INTO pg;
  INSERT INTO cache_rs_results VALUES (seed, seed % 2 = 0, q, cached, gather AND passes, gpu = pg);
END $$;

SET gpusel.min_rows = 0;
-- ANALYZE reads every row (its sample would be 3M), so that the statistics,
-- and the plans, are the same on every run
SET default_statistics_target = 10000;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
-- the cases' statements and their results are not shown; an error would be
\set ECHO none
\o /dev/null
SELECT s FROM generate_series(1, 40) seed, cache_rs_case(seed) s \gexec
\o
\set ECHO all
-- 240 queries, every answer PostgreSQL's; of the 120 on the CPU, most
-- read the cache (105), and many read percentile keys in two rounds (38)
SELECT count(*) AS queries, count(*) FILTER (WHERE same) AS same,
       count(*) FILTER (WHERE cpu AND cached) >= 90 AS cpu_read_the_cache,
       count(*) FILTER (WHERE cpu AND rounds) >= 20 AS cpu_read_in_rounds
  FROM cache_rs_results;
SELECT seed, q FROM cache_rs_results WHERE NOT same ORDER BY seed, q;

RESET work_mem;
RESET max_parallel_workers_per_gather;
RESET gpusel.min_rows;
RESET default_statistics_target;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE cache_rs_results;
DROP FUNCTION cache_rs_case(int);
DROP FUNCTION cache_rs_check(int, text);
DROP FUNCTION cache_rs_pick(text[]);
DROP FUNCTION cache_rs_zero_unsigned(text);
