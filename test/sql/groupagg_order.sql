-- The grouped scan returns its groups in the query's ORDER BY when that
-- sorts by exactly the group keys (EXPLAIN shows "Group Order" and no Sort
-- above it): every direction, NULLS FIRST and LAST, text in the database's
-- collation and in "C", expression and char(n) keys, NaN and -0, against
-- PostgreSQL's own answer row by row.  An ORDER BY of other expressions, or
-- of only some keys, keeps PostgreSQL's Sort.
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.min_rows = 0;

CREATE TABLE go (id int4, a int4, t text, c char(3), x float8, ts timestamp, v float8);
INSERT INTO go
SELECT g,
       CASE WHEN g % 11 = 0 THEN NULL ELSE g % 7 - 3 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE (ARRAY['b', 'B', 'a', 'ä', 'Z', '10', '9', ' x', 'ab'])[g % 9 + 1] END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE (ARRAY['x', 'ab', 'a', 'zz'])[g % 4 + 1] END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE (g % 5 - 2) / 2.0 END,
       timestamp '2026-01-01' + g * interval '7 minutes',
       (g * 37 % 1000) / 10.0
FROM generate_series(1, 3001) g;
UPDATE go SET x = 'NaN' WHERE id IN (5, 500);
UPDATE go SET x = '-0' WHERE id IN (6, 600);
UPDATE go SET x = 'Infinity' WHERE id = 7;
UPDATE go SET x = '-Infinity' WHERE id = 8;
ANALYZE go;

-- q's rows in their order under PostgreSQL's plan and under the grouped
-- scan; in_scan says the scan returned them in order (no Sort above it)
CREATE FUNCTION go_check(q text, OUT in_scan bool, OUT same bool, OUT nrows int)
LANGUAGE plpgsql AS $$
DECLARE
  r record; ref text := ''; got text := ''; line text; has_sort bool := false;
BEGIN
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  nrows := 0;
  FOR r IN EXECUTE q LOOP ref := ref || r::text || '|'; nrows := nrows + 1; END LOOP;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.force_groupagg', 'on', true);
  FOR r IN EXECUTE q LOOP got := got || r::text || '|'; END LOOP;
  in_scan := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%Group Order:%' THEN in_scan := true; END IF;
    IF line LIKE '%Sort%' AND line NOT LIKE '%Group Order%' THEN has_sort := true; END IF;
  END LOOP;
  in_scan := in_scan AND NOT has_sort;
  PERFORM set_config('gpusel.force_groupagg', 'off', true);
  same := ref = got;
  IF NOT same THEN
    RAISE NOTICE 'mismatch for %: % against %', q, left(ref, 300), left(got, 300);
  END IF;
END $$;

SELECT q, (go_check(q)).* FROM (VALUES
  ('SELECT a, t, count(*), sum(v) FROM go GROUP BY a, t ORDER BY a, t'),
  ('SELECT a, t, count(*) FROM go GROUP BY a, t ORDER BY t DESC, a'),
  ('SELECT a, t, count(*) FROM go GROUP BY a, t ORDER BY a NULLS FIRST, t DESC NULLS LAST'),
  ('SELECT a, t, count(*) FROM go GROUP BY a, t ORDER BY a DESC NULLS LAST, t NULLS FIRST'),
  ('SELECT t, a, max(v) FROM go GROUP BY 1, 2 ORDER BY 2, 1'),
  ('SELECT t, count(*) FROM go GROUP BY t ORDER BY t'),
  ('SELECT c, count(*) FROM go GROUP BY c ORDER BY c DESC'),
  ('SELECT x, count(*), min(v) FROM go GROUP BY x ORDER BY x'),
  ('SELECT x, count(*) FROM go GROUP BY x ORDER BY x DESC'),
  ('SELECT date_trunc(''hour'', ts) h, count(*), sum(a) FROM go GROUP BY 1 ORDER BY 1 DESC'),
  ('SELECT t, date_trunc(''day'', ts) d, percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY v) FROM go GROUP BY 1, 2 ORDER BY 1, 2'),
  ('SELECT a, t, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM go WHERE v > 10 GROUP BY a, t HAVING count(*) > 5 ORDER BY t, a'),
  ('SELECT a, count(*) FROM go GROUP BY a ORDER BY a LIMIT 3'),
  -- keys whose ranks together take many more values than there are groups (a sort, not a count)
  ('SELECT id % 1000 p, id % 997 q, count(*) FROM go GROUP BY 1, 2 ORDER BY 1, 2 DESC'),
  -- fraction arrays of their own over one column (one collection of keys)
  ('SELECT a, percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY v), percentile_cont(ARRAY[0.1, 0.2, 0.3]) WITHIN GROUP (ORDER BY v), percentile_disc(ARRAY[0.99, NULL]) WITHIN GROUP (ORDER BY v) FROM go GROUP BY a ORDER BY a'),
  -- kept under PostgreSQL's Sort: another collation, an expression of a key, not every key
  ('SELECT t, count(*) FROM go GROUP BY t ORDER BY t COLLATE "C"'),
  ('SELECT a, count(*) FROM go GROUP BY a ORDER BY -a'),
  ('SELECT a, t, count(*) FROM go GROUP BY a, t ORDER BY count(*), a, t'),
  ('SELECT a, c, count(*) FROM go GROUP BY a, c ORDER BY a, c, count(*)')
) v(q);

-- rescanned under a nested loop: every scan returns its groups in order
SET enable_memoize = off;
SELECT q, (go_check(q)).* FROM (VALUES
  ('SELECT o.v, s.* FROM (VALUES (0), (37), (1000)) o(v), LATERAL (SELECT a, t, count(*) c, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM go GROUP BY a, t HAVING count(*) > o.v ORDER BY t DESC, a) s')
) v(q);
RESET enable_memoize;

-- the same over a text column in the "C" collation
ALTER TABLE go ALTER COLUMN t TYPE text COLLATE "C";
SELECT q, (go_check(q)).* FROM (VALUES
  ('SELECT t, a, count(*) FROM go GROUP BY t, a ORDER BY t, a'),
  ('SELECT t, count(*) FROM go GROUP BY t ORDER BY t DESC')
) v(q);

-- under Gather Merge: the workers send their groups and keys to the leader,
-- which returns the merged groups in the ORDER BY (no Sort above it)
CREATE TABLE go_par AS
SELECT g AS id, CASE WHEN g % 101 = 0 THEN NULL ELSE g % 37 - 18 END AS a,
       (ARRAY['b', 'B', 'a', 'ä', 'Z', '10', '9', ' x', 'ab'])[g % 9 + 1] AS t,
       (g * 7919 % 10007) / 7.0::float8 AS v
FROM generate_series(1, 60000) g;
ALTER TABLE go_par SET (parallel_workers = 2);
ANALYZE go_par;
SET gpusel.device = cpu;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
-- (a FOR loop in PL/pgSQL plans without parallel workers: the rows are
-- numbered as they arrive into tables made by CREATE TABLE AS instead, and
-- the plan is that statement's)
CREATE FUNCTION go_par_check(q text, OUT plan text, OUT same bool, OUT nrows bigint)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
  wrapped text := 'SELECT row_number() OVER () AS n, s::text AS r FROM (' || q || ') s';
BEGIN
  PERFORM set_config('gpusel.enable_scan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE go_ref AS ' || wrapped;
  PERFORM set_config('gpusel.enable_scan', 'on', true);
  PERFORM set_config('gpusel.force_groupagg', 'on', true);
  EXECUTE 'CREATE TEMP TABLE go_got AS ' || wrapped;
  plan := '';
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) CREATE TEMP TABLE go_plan AS ' || wrapped LOOP
    IF line LIKE '%Gather Merge%' THEN plan := plan || 'gather merge '; END IF;
    IF line LIKE '%Workers Launched: 2%' THEN plan := plan || '2 workers '; END IF;
    IF line LIKE '%Group Order:%' THEN plan := plan || 'group order '; END IF;
    IF line LIKE '%Sort%' AND line NOT LIKE '%Group Order%' THEN plan := plan || 'sort '; END IF;
  END LOOP;
  PERFORM set_config('gpusel.force_groupagg', 'off', true);
  SELECT count(*) = 0 INTO same FROM go_ref o FULL JOIN go_got g USING (n) WHERE g.r IS DISTINCT FROM o.r;
  SELECT count(*) INTO nrows FROM go_ref;
  DROP TABLE go_ref, go_got, go_plan;
END $$;
SELECT q, (go_par_check(q)).* FROM (VALUES
  ('SELECT a, t, count(*), sum(id), max(v) FROM go_par GROUP BY a, t ORDER BY a, t'),
  ('SELECT a, t, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM go_par GROUP BY a, t ORDER BY t DESC, a NULLS FIRST'),
  ('SELECT t, percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY v), count(*) FROM go_par GROUP BY t ORDER BY t'),
  ('SELECT id % 1000 p, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM go_par GROUP BY 1 ORDER BY 1 DESC')
) v(q);
DROP FUNCTION go_par_check(text);
DROP TABLE go_par;
RESET gpusel.device;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- EXPLAIN names the order the groups come in
SET gpusel.force_groupagg = on;
EXPLAIN (COSTS OFF) SELECT a, t, count(*) FROM go GROUP BY a, t ORDER BY t DESC, a NULLS FIRST;
-- and without gpusel.enable_group_order PostgreSQL sorts them
SET gpusel.enable_group_order = off;
EXPLAIN (COSTS OFF) SELECT a, t, count(*) FROM go GROUP BY a, t ORDER BY t DESC, a NULLS FIRST;
RESET gpusel.enable_group_order;
RESET gpusel.force_groupagg;
DROP FUNCTION go_check(text);
DROP TABLE go;
