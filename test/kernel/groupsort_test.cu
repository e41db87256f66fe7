/*
 * groupsort_test.cu
 *	  Checks gs_sort_by_group and gs_sort_by_group_pick (cuda/groupsort.cu)
 *	  through the C ABI against a CPU reference: std::sort of the (group,
 *	  key) pairs, whose keys, read in order, must equal out_keys byte for
 *	  byte (every other case also picks 258 positions); and pairs held on the
 *	  device (gs_pairs), appended in steps, sorted and picked or selected by
 *	  rank.  Covered:
 *	  - 32- and 64-bit keys; n = 1, 31, 33, 1023, 1025, 65537, 1000003 and
 *	    (without --quick) 20000000;
 *	  - keys uniform, all equal, sorted, reverse-sorted, two distinct values,
 *	    and extremes (0, 1, all-ones - 1, all-ones);
 *	  - groups all equal, sorted, reverse-sorted, random, one group holding
 *	    almost everything, sparse (ngroups far above the largest group used),
 *	    and extremes (0, 1, ngroups - 2, ngroups - 1); ngroups 1, 2, 101,
 *	    10000, 2^20 and 2^32 (group numbers up to UINT32_MAX).  Sizes up to
 *	    65537 run every combination, larger ones a selection;
 *	  - nothing written past out_keys[n - 1], the inputs left unchanged,
 *	    pageable and page-locked host arrays;
 *	  - GS_OUT_OF_MEMORY, device memory unchanged and out_keys untouched, for
 *	    an n whose pairs alone exceed the free device memory (host arrays are
 *	    reserved address space, never touched);
 *	  - device memory in use unchanged after 200 calls (after one warm-up
 *	    call per key width);
 *	  - a set cancel flag gives GS_INTERRUPTED and leaves memory unchanged, a
 *	    clear one a correct sort;
 *	  - bad arguments (key_bytes 3, n < 0, ngroups 0 or above 2^32, NULL
 *	    arrays with n > 0) give GS_INVALID_ARGUMENT; n = 0 with NULL
 *	    arrays gives GS_OK.
 *
 *	  groupsort_test [--quick] [--max-n N] [--seed N] [--verbose]
 *	    --quick      leave out n = 20000000
 *	    --max-n N    sizes up to N only (e.g. under compute-sanitizer)
 *	    --seed N     seed of the generated inputs (default 1)
 *	    --verbose    print every case, not only failures and one line per size
 *
 *	  Prints "N passed, M failed" last and exits 1 on any failure.  Without a
 *	  usable GPU it prints "SKIP: no GPU (<reason>)" and exits 0.
 */
#include <cuda_runtime.h>

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpusel_cuda.h"
#include "test_harness.h"

namespace
{

uint64_t	g_seed = 1;

/* Failed cases whose details are printed; later ones print their line only. */
constexpr int kMaxDetailed = 20;
int			g_detailed = 0;

/* Elements after out_keys[n - 1] that must keep their fill. */
constexpr int64_t kGuard = 4;
constexpr unsigned char kGuardByte = 0xA5;

using Rng = SplitMix64;

/* Seed of one case's stream: the run's seed mixed with the case and a stream tag. */
uint64_t case_seed(int case_no, int stream)
{
	return g_seed * 0x100000001b3ull + (uint64_t) case_no * 4 + (uint64_t) stream;
}

const char *const kKeyDists[] = {
	"uniform", "all-equal", "sorted", "reverse", "two-values", "extremes",
};
constexpr int kNumKeyDists = sizeof(kKeyDists) / sizeof(kKeyDists[0]);
enum { K_UNIFORM, K_EQUAL, K_SORTED, K_REVERSE, K_TWO, K_EXTREMES };

const char *const kGroupDists[] = {
	"one-group", "sorted", "reverse", "random", "skewed", "sparse", "extremes",
};
constexpr int kNumGroupDists = sizeof(kGroupDists) / sizeof(kGroupDists[0]);
enum { G_ONE, G_SORTED, G_REVERSE, G_RANDOM, G_SKEWED, G_SPARSE, G_EXTREMES };

/* ngroups values of the full cross; 2^32 is the largest gs_sort_by_group takes. */
const int64_t kNgroups[] = {1, 2, 101, 10000, int64_t(1) << 20, int64_t(1) << 32};

/* One input shape: how keys and groups are drawn, and ngroups. */
struct Case
{
	int			kdist;
	int			gdist;
	int64_t		ngroups;
};

/* Fills keys with n keys of distribution dist. */
template <typename KeyT>
void make_keys(std::vector<KeyT> &keys, int64_t n, int dist, uint64_t seed)
{
	Rng			rng(seed);
	const KeyT	ones = static_cast<KeyT>(~static_cast<KeyT>(0));
	const KeyT	a = static_cast<KeyT>(rng.next());
	const KeyT	b = static_cast<KeyT>(a ^ static_cast<KeyT>(rng.next() | 1));
	const KeyT	extremes[4] = {0, 1, static_cast<KeyT>(ones - 1), ones};
	/* a step that keeps sorted keys ascending up to n = 2^24 and uses the high bits */
	const uint64_t step = sizeof(KeyT) == 8 ? (uint64_t(1) << 38) + 3 : 131;

	keys.resize(n);
	for (int64_t i = 0; i < n; ++i)
	{
		const uint64_t r = rng.next();

		switch (dist)
		{
			case K_UNIFORM:
				keys[i] = static_cast<KeyT>(r);
				break;
			case K_EQUAL:
				keys[i] = a;
				break;
			case K_SORTED:
				keys[i] = static_cast<KeyT>((uint64_t) i * step + 7);
				break;
			case K_REVERSE:
				keys[i] = static_cast<KeyT>((uint64_t) (n - i) * step);
				break;
			case K_TWO:
				keys[i] = (r >> 63) ? a : b;
				break;
			default:
				keys[i] = extremes[r >> 62];
				break;
		}
	}
}

/* Fills groups with n group numbers below ngroups, of distribution dist. */
void make_groups(std::vector<uint32_t> &groups, int64_t n, int dist, int64_t ngroups,
				 uint64_t seed)
{
	Rng			rng(seed);
	const uint64_t g = (uint64_t) ngroups;
	const uint64_t big = g / 2;
	const uint64_t sparse_range = (g + 15) / 16;
	const int64_t edge[4] = {0, 1, ngroups - 2, ngroups - 1};

	groups.resize(n);
	for (int64_t i = 0; i < n; ++i)
	{
		const uint64_t r = rng.next();
		uint64_t	v = 0;

		switch (dist)
		{
			case G_ONE:
				v = g - 1;
				break;
			case G_SORTED:
				v = (uint64_t) i * g / (uint64_t) n;
				break;
			case G_REVERSE:
				v = (uint64_t) (n - 1 - i) * g / (uint64_t) n;
				break;
			case G_RANDOM:
				v = r % g;
				break;
			case G_SKEWED:
				/* one in 256 elsewhere, the rest in group ngroups / 2 */
				v = (r & 255) == 0 ? (r >> 8) % g : big;
				break;
			case G_SPARSE:
				/* at most ngroups / 16 + 1 groups used, all at the bottom */
				v = r % sparse_range;
				break;
			default:
				{
					int64_t		e = edge[r >> 62];

					v = (uint64_t) std::max<int64_t>(0, std::min<int64_t>(e, ngroups - 1));
					break;
				}
		}
		groups[i] = (uint32_t) v;
	}
}

/* A checksum of a byte range, to see that the inputs came back unchanged. */
uint64_t checksum(const void *p, size_t bytes)
{
	const unsigned char *c = static_cast<const unsigned char *>(p);
	uint64_t	h = 0xcbf29ce484222325ull;
	size_t		i = 0;

	for (; i + 8 <= bytes; i += 8)
	{
		uint64_t	w;

		memcpy(&w, c + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < bytes; ++i)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* The expected output: the keys of the pairs sorted by (group, key). */
template <typename KeyT>
void reference(const std::vector<KeyT> &keys, const std::vector<uint32_t> &groups,
			   std::vector<KeyT> &out)
{
	struct Pair
	{
		uint32_t	group;
		KeyT		key;
	};
	const size_t n = keys.size();
	std::vector<Pair> pairs(n);

	for (size_t i = 0; i < n; ++i)
		pairs[i] = Pair{groups[i], keys[i]};
	std::sort(pairs.begin(), pairs.end(), [](const Pair &x, const Pair &y) {
		return x.group != y.group ? x.group < y.group : x.key < y.key;
	});
	out.resize(n);
	for (size_t i = 0; i < n; ++i)
		out[i] = pairs[i].key;
}

/* Names a key width for messages. */
template <typename KeyT>
const char *type_name()
{
	return sizeof(KeyT) == 4 ? "u32" : "u64";
}

/*
 * Checks gs_sort_by_group_pick on the same input: the first and last
 * positions, random ones and repeats, in no order, each answered with the
 * key the reference holds there.
 */
template <typename KeyT>
bool check_pick(const Case &c, int64_t n, int case_no, const void *in_keys,
				const uint32_t *in_groups, const std::vector<KeyT> &ref, const char *label)
{
	std::vector<int64_t> positions;
	uint64_t	s = case_seed(case_no, 2) | 1;
	char		errbuf[512] = "";
	char		what[320];

	positions.push_back(n - 1);
	positions.push_back(0);
	for (int i = 0; i < 255 && n > 1; i++)
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		positions.push_back((int64_t) (s % (uint64_t) n));
	}
	positions.push_back(positions[positions.size() / 2]);

	std::vector<KeyT> out(positions.size(), (KeyT) 0x5A5A5A5A);
	gs_status	st = gs_sort_by_group_pick((int) sizeof(KeyT), in_keys, in_groups, n,
										   c.ngroups, positions.data(),
										   (int64_t) positions.size(), out.data(), NULL,
										   errbuf, sizeof(errbuf));
	bool		ok = st == GS_OK;

	for (size_t i = 0; ok && i < positions.size(); i++)
		ok = out[i] == ref[positions[i]];
	snprintf(what, sizeof(what), "pick %zu positions: %s", positions.size(), label);
	if (!ok && st != GS_OK && g_detailed < kMaxDetailed)
	{
		g_detailed++;
		printf("  %s: status %d: %s\n", what, (int) st, errbuf);
	}
	report(ok, what);
	return ok;
}

/*
 * Checks pairs held on the device (gs_pairs): appended in uneven steps that
 * grow the device buffers past their first capacity, then sorted and
 * picked (with groups) or selected by rank (without), against the
 * reference; and device memory unchanged after create, append and destroy.
 */
template <typename KeyT>
void check_held_pairs(int64_t n, int kdist, int gdist, int64_t ngroups, int case_no)
{
	std::vector<KeyT> keys;
	std::vector<uint32_t> groups;
	std::vector<KeyT> ref;
	std::vector<KeyT> sorted_keys;
	std::vector<int64_t> positions;
	uint64_t	s = case_seed(case_no, 3) | 1;
	char		errbuf[512] = "";
	char		label[256];
	const int64_t steps[3] = {n / 7, n / 2, n - n / 7 - n / 2};

	make_keys(keys, n, kdist, case_seed(case_no, 0));
	make_groups(groups, n, gdist, ngroups, case_seed(case_no, 1));
	reference(keys, groups, ref);
	for (int i = 0; i < 300 && n > 0; i++)
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		positions.push_back((int64_t) (s % (uint64_t) n));
	}
	positions.push_back(0);
	positions.push_back(n - 1);
	std::sort(positions.begin(), positions.end());
	positions.erase(std::unique(positions.begin(), positions.end()), positions.end());

	for (int with_groups = 0; with_groups <= 1; with_groups++)
	{
		gs_pairs   *p = NULL;
		int64_t		at = 0;
		gs_status	st = gs_pairs_create(&p, (int) sizeof(KeyT), with_groups, errbuf,
										 sizeof(errbuf));
		std::vector<KeyT> out(positions.size(), (KeyT) 0x5A5A5A5A);
		bool		ok;

		for (int i = 0; i < 3 && st == GS_OK; i++)
		{
			st = gs_pairs_append(p, keys.data() + at, with_groups ? groups.data() + at : NULL,
								 steps[i], errbuf, sizeof(errbuf));
			at += steps[i];
		}
		ok = st == GS_OK && gs_pairs_count(p) == n;
		if (ok && with_groups)
		{
			st = gs_pairs_sort_pick(p, ngroups, positions.data(), (int64_t) positions.size(),
									out.data(), NULL, errbuf, sizeof(errbuf));
			ok = st == GS_OK;
			for (size_t i = 0; ok && i < positions.size(); i++)
				ok = out[i] == ref[positions[i]];
		}
		else if (ok)
		{
			sorted_keys = keys;
			std::sort(sorted_keys.begin(), sorted_keys.end());
			st = gs_pairs_select(p, positions.data(), (int) positions.size(), out.data(),
								 NULL, errbuf, sizeof(errbuf));
			ok = st == GS_OK;
			for (size_t i = 0; ok && i < positions.size(); i++)
				ok = out[i] == sorted_keys[positions[i]];
			/* selection leaves the held keys as they are: a second one agrees */
			if (ok)
			{
				std::vector<KeyT> again(positions.size(), 0);

				ok = gs_pairs_select(p, positions.data(), (int) positions.size(),
									 again.data(), NULL, errbuf, sizeof(errbuf)) == GS_OK &&
					again == out;
			}
		}
		snprintf(label, sizeof(label), "held pairs %s n=%lld %s, %zu positions%s%s",
				 type_name<KeyT>(), (long long) n,
				 with_groups ? "sorted and picked" : "selected", positions.size(),
				 ok ? "" : ": ", ok ? "" : errbuf);
		report(ok, label);
		gs_pairs_destroy(p);
	}
}

/* Memory is unchanged after held pairs are created, grown, sorted and destroyed. */
void check_held_pairs_memory(int calls)
{
	std::vector<uint64_t> keys(300000);
	std::vector<uint32_t> groups(300000);
	int64_t		pos[2] = {0, 299999};
	uint64_t	out[2];
	uint64_t	before = 0;
	uint64_t	after = 0;
	char		errbuf[256];

	for (size_t i = 0; i < keys.size(); i++)
	{
		keys[i] = i * 2654435761u;
		groups[i] = (uint32_t) (i % 7);
	}
	for (int call = -1; call < calls; call++)
	{
		gs_pairs   *p = NULL;

		if (call == 0)
			gs_device_memory_in_use(&before);
		gs_pairs_create(&p, 8, 1, errbuf, sizeof(errbuf));
		for (int i = 0; i < 5; i++)
			gs_pairs_append(p, keys.data(), groups.data(), (int64_t) keys.size(),
							errbuf, sizeof(errbuf));
		if (call % 2 == 0)
			gs_pairs_sort_pick(p, 7, pos, 2, out, NULL, errbuf, sizeof(errbuf));
		gs_pairs_destroy(p);
	}
	gs_device_memory_in_use(&after);
	report(before == after, "held pairs: memory in use " + std::to_string(before) + " -> " +
		   std::to_string(after) + " bytes after " + std::to_string(calls) + " cycles");
	{
		gs_pairs   *p = NULL;
		int64_t		bad[1] = {5};

		report(gs_pairs_create(&p, 3, 1, errbuf, sizeof(errbuf)) == GS_INVALID_ARGUMENT,
			   "held pairs: key_bytes 3 refused");
		gs_pairs_create(&p, 8, 0, errbuf, sizeof(errbuf));
		report(gs_pairs_append(p, NULL, NULL, 1, errbuf, sizeof(errbuf)) == GS_INVALID_ARGUMENT,
			   "held pairs: NULL keys refused");
		report(gs_pairs_sort_pick(p, 2, bad, 1, out, NULL, errbuf, sizeof(errbuf)) ==
			   GS_INVALID_ARGUMENT, "held pairs: sort without groups refused");
		gs_pairs_destroy(p);
		gs_pairs_destroy(NULL);
	}
}

/*
 * Runs one case: generates the input, sorts it on the device (host arrays
 * page-locked when pinned) and compares with the reference.  Adds the time
 * spent in gs_sort_by_group to *ms.
 */
template <typename KeyT>
bool run_case(const Case &c, int64_t n, int case_no, bool pinned, double *ms)
{
	std::vector<KeyT> keys;
	std::vector<uint32_t> groups;
	std::vector<KeyT> ref;
	std::vector<KeyT> out_vec;
	void	   *pin_keys = NULL;
	void	   *pin_groups = NULL;
	void	   *pin_out = NULL;
	const size_t key_bytes = sizeof(KeyT) * (size_t) n;
	const size_t group_bytes = sizeof(uint32_t) * (size_t) n;
	const size_t out_bytes = sizeof(KeyT) * (size_t) (n + kGuard);
	char		errbuf[512] = "";
	char		label[256];

	make_keys(keys, n, c.kdist, case_seed(case_no, 0));
	make_groups(groups, n, c.gdist, c.ngroups, case_seed(case_no, 1));
	reference(keys, groups, ref);

	if (pinned && (gs_host_alloc(&pin_keys, key_bytes) != GS_OK ||
				   gs_host_alloc(&pin_groups, group_bytes) != GS_OK ||
				   gs_host_alloc(&pin_out, out_bytes) != GS_OK))
	{
		gs_host_free(pin_keys);
		gs_host_free(pin_groups);
		gs_host_free(pin_out);
		pin_keys = pin_groups = pin_out = NULL;
		pinned = false;
	}
	const void *in_keys = keys.data();
	const uint32_t *in_groups = groups.data();
	unsigned char *out;

	if (pinned)
	{
		memcpy(pin_keys, keys.data(), key_bytes);
		memcpy(pin_groups, groups.data(), group_bytes);
		in_keys = pin_keys;
		in_groups = static_cast<const uint32_t *>(pin_groups);
		out = static_cast<unsigned char *>(pin_out);
	}
	else
	{
		out_vec.resize(n + kGuard);
		out = reinterpret_cast<unsigned char *>(out_vec.data());
	}
	/* a fill no reference key is likely to equal, and the guard after it */
	memset(out, 0x5A, key_bytes);
	memset(out + key_bytes, kGuardByte, out_bytes - key_bytes);

	const uint64_t sum_keys = checksum(in_keys, key_bytes);
	const uint64_t sum_groups = checksum(in_groups, group_bytes);
	auto		t0 = std::chrono::steady_clock::now();
	gs_status	st = gs_sort_by_group((int) sizeof(KeyT), in_keys, in_groups, n, c.ngroups,
									  out, NULL, errbuf, sizeof(errbuf));
	auto		t1 = std::chrono::steady_clock::now();

	*ms += std::chrono::duration<double, std::milli>(t1 - t0).count();

	bool		same = st == GS_OK && memcmp(out, ref.data(), key_bytes) == 0;
	bool		guard_ok = true;
	bool		inputs_ok = checksum(in_keys, key_bytes) == sum_keys &&
		checksum(in_groups, group_bytes) == sum_groups;

	for (size_t b = key_bytes; b < out_bytes; ++b)
		guard_ok = guard_ok && out[b] == kGuardByte;

	bool		ok = same && guard_ok && inputs_ok;

	snprintf(label, sizeof(label), "%s n=%lld keys=%s groups=%s ngroups=%lld%s",
			 type_name<KeyT>(), (long long) n, kKeyDists[c.kdist], kGroupDists[c.gdist],
			 (long long) c.ngroups, pinned ? " pinned" : "");
	if (!ok && g_detailed < kMaxDetailed)
	{
		g_detailed++;
		if (st != GS_OK)
			printf("  %s: status %d: %s\n", label, (int) st, errbuf);
		else if (!same)
		{
			int64_t		i = 0;
			KeyT		got;

			for (;; ++i)
			{
				memcpy(&got, out + i * sizeof(KeyT), sizeof(KeyT));
				if (got != ref[i])
					break;
			}
			printf("  %s: first difference at index %lld: got %llx, want %llx\n", label,
				   (long long) i, (unsigned long long) got, (unsigned long long) ref[i]);
		}
		if (!guard_ok)
			printf("  %s: written past out_keys[n - 1]\n", label);
		if (!inputs_ok)
			printf("  %s: the input arrays changed\n", label);
	}
	report(ok, label);
	if (ok && (case_no & 1) == 0)
		ok = check_pick<KeyT>(c, n, case_no, in_keys, in_groups, ref, label);
	gs_host_free(pin_keys);
	gs_host_free(pin_groups);
	gs_host_free(pin_out);
	return ok;
}

/* The cases run at size n: every combination up to 65537, a selection above. */
std::vector<Case> cases_for(int64_t n)
{
	std::vector<Case> cases;

	if (n <= 65537)
	{
		for (int64_t g : kNgroups)
			for (int gd = 0; gd < kNumGroupDists; ++gd)
				for (int kd = 0; kd < kNumKeyDists; ++kd)
					cases.push_back({kd, gd, g});
		return cases;
	}
	if (n <= 1000003)
	{
		/* every key distribution under random groups ... */
		for (int kd = 0; kd < kNumKeyDists; ++kd)
			cases.push_back({kd, G_RANDOM, 101});
		/* ... every group distribution and ngroups under uniform keys ... */
		for (int64_t g : kNgroups)
			for (int gd = 0; gd < kNumGroupDists; ++gd)
				cases.push_back({K_UNIFORM, gd, g});
		/* ... and some of the other pairings */
		cases.push_back({K_EXTREMES, G_SKEWED, 10000});
		cases.push_back({K_TWO, G_SORTED, int64_t(1) << 20});
		cases.push_back({K_REVERSE, G_REVERSE, 10000});
		cases.push_back({K_EQUAL, G_SPARSE, int64_t(1) << 32});
		cases.push_back({K_SORTED, G_EXTREMES, int64_t(1) << 32});
		return cases;
	}
	cases.push_back({K_UNIFORM, G_RANDOM, int64_t(1) << 20});
	cases.push_back({K_EXTREMES, G_SKEWED, 10000});
	cases.push_back({K_REVERSE, G_SORTED, 101});
	cases.push_back({K_TWO, G_SPARSE, int64_t(1) << 20});
	cases.push_back({K_EQUAL, G_ONE, 2});
	return cases;
}

/* Runs every case of size n for one key width; one line for the size. */
template <typename KeyT>
void check_size(int64_t n, int *case_no)
{
	std::vector<Case> cases = cases_for(n);
	double		ms = 0;
	int			bad = 0;
	int			npinned = 0;

	for (const Case &c : cases)
	{
		/* every fourth case uses page-locked host arrays */
		const bool	pinned = (*case_no & 3) == 3;

		npinned += pinned ? 1 : 0;
		bad += run_case<KeyT>(c, n, (*case_no)++, pinned, &ms) ? 0 : 1;
	}
	printf("%s %s n=%-9lld %4zu cases (%d pinned), %d failed (%.1f ms in gs_sort_by_group)\n",
		   bad ? "FAIL" : "PASS", type_name<KeyT>(), (long long) n, cases.size(), npinned, bad, ms);
	fflush(stdout);
}

/* Bad arguments are refused; n = 0 is a no-op even with NULL arrays. */
void check_arguments()
{
	uint64_t	keys[2] = {5, 3};
	uint32_t	groups[2] = {1, 0};
	uint64_t	out[2] = {0, 0};
	char		errbuf[256];
	const int	failed_before = g_failed;

	/* runs call and checks it returned want, with a message when want is an error */
	auto		expect = [&](gs_status want, const char *what, auto call) {
		errbuf[0] = '\0';
		gs_status	st = call();

		report(st == want && (want == GS_OK || errbuf[0] != '\0'),
			   std::string(what) + " -> status " + std::to_string((int) st) +
			   (errbuf[0] ? std::string(": ") + errbuf : std::string()));
	};

	expect(GS_INVALID_ARGUMENT, "key_bytes 3", [&] {
		return gs_sort_by_group(3, keys, groups, 2, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "key_bytes 0", [&] {
		return gs_sort_by_group(0, keys, groups, 2, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "key_bytes 16", [&] {
		return gs_sort_by_group(16, keys, groups, 2, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "n = -1", [&] {
		return gs_sort_by_group(8, keys, groups, -1, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "n = INT64_MIN", [&] {
		return gs_sort_by_group(4, keys, groups, INT64_MIN, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "ngroups 0", [&] {
		return gs_sort_by_group(8, keys, groups, 2, 0, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "ngroups -1", [&] {
		return gs_sort_by_group(8, keys, groups, 2, -1, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "ngroups 2^32 + 1", [&] {
		return gs_sort_by_group(8, keys, groups, 2, (int64_t(1) << 32) + 1, out, NULL,
								errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "keys NULL, n = 2", [&] {
		return gs_sort_by_group(8, NULL, groups, 2, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "groups NULL, n = 2", [&] {
		return gs_sort_by_group(8, keys, NULL, 2, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "out_keys NULL, n = 2", [&] {
		return gs_sort_by_group(4, keys, groups, 2, 2, NULL, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_INVALID_ARGUMENT, "all NULL, n = 1", [&] {
		return gs_sort_by_group(4, NULL, NULL, 1, 1, NULL, NULL, errbuf, sizeof(errbuf));
	});
	report(gs_sort_by_group(3, keys, groups, 2, 2, out, NULL, NULL, 0) == GS_INVALID_ARGUMENT,
		   "key_bytes 3 with no errbuf -> GS_INVALID_ARGUMENT");
	report(out[0] == 0 && out[1] == 0, "refused calls leave out_keys untouched");

	expect(GS_OK, "n = 0, NULL arrays, key_bytes 4", [&] {
		return gs_sort_by_group(4, NULL, NULL, 0, 1, NULL, NULL, errbuf, sizeof(errbuf));
	});
	expect(GS_OK, "n = 0, NULL arrays, key_bytes 8, ngroups 2^32", [&] {
		return gs_sort_by_group(8, NULL, NULL, 0, int64_t(1) << 32, NULL, NULL,
								errbuf, sizeof(errbuf));
	});
	{
		volatile int cancel = 1;

		expect(GS_OK, "n = 0 with out_keys, cancel set", [&] {
			return gs_sort_by_group(8, keys, groups, 0, 2, out, &cancel, errbuf, sizeof(errbuf));
		});
		report(out[0] == 0 && out[1] == 0, "n = 0 leaves out_keys untouched");
	}
	expect(GS_OK, "two keys in two groups", [&] {
		return gs_sort_by_group(8, keys, groups, 2, 2, out, NULL, errbuf, sizeof(errbuf));
	});
	report(out[0] == 3 && out[1] == 5, "two keys in two groups: group 0's key first");
	{
		int64_t		pos_bad[2] = {0, 2};
		int64_t		pos_neg[1] = {-1};
		int64_t		pos_ok[3] = {1, 0, 1};
		uint64_t	picked[3] = {0, 0, 0};

		expect(GS_INVALID_ARGUMENT, "pick position n", [&] {
			return gs_sort_by_group_pick(8, keys, groups, 2, 2, pos_bad, 2, picked, NULL,
										 errbuf, sizeof(errbuf));
		});
		expect(GS_INVALID_ARGUMENT, "pick position -1", [&] {
			return gs_sort_by_group_pick(8, keys, groups, 2, 2, pos_neg, 1, picked, NULL,
										 errbuf, sizeof(errbuf));
		});
		expect(GS_INVALID_ARGUMENT, "pick positions NULL", [&] {
			return gs_sort_by_group_pick(8, keys, groups, 2, 2, NULL, 1, picked, NULL,
										 errbuf, sizeof(errbuf));
		});
		report(picked[0] == 0 && picked[1] == 0, "refused picks leave out_keys untouched");
		expect(GS_OK, "pick no positions", [&] {
			return gs_sort_by_group_pick(8, keys, groups, 2, 2, pos_ok, 0, picked, NULL,
										 errbuf, sizeof(errbuf));
		});
		expect(GS_OK, "pick positions 1, 0, 1", [&] {
			return gs_sort_by_group_pick(8, keys, groups, 2, 2, pos_ok, 3, picked, NULL,
										 errbuf, sizeof(errbuf));
		});
		report(picked[0] == 5 && picked[1] == 3 && picked[2] == 5,
			   "pick positions 1, 0, 1 of two groups");
	}
	{
		uint32_t	one_group[2] = {0, 0};
		uint32_t	k32[3] = {9, 4, 77};
		uint32_t	o32[3] = {0, 0, 77};

		expect(GS_OK, "two 32-bit keys in one group", [&] {
			return gs_sort_by_group(4, k32, one_group, 2, 1, o32, NULL, errbuf, sizeof(errbuf));
		});
		report(o32[0] == 4 && o32[1] == 9 && o32[2] == 77,
			   "two 32-bit keys in one group: ascending, nothing written after them");
	}
	printf("%s argument checks\n", g_failed > failed_before ? "FAIL" : "PASS");
}

/*
 * An n whose pairs alone exceed the free device memory gives
 * GS_OUT_OF_MEMORY, leaves device memory as it was and out_keys untouched.
 * The host arrays are reserved, never committed, address space: reading
 * them gives zeros and costs no memory.
 */
void check_out_of_memory()
{
	for (int key_bytes = 4; key_bytes <= 8; key_bytes += 4)
	{
		size_t		free_bytes = 0;
		size_t		total_bytes = 0;
		uint64_t	before = 0;
		uint64_t	after = 0;
		char		errbuf[512] = "";

		cudaMemGetInfo(&free_bytes, &total_bytes);

		const int64_t n = (int64_t) (free_bytes / (size_t) (2 * key_bytes + 8)) + 1;
		const size_t sizes[3] = {(size_t) n * key_bytes, (size_t) n * sizeof(uint32_t),
			(size_t) n * key_bytes};
		void	   *maps[3];
		bool		mapped = true;

		for (int i = 0; i < 3; ++i)
		{
			maps[i] = mmap(NULL, sizes[i], PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (maps[i] == MAP_FAILED)
				mapped = false;
		}
		if (mapped)
		{
			const unsigned char *out = static_cast<const unsigned char *>(maps[2]);

			gs_device_memory_in_use(&before);

			gs_status	st = gs_sort_by_group(key_bytes, maps[0],
											  static_cast<const uint32_t *>(maps[1]), n, 1000,
											  maps[2], NULL, errbuf, sizeof(errbuf));

			cudaDeviceSynchronize();
			gs_device_memory_in_use(&after);

			const bool	ok = st == GS_OUT_OF_MEMORY && before == after && out[0] == 0 &&
				out[sizes[2] - 1] == 0;

			report(ok, "key_bytes " + std::to_string(key_bytes) + ", n = " + std::to_string(n) +
				   " beyond the device gives GS_OUT_OF_MEMORY");
			printf("%s key_bytes %d, n=%lld (%zu bytes free): status %d, memory in use %llu -> %llu"
				   " bytes: %s\n", ok ? "PASS" : "FAIL", key_bytes, (long long) n, free_bytes,
				   (int) st, (unsigned long long) before, (unsigned long long) after, errbuf);
		}
		else
			printf("SKIP out-of-memory check, key_bytes %d: cannot reserve %zu bytes of "
				   "address space\n", key_bytes, sizes[0] + sizes[1] + sizes[2]);
		for (int i = 0; i < 3; ++i)
			if (maps[i] != MAP_FAILED)
				munmap(maps[i], sizes[i]);
	}
}

/*
 * Device memory in use is the same before and after calls (200) sorts, and
 * after cancelled ones; a cancel flag that is clear changes nothing.
 */
void check_memory_and_cancel(int calls)
{
	const int64_t n = 100003;
	const int64_t ngroups = 10000;
	std::vector<uint64_t> keys64;
	std::vector<uint32_t> keys32;
	std::vector<uint32_t> groups;
	std::vector<uint64_t> ref64;
	std::vector<uint32_t> ref32;
	std::vector<uint64_t> out64(n);
	std::vector<uint32_t> out32(n);
	uint64_t	before = 0;
	uint64_t	after = 0;
	char		errbuf[512] = "";
	int			errors = 0;

	make_keys(keys64, n, K_UNIFORM, case_seed(-1, 0));
	make_keys(keys32, n, K_UNIFORM, case_seed(-1, 1));
	make_groups(groups, n, G_RANDOM, ngroups, case_seed(-1, 2));
	reference(keys64, groups, ref64);
	reference(keys32, groups, ref32);

	std::string problem;

	/* sorts key width (i % 2 ? 4 : 8); false, with problem set, unless it gave the reference */
	auto		sort_one = [&](int i, const volatile int *cancel) {
		gs_status	st;
		bool		same;

		errbuf[0] = '\0';
		if (i % 2)
		{
			st = gs_sort_by_group(4, keys32.data(), groups.data(), n, ngroups, out32.data(),
								  cancel, errbuf, sizeof(errbuf));
			same = out32 == ref32;
		}
		else
		{
			st = gs_sort_by_group(8, keys64.data(), groups.data(), n, ngroups, out64.data(),
								  cancel, errbuf, sizeof(errbuf));
			same = out64 == ref64;
		}
		if (st != GS_OK)
			problem = "status " + std::to_string((int) st) + ": " + errbuf;
		else if (!same)
			problem = std::string(i % 2 ? "u32" : "u64") + " keys differ from the reference";
		return st == GS_OK && same;
	};

	/* one warm-up call per key width: module loading takes device memory once */
	sort_one(0, NULL);
	sort_one(1, NULL);
	cudaDeviceSynchronize();
	gs_device_memory_in_use(&before);
	for (int i = 0; i < calls; ++i)
		errors += sort_one(i, NULL) ? 0 : 1;
	cudaDeviceSynchronize();
	gs_device_memory_in_use(&after);
	report(errors == 0, std::to_string(calls) + " calls give the reference" +
		   (errors ? " (" + std::to_string(errors) + " did not; last: " + problem + ")" : ""));
	report(before == after, std::to_string(calls) + " calls leave device memory in use unchanged");
	printf("%s %d calls: %d wrong or failed, memory in use %llu -> %llu bytes\n",
		   errors == 0 && before == after ? "PASS" : "FAIL", calls, errors,
		   (unsigned long long) before, (unsigned long long) after);

	/* cancel flags of 1 and -1, ten calls each, both key widths */
	const int	flags[2] = {1, -1};

	for (int f = 0; f < 2; ++f)
	{
		volatile int cancel = flags[f];
		int			interrupted = 0;
		const int	tries = 10;

		for (int i = 0; i < tries; ++i)
		{
			errbuf[0] = '\0';
			gs_status	st = i % 2 ?
				gs_sort_by_group(4, keys32.data(), groups.data(), n, ngroups, out32.data(),
								 &cancel, errbuf, sizeof(errbuf)) :
				gs_sort_by_group(8, keys64.data(), groups.data(), n, ngroups, out64.data(),
								 &cancel, errbuf, sizeof(errbuf));

			interrupted += st == GS_INTERRUPTED ? 1 : 0;
		}
		cudaDeviceSynchronize();
		gs_device_memory_in_use(&after);

		const bool	ok = interrupted == tries && before == after;

		report(ok, "cancel flag " + std::to_string(flags[f]) + " gives GS_INTERRUPTED");
		printf("%s cancel flag %d: %d of %d calls interrupted, memory in use %llu -> %llu bytes: %s\n",
			   ok ? "PASS" : "FAIL", flags[f], interrupted, tries, (unsigned long long) before,
			   (unsigned long long) after, errbuf);
	}

	/* a clear flag: the sorts run to the end */
	{
		volatile int cancel = 0;
		const bool	ok = sort_one(0, &cancel) && sort_one(1, &cancel);

		report(ok, "cancel flag 0 sorts both key widths");
		printf("%s cancel flag 0: both key widths sorted%s%s\n", ok ? "PASS" : "FAIL",
			   ok ? "" : ": ", ok ? "" : problem.c_str());
	}
}

} /* namespace */

int
main(int argc, char **argv)
{
	bool		quick = false;
	int64_t		max_n = INT64_MAX;
	gs_device_info info;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--max-n") && i + 1 < argc)
			max_n = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			g_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--verbose"))
			g_verbose = true;
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--max-n N] [--seed N] [--verbose]\n", argv[0]);
			return 2;
		}
	}

	if (gs_probe(&info) != GS_OK)
	{
		printf("SKIP: no GPU (%s)\n", info.reason[0] ? info.reason : "probe failed");
		return 0;
	}
	printf("device: %s, compute capability %d.%d, %.1f GiB, driver %d, runtime %d; seed %llu\n",
		   info.name, info.cc_major, info.cc_minor, info.total_memory / 1073741824.0,
		   info.driver_version, info.runtime_version, (unsigned long long) g_seed);

	check_arguments();

	std::vector<int64_t> sizes = {1, 31, 33, 1023, 1025, 65537, 1000003};
	int			case_no = 0;

	if (!quick)
		sizes.push_back(20000000);
	for (int64_t n : sizes)
	{
		if (n > max_n)
			continue;
		check_size<uint32_t>(n, &case_no);
		check_size<uint64_t>(n, &case_no);
	}
	if (max_n >= 2500003)
	{
		check_held_pairs<uint32_t>(2500003, K_UNIFORM, G_RANDOM, 101, case_no++);
		check_held_pairs<uint64_t>(2500003, K_EXTREMES, G_SKEWED, 10000, case_no++);
		check_held_pairs<uint64_t>(1000001, K_TWO, G_SORTED, 3, case_no++);
	}
	check_held_pairs<uint64_t>(1025, K_REVERSE, G_RANDOM, 5, case_no++);
	check_held_pairs_memory(max_n >= 100003 ? 50 : 5);
	check_out_of_memory();
	/* fewer calls when sizes are capped, as under compute-sanitizer */
	check_memory_and_cancel(max_n >= 100003 ? 200 : 20);

	printf("%d passed, %d failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}
