#!/bin/sh
# Runs the kernel test of the sums per group key (arguments: --seed N,
# --verbose); kernel_test.sh builds it and says SKIP without a GPU.
exec "$(dirname "$0")/kernel_test.sh" groupsum_test "$@"
