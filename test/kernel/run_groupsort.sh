#!/bin/sh
# run_groupsort.sh -- builds the grouped sort's kernel test if needed (make
# decides) and runs it.  Without a GPU, groupsort_test prints
# "SKIP: no GPU (<reason>)" and exits 0; without a CUDA compiler and no
# built binary, so does this.  Arguments go to groupsort_test (--quick,
# --max-n N, --seed N, --verbose).
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

if [ -x "$nvcc" ] || command -v nvcc >/dev/null 2>&1; then
    [ -x "$nvcc" ] || nvcc=nvcc
    make -s -C "$here" NVCC="$nvcc" bin/groupsort_test || exit 1
elif [ ! -x "$here/bin/groupsort_test" ]; then
    echo "SKIP: no GPU (no CUDA compiler to build groupsort_test)"
    exit 0
fi
exec "$here/bin/groupsort_test" "$@"
