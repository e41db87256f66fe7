/*
 * form_date.c
 *	  The catalogue's date-as-midnight form (GPUSEL_FORM_DATE_TIMESTAMPTZ): a
 *	  date column read as its midnight in the session's TimeZone, for the
 *	  device to compare with timestamptz values it computes
 *	  (scan/qual_datetime.c compiles those comparisons).
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "pgtime.h"
#include "utils/date.h"
#include "utils/timestamp.h"

#include "column_form.h"

/* Dates whose midnight in the TimeZone GpuselDateMidnightTz remembers: 11 years in a row */
#define MIDNIGHT_CACHE 4096

/*
 * A date as the timestamptz PostgreSQL compares it as: its midnight in
 * the session's TimeZone (date2timestamptz_opt_overflow), the infinities
 * as they are, and a date past the timestamps' range just beyond every
 * finite timestamp on its side (date_cmp_timestamptz_internal orders it
 * between them and the infinity), which no stored timestamptz is.  Runs
 * once per row: recent dates are remembered with their zone, since
 * the zone's rules are the time.
 */
int64
GpuselDateMidnightTz(DateADT d)
{
	static struct
	{
		pg_tz	   *zone;
		DateADT		date;
		int64		midnight;
	}			cache[MIDNIGHT_CACHE];
	int			slot = (int) ((uint32) d % MIDNIGHT_CACHE);
	int			overflow;
	int64		t;

	if (cache[slot].zone == session_timezone && cache[slot].date == d)
		return cache[slot].midnight;
	t = date2timestamptz_opt_overflow(d, &overflow);
	if (overflow > 0)
		t = END_TIMESTAMP;
	else if (overflow < 0)
		t = MIN_TIMESTAMP - 1;
	cache[slot].zone = session_timezone;
	cache[slot].date = d;
	cache[slot].midnight = t;
	return t;
}
