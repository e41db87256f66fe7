/*
 * column_form.c
 *	  The table of column forms (column_form.h): one row per form, in the
 *	  order GpuselChooseForm prefers them, and the lookups every stage uses.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"

#include "column_form.h"

/* Whether a type travels as its stored bytes (GPUSEL_FORM_PLAIN). */
static bool
plain_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
			  gs_coltype *coltype)
{
	*arg = 0;
	return GpuselTypeIsDeviceable(typid, coltype);
}

/* Whether a numeric column travels as scaled int8 whole (GPUSEL_FORM_NUMERIC). */
static bool
numeric_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
				gs_coltype *coltype)
{
	*coltype = GS_COL_INT8;
	return GpuselNumericScale(typid, typmod, arg);
}

/* Whether a numeric column travels as scaled int8 where it fits (GPUSEL_FORM_NUMERIC_FIT). */
static bool
numeric_fit_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
					gs_coltype *coltype)
{
	*coltype = GS_COL_INT8;
	return GpuselNumericFitScale(typid, typmod, unconstrained_scale, arg);
}

/* Whether a numeric column travels as 128-bit halves (GPUSEL_FORM_NUMERIC_WIDE_HI). */
static bool
numeric_wide_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
					 gs_coltype *coltype)
{
	*coltype = GS_COL_INT8;
	return GpuselNumericWideScale(typid, typmod, arg);
}

/* Whether a char(n) column packs into an int8 (GPUSEL_FORM_SHORT_CHAR). */
static bool
short_char_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
				   gs_coltype *coltype)
{
	*coltype = GS_COL_INT8;
	return GpuselShortCharLength(typid, typmod, collid, arg);
}

/* Whether a column is a date, to read as its midnight (GPUSEL_FORM_DATE_TIMESTAMPTZ). */
static bool
date_tz_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
				gs_coltype *coltype)
{
	*arg = 0;
	*coltype = GS_COL_INT8;
	return typid == DATEOID;
}

/* Whether a text key column is numbered by a dictionary (GPUSEL_FORM_TEXT_DICT). */
static bool
text_dict_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
				  gs_coltype *coltype)
{
	*coltype = GS_COL_INT8;
	return GpuselTextDictAccepts(typid, typmod, collid, arg);
}

/* Whether a uuid key column is numbered by a dictionary (GPUSEL_FORM_UUID_DICT). */
static bool
uuid_dict_accepts(Oid typid, int32 typmod, Oid collid, int unconstrained_scale, int *arg,
				  gs_coltype *coltype)
{
	*coltype = GS_COL_INT8;
	return GpuselUuidDictAccepts(typid, typmod, collid, arg);
}

/* A scaled numeric batch value as its numeric. */
static Datum
numeric_decode(int64 value, int arg)
{
	return GpuselScaledToNumeric(value, arg);
}

/* A packed char(n) batch value as its char(n). */
static Datum
short_char_decode(int64 value, int arg)
{
	return GpuselShortCharUnpack(value, arg);
}

/*
 * The forms, in the order GpuselChooseForm tries them: a numeric column
 * that fits 18 digits is scaled whole before it is read where it fits, and
 * a type's own bytes come last.
 */
static const GpuselFormInfo forms[] = {
	{GPUSEL_FORM_NUMERIC, "numeric as scaled int8",
		GPUSEL_USE_QUAL | GPUSEL_USE_GROUP | GPUSEL_USE_EXPR, numeric_accepts,
	1, GPUSEL_READ_VARLENA, true, false, INT8OID, numeric_decode, GPUSEL_CROSS_AS_IS, false},
	{GPUSEL_FORM_SHORT_CHAR, "char(n) packed into int8",
		GPUSEL_USE_GROUP, short_char_accepts,
	1, GPUSEL_READ_VARLENA, false, false, INT8OID, short_char_decode, GPUSEL_CROSS_AS_IS, false},
	{GPUSEL_FORM_NUMERIC_FIT, "numeric as scaled int8 where it fits",
		GPUSEL_USE_QUAL, numeric_fit_accepts,
	1, GPUSEL_READ_VARLENA, false, true, InvalidOid, NULL, GPUSEL_CROSS_AS_IS, false},
	{GPUSEL_FORM_NUMERIC_WIDE_HI, "numeric as 128-bit halves",
		0, numeric_wide_accepts,
	2, GPUSEL_READ_VARLENA, false, false, InvalidOid, NULL, GPUSEL_CROSS_AS_IS, false},
	{GPUSEL_FORM_NUMERIC_WIDE_LO, "low half of a 128-bit numeric",
		0, NULL,
	0, GPUSEL_READ_VARLENA, false, false, InvalidOid, NULL, GPUSEL_CROSS_AS_IS, false},
	{GPUSEL_FORM_DATE_TIMESTAMPTZ, "date as its midnight timestamptz",
		0, date_tz_accepts,
	1, GPUSEL_READ_DATE, false, false, InvalidOid, NULL, GPUSEL_CROSS_AS_IS, false},
	{GPUSEL_FORM_TEXT_DICT, "text numbered by a dictionary",
		GPUSEL_USE_GROUP, text_dict_accepts,
	1, GPUSEL_READ_VARLENA, false, false, INT8OID, GpuselValueDictDecode,
	GPUSEL_CROSS_DICTIONARY, true},
	{GPUSEL_FORM_UUID_DICT, "uuid numbered by a dictionary",
		GPUSEL_USE_GROUP, uuid_dict_accepts,
	1, GPUSEL_READ_BYREF, false, false, INT8OID, GpuselValueDictDecode,
	GPUSEL_CROSS_DICTIONARY, true},
	{GPUSEL_FORM_PLAIN, "stored bytes",
		GPUSEL_USE_QUAL | GPUSEL_USE_GROUP | GPUSEL_USE_EXPR, plain_accepts,
	1, GPUSEL_READ_BYTES, false, false, InvalidOid, NULL, GPUSEL_CROSS_AS_IS, false},
};

/* The table's rows by form, filled at the first lookup. */
static const GpuselFormInfo *forms_by_id[GPUSEL_NFORMS];

/* Indexes the table by form (once per process). */
static void
index_forms(void)
{
	for (int i = 0; i < lengthof(forms); i++)
		forms_by_id[forms[i].form] = &forms[i];
}

/* The descriptor of a form (an array read: the grouped scan asks once per row). */
const GpuselFormInfo *
GpuselFormLookup(int form)
{
	if (unlikely(forms_by_id[GPUSEL_FORM_PLAIN] == NULL))
		index_forms();
	if (unlikely(form < 0 || form >= GPUSEL_NFORMS || forms_by_id[form] == NULL))
		elog(ERROR, "gpusel has no column form %d", form);
	return forms_by_id[form];
}

/*
 * The first form that a stage of kind 'use' takes for a column of this
 * type, typmod and collation; false when none does.  An unconstrained
 * numeric read where it fits travels at unconstrained_scale.
 */
bool
GpuselChooseForm(Oid typid, int32 typmod, Oid collid, int use, int unconstrained_scale,
				 GpuselFormChoice *choice)
{
	for (int i = 0; i < lengthof(forms); i++)
	{
		if (!(forms[i].uses & use))
			continue;
		if (forms[i].accepts(typid, typmod, collid, unconstrained_scale, &choice->arg,
							 &choice->coltype))
		{
			choice->form = forms[i].form;
			return true;
		}
	}
	return false;
}

/* Maps a SQL type to the batch column type holding its stored bytes, if any. */
bool
GpuselTypeIsDeviceable(Oid typid, gs_coltype *coltype)
{
	gs_coltype	t;

	switch (typid)
	{
		case BOOLOID:
			t = GS_COL_BOOL;
			break;
		case INT2OID:
			t = GS_COL_INT2;
			break;
		case INT4OID:
		case DATEOID:
			t = GS_COL_INT4;
			break;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			t = GS_COL_INT8;
			break;
		case FLOAT4OID:
			t = GS_COL_FLOAT4;
			break;
		case FLOAT8OID:
			t = GS_COL_FLOAT8;
			break;
		default:
			return false;
	}
	if (coltype)
		*coltype = t;
	return true;
}

/* Bytes one value of a batch column type takes. */
int
GpuselColumnWidth(gs_coltype type)
{
	return (int) gs_coltype_width(type);
}

/* An int8 batch value of a column of the given form as the stored value. */
Datum
GpuselFormDecode(int form, int arg, int64 value)
{
	const GpuselFormInfo *info = GpuselFormLookup(form);

	/* stand-ins, halves and midnights do not say which value they stand for */
	if (info->decode == NULL)
		elog(ERROR, "gpusel cannot turn a batch value of a column read as %s back into its value",
			 info->name);
	return info->decode(value, arg);
}
