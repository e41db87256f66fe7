#!/usr/bin/env bash
# Throughput of 16 concurrent clients on a cached table whose columns lie in
# device memory, with the GPU service on one GPU and then on all of them:
# restarts the server with CUDA_VISIBLE_DEVICES set each way (it must be
# allowed to: run as the server's user, with PGDATA and pg_ctl at hand),
# caches the table again after each restart, and prints each shape's
# transactions per second and the ratio.  Needs gpusel preloaded and
# gpusel.cache_memory large enough for the table.
#
#   bash test/bench/multi_gpu_bench.sh [rows] [clients] [seconds]
set -euo pipefail
rows=${1:-10000000}
clients=${2:-16}
secs=${3:-15}
ngpus=$(nvidia-smi -L | wc -l)
all=$(seq -s, 0 $((ngpus - 1)))
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION IF NOT EXISTS gpusel;
DROP TABLE IF EXISTS multi_gpu_t;
CREATE UNLOGGED TABLE multi_gpu_t AS
SELECT g AS id, (g % 101)::int AS grp, random() AS x, (random() * 1e6)::int4 AS k,
       date '2000-01-01' + (g % 9000)::int AS d
FROM generate_series(1, $rows) g;
VACUUM ANALYZE multi_gpu_t;
SQL
q1=$(mktemp); q2=$(mktemp)
echo "SELECT grp, percentile_disc(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY x) FROM multi_gpu_t WHERE d >= '2010-01-01' GROUP BY grp;" >"$q1"
echo "SELECT count(*) FROM multi_gpu_t WHERE x < 0.01 AND k > 1000;" >"$q2"
declare -A tps
for vis in 0 "$all"; do
  CUDA_VISIBLE_DEVICES=$vis pg_ctl -D "$PGDATA" restart -w -m fast >/dev/null
  for _ in $(seq 1 300); do [ "$(psql -X -At -c 'SELECT state FROM gpusel_service')" = up ] && break; sleep 0.1; done
  psql -X -q -At -c "SELECT gpusel_cache('multi_gpu_t')" >/dev/null
  echo "CUDA_VISIBLE_DEVICES=$vis: $(psql -X -At -c 'SELECT devices FROM gpusel_service') GPU(s), device copy $(psql -X -At -c "SELECT device_bytes FROM gpusel_cached_tables WHERE relation = 'multi_gpu_t'::regclass") bytes"
  for q in q1 q2; do
    file=${!q}
    tps[$vis,$q]=$(PGOPTIONS="-c gpusel.device=gpu -c max_parallel_workers_per_gather=0" \
      pgbench -n -c "$clients" -j "$clients" -T "$secs" -f "$file" 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    echo "  $q: ${tps[$vis,$q]} tps ($(cat "$file"))"
  done
done
for q in q1 q2; do
  awk -v a="${tps[0,$q]}" -v b="${tps[$all,$q]}" -v q="$q" -v n="$ngpus" \
    'BEGIN { printf "%s: %d GPUs / 1 GPU = %.2fx\n", q, n, b / a }'
done
psql -X -q -c "SELECT gpusel_uncache('multi_gpu_t')" -c "DROP TABLE multi_gpu_t" >/dev/null
rm -f "$q1" "$q2"
