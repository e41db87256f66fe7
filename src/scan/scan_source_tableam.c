/*
 * scan_source_tableam.c
 *	  A source of rows (scan_source.h) for tables of any access method:
 *	  a tuple at a time through the table AM, its device columns taken
 *	  from the deformed slot.  Heap tables use the page reader instead
 *	  (scan_pages.c), which reads columns straight from the pages.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "miscadmin.h"

#include "column_form.h"
#include "scan_source.h"

/* A table AM scan and the columns it copies. */
typedef struct TableAmSource
{
	GpuselSource source;		/* first: the interface */
	TableScanDesc scan;
	const GpuselProgram *prog;
	AttrNumber	max_attno;		/* the last attribute a device column reads */
} TableAmSource;

/* The next visible tuple, through the table AM. */
static bool
tableam_next_slot(GpuselSource *source, TupleTableSlot *slot)
{
	TableAmSource *src = (TableAmSource *) source;

	return table_scan_getnextslot(src->scan, ForwardScanDirection, slot);
}

/*
 * Appends the next visible tuples to a batch, a tuple at a time, until the
 * batch holds max_rows rows or the table ends.  Returns the rows copied.
 */
static int64
tableam_fill(GpuselSource *source, GpuselStaging *staging, int64 max_rows,
			 TupleTableSlot *slot)
{
	TableAmSource *src = (TableAmSource *) source;
	const GpuselProgram *prog = src->prog;
	int64		n = 0;

	while (n < max_rows)
	{
		CHECK_FOR_INTERRUPTS();
		if (!table_scan_getnextslot(src->scan, ForwardScanDirection, slot))
			break;
		slot_getsomeattrs(slot, src->max_attno);
		for (int c = 0; c < prog->ncols; c++)
		{
			int			att = prog->attnos[c] - 1;
			bool		isnull = slot->tts_isnull[att];

			staging->nulls[c][n] = isnull;
			if (isnull)
				staging->has_nulls[c] = 1;
			else if (prog->form[c] != GPUSEL_FORM_PLAIN)
				GpuselStoreEncoded(staging->values, c, n, prog->form[c], prog->form_arg[c],
								   slot->tts_values[att]);
			else
				GpuselStoreValue(staging->values[c], n, prog->coltypes[c],
								 slot->tts_values[att]);
		}
		staging->tids[n] = slot->tts_tid;
		n++;
	}
	return n;
}

/* Starts the table AM scan again. */
static void
tableam_rescan(GpuselSource *source)
{
	table_rescan(((TableAmSource *) source)->scan, NULL);
}

/* Ends the table AM scan. */
static void
tableam_end(GpuselSource *source)
{
	TableAmSource *src = (TableAmSource *) source;

	table_endscan(src->scan);
	pfree(src);
}

static const GpuselSourceMethods tableam_methods = {
	.name = "table access method",
	.next_slot = tableam_next_slot,
	.fill = tableam_fill,
	.next_chunk = NULL,
	.rescan = tableam_rescan,
	.end = tableam_end,
};

/* Begins a scan of rel through its table AM, copying prog's device columns. */
GpuselSource *
GpuselTableAmSourceBegin(Relation rel, Snapshot snapshot, const GpuselProgram *prog)
{
	TableAmSource *src = palloc0(sizeof(TableAmSource));

	GpuselSourceInit(&src->source, &tableam_methods, prog, 65536);
	src->scan = table_beginscan(rel, snapshot, 0, NULL);
	src->prog = prog;
	for (int c = 0; prog != NULL && c < prog->ncols; c++)
		src->max_attno = Max(src->max_attno, prog->attnos[c]);
	return &src->source;
}
