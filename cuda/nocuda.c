/*
 * nocuda.c
 *	  gpusel_cuda.h for a build without CUDA: every function answers
 *	  GS_NO_DEVICE, so src/ runs everything on the CPU.
 */
#include <stdio.h>
#include <string.h>

#include "gpusel_cuda.h"

/* Writes the "built without CUDA" message into errbuf; the answer of every call. */
static gs_status
no_cuda(char *errbuf, size_t errlen)
{
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "gpusel was built without CUDA");
	return GS_NO_DEVICE;
}

gs_status
gs_probe(gs_device_info *info)
{
	if (info == NULL)
		return GS_INVALID_ARGUMENT;
	memset(info, 0, sizeof(*info));
	snprintf(info->reason, sizeof(info->reason), "gpusel was built without CUDA");
	return GS_NO_DEVICE;
}

gs_status
gs_device_memory_in_use(uint64_t *used_bytes)
{
	if (used_bytes != NULL)
		*used_bytes = 0;
	return GS_NO_DEVICE;
}

void
gs_device_pool_enable(size_t idle_bytes_max)
{
	(void) idle_bytes_max;
}

void
gs_device_pool_trim(void)
{
}

void
gs_set_host_allocator(gs_host_allocator alloc, gs_host_releaser release)
{
	(void) alloc;
	(void) release;
}

gs_status
gs_host_register(void *ptr, size_t bytes, char *errbuf, size_t errlen)
{
	(void) ptr;
	(void) bytes;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_use_device(int ordinal, char *errbuf, size_t errlen)
{
	(void) ordinal;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_host_alloc(void **ptr, size_t bytes)
{
	(void) bytes;
	if (ptr != NULL)
		*ptr = NULL;
	return GS_NO_DEVICE;
}

void
gs_host_free(void *ptr)
{
	/* gs_host_alloc never hands out memory in this build */
	(void) ptr;
}

gs_status
gs_select_keys(int key_bytes,
			   const void *const *chunks, const int64_t *chunk_counts,
			   int nchunks, int64_t n,
			   const int64_t *ranks, int nranks, void *out_keys,
			   const volatile int *cancel,
			   char *errbuf, size_t errlen)
{
	(void) key_bytes;
	(void) chunks;
	(void) chunk_counts;
	(void) nchunks;
	(void) n;
	(void) ranks;
	(void) nranks;
	(void) out_keys;
	(void) cancel;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_sort_by_group(int key_bytes, const void *keys, const uint32_t *groups,
				 int64_t n, int64_t ngroups, void *out_keys,
				 const volatile int *cancel,
				 char *errbuf, size_t errlen)
{
	(void) key_bytes;
	(void) keys;
	(void) groups;
	(void) n;
	(void) ngroups;
	(void) out_keys;
	(void) cancel;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_sort_by_group_pick(int key_bytes, const void *keys, const uint32_t *groups,
					  int64_t n, int64_t ngroups,
					  const int64_t *positions, int64_t npositions,
					  void *out_keys, const volatile int *cancel,
					  char *errbuf, size_t errlen)
{
	(void) positions;
	(void) npositions;
	return gs_sort_by_group(key_bytes, keys, groups, n, ngroups, out_keys, cancel,
							errbuf, errlen);
}

gs_status
gs_pairs_create(gs_pairs **pairs, int key_bytes, int with_groups,
				char *errbuf, size_t errlen)
{
	(void) key_bytes;
	(void) with_groups;
	if (pairs != NULL)
		*pairs = NULL;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_pairs_append(gs_pairs *pairs, const void *keys, const uint32_t *groups,
				int64_t n, char *errbuf, size_t errlen)
{
	(void) pairs;
	(void) keys;
	(void) groups;
	(void) n;
	return no_cuda(errbuf, errlen);
}

int64_t
gs_pairs_count(const gs_pairs *pairs)
{
	(void) pairs;
	return 0;
}

gs_status
gs_pairs_read(gs_pairs *pairs, void *keys, uint32_t *groups, char *errbuf, size_t errlen)
{
	(void) pairs;
	(void) keys;
	(void) groups;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_pairs_sort_pick(gs_pairs *pairs, int64_t ngroups,
				   const int64_t *positions, int64_t npositions,
				   void *out_keys, const volatile int *cancel,
				   char *errbuf, size_t errlen)
{
	(void) pairs;
	(void) ngroups;
	(void) positions;
	(void) npositions;
	(void) out_keys;
	(void) cancel;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_pairs_select(gs_pairs *pairs, const int64_t *ranks, int nranks,
				void *out_keys, const volatile int *cancel,
				char *errbuf, size_t errlen)
{
	(void) pairs;
	(void) ranks;
	(void) nranks;
	(void) out_keys;
	(void) cancel;
	return no_cuda(errbuf, errlen);
}

void
gs_pairs_destroy(gs_pairs *pairs)
{
	/* gs_pairs_create never hands out pairs in this build */
	(void) pairs;
}

gs_status
gs_device_alloc(void **dptr, size_t bytes, char *errbuf, size_t errlen)
{
	(void) bytes;
	if (dptr != NULL)
		*dptr = NULL;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_device_write(void *dptr, const void *src, size_t bytes, char *errbuf, size_t errlen)
{
	(void) dptr;
	(void) src;
	(void) bytes;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_device_write_many(void *dbase, int n, const uint64_t *offsets, const void *const *srcs,
					 const uint64_t *bytes, char *errbuf, size_t errlen)
{
	(void) dbase;
	(void) n;
	(void) offsets;
	(void) srcs;
	(void) bytes;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_device_zero(void *dptr, size_t bytes, char *errbuf, size_t errlen)
{
	(void) dptr;
	(void) bytes;
	return no_cuda(errbuf, errlen);
}

gs_status
gs_device_copy(void *dst, const void *src, size_t bytes, char *errbuf, size_t errlen)
{
	(void) dst;
	(void) src;
	(void) bytes;
	return no_cuda(errbuf, errlen);
}

void
gs_device_free(void *dptr)
{
	(void) dptr;
}
