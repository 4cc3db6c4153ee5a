#!/usr/bin/env bash
# Usage: verbs_scenarios.sh SCENARIO /path/to/kw SOURCE_DIR
# Starts `kw serve` on a free port with a temp data dir (for the scenarios that need a
# server) and checks kw's write verbs, api-resources, config, completion and man pages,
# comparing with kubectl where kubectl does the same thing.
set -euo pipefail
[[ -n "${KW_TEST_TRACE:-}" ]] && set -x
scenario=$1
KW=$(realpath "$2")
SRC=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/kw-verbs-XXXXXX")
KW_SERVE=$KW
# shellcheck source=../support/kw_server.sh
source "$(dirname "$0")/../support/kw_server.sh"
cleanup() {
  kill_server
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "$scenario: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

mkdir -p "$work/home" "$work/bin"
ln -s "$KW" "$work/bin/kw"
export HOME="$work/home" KUBECONFIG="" XDG_CACHE_HOME="" PATH="$work/bin:$PATH"

# A kubeconfig pointing at the server, so kw and kubectl need no flags.
write_kubeconfig() {
  mkdir -p "$HOME/.kube"
  cat >"$HOME/.kube/config" <<CFG
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: $url
contexts:
- name: local
  context:
    cluster: local
    user: me
    namespace: default
current-context: local
users:
- name: me
  user: {}
CFG
}

kw() { timeout 30 "$KW" "$@"; }
kubectl() { timeout 30 /usr/bin/kubectl "$@"; }

manifests() {
  mkdir -p "$work/m/v1" "$work/m/v2"
  cat >"$work/m/v1/app.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
    tier: front
spec:
  containers:
  - name: main
    image: nginx:1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep
spec:
  replicas: 1
  selector:
    matchLabels: {app: dep}
  template:
    metadata:
      labels: {app: dep}
    spec:
      containers:
      - name: c
        image: nginx
      - name: helper
        image: busybox
YAML
  cat >"$work/m/v1/cm.json" <<'JSON'
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"mode": "fast"}}
JSON
  # v2: the pod's tier label dropped and its image changed (all a pod may change), the
  # Deployment's helper container dropped and its replicas scaled.
  sed -e '/tier: front/d' -e 's/nginx:1/nginx:2/' -e '/name: helper/,+1d' -e 's/replicas: 1/replicas: 3/' \
    "$work/m/v1/app.yaml" >"$work/m/v2/app.yaml"
  cp "$work/m/v1/cm.json" "$work/m/v2/cm.json"
}

# Runs one client (kw or kubectl) through a sequence and records stdout and stderr lines and
# each failing line's exit code.
run_sequence() {  # TOOL SEQUENCE OUT
  local tool=$1 sequence=$2 out=$3
  : >"$out"
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    echo "\$ $line" >>"$out"
    # shellcheck disable=SC2086
    $tool $line >>"$out" 2>&1 || echo "(exit $?)" >>"$out"
  done <<<"$sequence"
}

# The objects kubectl's examples name, and the files they read, created the same way before
# each tool's run on a fresh server. kw serve runs no controllers: statuses, ReplicaSets and
# ControllerRevisions are written here as the controllers would.
examples_setup() {
  local ex=$work/ex
  mkdir -p "$ex/bar"
  printf 'one' >"$ex/bar/file1.txt"; printf 'two' >"$ex/bar/file2.txt"
  printf 'A=1\n# note\nB=two words\n' >"$ex/foo.env"; printf 'C=3\n' >"$ex/bar.env"
  printf 'not a real key\n' >"$ex/id_rsa"
  cat >"$ex/pod.json" <<'JSON'
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-pod-13je7", "labels": {"app": "web"}},
 "spec": {"containers": [{"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}]}}
JSON
  cat >"$ex/foo.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: mysql}
spec:
  replicas: 2
  selector: {matchLabels: {app: mysql}}
  template:
    metadata: {labels: {app: mysql}}
    spec: {containers: [{name: mysql, image: mysql:8}]}
YAML
  cat >"$ex/deploy.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: ssa, labels: {app: ssa}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ssa}}
  template:
    metadata: {labels: {app: ssa}}
    spec: {containers: [{name: web, image: nginx:1.25}]}
YAML
  printf 'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: abc}\n' >"$ex/abc-ds.yaml"
  local pod='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":{"app":"%s","name":"%s"}},
    "spec":{"containers":[{"name":"c","image":"busybox"}]}}\n'
  {
    for n in backend test-namespace myns foo prod monitoring; do
      printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s"}}\n' "$n"
    done
    cat "$ex/pod.json"; echo ---; cat "$ex/foo.yaml"
    # shellcheck disable=SC2059
    for p in test-pod busybox1 foo baz; do printf "$pod" "$p" "$p" "$p"; done
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"labelled","labels":{"name":"myLabel"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}\n'
    for s in frontend foo; do
      printf '{"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","labels":{"name":"%s"}},"spec":{"ports":[{"port":80}],"selector":{"app":"web"}}}\n' "$s" "$s"
    done
    for rc in web example1 example2 example3; do
      printf '{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"%s"},"spec":{"replicas":1,"selector":{"app":"%s"},"template":{"metadata":{"labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}\n' "$rc" "$rc" "$rc"
    done
    for d in default/nginx default/abc backend/api test-namespace/one test-namespace/two; do
      printf '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%s","namespace":"%s","labels":{"app":"nginx"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"%s"}},"template":{"metadata":{"labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"nginx:1.24"}]}}}}\n' \
        "${d#*/}" "${d%/*}" "${d#*/}" "${d#*/}"
    done
    printf '{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"foo"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"foo"}},"template":{"metadata":{"labels":{"app":"foo"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}\n'
    printf '{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"web"},"spec":{"replicas":1,"serviceName":"web","selector":{"matchLabels":{"app":"sts"}},"template":{"metadata":{"labels":{"app":"sts"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}\n'
    printf '{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"abc"},"spec":{"selector":{"matchLabels":{"app":"ds"}},"template":{"metadata":{"labels":{"app":"ds"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}}}\n'
    printf '{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"a-cronjob"},"spec":{"schedule":"*/1 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}\n'
    printf '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"myapp"}}\n'
    printf '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"myapp","namespace":"myns"}}\n'
    printf '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"mysecret"},"stringData":{"k":"v"}}\n'
    printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"k8s-node-1"}}\n'
    # What describe shows of kinds the examples above leave out.
    printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi"},"spec":{"backoffLimit":4,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"pi","image":"perl","command":["perl","-e","print 1"]}]}}}}\n'
    printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"game-config","labels":{"game":"yes"}},"data":{"ui.properties":"color.good=purple\\ncolor.bad=yellow\\n"},"binaryData":{"blob":"AAEC"}}\n'
    printf '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"viewers"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"},{"kind":"ServiceAccount","name":"myapp","namespace":"default"}]}\n'
    printf '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"compute","namespace":"prod"},"spec":{"hard":{"pods":"10","requests.cpu":"2"}}}\n'
    printf '{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"limits","namespace":"prod"},"spec":{"limits":[{"type":"Container","default":{"cpu":"500m"},"defaultRequest":{"cpu":"100m"},"max":{"cpu":"1"}}]}}\n'
    printf '{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"standard","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"example.com/local","reclaimPolicy":"Delete","volumeBindingMode":"WaitForFirstConsumer"}\n'
    printf '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv1"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"standard","hostPath":{"path":"/data"},"claimRef":{"namespace":"monitoring","name":"claim2"},"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["k8s-node-1"]}]}]}}}}\n'
    printf '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv2"},"spec":{"capacity":{"storage":"2Gi"},"accessModes":["ReadWriteMany","ReadOnlyMany"],"nfs":{"server":"nfs.example.com","path":"/x"}}}\n'
    printf '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"claim1","namespace":"monitoring"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"storageClassName":"standard"}}\n'
    printf '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"claim2","namespace":"monitoring"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeName":"pv1"}}\n'
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"claimant","namespace":"monitoring"},"spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"ME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"MEM","valueFrom":{"resourceFieldRef":{"resource":"limits.memory"}}}]}],"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"claim1"}},{"name":"scratch","ephemeral":{"volumeClaimTemplate":{"metadata":{"labels":{"type":"scratch"}},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"standard","resources":{"requests":{"storage":"1Gi"}}}}}}]}}\n'
    printf '{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"frontend"},"subsets":[{"addresses":[{"ip":"10.1.1.1"},{"ip":"10.1.1.2"}],"notReadyAddresses":[{"ip":"10.1.1.3"}],"ports":[{"port":80,"protocol":"TCP"}]}]}\n'
    printf '{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"frontend"},"spec":{"tls":[{"hosts":["a.example.com"],"secretName":"tls1"}],"rules":[{"host":"a.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"frontend","port":{"number":80}}}},{"path":"/api","pathType":"Prefix","backend":{"service":{"name":"api","port":{"name":"http"}}}}]}}]}}\n'
    printf '{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}}}\n'
    printf '{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"db"},"spec":{"podSelector":{"matchLabels":{"role":"db"}},"policyTypes":["Ingress","Egress"],"ingress":[{"from":[{"ipBlock":{"cidr":"172.17.0.0/16","except":["172.17.1.0/24"]}},{"namespaceSelector":{"matchLabels":{"project":"myproject"}},"podSelector":{"matchLabels":{"role":"frontend"}}}],"ports":[{"protocol":"TCP","port":6379}]},{}],"egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/24"}}],"ports":[{"protocol":"TCP","port":32000,"endPort":32768}]}]}}\n'
    printf '{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"nginx"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"},"minReplicas":1,"maxReplicas":10,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},{"type":"Pods","pods":{"metric":{"name":"packets"},"target":{"type":"AverageValue","averageValue":"1k"}}}],"behavior":{"scaleDown":{"stabilizationWindowSeconds":300,"policies":[{"type":"Pods","value":4,"periodSeconds":60}]}}}}\n'
    printf '{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx"},"spec":{"controller":"k8s.io/ingress-nginx","parameters":{"apiGroup":"k8s.example.com","kind":"IngressParameters","name":"external-lb"}}}\n'
    printf '{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"frontend-abc","labels":{"kubernetes.io/service-name":"frontend"}},"addressType":"IPv4","ports":[{"name":"http","protocol":"TCP","port":80}],"endpoints":[{"addresses":["10.1.2.3"],"conditions":{"ready":true},"hostname":"pod-1","nodeName":"k8s-node-1","targetRef":{"kind":"Pod","name":"p1","namespace":"default"}},{"addresses":["10.1.2.4"]}]}\n'
  } | awk '/^\{/ {print "---"} {print}' | "$KW" create -f - >/dev/null
  # A custom resource, for describe's generic text.
  printf '%s\n' 'apiVersion: apiextensions.k8s.io/v1' 'kind: CustomResourceDefinition' \
    'metadata: {name: widgets.example.com}' 'spec:' '  group: example.com' \
    '  names: {kind: Widget, plural: widgets, singular: widget}' '  scope: Namespaced' '  versions:' \
    '  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}' |
    "$KW" create -f - >/dev/null
  "$KW" wait --for=condition=Established crd/widgets.example.com --timeout=20s >/dev/null
  printf '%s\n' 'apiVersion: example.com/v1' 'kind: Widget' 'metadata: {name: w1, labels: {app: w}}' \
    'spec: {size: 3, ratio: 1.5, enabled: true, nothing: null, tags: [a, b], items: [{name: i1, weight: 2}, {name: i2}], some-dash: z, example.com/key: v}' |
    "$KW" create -f - >/dev/null
  # A signing request with a subject and alternative names of each kind (one key for both runs).
  [[ -f $ex/csr.pem ]] || openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$ex/csr.key" -out "$ex/csr.pem" -subj "/CN=alice/O=dev/O=ops/OU=web/C=DE/L=Berlin/ST=Berlin/serialNumber=42" \
    -addext "subjectAltName=DNS:a.example.com,DNS:b.example.com,email:a@example.com,URI:spiffe://example.com/a,IP:192.168.9.1,IP:fd00::1" \
    2>/dev/null
  printf '{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"alice","labels":{"team":"a"}},"spec":{"request":"%s","signerName":"kubernetes.io/kube-apiserver-client","expirationSeconds":86400,"usages":["client auth"]}}' \
    "$(base64 -w0 "$ex/csr.pem")" | "$KW" create -f - >/dev/null
  # Days-old events, so both clients print the same ages.
  local when
  when=$(date -u -d '-50 hours' +%FT%T.000000Z)
  for e in default/one:Normal:Pulled default/two:Warning:BackOff backend/three:Normal:Created; do
    IFS=: read -r where type reason <<<"$e"
    curl -sf -X POST -H 'Content-Type: application/json' -d "{\"apiVersion\":\"events.k8s.io/v1\",
      \"kind\":\"Event\",\"metadata\":{\"name\":\"${where#*/}\"},\"eventTime\":\"$when\",
      \"reportingController\":\"kubelet\",\"reportingInstance\":\"k8s-node-1\",\"action\":\"$reason\",
      \"regarding\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"name\":\"web-pod-13je7\",\"namespace\":\"${where%/*}\"},
      \"type\":\"$type\",\"reason\":\"$reason\",\"note\":\"$reason the pod\"}" \
      "$url/apis/events.k8s.io/v1/namespaces/${where%/*}/events" >/dev/null
  done
  # Events of the pod and of deployment/nginx as describe finds them: by uid (the ones above
  # name no uid, so describe passes them over). The newest has no lastTimestamp.
  local kind name uid event type reason count
  for event in Pod:web-pod-13je7:Warning:BackOff:5 Pod:web-pod-13je7:Normal:Scheduled:1 \
      Deployment:nginx:Normal:ScalingReplicaSet:1; do
    IFS=: read -r kind name type reason count <<<"$event"
    uid=$("$KW" get "$kind" "$name" -o jsonpath='{.metadata.uid}')
    curl -sf -X POST -H 'Content-Type: application/json' -d "{\"apiVersion\":\"v1\",\"kind\":\"Event\",
      \"metadata\":{\"name\":\"$name.${reason,,}\"},\"involvedObject\":{\"kind\":\"$kind\",\"name\":\"$name\",
      \"namespace\":\"default\",\"uid\":\"$uid\"},\"type\":\"$type\",\"reason\":\"$reason\",
      \"message\":\"$reason of $name\",\"count\":$count,\"firstTimestamp\":\"$when\",\"lastTimestamp\":\"$when\",
      \"source\":{\"component\":\"kubelet\"}}" "$url/api/v1/namespaces/default/events" >/dev/null
  done
  uid=$("$KW" get pod web-pod-13je7 -o jsonpath='{.metadata.uid}')
  curl -sf -X POST -H 'Content-Type: application/json' -d "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",
    \"metadata\":{\"name\":\"pulled\"},\"eventTime\":\"$when\",\"reportingController\":\"kubelet\",
    \"reportingInstance\":\"k8s-node-1\",\"action\":\"Pulled\",\"regarding\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",
    \"name\":\"web-pod-13je7\",\"namespace\":\"default\",\"uid\":\"$uid\"},\"type\":\"Normal\",\"reason\":\"Pulled\",
    \"note\":\"Pulled the image\"}" "$url/apis/events.k8s.io/v1/namespaces/default/events" >/dev/null
  # deployment/nginx has rolled out; deployment/abc has three revisions, as its controller
  # would have left them: a ReplicaSet each, owned by the Deployment, the newest the
  # Deployment's own template. daemonset/abc has two ControllerRevisions.
  curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
    -d '{"status":{"observedGeneration":1,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}' \
    "$url/apis/apps/v1/namespaces/default/deployments/nginx/status" >/dev/null
  # job/pi ran for 2m5s, two days ago, as its controller would have recorded it.
  local started finished
  started=$(date -u -d '-50 hours' +%FT%TZ); finished=$(date -u -d '-50 hours +125 seconds' +%FT%TZ)
  curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
    -d "{\"status\":{\"startTime\":\"$started\",\"completionTime\":\"$finished\",\"succeeded\":1,\"ready\":0,
      \"terminating\":0,\"uncountedTerminatedPods\":{},\"conditions\":[
      {\"type\":\"SuccessCriteriaMet\",\"status\":\"True\",\"lastProbeTime\":\"$finished\",\"lastTransitionTime\":\"$finished\"},
      {\"type\":\"Complete\",\"status\":\"True\",\"lastProbeTime\":\"$finished\",\"lastTransitionTime\":\"$finished\"}]}}" \
    "$url/apis/batch/v1/namespaces/default/jobs/pi/status" >/dev/null
  "$KW" annotate deployment abc deployment.kubernetes.io/revision=3 >/dev/null
  local uid
  uid=$("$KW" get deployment abc -o jsonpath='{.metadata.uid}')
  # Revision 1 has a bit of everything kubectl's pod template description shows.
  local rich_pod='"serviceAccountName":"builder","nodeSelector":{"disk":"ssd","zone":"a"},
    "tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule"},{"operator":"Exists"},
      {"key":"t","operator":"Exists","effect":"NoExecute","tolerationSeconds":30}],
    "volumes":[{"name":"cache","emptyDir":{}},{"name":"conf","configMap":{"name":"cm"}},
      {"name":"sec","secret":{"secretName":"s","optional":true}},{"name":"data","persistentVolumeClaim":{"claimName":"pvc"}},
      {"name":"host","hostPath":{"path":"/var/log","type":"Directory"}}],
    "initContainers":[{"name":"init","image":"busybox","command":["sh","-c","echo hi"]}],'
  local rich_container=',"ports":[{"containerPort":80},{"containerPort":443,"hostPort":8443}],"command":["nginx"],
    "args":["--x","--y"],"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"100m"}},
    "livenessProbe":{"httpGet":{"path":"/healthz","port":8080}},"readinessProbe":{"tcpSocket":{"port":80},"periodSeconds":5},
    "env":[{"name":"A","value":"1"},{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
      {"name":"S","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}},
      {"name":"C","valueFrom":{"configMapKeyRef":{"name":"cm","key":"k","optional":true}}}],
    "envFrom":[{"configMapRef":{"name":"cm"}},{"secretRef":{"name":"s"},"prefix":"S_"}],
    "volumeMounts":[{"name":"conf","mountPath":"/etc/conf","readOnly":true},{"name":"cache","mountPath":"/cache","subPath":"x"}]'
  for r in 1:nginx:1.22:hash1 2:nginx:1.23:hash2 3:nginx:1.24:hash3; do
    IFS=: read -r rev image tag hash <<<"$r"
    printf '{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"abc-%s","labels":{"app":"abc","pod-template-hash":"%s"},
      "annotations":{"deployment.kubernetes.io/revision":"%s"%s},
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"abc","uid":"%s","controller":true,"blockOwnerDeletion":true}]},
      "spec":{"replicas":0,"selector":{"matchLabels":{"app":"abc","pod-template-hash":"%s"}},
      "template":{"metadata":{"labels":{"app":"abc","pod-template-hash":"%s"}},"spec":{%s"containers":[{"name":"c","image":"%s:%s"%s}]}}}}\n' \
      "$hash" "$hash" "$rev" "$([[ $rev == 2 ]] && echo ',"kubernetes.io/change-cause":"kubectl set image deployment/abc c=nginx:1.23"')" \
      "$uid" "$hash" "$hash" "$([[ $rev == 1 ]] && echo "$rich_pod")" "$image" "$tag" "$([[ $rev == 1 ]] && echo "$rich_container")"
  done | "$KW" create -f - >/dev/null
  uid=$("$KW" get daemonset abc -o jsonpath='{.metadata.uid}')
  for rev in 1 2; do
    printf '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"abc-rev%s","labels":{"app":"ds"},
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"abc","uid":"%s","controller":true,"blockOwnerDeletion":true}]},
      "revision":%s,"data":{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"ds"}},"spec":{"containers":[{"name":"c","image":"nginx:%s"}]}}}}}\n' \
      "$rev" "$uid" "$rev" "$rev"
  done | "$KW" create -f - >/dev/null
}

# Runs one client through the example lines (shell quoting applies) and records stdout,
# stderr and each failing line's exit code, with what differs from run to run (ages,
# times, uids, tokens, the diff tool's temp paths) replaced.
run_examples() {  # TOOL OUT
  local tool=$1 out=$2 line
  : >"$out"
  while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    echo "\$ $line" >>"$out"
    EX=$work/ex URL=$url eval "$tool $line" >>"$out" 2>&1 </dev/null || echo "(exit $?)" >>"$out"
  done <"$SRC/tests/integration/verbs/kubectl_examples.txt"
  # Ages (and the table spacing they change), times (RFC 3339, and describe's RFC 1123 and Go
  # time.String()), uids,
  # tokens, allocated IPs, the names of
  # generated volumes and resourceVersions (the server's own writes, such as each namespace's
  # root CA ConfigMap, interleave with the setup's); kw names itself where kubectl does in the
  # apply warning.
  sed -i -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/<time>/g' \
    -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uid>/g' \
    -e 's/eyJ[A-Za-z0-9_.-]+/<token>/g' -e 's#/tmp/[A-Za-z0-9_./-]+(\t.*)?#<tmp>#g' \
    -e 's/kube-api-access-[a-z0-9]{5}/kube-api-access-<x>/g' -e 's/10\.0\.[0-9]+\.[0-9]+/<ip>/g' \
    -e 's/("?resourceVersion"?: )"[0-9]+"/\1"<rv>"/g' -e 's/^( *Resource Version: +)[0-9]+$/\1<rv>/' \
    -e 's/[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} [+-][0-9]{4}/<time>/g' \
    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} [+-][0-9]{4} [A-Z]+/<time>/g' \
    -e 's/kw (apply|create)/kubectl \1/g' \
    -e '/^\$ /!s/(^| )[0-9]+[smhd]([0-9]+[smh])?( |$)/\1<age>\3/g' \
    -e '/^\$ /!{/<age>|AGE|LAST SEEN/s/  +/  /g}' "$out"
}

case "$scenario" in
  kubectl_examples_vs_kubectl)
    # kubectl's documented examples, each tool on a fresh server with the same objects (which
    # lives long enough for kubectl's slower run on a loaded machine).
    KW_SERVE_TIMEOUT=300
    for tool in kw kubectl; do
      kill_server; rm -rf "$work/data"; start_server; write_kubeconfig
      examples_setup
      run_examples "$tool" "$work/$tool.out"
    done
    diff -u "$work/kubectl.out" "$work/kw.out"
    [[ $(grep -c '^\$ ' "$work/kw.out") -ge 80 ]]
    grep -qx 'deployment.apps/abc rolled back' "$work/kw.out"
    # describe printed the objects themselves: a pod's events, the pods that use a claim, a
    # fieldRef's value, a custom resource's fields.
    grep -qx '  Warning  BackOff  <age> (x5 over 2d2h)  kubelet  BackOff of web-pod-13je7' "$work/kw.out"
    grep -qE '^Used By: +claimant$' "$work/kw.out"
    grep -qE '^      ME: +claimant \(v1:metadata.name\)$' "$work/kw.out"
    grep -qE '^  Some - Dash: +z$' "$work/kw.out"
    ;;

  create_delete_vs_kubectl)
    start_server; write_kubeconfig; manifests
    seq="create -f $work/m/v1
create -f $work/m/v1/app.yaml
get pods -o name
delete -f $work/m/v1
delete -f $work/m/v1/app.yaml
create -f $work/m/v1/cm.json
delete configmap settings
delete configmap settings
delete pods --all"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'pod/web created' "$work/kw.out"
    grep -qx 'deployment.apps/dep created' "$work/kw.out"
    grep -qx 'pod "web" deleted' "$work/kw.out"
    # stdin and labels selectors
    kw create -f - <"$work/m/v1/cm.json" | contains -x 'configmap/settings created'
    kw label configmap settings env=test >/dev/null
    kw delete configmap -l env=test | contains -x 'configmap "settings" deleted'
    kw get configmaps -o name | { ! grep -q settings; }
    ;;

  apply_vs_kubectl)
    start_server; write_kubeconfig; manifests
    seq="apply -f $work/m/v1
apply -f $work/m/v1
label pod web owner=ops
apply -f $work/m/v2
apply -f $work/m/v2
get pod web -o jsonpath={.metadata.labels}
get deployment dep -o jsonpath={.spec.template.spec.containers[*].name}
get pod web -o jsonpath={.spec.containers[*].image}
get deployment dep -o jsonpath={.spec.replicas}
delete -f $work/m/v2"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'pod/web configured' "$work/kw.out"
    grep -qx 'pod/web unchanged' "$work/kw.out"
    # The label added by another writer survived; the dropped one is gone.
    grep -q '"owner":"ops"' "$work/kw.out"
    ! grep -q 'tier' <(grep -A1 'jsonpath={.metadata.labels}' "$work/kw.out")
    # What kw apply leaves behind is what kubectl apply expects: kubectl sees nothing to change.
    kw apply -f "$work/m/v1" >/dev/null
    kubectl apply -f "$work/m/v1" >"$work/cross.out"
    grep -qx 'pod/web unchanged' "$work/cross.out"
    grep -qx 'deployment.apps/dep unchanged' "$work/cross.out"
    kubectl apply -f "$work/m/v2" >/dev/null
    kw apply -f "$work/m/v2" | contains -x 'pod/web unchanged'
    ;;

  server_side_apply_vs_kubectl)
    start_server; write_kubeconfig; manifests
    seq="apply --server-side -f $work/m/v1
apply --server-side -f $work/m/v1
apply --server-side -f $work/m/v2
get pod web -o jsonpath={.metadata.labels}
get deployment dep -o jsonpath={.spec.template.spec.containers[*].name}
get deployment dep -o jsonpath={.spec.replicas}
apply --server-side --dry-run=client -f $work/m/v2
apply --force-conflicts -f $work/m/v2"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    # The error wording of the two refused lines is each client's own.
    diff -u <(grep -v '^error' "$work/kubectl.out") <(grep -v '^error' "$work/kw.out")
    grep -qx 'pod/web serverside-applied' "$work/kw.out"
    # Fields set by kubectl's manager name belong to kw's too: another manager conflicts.
    ! kw apply --server-side --field-manager other -f "$work/m/v1/app.yaml" 2>"$work/conflict.err"
    grep -q 'Apply failed with' "$work/conflict.err"
    grep -q -- '--force-conflicts' "$work/conflict.err"
    kw apply --server-side --field-manager other --force-conflicts -f "$work/m/v1/app.yaml" |
      contains -x 'pod/web serverside-applied'
    [[ $(kw get pod web -o jsonpath='{.spec.containers[0].image}') == nginx:1 ]]
    # managedFields: hidden from -o yaml unless asked for, as kubectl does.
    ! kw get pod web -o yaml | contains managedFields
    kw get pod web -o json --show-managed-fields | contains '"manager": *"other"'
    diff <(kw get pod web -o json | grep -v resourceVersion) <(kubectl get pod web -o json | grep -v resourceVersion)
    ;;

  categories_vs_kubectl)
    # A category ("all") stands for its resources wherever a selector or --all picks objects.
    start_server; write_kubeconfig
    seq="label all -l app=cat tier=web
get pods,services -l tier=web -o name
annotate all -l app=cat note=x
delete all -l app=cat
get configmaps -o name"
    for tool in kubectl kw; do
      for kind in pods services configmaps; do
        case $kind in
          pods) body='{"metadata":{"name":"p1","labels":{"app":"cat"}},"spec":{"containers":[{"name":"c","image":"i"}]}}' ;;
          services) body='{"metadata":{"name":"s1","labels":{"app":"cat"}},"spec":{"ports":[{"port":80}]}}' ;;
          configmaps) body='{"metadata":{"name":"c1","labels":{"app":"cat"}}}' ;;
        esac
        curl -sSf -X POST -H 'Content-Type: application/json' "$url/api/v1/namespaces/default/$kind" -d "$body" >/dev/null
      done
      run_sequence "$tool" "$seq" "$work/$tool.out"
      curl -sSf -X DELETE "$url/api/v1/namespaces/default/configmaps/c1" >/dev/null
    done
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'service "s1" deleted' "$work/kw.out"
    grep -qx 'configmap/c1' "$work/kw.out"
    ;;

  label_annotate_patch)
    start_server; write_kubeconfig; manifests
    kw create -f "$work/m/v1/app.yaml" >/dev/null
    seq="label pod web x=1
label pod web x=1
label pod web x=2
label pod web x=2 --overwrite
label pod web x-
label pods -l app=web y=1
annotate pod web note=hello
annotate pod web note=again
annotate pod web note=again --overwrite
annotate pod/web note-
patch pod web -p {\"metadata\":{\"labels\":{\"p\":\"1\"}}}
patch pod web --type merge -p {\"metadata\":{\"labels\":{\"m\":\"1\"}}}
patch pod web --type json -p [{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\",\"value\":\"nginx:3\"}]
patch pod web --type strategic -p {\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx:4\"}]}}
patch pod missing -p {}
get pod web -o jsonpath={.metadata.labels}
get pod web -o jsonpath={.spec.containers[*].image}"
    run_sequence kw "$seq" "$work/kw.out"
    kw delete -f "$work/m/v1/app.yaml" >/dev/null
    kw create -f "$work/m/v1/app.yaml" >/dev/null
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'pod/web not labeled' "$work/kw.out"
    grep -q "'x' already has a value (1), and --overwrite is false" "$work/kw.out"
    grep -qx 'nginx:4' "$work/kw.out"
    ;;

  dry_run_vs_kubectl)
    start_server; write_kubeconfig; manifests
    # Nothing a dry run does may be stored; the outcome lines match kubectl's.
    seq="create -f $work/m/v1/cm.json --dry-run=server
create -f $work/m/v1/cm.json --dry-run=client
create -f $work/m/v1/cm.json --dry-run=client -o name
get configmap settings -o name
create -f $work/m/v1/cm.json -o name
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath={.metadata.name}
create -f $work/m/v1/cm.json --dry-run=server -o go-template={{.metadata.name}}{{.kind}}
create -f $work/m/v1/cm.json --dry-run=client -o wide
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath={.a
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath --template={.kind}
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath={.data.mode[3]}
create -f $work/m/v1/cm.json --dry-run=client -o go-template={{.data.mode.x}}
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath={.nope} --allow-missing-template-keys=false
create configmap s --from-literal=a=1 --dry-run=client -o go-template={{.nope}} --allow-missing-template-keys=false
create deployment d --image=x --replicas=3 --dry-run=client -o go-template={{.spec.replicas.x}}
create deployment d --image=x --replicas=3 --dry-run=client -o jsonpath={.spec.replicas}{.spec.template.spec.containers[5]}
create -f $work/m/v1/cm.json --dry-run=client -o jsonpath-as-json={.metadata.name}{.data}{.nope}
get configmap settings -o jsonpath-as-json={.data.*}
label configmap settings x=1 --dry-run=server -o jsonpath={.metadata.labels.x}
annotate configmap settings note=hi --dry-run=server --template={{.kind}}
patch configmap settings --type merge -p {\"data\":{\"extra\":\"1\"}} --dry-run=server -o template={{.data.extra}}
label configmap settings x=1 --dry-run=server
label configmap settings x=1 --dry-run=client
annotate configmap settings note=hi --dry-run=server
patch configmap settings --type merge -p {\"data\":{\"extra\":\"1\"}} --dry-run=server
patch configmap settings --type merge -p {\"data\":{\"extra\":\"1\"}} --dry-run=client
get configmap settings -o jsonpath={.metadata.labels}{.metadata.annotations}{.data}
delete configmap settings --dry-run=server
delete configmap settings --dry-run=client
get configmap settings -o name
label configmap settings x=1 -o name
delete configmap settings -o name
get configmap settings -o name"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'configmap/settings created (server dry run)' "$work/kw.out"
    grep -qx 'configmap "settings" deleted (dry run)' "$work/kw.out"
    kw create -f "$work/m/v1/cm.json" --dry-run=client -o yaml | contains -x '  mode: fast'
    out=$(kw patch configmap x -p '{}' --dry-run=client 2>&1 || true)
    grep -q 'use --dry-run=server' <<<"$out"
    kw create -f "$work/m/v1/cm.json" >/dev/null
    kw patch configmap settings --type json -p '[{"op":"add","path":"/data/j","value":"2"}]' --dry-run=client \
      -o json | contains '"j": "2"'
    [[ -z $(kw get configmap settings -o jsonpath='{.data.j}') ]]
    ;;

  create_variants_vs_kubectl)
    start_server; write_kubeconfig
    mkdir -p "$work/d/dir"
    printf 'x=1\n# comment\n\ny=2\n' >"$work/d/env"
    printf 'hello' >"$work/d/f1"
    printf 'a' >"$work/d/dir/one"; printf 'b' >"$work/d/dir/two"
    d=$work/d
    seq="create namespace x --dry-run=client -o yaml
create namespace n1 --dry-run=client -o yaml -n foo
create configmap c --from-literal=a=1 --from-literal=b=2 --dry-run=client -o yaml -n ns
create configmap e --from-env-file=$d/env --dry-run=client -o yaml
create configmap f --from-file=$d/f1 --from-file=k2=$d/f1 --from-file=$d/dir --dry-run=client -o yaml
create secret generic f --from-file=$d/f1 --type=Opaque --dry-run=client -o yaml
create secret generic s2 --dry-run=client -o yaml
create configmap g --from-file=$d/none --dry-run=client
create configmap h --from-literal=bad/key=1 --dry-run=client
create configmap c3 --from-literal=a=1 --from-literal=a=2
create configmap c2 --from-literal=a
create secret tls t
create secret tls t --cert=$d/none --key=$d/f1
create secret tls t --cert=$d/f1 --key=$d/f1
create secret docker-registry r --docker-server=s --docker-username=u --docker-password=p --dry-run=client -o yaml
create secret docker-registry r2 --docker-username=u --docker-password=p --docker-email=e@x --dry-run=client -o yaml
create deployment d --image=nginx --replicas=3 --port=80 --dry-run=client -o yaml
create deployment d --image=nginx --image=busybox:1.2 --image=reg.io/a/b@sha256:abc --dry-run=client -o yaml
create job j --image=busybox --dry-run=client -o yaml
create job j --image=busybox --dry-run=client -o yaml -- echo hi
create job j --image=busybox --dry-run=client -o name
create namespace v1
create namespace v1
create configmap v1 --from-literal=a=1
create configmap v1 --from-literal=a=1
create secret generic v1 --from-literal=a=1
create secret generic v1 --from-literal=a=1
create deployment v1 --image=nginx
create deployment v1 --image=nginx
create deployment v2 --image=nginx --dry-run=server
create job v1 --image=busybox
create job v1 --image=busybox
create deployment v3
get configmap v1 -o jsonpath={.data}
get secret v1 -o jsonpath={.data}
get deployment v1 -o jsonpath={.spec.template.spec.containers}"
    run_sequence kw "$seq" "$work/kw.out"
    for object in namespace/v1 configmap/v1 secret/v1 deployment/v1 job/v1; do kw delete "$object" >/dev/null; done
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'namespace/v1 created' "$work/kw.out"
    grep -qx 'deployment.apps/v1 created' "$work/kw.out"
    grep -qx 'job.batch/v1 created' "$work/kw.out"
    grep -qx 'error: failed to create configmap: configmaps "v1" already exists' "$work/kw.out"
    # A client dry run needs no server and no kubeconfig, as kubectl's.
    offline="create deployment off --image=nginx --dry-run=client -o yaml
create deployment off --image=nginx --dry-run=client -n elsewhere
create namespace off --dry-run=client -o name
create configmap off --from-literal=a=1 --dry-run=client -o yaml -n elsewhere"
    ( export HOME="$work/nohome" KUBECONFIG=""; mkdir -p "$HOME"
      run_sequence kw "$offline" "$work/kw.offline"; run_sequence kubectl "$offline" "$work/kubectl.offline" )
    diff -u "$work/kubectl.offline" "$work/kw.offline"
    grep -qx 'deployment.apps/off created (dry run)' "$work/kw.offline"
    ;;

  scale_vs_kubectl)
    start_server; write_kubeconfig
    kw create deployment other --image=nginx >/dev/null
    seq="create deployment sd --image=nginx
scale deployment sd --replicas=3
scale deployment/sd --replicas=2 --current-replicas=1
get deployment sd -o jsonpath={.spec.replicas}
scale deployment sd
scale deployment nope --replicas=1
scale deployment nope gone --replicas=1
scale deployment sd nope --replicas=3
scale --replicas=2 deployment sd
scale deployment sd --replicas=5 --dry-run=client
scale deployment sd --replicas=5 --dry-run=server
get deployment sd -o jsonpath={.spec.replicas}
scale deployment sd --replicas=5 -o name
scale --replicas=1
scale deployment --replicas=1
scale deployments --all --replicas=4
scale deployments -l app=sd --replicas=6
scale deployments -l app=none --replicas=6
scale deployment sd --replicas=-2
get deployment sd -o jsonpath={.spec.replicas}
scale foos sd --replicas=1
get deployment sd --subresource scale -o custom-columns=NAME:.metadata.name,KIND:.kind,WANT:.spec.replicas
get deployment sd --subresource scale -o jsonpath={.spec.replicas}
get deployment sd --subresource nope
patch deployment sd --subresource scale --type merge -p {\"spec\":{\"replicas\":7}}
patch deployment sd --subresource nope --type merge -p {}
delete deployment sd"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'deployment.apps/sd scaled' "$work/kw.out"
    grep -qx 'error: Expected replicas to be 1, was 3' "$work/kw.out"
    # A matching --current-replicas reads the Scale and writes it back.
    kw create deployment pre --image=nginx >/dev/null
    kw scale deployment pre --replicas=3 --current-replicas=1 | contains -x 'deployment.apps/pre scaled'
    [[ $(kw get deployment pre -o jsonpath='{.spec.replicas}') == 3 ]]
    ;;

  wait_vs_kubectl)
    start_server; write_kubeconfig
    pod() {  # NAME: a pod with label app=NAME
      printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}' \
        "$1" "$1" | kw create -f - >/dev/null
    }
    set_status() {  # NAME STATUS-JSON
      curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' -d "{\"status\":$2}" \
        "$url/api/v1/namespaces/default/pods/$1/status" >/dev/null
    }
    pod p
    seq="wait pod/p --for=condition=Ready --timeout=1s
wait pod/p --for=delete --timeout=1s
wait pod/nope --for=delete --timeout=1s
wait pod/nope --for=condition=Ready --timeout=1s
wait pod/p --for=jsonpath={.status.phase}=Pending --timeout=1s
wait pod/p --for=jsonpath={.spec.containers[0].name}=c --timeout=1s
wait pod/p --for=jsonpath={.status.phase}=Running --timeout=1s
wait pod/p --for=bogus --timeout=1s
wait pod/p --timeout=1s
wait pods --all --for=jsonpath={.status.phase}=Pending --timeout=1s
wait pods -l app=p --for=jsonpath={.status.phase}=Pending --timeout=1s
wait pods -l app=none --for=delete --timeout=1s
wait pods -l app=none --for=condition=Ready --timeout=1s
wait pod/p --for=condition=Ready=false --timeout=1s
wait pod/p --for=jsonpath={.status.phase} --timeout=1s
wait pod/p --for=jsonpath=.status.phase=Pending --timeout=1s
wait pod/p --for=condition=Ready --timeout=0
wait pod/p --for=jsonpath={.status.phase}=Pending --timeout=0
wait pod --for=condition=Ready --timeout=1s
wait --for=condition=Ready --timeout=1s
wait pod/p --for=jsonpath={.spec.containers[*].name}=c --timeout=1s
wait pod/p --for=jsonpath={.spec}=c --timeout=1s
wait pod/p --for=jsonpath={.a}=b=c --timeout=1s
wait foos/p --for=delete
wait pod/p --for=create --timeout=1s
wait pod/nope --for=create --timeout=1s
wait pod/nope --for=Create --timeout=0
wait pods -l app=p --for=create --timeout=1s
wait pods -l app=none --for=create --timeout=1s
wait pod/p pod/nope --for=create --timeout=1s"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    # kubectl's informer may log that the watch its own one-second deadline cut short was short.
    diff -u <(grep -v '^[IWE][0-9]\{4\} .*very short watch' "$work/kubectl.out") "$work/kw.out"
    grep -qx 'error: timed out waiting for the condition on pods/p' "$work/kw.out"
    # The object changes while each tool waits: both print the same and exit 0.
    for tool in kw kubectl; do
      pod "w-$tool"
      $tool wait "pod/w-$tool" --for=condition=Ready --timeout=20s >"$work/$tool.ready" 2>&1 & waiter=$!
      sleep 1
      set_status "w-$tool" '{"conditions":[{"type":"Ready","status":"True"}]}'
      wait "$waiter"; echo "exit $?" >>"$work/$tool.ready"
      $tool wait "pod/w-$tool" --for=jsonpath='{.status.phase}'=Running --timeout=20s >"$work/$tool.phase" 2>&1 & waiter=$!
      sleep 1
      set_status "w-$tool" '{"phase":"Running"}'
      wait "$waiter"; echo "exit $?" >>"$work/$tool.phase"
      # Created while each tool waits, by name and by label.
      $tool wait "pod/c-$tool" --for=create --timeout=20s >"$work/$tool.create" 2>&1 & waiter=$!
      $tool wait pods -l "app=l-$tool" --for=create --timeout=20s >"$work/$tool.lcreate" 2>&1 & lwaiter=$!
      sleep 1
      pod "c-$tool"; pod "l-$tool"
      wait "$waiter"; echo "exit $?" >>"$work/$tool.create"
      wait "$lwaiter"; echo "exit $?" >>"$work/$tool.lcreate"
      $tool wait "pod/w-$tool" --for=delete --timeout=20s >"$work/$tool.delete" 2>&1 & waiter=$!
      sleep 1
      kw delete pod "w-$tool" >/dev/null
      wait "$waiter"; echo "exit $?" >>"$work/$tool.delete"
    done
    diff -u <(sed 's/w-kubectl/w-kw/' "$work/kubectl.ready") "$work/kw.ready"
    diff -u <(sed 's/w-kubectl/w-kw/' "$work/kubectl.phase") "$work/kw.phase"
    diff -u <(sed 's/w-kubectl/w-kw/' "$work/kubectl.delete") "$work/kw.delete"
    diff -u <(sed 's/-kubectl/-kw/' "$work/kubectl.create") "$work/kw.create"
    diff -u <(sed 's/-kubectl/-kw/' "$work/kubectl.lcreate") "$work/kw.lcreate"
    grep -qx 'pod/c-kw condition met' "$work/kw.create"
    grep -qx 'pod/l-kw condition met' "$work/kw.lcreate"
    grep -qx 'pod/w-kw condition met' "$work/kw.ready"
    grep -qx 'pod/w-kw condition met' "$work/kw.delete"
    grep -qx 'exit 0' "$work/kw.delete"
    # The server restarts while kw waits: the watch resumes and sees the change.
    pod r
    kw wait pod/r --for=condition=Ready --timeout=60s >"$work/restart.out" 2>"$work/restart.err" & waiter=$!
    sleep 1
    kill_server; sleep 1; start_server
    set_status r '{"conditions":[{"type":"Ready","status":"True"}]}'
    wait "$waiter"
    grep -qx 'pod/r condition met' "$work/restart.out"
    ;;

  rollout_status_vs_kubectl)
    start_server; write_kubeconfig
    deployment_status() {  # NAME STATUS-JSON (kw serve runs no controllers: the test is one)
      curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' -d "{\"status\":$2}" \
        "$url/apis/apps/v1/namespaces/default/deployments/$1/status" >/dev/null
    }
    kw create deployment rs --image=nginx --replicas=3 >/dev/null
    seq="rollout status deployment/rs --timeout=1s
rollout status deployment/rs --watch=false
rollout status deployment/nope
rollout status
rollout status configmap kube-root-ca.crt"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -qx 'Waiting for deployment spec update to be observed...' "$work/kw.out"
    grep -qx 'error: timed out waiting for the condition' "$work/kw.out"
    # The rollout advances while each tool follows it: the same progress lines, exit 0.
    for tool in kw kubectl; do
      name=ro-$tool
      kw create deployment "$name" --image=nginx --replicas=3 >/dev/null
      $tool rollout status "deployment/$name" --timeout=30s >"$work/$tool.progress" 2>&1 & follower=$!
      sleep 1
      deployment_status "$name" '{"observedGeneration":1,"replicas":3,"updatedReplicas":1}'
      sleep 0.5
      deployment_status "$name" '{"observedGeneration":1,"replicas":4,"updatedReplicas":3}'
      sleep 0.5
      deployment_status "$name" '{"observedGeneration":1,"replicas":3,"updatedReplicas":3,"readyReplicas":1,"availableReplicas":1}'
      sleep 0.5
      deployment_status "$name" '{"observedGeneration":1,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}'
      wait "$follower"; echo "exit $?" >>"$work/$tool.progress"
      $tool rollout status "deployment/$name" --watch=false >>"$work/$tool.progress" 2>&1
    done
    diff -u <(sed 's/ro-kubectl/ro-kw/' "$work/kubectl.progress") "$work/kw.progress"
    grep -qx 'Waiting for deployment "ro-kw" rollout to finish: 1 out of 3 new replicas have been updated...' \
      "$work/kw.progress"
    grep -qx 'deployment "ro-kw" successfully rolled out' "$work/kw.progress"
    grep -qx 'exit 0' "$work/kw.progress"
    ;;

  rollout_edit_vs_kubectl)
    # pause, resume and restart, each tool on objects of its own (their state changes).
    start_server; write_kubeconfig
    for tool in kw kubectl; do
      kw create deployment "$tool-a" --image=nginx >/dev/null
      kw create deployment "$tool-b" --image=nginx >/dev/null
      kw label deployment "$tool-a" "$tool-b" "tool=$tool" >/dev/null
      kw apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: $tool-ds}
spec:
  selector: {matchLabels: {app: $tool-ds}}
  template:
    metadata: {labels: {app: $tool-ds}}
    spec: {containers: [{name: c, image: nginx}]}
EOF
      kw create configmap "$tool-cm" >/dev/null
      seq="rollout pause deployment/TOOL-a
rollout pause deployment/TOOL-a
rollout restart deployment/TOOL-a
rollout resume deployment/TOOL-a
rollout resume deployment/TOOL-a
rollout restart deployment/TOOL-a -o name
rollout restart daemonset/TOOL-ds
rollout pause daemonset/TOOL-ds
rollout resume daemonset TOOL-ds
rollout restart configmap/TOOL-cm
rollout restart deployment/TOOL-none
rollout restart
rollout pause deployment -l tool=TOOL
rollout restart deployment -l tool=TOOL
rollout resume deployment -l tool=TOOL -o name
get deployment TOOL-b -o jsonpath={.spec.paused}"
      run_sequence "$tool" "${seq//TOOL/$tool}" "$work/$tool.out"
    done
    diff -u <(sed 's/kubectl-/kw-/g; s/tool=kubectl/tool=kw/g' "$work/kubectl.out") "$work/kw.out"
    grep -qx 'deployment.apps/kw-a paused' "$work/kw.out"
    grep -qx 'error: deployments.apps "kw-a" is already paused' "$work/kw.out"
    grep -qx 'error: configmaps "kw-cm" restarting is not supported' "$work/kw.out"
    # The restart stamps the pod template with the time, under kubectl's manager name.
    kw get deployment kw-a -o jsonpath='{.spec.template.metadata.annotations.kubectl\.kubernetes\.io/restartedAt}' |
      grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})'
    kw get deployment kw-a -o json --show-managed-fields | contains '"manager": *"kubectl-rollout"'
    ;;

  events_vs_kubectl)
    start_server; write_kubeconfig
    event() {  # NAME KIND API-VERSION OBJECT TYPE REASON COUNT FIRST LAST
      curl -sf -X POST -H 'Content-Type: application/json' -d "{\"apiVersion\":\"v1\",\"kind\":\"Event\",
        \"metadata\":{\"name\":\"$1\"},\"involvedObject\":{\"kind\":\"$2\",\"apiVersion\":\"$3\",\"name\":\"$4\",
        \"namespace\":\"default\"},\"type\":\"$5\",\"reason\":\"$6\",\"message\":\"$6 it\",\"count\":$7,
        \"firstTimestamp\":\"$(date -u -d "$8" +%FT%TZ)\",\"lastTimestamp\":\"$(date -u -d "$9" +%FT%TZ)\"}" \
        "$url/api/v1/namespaces/default/events" >/dev/null
    }
    # Days-old times, so both clients print the same ages.
    event e1 Pod v1 p Normal Created 1 '-60 hours' '-50 hours'
    event e2 Deployment apps/v1 rs Warning Scaled 4 '-120 hours' '-55 hours'
    seq="events
events -n kube-system
events --for pod/p
events --for deployment/rs
events --for pod/p --types=Warning
events --types=Warning,Normal
events -A
events --for=pod/zz
events --for=foos/zz
events --for=pod"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -q '^2d[0-9]*h (x4 over 5d) *Warning *Scaled *Deployment/rs *Scaled it$' "$work/kw.out"
    # -w prints the listing, then each new event as it comes.
    kw events -w --for pod/p >"$work/watch.out" 2>&1 & watcher=$!
    sleep 1
    event e3 Pod v1 p Warning BackOff 1 '-49 hours' '-49 hours'
    for _ in $(seq 50); do grep -q BackOff "$work/watch.out" && break; sleep 0.1; done
    kill "$watcher"; wait "$watcher" || true
    grep -q 'Normal *Created *Pod/p' "$work/watch.out"
    grep -q 'Warning *BackOff *Pod/p *BackOff it' "$work/watch.out"
    ;;

  diff_vs_kubectl)
    start_server; write_kubeconfig; manifests
    cat >"$work/m/v1/secret.yaml" <<'YAML'
apiVersion: v1
kind: Secret
metadata: {name: creds, labels: {app: web}}
stringData: {user: admin, password: one, token: same}
YAML
    sed -e 's/password: one/password: two/' -e 's/user: admin, //' -e '/^stringData/s/}$/, extra: new}/' \
      "$work/m/v1/secret.yaml" >"$work/m/v2/secret.yaml"
    # The temporary directories, file times and what a dry-run create makes up differ run to run.
    normalise() {
      sed -E -e 's#/[^ ]*/(LIVE|MERGED)-[0-9A-Za-z]+#\1#g' -e 's#^((---|\+\+\+) [^\t]*)\t.*#\1#' \
        -e 's#(uid|creationTimestamp): .*#\1: X#' -e 's#kube-api-access-[a-z0-9]{5}#kube-api-access-X#' "$1"
    }
    # One line through both tools: output and exit code.
    both() {
      local code
      kw "$@" >"$work/kw.out" 2>&1 && code=0 || code=$?
      echo "(exit $code)" >>"$work/kw.out"
      kubectl "$@" >"$work/kubectl.out" 2>&1 && code=0 || code=$?
      echo "(exit $code)" >>"$work/kubectl.out"
      diff -u <(normalise "$work/kubectl.out") <(normalise "$work/kw.out") || { echo "differs: diff $*"; exit 1; }
    }
    # Nothing exists yet: every object is new (dry-run creates).
    both diff -f "$work/m/v1"
    grep -q '^+  name: web$' "$work/kw.out"
    grep -qx '(exit 1)' "$work/kw.out"
    kubectl apply -f "$work/m/v1" >/dev/null
    # Applied and unchanged: no output, exit 0.
    both diff -f "$work/m/v1"
    [[ $(cat "$work/kw.out") == "(exit 0)" ]]
    # Changes by client-side apply (a three-way patch) and by server-side apply.
    both diff -f "$work/m/v2"
    grep -Eq '^- +(- )?image: nginx:1$' "$work/kw.out"
    grep -Eq '^\+ +(- )?image: nginx:2$' "$work/kw.out"
    both diff --server-side -f "$work/m/v2"
    both diff --server-side --force-conflicts -f "$work/m/v2/app.yaml"
    # Secret values are masked: "***", "*** (before)" / "*** (after)" for a changed one.
    both diff -f "$work/m/v2/secret.yaml"
    grep -qxF -- "-  password: '*** (before)'" "$work/kw.out"
    grep -qxF -- "+  password: '*** (after)'" "$work/kw.out"
    grep -qxF -- "+  extra: '***'" "$work/kw.out"
    # A label selector picks the manifests' objects; managedFields only when asked.
    both diff -l app=web -f "$work/m/v2"
    both diff --show-managed-fields -f "$work/m/v2/cm.json"
    # Another program compares the directories.
    KUBECTL_EXTERNAL_DIFF="diff -q" both diff -f "$work/m/v2"
    # The server's warnings are printed once each, as kubectl prints them.
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: warned, extra: 1}\ndata: {a: b}\n' >"$work/m/warn.yaml"
    both diff -f "$work/m/warn.yaml"
    grep -qx 'Warning: unknown field "metadata.extra"' "$work/kw.out"
    # Errors: a missing file, an unknown kind.
    both diff -f "$work/m/none.yaml"
    printf 'apiVersion: v1\nkind: Nope\nmetadata: {name: x}\n' >"$work/m/nope.yaml"
    both diff -f "$work/m/nope.yaml"
    both apply -f "$work/m/nope.yaml"
    both delete -f "$work/m/nope.yaml"
    ;;

  validate_vs_kubectl)
    # --validate of create and apply: the fieldValidation the server is asked for (Strict by
    # default, Warn, Ignore), and what each client prints for a manifest with an unknown field.
    start_server; write_kubeconfig
    mkdir -p "$work/v"
    cat >"$work/v/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: v
spec:
  foo: bar
  containers:
  - name: c
    image: nginx
YAML
    # A new label and image: the refused patch is printed, $setElementOrder included.
    sed -e 's/^  name: v$/  name: v\n  labels: {x: "2"}/' -e 's/image: nginx/image: nginx:2/' "$work/v/pod.yaml" \
      >"$work/v/pod2.yaml"
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s, extra: 1}\ndata: {a: b}\n' >"$work/v/cm.yaml"
    # A List: its items are checked by the client against the OpenAPI schemas, as kubectl does.
    cat >"$work/v/list.yaml" <<'YAML'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: l1}
  extra: 1
  data: {a: b}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: l2}
  spec:
    replicas: 1
    foo: 2
    selector: {matchLabels: {a: b}}
    template:
      metadata: {labels: {a: b}}
      spec: {containers: [{name: c, image: i, bar: 1}]}
YAML
    seq="create -f $work/v/pod.yaml
create -f $work/v/pod.yaml --validate=true
create -f $work/v/pod.yaml --validate=bogus
create -f $work/v/pod.yaml --validate=warn
get pod v -o jsonpath={.spec.containers[0].image}
delete pod v
create -f $work/v/pod.yaml --validate=false -o name
delete pod v
create -f $work/v/pod.yaml --validate=ignore
delete pod v
apply -f $work/v/pod.yaml
apply -f $work/v/pod.yaml --validate=strict
apply -f $work/v/pod.yaml --validate=bogus
apply -f $work/v/pod.yaml --validate=warn
apply -f $work/v/pod2.yaml
apply -f $work/v/pod2.yaml --validate=False
get pod v -o jsonpath={.metadata.labels}{.spec.containers[0].image}
delete pod v
apply --server-side -f $work/v/cm.yaml
apply --server-side -f $work/v/cm.yaml --validate=warn
apply --server-side -f $work/v/cm.yaml --validate=ignore
get configmap s -o jsonpath={.data}
delete configmap s
create -f $work/v/list.yaml
apply --server-side -f $work/v/list.yaml
create -f $work/v/list.yaml --validate=false
delete -f $work/v/list.yaml
create configmap c8 --from-literal=a=b --validate=bogus
create role r8 --verb=get --resource=pods --validate=warn
delete role r8"
    run_sequence kw "$seq" "$work/kw.out"
    run_sequence kubectl "$seq" "$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -q 'strict decoding error: unknown field "spec.foo"' "$work/kw.out"
    grep -qx 'Warning: unknown field "spec.foo"' "$work/kw.out"
    grep -qx 'error: invalid - validate option "bogus"; must be one of: strict (or true), warn, ignore (or false)' \
      "$work/kw.out"
    grep -qx 'pod/v created' "$work/kw.out"
    ;;

  edit_vs_kubectl)
    # kw edit and kubectl edit with the same scripted editors: the file each hands the editor
    # (KUBE_EDITOR=cat), the patches, the objects left behind, the printed lines and exit codes.
    start_server; write_kubeconfig; manifests
    mkdir -p "$work/ed" "$work/tmp"
    editor() {  # NAME BODY: a script editing the file "$1"
      printf '#!/bin/sh\n%s\n' "$2" >"$work/ed/$1"
      chmod +x "$work/ed/$1"
    }
    editor cat 'cat "$1"'
    editor image 'sed -i -e "s/image: nginx:1/image: nginx:2/" "$1"'
    editor label 'sed -i -e "s/^\( *\)app: web$/\1app: web\n\1edited: \"yes\"/" "$1"'
    editor data 'sed -i -e "s/\"mode\": \"fast\"/\"mode\": \"slow\"/" "$1"'
    editor rename 'sed -i -e "s/^  name: settings$/  name: other/" "$1"'
    editor invalid 'sed -i -e "s/^    name: main$/    name: Main_x/" "$1"'
    editor garbage 'sed -i -e "s/^kind: Pod$/kind: [Pod/" "$1"'
    editor empty ': >"$1"'
    editor comment 'sed -i -e "1s/^/# more\\n/" "$1"'
    editor status 'sed -i -e "s/phase: Pending/phase: Running/" "$1"'
    editor fails 'exit 3'
    editor size 'sed -i -e "s/size: .*/size: 2/" -e "s/- b$/- c/" "$1"'
    editor extra 'sed -i -e "s/^data:/extra: 1\ndata:/" "$1"'
    # An invalid change first, fixed when the file comes back with the server's reasons.
    editor fixup 'if grep -q "was not valid" "$1"; then sed -i -e "s/name: Bad_x$/name: main/" -e "s/image: nginx:2$/image: nginx:5/" "$1"
else sed -i -e "s/^      name: main$/      name: Bad_x/" -e "s/mode: .*/mode: two/" "$1"; fi'
    # An unknown field in a List: kubectl checks it against the OpenAPI schema itself.
    editor listextra 'grep -q "was not valid" "$1" || sed -i -e "s/^  data:/  extra: 1\n  data:/" "$1"'
    editor saved 'sed -i -e "s/mode: slow/mode: saved/" "$1"'
    # A custom resource: edited through a JSON merge patch (lists replaced whole).
    cat >"$work/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              tags: {type: array, items: {type: string}}
YAML
    printf 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 1, tags: [a, b]}\n' \
      >"$work/m/v1/widget.yaml"
    kw create -f "$work/crd.yaml" >/dev/null
    kubectl wait --for=condition=Established crd/widgets.example.com --timeout=20s >/dev/null
    # Each line: EDITOR COMMAND... ("-": a kubectl command that shows what the edit left).
    seq="cat edit pod web
cat edit pod/web -o json
cat edit configmap/settings deployment/dep
cat edit configmap settings deployment/dep
cat edit -f $work/m/v1/app.yaml
comment edit pod web
empty edit pod web
empty edit pod web --validate=false
image edit pod web --output-patch
- get pod web -o jsonpath={.spec.containers[*].image}
label edit pod/web configmap/settings
- get pod web -o jsonpath={.metadata.labels}
data edit configmap settings -o json --output-patch
- get configmap settings -o jsonpath={.data}
saved edit configmap settings --save-config
extra edit configmap settings
extra edit configmap settings --validate=ignore
extra edit configmap settings --validate=warn
fixup edit pod/web configmap/settings
listextra edit pod/web configmap/settings
listextra edit pod/web configmap/settings --validate=false
- get pod web -o jsonpath={.spec.containers[*].image}{.metadata.labels}
- get configmap settings -o jsonpath={.data}
- get configmap settings -o jsonpath={.data}
size edit widget w1 --output-patch
- get widget w1 -o jsonpath={.spec}
rename edit configmap settings
invalid edit pod web
garbage edit pod web
fails edit pod web
status edit pod web --subresource status
- get pod web -o jsonpath={.status.phase}
cat edit pod missing
cat edit pod web -n kube-system
cat edit pod web -n other
cat edit pod web --validate=bogus
cat edit pod web -o wide
cat edit pod web --subresource scale
cat edit
- get pod web -o jsonpath={.metadata.managedFields[*].manager}"
    # Run-to-run differences: the temporary file, and what the server makes up for each object.
    normalise() {
      sed -E -e 's#[^ "`]*/(kubectl|kw)-edit-[^ "`]*\.(yaml|json)#FILE#g' \
        -e 's#("?(uid|creationTimestamp|resourceVersion|time)"?: ).*#\1X#' \
        -e 's#kube-api-access-[a-z0-9]{5}#kube-api-access-X#' "$1"
    }
    for tool in kubectl kw; do
      kw create -f "$work/m/v1" >/dev/null
      out=$work/$tool.out
      : >"$out"
      while read -r ed line; do
        echo "\$ $ed $line" >>"$out"
        # shellcheck disable=SC2086
        if [[ $ed == - ]]; then kubectl $line >>"$out" 2>&1 || echo "(exit $?)" >>"$out"
        else TMPDIR=$work/tmp KUBE_EDITOR=$work/ed/$ed $tool $line >>"$out" 2>&1 || echo "(exit $?)" >>"$out"; fi
      done <<<"$seq"
      kw delete -f "$work/m/v1" >/dev/null
      ls "$work/tmp" | sed -E 's/^(kubectl|kw)-edit-.*\.(yaml|json)$/FILE.\2/' >"$work/$tool.kept"
      rm -f "$work/tmp/"*
    done
    diff -u <(normalise "$work/kubectl.out") <(normalise "$work/kw.out")
    diff -u "$work/kubectl.kept" "$work/kw.kept"
    grep -qx 'pod/web edited' "$work/kw.out"
    grep -qx 'Edit cancelled, no changes made.' "$work/kw.out"
    grep -q '^nginx:2' "$work/kw.out"
    grep -q '^# Please edit the object below' "$work/kw.out"
    # EDITOR is used when KUBE_EDITOR is not set; a command with spaces is split.
    kw create -f "$work/m/v1/cm.json" >/dev/null
    EDITOR="sed -i -e s/fast/quick/" kw edit configmap settings | contains -x 'configmap/settings edited'
    [[ $(kw get configmap settings -o jsonpath='{.data.mode}') == quick ]]
    ;;

  explain_vs_kubectl)
    start_server; write_kubeconfig
    # A custom resource's schema is explained from its CRD too.
    kubectl apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A widget, for testing how explain walks a custom resource's schema and wraps its long descriptions.
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, description: How big.}
              color: {type: string, enum: [red, green, blue, cyan, magenta, yellow]}
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
              labels: {type: object, additionalProperties: {type: string}}
YAML
    kubectl wait --for=condition=Established crd/widgets.example.com --timeout=30s >/dev/null
    for args in "pods" "pods.spec" "pods.spec.containers" "pods.spec.containers.ports" "pods.metadata.labels" \
      "deployments" "deployments.spec.strategy" "services.spec" "configmaps.data" "nodes.status.conditions" \
      "jobs.spec.template.spec.restartPolicy" "deployments --api-version=apps/v1" "pods.spec.volumes --recursive" \
      "services --recursive" "widgets" "widgets.spec" "widgets.spec.color" "widgets --recursive" \
      "pods.nope" "nope" ""; do
      # shellcheck disable=SC2086
      kw explain $args >"$work/kw.out" 2>&1 && code=0 || code=$?
      # shellcheck disable=SC2086
      kubectl explain $args >"$work/kubectl.out" 2>&1 && kcode=0 || kcode=$?
      [[ $code == "$kcode" ]] || { echo "explain $args: kw exit $code, kubectl exit $kcode"; cat "$work/kw.out"; exit 1; }
      if [[ $args == "" ]]; then
        grep -q 'You must specify the type of resource to explain' "$work/kw.out"
        continue
      fi
      diff -u "$work/kubectl.out" "$work/kw.out" || { echo "explain $args differs"; exit 1; }
    done
    ;;

  api_resources)
    start_server; write_kubeconfig
    kw api-resources >"$work/kw.out"
    kubectl api-resources >"$work/kubectl.out"
    diff -u "$work/kubectl.out" "$work/kw.out"
    grep -q '^pods  *po  *v1  *true  *Pod$' "$work/kw.out"
    grep -q '^deployments  *deploy  *apps/v1  *true  *Deployment$' "$work/kw.out"
    diff <(kw api-resources -o name) <(kubectl api-resources -o name)
    diff <(kw api-resources -o wide) <(kubectl api-resources -o wide)
    diff <(kw api-resources --namespaced=false) <(kubectl api-resources --namespaced=false)
    diff <(kw api-resources --api-group=apps) <(kubectl api-resources --api-group=apps)
    ;;

  config)
    cat >"$work/a.yaml" <<'CFG'
apiVersion: v1
kind: Config
clusters:
- name: one
  cluster:
    server: https://one.example:6443
    certificate-authority-data: Y2VydA==
- name: two
  cluster:
    server: https://two.example:6443
    insecure-skip-tls-verify: true
contexts:
- name: ctx-one
  context: {cluster: one, user: alice, namespace: team}
- name: ctx-two
  context: {cluster: two, user: bob}
current-context: ctx-one
users:
- name: alice
  user:
    token: secret-token
- name: bob
  user:
    username: bob
    password: hunter2
    client-key-data: a2V5
CFG
    cp "$work/a.yaml" "$work/b.yaml"
    export KUBECONFIG="$work/a.yaml"
    diff -u <(kubectl config view) <(kw config view)
    diff -u <(kubectl config view --raw) <(kw config view --raw)
    diff -u <(kubectl config view --minify) <(kw config view --minify)
    diff -u <(kubectl config view -o json) <(kw config view -o json)
    diff -u <(kubectl config get-contexts) <(kw config get-contexts)
    diff -u <(kubectl config get-contexts -o name) <(kw config get-contexts -o name)
    kw config view | contains 'token: REDACTED'
    kw config view | { ! grep -q secret-token; }
    kw config use-context ctx-two | contains -x 'Switched to context "ctx-two".'
    kubectl --kubeconfig "$work/b.yaml" config use-context ctx-two >/dev/null
    kw config current-context | contains -x ctx-two
    diff -u <(kubectl --kubeconfig "$work/b.yaml" config view --raw) <(kw config view --raw)
    if kw config use-context nope 2>"$work/err"; then exit 1; fi
    grep -q 'no context exists with the name: "nope"' "$work/err"
    ;;

  completion_bash)
    start_server; write_kubeconfig; manifests
    kw apply -f "$work/m/v1" >/dev/null
    complete_words() {  # WORD... (the last one is being completed) -> candidates, one a line
      bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); [[ -n "${KW_TEST_TRACE:-}" ]] && set -x; _kw; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$SRC/completions/kw.bash" "$@" | sort
    }
    complete_words kw g >"$work/c1"; grep -qx get "$work/c1"; ! grep -qx apply "$work/c1"
    complete_words kw get "" >"$work/c2"
    grep -qx pods "$work/c2"; grep -qx deployments "$work/c2"; grep -qx configmaps "$work/c2"
    complete_words kw get pods "" >"$work/c3"; [[ "$(cat "$work/c3")" == web ]]
    complete_words kw get deployments d >"$work/c4"; [[ "$(cat "$work/c4")" == dep ]]
    complete_words kw get -o "" >"$work/c5"
    for v in json yaml wide name jsonpath= custom-columns=; do grep -qx "$v" "$work/c5"; done
    complete_words kw get --transport "" | tr '\n' ' ' | contains -x 'auto h2 http1 websocket '
    complete_words kw get --encoding p | contains -x protobuf
    complete_words kw delete pods -n default "" | contains -x web
    complete_words kw get -n "" | contains -x default
    complete_words kw get pods --sel | contains -x -- --selector
    complete_words kw config "" | contains -x use-context
    complete_words kw config use-context "" | contains -x local
    complete_words kw get --context "" | contains -x local
    complete_words kw get --cluster "" | contains -x local
    complete_words kw get pods --user "" | contains -x me
    complete_words kw completion "" | tr '\n' ' ' | contains -x 'bash zsh '
    # The discovery cache is written and used.
    ls "$HOME/.cache/kw/discovery/"*/resources.json >/dev/null
    # Real bash completion: COMP_LINE set and a URL with ':' on the line.
    bash -c 'source "$1"; COMP_LINE="kw get --server $2 pods "; COMP_POINT=${#COMP_LINE}
             COMP_WORDS=(kw get --server "${2%%:*}" : "${2#*:}" pods ""); COMP_CWORD=7; _kw; printf "%s\n" "${COMPREPLY[@]}"' \
      _ "$SRC/completions/kw.bash" "$url" | contains -x web
    ;;

  completion_zsh)
    start_server; write_kubeconfig; manifests
    kw apply -f "$work/m/v1" >/dev/null
    out=$(timeout 30 zsh -f -c 'autoload -U compinit; compinit -u -d "$HOME/.zcompdump"; source "$1"' _ "$SRC/completions/_kw" 2>&1)
    [[ -z "$out" ]] || { echo "zsh printed: $out"; exit 1; }
    timeout 30 zsh -f -c 'autoload -U compinit; compinit -u -d "$HOME/.zcompdump"; source "$1"; print -r -- ${_comps[kw]}' \
      _ "$SRC/completions/_kw" | contains -x _kw
    cand() {
      timeout 30 zsh -f -c 'autoload -U compinit; compinit -u -d "$HOME/.zcompdump"; source "$1"; shift
        __kw_candidates "$@"; print -r -- $__kw_out' _ "$SRC/completions/_kw" "$@"
    }
    cand kw g | tr ' ' '\n' | contains -x get
    cand kw get "" | tr ' ' '\n' | contains -x pods
    cand kw get pods "" | contains -x web
    cand kw get -o "" | contains 'jsonpath='
    ;;

  completion_checked_in)
    diff -u "$SRC/completions/kw.bash" <("$KW" completion bash)
    diff -u "$SRC/completions/_kw" <("$KW" completion zsh)
    bash -n "$SRC/completions/kw.bash"
    zsh -n "$SRC/completions/_kw"
    ;;

  man_checked_in)
    "$KW" __manpage "$work/man"
    diff -ru "$SRC/man" "$work/man"
    # Every option of kw get --help is on its page.
    for flag in $("$KW" get --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
      grep -qF -- "$(sed 's/-/\\-/g' <<<"$flag")" "$SRC/man/kw-get.1" || { echo "kw-get.1 lacks $flag"; exit 1; }
    done
    ;;

  man_render)
    for page in "$SRC"/man/*.1; do
      warnings=$(MANWIDTH=80 timeout 30 man --warnings -l "$page" 2>&1 >/dev/null)
      [[ -z "$warnings" ]] || { echo "$page: $warnings"; exit 1; }
    done
    MANWIDTH=80 timeout 30 man -l "$SRC/man/kw-get.1" 2>/dev/null | contains 'EXIT STATUS'
    ;;

  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
echo "ok: $scenario"
