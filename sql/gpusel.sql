-- gpusel: GPU filtering and exact percentile selection, the objects of the
-- default version; make copies this file to sql/gpusel--<default_version>.sql.
\echo Use "CREATE EXTENSION gpusel" to load this file. \quit

-- Device ------------------------------------------------------------------

CREATE FUNCTION gpusel_device_info(
    OUT usable boolean,
    OUT device_count integer,
    OUT device_name text,
    OUT compute_capability text,
    OUT total_memory_mb bigint,
    OUT free_memory_mb bigint,
    OUT driver_version text,
    OUT runtime_version text,
    OUT reason text)
RETURNS record
AS 'MODULE_PATHNAME', 'gpusel_device_info'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_device_info() IS
'the GPU as this session sees it, and why it is not usable when it is not';

CREATE FUNCTION gpusel_stats(
    OUT gpu_selections bigint,
    OUT cpu_selections bigint,
    OUT gpu_fallbacks bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'gpusel_stats'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_stats() IS
'how many percentile selections this session ran on the GPU and on the CPU';

-- GPU service ---------------------------------------------------------------
-- With gpusel in shared_preload_libraries, one process owns the GPUs; these
-- show its state.  Without preload they answer with the state 'off'.

CREATE FUNCTION gpusel_service_status(
    OUT state text,
    OUT supervisor_pid integer,
    OUT device_pid integer,
    OUT devices integer,
    OUT device_name text,
    OUT staging_mb bigint,
    OUT staging_in_use_mb double precision,
    OUT connections integer,
    OUT requests_in_flight integer,
    OUT requests_done bigint,
    OUT errors bigint,
    OUT restarts bigint,
    OUT last_exit text,
    OUT last_error text)
RETURNS record
AS 'MODULE_PATHNAME', 'gpusel_service_status'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_service_status() IS
'the GPU service: its processes, staging memory, connections, requests, errors and restarts';

CREATE VIEW gpusel_service AS SELECT * FROM gpusel_service_status();
GRANT SELECT ON gpusel_service TO PUBLIC;

CREATE FUNCTION gpusel_service_devices(
    OUT device integer,
    OUT device_name text,
    OUT total_memory_mb bigint,
    OUT connections integer,
    OUT requests bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpusel_service_devices'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_service_devices() IS
'each GPU the service drives, with its connections and the requests it ran';

CREATE FUNCTION gpusel_service_ping(hold_ms integer DEFAULT 0)
RETURNS integer
AS 'MODULE_PATHNAME', 'gpusel_service_ping'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_service_ping(integer) IS
'sends the service a request it holds for hold_ms milliseconds; returns the GPU this session uses';

CREATE FUNCTION gpusel_service_inject_fault(kind text)
RETURNS void
AS 'MODULE_PATHNAME', 'gpusel_service_inject_fault'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpusel_service_inject_fault(text) IS
'makes the service''s device process crash (''crash'') or meet a CUDA error (''cuda_error''), to test recovery';

REVOKE ALL ON FUNCTION gpusel_service_ping(integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION gpusel_service_inject_fault(text) FROM PUBLIC;

-- Percentiles -------------------------------------------------------------
-- PARALLEL SAFE as PostgreSQL's percentile_disc and percentile_cont: an
-- ordered-set aggregate is never split over workers, but it may run whole
-- inside one (a worker selects on the CPU, never creating a CUDA context),
-- and it must not keep the plan below it serial.

CREATE FUNCTION gpusel_percentile_transition(internal, "any")
RETURNS internal
AS 'MODULE_PATHNAME', 'gpusel_percentile_transition'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpusel_percentile_disc_final(internal, float8, anyelement)
RETURNS anyelement
AS 'MODULE_PATHNAME', 'gpusel_percentile_disc_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpusel_percentile_disc_multi_final(internal, float8[], anyelement)
RETURNS anyarray
AS 'MODULE_PATHNAME', 'gpusel_percentile_disc_multi_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpusel_percentile_cont_float8_final(internal, float8, float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'gpusel_percentile_cont_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpusel_percentile_cont_interval_final(internal, float8, interval)
RETURNS interval
AS 'MODULE_PATHNAME', 'gpusel_percentile_cont_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpusel_percentile_cont_float8_multi_final(internal, float8[], float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'gpusel_percentile_cont_multi_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpusel_percentile_cont_interval_multi_final(internal, float8[], interval)
RETURNS interval[]
AS 'MODULE_PATHNAME', 'gpusel_percentile_cont_multi_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE AGGREGATE gpu_percentile(float8 ORDER BY anyelement) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_disc_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_percentile(float8[] ORDER BY anyelement) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_disc_multi_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_percentile_cont(float8 ORDER BY float8) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_float8_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_percentile_cont(float8 ORDER BY interval) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_interval_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_percentile_cont(float8[] ORDER BY float8) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_float8_multi_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_percentile_cont(float8[] ORDER BY interval) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_interval_multi_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_percentile(float8 ORDER BY anyelement) IS
'discrete percentile, exactly as percentile_disc, selected on the GPU when it pays';
COMMENT ON AGGREGATE gpu_percentile(float8[] ORDER BY anyelement) IS
'several discrete percentiles, exactly as percentile_disc, in one selection';
COMMENT ON AGGREGATE gpu_percentile_cont(float8 ORDER BY float8) IS
'continuous percentile, exactly as percentile_cont';
COMMENT ON AGGREGATE gpu_percentile_cont(float8 ORDER BY interval) IS
'continuous percentile, exactly as percentile_cont';
COMMENT ON AGGREGATE gpu_percentile_cont(float8[] ORDER BY float8) IS
'several continuous percentiles, exactly as percentile_cont';
COMMENT ON AGGREGATE gpu_percentile_cont(float8[] ORDER BY interval) IS
'several continuous percentiles, exactly as percentile_cont';

-- Filtering ---------------------------------------------------------------

CREATE FUNCTION gpu_filter_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_filter_support'
LANGUAGE C STRICT;

-- LEAKPROOF: it returns its argument and never fails, so it does not keep a
-- leakproof predicate from running ahead of row-level-security quals.
CREATE FUNCTION gpu_filter(boolean)
RETURNS boolean
AS 'MODULE_PATHNAME', 'gpu_filter'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
SUPPORT gpu_filter_support;

COMMENT ON FUNCTION gpu_filter(boolean) IS
'returns its argument; in a WHERE clause, runs the predicate in the GPU scan';

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
