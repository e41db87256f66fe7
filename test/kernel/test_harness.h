/*
 * test_harness.h
 *	  What the kernel tests share: pass/fail counting with report(), and
 *	  the splitmix64 generator.  Each test keeps its own case_seed(), so its
 *	  seeds, and the data they draw, stay as they were.
 *
 * Each test is one translation unit, so the counters are defined here.
 */
#ifndef GPUSEL_TEST_HARNESS_H
#define GPUSEL_TEST_HARNESS_H

#include <cstdint>
#include <cstdio>
#include <string>

int			g_passed = 0;
int			g_failed = 0;
bool		g_verbose = false;

/* Counts one check and prints it when it failed (or always, verbose). */
inline void
report(bool ok, const std::string &what)
{
	if (ok)
		g_passed++;
	else
		g_failed++;
	if (!ok || g_verbose)
		printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
	fflush(stdout);
}

/* splitmix64: a deterministic generator, one stream per seed. */
struct SplitMix64
{
	uint64_t	state;

	explicit SplitMix64(uint64_t seed) : state(seed) {}
	uint64_t next()
	{
		uint64_t	z = (state += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	uint64_t below(uint64_t n) { return n > 0 ? next() % n : 0; }
};

#endif							/* GPUSEL_TEST_HARNESS_H */
