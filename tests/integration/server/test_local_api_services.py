"""The APIServices of what kw serves itself, as kube-apiserver v1.23.13 keeps them (recorded):
each built-in group version is an APIService without a service, labelled
automanaged=onstart, with kube's priorities and Available (Local); each version a CRD serves
gets one labelled automanaged=true that follows the CRD; an APIService someone else writes
without a service is Available too. Discovery lists the groups in the priorities' order."""
import json
import os
import time
import unittest

from kwtest import KwServer

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "apiservices-1.23.json")
SERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
MANAGED = "kube-aggregator.kubernetes.io/automanaged"
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}},
                             {"name": "v1beta1", "served": False, "storage": False,
                              "schema": {"openAPIV3Schema": {"type": "object"}}}]}}


def wait_until(check, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


class LocalApiServicesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.server = KwServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def get(self, path):
        code, _, body = self.server.request("GET", path)
        return code, json.loads(body) if body else None

    def services(self):
        return {item["metadata"]["name"]: item for item in self.get(SERVICES)[1]["items"]}

    def as_recorded(self, service):
        return {"name": service["metadata"]["name"], "labels": service["metadata"].get("labels"), "spec": service["spec"],
                "conditions": [{k: c[k] for k in ("type", "status", "reason", "message")}
                               for c in service.get("status", {}).get("conditions", [])]}

    def test_built_in_group_versions_are_registered_as_kube_registers_them(self):
        services = wait_until(lambda: (lambda s: s if "v1." in s and all(
            s[n].get("status", {}).get("conditions") for n in s) else None)(self.services()))
        self.assertIsNotNone(services)
        code, groups = self.get("/apis")
        served = {(g["name"], v["version"]) for g in groups["groups"] for v in g["versions"]} | {("", "v1")}
        compared = 0
        for expected in self.recorded["apiservices"]:
            spec = expected["spec"]
            if spec.get("group", "") == "example.com" or (spec.get("group", ""), spec["version"]) not in served:
                continue
            with self.subTest(expected["name"]):
                self.assertIn(expected["name"], services)
                got = self.as_recorded(services[expected["name"]])
                # kw fills the spec's defaults in (service: null, insecureSkipTLSVerify: false)
                got["spec"] = {k: v for k, v in got["spec"].items() if k in spec}
                self.assertEqual(got, expected)
                compared += 1
        self.assertGreaterEqual(compared, 15)
        # Every automanaged one is a group version kw serves.
        for name, service in services.items():
            if service["metadata"].get("labels", {}).get(MANAGED) == "onstart":
                self.assertIn((service["spec"].get("group", ""), service["spec"]["version"]), served, name)

    def test_discovery_lists_groups_in_kube_order(self):
        groups = [g["name"] for g in self.get("/apis")[1]["groups"]]
        recorded = [g for g in self.recorded["discovery_groups"] if g in groups]
        self.assertEqual([g for g in groups if g in recorded], recorded)

    def test_crd_versions_follow_the_definition(self):
        code, _, body = self.server.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)
        self.assertEqual(code, 201, body)
        expected = next(s for s in self.recorded["apiservices"] if s["name"] == "v1.example.com")
        got = wait_until(lambda: (lambda s: s if s and s.get("status") else None)(
            self.services().get("v1.example.com")))
        self.assertIsNotNone(got)
        shown = self.as_recorded(got)
        shown["spec"] = {k: v for k, v in shown["spec"].items() if k in expected["spec"]}
        self.assertEqual(shown, expected)
        self.assertNotIn("v1beta1.example.com", self.services())
        # Deleted by hand, it comes back while the CRD serves the version.
        self.assertEqual(self.server.request("DELETE", SERVICES + "/v1.example.com")[0], 200)
        self.assertTrue(wait_until(lambda: "v1.example.com" in self.services()))
        # The definition gone, so is its APIService.
        self.assertEqual(self.server.request("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                                             "widgets.example.com")[0], 200)
        self.assertTrue(wait_until(lambda: "v1.example.com" not in self.services()))

    def test_an_apiservice_without_a_service_is_available_locally(self):
        body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.local.example"},
                "spec": {"group": "local.example", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}
        code, _, answer = self.server.request("POST", SERVICES, body)
        self.assertEqual(code, 201, answer)
        got = wait_until(lambda: self.services()["v1.local.example"].get("status", {}).get("conditions"))
        self.assertEqual([{k: c[k] for k in ("type", "status", "reason", "message")} for c in got],
                         [{"type": "Available", "status": "True", "reason": "Local",
                           "message": "Local APIServices are always available"}])
        self.assertNotIn(MANAGED, self.services()["v1.local.example"]["metadata"].get("labels", {}))


if __name__ == "__main__":
    unittest.main()
