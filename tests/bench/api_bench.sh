#!/usr/bin/env bash
# The REST API under load: requests/s and p50/p99 latency of GET of one ConfigMap, of CREATE
# (POST with generateName), of APPLY (server-side apply of an unchanged 5 KiB Deployment, which
# writes nothing) and of GETDEPLOY (GET of that Deployment) at 1 and 64 concurrent clients (one connection each),
# over HTTP/1.1 and HTTP/2 (TLS, ALPN, bearer token: the path a real client takes), on the
# embedded store and on a real etcd, under AlwaysAllow and under RBAC authorization. The load
# comes from h2load (nghttp2-client; --h1 for HTTP/1.1); latencies are read from its
# per-request log. A fresh kw serve per store, authorization mode and run.
#
# AlwaysAllow is measured as user `bench` (in system:masters). RBAC runs kw serve with
# --authorization-mode RBAC, loads a cluster-sized policy as `bench` (100 namespaces
# rbac-ns-0..99, 1,000 ClusterRoles, 10,000 RoleBindings over those namespaces, one in 100 of
# them also naming the group bench-group; last a Role and a RoleBinding in default granting
# get/create on configmaps) and measures as `bench-rbac` (group bench-group; not in
# system:masters, whose members bypass authorization). Before measuring it checks that
# bench-rbac reads the ConfigMap (200) and is refused Secrets (403): a missing grant fails
# the run instead of timing fast 403s.
#
#   tests/bench/api_bench.sh KW_BIN OUT_DIR [RUNS]
# Writes OUT_DIR/api.<run>.txt with lines
#   RESULT api.<store>.<h1|h2>.<get|create|getdeploy|apply>.c<N>.<rps|p50_ms|p99_ms|cpu_us> VALUE
# (cpu_us: kw serve's user + system CPU time per successful request, in microseconds)
#   RESULT api.<store>.policy.<load_s|objects> VALUE  (RBAC only: seconds to POST the policy)
# where <store> is embedded or etcd under AlwaysAllow and embedded-rbac or etcd-rbac under
# RBAC, embedded-audit or etcd-audit under Audit: AlwaysAllow with an audit log recording every
# request at level Metadata (tests/bench/summarize.py reports the medians, RBAC / AlwaysAllow and
# Audit / AlwaysAllow), and embedded-webhooks or etcd-webhooks under Webhooks: AlwaysAllow with
# a dead mutating and a dead validating admission webhook (failurePolicy Ignore, timeoutSeconds
# 1, a listener that never accepts) whose rules cover configmaps and deployments but whose
# objectSelector selects nothing the load sends; then
#   RESULT api.<store>-webhooks.matched_create_ms VALUE
# is one create those webhooks do match (each adds its timeout). Environment:
# KW_API_STORES="embedded etcd", KW_API_AUTHZ="AlwaysAllow RBAC Audit Webhooks", KW_API_AUDIT_MODE=blocking
# (kube-apiserver's default: each event written before the request goes on) or batch, KW_API_QUICK=1 (fewer
# requests), KW_API_KUBE_APISERVER=/path/to/kube-apiserver (a test peer built outside the
# repository): on the etcd store, each run also measures that kube-apiserver on the same etcd
# (its own key prefix), AlwaysAllow, with the same requests, as <store> etcd-kube. Every process
# started here is stopped on exit; every step is bounded by `timeout` and every load run by a
# request count.
set -euo pipefail
kw_bin=${1:?usage: api_bench.sh KW_BIN OUT_DIR [RUNS]}
out=${2:?usage: api_bench.sh KW_BIN OUT_DIR [RUNS]}
runs=${3:-3}
python=/usr/bin/python3
token=kw-api-bench-token
rbac_token=kw-api-bench-rbac-token
authz_modes=${KW_API_AUTHZ:-AlwaysAllow RBAC Audit Webhooks}
for authz in $authz_modes; do
  [[ $authz == AlwaysAllow || $authz == RBAC || $authz == Audit || $authz == Webhooks ]] || {
    echo "api_bench.sh: KW_API_AUTHZ takes AlwaysAllow, RBAC, Audit and Webhooks, not $authz" >&2
    exit 2
  }
done
kube_apiserver=${KW_API_KUBE_APISERVER:-}
if [[ -n $kube_apiserver && ! -x $kube_apiserver ]]; then
  echo "api_bench.sh: KW_API_KUBE_APISERVER=$kube_apiserver is not an executable" >&2
  exit 2
fi
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
printf '%s\n' "$token,bench,bench-uid,system:masters" "$rbac_token,bench-rbac,bench-rbac-uid,bench-group" \
  >"$work/tokens.csv"
printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"bench-","labels":{"app":"bench"}},"data":{"k":"%s"}}' \
  "$(head -c 1024 /dev/zero | tr '\0' v)" >"$work/create.json"
sed 's/"generateName":"bench-"/"name":"bench-get"/' "$work/create.json" >"$work/get-object.json"
# The server-side apply of an unchanged 5 KiB Deployment (3 containers with env, ports, probes).
"$python" - "$work/apply.json" <<'EOF'
import json, sys
containers = [{"name": f"c{c}", "image": f"registry.example.com/team/app-{c}:1.2.3",
               "args": ["--port=8080", "--verbose", "--config=/etc/app/config.yaml"],
               "ports": [{"containerPort": 8080 + c, "name": f"http{c}"}],
               "env": [{"name": f"VAR_{i}", "value": f"value-{i}-" + "x" * 20} for i in range(17)],
               "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
               "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
               "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080 + c}, "periodSeconds": 5}}
              for c in range(3)]
deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "bench-apply", "namespace": "default",
                           "labels": {f"label-{i}": f"v{i}" for i in range(8)},
                           "annotations": {f"example.com/note-{i}": "n" * 40 for i in range(6)}},
              "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "bench"}},
                       "template": {"metadata": {"labels": {"app": "bench", "tier": "backend"}},
                                    "spec": {"containers": containers,
                                             "volumes": [{"name": "config", "configMap": {"name": "app-config"}}]}}}}
with open(sys.argv[1], "w") as f:
    json.dump(deployment, f, separators=(",", ":"))
EOF
apply_path="/apis/apps/v1/namespaces/default/deployments/bench-apply?fieldManager=bench"

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
# start_serve STORE AUTHZ LABEL RUN: a fresh kw serve with --authorization-mode AUTHZ on a free
# TLS port, with the object GET reads.
start_serve() {
  local store=$1 authz=$2 label=$3 run=$4 data port ready=0 store_args=() log="$out/api-serve.$3.$4.log"
  data=$(mktemp -d "${TMPDIR:-/tmp}/kw-api-bench-serve-XXXXXX")
  tmp_dirs+=("$data")
  port=$(free_port)
  [[ $store == etcd ]] && store_args=(--etcd "$etcd_endpoint" --etcd-prefix "/api-bench-$run-$RANDOM$RANDOM")
  if [[ $authz == Audit ]]; then
    # AlwaysAllow, with every request written to the audit log at level Metadata.
    printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n' >"$data/audit-policy.yaml"
    store_args+=(--audit-policy-file "$data/audit-policy.yaml" --audit-log-path "$data/audit.log"
      --audit-log-mode "${KW_API_AUDIT_MODE:-blocking}")
    authz=AlwaysAllow
  fi
  [[ $authz == Webhooks ]] && authz=AlwaysAllow
  if [[ $authz == Kube ]]; then
    # kube-apiserver on the same etcd (its own prefix), AlwaysAllow, with the same tokens; its
    # service account keys and serving certificate are made here, in its data directory.
    openssl genrsa -out "$data/sa.key" 2048 2>/dev/null
    openssl rsa -in "$data/sa.key" -pubout -out "$data/sa.pub" 2>/dev/null
    "$kube_apiserver" --etcd-servers "$etcd_endpoint" --etcd-prefix "/api-bench-kube-$run-$RANDOM$RANDOM" \
      --secure-port "$port" --bind-address 127.0.0.1 --cert-dir "$data/certs" \
      --token-auth-file "$work/tokens.csv" --authorization-mode AlwaysAllow \
      --service-account-issuer https://kubernetes.default.svc.cluster.local \
      --service-account-key-file "$data/sa.pub" --service-account-signing-key-file "$data/sa.key" \
      --service-cluster-ip-range 10.0.0.0/24 >>"$log" 2>&1 &
  else
    "$kw_bin" serve --data-dir "$data" --secure-port "$port" --insecure-port 0 \
      --token-auth-file "$work/tokens.csv" --authorization-mode "$authz" "${store_args[@]}" >>"$log" 2>&1 &
  fi
  serve_pid=$!
  pids+=("$serve_pid")
  serve_url="https://127.0.0.1:$port"
  for _ in $(seq 900); do
    # Ready, and the default namespace there (kube-apiserver makes it just after it is ready).
    if curl -kfsS -m 1 -H "Authorization: Bearer $token" "$serve_url/readyz" >/dev/null 2>&1 &&
      curl -kfsS -m 1 -o /dev/null -H "Authorization: Bearer $token" "$serve_url/api/v1/namespaces/default" 2>/dev/null; then
      ready=1
      break
    fi
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ((!ready)); then
    echo "api_bench.sh: the $label server did not become ready; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  timeout 20 curl -kfsS -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data-binary @"$work/get-object.json" "$serve_url/api/v1/namespaces/default/configmaps"
  timeout 20 curl -kfsS -o /dev/null -X PATCH -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/apply-patch+yaml' --data-binary @"$work/apply.json" "$serve_url$apply_path"
}

# dead_webhooks LABEL: a listener that takes connections and never answers, and a mutating and a
# validating webhook configuration pointing at it (failurePolicy Ignore, timeoutSeconds 1) for
# configmaps and deployments labelled hooked=yes; prints how long a create they match takes.
dead_webhooks() {
  local label=$1 port kind seconds
  port=$(free_port)
  "$python" -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
time.sleep(3600)' "$port" </dev/null >/dev/null 2>&1 &  # (not on this function's piped stdout)
  pids+=("$!")
  for kind in mutating validating; do
    printf '%s' '{"metadata":{"name":"dead-'"$kind"'"},"webhooks":[{"name":"dead.bench.kw","failurePolicy":"Ignore",
"timeoutSeconds":1,"sideEffects":"None","admissionReviewVersions":["v1"],
"clientConfig":{"url":"https://127.0.0.1:'"$port"'/"},"objectSelector":{"matchLabels":{"hooked":"yes"}},
"rules":[{"operations":["*"],"apiGroups":["","apps"],"apiVersions":["v1"],"resources":["configmaps","deployments"]}]}]}' |
      timeout 20 curl -kfsS -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data-binary @- "$serve_url/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations"
  done
  sleep 1  # the configurations apply through the watch
  seconds=$(timeout 20 curl -kfsS -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' \
    --data-binary '{"metadata":{"name":"hooked","labels":{"hooked":"yes"}},"data":{"k":"v"}}' \
    "$serve_url/api/v1/namespaces/default/configmaps")
  echo "RESULT api.$label.matched_create_ms $("$python" -c 'import sys; print(f"{float(sys.argv[1]) * 1000:.1f}")' "$seconds")"
}

# load_policy LABEL: the RBAC policy, POSTed as bench by one Python process over a few
# keep-alive connections (sequential POSTs on each); any status but 201 fails the run. Prints
# how long that took (and a RESULT line), then waits, bounded, until bench-rbac's grant is in
# force and checks that it grants no more.
load_policy() {
  local label=$1 code="" path=/api/v1/namespaces/default/configmaps/bench-get
  timeout 900 "$python" - "$serve_url" "$token" "$label" <<'EOF'
import http.client, json, ssl, sys, threading, time, urllib.parse
url, token, label = sys.argv[1], sys.argv[2], sys.argv[3]
NAMESPACES, CLUSTER_ROLES, BINDINGS, CONNECTIONS = 100, 1000, 10000, 8
host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
context = ssl._create_unverified_context()
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json"}
RBAC_API, RBAC_GROUP = "/apis/rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io"
VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"]
RESOURCES = [("", "pods"), ("", "services"), ("", "secrets"), ("", "configmaps"), ("apps", "deployments"),
             ("apps", "statefulsets"), ("batch", "jobs"), ("networking.k8s.io", "ingresses")]

def cluster_role(i):
    rules = []
    for r in range(3):  # three rules over a varying resource and verb mix
        group, resource = RESOURCES[(i + r) % len(RESOURCES)]
        rules.append({"apiGroups": [group], "resources": [resource, resource + "/status"],
                      "verbs": VERBS[:1 + (i + r) % len(VERBS)]})
    return (f"{RBAC_API}/clusterroles",
            {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "ClusterRole",
             "metadata": {"name": f"bench-role-{i}", "labels": {"bench": "rbac"}}, "rules": rules})

def role_binding(i):
    ns = f"rbac-ns-{i % NAMESPACES}"
    subjects = [{"kind": "User", "apiGroup": RBAC_GROUP, "name": f"user-{i}"},
                {"kind": "Group", "apiGroup": RBAC_GROUP, "name": f"team-{i % 50}"},
                {"kind": "ServiceAccount", "name": f"sa-{i % 10}", "namespace": ns}]
    if i % 100 == 0:  # bench-rbac's group is bound in each rbac-ns-N, never in default
        subjects.append({"kind": "Group", "apiGroup": RBAC_GROUP, "name": "bench-group"})
    return (f"{RBAC_API}/namespaces/{ns}/rolebindings",
            {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "RoleBinding",
             "metadata": {"name": f"bench-binding-{i}", "namespace": ns},
             "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": f"bench-role-{i % CLUSTER_ROLES}"},
             "subjects": subjects})

failures = []

def post_all(items, connections):
    """POSTs the (path, body) items over `connections` keep-alive connections, each in turn."""
    def worker(share):
        conn = http.client.HTTPSConnection(host, port, context=context, timeout=30)
        try:
            for path, body in share:
                if failures:
                    return
                conn.request("POST", path, body=json.dumps(body), headers=headers)
                response = conn.getresponse()
                text = response.read()
                if response.status != 201:
                    failures.append(f"POST {path} ({body['metadata']['name']}): {response.status} "
                                    f"{text[:300].decode(errors='replace')}")
                    return
        except Exception as e:  # a dropped connection or a timeout fails the load as well
            failures.append(f"{type(e).__name__}: {e}")
        finally:
            conn.close()
    threads = [threading.Thread(target=worker, args=(items[k::connections],)) for k in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        print(f"api_bench.sh: {label}: loading the RBAC policy failed ({len(failures)} error(s)); the first: "
              f"{failures[0]}", file=sys.stderr)
        sys.exit(1)
    return len(items)

start = time.monotonic()
count = post_all([("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                          "metadata": {"name": f"rbac-ns-{n}"}}) for n in range(NAMESPACES)],
                 CONNECTIONS)
count += post_all([cluster_role(i) for i in range(CLUSTER_ROLES)], CONNECTIONS)
count += post_all([role_binding(i) for i in range(BINDINGS)], CONNECTIONS)
# Last, the one grant the measurement needs.
count += post_all([(f"{RBAC_API}/namespaces/default/roles",
                    {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "Role",
                     "metadata": {"name": "bench-configmaps", "namespace": "default"},
                     "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "create"]},
                               {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "patch"]}]})], 1)
count += post_all([(f"{RBAC_API}/namespaces/default/rolebindings",
                    {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "RoleBinding",
                     "metadata": {"name": "bench-rbac", "namespace": "default"},
                     "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "bench-configmaps"},
                     "subjects": [{"kind": "User", "apiGroup": RBAC_GROUP, "name": "bench-rbac"}]})], 1)
seconds = time.monotonic() - start
print(f"# {label}: RBAC policy of {count:,} objects ({NAMESPACES} Namespaces, {CLUSTER_ROLES:,} ClusterRoles, "
      f"{BINDINGS:,} RoleBindings, a Role and a RoleBinding in default) loaded in {seconds:.2f} s "
      f"({count / seconds:,.0f} POSTs/s over {CONNECTIONS} connections)")
print(f"RESULT api.{label}.policy.load_s {seconds:.3f}")
print(f"RESULT api.{label}.policy.objects {count}")
EOF
  # The authorizer follows the bindings through the watch caches: wait for the grant.
  for _ in $(seq 100); do
    code=$(timeout 10 curl -ks -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $rbac_token" \
      "$serve_url$path" || true)
    [[ $code == 200 ]] && break
    sleep 0.1
  done
  if [[ $code != 200 ]]; then
    echo "api_bench.sh: $label: bench-rbac's GET of $path answers $code, not 200, after the policy load" >&2
    exit 1
  fi
  code=$(timeout 10 curl -ks -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $rbac_token" \
    "$serve_url/api/v1/namespaces/default/secrets" || true)
  if [[ $code != 403 ]]; then
    echo "api_bench.sh: $label: bench-rbac's LIST of secrets answers $code, not 403: RBAC is not in force" >&2
    exit 1
  fi
}

# server_cpu_ticks: user + system CPU time kw serve has used so far, in clock ticks.
server_cpu_ticks() {
  local stat
  stat=$(cat "/proc/$serve_pid/stat" 2>/dev/null) || { echo 0; return; }
  stat=${stat##*) }  # the fields after the command name
  read -r -a fields <<<"$stat"
  echo $((fields[11] + fields[12]))  # utime and stime (fields 14 and 15 of the line)
}

# load STORE TRANSPORT VERB CLIENTS REQUESTS: one h2load run with the token $bearer, its RESULT
# lines on stdout (requests/s, p50 and p99 latency, and the server's CPU time per request).
bearer=$token
load() {
  local store=$1 transport=$2 verb=$3 clients=$4 requests=$5 args=() name summary
  name="api.$store.$transport.$verb.c$clients"
  [[ $transport == h1 ]] && args+=(--h1)
  local path=/api/v1/namespaces/default/configmaps
  if [[ $verb == create ]]; then
    args+=(-d "$work/create.json" -H 'content-type: application/json')
  elif [[ $verb == apply ]]; then
    args+=(-d "$work/apply.json" -H ':method: PATCH' -H 'content-type: application/apply-patch+yaml')
    path=$apply_path
  elif [[ $verb == getdeploy ]]; then
    path=${apply_path%%\?*}
  else
    path=$path/bench-get
  fi
  rm -f "$work/requests.log"
  local cpu_before cpu_after
  cpu_before=$(server_cpu_ticks)
  summary=$(timeout 300 h2load -n "$requests" -c "$clients" -m 1 -t 1 -H "authorization: Bearer $bearer" \
    -H 'accept: application/json' "${args[@]}" --log-file="$work/requests.log" "$serve_url$path" 2>&1) || {
    echo "api_bench.sh: h2load failed for $name:" >&2
    echo "$summary" >&2
    return 0
  }
  cpu_after=$(server_cpu_ticks)
  printf '%s\n' "$summary" >"$work/summary.txt"
  "$python" - "$name" "$work/requests.log" "$requests" "$work/summary.txt" "$((cpu_after - cpu_before))" \
    "$(getconf CLK_TCK)" <<'EOF'
import sys
name, log, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
cpu_seconds = int(sys.argv[5]) / int(sys.argv[6])
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
print(f"RESULT {name}.cpu_us {cpu_seconds / len(latencies) * 1e6:.1f}")
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
    # Every authorization mode in each run, one after the other, so that they share its conditions;
    # every other run in reverse order, so that no mode always goes first.
    modes=$authz_modes
    [[ $store == etcd && -n $kube_apiserver ]] && modes="$modes Kube"
    order=($modes)
    if ((run % 2 == 0)); then
      order=()
      for authz in $modes; do order=("$authz" "${order[@]}"); done
    fi
    for authz in "${order[@]}"; do
      label=$store
      [[ $authz == RBAC ]] && label=$store-rbac
      [[ $authz == Audit ]] && label=$store-audit
      [[ $authz == Webhooks ]] && label=$store-webhooks
      [[ $authz == Kube ]] && label=$store-kube
      echo "== API on $store, $authz, run $run/$runs"
      start_serve "$store" "$authz" "$label" "$run"
      bearer=$token
      if [[ $authz == RBAC ]]; then
        load_policy "$label" | tee -a "$out/api.$run.txt"
        bearer=$rbac_token
      fi
      [[ $authz == Webhooks ]] && dead_webhooks "$label" | tee -a "$out/api.$run.txt"
      for transport in h1 h2; do
        for i in 0 1; do
          load "$label" "$transport" get "${clients[$i]}" "${get_n[$i]}" | tee -a "$out/api.$run.txt"
          load "$label" "$transport" create "${clients[$i]}" "${create_n[$i]}" | tee -a "$out/api.$run.txt"
          load "$label" "$transport" getdeploy "${clients[$i]}" "${create_n[$i]}" | tee -a "$out/api.$run.txt"
          load "$label" "$transport" apply "${clients[$i]}" "${create_n[$i]}" | tee -a "$out/api.$run.txt"
        done
      done
      stop_pid "$serve_pid"
    done
  done
done
