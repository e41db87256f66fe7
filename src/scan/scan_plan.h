/*
 * scan_plan.h
 *	  The GpuSelScan custom scan: planner side (scan_plan.c) and the plan
 *	  fields the executor side (scan_exec.c) reads.
 *
 * A GpuSelScan plan carries every qual of the scan in custom_exprs, in the
 * order PostgreSQL would evaluate them (order_qual_clauses); device quals
 * are stored without their gpu_filter() wrapper.  plan.qual stays empty:
 * the executor evaluates the host quals itself, because a batch that the
 * device could not finish is re-evaluated with all quals in that order.
 *
 * A grouped scan (groupagg.h) is a GpuSelScan with no scan relation of its
 * own (scanrelid 0, GPUSEL_SCAN_GROUP) that returns one row per group: its
 * quals are in custom_private, and the last (junk) entry of its
 * custom_scan_tlist is a Var of the relation it reads.
 */
#ifndef GPUSEL_SCAN_PLAN_H
#define GPUSEL_SCAN_PLAN_H

#include "postgres.h"

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* Name shown by EXPLAIN: Custom Scan (GpuSelScan). */
#define GPUSEL_SCAN_NAME "GpuSelScan"

/* Positions in CustomScan.custom_private. */
#define GPUSEL_PRIV_DEVICE_FLAGS	0	/* IntList: 1 where custom_exprs[i] is a device qual */
#define GPUSEL_PRIV_FLAGS			1	/* Integer: GPUSEL_SCAN_* bits */
#define GPUSEL_PRIV_REL_TUPLES		2	/* Float: the relation's estimated size, in rows */
/* grouped scans only (scanrelid 0): */
#define GPUSEL_PRIV_QUALS			3	/* List: the quals, in place of custom_exprs */
#define GPUSEL_PRIV_BASE_RELID		4	/* Integer: the relation's range table index when planned */

/* Bits of GPUSEL_PRIV_FLAGS. */
#define GPUSEL_SCAN_NEEDS_TUPLES	0x01	/* some column is read above the device filter */
#define GPUSEL_SCAN_MARKED			0x02	/* planned because of gpu_filter() */
#define GPUSEL_SCAN_GROUP			0x04	/* returns one row per group (groupagg.h) */

extern void GpuselScanInit(void);
extern bool GpuselRelIsReadable(RelOptInfo *rel, RangeTblEntry *rte);
extern bool GpuselExprMayFail(Node *node, void *context);
extern bool GpuselUpperQuals(PlannerInfo *root, RelOptInfo *rel, List **exprs,
							 List **device_flags, bool *any_marked);
extern double GpuselReadCostFactor(PlannerInfo *root, RelOptInfo *rel);
extern double GpuselParallelWorkersCost(PlannerInfo *root, RelOptInfo *rel);
extern Cost GpuselFilteredReadCost(PlannerInfo *root, RelOptInfo *rel, List *quals,
								   List *device_flags);

/* scan_exec.c */
extern CustomScanMethods gpusel_scan_methods;
extern void GpuselScanExecInit(void);
extern Index GpuselUpperScanRelid(CustomScan *cscan);

#endif							/* GPUSEL_SCAN_PLAN_H */
