/*
 * form_uuid.c
 *	  The catalogue's uuid dictionary form (GPUSEL_FORM_UUID_DICT): a uuid
 *	  group key read as the number of its value in a dictionary of the scan
 *	  (value_dict.c).
 *
 * uuid_eq is memcmp of the 16 bytes, so equal values, and only they, get
 * one number, whatever the collation (uuid has none); a group returns its
 * first value's copy, which is the same bytes.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "utils/uuid.h"

#include "column_form.h"

/* Whether a column is a uuid; sets *kind to its dictionary's: 16 bytes by reference. */
bool
GpuselUuidDictAccepts(Oid typid, int32 typmod, Oid collid, int *kind)
{
	if (typid != UUIDOID)
		return false;
	*kind = UUID_LEN;
	return true;
}
