#!/bin/sh
# Builds and runs every CPU unit test here (*_test.c: the code under test
# included whole) against the server's headers (pg_config), outside the
# server.  Arguments go to each test (the number of cases).
set -e
cd "$(dirname "$0")"
PG_CONFIG=${PG_CONFIG:-pg_config}
inc=$("$PG_CONFIG" --includedir-server 2>/dev/null || true)
if ! command -v "${CC:-cc}" >/dev/null 2>&1 || [ ! -f "$inc/postgres.h" ]; then
	# the GPU machine's bundle has a server and no compiler or headers: the CPU machine runs them
	echo "SKIP: no C compiler or server headers to build the unit tests with"
	exit 0
fi
mkdir -p bin
status=0
for src in *_test.c; do
	name=${src%.c}
	${CC:-cc} -O2 -I"$inc" -o "bin/$name" "$src"
	"./bin/$name" "$@" || status=1
done
exit $status
