--
-- TPC-H at a small scale factor: lineitem with the benchmark's own DDL
-- (DECIMAL(15,2) as numeric, DATE, CHAR), filled by the specification's
-- rules (clause 4.2.3) at SF 0.01, and Q1, Q6 and two percentile queries
-- as written.  Their plans are checked to be the device plans a GPU
-- machine makes (gpusel.plan_as_gpu: here they run on the CPU path, on the
-- GPU machine on the device), and every answer is checked against
-- PostgreSQL untouched, serially, under Gather and across many batches.
-- test/bench/tpch_bench.sh times the same queries on data from tpchgen-cli.
--
LOAD 'gpusel';
SET client_min_messages = warning;

\i test/sql/oracle_functions.sql

-- lineitem as TPC-H defines it
\i test/tpch/lineitem.sql

-- 15,000 orders with keys as sparse as TPC-H's (8 of every 32), an order
-- date up to 151 days before the end, 1 to 7 lines each; 2,000 parts with
-- the specification's retail price; dates, flags and status from the order
-- date and CURRENTDATE (1995-06-17).  random() is PostgreSQL's seeded
-- generator, so the rows are the same on every machine.
SELECT setseed(0.19920101);
INSERT INTO lineitem
SELECT o.okey, l.partkey, 1 + (l.partkey + l.lnum * 2501) % 100, l.lnum, l.qty,
       l.qty * (90000 + (l.partkey / 10) % 20001 + 100 * (l.partkey % 1000)) / 100.0,
       l.disc, l.tax,
       CASE WHEN o.odate + l.ship + l.rcpt > date '1995-06-17' THEN 'N' WHEN l.ra THEN 'R' ELSE 'A' END,
       CASE WHEN o.odate + l.ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
       o.odate + l.ship, o.odate + l.cmt, o.odate + l.ship + l.rcpt,
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[l.si],
       (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[l.sm],
       left(md5(o.okey::text || ':' || l.lnum), 10 + l.clen)
FROM (SELECT (k / 8) * 32 + k % 8 + 1 AS okey,
             date '1992-01-01' + floor(random() * (date '1998-12-31' - 151 - date '1992-01-01' + 1))::int AS odate,
             1 + floor(random() * 7)::int AS nlines
      FROM generate_series(0, 14999) k) o,
LATERAL (SELECT n AS lnum,
                1 + floor(random() * 2000)::int AS partkey,
                (1 + floor(random() * 50))::numeric(15,2) AS qty,
                (floor(random() * 11) / 100)::numeric(15,2) AS disc,
                (floor(random() * 9) / 100)::numeric(15,2) AS tax,
                random() < 0.5 AS ra,
                1 + floor(random() * 121)::int AS ship,
                30 + floor(random() * 61)::int AS cmt,
                1 + floor(random() * 30)::int AS rcpt,
                1 + floor(random() * 4)::int AS si,
                1 + floor(random() * 7)::int AS sm,
                floor(random() * 23)::int AS clen
         FROM generate_series(1, o.nlines) n) l;
VACUUM ANALYZE lineitem;
SELECT count(*) AS lines, count(DISTINCT l_orderkey) AS orders, min(l_shipdate), max(l_shipdate),
       sum(l_extendedprice) AS sum_price
FROM lineitem;
SELECT l_returnflag, l_linestatus, count(*) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2;

\i test/tpch/queries.sql

-- Runs one query as the oracle and as gpusel is set, and says what plan
-- gpusel's run had, how many rows the oracle returned and how many rows
-- differ (which must be 0).
CREATE FUNCTION tpch_check(name text, OUT plan text, OUT total_rows bigint, OUT mismatches bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  t tpch_query;
BEGIN
  SELECT * INTO t FROM tpch_query WHERE tpch_query.name = tpch_check.name;
  SELECT * INTO plan, total_rows, mismatches FROM oracle_check(t.q, t.nkeys);
END
$fn$;

-- 1. The plans of a GPU machine: every qual a device qual, the grouping
-- and the aggregates in the same scan.  gpusel.device_setup_cost = 0 plans
-- this small table as the GPU machine plans TPC-H at SF 1 and above, where
-- the device's setup is a small part of the scan.
SET gpusel.plan_as_gpu = on;
SET gpusel.min_rows = 0;
SET gpusel.device_setup_cost = 0;
SET max_parallel_workers_per_gather = 0;
SELECT name, oracle_explain(q) AS plan FROM tpch_query ORDER BY name;

-- 2. The answers, serially; Q1's rows in full.
SELECT name, (tpch_check(name)).* FROM tpch_query ORDER BY name;
SELECT q AS q1 FROM tpch_query WHERE name = 'Q1' \gset
:q1;

-- 3. Across four batches of 16,384 rows (the last one partial); with
-- gpusel.force_groupagg, since the planner's charge per batch would
-- otherwise hand P2 back to PostgreSQL at this batch size.
SET gpusel.batch_rows = 16384;
SET gpusel.force_groupagg = on;
SELECT name, (tpch_check(name)).* FROM tpch_query ORDER BY name;
RESET gpusel.batch_rows;
RESET gpusel.force_groupagg;

-- 4. Under Gather: every process reads and groups its share of the blocks,
-- and the leader merges them.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT oracle_explain(q) AS plan FROM tpch_query WHERE name = 'Q6';
SELECT name, (tpch_check(name)).* FROM tpch_query ORDER BY name;

-- 5. Without the GPU plans (gpusel.device = cpu), the same answers.
RESET max_parallel_workers_per_gather;
SET gpusel.device = cpu;
SELECT name, (tpch_check(name)).* FROM tpch_query ORDER BY name;
