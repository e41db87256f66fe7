-- gpusel 1.2 -> 1.3: the column cache.
\echo Use "ALTER EXTENSION gpusel UPDATE TO '1.3'" to load this file. \quit

-- Column cache -------------------------------------------------------------
-- With gpusel in shared_preload_libraries, a table's columns can be kept in
-- shared memory; gpusel's scans read its unchanged blocks from there.

CREATE FUNCTION gpusel_cache(tbl regclass, columns text[] DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'gpusel_cache'
LANGUAGE C VOLATILE;

COMMENT ON FUNCTION gpusel_cache(regclass, text[]) IS
'keeps the table''s columns (those named, or every one the cache holds) in the column cache; returns the rows cached';

CREATE FUNCTION gpusel_uncache(tbl regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'gpusel_uncache'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_uncache(regclass) IS
'drops the table''s column cache and its triggers; true when it was cached';

CREATE FUNCTION gpusel_cache_refresh(min_changed double precision DEFAULT NULL)
RETURNS SETOF regclass
AS 'MODULE_PATHNAME', 'gpusel_cache_refresh'
LANGUAGE C VOLATILE;

COMMENT ON FUNCTION gpusel_cache_refresh(double precision) IS
'rebuilds this database''s cached tables that writes have left stale (min_changed, or gpusel.cache_refresh_threshold, of their blocks written, or unusable); returns those rebuilt';

CREATE FUNCTION gpusel_cache_track()
RETURNS trigger
AS 'MODULE_PATHNAME', 'gpusel_cache_track'
LANGUAGE C;

COMMENT ON FUNCTION gpusel_cache_track() IS
'trigger of a cached table: marks the blocks a write changed, so scans read them from the heap';

CREATE FUNCTION gpusel_cached_tables_info(
    OUT relation regclass,
    OUT columns text[],
    OUT rows bigint,
    OUT bytes bigint,
    OUT device_bytes bigint,
    OUT built_at timestamptz,
    OUT blocks bigint,
    OUT changed_blocks bigint,
    OUT current_fraction double precision,
    OUT hits bigint,
    OUT state text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpusel_cached_tables_info'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_cached_tables_info() IS
'the column cache''s tables in this database';

CREATE VIEW gpusel_cached_tables AS SELECT * FROM gpusel_cached_tables_info();
GRANT SELECT ON gpusel_cached_tables TO PUBLIC;
