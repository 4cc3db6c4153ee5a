"""The real kubectl against kw serve: get, create, label, delete, and get -w."""
import json
import subprocess
import time

from kwtest import Background, ServerTestCase


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


if __name__ == "__main__":
    import unittest
    unittest.main()
