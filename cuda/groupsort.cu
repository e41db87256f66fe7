/*
 * groupsort.cu
 *	  A grouped scan's percentile keys on the device: (group, key) pairs
 *	  held in device memory as the scan appends them (gs_pairs), then either
 *	  sorted by group and key with the keys at chosen positions copied back,
 *	  or, without groups, selected by rank with SampleSelect in place.
 *
 * The sort is two stable radix sorts: by key (all key bits, the group
 * number riding along), then by group number (only the bits that numbers
 * below ngroups use).  The second sort is stable, so keys stay ascending
 * within each group: one pass over all groups, however many there are,
 * in place of one selection per group.
 *
 * Only chosen keys come back: copying every sorted key into fresh pageable
 * memory costs more than the sorts (20M keys: 157 ms against 11 ms from
 * page-locked memory, H100), and the grouped scan only needs a few ranks
 * per group.  Appending while the scan runs moves the copy of the pairs to
 * the device out of the results' critical path.
 */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <stdint.h>
#include <stdlib.h>

#include "gpusel_cuda.h"
#include "gs_internal.cuh"
#include "sampleselect.cuh"

namespace
{

/*
 * Share of the free device memory one sort may take; the rest is left to
 * other backends' queries and to the allocator's own slack.
 */
constexpr double kGroupSortMemoryShare = 0.8;

/* Smallest capacity of held pairs: most appends then never grow them. */
constexpr int64_t kPairsMinCapacity = 1 << 20;

/* Threads per block of the gather kernel. */
constexpr int kGatherThreads = 256;

/* Bits that group numbers 0 .. ngroups - 1 use (at least one). */
int group_bits(int64_t ngroups)
{
	int			bits = 1;

	while (bits < 32 && (int64_t(1) << bits) < ngroups)
		bits++;
	return bits;
}

/* Device memory of one sort beyond the held pairs; freed together. */
struct SortScratch
{
	void	   *keys = NULL;
	uint32_t   *groups = NULL;
	void	   *temp = NULL;
	int64_t    *positions = NULL;
	void	   *picked = NULL;

	~SortScratch()
	{
		if (keys != NULL)
			(void) gs_dev_free(keys);
		if (groups != NULL)
			(void) gs_dev_free(groups);
		if (temp != NULL)
			(void) gs_dev_free(temp);
		if (positions != NULL)
			(void) gs_dev_free(positions);
		if (picked != NULL)
			(void) gs_dev_free(picked);
	}
};

/* Temporary storage the larger of the two sorts needs. */
template <typename KeyT>
cudaError_t sort_temp_bytes(int64_t n, int gbits, size_t *bytes)
{
	cub::DoubleBuffer<KeyT> keys(NULL, NULL);
	cub::DoubleBuffer<uint32_t> groups(NULL, NULL);
	size_t		by_key = 0;
	size_t		by_group = 0;
	cudaError_t err;

	err = cub::DeviceRadixSort::SortPairs(NULL, by_key, keys, groups, n,
										  0, int(sizeof(KeyT) * 8));
	if (err != cudaSuccess)
		return err;
	err = cub::DeviceRadixSort::SortPairs(NULL, by_group, groups, keys, n, 0, gbits);
	*bytes = by_key > by_group ? by_key : by_group;
	return err;
}

/* Runs both sorts over the held pairs; *sorted is the buffer with the result. */
template <typename KeyT>
gs_status sort_on_device(gs_pairs *p, SortScratch &s, size_t temp_bytes, int gbits,
						 const volatile int *cancel, const void **sorted,
						 char *errbuf, size_t errlen)
{
	cub::DoubleBuffer<KeyT> keys(static_cast<KeyT *>(p->keys), static_cast<KeyT *>(s.keys));
	cub::DoubleBuffer<uint32_t> groups(p->groups, s.groups);
	cudaError_t err;

	err = cub::DeviceRadixSort::SortPairs(s.temp, temp_bytes, keys, groups, p->count,
										  0, int(sizeof(KeyT) * 8), p->stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "sorting keys", errbuf, errlen);
	if (cancel != NULL && *cancel != 0)
	{
		gs_format_error(errbuf, errlen, "grouped sort interrupted");
		return GS_INTERRUPTED;
	}
	err = cub::DeviceRadixSort::SortPairs(s.temp, temp_bytes, groups, keys, p->count,
										  0, gbits, p->stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "sorting keys by group", errbuf, errlen);
	*sorted = keys.Current();
	return GS_OK;
}

/* Copies the keys at the wanted positions of the sorted keys, in their order. */
template <typename KeyT>
__global__ void gather_keys(const KeyT *sorted, const int64_t *positions, int64_t count,
							KeyT *out)
{
	int64_t		i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < count)
		out[i] = sorted[positions[i]];
}

/* Device memory a sort of n pairs needs beyond the pairs, or 0 after an error. */
gs_status sort_scratch_bytes(int key_bytes, int64_t n, int64_t ngroups, size_t *bytes,
							 size_t *temp_bytes, char *errbuf, size_t errlen)
{
	int			gbits = group_bits(ngroups);
	cudaError_t err;

	err = key_bytes == 4 ? sort_temp_bytes<uint32_t>(n, gbits, temp_bytes)
		: sort_temp_bytes<unsigned long long>(n, gbits, temp_bytes);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "sizing the grouped sort", errbuf, errlen);
	*bytes = (size_t) n * (size_t) (key_bytes + sizeof(uint32_t)) + *temp_bytes;
	return GS_OK;
}

/* GS_OUT_OF_MEMORY unless need bytes fit in the share of free device memory a sort may take. */
gs_status check_free_memory(size_t need, int64_t n, char *errbuf, size_t errlen)
{
	size_t		free_bytes = 0;
	size_t		total_bytes = 0;
	cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);

	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "reading free device memory", errbuf, errlen);
	/* the pool's idle blocks go back to the driver when an allocation needs them */
	free_bytes += gs_device_pool_idle_bytes();
	if ((double) need > kGroupSortMemoryShare * (double) free_bytes)
	{
		gs_format_error(errbuf, errlen,
						"sorting %lld keys by group needs %zu bytes of device memory, %zu are free",
						(long long) n, need, free_bytes);
		return GS_OUT_OF_MEMORY;
	}
	return GS_OK;
}

/*
 * Sorts the held pairs by group and key (consuming them) and copies back
 * either every key (positions NULL) or the keys at the given positions.
 */
gs_status sort_and_copy(gs_pairs *p, int64_t ngroups, const int64_t *positions,
						int64_t npositions, void *out_keys, const volatile int *cancel,
						char *errbuf, size_t errlen)
{
	SortScratch s;
	size_t		scratch = 0;
	size_t		temp_bytes = 0;
	size_t		extra = positions != NULL ?
		(size_t) npositions * (sizeof(int64_t) + p->key_bytes) : 0;
	const void *sorted = NULL;
	int			kb = p->key_bytes;
	int64_t		n = p->count;
	cudaError_t err;
	gs_status	status;

	status = sort_scratch_bytes(kb, n, ngroups, &scratch, &temp_bytes, errbuf, errlen);
	if (status == GS_OK)
		status = check_free_memory(scratch + extra, n, errbuf, errlen);
	if (status != GS_OK)
		return status;
	err = gs_dev_malloc(&s.keys, (size_t) n * kb);
	if (err == cudaSuccess)
		err = gs_dev_malloc((void **) &s.groups, (size_t) n * sizeof(uint32_t));
	if (err == cudaSuccess)
		err = gs_dev_malloc(&s.temp, temp_bytes > 0 ? temp_bytes : 1);
	if (err == cudaSuccess && positions != NULL)
		err = gs_dev_malloc((void **) &s.positions, (size_t) npositions * sizeof(int64_t));
	if (err == cudaSuccess && positions != NULL)
		err = gs_dev_malloc(&s.picked, (size_t) npositions * kb);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "allocating the grouped sort", errbuf, errlen);

	status = kb == 4 ?
		sort_on_device<uint32_t>(p, s, temp_bytes, group_bits(ngroups), cancel, &sorted,
								 errbuf, errlen) :
		sort_on_device<unsigned long long>(p, s, temp_bytes, group_bits(ngroups), cancel,
										   &sorted, errbuf, errlen);
	p->count = 0;				/* the pairs are consumed, whatever happens next */
	if (status != GS_OK)
	{
		(void) cudaStreamSynchronize(p->stream);
		return status;
	}

	if (positions == NULL)
		err = cudaMemcpyAsync(out_keys, sorted, (size_t) n * kb, cudaMemcpyDeviceToHost,
							  p->stream);
	else
	{
		unsigned int blocks = (unsigned int) ((npositions + kGatherThreads - 1) / kGatherThreads);

		err = cudaMemcpyAsync(s.positions, positions, (size_t) npositions * sizeof(int64_t),
							  cudaMemcpyHostToDevice, p->stream);
		if (err == cudaSuccess)
		{
			if (kb == 4)
				gather_keys<<<blocks, kGatherThreads, 0, p->stream>>>(
					static_cast<const uint32_t *>(sorted), s.positions, npositions,
					static_cast<uint32_t *>(s.picked));
			else
				gather_keys<<<blocks, kGatherThreads, 0, p->stream>>>(
					static_cast<const unsigned long long *>(sorted), s.positions, npositions,
					static_cast<unsigned long long *>(s.picked));
			err = cudaGetLastError();
		}
		if (err == cudaSuccess)
			err = cudaMemcpyAsync(out_keys, s.picked, (size_t) npositions * kb,
								  cudaMemcpyDeviceToHost, p->stream);
	}
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(p->stream);
	if (err != cudaSuccess)
	{
		(void) cudaStreamSynchronize(p->stream);
		return gs_status_from_cuda(err, "sorting keys by group", errbuf, errlen);
	}
	return GS_OK;
}

/* Checks what the host-array entry points take. */
gs_status check_arguments(int key_bytes, const void *keys, const uint32_t *groups,
						  int64_t n, int64_t ngroups, const void *out_keys,
						  char *errbuf, size_t errlen)
{
	if ((key_bytes != 4 && key_bytes != 8) || n < 0 || ngroups < 1 ||
		ngroups > (int64_t) UINT32_MAX + 1)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_sort_by_group");
		return GS_INVALID_ARGUMENT;
	}
	if (n > 0 && (keys == NULL || groups == NULL || out_keys == NULL))
	{
		gs_format_error(errbuf, errlen, "keys, groups or out_keys is NULL");
		return GS_INVALID_ARGUMENT;
	}
	return GS_OK;
}

/* Checks positions: each in 0 .. n - 1. */
gs_status check_positions(const int64_t *positions, int64_t npositions, int64_t n,
						  const void *out_keys, char *errbuf, size_t errlen)
{
	if (npositions < 0 || (npositions > 0 && (positions == NULL || out_keys == NULL)))
	{
		gs_format_error(errbuf, errlen, "invalid positions for gs_sort_by_group_pick");
		return GS_INVALID_ARGUMENT;
	}
	for (int64_t i = 0; i < npositions; i++)
		if (positions[i] < 0 || positions[i] >= n)
		{
			gs_format_error(errbuf, errlen, "position %lld is outside 0 .. %lld",
							(long long) positions[i], (long long) n - 1);
			return GS_INVALID_ARGUMENT;
		}
	return GS_OK;
}

/*
 * The host-array entry points: copies the pairs to the device, then sorts
 * (and picks, with positions).  Refuses up front what cannot fit, so that
 * nothing is allocated or read then.
 */
gs_status sort_host_pairs(int key_bytes, const void *keys, const uint32_t *groups,
						  int64_t n, int64_t ngroups, const int64_t *positions,
						  int64_t npositions, void *out_keys, const volatile int *cancel,
						  char *errbuf, size_t errlen)
{
	gs_pairs   *p = NULL;
	size_t		scratch = 0;
	size_t		temp_bytes = 0;
	gs_status	status;

	status = sort_scratch_bytes(key_bytes, n, ngroups, &scratch, &temp_bytes, errbuf, errlen);
	if (status == GS_OK)
		status = check_free_memory(scratch + (size_t) n * (key_bytes + sizeof(uint32_t)) +
								   (size_t) npositions * (sizeof(int64_t) + key_bytes),
								   n, errbuf, errlen);
	if (status == GS_OK)
		status = gs_pairs_create(&p, key_bytes, 1, errbuf, errlen);
	if (status == GS_OK)
		status = gs_pairs_append(p, keys, groups, n, errbuf, errlen);
	if (status == GS_OK)
		status = sort_and_copy(p, ngroups, positions, npositions, out_keys, cancel,
							   errbuf, errlen);
	gs_pairs_destroy(p);
	return status;
}

} /* namespace */

gs_status
gs_pairs_create(gs_pairs **pairs, int key_bytes, int with_groups,
				char *errbuf, size_t errlen)
{
	gs_pairs   *p;
	cudaError_t err;

	if (pairs == NULL || (key_bytes != 4 && key_bytes != 8))
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_pairs_create");
		return GS_INVALID_ARGUMENT;
	}
	*pairs = NULL;
	p = static_cast<gs_pairs *>(calloc(1, sizeof(gs_pairs)));
	if (p == NULL)
	{
		gs_format_error(errbuf, errlen, "out of host memory");
		return GS_OUT_OF_MEMORY;
	}
	p->key_bytes = key_bytes;
	p->with_groups = with_groups != 0;
	err = cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking);
	if (err != cudaSuccess)
	{
		free(p);
		return gs_status_from_cuda(err, "creating a stream", errbuf, errlen);
	}
	*pairs = p;
	return GS_OK;
}

cudaError_t
gs_pairs_reserve(gs_pairs *p, int64_t n)
{
	int64_t		cap;
	void	   *new_keys = NULL;
	uint32_t   *new_groups = NULL;
	cudaError_t err;

	if (p->count + n <= p->cap)
		return cudaSuccess;
	cap = p->cap * 2;
	if (cap < p->count + n)
		cap = p->count + n;
	if (cap < kPairsMinCapacity)
		cap = kPairsMinCapacity;
	err = gs_dev_malloc(&new_keys, (size_t) cap * p->key_bytes);
	if (err == cudaSuccess && p->with_groups)
		err = gs_dev_malloc((void **) &new_groups, (size_t) cap * sizeof(uint32_t));
	if (err == cudaSuccess && p->count > 0)
		err = cudaMemcpyAsync(new_keys, p->keys, (size_t) p->count * p->key_bytes,
							  cudaMemcpyDeviceToDevice, p->stream);
	if (err == cudaSuccess && p->count > 0 && p->with_groups)
		err = cudaMemcpyAsync(new_groups, p->groups, (size_t) p->count * sizeof(uint32_t),
							  cudaMemcpyDeviceToDevice, p->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(p->stream);
	if (err != cudaSuccess)
	{
		if (new_keys != NULL)
			(void) gs_dev_free(new_keys);
		if (new_groups != NULL)
			(void) gs_dev_free(new_groups);
		return err;
	}
	if (p->keys != NULL)
		(void) gs_dev_free(p->keys);
	if (p->groups != NULL)
		(void) gs_dev_free(p->groups);
	p->keys = new_keys;
	p->groups = new_groups;
	p->cap = cap;
	return cudaSuccess;
}

gs_status
gs_pairs_append(gs_pairs *p, const void *keys, const uint32_t *groups, int64_t n,
				char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (p == NULL || n < 0 || (n > 0 && (keys == NULL || (p->with_groups && groups == NULL))))
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_pairs_append");
		return GS_INVALID_ARGUMENT;
	}
	if (n == 0)
		return GS_OK;
	err = gs_pairs_reserve(p, n);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "growing the keys held on the device", errbuf, errlen);
	err = cudaMemcpyAsync(static_cast<char *>(p->keys) + (size_t) p->count * p->key_bytes,
						  keys, (size_t) n * p->key_bytes, cudaMemcpyHostToDevice, p->stream);
	if (err == cudaSuccess && p->with_groups)
		err = cudaMemcpyAsync(p->groups + p->count, groups, (size_t) n * sizeof(uint32_t),
							  cudaMemcpyHostToDevice, p->stream);
	/*
	 * The caller may reuse the host arrays once this returns.  From pageable
	 * memory a copy returns once the bytes are staged, but from page-locked
	 * memory (the GPU service's staging region) it returns at once, so wait
	 * for the copies.
	 */
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(p->stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "copying keys to the device", errbuf, errlen);
	p->count += n;
	return GS_OK;
}

int64_t
gs_pairs_count(const gs_pairs *p)
{
	return p != NULL ? p->count : 0;
}

gs_status
gs_pairs_read(gs_pairs *p, void *keys, uint32_t *groups, char *errbuf, size_t errlen)
{
	cudaError_t err = cudaSuccess;

	if (p == NULL || (p->count > 0 && (keys == NULL || (p->with_groups && groups == NULL))))
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_pairs_read");
		return GS_INVALID_ARGUMENT;
	}
	if (p->count > 0)
		err = cudaMemcpyAsync(keys, p->keys, (size_t) p->count * p->key_bytes,
							  cudaMemcpyDeviceToHost, p->stream);
	if (err == cudaSuccess && p->count > 0 && p->with_groups)
		err = cudaMemcpyAsync(groups, p->groups, (size_t) p->count * sizeof(uint32_t),
							  cudaMemcpyDeviceToHost, p->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(p->stream);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "copying the held keys back", errbuf, errlen);
	return GS_OK;
}

gs_status
gs_pairs_sort_pick(gs_pairs *p, int64_t ngroups, const int64_t *positions,
				   int64_t npositions, void *out_keys, const volatile int *cancel,
				   char *errbuf, size_t errlen)
{
	gs_status	status;

	if (p == NULL || !p->with_groups || ngroups < 1 || ngroups > (int64_t) UINT32_MAX + 1)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_pairs_sort_pick");
		return GS_INVALID_ARGUMENT;
	}
	status = check_positions(positions, npositions, p->count, out_keys, errbuf, errlen);
	if (status != GS_OK || npositions == 0)
		return status;
	return sort_and_copy(p, ngroups, positions, npositions, out_keys, cancel, errbuf, errlen);
}

gs_status
gs_pairs_select(gs_pairs *p, const int64_t *ranks, int nranks, void *out_keys,
				const volatile int *cancel, char *errbuf, size_t errlen)
{
	size_t		ws_bytes = 0;
	void	   *ws = NULL;
	cudaError_t err;
	gs_status	status;

	if (p == NULL)
	{
		gs_format_error(errbuf, errlen, "invalid arguments to gs_pairs_select");
		return GS_INVALID_ARGUMENT;
	}
	status = gs_select_workspace_bytes(p->key_bytes, p->count, nranks > 0 ? nranks : 1,
									   &ws_bytes, errbuf, errlen);
	if (status != GS_OK)
		return status;
	err = gs_dev_malloc(&ws, ws_bytes > 0 ? ws_bytes : 1);
	if (err != cudaSuccess)
		return gs_status_from_cuda(err, "allocating the selection's workspace", errbuf, errlen);
	status = gs_select_device(p->key_bytes, p->keys, p->count, ranks, nranks, out_keys,
							  ws, ws_bytes, p->stream, cancel, NULL, NULL, errbuf, errlen);
	(void) cudaStreamSynchronize(p->stream);
	(void) gs_dev_free(ws);
	return status;
}

void
gs_pairs_destroy(gs_pairs *p)
{
	if (p == NULL)
		return;
	if (p->stream != NULL)
		(void) cudaStreamSynchronize(p->stream);
	if (p->keys != NULL)
		(void) gs_dev_free(p->keys);
	if (p->groups != NULL)
		(void) gs_dev_free(p->groups);
	if (p->stream != NULL)
		(void) cudaStreamDestroy(p->stream);
	free(p);
}

gs_status
gs_sort_by_group(int key_bytes, const void *keys, const uint32_t *groups,
				 int64_t n, int64_t ngroups, void *out_keys,
				 const volatile int *cancel, char *errbuf, size_t errlen)
{
	gs_status	status;

	status = check_arguments(key_bytes, keys, groups, n, ngroups, out_keys, errbuf, errlen);
	if (status != GS_OK || n == 0)
		return status;
	return sort_host_pairs(key_bytes, keys, groups, n, ngroups, NULL, 0, out_keys, cancel,
						   errbuf, errlen);
}

gs_status
gs_sort_by_group_pick(int key_bytes, const void *keys, const uint32_t *groups,
					  int64_t n, int64_t ngroups,
					  const int64_t *positions, int64_t npositions, void *out_keys,
					  const volatile int *cancel, char *errbuf, size_t errlen)
{
	gs_status	status;

	status = check_arguments(key_bytes, keys, groups, n, ngroups, out_keys, errbuf, errlen);
	if (status == GS_OK)
		status = check_positions(positions, npositions, n, out_keys, errbuf, errlen);
	if (status != GS_OK || npositions == 0)
		return status;
	return sort_host_pairs(key_bytes, keys, groups, n, ngroups, positions, npositions,
						   out_keys, cancel, errbuf, errlen);
}
