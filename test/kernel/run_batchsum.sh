#!/bin/sh
# Runs the batch sums' kernel test (arguments: --quick, --seed N, --verbose);
# kernel_test.sh builds it and says SKIP without a GPU.
exec "$(dirname "$0")/kernel_test.sh" batchsum_test "$@"
