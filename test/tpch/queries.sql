-- The TPC-H queries of the test suite (test/sql/tpch.sql) and the
-- benchmark (test/bench/tpch_bench.sh), as the table tpch_query: the
-- specification's text with its validation parameters (Q1: DELTA = 90; Q6:
-- DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24), the median price per
-- (l_returnflag, l_linestatus), and three percentiles of one year's prices.
CREATE TABLE tpch_query (name text PRIMARY KEY, nkeys int, q text);
INSERT INTO tpch_query VALUES
  ('Q1', 2, $q$select
	l_returnflag,
	l_linestatus,
	sum(l_quantity) as sum_qty,
	sum(l_extendedprice) as sum_base_price,
	sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
	sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
	avg(l_quantity) as avg_qty,
	avg(l_extendedprice) as avg_price,
	avg(l_discount) as avg_disc,
	count(*) as count_order
from
	lineitem
where
	l_shipdate <= date '1998-12-01' - interval '90' day
group by
	l_returnflag,
	l_linestatus
order by
	l_returnflag,
	l_linestatus$q$),
  ('Q6', 0, $q$select
	sum(l_extendedprice * l_discount) as revenue
from
	lineitem
where
	l_shipdate >= date '1994-01-01'
	and l_shipdate < date '1994-01-01' + interval '1' year
	and l_discount between .06 - 0.01 and .06 + 0.01
	and l_quantity < 24$q$),
  ('P1', 2, $q$select l_returnflag, l_linestatus, percentile_disc(0.5) within group (order by l_extendedprice)
from lineitem group by l_returnflag, l_linestatus order by 1, 2$q$),
  ('P2', 0, $q$select percentile_disc(array[0.5, 0.9, 0.99]) within group (order by l_extendedprice)
from lineitem where l_shipdate >= date '1995-01-01' and l_shipdate < date '1996-01-01'$q$);
