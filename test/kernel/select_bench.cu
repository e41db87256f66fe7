/*
 * select_bench.cu
 *	  Times gpusel's SampleSelect (gs_select_device, keys already on the
 *	  device) for one rank (the median) and nine ranks (the deciles) against
 *	  cub::DeviceRadixSort::SortKeys on the same keys, for float32 and
 *	  float64 data mapped to order-preserving unsigned keys, and checks every
 *	  selected key against the sorted output.  Reports the host-to-device
 *	  copy of the input from pinned memory separately, and the whole
 *	  gs_select_keys call (allocation, copy, selection) for uniform data.
 *
 *	  select_bench [--sizes 20,24,27,28] [--reps N] [--variants] [--breakdown]
 *	               [--filter-variant N]
 *	    --variants   also times the count-kernel variants (gs_select_options)
 *	    --breakdown  also prints device time per phase (sample, count, ...)
 *	    --filter-variant N  runs every selection with that filter variant
 *
 *	  Times are medians of N runs (default 7; the sort 3), each after a
 *	  warm-up, measured with CUDA events around the call.
 */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpusel_cuda.h"
#include "sampleselect.cuh"

namespace
{

const char *const kDists[] = {"uniform", "all-equal", "two-values", "sorted", "reverse", "dup16"};
constexpr int kNumDists = 6;

int			g_errors = 0;
int			g_filter_variant = 0;

#define CHECK(expr) \
	do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)

/* Spreads the bits of x (splitmix64 finaliser). */
__host__ __device__ unsigned long long hash64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Order-preserving key of a float: NaN last, -0 equal to +0. */
__device__ uint32_t float_key(float f)
{
	if (f != f)
		return ~0u;
	if (f == 0.0f)
		f = 0.0f;
	const uint32_t b = __float_as_uint(f);

	return (b >> 31) ? ~b : (b | 0x80000000u);
}

/* Order-preserving key of a double: NaN last, -0 equal to +0. */
__device__ uint64_t double_key(double d)
{
	if (d != d)
		return ~0ull;
	if (d == 0.0)
		d = 0.0;
	const uint64_t b = (uint64_t) __double_as_longlong(d);

	return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

/* Fills keys with n float (KeyT = uint32_t) or double keys of distribution dist. */
template <typename KeyT>
__global__ void generate_kernel(KeyT *keys, long long n, int dist, unsigned long long seed)
{
	for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
		 i += (long long) gridDim.x * blockDim.x)
	{
		const unsigned long long h = hash64(seed ^ (unsigned long long) i * 0xd1b54a32d192ed03ull);
		double		v;

		switch (dist)
		{
			case 0:
				v = (double) (h >> 11) * 0x1.0p-53 * 2000.0 - 1000.0;
				break;
			case 1:
				v = 42.0;
				break;
			case 2:
				v = (h >> 20) & 1 ? 1.5 : -2.5;
				break;
			case 3:
				v = (double) i;
				break;
			case 4:
				v = (double) (n - i);
				break;
			default:
				v = (double) ((h >> 20) % 16) * 0.5 - 3.0;
				break;
		}
		if (sizeof(KeyT) == 4)
			keys[i] = (KeyT) float_key((float) v);
		else
			keys[i] = (KeyT) double_key(v);
	}
}

/* Reads every key once (16-byte loads) and folds them into *sink: the
 * memory floor any selection pays for one pass over the input. */
template <typename KeyT>
__global__ void read_once_kernel(const KeyT *keys, long long n, unsigned long long *sink)
{
	const uint4 *v = reinterpret_cast<const uint4 *>(keys);
	const long long nv = n * (long long) sizeof(KeyT) / 16;
	unsigned	acc = 0;

	for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < nv;
		 i += (long long) gridDim.x * blockDim.x)
	{
		const uint4 x = __ldcs(v + i);

		acc ^= x.x ^ x.y ^ x.z ^ x.w;
	}
	if (acc == 0x12345678u)
		atomicAdd(sink, 1ull);
}

/* Median of v. */
float median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* Times fn on stream with events: one warm-up, then the median of reps runs. */
template <typename Fn>
float time_ms(Fn fn, int reps, cudaStream_t stream)
{
	cudaEvent_t e0, e1;
	std::vector<float> t;

	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	fn();
	CHECK(cudaStreamSynchronize(stream));
	for (int r = 0; r < reps; ++r)
	{
		float		ms = 0;

		CHECK(cudaEventRecord(e0, stream));
		fn();
		CHECK(cudaEventRecord(e1, stream));
		CHECK(cudaEventSynchronize(e1));
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		t.push_back(ms);
	}
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	return median(t);
}

/* percentile_disc's 0-based index for fraction f over n keys. */
int64_t disc_index(double f, int64_t n)
{
	int64_t		pos = (int64_t) std::ceil(f * (double) n);

	return pos > 1 ? pos - 1 : 0;
}

/* Runs gs_select_device and stops the program on an error. */
template <typename KeyT>
void select_or_die(const KeyT *d_keys, int64_t n, const std::vector<int64_t> &ranks,
				   std::vector<KeyT> &out, void *ws, size_t ws_bytes, cudaStream_t stream,
				   int variant, gs_select_stats *stats)
{
	char		errbuf[512];
	gs_select_options opt;

	memset(&opt, 0, sizeof(opt));
	opt.count_variant = variant;
	opt.filter_variant = g_filter_variant;
	out.resize(ranks.size());
	gs_status	st = gs_select_device((int) sizeof(KeyT), d_keys, n, ranks.data(),
									  (int) ranks.size(), out.data(), ws, ws_bytes, stream, NULL,
									  &opt, stats, errbuf, sizeof(errbuf));

	if (st != GS_OK)
	{
		fprintf(stderr, "gs_select_device failed: status %d: %s\n", (int) st, errbuf);
		exit(1);
	}
}

/* Compares selected keys with the sorted keys at the same ranks. */
template <typename KeyT>
bool matches_sorted(const KeyT *d_sorted, const std::vector<int64_t> &ranks,
					const std::vector<KeyT> &got)
{
	for (size_t i = 0; i < ranks.size(); ++i)
	{
		KeyT		want;

		CHECK(cudaMemcpy(&want, d_sorted + ranks[i], sizeof(KeyT), cudaMemcpyDeviceToHost));
		if (want != got[i])
		{
			printf("MISMATCH at rank %lld: selected %llx, sorted %llx\n", (long long) ranks[i],
				   (unsigned long long) got[i], (unsigned long long) want);
			return false;
		}
	}
	return true;
}

/* All rows for one size and key type. */
template <typename KeyT>
void bench_size(int log2n, int reps, bool variants, bool breakdown, std::vector<std::string> &extra)
{
	const int64_t n = 1ll << log2n;
	const char *type = sizeof(KeyT) == 4 ? "f32" : "f64";
	KeyT	   *d_keys = NULL;
	KeyT	   *d_sorted = NULL;
	void	   *d_temp = NULL;
	void	   *d_ws = NULL;
	void	   *h_pinned = NULL;
	size_t		temp_bytes = 0;
	size_t		ws_bytes = 0;
	cudaStream_t stream;
	char		errbuf[512];
	std::vector<int64_t> one = {disc_index(0.5, n)};
	std::vector<int64_t> nine;
	std::vector<KeyT> out;
	char		line[512];

	for (int i = 1; i <= 9; ++i)
		nine.push_back(disc_index(i / 10.0, n));
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&d_keys, sizeof(KeyT) * n));
	CHECK(cudaMalloc(&d_sorted, sizeof(KeyT) * n));
	CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_sorted, n, 0,
										 (int) (8 * sizeof(KeyT)), stream));
	CHECK(cudaMalloc(&d_temp, temp_bytes));
	if (gs_select_workspace_bytes((int) sizeof(KeyT), n, 9, &ws_bytes, errbuf, sizeof(errbuf)) != GS_OK)
	{
		fprintf(stderr, "workspace: %s\n", errbuf);
		exit(1);
	}
	CHECK(cudaMalloc(&d_ws, ws_bytes));

	for (int dist = 0; dist < kNumDists; ++dist)
	{
		gs_select_stats st1, st9;

		generate_kernel<KeyT><<<1024, 256, 0, stream>>>(d_keys, n, dist, 12345 + dist);
		CHECK(cudaGetLastError());
		CHECK(cudaStreamSynchronize(stream));

		const float sel1 = time_ms([&] { select_or_die(d_keys, n, one, out, d_ws, ws_bytes, stream, 0, &st1); },
								   reps, stream);
		std::vector<KeyT> out1 = out;
		const float sel9 = time_ms([&] { select_or_die(d_keys, n, nine, out, d_ws, ws_bytes, stream, 0, &st9); },
								   reps, stream);
		std::vector<KeyT> out9 = out;
		const float sort = time_ms([&] {
			CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_sorted, n, 0,
												 (int) (8 * sizeof(KeyT)), stream));
		}, 3, stream);
		CHECK(cudaStreamSynchronize(stream));
		const bool	ok = matches_sorted(d_sorted, one, out1) && matches_sorted(d_sorted, nine, out9);

		if (breakdown && (dist == 0 || dist == 1 || dist == 3))
		{
			for (int which = 0; which < 2; ++which)
			{
				gs_select_stats st;
				gs_select_options opt;
				const std::vector<int64_t> &rk = which ? nine : one;

				memset(&opt, 0, sizeof(opt));
				opt.collect_timing = 1;
				opt.filter_variant = g_filter_variant;
				out.resize(rk.size());
				if (gs_select_device((int) sizeof(KeyT), d_keys, n, rk.data(), (int) rk.size(), out.data(),
									 d_ws, ws_bytes, stream, NULL, &opt, &st, errbuf, sizeof(errbuf)) != GS_OK)
					continue;
				float		sum = 0;

				for (int p = 0; p < GS_NPHASES; ++p)
					sum += st.phase_ms[p];
				snprintf(line, sizeof(line),
						 "2^%-4d %-4s %-10s sel%d  sample %.3f count %.3f reduce %.3f readback %.3f filter %.3f base %.3f"
						 "  (sum %.3f of %.3f; levels %d, kept after level 1: %lld)",
						 log2n, type, kDists[dist], which ? 9 : 1, st.phase_ms[GS_PHASE_SAMPLE],
						 st.phase_ms[GS_PHASE_COUNT], st.phase_ms[GS_PHASE_REDUCE],
						 st.phase_ms[GS_PHASE_READBACK], st.phase_ms[GS_PHASE_FILTER],
						 st.phase_ms[GS_PHASE_BASE], sum, which ? sel9 : sel1, st.levels,
						 (long long) st.kept_after_first_level);
				extra.push_back(line);
			}
		}

		if (!ok)
			g_errors++;
		printf("2^%-4d %-4s %-10s %9.3f %9.3f %10.3f %9.1fx %9.1fx   %d/%d %s\n", log2n, type,
			   kDists[dist], sel1, sel9, sort, sort / sel1, sort / sel9, st1.levels, st9.levels,
			   ok ? "ok" : "WRONG");
		fflush(stdout);

		if (variants && (dist == 0 || dist == 1 || dist == 2 || dist == 3))
		{
			float		v[4];

			for (int var = 0; var < 4; ++var)
			{
				v[var] = time_ms([&] { select_or_die(d_keys, n, one, out, d_ws, ws_bytes, stream, var, NULL); },
								 reps, stream);
				if (out[0] != out1[0])
				{
					printf("MISMATCH: count variant %d selected %llx, default %llx\n", var,
						   (unsigned long long) out[0], (unsigned long long) out1[0]);
					g_errors++;
				}
			}
			snprintf(line, sizeof(line), "2^%-4d %-4s %-10s  v0 %.3f  v1 %.3f  v2 %.3f  v3 %.3f ms",
					 log2n, type, kDists[dist], v[0], v[1], v[2], v[3]);
			extra.push_back(line);
		}

		if (dist == 0)
		{
			/* host-to-device copy from pinned memory, and the whole C ABI call */
			std::vector<float> t;
			const void *chunk;
			int64_t		cnt = n;

			if (gs_host_alloc(&h_pinned, sizeof(KeyT) * n) != GS_OK)
			{
				extra.push_back("pinned allocation failed");
				continue;
			}
			CHECK(cudaMemcpy(h_pinned, d_keys, sizeof(KeyT) * n, cudaMemcpyDeviceToHost));
			{
				unsigned long long *sink = NULL;

				CHECK(cudaMalloc(&sink, sizeof(*sink)));
				const float rd = time_ms([&] {
					read_once_kernel<KeyT><<<132 * 16, 256, 0, stream>>>(d_keys, n, sink);
				}, reps, stream);

				CHECK(cudaFree(sink));
				snprintf(line, sizeof(line), "2^%-4d %-4s reading the keys once: %.3f ms (%.0f GB/s)",
						 log2n, type, rd, sizeof(KeyT) * n / rd / 1e6);
				extra.push_back(line);
			}
			const float h2d = time_ms([&] {
				CHECK(cudaMemcpyAsync(d_sorted, h_pinned, sizeof(KeyT) * n, cudaMemcpyHostToDevice, stream));
			}, 3, stream);

			chunk = h_pinned;
			for (int r = 0; r < 4; ++r)
			{
				auto		t0 = std::chrono::steady_clock::now();
				gs_status	s = gs_select_keys((int) sizeof(KeyT), &chunk, &cnt, 1, n, one.data(), 1,
											   out.data(), NULL, errbuf, sizeof(errbuf));
				auto		t1 = std::chrono::steady_clock::now();

				if (s != GS_OK || out[0] != out1[0])
				{
					printf("gs_select_keys: status %d %s\n", (int) s, errbuf);
					g_errors++;
				}
				if (r > 0)
					t.push_back(std::chrono::duration<float, std::milli>(t1 - t0).count());
			}
			snprintf(line, sizeof(line),
					 "2^%-4d %-4s H2D from pinned %8.3f ms (%5.1f GB/s); gs_select_keys median end to end %8.3f ms",
					 log2n, type, h2d, sizeof(KeyT) * n / h2d / 1e6, median(t));
			extra.push_back(line);
			gs_host_free(h_pinned);
			h_pinned = NULL;
		}
	}
	CHECK(cudaFree(d_keys));
	CHECK(cudaFree(d_sorted));
	CHECK(cudaFree(d_temp));
	CHECK(cudaFree(d_ws));
	CHECK(cudaStreamDestroy(stream));
}

} /* namespace */

int
main(int argc, char **argv)
{
	std::vector<int> sizes = {20, 24, 27, 28};
	int			reps = 7;
	bool		variants = false;
	bool		breakdown = false;
	gs_device_info info;
	std::vector<std::string> extra;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
		{
			sizes.clear();
			for (char *p = strtok(argv[++i], ","); p; p = strtok(NULL, ","))
				sizes.push_back(atoi(p));
		}
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--variants"))
			variants = true;
		else if (!strcmp(argv[i], "--breakdown"))
			breakdown = true;
		else if (!strcmp(argv[i], "--filter-variant") && i + 1 < argc)
			g_filter_variant = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: %s [--sizes 20,24,27,28] [--reps N] [--variants] [--breakdown] "
					"[--filter-variant N]\n", argv[0]);
			return 2;
		}
	}
	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason);
		return 0;
	}
	printf("device: %s (cc %d.%d), %.1f GiB; filter variant %d\n", info.name, info.cc_major,
		   info.cc_minor, info.total_memory / 1073741824.0, g_filter_variant);
	{
		/* the end-to-end gs_select_keys calls take the same filter */
		gs_select_options defaults;

		memset(&defaults, 0, sizeof(defaults));
		defaults.filter_variant = g_filter_variant;
		gs_select_set_defaults(&defaults);
	}
	printf("times in ms: medians of %d (sort: 3), keys already on the device\n", reps);
	printf("%-6s %-4s %-10s %9s %9s %10s %10s %10s   %s\n", "size", "type", "dist", "select1",
		   "select9", "radixsort", "sort/sel1", "sort/sel9", "levels");
	for (int lg : sizes)
	{
		bench_size<uint32_t>(lg, reps, variants, breakdown, extra);
		bench_size<uint64_t>(lg, reps, variants, breakdown, extra);
	}
	for (const std::string &s : extra)
		printf("%s\n", s.c_str());
	printf("%s\n", g_errors ? "ERRORS: some selections disagreed with the sort" : "all selections agree with the sort");
	return g_errors ? 1 : 0;
}
