-- Drops what groupagg_setup.sql made, at the end of each grouped-aggregate suite.
DROP TABLE ga;
DROP FUNCTION ga_check(text, int);
DROP FUNCTION ga_plan(text);
DROP FUNCTION oracle_check(text, int);
DROP FUNCTION oracle_compare(text, int);
DROP FUNCTION oracle_run(text, text);
DROP FUNCTION oracle_plan_kind(text);
DROP FUNCTION oracle_explain(text);
