--
-- The oracle the column cache suites (cache*.sql) share, included by each
-- with \i: cache_same_as_postgres(shapes) runs each query twice, as gpusel
-- runs it (through the cache where it holds the table) and as PostgreSQL
-- runs it with gpusel out of the way, and says for each whether the two
-- answers are the same rows (compared as sorted text, through an md5).
-- A zero's sign is read as the same: -0 and +0 are equal, and where a
-- group holds both, which one PostgreSQL's percentile_disc returns depends
-- on the order its sort met them in, under Gather on the workers' timing
-- (gpusel returns +0 then; semantics.md).  The tests that assert the sign
-- where it is determined compare the text itself.
--
-- a row's text with every -0 that stands alone written 0 (a text value
-- holding "x -0" would lose its sign too; the suites' texts hold none)
CREATE FUNCTION cache_zero_unsigned(t text) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT regexp_replace(t, '(^|[^0-9.eE+-])-0(?=$|[^0-9.eE])', '\10', 'g') $$;
CREATE FUNCTION cache_same_as_postgres(shapes text[]) RETURNS TABLE (shape int, same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  gpu text;
  pg text;
BEGIN
  FOR i IN 1 .. array_length(shapes, 1) LOOP
    EXECUTE format('SELECT md5(coalesce(string_agg(cache_zero_unsigned(r::text), '','' ORDER BY cache_zero_unsigned(r::text)), '''')) FROM (%s) r', shapes[i]) INTO gpu;
    SET LOCAL gpusel.enable_scan = off;
    SET LOCAL gpusel.enable_groupagg = off;
    SET LOCAL gpusel.replace_builtin_percentiles = off;
    EXECUTE format('SELECT md5(coalesce(string_agg(cache_zero_unsigned(r::text), '','' ORDER BY cache_zero_unsigned(r::text)), '''')) FROM (%s) r', shapes[i]) INTO pg;
    SET LOCAL gpusel.enable_scan = on;
    SET LOCAL gpusel.enable_groupagg = on;
    SET LOCAL gpusel.replace_builtin_percentiles = on;
    shape := i; same := gpu = pg;
    RETURN NEXT;
  END LOOP;
END $$;
