#!/usr/bin/env bash
# The simulated cluster (tests/bench/cluster_load.cpp) against a fresh `kw serve` per run on
# the embedded store, over TLS with the admin kubeconfig the server writes. Each run's JSON goes
# to OUT_DIR/cluster.<run>.json, its table to OUT_DIR/cluster.<run>.table (summarize.py reads
# the JSON).
#
#   tests/bench/cluster_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]
# Environment (defaults; KW_CLUSTER_QUICK=1 for a smoke run: 200 nodes, 10 pods per node,
# 50 pods/s, 20 s): KW_CLUSTER_NODES=5000, KW_CLUSTER_PODS_PER_NODE=30, KW_CLUSTER_CHURN=100,
# KW_CLUSTER_CONTROLLERS=10, KW_CLUSTER_SECONDS=60, KW_CLUSTER_PREFILL=0 (1: create the steady
# state's pods, scheduled, before measuring; set-up may then take up to 30 min).
# Every process started here is stopped on exit; every step is bounded by `timeout`.
set -euo pipefail
kw_bin=${1:?usage: cluster_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]}
bench_bin=${2:?usage: cluster_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]}
out=${3:?usage: cluster_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]}
runs=${4:-1}
python=/usr/bin/python3
mkdir -p "$out"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # one connection per simulated node

if [[ ${KW_CLUSTER_QUICK:-0} == 1 ]]; then
  nodes=200; pods_per_node=10; churn=50; seconds=20
else
  nodes=${KW_CLUSTER_NODES:-5000}; pods_per_node=${KW_CLUSTER_PODS_PER_NODE:-30}
  churn=${KW_CLUSTER_CHURN:-100}; seconds=${KW_CLUSTER_SECONDS:-60}
fi
controllers=${KW_CLUSTER_CONTROLLERS:-10}
prefill=${KW_CLUSTER_PREFILL:-0}
[[ $prefill == 0 || $prefill == 1 ]] || { echo "cluster_run.sh: KW_CLUSTER_PREFILL must be 0 or 1" >&2; exit 2; }
setup_timeout=$((prefill ? 1800 : 600))

pids=()
tmp_dirs=()
stop_pid() {
  kill -0 "$1" 2>/dev/null || return 0
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  local pid dir
  for pid in "${pids[@]}"; do stop_pid "$pid"; done
  for dir in "${tmp_dirs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

for run in $(seq "$runs"); do
  data=$(mktemp -d "${TMPDIR:-/tmp}/kw-bench-cluster-XXXXXX")
  tmp_dirs+=("$data")
  port=$(free_port)
  log="$out/cluster-serve.$run.log"
  "$kw_bin" serve --data-dir "$data" --secure-port "$port" --insecure-port 0 >"$log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
  ready=0
  for _ in $(seq 300); do
    if [[ -s $data/admin.kubeconfig ]] && curl -fsS -m 1 --cacert "$data/pki/ca.crt" --cert "$data/pki/admin.crt" \
      --key "$data/pki/admin.key" "https://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
      ready=1
      break
    fi
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ((!ready)); then
    echo "cluster_run.sh: kw serve did not become ready; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  echo "== cluster load run $run/$runs: $nodes nodes, $pods_per_node pods/node, $churn pods/s, $controllers controllers, ${seconds} s"
  timeout $((setup_timeout + seconds + 120)) "$bench_bin" --kubeconfig "$data/admin.kubeconfig" --pid "$serve_pid" \
    --nodes "$nodes" --pods-per-node "$pods_per_node" --churn "$churn" --controllers "$controllers" \
    --duration "$seconds" --setup-timeout "$setup_timeout" --prefill "$prefill" >"$out/cluster.$run.json" 2>"$out/cluster.$run.table" || {
    echo "cluster_run.sh: cluster_load failed:" >&2
    cat "$out/cluster.$run.table" >&2
    exit 1
  }
  cat "$out/cluster.$run.table"
  stop_pid "$serve_pid"
  rm -rf "$data"
done
