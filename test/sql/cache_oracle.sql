--
-- The oracle the column cache suites (cache*.sql) share, included by each
-- with \i: cache_same_as_postgres(shapes) runs each query twice, as gpusel
-- runs it (through the cache where it holds the table) and as PostgreSQL
-- runs it with gpusel out of the way, and says for each whether the two
-- answers are the same rows (compared as sorted text, through an md5).
--
CREATE FUNCTION cache_same_as_postgres(shapes text[]) RETURNS TABLE (shape int, same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  gpu text;
  pg text;
BEGIN
  FOR i IN 1 .. array_length(shapes, 1) LOOP
    EXECUTE format('SELECT md5(coalesce(string_agg(r::text, '','' ORDER BY r::text), '''')) FROM (%s) r', shapes[i]) INTO gpu;
    SET LOCAL gpusel.enable_scan = off;
    SET LOCAL gpusel.enable_groupagg = off;
    SET LOCAL gpusel.replace_builtin_percentiles = off;
    EXECUTE format('SELECT md5(coalesce(string_agg(r::text, '','' ORDER BY r::text), '''')) FROM (%s) r', shapes[i]) INTO pg;
    SET LOCAL gpusel.enable_scan = on;
    SET LOCAL gpusel.enable_groupagg = on;
    SET LOCAL gpusel.replace_builtin_percentiles = on;
    shape := i; same := gpu = pg;
    RETURN NEXT;
  END LOOP;
END $$;
