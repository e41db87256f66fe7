/*
 * keys.h
 *	  Order-preserving unsigned keys for the SQL types gpusel selects on
 *	  natively.  Sorting keys as unsigned integers gives PostgreSQL's default
 *	  btree order of the values, so selection never calls a comparator.
 */
#ifndef GPUSEL_KEYS_H
#define GPUSEL_KEYS_H

#include "postgres.h"

/* How one SQL type maps to and from keys. */
typedef struct KeyType
{
	Oid			typid;
	int			key_bytes;		/* 4 or 8 */
	uint64		(*to_key) (Datum value);
	Datum		(*from_key) (uint64 key);
	uint64		zero_key;		/* key of the value 0 */
	/* floats only, NULL elsewhere: tests for -0, and makes it */
	bool		(*is_negative_zero) (Datum value);
	Datum		(*negative_zero) (void);
} KeyType;

extern const KeyType *KeyTypeLookup(Oid typid);

#endif							/* GPUSEL_KEYS_H */
