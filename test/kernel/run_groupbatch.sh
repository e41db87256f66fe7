#!/bin/sh
# run_groupbatch.sh -- builds the batch grouping's kernel test if needed
# (make decides) and runs it.  Without a GPU, groupbatch_test prints
# "SKIP: no GPU (<reason>)" and exits 0; without a CUDA compiler and no
# built binary, so does this.  Arguments go to groupbatch_test (--quick,
# --max-rows N, --seed N, --verbose).
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

if [ -x "$nvcc" ] || command -v nvcc >/dev/null 2>&1; then
    [ -x "$nvcc" ] || nvcc=nvcc
    make -s -C "$here" NVCC="$nvcc" bin/groupbatch_test || exit 1
elif [ ! -x "$here/bin/groupbatch_test" ]; then
    echo "SKIP: no GPU (no CUDA compiler to build groupbatch_test)"
    exit 0
fi
exec "$here/bin/groupbatch_test" "$@"
