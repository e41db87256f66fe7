--
-- Functions the differential suites (groupagg.sql, groupagg_text.sql,
-- parallel.sql, tpch.sql) share,
-- included by them with \i: the plan a query gets, and the comparison of
-- the oracle's result (PostgreSQL untouched) with gpusel's.
--

-- The plan a statement gets, as text.
CREATE OR REPLACE FUNCTION oracle_explain(q text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  line text;
  plan text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan;
END
$fn$;

-- What a plan is: "gpusel group" when a GpuSelScan answers the query with
-- no PostgreSQL Aggregate node in the plan, "gpusel other" when a gpusel
-- node is in the plan beside PostgreSQL's aggregation, "postgres"
-- otherwise.
CREATE OR REPLACE FUNCTION oracle_plan_kind(plan text) RETURNS text LANGUAGE sql AS $fn$
  SELECT CASE
    WHEN plan LIKE '%Custom Scan (GpuSelScan)%' AND plan NOT LIKE '%Aggregate%' THEN 'gpusel group'
    WHEN plan LIKE '%GpuSel%' THEN 'gpusel other'
    ELSE 'postgres' END
$fn$;

-- Compares the temp tables <prefix>_oracle and <prefix>_gpusel, whose
-- first nkeys columns are the group keys, and drops them.  The full join matches keys
-- as IS NOT DISTINCT FROM does (NULL with NULL, NaN with NaN, -0 with 0),
-- written so that it can be hashed: the text form of the key, with float
-- keys plus 0 (-0 + 0 is 0), and a marker for NULL.  The other columns
-- match only when their text forms are the same: floats exactly (-0 apart
-- from 0), numeric with its scale.  With no keys, the rows are compared as
-- multisets of their text forms.  The mismatches count the rows of either
-- side without an exact partner, and any difference in the number of rows.
CREATE OR REPLACE FUNCTION oracle_compare(prefix text, nkeys int, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  cols text[];
  types text[];
  keycond text := 'true';
  valcond text := 'false';
  n_g bigint;
  example text;
  i int;
  o text := quote_ident(prefix || '_oracle');
  g text := quote_ident(prefix || '_gpusel');
BEGIN
  -- the comparison itself need not be compiled when JIT is forced
  PERFORM set_config('jit', 'off', true);
  SELECT array_agg(quote_ident(attname) ORDER BY attnum),
         array_agg(format_type(atttypid, atttypmod) ORDER BY attnum) INTO cols, types
    FROM pg_attribute WHERE attrelid = o::regclass AND attnum > 0 AND NOT attisdropped;
  EXECUTE format('SELECT count(*) FROM %s', o) INTO total_rows;
  EXECUTE format('SELECT count(*) FROM %s', g) INTO n_g;
  IF nkeys = 0 THEN
    EXECUTE format('SELECT count(*) FROM ((SELECT o::text FROM %1$s o EXCEPT ALL SELECT g::text FROM %2$s g)'
                   ' UNION ALL (SELECT g::text FROM %2$s g EXCEPT ALL SELECT o::text FROM %1$s o)) d', o, g)
      INTO mismatches;
  ELSE
    FOR i IN 1 .. array_length(cols, 1) LOOP
      IF i <= nkeys THEN
        IF types[i] IN ('real', 'double precision') THEN
          keycond := keycond || format(' AND coalesce((o.%s::float8 + 0)::text, ''(null)'')'
                                       ' = coalesce((g.%s::float8 + 0)::text, ''(null)'')', cols[i], cols[i]);
        ELSE
          keycond := keycond || format(' AND coalesce(o.%s::text, ''(null)'') = coalesce(g.%s::text, ''(null)'')',
                                       cols[i], cols[i]);
        END IF;
      ELSE
        valcond := valcond || format(' OR o.%s::text IS DISTINCT FROM g.%s::text', cols[i], cols[i]);
      END IF;
    END LOOP;
    EXECUTE format('SELECT count(*) FROM %s o FULL JOIN %s g ON %s'
                   ' WHERE o.ctid IS NULL OR g.ctid IS NULL OR %s', o, g, keycond, valcond)
      INTO mismatches;
    mismatches := mismatches + abs(total_rows - n_g);
  END IF;
  IF mismatches > 0 THEN
    EXECUTE format('SELECT string_agg(s, E''\n'') FROM ((SELECT ''oracle '' || o::text AS s FROM %1$s o'
                   ' EXCEPT SELECT ''oracle '' || g::text FROM %2$s g ORDER BY 1 LIMIT 10) UNION ALL'
                   ' (SELECT ''gpusel '' || g::text FROM %2$s g'
                   ' EXCEPT SELECT ''gpusel '' || o::text FROM %1$s o ORDER BY 1 LIMIT 10)) x', o, g)
      INTO example;
    RAISE NOTICE 'rows that differ: %', example;
  END IF;
  EXECUTE format('DROP TABLE %s, %s', o, g);
END
$fn$;

-- Runs stmt as the oracle, PostgreSQL untouched: gpusel's scan and its
-- replacement of the built-in percentiles off, no JIT (when forced, it is
-- for gpusel's run), the planner's aggregation methods on; first checks
-- that the plan of plan_q holds no gpusel node.  The settings are put back.
CREATE OR REPLACE FUNCTION oracle_run(stmt text, plan_q text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  names text[] := ARRAY['jit', 'gpusel.enable_scan', 'gpusel.replace_builtin_percentiles',
                        'enable_hashagg', 'enable_sort'];
  oracle text[] := ARRAY['off', 'off', 'off', 'on', 'on'];
  saved text[] := '{}';
BEGIN
  FOR i IN 1 .. array_length(names, 1) LOOP
    saved := saved || current_setting(names[i]);
    PERFORM set_config(names[i], oracle[i], true);
  END LOOP;
  IF oracle_plan_kind(oracle_explain(plan_q)) <> 'postgres' THEN
    RAISE EXCEPTION 'the oracle plan uses gpusel: %', plan_q;
  END IF;
  EXECUTE stmt;
  FOR i IN 1 .. array_length(names, 1) LOOP
    PERFORM set_config(names[i], saved[i], true);
  END LOOP;
END
$fn$;

-- Runs q as the oracle (oracle_run; gpu_percentile and gpu_percentile_cont
-- spelt as the built-ins there), then with gpusel's settings as they are,
-- and compares the results (oracle_compare): the plan kind gpusel's run
-- had, the oracle's number of rows and the rows that do not match (0).
CREATE OR REPLACE FUNCTION oracle_check(q text, nkeys int DEFAULT 1,
                                        OUT plan text, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  oq text := replace(replace(q, 'gpu_percentile_cont(', 'percentile_cont('),
                     'gpu_percentile(', 'percentile_disc(');
BEGIN
  PERFORM oracle_run('CREATE TEMP TABLE oc_oracle AS ' || oq, oq);
  plan := oracle_plan_kind(oracle_explain(q));
  EXECUTE 'CREATE TEMP TABLE oc_gpusel AS ' || q;
  SELECT c.total_rows, c.mismatches INTO total_rows, mismatches FROM oracle_compare('oc', nkeys) c;
END
$fn$;
