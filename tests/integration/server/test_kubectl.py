"""The real kubectl against kw serve: get, create, label, delete, and get -w."""
import json
import os
import subprocess
import tempfile
import time

from kwtest import Background, ServerTestCase, kubectl_requests


class KubectlTest(ServerTestCase):
    def test_default_namespaces_listed(self):
        out = self.server.kubectl("get", "namespaces").stdout.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "STATUS", "AGE"])
        names = sorted(line.split()[0] for line in out[1:])
        self.assertEqual(names, ["default", "kube-node-lease", "kube-public", "kube-system"])
        self.assertTrue(all(line.split()[1] == "Active" for line in out[1:]))

    def test_api_resources_from_discovery(self):
        out = self.server.kubectl("api-resources", "--no-headers").stdout
        for name in ["pods", "deployments", "configmaps", "namespaces", "nodes", "statefulsets"]:
            self.assertIn(name, out)

    def test_api_resources_match_kube_apiserver(self):
        """Every row kubectl lists, and only those, as kube-apiserver 1.33 lists them
        (tests/conformance/kinds.json): name, short names, apiVersion, scope and kind."""
        with open(os.path.join(os.path.dirname(__file__), "../../conformance/kinds.json")) as f:
            expected = json.load(f)
        expected.pop("_comment")
        want = sorted((key.rpartition("/")[2], ",".join(sorted(e["shortNames"])), e["version"],
                       str(e["namespaced"]).lower(), e["kind"])
                      for key, e in expected.items() if key.count("/") < 2)  # preferred versions only
        lines = self.server.kubectl("api-resources").stdout.splitlines()
        header = lines[0]
        starts = [header.index(c) for c in ("NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND")] + [None]
        got = sorted(tuple(line[starts[i]:starts[i + 1]].strip() for i in range(5)) for line in lines[1:])
        got = [(n, ",".join(sorted(s.split(","))) if s else "", v, ns, k) for n, s, v, ns, k in got]
        self.assertEqual(got, want)

    def test_aggregated_discovery(self):
        # kubectl asks /api and /apis for apidiscovery.k8s.io documents and needs nothing else.
        out = self.server.kubectl("api-resources", "-v=6", "--cache-dir", tempfile.mkdtemp(prefix="kw-disc-"))
        gets = [url.split("?")[0] for verb, url in kubectl_requests(out.stderr) if verb == "GET"]
        self.assertEqual(sorted(gets), [f"{self.server.url}/api", f"{self.server.url}/apis"], out.stderr)
        rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()[1:]}
        self.assertEqual(rows["deployments"][1:], ["deploy", "apps/v1", "true", "Deployment"])
        self.assertEqual(rows["nodes"][1:], ["no", "v1", "false", "Node"])
        for version in ("v2", "v2beta1"):
            accept = f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList,application/json"
            status, headers, body = self.server.request("GET", "/api", None, {"Accept": accept})
            self.assertEqual(status, 200)
            content_type = next(v for k, v in headers.items() if k.lower() == "content-type")
            self.assertEqual(content_type, f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList")
            doc = json.loads(body)
            self.assertEqual(doc["apiVersion"], f"apidiscovery.k8s.io/{version}")
            core = doc["items"][0]["versions"][0]
            pods = next(r for r in core["resources"] if r["resource"] == "pods")
            self.assertEqual(pods["responseKind"], {"group": "", "version": "v1", "kind": "Pod"})
            self.assertEqual([s["subresource"] for s in pods["subresources"]],
                             ["binding", "ephemeralcontainers", "eviction", "status"])
            eviction = pods["subresources"][2]
            self.assertEqual((eviction["responseKind"], eviction["verbs"]),
                             ({"group": "policy", "version": "v1", "kind": "Eviction"}, ["create"]))
        # Without the aggregated media type, the legacy APIVersions document answers.
        status, body = self.server.json("GET", "/api")
        self.assertEqual((status, body["kind"]), (200, "APIVersions"))

    def test_create_get_label_delete(self):
        self.server.kubectl("create", "configmap", "cfg", "--from-literal=greeting=héllo")
        got = json.loads(self.server.kubectl("get", "configmap", "cfg", "-o", "json").stdout)
        self.assertEqual(got["data"], {"greeting": "héllo"})
        self.assertTrue(got["metadata"]["uid"])
        self.server.kubectl("label", "configmap", "cfg", "tier=web")
        out = self.server.kubectl("get", "cm", "-l", "tier=web", "-o", "name").stdout.split()
        self.assertEqual(out, ["configmap/cfg"])
        self.server.kubectl("delete", "configmap", "cfg")
        res = self.server.kubectl("get", "configmap", "cfg", check=False)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn('configmaps "cfg" not found', res.stderr)

    def test_pod_table_columns(self):
        self.server.kubectl("run", "web", "--image=nginx", "--labels=app=web")
        out = self.server.kubectl("get", "pods", "-o", "wide").stdout.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                          "NOMINATED", "NODE", "READINESS", "GATES"])
        self.assertEqual(out[1].split()[:4], ["web", "0/1", "Pending", "0"])
        all_ns = self.server.kubectl("get", "pods", "-A").stdout.splitlines()
        self.assertEqual(all_ns[0].split()[0], "NAMESPACE")
        self.server.kubectl("delete", "pod", "web")

    def test_get_watch_sees_changes_in_order(self):
        lines = []
        with Background(["kubectl", f"--server={self.server.url}", "get", "pods", "-w",
                         "--output-watch-events", "-l", "app=watched"]) as watch:
            time.sleep(1.0)
            self.server.kubectl("run", "w1", "--image=nginx", "--labels=app=watched")
            self.server.kubectl("run", "other", "--image=nginx", "--labels=app=ignored")
            self.server.kubectl("annotate", "pod", "w1", "note=x")
            self.server.kubectl("delete", "pod", "w1", "--wait=false")
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and len(lines) < 4:
                line = watch.stdout.readline()
                if not line:
                    break
                lines.append(line.split())
        self.server.kubectl("delete", "pod", "other", "--wait=false", check=False)
        self.assertEqual(lines[0][:2], ["EVENT", "NAME"])
        self.assertEqual([l[:2] for l in lines[1:]], [["ADDED", "w1"], ["MODIFIED", "w1"], ["DELETED", "w1"]])

    def test_get_watch_all_namespaces_as_json(self):
        self.server.kubectl("create", "namespace", "wjson")
        lines = []
        with Background(["kubectl", f"--server={self.server.url}", "get", "configmaps", "-A", "-w",
                         "--watch-only", "-o", "json", "--output-watch-events"]) as watch:
            time.sleep(1.0)
            self.server.kubectl("create", "configmap", "j1", "-n", "wjson")
            self.server.kubectl("delete", "configmap", "j1", "-n", "wjson")
            text = ""
            deadline = time.monotonic() + 15
            decoder = json.JSONDecoder()
            while time.monotonic() < deadline and len(lines) < 2:
                chunk = watch.stdout.readline()
                if not chunk:
                    break
                text += chunk
                try:
                    event, end = decoder.raw_decode(text.strip())
                    lines.append(event)
                    text = text.strip()[end:]
                except ValueError:
                    continue
        self.assertEqual([(e["type"], e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"])
                          for e in lines], [("ADDED", "wjson", "j1"), ("DELETED", "wjson", "j1")])

    def test_scale_deployment(self):
        self.server.kubectl("create", "deployment", "scaler", "--image=nginx", "--replicas=1")
        self.server.kubectl("scale", "deployment", "scaler", "--replicas=4")
        out = self.server.kubectl("get", "deployment", "scaler", "-o", "jsonpath={.spec.replicas}").stdout
        self.assertEqual(out, "4")
        status, scale = self.server.json("GET", "/apis/apps/v1/namespaces/default/deployments/scaler/scale")
        self.assertEqual(status, 200, scale)
        self.assertEqual(scale["spec"], {"replicas": 4})
        self.assertEqual(scale["status"]["selector"], "app=scaler")
        self.server.kubectl("delete", "deployment", "scaler")

    def test_apply_twice_is_idempotent(self):
        manifest = {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "api"}},
                     "template": {"metadata": {"labels": {"app": "api"}},
                                  "spec": {"containers": [{"name": "api", "image": "api:1"}]}}}}
        for image in ["api:1", "api:2"]:
            manifest["spec"]["template"]["spec"]["containers"][0]["image"] = image
            out = subprocess.run(["timeout", "30", "kubectl", f"--server={self.server.url}", "apply",
                                  "--validate=false", "-f", "-"],
                                 input=json.dumps(manifest), capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(self.server.kubectl("get", "deploy", "api", "-o", "json").stdout)
        self.assertEqual(got["spec"]["template"]["spec"]["containers"][0]["image"], "api:2")
        self.assertEqual(got["metadata"]["generation"], 2)
        self.server.kubectl("delete", "deployment", "api")

    def test_manifest_patch_edit_raw(self):
        """A realistic multi-document manifest through apply (with validation), every patch
        type, annotate, edit through KUBE_EDITOR, get --raw and delete -f."""
        manifest = """apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
  namespace: shop
data:
  mode: production
  cache.size: "512"
---
apiVersion: v1
kind: Secret
metadata:
  name: shop-secret
  namespace: shop
type: Opaque
stringData:
  password: s3cret
---
apiVersion: v1
kind: Service
metadata:
  name: shop
  namespace: shop
  labels: {app: shop}
spec:
  selector: {app: shop}
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: shop
  labels: {app: shop}
spec:
  replicas: 3
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
      - name: web
        image: registry.example/shop:1.4.2
        ports:
        - containerPort: 8080
        env:
        - name: MODE
          valueFrom:
            configMapKeyRef: {name: shop-config, key: mode}
        resources:
          requests: {cpu: 250m, memory: 128Mi}
          limits: {memory: 256Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
      - name: sidecar
        image: registry.example/proxy:2
"""
        path = self.server.data_dir + "/shop.yaml"
        with open(path, "w") as f:
            f.write(manifest)
        out = self.server.kubectl("apply", "-f", path).stdout
        for line in ["namespace/shop created", "configmap/shop-config created", "secret/shop-secret created",
                     "service/shop created", "deployment.apps/shop created"]:
            self.assertIn(line, out)
        self.assertIn("unchanged", self.server.kubectl("apply", "-f", path).stdout)
        yaml_out = self.server.kubectl("get", "deploy", "shop", "-n", "shop", "-o", "yaml").stdout
        self.assertIn("image: registry.example/shop:1.4.2", yaml_out)
        table = self.server.kubectl("get", "deploy,svc", "-n", "shop").stdout
        self.assertIn("deployment.apps/shop", table)
        self.assertIn("service/shop", table)

        ns = ["-n", "shop"]
        self.server.kubectl("patch", "deploy", "shop", *ns, "-p", '{"spec":{"replicas":5}}')
        self.server.kubectl("patch", "deploy", "shop", *ns, "--type", "merge",
                            "-p", '{"metadata":{"labels":{"tier":"front"}}}')
        self.server.kubectl("patch", "deploy", "shop", *ns, "--type", "json",
                            "-p", '[{"op":"replace","path":"/spec/template/spec/containers/1/image",'
                                  '"value":"registry.example/proxy:3"}]')
        self.server.kubectl("patch", "deploy", "shop", *ns, "-p",
                            '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"registry.example/shop:1.5.0"}]}}}}')
        self.server.kubectl("annotate", "deploy", "shop", *ns, "owner=team-a")
        got = json.loads(self.server.kubectl("get", "deploy", "shop", *ns, "-o", "json").stdout)
        self.assertEqual(got["spec"]["replicas"], 5)
        self.assertEqual(got["metadata"]["labels"]["tier"], "front")
        self.assertEqual(got["metadata"]["annotations"]["owner"], "team-a")
        self.assertEqual([c["image"] for c in got["spec"]["template"]["spec"]["containers"]],
                         ["registry.example/shop:1.5.0", "registry.example/proxy:3"])

        # kubectl edit with a scripted editor.
        editor = self.server.data_dir + "/editor.sh"
        with open(editor, "w") as f:
            f.write("#!/bin/sh\nsed -i 's/mode: production/mode: staging/' \"$1\"\n")
        os.chmod(editor, 0o755)
        env = dict(os.environ, KUBE_EDITOR=editor)
        edited = subprocess.run(["timeout", "30", "kubectl", f"--server={self.server.url}", "edit", "configmap",
                                 "shop-config", "-n", "shop"], env=env, capture_output=True, text=True)
        self.assertEqual(edited.returncode, 0, edited.stderr)
        self.assertIn("configmap/shop-config edited", edited.stdout)

        raw = json.loads(self.server.kubectl("get", "--raw", "/api/v1/namespaces/shop/configmaps/shop-config").stdout)
        self.assertEqual(raw["data"]["mode"], "staging")
        secret = json.loads(self.server.kubectl("get", "secret", "shop-secret", *ns, "-o", "json").stdout)
        self.assertEqual(secret["data"]["password"], "czNjcmV0")  # stringData folded into data

        out = self.server.kubectl("delete", "-f", path, "--wait=false").stdout
        self.assertIn('namespace "shop" deleted', out)


if __name__ == "__main__":
    import unittest
    unittest.main()
