/*
 * key_select.c
 *	  The choice of selection routine for a set of keys: the GPU's
 *	  SampleSelect (cuda/sampleselect.cu), or the CPU's radix selection
 *	  (radix_select.c) for small, spilled or device-less inputs and when
 *	  device memory runs short.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "device.h"
#include "key_select.h"
#include "radix_select.h"

/* Selects keys on the GPU; falls back to the CPU when device memory is short. */
static void
gpu_select_keys(KeySource *source, const int64 *ranks, int nranks, uint64 *out)
{
	int			key_bytes = source->key_bytes;
	int			max_segments = 64;
	int			nsegments = 0;
	const void **segments = palloc(sizeof(void *) * max_segments);
	int64	   *counts = palloc(sizeof(int64) * max_segments);
	void	   *keys_out = palloc(sizeof(uint64) * nranks);
	const void *keys;
	int64		n;
	char		errbuf[512];
	gs_status	status;

	/* the store's chunks are handed over as they are: no copy on the host */
	source->rewind(source);
	while (source->next(source, &keys, &n))
	{
		if (nsegments == max_segments)
		{
			max_segments *= 2;
			segments = repalloc(segments, sizeof(void *) * max_segments);
			counts = repalloc(counts, sizeof(int64) * max_segments);
		}
		segments[nsegments] = keys;
		counts[nsegments] = n;
		nsegments++;
	}

	for (;;)
	{
		const volatile int *cancel = INTERRUPTS_CAN_BE_PROCESSED() ?
			(const volatile int *) &InterruptPending : NULL;

		errbuf[0] = '\0';
		status = GpuselDev->select_keys(key_bytes, segments, counts, nsegments, source->count,
								ranks, nranks, keys_out, cancel, errbuf, sizeof(errbuf));
		if (status != GS_INTERRUPTED)
			break;
		/* raises the cancel; an interrupt that is not one lets us go on */
		CHECK_FOR_INTERRUPTS();
	}

	if (status == GS_OUT_OF_MEMORY)
	{
		ereport(DEBUG1,
				(errmsg("gpusel: selection does not fit in GPU memory, using the CPU"),
				 errdetail("%s", errbuf)));
		GpuselCountFallback();
		RadixSelectKeys(source, ranks, nranks, out);
	}
	else
	{
		GpuselCheckStatus(status, errbuf, "percentile selection");
		for (int i = 0; i < nranks; i++)
			out[i] = key_bytes == 4 ? ((uint32 *) keys_out)[i] : ((uint64 *) keys_out)[i];
	}
	pfree(segments);
	pfree(counts);
	pfree(keys_out);
}

/*
 * Chooses the selection routine for nrows keys, once per call: the GPU's
 * SampleSelect or the CPU's radix selection.  Spilled input streams from
 * its temporary file through the CPU routine.
 */
KeySelectFn
GpuselChooseKeySelect(int64 nrows, bool spilled)
{
	if (!spilled && GpuselWantGpu(nrows))
	{
		GpuselCountSelection(true);
		return gpu_select_keys;
	}
	GpuselCountSelection(false);
	return RadixSelectKeys;
}

/*
 * The same choice for one group's segment of a grouped scan.  A device
 * selection costs a launch sequence and a synchronisation (about 0.1 ms on
 * the H100), which the CPU's radix selection of a group below
 * GPUSEL_SEGMENT_GPU_MIN_KEYS keys beats, so smaller groups stay on the
 * CPU whatever gpusel.device says; 10,000 groups of 2,000 rows measured
 * 4.9 s with every group on the GPU against 2.8 s on the CPU (20M rows).
 */
KeySelectFn
GpuselChooseSegmentSelect(int64 nrows)
{
	if (nrows < GPUSEL_SEGMENT_GPU_MIN_KEYS)
	{
		GpuselCountSelection(false);
		return RadixSelectKeys;
	}
	return GpuselChooseKeySelect(nrows, false);
}
