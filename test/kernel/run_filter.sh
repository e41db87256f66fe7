#!/bin/sh
# run_filter.sh -- builds the device filter's test if needed (make decides)
# and runs it.  Without a GPU, filter_test prints "SKIP: no GPU (<reason>)"
# and exits 0; without a CUDA compiler and no built binary, so does this.
# Arguments go to filter_test (--big, --seed N, --quiet).
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

if [ -x "$nvcc" ] || command -v nvcc >/dev/null 2>&1; then
    [ -x "$nvcc" ] || nvcc=nvcc
    make -s -f "$here/Makefile.filter" NVCC="$nvcc" "$here/bin/filter_test" || exit 1
elif [ ! -x "$here/bin/filter_test" ]; then
    echo "SKIP: no GPU (no CUDA compiler to build filter_test)"
    exit 0
fi
exec "$here/bin/filter_test" "$@"
