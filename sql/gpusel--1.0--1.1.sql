-- gpusel 1.0 -> 1.1: the percentile aggregates become PARALLEL SAFE, as
-- PostgreSQL's own percentile_disc and percentile_cont are.  ALTER FUNCTION
-- does not take aggregates; CREATE OR REPLACE AGGREGATE keeps their OIDs,
-- comments and dependencies.
\echo Use "ALTER EXTENSION gpusel UPDATE TO '1.1'" to load this file. \quit

CREATE OR REPLACE AGGREGATE gpu_percentile(float8 ORDER BY anyelement) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_disc_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE gpu_percentile(float8[] ORDER BY anyelement) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_disc_multi_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE gpu_percentile_cont(float8 ORDER BY float8) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_float8_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE gpu_percentile_cont(float8 ORDER BY interval) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_interval_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE gpu_percentile_cont(float8[] ORDER BY float8) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_float8_multi_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE gpu_percentile_cont(float8[] ORDER BY interval) (
    SFUNC = gpusel_percentile_transition,
    STYPE = internal,
    FINALFUNC = gpusel_percentile_cont_interval_multi_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    PARALLEL = SAFE
);
