"""--authorization-mode=Node,RBAC: the answers recorded from kube-apiserver v1.23.13 replayed
against kw. Kubelets (system:node:NAME in system:nodes) read the secrets, ConfigMaps, claims
and volumes of the pods bound to their node and nothing else, ask tokens for those pods'
ServiceAccounts, keep their own Lease and CSINode, and may do what the system:node rules
allow; users that only look like nodes get nothing from the Node mode. The graph follows pod
deletions through the watch caches."""
import json
import os
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "node-authorizer-1.23.json")


class RecordedNodeAuthorizerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-node-authz-")
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.tokens = {t["label"]: t["token"] for t in cls.recorded["tokens"]}
        # The recording had no controller-manager: no kube-root-ca.crt was published.
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "Node,RBAC",
                               "--controllers", "*,-root-ca-cert-publisher"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, text = https(cls.server.secure_url + step["path"], cls.tokens["admin"], step["method"], step["body"])
            assert code == step["code"], (step["path"], code, text)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def replay(self, case):
        token = self.tokens[case["user"]]
        body = case.get("body")
        if case["method"] == "PUT" and isinstance(body, dict):  # the object as this server has it now
            code, text = https(self.server.secure_url + case["path"], token)
            self.assertEqual(code, 200, text)
            body = json.loads(text)
        headers = case.get("headers") or {}
        extra = ["--max-time", "5"]
        return https(self.server.secure_url + case["path"], token, case["method"], body, headers, extra=extra)

    def test_cases_in_order(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 60)
        for case in cases:
            with self.subTest(case["name"]):
                if case.get("wait_seconds_before"):
                    time.sleep(0.5)  # kw's graph follows the watch caches within milliseconds
                code, text = self.replay(case)
                self.assertEqual(code, case["code"], text[:300])
                expected = case.get("response")
                if case["code"] == 403:
                    status = json.loads(text)
                    self.assertEqual(status["message"], expected["message"])
                    self.assertEqual(status["details"], expected["details"])


if __name__ == "__main__":
    unittest.main()
