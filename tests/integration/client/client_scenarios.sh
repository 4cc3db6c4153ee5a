#!/usr/bin/env bash
# Usage: client_scenarios.sh SCENARIO /path/to/kw [/path/to/client]
# Starts `kw serve` on a free port with a temp data dir and checks kw get / kw get -w
# (run by the client binary, kw itself by default).
set -euo pipefail
scenario=$1
SERVER=$2
KW=${3:-$2}
work=$(mktemp -d "${TMPDIR:-/tmp}/kw-client-XXXXXX")
watch_pid=""
KW_SERVE=$SERVER KW_SERVE_TIMEOUT=100
# shellcheck source=../support/kw_server.sh
source "$(dirname "$0")/../support/kw_server.sh"
cleanup() {
  [[ -n "$watch_pid" ]] && kill "$watch_pid" 2>/dev/null || true
  kill_server
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "$scenario: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

pod() {  # pod NAME [PHASE]
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default","labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}' "$1" "$1"
}
create() { curl -sSf -X POST -H 'Content-Type: application/json' --data "$(pod "$1")" "$url/api/v1/namespaces/default/pods" >/dev/null; }
label() {
  curl -sSf -X PATCH -H 'Content-Type: application/merge-patch+json' --data "{\"metadata\":{\"labels\":{\"step\":\"$2\"}}}" \
    "$url/api/v1/namespaces/default/pods/$1" >/dev/null
}
delete() { curl -sSf -X DELETE "$url/api/v1/namespaces/default/pods/$1" >/dev/null; }

wait_for_lines() {  # FILE PATTERN COUNT
  for _ in $(seq 100); do
    [[ $(grep -c "$2" "$1" 2>/dev/null || true) -ge $3 ]] && return 0
    sleep 0.1
  done
  echo "timed out waiting for $3 x '$2' in $1:"; cat "$1"; return 1
}

events_of() {  # FILE -> "TYPE name" lines
  /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    print(e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"].get("labels", {}).get("step", "-"))
' "$1"
}

if [[ $scenario == watch_list ]]; then
  printf '%s\n' 'apiVersion: audit.k8s.io/v1' 'kind: Policy' 'rules: [{level: Metadata}]' >"$work/policy.yaml"
  KW_SERVE_ARGS="--audit-log-path $work/audit.log --audit-policy-file $work/policy.yaml"
fi
start_server
mkdir -p "$work/home"
export HOME="$work/home" KUBECONFIG=""

case "$scenario" in
  get_vs_kubectl)
    create web-1; create web-2
    timeout 20 "$KW" get pods --server "$url" >"$work/kw.txt"
    timeout 20 kubectl --server="$url" get pods >"$work/kubectl.txt"
    # AGE may tick between the two calls: compare all but the last column.
    diff <(awk '{NF--; print}' "$work/kw.txt") <(awk '{NF--; print}' "$work/kubectl.txt")
    grep -q '^NAME ' "$work/kw.txt"
    timeout 20 "$KW" get pods --server "$url" -o name >"$work/names.txt"
    diff "$work/names.txt" <(timeout 20 kubectl --server="$url" get pods -o name)
    timeout 20 "$KW" get pods --server "$url" -A --no-headers -o wide | contains '^default  *web-1 '
    timeout 20 "$KW" get pod web-1 --server "$url" -o jsonpath='{.metadata.name}' | contains -x web-1
    timeout 20 "$KW" get pods --server "$url" --chunk-size 1 -o name | wc -l | contains -x 2
    # kubectl's global flags come before the verb as well as after it, in every spelling, also
    # before a nested verb (auth whoami) and with a kubeconfig.
    timeout 20 "$KW" --server "$url" get pods -o name | contains -x pod/web-1
    timeout 20 "$KW" --server="$url" -n default get pods -o name | contains -x pod/web-2
    timeout 20 "$KW" -s "$url" -ndefault --request-timeout 10 get pod web-1 -o name | contains -x pod/web-1
    printf '%s\n' 'apiVersion: v1' 'kind: Config' \
      "clusters: [{name: local, cluster: {server: \"$url\"}}]" 'users: [{name: me, user: {}}]' \
      'contexts: [{name: here, context: {cluster: local, user: me, namespace: default}}, {name: nowhere, context: {cluster: local, user: me, namespace: empty}}]' \
      'current-context: nowhere' >"$work/kubeconfig"
    timeout 20 "$KW" --kubeconfig "$work/kubeconfig" --context here get pods -o name | wc -l | contains -x 2
    timeout 20 "$KW" --kubeconfig="$work/kubeconfig" get pods -o name --context here | wc -l | contains -x 2
    timeout 20 "$KW" --kubeconfig "$work/kubeconfig" --context here auth whoami >/dev/null
    if timeout 20 "$KW" --bogus-flag get pods 2>/dev/null; then exit 1; fi
    if timeout 20 "$KW" get pods --server "$url" -o bogus 2>"$work/err.txt"; then exit 1; fi
    grep -q 'allowed formats are' "$work/err.txt"
    # Every failure exits 1, as kubectl's do.
    set +e; timeout 20 "$KW" get pod missing --server "$url" 2>/dev/null; code=$?
    timeout 20 kubectl get pod missing --server "$url" 2>/dev/null; kcode=$?; set -e
    [[ $code -eq 1 && $kcode -eq 1 ]] || { echo "missing pod: kw exit $code, kubectl exit $kcode"; exit 1; }
    # Nothing listens on port 1: exit 1 and one line that says what to check.
    set +e; timeout 20 "$KW" get pods --server http://127.0.0.1:1 2>"$work/err.txt"; code=$?
    timeout 20 kubectl get pods --server http://127.0.0.1:1 2>/dev/null; kcode=$?; set -e
    [[ $code -eq 1 && $kcode -eq 1 && $(wc -l <"$work/err.txt") -eq 1 ]] ||
      { echo "unreachable: kw exit $code, kubectl exit $kcode"; cat "$work/err.txt"; exit 1; }
    grep -q 'is the API server running' "$work/err.txt"
    # A missing object in a namespace that does not exist names the namespace; what was found
    # prints before what was not; a JSONPath template sees managedFields (-o json hides them).
    for tool in "$KW" kubectl; do
      for args in "get pod web-1 -n nowhere" "get pods web-1 missing --no-headers" \
                  "get pod web-1 -o jsonpath={.metadata.managedFields[0].manager}"; do
        # shellcheck disable=SC2086
        timeout 20 "$tool" --server "$url" $args 2>&1 | awk '/^Error/ {print; next} {if (NF > 4) NF--; print}' || true
        echo
      done >"$work/$(basename "$tool").edge"
    done
    diff -u "$work/kubectl.edge" "$work/kw.edge"
    grep -qx 'Error from server (NotFound): namespaces "nowhere" not found' "$work/kw.edge"
    ;;
  get_all_vs_kubectl)
    # A category ("all") expands through discovery into one table per kind, rows named
    # kind.group/name, kinds without objects left out; the same lines as kubectl's.
    post() {  # post PATH JSON
      curl -sSf -X POST -H 'Content-Type: application/json' --data "$2" "$url$1" >/dev/null
    }
    create web-1
    post /apis/apps/v1/namespaces/default/deployments '{"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","labels":{"app":"x"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}'
    post /api/v1/namespaces/default/services '{"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","labels":{"app":"x"}},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}'
    post /apis/batch/v1/namespaces/default/jobs '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"once"},
      "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}'
    post /api/v1/namespaces/default/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},
      "data":{"k":"v"}}'
    # AGE may tick between the two calls: compare all but the last column (blank lines kept).
    same_tables() {  # ARGS... (kw and kubectl get ARGS)
      timeout 20 "$KW" get "$@" --server "$url" >"$work/kw.txt" 2>"$work/kw.err"
      timeout 20 kubectl --server="$url" get "$@" >"$work/kubectl.txt" 2>"$work/kubectl.err"
      diff <(awk 'NF{NF--} {print}' "$work/kw.txt") <(awk 'NF{NF--} {print}' "$work/kubectl.txt")
      diff "$work/kw.err" "$work/kubectl.err"
    }
    same_tables all
    grep -qx 'NAME  *READY  *UP-TO-DATE  *AVAILABLE  *AGE' "$work/kw.txt"
    grep -q '^deployment.apps/web ' "$work/kw.txt"
    grep -q '^job.batch/once ' "$work/kw.txt"
    [[ $(grep -c '^$' "$work/kw.txt") -eq $(($(grep -c '^NAME ' "$work/kw.txt") - 1)) ]]
    same_tables all,configmaps
    grep -q '^configmap/settings ' "$work/kw.txt"
    same_tables all -A
    same_tables all -l app=x
    same_tables all --no-headers
    same_tables configmaps,all,po
    # Nothing at all: no table, kubectl's message on stderr.
    same_tables all -n empty
    [[ ! -s "$work/kw.txt" ]]
    grep -qx 'No resources found in empty namespace.' "$work/kw.err"
    timeout 20 "$KW" get all -o name --server "$url" >"$work/names.txt"
    diff "$work/names.txt" <(timeout 20 kubectl --server="$url" get all -o name)
    contains -x 'deployment.apps/web' <"$work/names.txt"
    diff <(timeout 20 "$KW" get all,configmaps -o name --server "$url") \
      <(timeout 20 kubectl --server="$url" get all,configmaps -o name)
    # A category is no resource type in TYPE/NAME form, and takes no names on its own.
    for args in "all/web" "all web"; do
      # shellcheck disable=SC2086
      set +e; timeout 20 "$KW" get $args --server "$url" 2>"$work/kw.err"; code=$?
      timeout 20 kubectl --server="$url" get $args 2>"$work/kubectl.err"; kcode=$?; set -e
      [[ $code -eq 1 && $kcode -eq 1 ]] || { echo "get $args: kw exit $code, kubectl exit $kcode"; exit 1; }
      diff "$work/kw.err" "$work/kubectl.err"
    done
    # Completion offers the categories after the resource names.
    timeout 20 "$KW" __complete resource-types --server "$url" | contains -x all
    # kw watches several kinds in one stream (kubectl refuses): the listed objects of every kind.
    timeout 3 "$KW" get all -w -o name --server "$url" >"$work/watched.txt" || true
    diff <(sort "$work/watched.txt") <(sort "$work/names.txt")
    ;;
  watch_h2|watch_http1|watch_websocket)
    transport=${scenario#watch_}
    # An empty list (protobuf leaves out "items") is no object: nothing printed, an empty List in JSON.
    [[ -z $(timeout 20 "$KW" get configmaps --server "$url" -o name --transport "$transport") ]]
    timeout 20 "$KW" get configmaps --server "$url" -o json --transport "$transport" |
      python3 -c 'import json, sys; assert json.load(sys.stdin)["items"] == []'
    create w-0
    timeout 60 "$KW" get pods --server "$url" -w -o json --output-watch-events --transport "$transport" \
      >"$work/events.jsonl" 2>"$work/watch.err" &
    watch_pid=$!
    wait_for_lines "$work/events.jsonl" '"ADDED"' 1
    create w-1; label w-1 one; delete w-1
    wait_for_lines "$work/events.jsonl" '"DELETED"' 1
    diff <(events_of "$work/events.jsonl") <(printf 'ADDED w-0 -\nADDED w-1 -\nMODIFIED w-1 one\nDELETED w-1 one\n')
    kill "$watch_pid"; wait "$watch_pid" 2>/dev/null || true
    # Each wire encoding shows every event as it comes, the last one of a burst included:
    # nothing follows the DELETED, so a decoder that held a frame until the next one would
    # never print it.
    for encoding in json yaml protobuf; do
      timeout 60 "$KW" get pods --server "$url" -w -o json --output-watch-events --transport "$transport" \
        --encoding "$encoding" >"$work/$encoding.jsonl" 2>"$work/watch.err" &
      watch_pid=$!
      wait_for_lines "$work/$encoding.jsonl" '"ADDED"' 1
      create "e-$encoding"; delete "e-$encoding"
      wait_for_lines "$work/$encoding.jsonl" '"DELETED"' 1
      diff <(events_of "$work/$encoding.jsonl") <(printf 'ADDED w-0 -\nADDED e-%s -\nDELETED e-%s -\n' "$encoding" "$encoding")
      kill "$watch_pid"; wait "$watch_pid" 2>/dev/null || true
    done
    watch_pid=""
    # A closed stdout ends the watch quietly with status 0.
    set +e
    timeout 20 "$KW" get pods --server "$url" -w -o name --transport "$transport" | head -1 >/dev/null
    codes=("${PIPESTATUS[@]}")
    set -e
    [[ ${codes[0]} -eq 0 ]] || { echo "kw exit ${codes[0]} on a closed pipe"; exit 1; }
    ;;
  watch_restart)
    create r-0
    # -o json with -w prints events without --output-watch-events too.
    timeout 90 "$KW" get pods --server "$url" -w -o json \
      >"$work/events.jsonl" 2>"$work/watch.err" &
    watch_pid=$!
    wait_for_lines "$work/events.jsonl" '"ADDED"' 1
    create r-1
    wait_for_lines "$work/events.jsonl" '"ADDED"' 2
    kill_server  # a crash: SIGKILL to kw serve
    if curl -sf -m 2 "$url/readyz" >/dev/null 2>&1; then echo "kw serve still answers after SIGKILL"; exit 1; fi
    sleep 1
    start_server
    label r-1 two; create r-2; delete r-0
    wait_for_lines "$work/events.jsonl" '"DELETED"' 1
    sleep 1
    diff <(events_of "$work/events.jsonl") \
      <(printf 'ADDED r-0 -\nADDED r-1 -\nMODIFIED r-1 two\nADDED r-2 -\nDELETED r-0 -\n')
    kill -INT "$watch_pid"
    set +e; wait "$watch_pid"; code=$?; set -e
    watch_pid=""
    [[ $code -eq 0 ]] || { echo "kw exit $code after SIGINT"; cat "$work/watch.err"; exit 1; }
    ;;
  multi_kind_resume)
    # kw watch of two kinds in one stream, stopped with SIGINT and restarted from
    # --resume-file: the second run prints only what changed while it was stopped.
    cm() {  # cm NAME
      curl -sSf -X POST -H 'Content-Type: application/json' \
        --data "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\"},\"data\":{\"k\":\"v\"}}" \
        "$url/api/v1/namespaces/default/configmaps" >/dev/null
    }
    kinds_of() {  # FILE -> "TYPE kind name" lines
      /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    print(e["type"], e["object"]["kind"], e["object"]["metadata"]["name"])
' "$1" | sort
    }
    create m-0; cm c-0
    timeout 60 "$KW" watch pods,configmaps --server "$url" -o json --output-watch-events \
      --resume-file "$work/rv" >"$work/first.jsonl" 2>"$work/watch.err" &
    watch_pid=$!
    wait_for_lines "$work/first.jsonl" '"c-0"' 1
    wait_for_lines "$work/first.jsonl" '"m-0"' 1
    create m-1; cm c-1
    wait_for_lines "$work/first.jsonl" '"c-1"' 1
    wait_for_lines "$work/first.jsonl" '"m-1"' 1
    kill -INT "$watch_pid"; wait "$watch_pid"; watch_pid=""
    [[ -s "$work/rv.pod" && -s "$work/rv.configmap" ]] || { echo "no resume files"; ls "$work"; exit 1; }
    diff <(kinds_of "$work/first.jsonl") \
      <(printf 'ADDED ConfigMap c-0\nADDED ConfigMap c-1\nADDED Pod m-0\nADDED Pod m-1\n')
    # While stopped: one pod added, one deleted, one configmap added.
    create m-2; delete m-0; cm c-2
    timeout 60 "$KW" watch pods,configmaps --server "$url" -o json --output-watch-events \
      --resume-file "$work/rv" >"$work/second.jsonl" 2>>"$work/watch.err" &
    watch_pid=$!
    wait_for_lines "$work/second.jsonl" '"c-2"' 1
    wait_for_lines "$work/second.jsonl" '"m-2"' 1
    wait_for_lines "$work/second.jsonl" '"DELETED"' 1
    sleep 0.5
    kill -INT "$watch_pid"; wait "$watch_pid"; watch_pid=""
    diff <(kinds_of "$work/second.jsonl") \
      <(printf 'ADDED ConfigMap c-2\nADDED Pod m-2\nDELETED Pod m-0\n')
    ;;
  watch_expired)
    # A watch resumed from a resourceVersion the server no longer holds (410 Gone: a
    # restarted server's watch cache starts at the current revision): kw says so on stderr,
    # relists and prints the difference from what it had seen (here: nothing seen, so every
    # pod is ADDED).
    create e-0
    kill_server; start_server
    echo 1 >"$work/rv"
    timeout 60 "$KW" get pods --server "$url" -w -o json --resume-file "$work/rv" \
      >"$work/events.jsonl" 2>"$work/watch.err" &
    watch_pid=$!
    wait_for_lines "$work/events.jsonl" '"e-0"' 1
    kill -INT "$watch_pid"; wait "$watch_pid"; watch_pid=""
    grep -q "^kw: watch of pod expired (.*); relisting$" "$work/watch.err" || { cat "$work/watch.err"; exit 1; }
    diff <(events_of "$work/events.jsonl") <(printf 'ADDED e-0 -\n')
    ;;
  through_proxy)
    # The kubeconfig's proxy-url: an HTTP CONNECT tunnel (here a small proxy that wants
    # credentials), as kubectl uses it; HTTPS_PROXY from the environment is not used for a
    # loopback server, as Go's transport decides.
    create web-1
    proxy_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 - "$proxy_port" "$work/proxy.log" <<'PY' &
import base64, socket, sys, threading
port, log = int(sys.argv[1]), sys.argv[2]
wanted = "Basic " + base64.b64encode(b"user:p@ss").decode()
def pipe(a, b):
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
def serve(client):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(4096)
        if not chunk: return
        head += chunk
    lines = head.decode().split("\r\n")
    auth = [l.split(":", 1)[1].strip() for l in lines if l.lower().startswith("proxy-authorization:")]
    with open(log, "a") as f: f.write(lines[0] + (" auth-ok" if auth == [wanted] else " no-auth") + "\n")
    if auth != [wanted]:
        client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n"); client.close(); return
    host, _, p = lines[0].split()[1].rpartition(":")
    upstream = socket.create_connection((host, int(p)))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
    pipe(client, upstream)
listener = socket.create_server(("127.0.0.1", port))
while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
    watch_pid=$!
    for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$proxy_port") 2>/dev/null && break; sleep 0.1; done
    kubeconfig_with() {  # kubeconfig_with PROXY_URL > FILE
      printf '%s\n' 'apiVersion: v1' 'kind: Config' \
        "clusters: [{name: local, cluster: {server: \"$url\", proxy-url: \"$1\"}}]" 'users: [{name: me, user: {}}]' \
        'contexts: [{name: here, context: {cluster: local, user: me, namespace: default}}]' 'current-context: here'
    }
    kubeconfig_with "http://user:p%40ss@127.0.0.1:$proxy_port" >"$work/kubeconfig"
    timeout 20 "$KW" --kubeconfig "$work/kubeconfig" get pods -o name | contains -x pod/web-1
    grep -q "^CONNECT ${url#http://} HTTP/1.1 auth-ok$" "$work/proxy.log"
    # Wrong credentials: the proxy's refusal, said plainly.
    kubeconfig_with "http://user:wrong@127.0.0.1:$proxy_port" >"$work/kubeconfig"
    code=0; timeout 20 "$KW" --kubeconfig "$work/kubeconfig" get pods 2>"$work/err.txt" || code=$?
    [[ $code -ne 0 ]] && grep -q "407 Proxy Authentication Required" "$work/err.txt" \
      || { echo "wrong proxy credentials: exit $code"; cat "$work/err.txt"; exit 1; }
    # A proxy kw cannot use is refused, not bypassed.
    kubeconfig_with "socks5://127.0.0.1:$proxy_port" >"$work/kubeconfig"
    if timeout 20 "$KW" --kubeconfig "$work/kubeconfig" get pods 2>"$work/err.txt"; then exit 1; fi
    grep -q "http:// proxies" "$work/err.txt"
    # From the environment, a loopback server is reached directly.
    lines=$(wc -l <"$work/proxy.log")
    HTTP_PROXY="http://127.0.0.1:$proxy_port" timeout 20 "$KW" get pods --server "$url" -o name | contains -x pod/web-1
    [[ $(wc -l <"$work/proxy.log") -eq $lines ]]
    ;;
  watch_yaml_latency)
    # A YAML watch shows each event as soon as a JSON watch does, on every transport: both run
    # side by side while pods come and go 400 ms apart; a decoder that held an event until the
    # next one came would show it about 400 ms late. The figures are printed.
    python3 - "$KW" "$url" <<'PY'
import json, subprocess, sys, threading, time, urllib.request
kw, url = sys.argv[1], sys.argv[2]
def call(method, path, body=None):
    req = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()
def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
worst = 0.0
for transport in ("h2", "http1", "websocket"):
    seen = {}
    procs = []
    for encoding in ("json", "yaml"):
        proc = subprocess.Popen([kw, "get", "pods", "--server", url, "-w", "-o", "json", "--output-watch-events",
                                 "--transport", transport, "--encoding", encoding, "-l", "lat=" + transport],
                                stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        def read(proc=proc, encoding=encoding):
            for line in proc.stdout:
                event = json.loads(line)
                seen[(encoding, event["type"], event["object"]["metadata"]["name"])] = time.monotonic()
        threading.Thread(target=read, daemon=True).start()
    time.sleep(1.0)  # both watches open
    names = [f"lat-{transport}-{i}" for i in range(4)]
    for name in names:
        body = pod(name)
        body["metadata"]["labels"] = {"lat": transport}
        call("POST", "/api/v1/namespaces/default/pods", body)
        time.sleep(0.4)
        call("DELETE", f"/api/v1/namespaces/default/pods/{name}")
        time.sleep(0.4)
    deadline = time.monotonic() + 10
    wanted = [(t, n) for n in names for t in ("ADDED", "DELETED")]
    while time.monotonic() < deadline and not all((e, t, n) in seen for e in ("json", "yaml") for t, n in wanted):
        time.sleep(0.05)
    for proc in procs:
        proc.kill()
        proc.wait()
    missing = [(e, t, n) for e in ("json", "yaml") for t, n in wanted if (e, t, n) not in seen]
    assert not missing, f"{transport}: never shown: {missing}"
    lags = sorted((seen[("yaml", t, n)] - seen[("json", t, n)]) * 1000 for t, n in wanted)
    print(f"{transport}: YAML after JSON, ms: median {lags[len(lags) // 2]:.1f}, max {lags[-1]:.1f}")
    worst = max(worst, lags[-1])
# 100 ms is the goal; the bound leaves room for a loaded machine and still catches an event
# held back until the next one (400 ms later).
assert worst < 250, f"a YAML event came {worst:.0f} ms after the JSON one"
PY
    ;;

  kubeconfig_tls)
    # The kubeconfig's TLS fields against kw serve's TLS port, each line run by kubectl and kw
    # alike: the same exit code, and output for those that succeed.
    create web-1
    kill_server
    tls_port=$(free_port)
    timeout 100 "$KW_SERVE" serve --data-dir "$work/data" --insecure-port "$port" --secure-port "$tls_port" \
      >>"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 150); do curl -sf "$url/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
    ca=$work/data/pki/ca.crt
    kubeconfig() {  # kubeconfig NAME CLUSTER_LINES
      cat >"$work/$1.kubeconfig" <<CFG
apiVersion: v1
kind: Config
clusters:
- name: tls
  cluster:
    server: https://127.0.0.1:$tls_port
$2
contexts:
- name: tls
  context: {cluster: tls, user: me, namespace: default}
current-context: tls
users:
- name: me
  user: {}
CFG
    }
    kubeconfig skip "    insecure-skip-tls-verify: true"
    kubeconfig ca "    certificate-authority: $ca"
    kubeconfig ca-data "    certificate-authority-data: $(base64 -w0 "$ca")"
    kubeconfig none ""
    kubeconfig server-name "    certificate-authority: $ca
    tls-server-name: localhost"
    kubeconfig wrong-name "    certificate-authority: $ca
    tls-server-name: wrong.example"
    for line in "--kubeconfig $work/skip.kubeconfig get pods -o name" \
                "--kubeconfig $work/ca.kubeconfig get pods -o name" \
                "--kubeconfig $work/ca-data.kubeconfig get pods -o name" \
                "--kubeconfig $work/server-name.kubeconfig get pods -o name" \
                "--kubeconfig $work/none.kubeconfig --insecure-skip-tls-verify get pods -o name" \
                "get pods -o name --kubeconfig $work/none.kubeconfig --insecure-skip-tls-verify" \
                "--kubeconfig $work/none.kubeconfig get pods -o name" \
                "--kubeconfig $work/wrong-name.kubeconfig get pods -o name" \
                "--kubeconfig $work/skip.kubeconfig --insecure-skip-tls-verify=false get pods -o name"; do
      # shellcheck disable=SC2086
      want=$(timeout 30 kubectl $line 2>/dev/null) && want_code=0 || want_code=$?
      # shellcheck disable=SC2086
      got=$(timeout 30 "$KW" $line 2>"$work/kw.err") && got_code=0 || got_code=$?
      if (( (want_code == 0) != (got_code == 0) )); then
        echo "kubectl exit $want_code, kw exit $got_code for: $line"; cat "$work/kw.err"; exit 1
      fi
      [[ $want_code != 0 ]] || [[ "$got" == "$want" ]] || { echo "output differs for: $line"; diff <(echo "$want") <(echo "$got"); exit 1; }
      [[ $want_code != 0 ]] || [[ "$got" == "pod/web-1" ]]
    done
    ;;

  watch_list)
    # Against a server with watch-list, kw get -w fetches the state with one watch request
    # (sendInitialEvents, ended by the initial-events-end bookmark) and makes no LIST; the
    # output is what LIST+WATCH prints. KUBE_FEATURE_WatchListClient=false goes back to LIST.
    requests() {  # the requests kw made, one "VERB URI" line each
      /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["stage"] == "ResponseStarted" or (e["stage"] == "ResponseComplete" and e["verb"] != "watch"):
        if e.get("userAgent", "").startswith("kw/"): print(e["verb"], e["requestURI"])
' "$work/audit.log"
    }
    create w-0; create w-1
    for mode in true false; do
      : >"$work/audit.log"
      KUBE_FEATURE_WatchListClient=$mode timeout 60 "$KW" get pods --server "$url" -w \
        >"$work/$mode.txt" 2>"$work/watch.err" &
      watch_pid=$!
      wait_for_lines "$work/$mode.txt" '^w-1 ' 1
      create "w-$mode"
      wait_for_lines "$work/$mode.txt" "^w-$mode " 1
      kill -INT "$watch_pid"; wait "$watch_pid"; watch_pid=""
      requests >"$work/$mode.requests"
    done
    diff <(awk '{print $1, $2, $3}' "$work/true.txt") <(printf 'NAME READY STATUS\nw-0 0/1 Pending\nw-1 0/1 Pending\nw-true 0/1 Pending\n')
    grep -qx 'watch /api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan' \
      "$work/true.requests" || { cat "$work/true.requests"; exit 1; }
    if grep -q '^list ' "$work/true.requests"; then cat "$work/true.requests"; exit 1; fi
    grep -q '^list ' "$work/false.requests" || { cat "$work/false.requests"; exit 1; }
    if grep -q 'sendInitialEvents' "$work/false.requests"; then cat "$work/false.requests"; exit 1; fi
    # Every output format and transport through watch-list: the state, then a change.
    for args in "-o name" "-o json" "--encoding protobuf -o name" "--encoding yaml -o name" "--watch-only -o name" \
                "--transport websocket -o name" "--transport http1 -o name"; do
      # shellcheck disable=SC2086
      timeout 60 "$KW" get pods --server "$url" -w $args >"$work/out.txt" 2>"$work/watch.err" &
      watch_pid=$!
      [[ $args == --watch-only* ]] || wait_for_lines "$work/out.txt" 'w-false' 1
      sleep 0.3
      delete w-0; create w-0
      wait_for_lines "$work/out.txt" 'w-0' 2
      kill -INT "$watch_pid"; wait "$watch_pid"; watch_pid=""
    done
    # A server without watch-list (kube-apiserver 1.23 refuses resourceVersionMatch on a watch
    # with 422): kw falls back to LIST and WATCH, and prints the same.
    fake_port=$(free_port)
    python3 - "$fake_port" "$work/fake.log" <<'PY' &
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, log = int(sys.argv[1]), sys.argv[2]
def pod(name, rv):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "resourceVersion": rv}}
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        with open(log, "a") as f: f.write(self.path + "\n")
        if "resourceVersionMatch" in self.path:
            return self.reply(422, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Invalid", "code": 422,
                                    "message": "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch"})
        if "watch=" not in self.path:
            return self.reply(200, {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "10"}, "items": [pod("old", "9")]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        data = json.dumps({"type": "ADDED", "object": pod("new", "11")}).encode() + b"\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()
        time.sleep(20)
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
PY
    fake_pid=$!
    for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$fake_port") 2>/dev/null && break; sleep 0.1; done
    timeout 60 "$KW" get pods --server "http://127.0.0.1:$fake_port" -w -o name >"$work/fake.txt" 2>"$work/watch.err" &
    watch_pid=$!
    wait_for_lines "$work/fake.txt" 'pod/new' 1
    kill -INT "$watch_pid"; wait "$watch_pid"; watch_pid=""
    kill "$fake_pid"
    diff "$work/fake.txt" <(printf 'pod/old\npod/new\n')
    diff <(sed 's/?.*//' "$work/fake.log") <(printf '/api/v1/namespaces/default/pods\n%.0s' 1 2 3)
    grep -q 'sendInitialEvents' <(head -1 "$work/fake.log")
    grep -q 'resourceVersion=10' <(tail -1 "$work/fake.log")
    [[ ! -s "$work/watch.err" ]] || { cat "$work/watch.err"; exit 1; }
    ;;

  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
echo "client_$scenario: ok"
