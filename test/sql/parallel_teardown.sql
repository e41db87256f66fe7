-- Drops what parallel_setup.sql made, at the end of each parallel suite.
DROP TABLE pa;
DROP FUNCTION pa_check(text, int);
DROP FUNCTION pa_check_prepared(text, text, int);
DROP FUNCTION oracle_compare(text, int);
DROP FUNCTION oracle_run(text, text);
DROP FUNCTION pa_explain_analyze(text);
DROP FUNCTION pa_is_parallel(text);
DROP FUNCTION oracle_plan_kind(text);
DROP FUNCTION oracle_explain(text);
