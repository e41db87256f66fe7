/*
 * kept_values.c
 *	  Percentile inputs without order-preserving keys that the grouped scan
 *	  keeps whole: each value is copied with its group, and a group's values
 *	  are sorted by the type's own comparison when its percentiles are read
 *	  (percentile.c's values path).  One row per type.
 *
 * interval: its keys would have to be its span (months as 30 days, days as
 * 24 hours), which does not say which of equal spans a value was ('1 day'
 * or '24 hours'), so the values themselves travel; interval_cmp orders
 * them and percentile_cont interpolates with interval_mi, interval_mul and
 * interval_pl, as PostgreSQL's percentile_cont does.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "datatype/timestamp.h"

#include "order_keys.h"

static const KeptValueType kept_types[] = {
	{INTERVALOID, sizeof(Interval), true},
};

/* The row of a type kept whole, or NULL. */
const KeptValueType *
KeptValueTypeLookup(Oid typid)
{
	for (int i = 0; i < lengthof(kept_types); i++)
		if (kept_types[i].typid == typid)
			return &kept_types[i];
	return NULL;
}
