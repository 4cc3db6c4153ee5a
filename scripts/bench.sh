#!/usr/bin/env bash
# Builds the benchmarks (build-bench, Release, KW_BENCH=ON) and kw, runs each benchmark K
# times with its baselines in the same invocation, and prints a summary of medians and
# ratios, also written to build-bench/bench-results.md.
#
#   scripts/bench.sh [-k K] [--quick] [--only codec,storage,fanout,client,api,webhook,audit,cluster]
#     -k K      runs per benchmark (default 3); the summary reports the median
#     --quick   smaller counts (for a smoke run): fewer ops, events and watchers
#     --only    a comma-separated subset of codec, storage, fanout, client, api, webhook, audit,
#               cluster
#               (cluster runs only when named: a simulated cluster of 5,000 kubelets, 10
#               controllers and 100 pods/s of churn against kw serve, one run of about 3 min)
# Every step is bounded by `timeout`; every process started here is stopped on exit.
# KW_BIN=/path/to/kw uses that binary for the fan-out, client and API runs instead of building
# build-bench's kw. API matrix override: KW_API_STORES="embedded etcd". KW_API_KUBE_APISERVER=PATH
# also measures that kube-apiserver (a test peer built outside the repository) on the same etcd.
# Fan-out matrix overrides: KW_FANOUT_STORES="embedded etcd", KW_FANOUT_TRANSPORTS="h2c h1",
# KW_FANOUT_WATCHERS="1000 10000", KW_FANOUT_RATES="10 100", KW_FANOUT_SECONDS=10.
# Cluster load (tests/bench/cluster_run.sh): KW_CLUSTER_NODES=5000, KW_CLUSTER_PODS_PER_NODE=30,
# KW_CLUSTER_CHURN=100, KW_CLUSTER_CONTROLLERS=10, KW_CLUSTER_SECONDS=60, KW_CLUSTER_PREFILL=0.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=3
quick=0
only=codec,storage,fanout,client,api,webhook,audit
while (($#)); do
  case $1 in
    -k|--runs) runs=${2:?-k needs a count}; shift 2 ;;
    --quick) quick=1; shift ;;
    --only) only=${2:?--only needs a list}; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]?$ ]] || { echo "bench.sh: -k must be 1..99" >&2; exit 2; }
wants() { [[ ,$only, == *,$1,* ]]; }

build=$root/build-bench
out=$build/bench-out
python=/usr/bin/python3
jobs=${KW_JOBS:-$(nproc)}

# Processes and directories this script owns; all released on exit.
pids=()
tmp_dirs=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  local dir
  for dir in "${tmp_dirs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # one descriptor per HTTP/1.1 watcher

bash scripts/install-deps.sh
export CCACHE_DIR=${CCACHE_DIR:-$root/.cache/ccache}

# 1. Build. GCC 12 at -O3 reports a false -Wrestrict on string concatenation (GCC bug 105329),
#    which -Werror would turn into a failure in code that is correct; that one warning is off.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKW_BENCH=ON -DCMAKE_CXX_FLAGS=-Wno-restrict >/dev/null
cmake --build "$build" -j "$jobs" --target codec_bench storage_bench watch_fanout_bench rbac_bench audit_bench connect_floor \
  cluster_load
kw_bin=${KW_BIN:-$build/cli/kw}
if [[ -z ${KW_BIN:-} ]] && { wants fanout || wants client || wants api || wants webhook || wants cluster; }; then
  cmake --build "$build" -j "$jobs" --target kw
fi
rm -rf "$out"
mkdir -p "$out"
echo "runs=$runs quick=$quick kw=$kw_bin" >"$out/settings"

if ((quick)); then
  storage_args=(--ops=500 --seconds=2 --watch-events=500 --etcdctl-puts=50)
  protoc_calls=10
else
  storage_args=(--ops=2000 --seconds=3 --watch-events=2000 --etcdctl-puts=200)
  protoc_calls=40
fi

# 2. Codecs: Google Benchmark (K repetitions, medians), then the out-of-process baselines
#    on the same bytes: Python's json module and protoc --decode (process start included).
if wants codec; then
  echo "== codec_bench ($runs runs)"
  "$build/tests/bench/codec_bench" --write-samples="$out"
  timeout 600 "$build/tests/bench/codec_bench" --benchmark_repetitions="$runs" \
    --benchmark_min_time=0.2 --benchmark_format=json --benchmark_out="$out/codec.json" \
    --benchmark_out_format=json >/dev/null
  for run in $(seq "$runs"); do
    timeout 120 "$python" -c '
import json, sys, time
text = open(sys.argv[1], "rb").read().decode()
obj = json.loads(text)
def per_op(fn, seconds=0.5, limit=200000):  # CPU time per call, like the C++ side
    n, start = 0, time.process_time()
    while n < limit and time.process_time() - start < seconds:
        for _ in range(100): fn()
        n += 100
    return (time.process_time() - start) / n * 1e9
print("RESULT python.json_loads", per_op(lambda: json.loads(text)), "ns/op")
print("RESULT python.json_dumps", per_op(lambda: json.dumps(obj, separators=(",", ":"))), "ns/op")
' "$out/pod.json" >>"$out/codec-baseline.txt"
    start=$(date +%s%N)
    for _ in $(seq "$protoc_calls"); do
      timeout 20 protoc --decode=k8s.io.api.core.v1.Pod -I core/proto k8s.io/api/core/v1/generated.proto \
        <"$out/pod.pb" >/dev/null
    done
    end=$(date +%s%N)
    echo "RESULT protoc.decode $(( (end - start) / protoc_calls )) ns/op" >>"$out/codec-baseline.txt"
  done
fi

# 3. Storage backends: SQLite and etcd3 (a real etcd started by the benchmark), with etcdctl
#    and a raw gRPC loop. Each kw-vs-raw round's figures go to storage.N.rounds: on a shared
#    machine one round can be far off, and the rounds show how far.
if wants storage; then
  for run in $(seq "$runs"); do
    echo "== storage_bench run $run/$runs"
    timeout 600 "$build/tests/bench/storage_bench" "${storage_args[@]}" --verbose=1 \
      2>"$out/storage.$run.rounds" | tee "$out/storage.$run.txt" || {
      cat "$out/storage.$run.rounds" >&2
      exit 1
    }
    grep -v '^round ' "$out/storage.$run.rounds" >&2 || true  # anything else it had to say
  done
fi

# 4. Watch fan-out through kw serve (tests/bench/fanout_run.sh: a fresh server per scenario,
#    embedded store and a real etcd, h2c and HTTP/1.1, N watchers x W writes/s, then a LIST).
if wants fanout; then
  KW_FANOUT_QUICK=$quick timeout 7200 bash tests/bench/fanout_run.sh "$kw_bin" "$build/tests/bench/watch_fanout_bench" \
    "$out" "$runs"
fi

# 5. Client: kw get -w against kubectl get -w on one recorded stream of pod events, replayed
#    by tests/bench/client_bench.py in front of a kw serve (which answers everything else).
if wants client; then
  events=100000
  ((quick)) && events=10000
  data=$(mktemp -d "${TMPDIR:-/tmp}/kw-bench-client-XXXXXX")
  tmp_dirs+=("$data")
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$kw_bin" serve --data-dir "$data" --insecure-port "$port" --secure-port 0 >"$out/client-serve.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 200); do curl -fsS -m 1 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  for run in $(seq "$runs"); do
    echo "== client_bench run $run/$runs"
    timeout 900 "$python" tests/bench/client_bench.py --kw "$kw_bin" --server "127.0.0.1:$port" --events "$events" \
      --floor "$build/tests/bench/connect_floor" \
      | tee "$out/client.$run.txt"
  done
  # The first state of a 100,000-pod namespace: watch-list against LIST+WATCH, same binary.
  pods=100000
  ((quick)) && pods=10000
  for run in $(seq "$runs"); do
    echo "== client_state_bench run $run/$runs"
    timeout 1800 "$python" tests/bench/client_state_bench.py --kw "$kw_bin" --server "127.0.0.1:$port" --pods "$pods" \
      | tee "$out/client-state.$run.txt"
  done
fi

# 6. The REST API under h2load (tests/bench/api_bench.sh): GET and CREATE at 1 and 64 clients,
#    HTTP/1.1 and HTTP/2 over TLS, embedded store and a real etcd, each under AlwaysAllow and
#    under RBAC (a user outside system:masters, among 1,000 ClusterRoles and 10,000 RoleBindings).
if wants api; then
  KW_API_QUICK=$quick timeout 3600 bash tests/bench/api_bench.sh "$kw_bin" "$out" "$runs"
fi

# 7. Creates through a validating webhook (tests/bench/webhook_bench.py): a webhook server that
#    keeps its connections, which kw reuses, against one that closes each after its answer.
if wants webhook; then
  requests=600
  ((quick)) && requests=100
  for run in $(seq "$runs"); do
    echo "== webhook_bench run $run/$runs"
    timeout 900 "$python" tests/bench/webhook_bench.py --kw "$kw_bin" --requests "$requests" | tee "$out/webhook.$run.txt"
  done
fi

# 8. What an audit record adds to a request (tests/bench/audit_bench.cpp), in and out of the
#    request's thread, against a policy that records nothing.
if wants audit; then
  for run in $(seq "$runs"); do
    echo "== audit_bench run $run/$runs"
    timeout 600 "$build/tests/bench/audit_bench" --dir="$out/audit-log" | tee "$out/audit.$run.txt"
  done
fi

# 9. A simulated cluster (tests/bench/cluster_run.sh): N kubelets and C controllers from one
#    process over HTTP/2 + TLS with protobuf, pod churn, against a fresh kw serve on the embedded
#    store; one run per -k (each is minutes long).
if wants cluster; then
  KW_CLUSTER_QUICK=$quick timeout 3600 bash tests/bench/cluster_run.sh "$kw_bin" "$build/tests/bench/cluster_load" \
    "$out" "$runs"
fi

# 10. Summary.
"$python" tests/bench/summarize.py "$out" >"$build/bench-results.md"
cat "$build/bench-results.md"
echo "bench.sh: results in $build/bench-results.md (raw output in $out)"
