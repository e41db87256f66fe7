/*
 * percentile_builtins.h
 *	  The planner hook that lets gpusel answer the built-in percentile_disc
 *	  and percentile_cont.
 */
#ifndef GPUSEL_PERCENTILE_BUILTINS_H
#define GPUSEL_PERCENTILE_BUILTINS_H

extern void GpuselPercentileBuiltinsInit(void);
extern bool GpuselIsPercentileAggregate(Oid aggfnoid, bool *continuous);

#endif							/* GPUSEL_PERCENTILE_BUILTINS_H */
