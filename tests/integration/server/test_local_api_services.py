"""The APIServices of what kw serves itself, as kube-apiserver v1.23.13 keeps them (recorded):
each built-in group version is an APIService without a service, labelled
automanaged=onstart, with kube's priorities and Available (Local); each version a CRD serves
gets one labelled automanaged=true that follows the CRD; an APIService someone else writes
without a service is Available too. Discovery lists the groups in the priorities' order."""
import json
import os
import unittest

from kwtest import KwServer, wait_for

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

    def as_recorded(self, service, expected):
        """`service` in the recording's shape, with the spec fields `expected` has (kw's spec
        carries its defaults too: service null, insecureSkipTLSVerify false)."""
        return {"name": service["metadata"]["name"], "labels": service["metadata"].get("labels"),
                "spec": {k: v for k, v in service["spec"].items() if k in expected["spec"]},
                "conditions": [{k: c[k] for k in ("type", "status", "reason", "message")}
                               for c in service.get("status", {}).get("conditions", [])]}

    def test_built_in_group_versions_are_registered_as_kube_registers_them(self):
        self.assertTrue(wait_for(lambda: "v1." in self.services() and all(
            s.get("status", {}).get("conditions") for s in self.services().values()), 10))
        services = self.services()
        code, groups = self.get("/apis")
        served = {(g["name"], v["version"]) for g in groups["groups"] for v in g["versions"]} | {("", "v1")}
        compared = 0
        for expected in self.recorded["apiservices"]:
            spec = expected["spec"]
            if spec.get("group", "") == "example.com" or (spec.get("group", ""), spec["version"]) not in served:
                continue
            with self.subTest(expected["name"]):
                self.assertIn(expected["name"], services)
                self.assertEqual(self.as_recorded(services[expected["name"]], expected), expected)
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
        self.assertTrue(wait_for(lambda: self.services().get("v1.example.com", {}).get("status"), 10))
        self.assertEqual(self.as_recorded(self.services()["v1.example.com"], expected), expected)
        self.assertNotIn("v1beta1.example.com", self.services())
        # Deleted by hand, it comes back while the CRD serves the version.
        self.assertEqual(self.server.request("DELETE", SERVICES + "/v1.example.com")[0], 200)
        self.assertTrue(wait_for(lambda: "v1.example.com" in self.services(), 10))
        # The definition gone, so is its APIService.
        self.assertEqual(self.server.request("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                                             "widgets.example.com")[0], 200)
        self.assertTrue(wait_for(lambda: "v1.example.com" not in self.services(), 10))

    def test_an_apiservice_without_a_service_is_available_locally(self):
        body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.local.example"},
                "spec": {"group": "local.example", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}
        code, _, answer = self.server.request("POST", SERVICES, body)
        self.assertEqual(code, 201, answer)
        self.assertTrue(wait_for(lambda: self.services()["v1.local.example"].get("status", {}).get("conditions"), 10))
        got = self.services()["v1.local.example"]["status"]["conditions"]
        self.assertEqual([{k: c[k] for k in ("type", "status", "reason", "message")} for c in got],
                         [{"type": "Available", "status": "True", "reason": "Local",
                           "message": "Local APIServices are always available"}])
        self.assertNotIn(MANAGED, self.services()["v1.local.example"]["metadata"].get("labels", {}))


if __name__ == "__main__":
    unittest.main()
