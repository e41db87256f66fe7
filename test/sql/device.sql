-- The device layer: parameters, the device report, statistics.
LOAD 'gpusel';
-- the parameters every session has; gpusel.service and gpusel.service_staging exist only preloaded
SELECT name, boot_val, vartype FROM pg_settings WHERE name LIKE 'gpusel.%' AND context <> 'postmaster' ORDER BY name;
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
