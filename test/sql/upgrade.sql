-- Extension versions: CREATE EXTENSION gpusel VERSION '1.0' followed by
-- ALTER EXTENSION gpusel UPDATE gives the same catalog as a fresh install of
-- the default version, and every aggregate is PARALLEL SAFE, as PostgreSQL's
-- percentile_disc and percentile_cont are.  Runs in a database of its own.
-- 1.0's install script is not shipped: it is test/fixtures/gpusel--1.0.sql,
-- installed by test/run_all.sh or `make install-test-fixtures`.
SELECT current_database() AS regress_db \gset
CREATE DATABASE gpusel_upgrade;
\c gpusel_upgrade

-- every object of the extension with the properties a script sets
CREATE FUNCTION up_catalog() RETURNS TABLE (obj text, props text)
LANGUAGE sql AS $$
  SELECT pg_describe_object(d.classid, d.objid, d.objsubid),
         CASE WHEN d.classid = 'pg_proc'::regclass THEN
           (SELECT concat_ws(' ', p.prokind, p.provolatile, p.proparallel, p.proisstrict,
                             p.proleakproof, p.prosecdef, p.procost, p.prorows,
                             p.prosupport::text, p.prorettype::regtype::text, p.prosrc,
                             obj_description(p.oid, 'pg_proc'),
                             a.aggkind, a.aggnumdirectargs, a.aggtransfn::text,
                             a.aggfinalfn::text, a.aggfinalextra, a.aggfinalmodify,
                             a.aggcombinefn::text, a.aggtranstype::regtype::text)
            FROM pg_proc p LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
            WHERE p.oid = d.objid)
         END
  FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
    AND e.extname = 'gpusel'
$$;

CREATE EXTENSION gpusel VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'gpusel';
-- 1.0's aggregates are PARALLEL UNSAFE
SELECT p.oid::regprocedure AS aggregate, p.proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpusel')
WHERE p.prokind = 'a' ORDER BY 1::text;
-- so the built-ins are not answered by them: the query would lose parallel plans
CREATE TABLE up_t (x float8);
EXPLAIN (VERBOSE, COSTS OFF) SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM up_t;
ALTER EXTENSION gpusel UPDATE;
EXPLAIN (VERBOSE, COSTS OFF) SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM up_t;
SELECT extversion FROM pg_extension WHERE extname = 'gpusel';
CREATE TABLE up_upgraded AS SELECT * FROM up_catalog();
DROP EXTENSION gpusel;

CREATE EXTENSION gpusel;
SELECT extversion FROM pg_extension WHERE extname = 'gpusel';
CREATE TABLE up_fresh AS SELECT * FROM up_catalog();
SELECT count(*) AS objects, count(DISTINCT obj) AS distinct_objects FROM up_fresh;
-- no object differs between the two
(SELECT 'only fresh' AS side, * FROM up_fresh EXCEPT SELECT 'only fresh', * FROM up_upgraded)
UNION ALL
(SELECT 'only upgraded', * FROM up_upgraded EXCEPT SELECT 'only upgraded', * FROM up_fresh);

-- PostgreSQL's opr_sanity rule: every aggregate is PARALLEL SAFE, as the
-- built-in ordered-set aggregates are
SELECT p.oid::regprocedure AS aggregate, p.proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpusel')
WHERE p.prokind = 'a' ORDER BY 1::text;
SELECT proname, proparallel FROM pg_proc
WHERE proname IN ('percentile_disc', 'percentile_cont') GROUP BY 1, 2 ORDER BY 1;

\c :regress_db
DROP DATABASE gpusel_upgrade;
