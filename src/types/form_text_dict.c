/*
 * form_text_dict.c
 *	  The catalogue's text dictionary form (GPUSEL_FORM_TEXT_DICT): a text,
 *	  varchar or char(n) group key read as the number of its value in a
 *	  dictionary of the scan (value_dict.c).
 *
 * Under a deterministic collation two text values are equal exactly when
 * their bytes are (texteq compares bytes then), and two char(n) values
 * exactly when their bytes are once trailing spaces are dropped
 * (bpchareq): equal values, and only they, get one number.  A group returns
 * the first value seen with its number: equal text values are the same
 * bytes, and equal char(n) values the same bytes padded to the same n
 * characters, as stored.  Short char(n) keys, whose bytes fit an int8, are
 * packed instead (form_short_char.c).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"

#include "column_form.h"

/*
 * Whether a column of this type takes the form: text and varchar, and
 * char(n) with its length unless its bytes are packed, under a
 * deterministic collation.  A char without a length can hold equal values
 * that differ in trailing spaces, and which of them a group returns would
 * depend on row order: it stays with PostgreSQL.  Sets *kind to the
 * dictionary's kind.
 */
bool
GpuselTextDictAccepts(Oid typid, int32 typmod, Oid collid, int *kind)
{
	int			length;

	if (typid != TEXTOID && typid != VARCHAROID &&
		!(typid == BPCHAROID && typmod >= (int32) VARHDRSZ + 1))
		return false;
	if (!GpuselCollationComparesBytes(collid) ||
		GpuselShortCharLength(typid, typmod, collid, &length))
		return false;
	*kind = typid == BPCHAROID ? GPUSEL_DICT_BLANK_PADDED : GPUSEL_DICT_VARLENA;
	return true;
}
