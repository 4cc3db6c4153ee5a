#!/usr/bin/env bash
# The REST API under load: requests/s and p50/p99 latency of GET of one ConfigMap and of
# CREATE (POST with generateName) at 1 and 64 concurrent clients (one connection each),
# over HTTP/1.1 and HTTP/2 (TLS, ALPN, bearer token: the path a real client takes), on the
# embedded store and on a real etcd. The load comes from h2load (nghttp2-client; --h1 for
# HTTP/1.1); latencies are read from its per-request log. A fresh kw serve per store and run.
#
#   tests/bench/api_bench.sh KW_BIN OUT_DIR [RUNS]
# Writes OUT_DIR/api.<run>.txt with lines
#   RESULT api.<embedded|etcd>.<h1|h2>.<get|create>.c<N>.<rps|p50_ms|p99_ms> VALUE
# (tests/bench/summarize.py reports the medians). Environment: KW_API_STORES="embedded etcd",
# KW_API_QUICK=1 (fewer requests). Every process started here is stopped on exit; every step
# is bounded by `timeout` and every load run by a request count.
set -euo pipefail
kw_bin=${1:?usage: api_bench.sh KW_BIN OUT_DIR [RUNS]}
out=${2:?usage: api_bench.sh KW_BIN OUT_DIR [RUNS]}
runs=${3:-3}
python=/usr/bin/python3
token=kw-api-bench-token
mkdir -p "$out"
command -v h2load >/dev/null || { echo "api_bench.sh: h2load is missing (apt-get install nghttp2-client)" >&2; exit 1; }

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

work=$(mktemp -d "${TMPDIR:-/tmp}/kw-api-bench-XXXXXX")
tmp_dirs+=("$work")
echo "$token,bench,bench-uid,system:masters" >"$work/tokens.csv"
printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"bench-","labels":{"app":"bench"}},"data":{"k":"%s"}}' \
  "$(head -c 1024 /dev/zero | tr '\0' v)" >"$work/create.json"
sed 's/"generateName":"bench-"/"name":"bench-get"/' "$work/create.json" >"$work/get-object.json"

etcd_endpoint=""
start_etcd() {
  local dir client peer
  dir=$(mktemp -d "${TMPDIR:-/tmp}/kw-api-bench-etcd-XXXXXX")
  tmp_dirs+=("$dir")
  client=$(free_port)
  peer=$(free_port)
  etcd --name apibench --data-dir "$dir/data" \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "apibench=http://127.0.0.1:$peer" >"$dir/etcd.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 100); do
    if ETCDCTL_API=3 timeout 5 etcdctl --endpoints "127.0.0.1:$client" endpoint health >/dev/null 2>&1; then
      etcd_endpoint="http://127.0.0.1:$client"
      return 0
    fi
    sleep 0.1
  done
  echo "api_bench.sh: etcd did not start; its log:" >&2
  cat "$dir/etcd.log" >&2
  exit 1
}

serve_pid=""
serve_url=""
# start_serve STORE RUN: a fresh kw serve on a free TLS port, with the object GET reads.
start_serve() {
  local store=$1 run=$2 data port ready=0 store_args=() log="$out/api-serve.$store.$run.log"
  data=$(mktemp -d "${TMPDIR:-/tmp}/kw-api-bench-serve-XXXXXX")
  tmp_dirs+=("$data")
  port=$(free_port)
  [[ $store == etcd ]] && store_args=(--etcd "$etcd_endpoint" --etcd-prefix "/api-bench-$run-$RANDOM$RANDOM")
  "$kw_bin" serve --data-dir "$data" --secure-port "$port" --insecure-port 0 \
    --token-auth-file "$work/tokens.csv" "${store_args[@]}" >>"$log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
  serve_url="https://127.0.0.1:$port"
  for _ in $(seq 300); do
    if curl -kfsS -m 1 -H "Authorization: Bearer $token" "$serve_url/readyz" >/dev/null 2>&1; then ready=1; break; fi
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ((!ready)); then
    echo "api_bench.sh: kw serve did not become ready; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  timeout 20 curl -kfsS -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data-binary @"$work/get-object.json" "$serve_url/api/v1/namespaces/default/configmaps"
}

# load STORE TRANSPORT VERB CLIENTS REQUESTS: one h2load run, its RESULT lines on stdout.
load() {
  local store=$1 transport=$2 verb=$3 clients=$4 requests=$5 args=() name summary
  name="api.$store.$transport.$verb.c$clients"
  [[ $transport == h1 ]] && args+=(--h1)
  local path=/api/v1/namespaces/default/configmaps
  if [[ $verb == create ]]; then
    args+=(-d "$work/create.json" -H 'content-type: application/json')
  else
    path=$path/bench-get
  fi
  rm -f "$work/requests.log"
  summary=$(timeout 300 h2load -n "$requests" -c "$clients" -m 1 -t 1 -H "authorization: Bearer $token" \
    -H 'accept: application/json' "${args[@]}" --log-file="$work/requests.log" "$serve_url$path" 2>&1) || {
    echo "api_bench.sh: h2load failed for $name:" >&2
    echo "$summary" >&2
    return 0
  }
  printf '%s\n' "$summary" >"$work/summary.txt"
  "$python" - "$name" "$work/requests.log" "$requests" "$work/summary.txt" <<'EOF'
import sys
name, log, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
summary = open(sys.argv[4]).read()
rps = None
for line in summary.splitlines():
    if line.startswith("finished in"):
        rps = float(line.split(",")[1].split()[0])
latencies, bad = [], {}
with open(log) as f:
    for row in f:
        cols = row.split("\t")
        if len(cols) < 3:
            continue
        status = int(cols[1])
        if 200 <= status < 300:
            latencies.append(int(cols[2]) / 1000.0)
        else:
            bad[status] = bad.get(status, 0) + 1
if not latencies or rps is None:
    print(f"api_bench.sh: {name}: no successful requests; h2load said:\n{summary}", file=sys.stderr)
    sys.exit(0)
latencies.sort()
def pct(p):
    return latencies[min(len(latencies) - 1, int(p / 100.0 * len(latencies)))]
if bad or len(latencies) < wanted:
    seen = ", ".join(f"{count} x {'failed' if status < 0 else status}" for status, count in sorted(bad.items()))
    print(f"# {name}: {len(latencies)} of {wanted} succeeded ({seen or 'the rest not sent'})", file=sys.stderr)
print(f"RESULT {name}.rps {rps:.1f}")
print(f"RESULT {name}.p50_ms {pct(50):.3f}")
print(f"RESULT {name}.p99_ms {pct(99):.3f}")
EOF
}

if [[ ${KW_API_QUICK:-0} == 1 ]]; then
  get_n=(300 3000); create_n=(100 1000)
else
  get_n=(2000 20000); create_n=(500 5000)
fi
clients=(1 64)
for store in ${KW_API_STORES:-embedded etcd}; do
  [[ $store == etcd && -z $etcd_endpoint ]] && start_etcd
  for run in $(seq "$runs"); do
    echo "== API on $store, run $run/$runs"
    start_serve "$store" "$run"
    for transport in h1 h2; do
      for i in 0 1; do
        load "$store" "$transport" get "${clients[$i]}" "${get_n[$i]}" | tee -a "$out/api.$run.txt"
        load "$store" "$transport" create "${clients[$i]}" "${create_n[$i]}" | tee -a "$out/api.$run.txt"
      done
    done
    stop_pid "$serve_pid"
  done
done
