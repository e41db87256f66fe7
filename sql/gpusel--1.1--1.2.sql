-- gpusel 1.1 -> 1.2: the GPU service's status functions and view.
\echo Use "ALTER EXTENSION gpusel UPDATE TO '1.2'" to load this file. \quit

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
