#!/usr/bin/env bash
# Watch fan-out scenarios through `kw serve`: a fresh server per scenario (so its RSS growth
# is the watchers'), on the embedded store and on a real etcd; N watchers over h2c (many
# streams per connection) and HTTP/1.1 (one connection each), W writes/s of 1 KiB ConfigMaps
# for a fixed time; then one LIST of 10,000 ConfigMaps from the cache. Raw RESULT lines go to
# OUT_DIR/fanout.<run>.txt (tests/bench/summarize.py reads them).
#
#   tests/bench/fanout_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]
# Environment: KW_FANOUT_QUICK=1 (one small scenario), KW_FANOUT_STORES="embedded etcd",
# KW_FANOUT_TRANSPORTS="h2c h1", KW_FANOUT_ENCODINGS="json" (or "json protobuf"),
# KW_FANOUT_WATCHERS="1000 10000", KW_FANOUT_RATES="10 100", KW_FANOUT_SECONDS=10,
# KW_FANOUT_LIST=10000 (0 = no LIST scenario).
# Every process started here is stopped on exit; every step is bounded by `timeout`.
set -euo pipefail
kw_bin=${1:?usage: fanout_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]}
bench_bin=${2:?usage: fanout_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]}
out=${3:?usage: fanout_run.sh KW_BIN BENCH_BIN OUT_DIR [RUNS]}
runs=${4:-3}
python=/usr/bin/python3
mkdir -p "$out"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # one descriptor per HTTP/1.1 watcher

pids=()
tmp_dirs=()
cleanup() {
  local pid dir
  for pid in "${pids[@]}"; do stop_pid "$pid"; done
  for dir in "${tmp_dirs[@]}"; do rm -rf "$dir"; done
}
stop_pid() {
  kill -0 "$1" 2>/dev/null || return 0
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

etcd_endpoint=""
start_etcd() {
  local dir client peer
  dir=$(mktemp -d "${TMPDIR:-/tmp}/kw-bench-etcd-XXXXXX")
  tmp_dirs+=("$dir")
  client=$(free_port)
  peer=$(free_port)
  etcd --name bench --data-dir "$dir/data" \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "bench=http://127.0.0.1:$peer" >"$dir/etcd.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 100); do
    if ETCDCTL_API=3 etcdctl --endpoints "127.0.0.1:$client" endpoint health >/dev/null 2>&1; then
      etcd_endpoint="http://127.0.0.1:$client"
      return 0
    fi
    sleep 0.1
  done
  echo "fanout_run.sh: etcd did not start; its log:" >&2
  cat "$dir/etcd.log" >&2
  exit 1
}

# run_scenario STORE RUN ARGS...: one fresh kw serve (STORE = embedded | etcd), one bench run.
run_scenario() {
  local store=$1 run=$2
  shift 2
  local data port serve_pid ready=0 store_args=() log="$out/serve.$store.$run.log"
  data=$(mktemp -d "${TMPDIR:-/tmp}/kw-bench-serve-XXXXXX")
  tmp_dirs+=("$data")
  port=$(free_port)
  [[ $store == etcd ]] && store_args=(--etcd "$etcd_endpoint" --etcd-prefix "/bench-$run-$RANDOM$RANDOM")
  "$kw_bin" serve --data-dir "$data" --insecure-port "$port" --secure-port 0 "${store_args[@]}" >>"$log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
  for _ in $(seq 300); do
    if curl -fsS -m 1 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then ready=1; break; fi
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ((!ready)); then
    echo "fanout_run.sh: kw serve did not become ready; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  echo "-- $store run $run: $*"
  timeout 300 "$bench_bin" --server="127.0.0.1:$port" --server-pid="$serve_pid" "$@" \
    | sed -u "s/^RESULT fanout\./RESULT fanout.$store./" | tee -a "$out/fanout.$run.txt" || true
  stop_pid "$serve_pid"
  rm -rf "$data"
}

if [[ ${KW_FANOUT_QUICK:-0} == 1 ]]; then
  watchers=(1000); rates=(10); seconds=5; list_objects=2000
else
  watchers=(${KW_FANOUT_WATCHERS:-1000 10000}); rates=(${KW_FANOUT_RATES:-10 100})
  seconds=${KW_FANOUT_SECONDS:-10}; list_objects=${KW_FANOUT_LIST:-10000}
fi
for store in ${KW_FANOUT_STORES:-embedded etcd}; do
  [[ $store == etcd && -z $etcd_endpoint ]] && start_etcd
  for run in $(seq "$runs"); do
    echo "== watch fan-out on $store, run $run/$runs"
    for transport in ${KW_FANOUT_TRANSPORTS:-h2c h1}; do
      for encoding in ${KW_FANOUT_ENCODINGS:-json}; do
        for n in "${watchers[@]}"; do
          for w in "${rates[@]}"; do
            run_scenario "$store" "$run" --transport="$transport" --encoding="$encoding" --watchers="$n" \
              --rate="$w" --duration="$seconds"
          done
        done
      done
    done
    if ((list_objects > 0)); then run_scenario "$store" "$run" --watchers=0 --list-objects="$list_objects"; fi
  done
done
