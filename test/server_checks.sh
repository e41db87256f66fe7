# Sourced by the shell tests that run against a server that preloads gpusel
# (service_test.sh, cache_device_test.sh): their checks' verdicts and
# queries.  The caller sets db; failures counts the checks that failed.
failures=0

# A check that held, and one that did not (counted).
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# One statement's result, unaligned, in the test's database.
q() { psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }

# Waits up to $1 seconds (default 10) for the GPU service to be up.
wait_up() {
  for _ in $(seq 1 $((${1:-10} * 10))); do
    [ "$(q "SELECT state FROM gpusel_service")" = up ] && return 0
    sleep 0.1
  done
  return 1
}
