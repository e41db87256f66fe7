/*
 * select_test.cu
 *	  Checks gpusel's SampleSelect through the C ABI (gs_select_keys) against
 *	  a CPU reference, for 32- and 64-bit keys, many distributions and sizes,
 *	  single ranks, deciles, repeated ranks and many ranks at once; checks
 *	  that device memory in use is unchanged after 1000 calls, that a set
 *	  cancel flag gives GS_INTERRUPTED, and that bad arguments are refused.
 *
 *	  select_test [--quick] [--big] [--max-n N] [--host-only] [--verbose]
 *	    --quick      sizes up to 2^20 only
 *	    --max-n N    sizes up to N only (e.g. under compute-sanitizer)
 *	    --big        also 2^28 keys (2 GB of 64-bit keys)
 *	    --host-only  only the CPU checks of the tree helpers (no GPU needed)
 *	    --count-variant N, --filter-variant N
 *	                 run every selection with that kernel variant
 *	                 (gs_select_options; 0 is the default)
 *
 *	  Without a usable GPU it prints "SKIP: no GPU (<reason>)" and exits 0.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpusel_cuda.h"
#include "sampleselect.cuh"
#include "sampleselect_kernels.cuh"
#include "test_harness.h"

namespace
{

/* A small, fast, deterministic random generator (xorshift64*). */
struct Rng
{
	uint64_t	s;

	explicit Rng(uint64_t seed) : s(seed * 0x9e3779b97f4a7c15ull + 1) {}
	uint64_t next()
	{
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		return s * 0x2545f4914f6cdd1dull;
	}
};

/* Order-preserving key of a double: NaN last, -0 equal to +0. */
uint64_t double_key(double d)
{
	uint64_t	b;

	if (d != d)
		return ~0ull;
	if (d == 0.0)
		d = 0.0;
	memcpy(&b, &d, sizeof(b));
	return (b >> 63) ? ~b : (b | (1ull << 63));
}

/* Order-preserving key of a float: NaN last, -0 equal to +0. */
uint32_t float_key(float f)
{
	uint32_t	b;

	if (f != f)
		return ~0u;
	if (f == 0.0f)
		f = 0.0f;
	memcpy(&b, &f, sizeof(b));
	return (b >> 31) ? ~b : (b | (1u << 31));
}

const char *const kDists[] = {
	"uniform", "all-equal", "two-values", "sorted", "reverse", "dup16",
	"half-equal", "extremes", "floats",
};
constexpr int kNumDists = sizeof(kDists) / sizeof(kDists[0]);

/* Fills keys with n keys of distribution dist. */
template <typename KeyT>
void generate(std::vector<KeyT> &keys, int64_t n, int dist, uint64_t seed)
{
	Rng			rng(seed);
	const KeyT	maxk = static_cast<KeyT>(~static_cast<KeyT>(0));
	const KeyT	a = static_cast<KeyT>(rng.next());
	const KeyT	b = static_cast<KeyT>(rng.next());
	KeyT		vals[16];

	for (int i = 0; i < 16; ++i)
		vals[i] = static_cast<KeyT>(rng.next());
	keys.resize(n);
	for (int64_t i = 0; i < n; ++i)
	{
		const uint64_t r = rng.next();
		KeyT		k = 0;

		switch (dist)
		{
			case 0:
				k = static_cast<KeyT>(r);
				break;
			case 1:
				k = a;
				break;
			case 2:
				k = (r >> 40) & 1 ? a : b;
				break;
			case 3:
				k = static_cast<KeyT>(i * 3 + 7);
				break;
			case 4:
				k = static_cast<KeyT>((n - i) * 5);
				break;
			case 5:
				k = vals[(r >> 33) & 15];
				break;
			case 6:
				k = (r >> 40) & 1 ? a : static_cast<KeyT>(rng.next());
				break;
			case 7:
				{
					const KeyT	ex[4] = {0, 1, static_cast<KeyT>(maxk - 1), maxk};

					k = ex[(r >> 35) & 3];
					break;
				}
			default:
				{
					/* floats with NaN, infinities, signed zeros, denormals */
					const int	kind = (int) ((r >> 56) & 31);
					double		d = ((double) (int64_t) (rng.next() >> 11) - 4.5e15) * 1e-9;

					if (kind == 0)
						d = std::numeric_limits<double>::quiet_NaN();
					else if (kind == 1)
						d = -std::numeric_limits<double>::quiet_NaN();
					else if (kind == 2)
						d = std::numeric_limits<double>::infinity();
					else if (kind == 3)
						d = -std::numeric_limits<double>::infinity();
					else if (kind == 4)
						d = -0.0;
					else if (kind == 5)
						d = 0.0;
					else if (kind == 6)
						d = 4.9e-324 * (double) (r & 1023);
					if (sizeof(KeyT) == 4)
						k = static_cast<KeyT>(float_key((float) d));
					else
						k = static_cast<KeyT>(double_key(d));
					break;
				}
		}
		keys[i] = k;
	}
}

/* percentile_disc's 0-based index for fraction f over n keys. */
int64_t disc_index(double f, int64_t n)
{
	int64_t		pos = (int64_t) std::ceil(f * (double) n);

	return pos > 1 ? pos - 1 : 0;
}

/* The rank sets checked for n keys. */
std::vector<std::pair<std::string, std::vector<int64_t>>> rank_sets(int64_t n, Rng &rng)
{
	std::vector<std::pair<std::string, std::vector<int64_t>>> sets;
	std::vector<int64_t> dec;

	sets.push_back({"min", {0}});
	sets.push_back({"max", {n - 1}});
	sets.push_back({"median", {n / 2}});
	for (int i = 1; i <= 9; ++i)
		dec.push_back(disc_index(i / 10.0, n));
	sets.push_back({"deciles", dec});
	sets.push_back({"repeated", {0, 0, n / 2, n / 2, n / 2, n - 1, n - 1}});
	if (n >= 1000)
	{
		std::vector<int64_t> many;

		for (int i = 0; i < 300; ++i)
			many.push_back((int64_t) (rng.next() % (uint64_t) n));
		std::sort(many.begin(), many.end());
		sets.push_back({"300-random", many});
	}
	return sets;
}

/* Puts the keys at ranks[rlo..rhi) (ascending, inside [lo, hi)) in place. */
template <typename KeyT>
void multi_select(std::vector<KeyT> &keys, int64_t lo, int64_t hi,
				  const std::vector<int64_t> &ranks, int64_t rlo, int64_t rhi)
{
	if (rlo >= rhi)
		return;
	const int64_t rm = rlo + (rhi - rlo) / 2;
	const int64_t r = ranks[rm];

	std::nth_element(keys.begin() + lo, keys.begin() + r, keys.begin() + hi);
	multi_select(keys, lo, r, ranks, rlo, rm);
	multi_select(keys, r + 1, hi, ranks, rm + 1, rhi);
}

/* Reference answers: the keys at ranks of the sorted input. */
template <typename KeyT>
std::vector<KeyT> reference(std::vector<KeyT> keys, const std::vector<int64_t> &all_ranks,
							bool use_sort)
{
	std::vector<KeyT> out;

	if (use_sort)
	{
		std::sort(keys.begin(), keys.end());
		for (int64_t r : all_ranks)
			out.push_back(keys[r]);
		return out;
	}
	/* nth_element on the middle wanted rank, then each side: O(n log m) */
	std::vector<int64_t> sorted = all_ranks;

	std::sort(sorted.begin(), sorted.end());
	sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
	multi_select(keys, 0, (int64_t) keys.size(), sorted, 0, (int64_t) sorted.size());
	for (int64_t r : all_ranks)
		out.push_back(keys[r]);
	return out;
}

/*
 * Runs gs_select_keys on keys split into chunks: one pageable chunk when
 * pinned is NULL, else three uneven chunks in pinned (page-locked) memory
 * with an empty one between.
 */
template <typename KeyT>
gs_status select_chunks(const std::vector<KeyT> &keys, const std::vector<int64_t> &ranks,
						std::vector<KeyT> &out, void *pinned,
						char *errbuf, size_t errlen)
{
	const int64_t n = (int64_t) keys.size();
	std::vector<const void *> chunks;
	std::vector<int64_t> counts;

	out.assign(ranks.size(), 0);
	if (pinned == NULL)
	{
		chunks.push_back(keys.data());
		counts.push_back(n);
	}
	else
	{
		KeyT	   *p = static_cast<KeyT *>(pinned);
		const int64_t c1 = n / 3;
		const int64_t c2 = n - c1 - n / 5;

		memcpy(p, keys.data(), sizeof(KeyT) * n);
		chunks.push_back(p);
		counts.push_back(c1);
		chunks.push_back(NULL);
		counts.push_back(0);
		chunks.push_back(p + c1);
		counts.push_back(c2);
		chunks.push_back(p + c1 + c2);
		counts.push_back(n - c1 - c2);
	}
	return gs_select_keys((int) sizeof(KeyT), chunks.data(), counts.data(), (int) chunks.size(),
						  n, ranks.data(), (int) ranks.size(), out.data(), NULL, errbuf, errlen);
}

/* Checks every rank set on one generated input; one line per input. */
template <typename KeyT>
void check_input(int dist, int64_t n, int case_no)
{
	std::vector<KeyT> keys;
	Rng			rng(1000 + case_no);
	char		errbuf[512];
	void	   *pinned = NULL;
	const char *type = sizeof(KeyT) == 4 ? "u32" : "u64";
	auto		sets = rank_sets(n, rng);
	std::vector<int64_t> all;
	int			bad = 0;
	double		gpu_ms = 0;

	generate(keys, n, dist, 77 + case_no);
	/* every other pair of cases (u32 and u64) uses pinned chunks */
	if (((case_no >> 1) & 1) && gs_host_alloc(&pinned, sizeof(KeyT) * n) != GS_OK)
		pinned = NULL;
	for (auto &s : sets)
		all.insert(all.end(), s.second.begin(), s.second.end());
	std::vector<KeyT> ref = reference(keys, all, n <= (1 << 22));
	size_t		at = 0;

	for (auto &s : sets)
	{
		std::vector<KeyT> out;
		auto		t0 = std::chrono::steady_clock::now();
		gs_status	st = select_chunks(keys, s.second, out, pinned, errbuf, sizeof(errbuf));
		auto		t1 = std::chrono::steady_clock::now();
		bool		ok = st == GS_OK;

		gpu_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
		for (size_t i = 0; ok && i < s.second.size(); ++i)
		{
			if (out[i] != ref[at + i])
			{
				printf("  mismatch %s %s n=%lld %s: rank %lld got %llx want %llx\n", type,
					   kDists[dist], (long long) n, s.first.c_str(), (long long) s.second[i],
					   (unsigned long long) out[i], (unsigned long long) ref[at + i]);
				ok = false;
			}
		}
		if (st != GS_OK)
			printf("  status %d: %s\n", (int) st, errbuf);
		at += s.second.size();
		bad += ok ? 0 : 1;
		report(ok, std::string(type) + " " + kDists[dist] + " n=" + std::to_string(n) + " " +
			   s.first);
	}
	gs_host_free(pinned);
	printf("%s %s %-10s n=%-10lld %zu rank sets%s (%.1f ms on the GPU path)\n",
		   bad ? "FAIL" : "PASS", type, kDists[dist], (long long) n, sets.size(),
		   pinned ? ", pinned chunks" : "", gpu_ms);
}

/* More than kMaxRanksPerPass ranks at once: several passes. */
void check_many_ranks()
{
	std::vector<uint64_t> keys;
	std::vector<int64_t> ranks;
	std::vector<uint64_t> out;
	Rng			rng(5);
	char		errbuf[512];
	const int64_t n = 100007;

	generate(keys, n, 5, 99);
	for (int i = 0; i < 2500; ++i)
		ranks.push_back((int64_t) (rng.next() % n));
	std::sort(ranks.begin(), ranks.end());
	std::vector<uint64_t> ref = reference(keys, ranks, true);
	gs_status	st = select_chunks(keys, ranks, out, NULL, errbuf, sizeof(errbuf));
	bool		ok = st == GS_OK && out == ref;

	report(ok, "u64 dup16 n=100007 2500 ranks (three passes)");
	printf("%s u64 2500 ranks over 100007 keys (three passes)%s%s\n", ok ? "PASS" : "FAIL",
		   st != GS_OK ? ": " : "", st != GS_OK ? errbuf : "");

	/* every rank of a small-bucket input: buckets far beyond the level buffer */
	generate(keys, n, 0, 98);
	ranks.clear();
	for (int64_t r = 0; r < n; r += n / 1000)
		ranks.push_back(r);
	ref = reference(keys, ranks, true);
	st = select_chunks(keys, ranks, out, NULL, errbuf, sizeof(errbuf));
	ok = st == GS_OK && out == ref;
	report(ok, "u64 uniform n=100007 1001 spread ranks (level buffer grows)");
	printf("%s u64 1001 spread ranks over 100007 keys%s%s\n", ok ? "PASS" : "FAIL",
		   st != GS_OK ? ": " : "", st != GS_OK ? errbuf : "");
}

/* Bad arguments are refused, and nranks = 0 is a no-op. */
void check_arguments()
{
	char		errbuf[256];
	uint64_t	key = 5;
	uint64_t	out = 0;
	const void *chunk = &key;
	int64_t		one = 1;
	int64_t		rank0 = 0;
	int64_t		rank1 = 1;
	int64_t		down[2] = {1, 0};
	int64_t		up[2] = {0, 1};
	void	   *p = &key;
	const int	failed_before = g_failed;

	report(gs_select_keys(8, NULL, NULL, 0, 0, NULL, 0, NULL, NULL, errbuf, sizeof(errbuf)) == GS_OK,
		   "n=0, nranks=0 is a no-op");
	report(gs_select_keys(8, &chunk, &one, 1, 1, &rank0, 0, &out, NULL, errbuf, sizeof(errbuf)) == GS_OK,
		   "nranks=0 is a no-op");
	report(gs_select_keys(8, NULL, NULL, 0, 0, &rank0, 1, &out, NULL, errbuf, sizeof(errbuf)) ==
		   GS_INVALID_ARGUMENT, "n=0 with a rank is refused");
	report(gs_select_keys(2, &chunk, &one, 1, 1, &rank0, 1, &out, NULL, errbuf, sizeof(errbuf)) ==
		   GS_INVALID_ARGUMENT, "key_bytes=2 is refused");
	report(gs_select_keys(8, &chunk, &one, 1, 1, &rank1, 1, &out, NULL, errbuf, sizeof(errbuf)) ==
		   GS_INVALID_ARGUMENT, "rank >= n is refused");
	report(gs_select_keys(8, &chunk, &one, 1, 2, up, 2, &out, NULL, errbuf, sizeof(errbuf)) ==
		   GS_INVALID_ARGUMENT, "chunk counts that miss n are refused");
	{
		uint64_t	two[2] = {3, 4};
		const void *c2 = two;
		int64_t		n2 = 2;
		uint64_t	o2[2];

		report(gs_select_keys(8, &c2, &n2, 1, 2, down, 2, o2, NULL, errbuf, sizeof(errbuf)) ==
			   GS_INVALID_ARGUMENT, "decreasing ranks are refused");
		report(gs_select_keys(8, &c2, &n2, 1, 2, &rank1, 1, o2, NULL, errbuf, sizeof(errbuf)) == GS_OK &&
			   o2[0] == 4, "two keys, rank 1");
	}
	report(gs_host_alloc(&p, 0) == GS_INVALID_ARGUMENT && p == NULL, "gs_host_alloc of 0 bytes is refused");
	printf("%s argument checks\n", g_failed > failed_before ? "FAIL" : "PASS");
}

/* Memory in use is the same before and after calls (1000) selections and a cancel. */
void check_memory_and_cancel(int calls)
{
	std::vector<uint64_t> keys;
	std::vector<uint32_t> keys32;
	std::vector<int64_t> ranks;
	std::vector<uint64_t> out(9);
	uint64_t	before = 0;
	uint64_t	after = 0;
	char		errbuf[512];
	int			errors = 0;
	const int64_t n = 100007;
	const void *chunk;
	const void *chunk32;
	volatile int cancel = 1;

	generate(keys, n, 0, 11);
	generate(keys32, n, 0, 12);
	chunk = keys.data();
	chunk32 = keys32.data();
	for (int i = 1; i <= 9; ++i)
		ranks.push_back(disc_index(i / 10.0, n));
	/* warm up both key widths: module loading takes device memory once */
	gs_select_keys(8, &chunk, &n, 1, n, ranks.data(), 9, out.data(), NULL, errbuf, sizeof(errbuf));
	gs_select_keys(4, &chunk32, &n, 1, n, ranks.data(), 9, out.data(), NULL, errbuf, sizeof(errbuf));
	cudaDeviceSynchronize();
	gs_device_memory_in_use(&before);
	for (int i = 0; i < calls; ++i)
	{
		const void *c = i % 2 ? chunk32 : chunk;

		if (gs_select_keys(i % 2 ? 4 : 8, &c, &n, 1, n, ranks.data(), 9, out.data(), NULL,
						   errbuf, sizeof(errbuf)) != GS_OK)
			errors++;
	}
	gs_device_memory_in_use(&after);
	report(errors == 0 && before == after, std::to_string(calls) +
		   " calls leave device memory in use unchanged");
	printf("%s %d calls: %d errors, memory in use %llu -> %llu bytes\n",
		   errors == 0 && before == after ? "PASS" : "FAIL", calls, errors,
		   (unsigned long long) before, (unsigned long long) after);

	gs_status	st = gs_select_keys(8, &chunk, &n, 1, n, ranks.data(), 9, out.data(), &cancel,
									errbuf, sizeof(errbuf));

	gs_device_memory_in_use(&after);
	report(st == GS_INTERRUPTED && before == after, "cancel flag set gives GS_INTERRUPTED");
	printf("%s cancel flag set: status %d, memory in use %llu -> %llu bytes\n",
		   st == GS_INTERRUPTED && before == after ? "PASS" : "FAIL", (int) st,
		   (unsigned long long) before, (unsigned long long) after);
}

/* CPU checks of the tree helpers the kernels use. */
void check_tree_helpers()
{
	using namespace gs_select;
	std::vector<uint64_t> sorted(kTreeNodes);
	std::vector<uint64_t> tree(kBuckets);
	std::vector<int>	seen(kTreeNodes, 0);
	Rng			rng(3);
	bool		ok = true;

	/* the heap is 1-based: nodes 1..255 */
	for (int h = 1; h <= kTreeNodes; ++h)
		seen[tree_source_index(h)]++;
	for (int i = 0; i < kTreeNodes; ++i)
		ok = ok && seen[i] == 1;
	report(ok, "tree_source_index is a permutation");

	for (int round = 0; round < 50; ++round)
	{
		/* boundaries with repeats and padding, as choose_boundaries makes them */
		for (int i = 0; i < kTreeNodes; ++i)
			sorted[i] = rng.next() % (round < 25 ? 64 : ~0ull);
		if (round % 5 == 0)
			for (int i = 200; i < kTreeNodes; ++i)
				sorted[i] = ~0ull;
		std::sort(sorted.begin(), sorted.end());
		for (int h = 1; h <= kTreeNodes; ++h)
			tree[h] = sorted[tree_source_index(h)];
		for (int t = 0; t < 2000; ++t)
		{
			uint64_t	key = t < 4 ? (t < 2 ? (uint64_t) t : ~0ull - (t - 2)) : rng.next() % (round < 25 ? 70 : ~0ull);
			uint32_t	want = (uint32_t) (std::upper_bound(sorted.begin(), sorted.end(), key) - sorted.begin());

			if (classify_in_tree(key, tree.data()) != want)
				ok = false;
		}
	}
	report(ok, "tree descent counts the boundaries <= key");

	/* the two ways of computing reference answers agree */
	for (int dist = 0; dist < kNumDists; ++dist)
	{
		std::vector<uint64_t> keys;
		Rng			r2(dist);
		auto		sets = rank_sets(100007, r2);
		std::vector<int64_t> all;

		generate(keys, 100007, dist, 5 + dist);
		for (auto &set : sets)
			all.insert(all.end(), set.second.begin(), set.second.end());
		ok = ok && reference(keys, all, true) == reference(keys, all, false);
	}
	report(ok, "reference by sorting equals reference by multiselection");
	printf("%s tree helpers and references\n", ok ? "PASS" : "FAIL");
}

} /* namespace */

int
main(int argc, char **argv)
{
	bool		quick = false;
	bool		big = false;
	bool		big_only = false;
	bool		host_only = false;
	int64_t		max_n = INT64_MAX;
	gs_device_info info;
	gs_select_options variants;

	memset(&variants, 0, sizeof(variants));

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--big"))
			big = true;
		else if (!strcmp(argv[i], "--big-only"))
			big = big_only = true;
		else if (!strcmp(argv[i], "--max-n") && i + 1 < argc)
			max_n = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--count-variant") && i + 1 < argc)
			variants.count_variant = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--filter-variant") && i + 1 < argc)
			variants.filter_variant = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--host-only"))
			host_only = true;
		else if (!strcmp(argv[i], "--verbose"))
			g_verbose = true;
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--big] [--big-only] [--max-n N] [--host-only] "
					"[--count-variant N] [--filter-variant N] [--verbose]\n", argv[0]);
			return 2;
		}
	}

	if (host_only)
	{
		check_tree_helpers();
		printf("%d passed, %d failed\n", g_passed, g_failed);
		return g_failed ? 1 : 0;
	}
	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason[0] ? info.reason : "probe failed");
		return 0;
	}
	printf("device: %s, compute capability %d.%d, %.1f GiB, driver %d, runtime %d; "
		   "count variant %d, filter variant %d\n",
		   info.name, info.cc_major, info.cc_minor, info.total_memory / 1073741824.0,
		   info.driver_version, info.runtime_version, variants.count_variant,
		   variants.filter_variant);
	gs_select_set_defaults(&variants);

	check_tree_helpers();
	check_arguments();

	std::vector<int64_t> sizes = {1, 2, 31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097,
								  100007, 1 << 20};

	if (!quick)
	{
		sizes.push_back(1 << 22);
		sizes.push_back((1 << 24) + 3);
	}
	if (big_only)
		sizes.clear();
	int			case_no = 0;

	for (int64_t n : sizes)
		for (int dist = 0; dist < kNumDists && n <= max_n; ++dist)
		{
			check_input<uint32_t>(dist, n, case_no++);
			check_input<uint64_t>(dist, n, case_no++);
		}
	if (max_n >= 100007 && !big_only)
		check_many_ranks();
	if (big)
	{
		check_input<uint64_t>(0, 1ll << 28, case_no++);
		check_input<uint32_t>(5, 1ll << 28, case_no++);
		check_input<uint64_t>(8, (1ll << 28) + 5, case_no++);
	}
	/* fewer calls when sizes are capped, as under compute-sanitizer */
	check_memory_and_cancel(max_n >= 100007 && !big_only ? 1000 : 20);

	printf("%d passed, %d failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}
