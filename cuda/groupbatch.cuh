/*
 * groupbatch.cuh
 *	  A scan's batch grouping on the device (gs_batch_groups): the hash
 *	  table of a batch's distinct keys and each passing row's key, which
 *	  the pairs (groupbatch.cu) and the sums per key (groupsum.cu) read.
 */
#ifndef GPUSEL_GROUPBATCH_CUH
#define GPUSEL_GROUPBATCH_CUH

#include <stdint.h>

#include "gpusel_filter.h"

/* Device state of one batch's grouping. */
struct BatchTable
{
	int		   *state;			/* cap slots: empty, claimed, ready */
	unsigned long long *slot_bits;	/* the slot's key's hash */
	uint32_t   *slot_key;		/* index into keys of the slot's key */
	gs_batch_key *keys;			/* distinct keys, max_rows + 1 */
	uint32_t   *row_key;		/* per passing row: index of its key */
	uint32_t   *group_of_key;	/* uploaded by the host per add */
	gs_batch_tally *tally;
	unsigned long long *counters;	/* [0] distinct keys, [1] pairs appended */
};

/* Sums per key (groupsum.cu), made at the first gs_batch_groups_sum. */
struct GroupSumBuffers;

/* Device and pinned memory of a scan's batch grouping (gpusel_filter.h). */
struct gs_batch_groups
{
	int64_t		max_rows;
	int			tbits;
	int			num_sms;
	BatchTable	t;
	gs_batch_key *h_keys;		/* pinned, h_cap */
	gs_batch_tally *h_tally;	/* pinned, h_cap */
	int64_t		h_cap;			/* grows to a batch's distinct keys, up to max_rows + 1 */
	unsigned long long *h_counters;	/* pinned, 2 */
	GroupSumBuffers *sums;
	gs_key_transform transforms[GS_GROUP_MAX_KEYS];	/* op -1: none */
	/* the batch found last */
	int			slot;
	unsigned long long batch;
	int64_t		from;
	int64_t		nkeys;
};

/* Frees the sums' buffers (groupsum.cu); safe on NULL. */
void		gs_group_sums_free(GroupSumBuffers *sums);

#endif							/* GPUSEL_GROUPBATCH_CUH */
