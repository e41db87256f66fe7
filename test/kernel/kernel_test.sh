#!/bin/sh
# kernel_test.sh NAME [ARGS] -- builds test/kernel/bin/NAME if needed (make
# decides) and runs it with ARGS.  Without a GPU the test prints "SKIP: no
# GPU (<reason>)" and exits 0; without a CUDA compiler and no built binary,
# so does this.  The run_*.sh scripts that run_all.sh finds call it.
here=$(cd "$(dirname "$0")" && pwd)
name=$1
shift
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

if [ -x "$nvcc" ] || command -v nvcc >/dev/null 2>&1; then
    [ -x "$nvcc" ] || nvcc=nvcc
    make -s -C "$here" NVCC="$nvcc" "bin/$name" || exit 1
elif [ ! -x "$here/bin/$name" ]; then
    echo "SKIP: no GPU (no CUDA compiler to build $name)"
    exit 0
fi
exec "$here/bin/$name" "$@"
