-- pgTAP: how gpusel chooses a device, and what happens without one.
BEGIN;
SELECT plan(9);

SELECT has_function('gpusel_device_info', 'gpusel_device_info() exists');
SELECT is((SELECT count(*) FROM gpusel_device_info()), 1::bigint, 'gpusel_device_info() returns one row');

-- gpusel.device = gpu: the GPU for every size, or an error with a hint
SET LOCAL gpusel.device = gpu;
SET LOCAL gpusel.min_rows = 1000000;
SELECT CASE WHEN (SELECT usable FROM gpusel_device_info())
  THEN lives_ok($$SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 10) g$$,
                'gpusel.device = gpu runs on the GPU')
  ELSE throws_ok($$SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 10) g$$,
                 '55000', 'no usable GPU for gpusel',
                 'gpusel.device = gpu without a GPU raises 55000')
  END;

-- in gpu mode a GPU-less server still answers types that have no GPU path
SELECT is((SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g::text) FROM generate_series(1, 9) g),
          '5', 'types without a GPU path run on the CPU in every mode');

-- auto with a GPU and a large enough input uses it; without a GPU, the CPU
SET LOCAL gpusel.device = auto;
SET LOCAL gpusel.min_rows = 0;
CREATE TEMP TABLE s0 AS SELECT * FROM gpusel_stats();
SELECT is((SELECT gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 100001) g),
          50001, 'auto answers exactly');
SELECT is((SELECT s.gpu_selections - s0.gpu_selections > 0 FROM gpusel_stats() s, s0),
          (SELECT usable FROM gpusel_device_info()),
          'auto uses the GPU exactly when one is usable');

-- many small groups stay on the CPU below gpusel.min_rows
SET LOCAL gpusel.min_rows = 100000;
CREATE TEMP TABLE s1 AS SELECT * FROM gpusel_stats();
SELECT is((SELECT count(p) FROM (SELECT g % 500, gpu_percentile(0.5) WITHIN GROUP (ORDER BY g) AS p
                                 FROM generate_series(1, 50000) g GROUP BY 1) x), 500::bigint,
          '500 groups answered');
SELECT is((SELECT s.gpu_selections - s1.gpu_selections FROM gpusel_stats() s, s1), 0::bigint,
          'small groups do not go to the GPU');
SELECT is((SELECT s.cpu_selections - s1.cpu_selections FROM gpusel_stats() s, s1), 500::bigint,
          'each small group is selected on the CPU');

SELECT * FROM finish();
ROLLBACK;
