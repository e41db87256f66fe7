/*
 * filter_bench.cu
 *	  Benchmark of the device filter's compaction on data already on the
 *	  device: 2^28 int32 with "x < threshold" keeping 1%, 50%, 99%:
 *
 *	    ours   gs_compact_run with gs_range_predicate<int32_t> (the path
 *	           gs_filter_submit takes for "column < constant")
 *	    cub    cub::DeviceSelect::If over a counting iterator, predicate
 *	           x[i] < threshold: the same positions
 *	    copy   cudaMemcpyAsync device-to-device of the input
 *
 *	  Median of REPS event-timed runs each.  Bandwidth of ours counts the
 *	  bytes it must move (input read + positions written); copy counts read
 *	  + written.  Then: a phase breakdown and a few variants (load flavour,
 *	  grid caps), and one full gs_filter_submit / gs_filter_wait of a
 *	  1M-row, 5-column batch (transfers + kernels), alone and pipelined
 *	  over two slots.
 *	  Usage: filter_bench [--log2n N] [--reps R]
 */
#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpusel_filter.h"
#include "predicate.cuh"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(2); } } while (0)

static int	g_reps = 20;

/* Fills x with a hash of the index, uniform in [0, 1000000). */
__global__ void
fill_kernel(int32_t *x, long long n)
{
	for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
		 i += (long long) gridDim.x * blockDim.x)
	{
		unsigned long long z = (unsigned long long) i * 0x9e3779b97f4a7c15ULL;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		x[i] = (int32_t) ((z ^ (z >> 31)) % 1000000ULL);
	}
}

/* Counts positions where a and b differ (first n). */
__global__ void
diff_kernel(const uint32_t *a, const uint32_t *b, long long n, unsigned long long *ndiff)
{
	for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
		 i += (long long) gridDim.x * blockDim.x)
		if (a[i] != b[i])
			atomicAdd(ndiff, 1ULL);
}

/* CUB's predicate: row i passes when x[i] < th. */
struct lt_at
{
	const int32_t *x;
	int32_t		th;

	__device__ __forceinline__ bool operator()(uint32_t i) const
	{
		return x[i] < th;
	}
};

/*
 * A variant predicate for the exploration table: plain "x < th" with a
 * chosen load instruction (0 __ldg, 1 __ldcs, 2 plain), same layout as
 * gs_range_predicate<int32_t>.
 */
template <int LOAD>
struct bench_lt_pred
{
	static constexpr int kThreads = GS_FILTER_P1_THREADS;
	static constexpr bool kCanError = false;
	static constexpr bool kRowPerThread = false;
	const int32_t *x;
	int32_t		th;
	int			stack_slots;

	__device__ __forceinline__ uint32_t group_word(long long base, long long n, bool full,
												   long long *, int, bool &) const
	{
		const int	lane = gs_lane_id();
		uint32_t	myword = 0;
		int4		v[8];

		if (!full)
		{
			for (int it = 0; it < 8; ++it)
			{
				uint32_t	bits = 0;

				for (int j = 0; j < 4; ++j)
				{
					long long	r = base + it * 128 + lane * 4 + j;

					bits |= (uint32_t) (r < n && x[r] < th) << j;
				}
				gs_collect_word<4>(bits, it, myword);
			}
			return myword;
		}
#pragma unroll
		for (int it = 0; it < 8; ++it)
		{
			const int4 *p = (const int4 *) (x + base + it * 128 + lane * 4);

			v[it] = LOAD == 0 ? __ldg(p) : LOAD == 1 ? __ldcs(p) : *p;
		}
#pragma unroll
		for (int it = 0; it < 8; ++it)
		{
			uint32_t	bits = (v[it].x < th) | ((v[it].y < th) << 1) | ((v[it].z < th) << 2) | ((v[it].w < th) << 3);

			gs_collect_word<4>(bits, it, myword);
		}
		return myword;
	}
};

/* Median of g_reps event-timed runs of f on stream s (after 3 warm-ups). */
template <class F>
static float
time_median(F f, cudaStream_t s)
{
	cudaEvent_t a, b;
	std::vector<float> t;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < 3; ++i)
		f();
	for (int i = 0; i < g_reps; ++i)
	{
		float		ms;

		CK(cudaEventRecord(a, s));
		f();
		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms);
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/* Launches phase 3 variant v: 0 staged, one tile per block (library default), 1 same + streaming stores, 2 staged persistent (1 wave), 3 direct (seed). */
static void
launch_p3(int v, long long ngroups, uint32_t *pos, const gs_compact_workspace &ws, int sms, cudaStream_t s)
{
	constexpr int T = GS_FILTER_P3_THREADS, W = T / 32;
	constexpr auto k0 = gs_phase3_kernel<T, false>;
	constexpr auto k1 = gs_phase3_kernel<T, true>;

	if (v == 0)
		k0<<<gs_compact_grid(ngroups, W, sms, 0, 0), T, 0, s>>>(ws.words, ws.offsets, ngroups, pos, ws.result, 1);
	else if (v == 1)
		k1<<<gs_compact_grid(ngroups, W, sms, 0, 0), T, 0, s>>>(ws.words, ws.offsets, ngroups, pos, ws.result, 1);
	else if (v == 2)
		k0<<<gs_compact_grid(ngroups, W, sms, gs_blocks_per_sm<k0>(T, 0), 1), T, 0, s>>>(ws.words, ws.offsets, ngroups, pos, ws.result, 1);
	else
		gs_phase3_direct_kernel<T><<<gs_compact_grid(ngroups, W, sms, 0, 0), T, 0, s>>>(ws.words, ws.offsets, ngroups, pos, ws.result, 1);
}

/* The three phases launched by hand (phase 3 variant v3), with per-phase median times (ms). */
template <class Pred>
static void
phases(const Pred &pred, long long n, uint32_t *pos, const gs_compact_workspace &ws,
	   int sms, int v3, cudaStream_t s, float out[3])
{
	const long long ngroups = (n + GS_FILTER_GROUP_ROWS - 1) / GS_FILTER_GROUP_ROWS;
	size_t		tb = ws.scan_temp_bytes;
	std::vector<float> t[3];
	cudaEvent_t ev[4];

	for (int i = 0; i < 4; ++i)
		CK(cudaEventCreate(&ev[i]));
	for (int r = 0; r < g_reps + 3; ++r)
	{
		CK(cudaEventRecord(ev[0], s));
		gs_phase1_kernel<Pred><<<gs_compact_grid(ngroups, Pred::kThreads / 32, sms, 0, 0),
			Pred::kThreads, 0, s>>>(pred, n, ngroups, ws.words, ws.counts, ws.result);
		CK(cudaEventRecord(ev[1], s));
		CK(cub::DeviceScan::ExclusiveSum(ws.scan_temp, tb, (const uint32_t *) ws.counts, ws.offsets,
										 (int) (ngroups + 1), s));
		CK(cudaEventRecord(ev[2], s));
		launch_p3(v3, ngroups, pos, ws, sms, s);
		CK(cudaEventRecord(ev[3], s));
		CK(cudaEventSynchronize(ev[3]));
		CK(cudaGetLastError());
		if (r < 3)
			continue;
		for (int i = 0; i < 3; ++i)
		{
			float		ms;

			CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
			t[i].push_back(ms);
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		std::sort(t[i].begin(), t[i].end());
		out[i] = t[i][t[i].size() / 2];
	}
	for (int i = 0; i < 4; ++i)
		CK(cudaEventDestroy(ev[i]));
}

/* One full batch through the public API: 1M rows, 5 columns, a 5-qual AND. */
static void
bench_full_batch(void)
{
	const int64_t n = 1 << 20;
	const gs_coltype ty[5] = {GS_COL_INT4, GS_COL_INT8, GS_COL_FLOAT8, GS_COL_FLOAT4, GS_COL_INT2};
	const uint8_t has_nulls[5] = {0, 1, 0, 1, 0};
	std::vector<gs_instr> code;
	std::vector<gs_const> consts;
	std::vector<int> jumps;
	gs_program	prog;
	gs_filter  *f;
	char		err[256];

	/* quals: c0 > 100; c1 < 900000; c2 >= 0.25; c3 <> 0.5; c4 % 7 <> 3 -- chained ExecQual style */
	auto		ins = [&](int op, int kind, int arg, int arg2) {
		gs_instr	i;

		memset(&i, 0, sizeof(i));
		i.op = op;
		i.kind = kind;
		i.arg = arg;
		i.arg2 = arg2;
		code.push_back(i);
	};
	auto		cst = [&](int64_t iv, double fv, bool isf) {
		gs_const	c;

		memset(&c, 0, sizeof(c));
		if (isf)
			c.v.f = fv;
		else
			c.v.i = iv;
		consts.push_back(c);
		return (int) consts.size() - 1;
	};
	const int	cmpop[4] = {GS_OP_GT, GS_OP_LT, GS_OP_GE, GS_OP_NE};
	const int	kinds[5] = {GS_VK_INT4, GS_VK_INT8, GS_VK_FLOAT8, GS_VK_FLOAT4, GS_VK_INT2};
	const double k[4] = {100, 900000, 0.25, 0.5};

	for (int q = 0; q < 5; ++q)
	{
		ins(GS_OP_COLUMN, kinds[q], q, 0);
		if (q < 4)
		{
			ins(GS_OP_CONST, kinds[q], q >= 2 ? cst(0, k[q], true) : cst((int64_t) k[q], 0, false), 0);
			ins(cmpop[q], kinds[q], 0, 0);
		}
		else
		{
			ins(GS_OP_CONST, GS_VK_INT2, cst(7, 0, false), 0);
			ins(GS_OP_MOD, GS_VK_INT2, 0, 0);
			ins(GS_OP_CONST, GS_VK_INT2, cst(3, 0, false), 0);
			ins(GS_OP_NE, GS_VK_INT2, 0, 0);
		}
		if (q > 0)
			ins(GS_OP_AND, 0, 2, 0);
		if (q < 4)
		{
			jumps.push_back((int) code.size());
			ins(GS_OP_JUMP_IF_NOT_TRUE, 0, 0, 0);
		}
	}
	for (int j : jumps)
		code[j].arg = (int) code.size();
	prog.code = code.data();
	prog.ncode = (int) code.size();
	prog.consts = consts.data();
	prog.nconsts = (int) consts.size();
	prog.max_stack = 3;
	if (gs_filter_create(&f, &prog, 5, ty, n, 2, err, sizeof(err)) != GS_OK)
	{
		printf("full batch: create failed: %s\n", err);
		return;
	}
	for (int s = 0; s < 2; ++s)
	{
		int32_t    *c0 = (int32_t *) gs_filter_values(f, s, 0);
		int64_t    *c1 = (int64_t *) gs_filter_values(f, s, 1);
		double	   *c2 = (double *) gs_filter_values(f, s, 2);
		float	   *c3 = (float *) gs_filter_values(f, s, 3);
		int16_t    *c4 = (int16_t *) gs_filter_values(f, s, 4);

		for (int64_t r = 0; r < n; ++r)
		{
			c0[r] = (int32_t) (r * 7919 % 1000);
			c1[r] = r;
			c2[r] = (double) (r % 100) / 100.0;
			c3[r] = (float) (r % 4) / 4.0f;
			c4[r] = (int16_t) (r % 30000);
			gs_filter_nulls(f, s, 1)[r] = r % 50 == 0;
			gs_filter_nulls(f, s, 3)[r] = r % 33 == 0;
		}
	}
	std::vector<double> wall, dev;
	int64_t		count = 0;

	for (int rep = 0; rep < g_reps + 3; ++rep)
	{
		const uint32_t *pos;
		int			re;
		double		ms;
		auto		t0 = std::chrono::steady_clock::now();

		if (gs_filter_submit(f, 0, n, has_nulls, err, sizeof(err)) != GS_OK ||
			gs_filter_wait(f, 0, &pos, &count, &re, &ms, err, sizeof(err)) != GS_OK)
		{
			printf("full batch failed: %s\n", err);
			gs_filter_destroy(f);
			return;
		}
		auto		t1 = std::chrono::steady_clock::now();

		if (rep >= 3)
		{
			wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
			dev.push_back(ms);
		}
	}
	std::sort(wall.begin(), wall.end());
	std::sort(dev.begin(), dev.end());

	/* pipelined: two slots alternate, 32 batches */
	const int	nb = 32;
	auto		t0 = std::chrono::steady_clock::now();
	bool		ok = gs_filter_submit(f, 0, n, has_nulls, err, sizeof(err)) == GS_OK;

	for (int b = 1; b < nb && ok; ++b)
	{
		ok = gs_filter_submit(f, b & 1, n, has_nulls, err, sizeof(err)) == GS_OK;
		ok = ok && gs_filter_wait(f, (b - 1) & 1, NULL, NULL, NULL, NULL, err, sizeof(err)) == GS_OK;
	}
	ok = ok && gs_filter_wait(f, (nb - 1) & 1, NULL, NULL, NULL, NULL, err, sizeof(err)) == GS_OK;
	double		pipe_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	const double in_bytes = n * (4.0 + 8 + 8 + 4 + 2) + 2.0 * n;	/* values + 2 null columns */

	printf("\nfull batch: %lld rows x 5 columns (2 with NULLs), 5-qual AND, %lld rows pass, path %s\n",
		   (long long) n, (long long) count, gs_filter_get_path(f) == GS_FILTER_PATH_RANGE ? "range" : "interpreter");
	printf("  one batch, submit..wait: %.3f ms wall (median), %.3f ms device events; %.1f MB in, %.1f MB out\n",
		   wall[wall.size() / 2], dev[dev.size() / 2], in_bytes / 1e6, count * 4.0 / 1e6);
	printf("  two slots pipelined, %d batches: %.3f ms per batch (%.1f GB/s of input) %s\n",
		   nb, pipe_ms / nb, in_bytes * nb / (pipe_ms * 1e6), ok ? "" : err);

	/* the kernels alone: the same program over a device-resident copy of the batch */
	{
		void	   *dv[5];
		uint8_t    *dn[5];
		gs_dcolumn	cols[5];
		uint32_t   *dpos;
		cudaStream_t st;

		CK(cudaStreamCreate(&st));
		CK(cudaMalloc(&dpos, n * sizeof(uint32_t)));
		for (int c = 0; c < 5; ++c)
		{
			const size_t w = c == 0 || c == 3 ? 4 : c == 4 ? 2 : 8;

			CK(cudaMalloc(&dv[c], n * w));
			CK(cudaMalloc(&dn[c], n));
			CK(cudaMemcpy(dv[c], gs_filter_values(f, 0, c), n * w, cudaMemcpyHostToDevice));
			CK(cudaMemcpy(dn[c], gs_filter_nulls(f, 0, c), n, cudaMemcpyHostToDevice));
			cols[c].values = dv[c];
			cols[c].nulls = has_nulls[c] ? dn[c] : NULL;
		}
		const float kms = time_median([&] {
			if (gs_filter_launch(f, 0, cols, n, dpos, st, err, sizeof(err)) != GS_OK)
			{
				printf("launch failed: %s\n", err);
				exit(2);
			}
		}, st);
		gs_compact_result res;

		CK(cudaMemcpy(&res, gs_filter_device_result(f, 0), sizeof(res), cudaMemcpyDeviceToHost));
		printf("  kernels alone (interpreter + compaction, data on device): %.3f ms, %u rows pass (%s)\n", kms,
			   res.count, (int64_t) res.count == count ? "same" : "DIFFERENT");
		for (int c = 0; c < 5; ++c)
		{
			cudaFree(dv[c]);
			cudaFree(dn[c]);
		}
		cudaFree(dpos);
		cudaStreamDestroy(st);
	}
	gs_filter_destroy(f);
}

int
main(int argc, char **argv)
{
	int			log2n = 28;
	int			ndev = 0;
	cudaError_t e;

	for (int i = 1; i < argc; ++i)
	{
		if (!strcmp(argv[i], "--log2n") && i + 1 < argc)
			log2n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			g_reps = atoi(argv[++i]);
	}
	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev == 0)
	{
		printf("SKIP: no GPU (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "no device");
		return 0;
	}

	const long long n = 1LL << log2n;
	cudaDeviceProp prop;
	int32_t    *x;
	uint32_t   *pos_ours, *pos_cub, *copy_dst, *d_count;
	unsigned long long *d_diff;
	gs_compact_workspace ws;
	cudaStream_t s;
	void	   *cub_temp = NULL;
	size_t		cub_bytes = 0;

	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs, %.0f MB L2; n = 2^%d int32 (%.2f GB), median of %d\n", prop.name,
		   prop.multiProcessorCount, prop.l2CacheSize / 1e6, log2n, n * 4 / 1e9, g_reps);
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&x, n * sizeof(int32_t)));
	CK(cudaMalloc(&pos_ours, n * sizeof(uint32_t)));
	CK(cudaMalloc(&pos_cub, n * sizeof(uint32_t)));
	CK(cudaMalloc(&copy_dst, n * sizeof(uint32_t)));
	CK(cudaMalloc(&d_count, sizeof(uint32_t)));
	CK(cudaMalloc(&d_diff, sizeof(unsigned long long)));
	CK(gs_compact_workspace_alloc(&ws, n));
	fill_kernel<<<4096, 256, 0, s>>>(x, n);
	CK(cudaGetLastError());

	thrust::counting_iterator<uint32_t> iota(0);

	CK(cub::DeviceSelect::If(NULL, cub_bytes, iota, pos_cub, d_count, (int64_t) n, lt_at{x, 0}, s));
	CK(cudaMalloc(&cub_temp, cub_bytes));

	const float copy_ms = time_median([&] {
		CK(cudaMemcpyAsync(copy_dst, x, n * sizeof(int32_t), cudaMemcpyDeviceToDevice, s));
	}, s);
	const double copy_gbs = 2.0 * n * 4 / (copy_ms * 1e6);
	const float memset_ms = time_median([&] {
		CK(cudaMemsetAsync(copy_dst, 0x5a, n * sizeof(int32_t), s));
	}, s);

	struct Row
	{
		int			pct;
		float		ours, cub;
		uint32_t	count;
		bool		same;
		float		ph[3], ldg, plain, p3[4];
	};
	std::vector<Row> rows;
	const int	pcts[3] = {1, 50, 99};

	for (int pct : pcts)
	{
		const int32_t th = pct * 10000;	/* values uniform in [0, 1e6) */
		Row			row;
		gs_range_predicate<int32_t, false> pred;
		gs_compact_result res;
		uint32_t	cub_count;
		unsigned long long ndiff = 0;

		pred.values = x;
		pred.nulls = NULL;
		pred.lo = INT32_MIN;	/* x < th  <=>  INT32_MIN <= x <= th - 1 */
		pred.hi = th - 1;
		pred.invert = 0;
		pred.stack_slots = 0;
		row.pct = pct;
		row.ours = time_median([&] {
			CK(gs_compact_run(pred, n, pos_ours, &ws, prop.multiProcessorCount, s));
		}, s);
		row.cub = time_median([&] {
			CK(cub::DeviceSelect::If(cub_temp, cub_bytes, iota, pos_cub, d_count, (int64_t) n, lt_at{x, th}, s));
		}, s);
		CK(cudaMemcpy(&res, ws.result, sizeof(res), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(&cub_count, d_count, sizeof(cub_count), cudaMemcpyDeviceToHost));
		CK(cudaMemset(d_diff, 0, sizeof(*d_diff)));
		diff_kernel<<<4096, 256>>>(pos_ours, pos_cub, res.count, d_diff);
		CK(cudaMemcpy(&ndiff, d_diff, sizeof(ndiff), cudaMemcpyDeviceToHost));
		row.count = res.count;
		row.same = res.count == cub_count && ndiff == 0 && res.row_error == 0;

		phases(pred, n, pos_ours, ws, prop.multiProcessorCount, 0, s, row.ph);
		{
			bench_lt_pred<0> p0 = {x, th, 0};
			bench_lt_pred<2> p2 = {x, th, 0};
			float		t[3];

			phases(p0, n, pos_ours, ws, prop.multiProcessorCount, 0, s, t);
			row.ldg = t[0];
			phases(p2, n, pos_ours, ws, prop.multiProcessorCount, 0, s, t);
			row.plain = t[0];
			for (int v = 0; v < 4; ++v)
			{
				phases(pred, n, pos_ours, ws, prop.multiProcessorCount, v, s, t);
				row.p3[v] = t[2];
				/* every variant must give the same positions as CUB */
				CK(cudaMemset(d_diff, 0, sizeof(*d_diff)));
				diff_kernel<<<4096, 256>>>(pos_ours, pos_cub, res.count, d_diff);
				CK(cudaMemcpy(&ndiff, d_diff, sizeof(ndiff), cudaMemcpyDeviceToHost));
				row.same = row.same && ndiff == 0;
			}
		}
		rows.push_back(row);
	}

	printf("\ncopy (device-to-device, %.2f GB): %.3f ms, %.0f GB/s (read + write)\n\n", n * 4 / 1e9, copy_ms, copy_gbs);
	printf("%-6s %10s %10s %10s %9s %10s %10s %9s %8s %6s\n", "kept", "rows", "ours ms", "cub ms",
		   "copy ms", "ours GB/s", "copy GB/s", "cub/ours", "ours%cp", "same");
	for (const Row &r : rows)
	{
		const double gbs = (n * 4.0 + r.count * 4.0) / (r.ours * 1e6);

		printf("%4d%%  %10u %10.3f %10.3f %9.3f %10.0f %10.0f %8.2fx %7.0f%% %6s\n", r.pct, r.count, r.ours, r.cub,
			   copy_ms, gbs, copy_gbs, r.cub / r.ours, 100.0 * gbs / copy_gbs, r.same ? "yes" : "NO");
	}
	printf("\nwrite-only ceiling (cudaMemsetAsync %.2f GB): %.3f ms, %.0f GB/s\n", n * 4 / 1e9, memset_ms,
		   n * 4 / (memset_ms * 1e6));
	printf("\nours, by phase (ms, events between launches), phase 1 load variants, phase 3 variants:\n");
	printf("%-5s %7s %7s %7s %7s | %7s %7s %7s | %7s %7s %7s %7s  %s\n", "kept", "p1", "scan", "p3", "sum",
		   "p1 ldcs", "__ldg", "plain", "p3 stg", "stg+cs", "persist", "direct", "p3 GB/s (stg)");
	for (const Row &r : rows)
		printf("%3d%%  %7.3f %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f %7.3f  %.0f\n", r.pct,
			   r.ph[0], r.ph[1], r.ph[2], r.ph[0] + r.ph[1] + r.ph[2], r.ph[0], r.ldg, r.plain,
			   r.p3[0], r.p3[1], r.p3[2], r.p3[3], (n / 8.0 + r.count * 4.0) / (r.p3[0] * 1e6));

	bench_full_batch();

	cudaFree(cub_temp);
	gs_compact_workspace_free(&ws);
	cudaFree(x);
	cudaFree(pos_ours);
	cudaFree(pos_cub);
	cudaFree(copy_dst);
	cudaFree(d_count);
	cudaFree(d_diff);
	cudaStreamDestroy(s);
	return 0;
}
