--
-- The grouped scan rescanned under a nested loop.
--
\i test/sql/groupagg_setup.sql

-- Rescans: the grouped scan under a nested loop, with an outer
-- parameter in HAVING, as a LATERAL subquery and in a subplan.
--
SET enable_memoize = off;
CREATE TABLE ga_outer (v int4);
INSERT INTO ga_outer VALUES (0), (50), (100), (105), (110), (NULL);
ANALYZE ga_outer;
EXPLAIN (COSTS OFF) SELECT o.v, s.* FROM ga_outer o,
  LATERAL (SELECT k, count(*) AS c, sum(f8) AS s FROM ga GROUP BY k HAVING count(*) > o.v) s;
SELECT * FROM ga_check($$SELECT o.v, s.* FROM ga_outer o,
  LATERAL (SELECT k, count(*) AS c, sum(f8) AS s FROM ga GROUP BY k HAVING count(*) > o.v) s$$, 2);
EXPLAIN (COSTS OFF) SELECT o.v, (SELECT max(c) FROM (SELECT k, count(*) AS c FROM ga GROUP BY k
  HAVING count(*) < o.v) z) AS m FROM ga_outer o;
SELECT * FROM ga_check($$SELECT o.v, (SELECT max(c) FROM (SELECT k, count(*) AS c FROM ga GROUP BY k
  HAVING count(*) < o.v) z) AS m FROM ga_outer o$$);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT o.v, s.c FROM ga_outer o
  JOIN (SELECT k, count(*) AS c FROM ga GROUP BY k) s ON s.k = o.v / 10;
SELECT * FROM ga_check($$SELECT o.v, s.k, s.c FROM ga_outer o
  JOIN (SELECT k, count(*) AS c, percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) AS p FROM ga GROUP BY k) s
  ON s.k = o.v / 10$$, 2);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET enable_memoize;

--

DROP TABLE ga_outer;
\i test/sql/groupagg_teardown.sql
