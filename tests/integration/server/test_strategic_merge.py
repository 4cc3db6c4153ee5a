"""Strategic merge patch directives as the real kubectl sends them, and kube's answers to
malformed ones."""
import json
import subprocess

from kwtest import ServerTestCase

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
SMP = {"Content-Type": "application/strategic-merge-patch+json"}


def deployment(name, finalizers, containers, strategy=None):
    spec = {"replicas": 1, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": c, "image": f"{c}:1"} for c in containers]}}}
    if strategy:
        spec["strategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "finalizers": finalizers}, "spec": spec}


def has_directive(value):
    if isinstance(value, dict):
        return any(k.startswith("$") or has_directive(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_directive(v) for v in value)
    return False


class StrategicMergeTest(ServerTestCase):
    def apply(self, manifest):
        out = subprocess.run(["timeout", "30", "kubectl", f"--server={self.server.url}", "apply", "-f", "-"],
                             input=json.dumps(manifest), capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)

    def stored(self, name):
        status, body = self.server.json("GET", f"{DEPLOYMENTS}/{name}")
        self.assertEqual(status, 200, body)
        return body

    def patch(self, name, body):
        return self.server.json("PATCH", f"{DEPLOYMENTS}/{name}", body, SMP)

    def test_reapply_removes_finalizer_reorders_containers_and_switches_to_recreate(self):
        """kubectl apply's patch carries $deleteFromPrimitiveList, $setElementOrder and
        $retainKeys: the finalizer goes, the containers take the manifest's order, and the
        defaulted rollingUpdate is cleared with the switch to Recreate."""
        self.apply(deployment("smp", ["example.com/a", "example.com/b"], ["web", "sidecar"]))
        first = self.stored("smp")
        self.assertEqual(first["spec"]["strategy"]["type"], "RollingUpdate")
        self.assertIn("rollingUpdate", first["spec"]["strategy"])

        self.apply(deployment("smp", ["example.com/b"], ["sidecar", "web"], {"type": "Recreate"}))
        got = self.stored("smp")
        self.assertEqual(got["metadata"]["finalizers"], ["example.com/b"])
        self.assertEqual([c["name"] for c in got["spec"]["template"]["spec"]["containers"]], ["sidecar", "web"])
        self.assertEqual(got["spec"]["strategy"], {"type": "Recreate"})
        self.assertFalse(has_directive(got), got)

        status, body = self.patch("smp", {"metadata": {"finalizers": None}})
        self.assertEqual(status, 200, body)
        self.assertNotIn("finalizers", body["metadata"])
        self.server.kubectl("delete", "deployment", "smp")

    def test_finalizers_merge_as_a_set(self):
        self.apply(deployment("fin", ["example.com/a"], ["web"]))
        status, body = self.patch("fin", {"metadata": {"finalizers": ["example.com/b", "example.com/a"]}})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"]["finalizers"], ["example.com/b", "example.com/a"])
        status, body = self.patch("fin", {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"]["finalizers"], ["example.com/b"])
        status, body = self.patch("fin", {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/b"]}})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"].get("finalizers", []), [])
        self.server.kubectl("delete", "deployment", "fin")

    def test_malformed_directives_answered_as_kube_answers_them(self):
        self.apply(deployment("bad", [], ["web"]))
        cases = [
            ({"$patch": 1}, 500, None, "unknown patch type: %!s(int64=1) in map: map[$patch:1]"),
            ({"spec": {"strategy": {"$patch": "merge"}}}, 500, None,
             "unknown patch type: merge in map: map[$patch:merge]"),
            ({"spec": {"strategy": {"$retainKeys": "type", "type": "Recreate"}}}, 400, "BadRequest",
             "invalid patch format of retainKeys"),
            ({"spec": {"strategy": {"$retainKeys": ["rollingUpdate"], "type": "Recreate"}}}, 400, "BadRequest",
             "invalid patch format of retainKeys"),
            ({"metadata": {"$deleteFromPrimitiveList": ["x"]}}, 400, "BadRequest",
             "invalid patch format of primitive list"),
            ({"spec": {"template": {"spec": {"$setElementOrder": [{"name": "web"}]}}}}, 400, "BadRequest",
             "invalid patch format of setElementOrder list"),
            ({"spec": {"template": {"spec": {"containers": [{"$patch": "merge"}]}}}}, 500, None,
             "merging lists cannot yet be specified in the patch"),
            ({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}, 500, None,
             "map: map[image:x] does not contain declared merge key: name"),
        ]
        for patch, code, reason, message in cases:
            with self.subTest(patch=patch):
                status, body = self.patch("bad", patch)
                self.assertEqual(status, code, body)
                self.assertEqual(body["kind"], "Status")
                self.assertEqual(body["status"], "Failure")
                self.assertEqual(body["code"], code)
                self.assertEqual(body.get("reason"), reason)
                self.assertEqual(body["message"], message)
        self.assertEqual(self.stored("bad")["metadata"]["generation"], 1)
        self.server.kubectl("delete", "deployment", "bad")
