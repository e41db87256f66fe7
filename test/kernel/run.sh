#!/bin/sh
# Builds the kernel test if needed and runs it (arguments go to select_test,
# e.g. --quick or --big).  Where there is no GPU the test itself prints
# "SKIP: no GPU (<reason>)" and exits 0; where there is not even a CUDA
# toolkit to build it with, this script says so the same way.
set -e
cd "$(dirname "$0")"

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -x "$CUDA_HOME/bin/nvcc" ] || command -v nvcc >/dev/null 2>&1; then
	make -s bin/select_test
elif [ ! -x bin/select_test ]; then
	echo "SKIP: no GPU (no CUDA toolkit to build the kernel test with)"
	exit 0
fi
exec ./bin/select_test "$@"
