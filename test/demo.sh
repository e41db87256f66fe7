#!/usr/bin/env bash
# The main job in one command: installs what is missing, builds gpusel,
# starts a throwaway server, loads a sample table and shows gpu_percentile
# beside percentile_disc, with timings and the device that ran each.
#   bash test/demo.sh [rows]            (default 5,000,000 rows)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-5000000}
source test/server.sh
gpusel_install_packages
gpusel_build_install
gpusel_start_server "-c shared_buffers=1GB -c work_mem=256MB"
psql -X -q -v rows="$rows" <<'SQL'
CREATE EXTENSION gpusel;
-- PostgreSQL's own percentile_disc for the reference (gpusel answers it when on)
SET gpusel.replace_builtin_percentiles = off;
\pset footer off
\echo '== the device'
SELECT usable, device_name, compute_capability, total_memory_mb, driver_version, runtime_version, reason
FROM gpusel_device_info();
\echo '== a sample table'
CREATE TABLE sample AS
SELECT i AS id, random() * 1000 AS price, (random() * 100)::int AS shop
FROM generate_series(1, :rows) i;
VACUUM ANALYZE sample;
SELECT count(*) AS rows, pg_size_pretty(pg_relation_size('sample')) AS size FROM sample;
SET max_parallel_workers_per_gather = 0;
\timing on
\echo '== PostgreSQL: percentile_disc'
SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample;
\echo '== gpusel: gpu_percentile (gpusel.device = auto)'
SELECT gpu_percentile(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample;
\timing off
SELECT CASE WHEN gpu_selections > 0 THEN 'GPU' ELSE 'CPU' END AS ran_on FROM gpusel_stats();
SET gpusel.device = cpu;
\timing on
\echo '== gpusel on the CPU (gpusel.device = cpu)'
SELECT gpu_percentile(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample;
\echo '== percentile_disc as written, answered by gpusel (gpusel.replace_builtin_percentiles = on)'
RESET gpusel.device;
SET gpusel.replace_builtin_percentiles = on;
EXPLAIN (COSTS OFF) SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample;
SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample;
SET gpusel.replace_builtin_percentiles = off;
\timing off
\echo '== the same answers'
RESET gpusel.device;
SELECT (SELECT gpu_percentile(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample)
     = (SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY price) FROM sample) AS identical;
SQL
