#!/bin/sh
# Builds and runs the CPU unit test of the shared splitters' table against
# the server's headers (pg_config), outside the server.
set -e
cd "$(dirname "$0")"
PG_CONFIG=${PG_CONFIG:-pg_config}
inc=$("$PG_CONFIG" --includedir-server 2>/dev/null || true)
if ! command -v "${CC:-cc}" >/dev/null 2>&1 || [ ! -f "$inc/postgres.h" ]; then
	# the GPU machine's bundle has a server and no compiler or headers: the CPU machine runs it
	echo "SKIP: no C compiler or server headers to build the unit test with"
	exit 0
fi
mkdir -p bin
${CC:-cc} -O2 -I"$inc" -o bin/narrow_buckets_test narrow_buckets_test.c
exec ./bin/narrow_buckets_test "$@"
