/*
 * groupsort_bench.cu
 *	  Times gs_sort_by_group on the shapes the grouped scan hands it (20M-row
 *	  benchmark: 11.9M keys in 101 groups; 20M keys in 10,000 groups), from
 *	  pageable and from page-locked host memory, with the output already
 *	  touched and fresh, beside a host counting sort of the same pairs.
 *	  Prints median milliseconds of 5 runs.  SKIP without a GPU.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpusel_cuda.h"

namespace
{

/* Milliseconds since an arbitrary start. */
double now_ms()
{
	return std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Median of a few timings. */
double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* Host counting sort by group, the CPU path's segmentation, for reference. */
void counting_sort(const uint64_t *keys, const uint32_t *groups, int64_t n, int64_t ngroups,
				   uint64_t *out)
{
	std::vector<int64_t> next(ngroups + 1, 0);

	for (int64_t i = 0; i < n; i++)
		next[groups[i] + 1]++;
	for (int64_t g = 0; g < ngroups; g++)
		next[g + 1] += next[g];
	for (int64_t i = 0; i < n; i++)
		out[next[groups[i]]++] = keys[i];
}

/* Times one shape in every memory arrangement. */
void bench_shape(int64_t n, int64_t ngroups)
{
	uint64_t   *keys = (uint64_t *) malloc(n * 8);
	uint32_t   *groups = (uint32_t *) malloc(n * 4);
	uint64_t   *out = (uint64_t *) malloc(n * 8);
	uint64_t   *pkeys;
	uint32_t   *pgroups;
	uint64_t   *pout;
	uint64_t	s = 88172645463325252ull;
	char		errbuf[256];
	std::vector<double> t_page, t_fresh, t_pinned, t_host;

	for (int64_t i = 0; i < n; i++)
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		keys[i] = s;
		groups[i] = (uint32_t) (s % ngroups);
	}
	memset(out, 0, n * 8);
	cudaMallocHost((void **) &pkeys, n * 8);
	cudaMallocHost((void **) &pgroups, n * 4);
	cudaMallocHost((void **) &pout, n * 8);
	memcpy(pkeys, keys, n * 8);
	memcpy(pgroups, groups, n * 4);
	gs_sort_by_group(8, keys, groups, n, ngroups, out, NULL, errbuf, sizeof(errbuf));
	for (int r = 0; r < 5; r++)
	{
		double		t0 = now_ms();
		uint64_t   *fresh;

		if (gs_sort_by_group(8, keys, groups, n, ngroups, out, NULL, errbuf,
							 sizeof(errbuf)) != GS_OK)
		{
			printf("FAIL: %s\n", errbuf);
			exit(1);
		}
		t_page.push_back(now_ms() - t0);
		fresh = (uint64_t *) malloc(n * 8);
		t0 = now_ms();
		gs_sort_by_group(8, keys, groups, n, ngroups, fresh, NULL, errbuf, sizeof(errbuf));
		t_fresh.push_back(now_ms() - t0);
		free(fresh);
		t0 = now_ms();
		gs_sort_by_group(8, pkeys, pgroups, n, ngroups, pout, NULL, errbuf, sizeof(errbuf));
		t_pinned.push_back(now_ms() - t0);
		t0 = now_ms();
		counting_sort(keys, groups, n, ngroups, out);
		t_host.push_back(now_ms() - t0);
	}
	printf("%10lld keys %6lld groups: pageable %7.1f ms, fresh output %7.1f ms, "
		   "page-locked %7.1f ms; host counting sort %7.1f ms\n",
		   (long long) n, (long long) ngroups, median(t_page), median(t_fresh),
		   median(t_pinned), median(t_host));
	cudaFreeHost(pkeys);
	cudaFreeHost(pgroups);
	cudaFreeHost(pout);
	free(keys);
	free(groups);
	free(out);
}

} /* namespace */

/* Runs the shapes. */
int
main()
{
	gs_device_info info;

	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason);
		return 0;
	}
	printf("%s\n", info.name);
	bench_shape(11881034, 101);
	bench_shape(20000000, 10000);
	bench_shape(20000000, 1);
	return 0;
}
