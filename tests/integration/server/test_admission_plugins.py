"""kube-apiserver's built-in admission plugins: the answers recorded from kube-apiserver v1.23.13
(admission-plugins-1.23.json) replayed against kw in order. NamespaceLifecycle (missing and
Terminating namespaces, the namespaces that cannot be deleted), DefaultStorageClass,
StorageObjectInUseProtection, PersistentVolumeClaimResize, DefaultIngressClass,
TaintNodesByCondition, RuntimeClass, LimitRanger, CertificateApproval, CertificateSigning and
CertificateSubjectRestriction: the status code, a refusal's message and details, and the fields
each plugin sets on what it admits. Then kw's pvc-protection and pv-protection controllers, which
let protected claims and volumes go."""
import json
import os
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https, merge, merge_diff, object_path, wait_for, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "admission-plugins-1.23.json")

# Since Kubernetes 1.26 a claim without a class gets the newest of several default
# StorageClasses; 1.23 refused it. kw follows the newer rule.
NEWEST_DEFAULT_CLASS = "31b"

# kw validates claims as Kubernetes 1.33 does (1.29's volumeAttributesClassName, and 1.32's
# RecoverVolumeExpansionFailure: a bound claim may shrink while it stays above status.capacity).
# Case 24: the first line of 1.33's message (kube also appends a Go diff of the two specs).
# Case 30b: allowed, as the claim has no status.capacity.
SPEC_IMMUTABLE_1_33 = ("PersistentVolumeClaim \"c1\" is invalid: spec: Forbidden: spec is immutable after creation "
                       "except resources.requests and volumeAttributesClassName for bound claims")
SHRINK_ALLOWED_1_33 = "30b"

# What each plugin sets, compared on admitted objects (by kind).
TOUCHED = {
    "PersistentVolumeClaim": [("spec", "storageClassName"), ("metadata", "finalizers"), ("spec", "resources")],
    "PersistentVolume": [("metadata", "finalizers")],
    "Ingress": [("spec", "ingressClassName"), ("metadata", "annotations")],
    "Node": [("spec", "taints")],
    "Pod": [("spec", "overhead"), ("spec", "nodeSelector"), ("spec", "tolerations"),
            ("metadata", "annotations", "kubernetes.io/limit-ranger")],
    "Namespace": [("spec", "finalizers"), ("status", "phase")],
    "ConfigMap": [("data",)],
    "CertificateSigningRequest": [("status", "certificate")],
    "LocalSubjectAccessReview": [("status", "allowed")],
}


def dig(obj, path):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def containers_resources(pod):
    return [(c["name"], c.get("resources")) for key in ("initContainers", "containers")
            for c in pod.get("spec", {}).get(key) or []]


class RecordedAdmissionPluginsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-admission-")
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.token = {t["label"]: t["token"] for t in cls.recorded["tokens"]}
        # kube-apiserver ran without kube-controller-manager: deleted namespaces stay Terminating.
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--controllers", "*,-namespace"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, text = https(cls.server.secure_url + step["path"], cls.token["admin"], step["method"], step["body"])
            assert code == step["code"] or (code == 409 and "serviceaccounts" in step["path"]), (step, code, text)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def call(self, case, body):
        headers = {k: v for k, v in case.get("headers", {}).items() if k != "Content-Type"}
        if case.get("headers", {}).get("Content-Type", "application/json") != "application/json":
            headers["Content-Type"] = case["headers"]["Content-Type"]
        return https(self.server.secure_url + case["path"], self.token[case["user"]], case["method"], body,
                     headers=headers)

    def test_cases_in_order(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 100)
        recorded_get, kw_get = {}, {}
        for case in cases:
            tag = case["name"].split()[0]
            with self.subTest(case["name"]):
                if case.get("wait_seconds_before"):
                    time.sleep(0.3)
                body = case.get("body")
                if case["method"] == "PUT" and object_path(case["path"]) in kw_get:
                    # The recorded PUT edited the recorded GET; kw's own object gets the same edit.
                    edit = merge_diff(recorded_get[object_path(case["path"])], body)
                    body = merge(kw_get[object_path(case["path"])], edit)
                code, text = self.call(case, body)
                answer = json.loads(text) if text.startswith("{") else text
                expected = case["response"]
                if tag == NEWEST_DEFAULT_CLASS:
                    self.assertEqual(code, 201, text[:400])
                    # The newest by creationTimestamp (seconds), then the first by name.
                    classes = [json.loads(https(self.server.secure_url + "/apis/storage.k8s.io/v1/storageclasses/" + n,
                                                self.token["admin"])[1]) for n in ("std", "std2")]
                    newest = min(classes, key=lambda c: (-int(c["metadata"]["creationTimestamp"].replace("-", "")
                                                             .replace(":", "").replace("T", "").rstrip("Z")),
                                                         c["metadata"]["name"]))
                    self.assertEqual(answer["spec"]["storageClassName"], newest["metadata"]["name"])
                    continue
                if tag == SHRINK_ALLOWED_1_33:
                    self.assertEqual(code, 200, text[:400])
                    self.assertEqual(answer["spec"]["resources"]["requests"]["storage"], "1Gi")
                    continue
                if tag == "24":
                    self.assertEqual(code, 422, text[:400])
                    self.assertEqual(answer["message"], SPEC_IMMUTABLE_1_33)
                    self.assertTrue(expected["message"].startswith(SPEC_IMMUTABLE_1_33.replace(" and volumeAttributesClassName", "")))
                    continue
                self.assertEqual(code, case["code"], text[:400])
                if case["method"] == "GET":
                    recorded_get[object_path(case["path"])] = expected
                    kw_get[object_path(case["path"])] = answer
                if code >= 400:
                    self.assertEqual(answer["message"], expected["message"])
                    if code == 403 or code == 404:
                        self.assertEqual(answer.get("details"), expected.get("details"))
                    continue
                kind = answer.get("kind")
                for path in TOUCHED.get(kind, []):
                    self.assertEqual(dig(answer, path), dig(expected, path), f"{kind} {'.'.join(path)}")
                if kind == "Pod":
                    self.assertEqual(containers_resources(answer), containers_resources(expected))
                if kind == "CertificateSigningRequest":
                    strip = lambda conds: [{k: c.get(k) for k in ("type", "status", "reason", "message")} for c in conds or []]
                    self.assertEqual(strip(dig(answer, ("status", "conditions"))), strip(dig(expected, ("status", "conditions"))))

    def test_newest_default_storage_class_wins(self):
        def storage_class(name):
            return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "example.com/x",
                    "metadata": {"name": name, "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}}
        with KwServer() as server:
            self.assertEqual(server.json("POST", "/apis/storage.k8s.io/v1/storageclasses", storage_class("a"))[0], 201)
            time.sleep(1.1)  # creationTimestamp has whole seconds
            self.assertEqual(server.json("POST", "/apis/storage.k8s.io/v1/storageclasses", storage_class("b"))[0], 201)
            # The plugin reads the watch cache, as kube's reads its informer: wait until it has "b".
            self.assertTrue(wait_for(
                lambda: server.json("GET", "/apis/storage.k8s.io/v1/storageclasses/b?resourceVersion=0")[0] == 200))
            claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
                     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
            code, created = server.json("POST", "/api/v1/namespaces/default/persistentvolumeclaims", claim)
            self.assertEqual(code, 201, created)
            self.assertEqual(created["spec"]["storageClassName"], "b")

    def test_plugins_can_be_disabled(self):
        with KwServer(["--disable-admission-plugins", "NamespaceLifecycle,TaintNodesByCondition"]) as server:
            code, _ = server.json("POST", "/api/v1/namespaces/nowhere/configmaps",
                                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})
            self.assertEqual(code, 201)
            code, node = server.json("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}})
            self.assertEqual(code, 201)
            self.assertNotIn("taints", node.get("spec", {}))
            code, status = server.json("DELETE", "/api/v1/namespaces/default")
            self.assertEqual(code, 200, status)


def wait_gone(server, path, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        code, _ = server.json("GET", path)
        if code == 404:
            return True
        time.sleep(0.1)
    return False


class StorageProtectionTest(unittest.TestCase):
    """The finalizers StorageObjectInUseProtection adds are removed by kw's pvc-protection and
    pv-protection controllers: a claim goes once no pod uses it, a volume once it is not Bound."""

    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "resources": {"requests": {"storage": "1Gi"}}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
           "spec": {"containers": [{"name": "c", "image": "x"}],
                    "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}}
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
              "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/pv"}}}

    def test_claim_goes_once_no_pod_uses_it(self):
        with KwServer() as server:
            claims = "/api/v1/namespaces/default/persistentvolumeclaims"
            code, created = server.json("POST", claims, self.claim)
            self.assertEqual((code, created["metadata"]["finalizers"]), (201, ["kubernetes.io/pvc-protection"]))
            self.assertEqual(server.json("POST", "/api/v1/namespaces/default/pods", self.pod)[0], 201)
            self.assertEqual(server.json("DELETE", claims + "/data")[0], 200)
            time.sleep(1)
            code, held = server.json("GET", claims + "/data")
            self.assertEqual(code, 200)
            self.assertIn("deletionTimestamp", held["metadata"])
            self.assertEqual(server.json("DELETE", "/api/v1/namespaces/default/pods/user?gracePeriodSeconds=0")[0], 200)
            self.assertTrue(wait_gone(server, claims + "/data"))
            code, created = server.json("POST", "/api/v1/persistentvolumes", self.volume)
            self.assertEqual((code, created["metadata"]["finalizers"]), (201, ["kubernetes.io/pv-protection"]))
            self.assertEqual(server.json("DELETE", "/api/v1/persistentvolumes/pv")[0], 200)
            self.assertTrue(wait_gone(server, "/api/v1/persistentvolumes/pv"))

    def test_without_the_controller_the_claim_stays(self):
        with KwServer(["--controllers", "*,-pvc-protection"]) as server:
            claims = "/api/v1/namespaces/default/persistentvolumeclaims"
            self.assertEqual(server.json("POST", claims, self.claim)[0], 201)
            self.assertEqual(server.json("DELETE", claims + "/data")[0], 200)
            self.assertFalse(wait_gone(server, claims + "/data", seconds=2))


if __name__ == "__main__":
    unittest.main()
