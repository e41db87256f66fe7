#!/bin/sh
# Runs the batch grouping's kernel test (arguments: --quick, --max-rows N,
# --seed N, --verbose); kernel_test.sh builds it and says SKIP without a GPU.
exec "$(dirname "$0")/kernel_test.sh" groupbatch_test "$@"
