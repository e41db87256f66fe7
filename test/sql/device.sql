-- The device layer: parameters, the device report, statistics.
LOAD 'gpusel';
-- the parameters every session has; gpusel.service, gpusel.service_staging and
-- gpusel.service_buffer_pool exist only preloaded
SELECT name, boot_val, vartype FROM pg_settings WHERE name LIKE 'gpusel.%' AND context <> 'postmaster' ORDER BY name COLLATE "C";
SET gpusel.device = 'sometimes';
SET gpusel.min_rows = -1;

-- one row, whatever the machine; a usable GPU has a name, an unusable one a reason
SELECT count(*) AS rows,
       bool_and(CASE WHEN usable THEN device_name IS NOT NULL AND compute_capability IS NOT NULL
                     ELSE reason IS NOT NULL END) AS consistent
FROM gpusel_device_info();

-- gpusel.device = cpu never uses the GPU
SET gpusel.device = cpu;
CREATE TEMP TABLE before AS SELECT * FROM gpusel_stats();
SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 1000) g;
SELECT s.gpu_selections - b.gpu_selections AS gpu, s.cpu_selections - b.cpu_selections AS cpu
FROM gpusel_stats() s, before b;
RESET gpusel.device;

-- an unknown gpusel.* parameter is refused: the prefix is reserved
SET gpusel.no_such_setting = 1;

-- the GPU service's view answers with or without preload: 'off' without it
SELECT state IN ('off', 'stopped', 'starting', 'up', 'restarting') AS known_state,
       (state = 'off') = (current_setting('shared_preload_libraries') NOT LIKE '%gpusel%') AS off_unless_preloaded
FROM gpusel_service;
SELECT count(*) <= 16 AS at_most_16_devices FROM gpusel_service_devices();

-- its test requests check their arguments first, and are for superusers only
SELECT gpusel_service_ping(-1);
SELECT gpusel_service_inject_fault('nonsense');
CREATE ROLE regress_gpusel_service_user;
SET ROLE regress_gpusel_service_user;
SELECT gpusel_service_ping(0);
SELECT gpusel_service_inject_fault('crash');
SELECT state IS NOT NULL AS anyone_may_look FROM gpusel_service;
RESET ROLE;
DROP ROLE regress_gpusel_service_user;
