#!/bin/sh
# Runs the grouped sort's kernel test (arguments: --quick, --max-n N,
# --seed N, --verbose); kernel_test.sh builds it and says SKIP without a GPU.
exec "$(dirname "$0")/kernel_test.sh" groupsort_test "$@"
