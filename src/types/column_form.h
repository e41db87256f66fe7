/*
 * column_form.h
 *	  The catalogue of column forms: how a column of a SQL type travels in a
 *	  batch, one descriptor per form (column_form.c), asked by every stage.
 *
 * A batch column holds a table column's values as a gs_coltype (bool, int2,
 * int4, int8, float4, float8).  Most types travel as their stored bytes
 * (GPUSEL_FORM_PLAIN: the integers, floats, dates and timestamps).  The
 * other forms encode each value into an int8 (two for the 128-bit numeric)
 * whose integer order is the type's order:
 *
 *	form					SQL type			batch value(s)				file
 *	NUMERIC					numeric(<=18, s)	v * 10^s, NaN largest		form_numeric.c
 *	NUMERIC_FIT				numeric, any		v * 10^s where it fits		form_numeric.c
 *	NUMERIC_WIDE_HI / _LO	numeric(19..38, s)	128-bit v * 10^s, 2 halves	form_numeric_wide.c
 *	SHORT_CHAR				char(n), <= 7 bytes	bytes and length packed		form_short_char.c
 *	DATE_TIMESTAMPTZ		date				its midnight as timestamptz	form_date.c
 *	TEXT_DICT				text, varchar,		its number in a dictionary	form_text_dict.c
 *							char(n)				of the scan (value_dict.c)
 *	UUID_DICT				uuid				the same					form_uuid.c
 *
 * The predicate compiler, the page reader, the executor's batch rows and
 * the grouped scan all read a column's form here: what to choose for a
 * column (GpuselChooseForm), how to read and encode its stored value, how
 * to decode a batch value back, how it is keyed and grouped.  Adding a form
 * is a row in column_form.c's table and one file with its encoding.
 */
#ifndef GPUSEL_COLUMN_FORM_H
#define GPUSEL_COLUMN_FORM_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/date.h"

#include "gpusel_filter.h"
#include "numeric_fast.h"
#include "numeric_form.h"

/* How a batch column holds its table column's values (the table in column_form.c). */
typedef enum GpuselColumnForm
{
	GPUSEL_FORM_PLAIN = 0,
	GPUSEL_FORM_NUMERIC,
	GPUSEL_FORM_SHORT_CHAR,
	GPUSEL_FORM_NUMERIC_FIT,
	GPUSEL_FORM_NUMERIC_WIDE_HI,
	GPUSEL_FORM_NUMERIC_WIDE_LO,
	GPUSEL_FORM_DATE_TIMESTAMPTZ,
	GPUSEL_FORM_TEXT_DICT,
	GPUSEL_FORM_UUID_DICT,
	GPUSEL_NFORMS
} GpuselColumnForm;

/*
 * The stages that choose a form by a column's type alone (GpuselChooseForm);
 * a form no stage chooses that way is chosen by its comparison compiler
 * (the 128-bit halves, a date compared with a timestamptz).
 */
#define GPUSEL_USE_QUAL		0x01	/* device quals: order matters, decoding need not */
#define GPUSEL_USE_GROUP	0x02	/* group keys and aggregate inputs: values come back */
#define GPUSEL_USE_EXPR		0x04	/* columns of expressions computed over a batch */

/* Where the page reader finds a column's stored value. */
typedef enum GpuselFormRead
{
	GPUSEL_READ_BYTES,			/* a by-value attribute whose bytes are the batch value */
	GPUSEL_READ_DATE,			/* a by-value date, encoded */
	GPUSEL_READ_VARLENA,		/* a varlena, encoded */
	GPUSEL_READ_BYREF			/* a fixed-length value passed by reference, encoded */
} GpuselFormRead;

/* How a form's batch values cross from a parallel worker to the consumer. */
typedef enum GpuselFormCross
{
	GPUSEL_CROSS_AS_IS,			/* they mean the same in every process */
	GPUSEL_CROSS_DICTIONARY		/* numbers of a process's dictionary: it crosses first */
} GpuselFormCross;

/* One form: what it takes, how it travels and comes back. */
typedef struct GpuselFormInfo
{
	GpuselColumnForm form;
	const char *name;
	int			uses;			/* GPUSEL_USE_*: the stages that choose it by type */
	/* whether a column of this type, typmod and collation takes the form; sets arg and coltype */
	bool		(*accepts) (Oid typid, int32 typmod, Oid collid, int unconstrained_scale,
							int *arg, gs_coltype *coltype);
	int			ncolumns;		/* batch columns one value fills; the first fills the rest */
	GpuselFormRead read;
	bool		scaled_numeric; /* batch values are v * 10^arg: results become numerics */
	bool		range_guarded;	/* values at or below GPUSEL_NUMERIC_UNFIT are stand-ins
								 * that a qual must not compare */
	Oid			key_typid;		/* the type whose order keys, hash and equality its batch
								 * values take (order_keys.h); InvalidOid: its own type's */
	/* a batch value as the stored value; NULL where batch values do not say it */
	Datum		(*decode) (int64 value, int arg);
	GpuselFormCross crosses;
	bool		dictionary;		/* arg is a dictionary's kind; its user opens one and
								 * names it by its slot instead (value_dict.c) */
} GpuselFormInfo;

/* What GpuselChooseForm picked for a column. */
typedef struct GpuselFormChoice
{
	GpuselColumnForm form;
	int			arg;			/* a scale or a char length */
	gs_coltype	coltype;
} GpuselFormChoice;

/* column_form.c */
extern const GpuselFormInfo *GpuselFormLookup(int form);
extern bool GpuselChooseForm(Oid typid, int32 typmod, Oid collid, int use,
							 int unconstrained_scale, GpuselFormChoice *choice);
extern bool GpuselTypeIsDeviceable(Oid typid, gs_coltype *coltype);
extern int	GpuselColumnWidth(gs_coltype type);
extern Datum GpuselFormDecode(int form, int arg, int64 value);

/* form_text_dict.c, form_uuid.c: the dictionary forms (arg: a GPUSEL_DICT_ kind) */
extern bool GpuselTextDictAccepts(Oid typid, int32 typmod, Oid collid, int *kind);
extern bool GpuselUuidDictAccepts(Oid typid, int32 typmod, Oid collid, int *kind);

/* form_short_char.c */
extern bool GpuselCollationComparesBytes(Oid collid);
extern bool GpuselShortCharLength(Oid typid, int32 typmod, Oid collid, int *length);
extern int64 GpuselShortCharPack(Datum value, int length);
extern Datum GpuselShortCharUnpack(int64 packed, int length);

/* form_date.c */
extern int64 GpuselDateMidnightTz(DateADT d);

/*
 * value_dict.c: dictionaries of values compared by their bytes, of a kind:
 * varlenas, varlenas whose trailing spaces do not count, or values of a
 * fixed length (> 0) passed by reference
 */
#define GPUSEL_DICT_VARLENA			0
#define GPUSEL_DICT_BLANK_PADDED	(-1)

/* where a dictionary's stream has got to */
typedef struct GpuselValueDictCursor
{
	int64		entry;
	Size		offset;			/* bytes of that entry written */
} GpuselValueDictCursor;

/* Another process's dictionary, read: its numbers here, by its own */
typedef struct GpuselValueDictReader
{
	StringInfoData pending;		/* a value not yet complete */
	int64	   *numbers;
	int64		nnumbers;
	int64		cap;
} GpuselValueDictReader;

extern int	GpuselValueDictOpen(MemoryContext parent, int kind);
extern void GpuselValueDictReset(int slot);
extern int64 GpuselValueDictCount(int slot);
extern int	GpuselValueDictKind(int slot);
extern bool GpuselValueDictPreset(int slot, const char *stream, Size bytes, int64 nvalues);
extern int64 GpuselValueDictEncode(int slot, Datum value);
extern Datum GpuselValueDictDecode(int64 number, int slot);
extern Size GpuselValueDictWrite(int slot, GpuselValueDictCursor *cursor, char *buf, Size room);
extern bool GpuselValueDictWritten(int slot, const GpuselValueDictCursor *cursor);
extern void GpuselValueDictReaderReset(GpuselValueDictReader *reader, MemoryContext cxt);
extern void GpuselValueDictRead(GpuselValueDictReader *reader, MemoryContext cxt, int slot,
							   const char *data, Size len);

/*
 * A stored value of a column of a non-plain form as its int8 batch value.
 * A switch here rather than a call through the table: it runs once per row
 * and such column.
 */
static inline int64
GpuselFormEncode(int form, int arg, Datum value)
{
	if (form == GPUSEL_FORM_NUMERIC)
		return GpuselNumericToScaledInline(value, arg);
	if (form == GPUSEL_FORM_NUMERIC_FIT)
		return GpuselNumericToScaledFit(value, arg);
	if (form == GPUSEL_FORM_DATE_TIMESTAMPTZ)
		return GpuselDateMidnightTz(DatumGetDateADT(value));
	if (form == GPUSEL_FORM_TEXT_DICT || form == GPUSEL_FORM_UUID_DICT)
		return GpuselValueDictEncode(arg, value);
	/* a 128-bit numeric's halves are stored together (GpuselStoreEncoded) */
	if (unlikely(form != GPUSEL_FORM_SHORT_CHAR))
		elog(ERROR, "gpusel cannot encode a column of form %d by itself", form);
	return GpuselShortCharPack(value, arg);
}

/*
 * Stores a stored value of a column of a non-plain form as row 'row' of
 * batch column c (inline: once per row and such column).  A 128-bit
 * numeric is read once: its high half's column fills its low half's,
 * column c + 1, too.
 */
static inline void
GpuselStoreEncoded(void *const *values, int c, int64 row, int form, int arg, Datum value)
{
	if (form == GPUSEL_FORM_NUMERIC_WIDE_HI)
		GpuselNumericToWideHalves(value, arg, &((int64 *) values[c])[row],
								  &((int64 *) values[c + 1])[row]);
	else if (form != GPUSEL_FORM_NUMERIC_WIDE_LO)
		((int64 *) values[c])[row] = GpuselFormEncode(form, arg, value);
}

/* Writes one non-NULL value into a column's staging array (inline: once per row and column). */
static inline void
GpuselStoreValue(void *values, int64 row, gs_coltype type, Datum value)
{
	switch (type)
	{
		case GS_COL_BOOL:
			((uint8 *) values)[row] = DatumGetBool(value) ? 1 : 0;
			break;
		case GS_COL_INT2:
			((int16 *) values)[row] = DatumGetInt16(value);
			break;
		case GS_COL_INT4:
			((int32 *) values)[row] = DatumGetInt32(value);
			break;
		case GS_COL_INT8:
			((int64 *) values)[row] = DatumGetInt64(value);
			break;
		case GS_COL_FLOAT4:
			((float4 *) values)[row] = DatumGetFloat4(value);
			break;
		case GS_COL_FLOAT8:
			((float8 *) values)[row] = DatumGetFloat8(value);
			break;
	}
}

/* Reads one non-NULL value back from a column's staging array. */
static inline Datum
GpuselLoadValue(const void *values, int64 row, gs_coltype type)
{
	switch (type)
	{
		case GS_COL_BOOL:
			return BoolGetDatum(((const uint8 *) values)[row] != 0);
		case GS_COL_INT2:
			return Int16GetDatum(((const int16 *) values)[row]);
		case GS_COL_INT4:
			return Int32GetDatum(((const int32 *) values)[row]);
		case GS_COL_INT8:
			return Int64GetDatum(((const int64 *) values)[row]);
		case GS_COL_FLOAT4:
			return Float4GetDatum(((const float4 *) values)[row]);
		case GS_COL_FLOAT8:
			return Float8GetDatum(((const float8 *) values)[row]);
	}
	return (Datum) 0;
}

#endif							/* GPUSEL_COLUMN_FORM_H */
