/*
 * device_calls.h
 *	  The calls of cuda/ as a table, so that a process either runs them
 *	  itself (its own CUDA context) or sends them to the GPU service
 *	  (service/service_calls.c), with the same code above.
 *
 * Every member has the signature of the cuda/ call it stands for
 * (gpusel_cuda.h, gpusel_filter.h), and the same contract.
 */
#ifndef GPUSEL_DEVICE_CALLS_H
#define GPUSEL_DEVICE_CALLS_H

#include "gpusel_cuda.h"
#include "gpusel_filter.h"

typedef struct GpuselDeviceCalls
{
	const char *name;			/* who runs them, in words */
	gs_status	(*probe) (gs_device_info *info);
	gs_status	(*memory_in_use) (uint64_t *used_bytes);
	gs_status	(*host_alloc) (void **ptr, size_t bytes);
	void		(*host_free) (void *ptr);
	gs_status	(*select_keys) (int key_bytes, const void *const *chunks,
								const int64_t *chunk_counts, int nchunks, int64_t n,
								const int64_t *ranks, int nranks, void *out_keys,
								const volatile int *cancel, char *errbuf, size_t errlen);
	gs_status	(*pairs_create) (gs_pairs **pairs, int key_bytes, int with_groups,
								 char *errbuf, size_t errlen);
	gs_status	(*pairs_append) (gs_pairs *pairs, const void *keys, const uint32_t *groups,
								 int64_t n, char *errbuf, size_t errlen);
	int64_t		(*pairs_count) (const gs_pairs *pairs);
	gs_status	(*pairs_read) (gs_pairs *pairs, void *keys, uint32_t *groups,
							   char *errbuf, size_t errlen);
	gs_status	(*pairs_sort_pick) (gs_pairs *pairs, int64_t ngroups,
									const int64_t *positions, int64_t npositions,
									void *out_keys, const volatile int *cancel,
									char *errbuf, size_t errlen);
	gs_status	(*pairs_select) (gs_pairs *pairs, const int64_t *ranks, int nranks,
								 void *out_keys, const volatile int *cancel,
								 char *errbuf, size_t errlen);
	void		(*pairs_destroy) (gs_pairs *pairs);
	gs_status	(*sort_by_group) (int key_bytes, const void *keys, const uint32_t *groups,
								  int64_t n, int64_t ngroups, void *out_keys,
								  const volatile int *cancel, char *errbuf, size_t errlen);
	gs_status	(*sort_by_group_pick) (int key_bytes, const void *keys, const uint32_t *groups,
									   int64_t n, int64_t ngroups,
									   const int64_t *positions, int64_t npositions,
									   void *out_keys, const volatile int *cancel,
									   char *errbuf, size_t errlen);
	gs_status	(*filter_create) (gs_filter **filter, const gs_program *program,
								  int ncols, const gs_coltype *coltypes,
								  int64_t max_rows, int64_t staging_rows, int nslots,
								  char *errbuf, size_t errlen);
	void	   *(*filter_values) (gs_filter *filter, int slot, int col);
	uint8_t    *(*filter_nulls) (gs_filter *filter, int slot, int col);
	gs_status	(*filter_ship_columns) (gs_filter *filter, const uint8_t *cols,
										char *errbuf, size_t errlen);
	gs_status	(*filter_submit) (gs_filter *filter, int slot, int64_t nrows,
								  const uint8_t *has_nulls, char *errbuf, size_t errlen);
	gs_status	(*filter_wait) (gs_filter *filter, int slot, const uint32_t **positions,
								int64_t *count, int *row_error, double *device_ms,
								char *errbuf, size_t errlen);
	gs_status	(*filter_positions) (gs_filter *filter, int slot, const uint32_t **positions,
									 char *errbuf, size_t errlen);
	void		(*filter_destroy) (gs_filter *filter);
	gs_status	(*groups_create) (gs_batch_groups **groups, int64_t max_rows,
								  char *errbuf, size_t errlen);
	gs_status	(*groups_find) (gs_batch_groups *groups, gs_filter *filter, int slot,
								int64_t from, int nkey_cols, const int *key_cols,
								int64_t *nkeys, const gs_batch_key **keys,
								char *errbuf, size_t errlen);
	gs_status	(*groups_set_transforms) (gs_batch_groups *groups, int nkey_cols,
										  const gs_key_transform *transforms,
										  char *errbuf, size_t errlen);
	gs_status	(*groups_add) (gs_batch_groups *groups, gs_filter *filter,
							   const uint32_t *group_of_key, int val_col, int key_kind,
							   gs_pairs *pairs, const gs_batch_tally **tally,
							   char *errbuf, size_t errlen);
	gs_status	(*groups_sum) (gs_batch_groups *groups, gs_filter *filter, int nexprs,
							   const gs_sum_expr *exprs, const uint64_t **rows,
							   const gs_sum_result **results, char *errbuf, size_t errlen);
	void		(*groups_destroy) (gs_batch_groups *groups);
	gs_status	(*sums_create) (gs_batch_sums **sums, char *errbuf, size_t errlen);
	gs_status	(*sums_run) (gs_batch_sums *sums, gs_filter *filter, int slot, int64_t from,
							 int nexprs, const gs_sum_expr *exprs, gs_sum_result *results,
							 char *errbuf, size_t errlen);
	void		(*sums_destroy) (gs_batch_sums *sums);

	/*
	 * Device memory kept across queries and connections for the column
	 * cache (only the GPU service has it: a process's own context dies
	 * with it).  A copy is created for key (a new copy of a key frees the
	 * old one), zeroed, written piece by piece (or many pieces a call),
	 * moved into new memory of
	 * another size (repack: nmoves (from, to, bytes) triples), read by
	 * filter_submit_resident (offsets: values then null bytes of each
	 * column, bytes into the copy; -1: none), and destroyed.
	 */
	gs_status	(*resident_create) (uint64_t *handle, int key, uint64_t bytes,
									char *errbuf, size_t errlen);
	gs_status	(*resident_write) (uint64_t handle, uint64_t offset, const void *src,
								   uint64_t bytes, char *errbuf, size_t errlen);
	gs_status	(*resident_write_pieces) (uint64_t handle, int n, const uint64_t *offsets,
										  const void *const *srcs, const uint64_t *bytes,
										  char *errbuf, size_t errlen);
	gs_status	(*resident_repack) (uint64_t handle, uint64_t bytes, int nmoves,
									const int64_t *moves, char *errbuf, size_t errlen);
	void		(*resident_destroy) (uint64_t handle);
	gs_status	(*filter_submit_resident) (gs_filter *filter, int slot, int64_t nrows,
										   uint64_t handle, const int64_t *offsets,
										   char *errbuf, size_t errlen);
} GpuselDeviceCalls;

/* The calls this process makes: its own, or the GPU service's. */
extern const GpuselDeviceCalls *GpuselDev;

/* This process's own CUDA context. */
extern const GpuselDeviceCalls GpuselLocalDeviceCalls;

#endif							/* GPUSEL_DEVICE_CALLS_H */
