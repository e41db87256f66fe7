/*
 * nocuda_filter.c
 *	  The device WHERE filter (gpusel_filter.h) for builds without CUDA:
 *	  every function answers GS_NO_DEVICE, so src/ takes the CPU path.
 *	  Plain C, no CUDA headers.
 */
#include <stdio.h>

#include "gpusel_filter.h"

/* Writes the "built without CUDA" message into errbuf. */
static gs_status
gs_filter_no_device(char *errbuf, size_t errlen)
{
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "gpusel filter: built without CUDA support");
	return GS_NO_DEVICE;
}

gs_status
gs_filter_create(gs_filter **filter, const gs_program *program,
				 int ncols, const gs_coltype *coltypes,
				 int64_t max_rows, int nslots,
				 char *errbuf, size_t errlen)
{
	(void) program;
	(void) ncols;
	(void) coltypes;
	(void) max_rows;
	(void) nslots;
	if (filter != NULL)
		*filter = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

void *
gs_filter_values(gs_filter *filter, int slot, int col)
{
	(void) filter;
	(void) slot;
	(void) col;
	return NULL;
}

uint8_t *
gs_filter_nulls(gs_filter *filter, int slot, int col)
{
	(void) filter;
	(void) slot;
	(void) col;
	return NULL;
}

gs_status
gs_filter_submit(gs_filter *filter, int slot, int64_t nrows,
				 const uint8_t *has_nulls,
				 char *errbuf, size_t errlen)
{
	(void) filter;
	(void) slot;
	(void) nrows;
	(void) has_nulls;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_filter_create_ex(gs_filter **filter, const gs_program *program,
					int ncols, const gs_coltype *coltypes,
					int64_t max_rows, int64_t staging_rows, int nslots,
					char *errbuf, size_t errlen)
{
	(void) program;
	(void) ncols;
	(void) coltypes;
	(void) max_rows;
	(void) staging_rows;
	(void) nslots;
	if (filter != NULL)
		*filter = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_filter_positions(gs_filter *filter, int slot, const uint32_t **positions,
					char *errbuf, size_t errlen)
{
	(void) filter;
	(void) slot;
	if (positions != NULL)
		*positions = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_filter_submit_device(gs_filter *filter, int slot, int64_t nrows,
						const gs_device_column *cols, char *errbuf, size_t errlen)
{
	(void) filter;
	(void) slot;
	(void) nrows;
	(void) cols;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_filter_wait(gs_filter *filter, int slot,
			   const uint32_t **positions, int64_t *count,
			   int *row_error, double *device_ms,
			   char *errbuf, size_t errlen)
{
	(void) filter;
	(void) slot;
	if (positions != NULL)
		*positions = NULL;
	if (count != NULL)
		*count = 0;
	if (row_error != NULL)
		*row_error = 0;
	if (device_ms != NULL)
		*device_ms = 0.0;
	return gs_filter_no_device(errbuf, errlen);
}

void
gs_filter_destroy(gs_filter *filter)
{
	(void) filter;
}

gs_status
gs_filter_ship_columns(gs_filter *filter, const uint8_t *cols, char *errbuf, size_t errlen)
{
	(void) filter;
	(void) cols;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_batch_groups_create(gs_batch_groups **groups, int64_t max_rows, char *errbuf, size_t errlen)
{
	(void) max_rows;
	if (groups != NULL)
		*groups = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_batch_groups_find(gs_batch_groups *groups, gs_filter *filter, int slot, int64_t from,
					 int nkey_cols, const int *key_cols, int64_t *nkeys,
					 const gs_batch_key **keys, char *errbuf, size_t errlen)
{
	(void) groups;
	(void) filter;
	(void) slot;
	(void) from;
	(void) nkey_cols;
	(void) key_cols;
	if (nkeys != NULL)
		*nkeys = 0;
	if (keys != NULL)
		*keys = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_batch_groups_add(gs_batch_groups *groups, gs_filter *filter, const uint32_t *group_of_key,
					int val_col, int key_kind, gs_pairs *pairs, const gs_batch_tally **tally,
					char *errbuf, size_t errlen)
{
	(void) groups;
	(void) filter;
	(void) group_of_key;
	(void) val_col;
	(void) key_kind;
	(void) pairs;
	if (tally != NULL)
		*tally = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_batch_groups_sum(gs_batch_groups *groups, gs_filter *filter, int nexprs,
					const gs_sum_expr *exprs, const uint64_t **rows,
					const gs_sum_result **results, char *errbuf, size_t errlen)
{
	(void) groups;
	(void) filter;
	(void) nexprs;
	(void) exprs;
	if (rows != NULL)
		*rows = NULL;
	if (results != NULL)
		*results = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_batch_groups_set_transforms(gs_batch_groups *groups, int nkey_cols,
							   const gs_key_transform *transforms, char *errbuf, size_t errlen)
{
	(void) groups;
	(void) nkey_cols;
	(void) transforms;
	return gs_filter_no_device(errbuf, errlen);
}

void
gs_batch_groups_destroy(gs_batch_groups *groups)
{
	(void) groups;
}

gs_status
gs_batch_sums_create(gs_batch_sums **sums, char *errbuf, size_t errlen)
{
	if (sums != NULL)
		*sums = NULL;
	return gs_filter_no_device(errbuf, errlen);
}

gs_status
gs_batch_sums_run(gs_batch_sums *sums, gs_filter *filter, int slot, int64_t from,
				  int nexprs, const gs_sum_expr *exprs, gs_sum_result *results,
				  char *errbuf, size_t errlen)
{
	(void) sums;
	(void) filter;
	(void) slot;
	(void) from;
	(void) nexprs;
	(void) exprs;
	(void) results;
	return gs_filter_no_device(errbuf, errlen);
}

void
gs_batch_sums_destroy(gs_batch_sums *sums)
{
	(void) sums;
}
