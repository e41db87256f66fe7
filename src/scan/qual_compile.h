/*
 * qual_compile.h
 *	  Which WHERE clauses the device can evaluate, and their translation into
 *	  a gs_program (cuda/gpusel_filter.h).
 *
 * The planner asks GpuselQualIsDeviceable clause by clause; the executor
 * compiles the chosen clauses once per scan with GpuselCompileQuals.  Both
 * run the same walker, so a clause the planner accepted always compiles.
 */
#ifndef GPUSEL_QUAL_COMPILE_H
#define GPUSEL_QUAL_COMPILE_H

#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "utils/date.h"

#include "gpusel_filter.h"
#include "numeric_stored.h"
#include "qual_numeric.h"
#include "qual_program.h"

/* filter_sql.c: the OID of gpu_filter(bool), InvalidOid without the extension */
extern Oid	GpuselFilterFuncOid(void);

extern bool GpuselTypeIsDeviceable(Oid typid, gs_coltype *coltype);
extern bool GpuselQualIsDeviceable(Expr *clause, Index relid);
extern bool GpuselExprHasMarker(Node *node);
extern Expr *GpuselStripMarker(Expr *clause);
extern GpuselProgram *GpuselCompileQuals(List *quals, Index relid);
extern bool GpuselProgramCanError(const GpuselProgram *prog);
extern void GpuselDatumToConst(Datum value, bool isnull, Oid typid,
							   gs_const *out);
extern int	GpuselColumnWidth(gs_coltype type);

/* columns whose batch values do not decode back to their values */
extern bool GpuselProgramHasUndecodableColumns(const GpuselProgram *prog);
extern bool GpuselQualsReadUndecodableColumns(List *quals, Index relid);

/* column_form.c */
extern bool GpuselCollationComparesBytes(Oid collid);
extern bool GpuselShortCharLength(Oid typid, int32 typmod, Oid collid, int *length);
extern int64 GpuselShortCharPack(Datum value, int length);
extern Datum GpuselFormDecode(int form, int arg, int64 value);

/* qual_datetime.c */
extern bool GpuselDateTimestampBound(Oid funcid, List *args, int *date_arg,
									 int *opcode, int32 *bound);
extern bool GpuselDateTimestampOp(Oid funcid, int *date_arg, int *opcode);
extern bool GpuselTimestampDateBound(Oid funcid, List *args, int *ts_arg, int *opcode,
									 int64 *bound);
extern bool GpuselDateTimestamptzOp(Oid funcid, int *date_arg, int *opcode);
extern int64 GpuselDateMidnightTz(DateADT d);

/*
 * GpuselNumericToScaled for the form most stored values have, inline in
 * the readers' loops: a short varlena holding a short-header numeric of
 * one to four digit groups, whose last group has at most three decimals
 * past the column's scale.  Anything else (NaN, a long header, more
 * digits, a value the typmod should not allow) takes the function itself.
 */
static inline int64
GpuselNumericToScaledInline(Datum value, int scale)
{
	static const uint64 scale_up[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
	100000000};
	const struct varlena *v = (const struct varlena *) DatumGetPointer(value);
	const char *data;
	uint16		header;
	int			ndigits;
	int			weight;
	int			shift;
	uint64		acc = 0;
	uint32		last;

	if (!VARATT_IS_SHORT(v))
		return GpuselNumericToScaled(value, scale);
	data = VARDATA_SHORT(v);
	ndigits = (int) (VARSIZE_SHORT(v) - VARHDRSZ_SHORT - sizeof(uint16)) / (int) sizeof(int16);
	memcpy(&header, data, sizeof(uint16));
	if ((header & NUMERIC_STORED_SIGN_MASK) != NUMERIC_STORED_SHORT || ndigits < 1 || ndigits > 4)
		return GpuselNumericToScaled(value, scale);
	weight = header & NUMERIC_STORED_SHORT_WEIGHT;
	if (header & NUMERIC_STORED_SHORT_WEIGHT_NEG)
		weight |= ~NUMERIC_STORED_SHORT_WEIGHT;
	shift = scale - NUMERIC_STORED_BASE_DECIMALS * (ndigits - 1 - weight);
	if (shift < -3 || shift > 8)
		return GpuselNumericToScaled(value, scale);
	for (int i = 0; i < ndigits - 1; i++)
	{
		int16		d;

		memcpy(&d, data + sizeof(uint16) + i * sizeof(int16), sizeof(int16));
		acc = acc * NUMERIC_STORED_BASE + (uint64) d;	/* below 10^12: no overflow */
	}
	{
		int16		d;

		memcpy(&d, data + sizeof(uint16) + (ndigits - 1) * sizeof(int16), sizeof(int16));
		last = (uint32) d;
	}
	switch (shift)
	{
		case -1:
			if (last % 10 != 0)
				return GpuselNumericToScaled(value, scale);
			acc = acc * 1000 + last / 10;
			break;
		case -2:
			if (last % 100 != 0)
				return GpuselNumericToScaled(value, scale);
			acc = acc * 100 + last / 100;
			break;
		case -3:
			if (last % 1000 != 0)
				return GpuselNumericToScaled(value, scale);
			acc = acc * 10 + last / 1000;
			break;
		default:
			if (__builtin_mul_overflow(acc * NUMERIC_STORED_BASE + last, scale_up[shift], &acc))
				return GpuselNumericToScaled(value, scale);
			break;
	}
	if (acc >= UINT64CONST(1000000000000000000))
		return GpuselNumericToScaled(value, scale);
	return (header & NUMERIC_STORED_SHORT_SIGN) ? -(int64) acc : (int64) acc;
}

/*
 * A stored value of a column of a non-plain form as its int8 batch value
 * (inline: once per row and such column).
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

#endif							/* GPUSEL_QUAL_COMPILE_H */
