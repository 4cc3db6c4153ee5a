"""The ResourceQuota plugin's limitedResources (a ResourceQuotaConfiguration in
--admission-control-config-file), replayed against kube-apiserver v1.23.13's recorded answers:
usage whose name contains a matchContains needs a quota that limits it ("insufficient quota to
consume: ..."), pods in a matchScopes scope need a quota of that scope (a 500 without a reason,
as kube's plugin answers it), and what is covered is admitted and charged."""
import json
import os
import tempfile
import unittest

from kwtest import KwServer, free_port, https, wait_for, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "resourcequota-limited-1.23.json")


class LimitedResourcesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-quota-limited-")
        config = os.path.join(cls.dir.name, "admission.yaml")
        with open(config, "w") as f:
            f.write(cls.recorded["admission_configuration"])
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.token = cls.recorded["tokens"][0]["token"]
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--admission-control-config-file", config, "--controllers", "*,-serviceaccount"],
                              secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, text = cls.call("POST", step["path"], step["body"])
            assert code == 201, (step["path"], code, text)
        for entry in cls.recorded["quotas"]:
            path = f"/api/v1/namespaces/{entry['namespace']}/resourcequotas"
            code, text = cls.call("POST", path, entry["quota"])
            assert code == 201, text
            # kw's quota controller writes the status; the recording wrote the same by hand.
            name = entry["quota"]["metadata"]["name"]
            assert wait_for(lambda: json.loads(cls.call("GET", f"{path}/{name}")[1]).get("status") == entry["status"], 10), \
                "the quota controller did not write the status"

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    @classmethod
    def call(cls, method, path, body=None):
        return https(cls.server.secure_url + path, cls.token, method, body)

    def test_cases_then_usage(self):
        for case in self.recorded["cases"]:
            with self.subTest(case["name"]):
                code, text = self.call("POST", case["path"], case["body"])
                self.assertEqual(code, case["code"], text[:300])
                if "response" in case:
                    answer = json.loads(text)
                    for key in ("message", "reason", "details"):
                        self.assertEqual(answer.get(key), case["response"][key], key)
        for name, used in self.recorded["used"].items():
            ns, quota = name.split("/")
            with self.subTest(name):
                answer = json.loads(self.call("GET", f"/api/v1/namespaces/{ns}/resourcequotas/{quota}")[1])
                self.assertEqual(answer["status"]["used"], used)

    def test_a_bad_configuration_stops_the_server(self):
        with tempfile.TemporaryDirectory() as directory:
            config = os.path.join(directory, "admission.yaml")
            with open(config, "w") as f:
                f.write("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
                        "- name: ResourceQuota\n  configuration:\n    apiVersion: v1\n    kind: Nonsense\n")
            server = KwServer(["--admission-control-config-file", config])
            with self.assertRaises(RuntimeError) as raised:
                server.start()
            server.cleanup()
            self.assertIn("ResourceQuotaConfiguration", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
