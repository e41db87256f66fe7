--
-- PostgreSQL's enable_* settings: GpuSelScan reads every page of its table
-- as a sequential scan does, so enable_seqscan = off discourages it as it
-- discourages a Seq Scan (disable_cost), and the grouped scan, which
-- groups by hashing, is discouraged by enable_hashagg = off too.  A query
-- that asks for the device with gpu_filter() keeps GpuSelScan.
--
LOAD 'gpusel';
SET max_parallel_workers_per_gather = 0;
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;

CREATE TABLE eg (a int, b int);
INSERT INTO eg SELECT g, g % 1000 FROM generate_series(1, 200000) g;
CREATE INDEX eg_b ON eg (b);
VACUUM ANALYZE eg;

-- by default the scans are gpusel's
EXPLAIN (COSTS OFF) SELECT sum(a) FROM eg WHERE b < 500;
EXPLAIN (COSTS OFF) SELECT b, sum(a) FROM eg WHERE b < 500 GROUP BY b;

SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sum(a) FROM eg WHERE b < 500;
EXPLAIN (COSTS OFF) SELECT b, sum(a) FROM eg WHERE b < 500 GROUP BY b;
SELECT sum(a), count(*) FROM eg WHERE b < 500;
-- asked for explicitly
EXPLAIN (COSTS OFF) SELECT count(*) FROM eg WHERE gpu_filter(b < 500);
SELECT count(*) FROM eg WHERE gpu_filter(b < 500);
EXPLAIN (COSTS OFF) SELECT a FROM eg WHERE gpu_filter(b < 500) AND a < 2000 ORDER BY a LIMIT 3;
SELECT a FROM eg WHERE gpu_filter(b < 500) AND a < 2000 ORDER BY a LIMIT 3;
RESET enable_seqscan;

SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT b, sum(a) FROM eg WHERE b < 500 GROUP BY b;
-- without keys nothing is hashed
EXPLAIN (COSTS OFF) SELECT sum(a) FROM eg WHERE b < 500;
SELECT b, sum(a) FROM eg WHERE b < 3 GROUP BY b ORDER BY b;
RESET enable_hashagg;

DROP TABLE eg;
