-- GpuSelScan under row-level security and security-barrier views: a qual
-- that is not leakproof never runs ahead of the security quals, so it goes
-- to the device only when it is itself a security qual; leakproof quals
-- may go to the device at any level.
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
CREATE ROLE regress_gpusel_rls;

-- a function that leaks every value it sees
CREATE FUNCTION ss_leak(int4) RETURNS bool LANGUAGE plpgsql COST 0.0001 AS $$
BEGIN
  RAISE NOTICE 'ss_leak saw %', $1;
  RETURN true;
END $$;

CREATE TABLE ss (id int4, visible bool, secret int4, note text);
INSERT INTO ss SELECT g, g % 10 = 0, g * 7, CASE WHEN g % 4 = 0 THEN 'hidden' ELSE 'open' END
FROM generate_series(1, 45) g;
ALTER TABLE ss ENABLE ROW LEVEL SECURITY;
CREATE POLICY ss_p ON ss FOR SELECT USING (visible);
GRANT SELECT ON ss TO regress_gpusel_rls;
ANALYZE ss;

SET ROLE regress_gpusel_rls;
-- the policy qual and a leakproof comparison run on the device; the leaky
-- function runs on the host, only on rows that passed the policy
EXPLAIN (COSTS OFF) SELECT id FROM ss WHERE gpu_filter(secret > 100) AND ss_leak(secret);
SELECT id FROM ss WHERE gpu_filter(secret > 100) AND ss_leak(secret);
-- arithmetic is not leakproof: above the policy it stays on the host, after it
EXPLAIN (COSTS OFF) SELECT id FROM ss WHERE gpu_filter(secret * 2 > 100) AND gpu_filter(id > 0);
EXPLAIN (COSTS OFF) SELECT id FROM ss WHERE gpu_filter(10 / (id - 5) < 0) AND gpu_filter(id <> 3);
-- id = 5 is hidden by the policy: no division by zero
SELECT id FROM ss WHERE gpu_filter(10 / (id - 5) < 0 OR id > 30) AND gpu_filter(id <> 3);
SELECT id FROM ss WHERE gpu_filter(10 / (id - 10) < 0);
RESET ROLE;

-- a policy the device cannot evaluate: leakproof quals still go to the
-- device, the rest wait for the policy on the host
ALTER POLICY ss_p ON ss USING (note <> 'hidden');
SET ROLE regress_gpusel_rls;
EXPLAIN (COSTS OFF) SELECT id FROM ss WHERE gpu_filter(secret < 100) AND ss_leak(id);
SELECT id FROM ss WHERE gpu_filter(secret < 100) AND ss_leak(id);
EXPLAIN (COSTS OFF) SELECT id FROM ss WHERE gpu_filter(secret + 1 < 100) AND gpu_filter(id > 1);
SELECT id FROM ss WHERE gpu_filter(secret + 1 < 100) AND gpu_filter(id > 1);
RESET ROLE;

-- a security-barrier view
CREATE TABLE ssv_base AS SELECT g AS id, g * 7 AS secret FROM generate_series(1, 45) g;
CREATE VIEW ssv WITH (security_barrier) AS SELECT * FROM ssv_base WHERE id % 10 = 0;
GRANT SELECT ON ssv TO regress_gpusel_rls;
SET ROLE regress_gpusel_rls;
EXPLAIN (COSTS OFF) SELECT * FROM ssv WHERE gpu_filter(secret > 100) AND ss_leak(id);
SELECT * FROM ssv WHERE gpu_filter(secret > 100) AND ss_leak(id);
EXPLAIN (COSTS OFF) SELECT * FROM ssv WHERE gpu_filter(10 / (id - 5) < 0) AND gpu_filter(id > 1);
SELECT * FROM ssv WHERE gpu_filter(10 / (id - 5) < 0 OR id > 30) AND gpu_filter(id > 1);
RESET ROLE;

DROP VIEW ssv;
DROP TABLE ss, ssv_base;
DROP FUNCTION ss_leak(int4);
DROP ROLE regress_gpusel_rls;
