"""kw serve's TLS listener: the generated CA, serving certificate and admin kubeconfig;
x509 and token authentication; ABAC authorization; 401/403 Status bodies."""
import json
import os
import subprocess
import tempfile
import unittest

from kwtest import KwServer, free_port


def curl(*args):
    out = subprocess.run(["timeout", "20", "curl", "-sS", "-w", "\n%{http_code} %{http_version}", *args],
                         capture_output=True, text=True)
    body, _, tail = out.stdout.rpartition("\n")
    code, version = tail.split()
    return int(code), version, body


class AuthTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.config_dir = tempfile.TemporaryDirectory(prefix="kw-auth-")
        tokens = os.path.join(cls.config_dir.name, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('alice-token,alice,1001,"readers,devs"\nbob-token,bob,1002\n')
        policy = os.path.join(cls.config_dir.name, "policy.jsonl")
        with open(policy, "w") as f:
            for spec in [{"user": "alice", "namespace": "default", "resource": "*", "apiGroup": "*", "readonly": True},
                         {"user": "*", "nonResourcePath": "*", "readonly": True}]:
                f.write(json.dumps({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy",
                                    "spec": spec}) + "\n")
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "ABAC",
                               "--authorization-policy-file", policy], secure_port=free_port())
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.config_dir.cleanup()

    def test_kubectl_works_with_the_generated_kubeconfig_over_h2(self):
        out = subprocess.run(["timeout", "30", "kubectl", f"--kubeconfig={self.server.kubeconfig}", "get", "ns",
                              "-o", "name"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("namespace/default", out.stdout.split())
        admin = ["--cacert", self.server.ca_file, "--cert", os.path.join(self.server.data_dir, "pki", "admin.crt"),
                 "--key", os.path.join(self.server.data_dir, "pki", "admin.key")]
        code, version, _ = curl("--http2", *admin, self.server.secure_url + "/api/v1/namespaces")
        self.assertEqual((code, version), (200, "2"))
        code, version, _ = curl("--http1.1", *admin, self.server.secure_url + "/api/v1/namespaces")
        self.assertEqual((code, version), (200, "1.1"))

    def test_no_credentials_is_401(self):
        code, _, body = curl("--cacert", self.server.ca_file, self.server.secure_url + "/api/v1/pods")
        self.assertEqual(code, 401)
        self.assertEqual(json.loads(body)["reason"], "Unauthorized")
        code, _, _ = curl("--cacert", self.server.ca_file, "-H", "Authorization: Bearer wrong",
                          self.server.secure_url + "/api/v1/pods")
        self.assertEqual(code, 401)

    def test_abac_allows_and_forbids(self):
        alice = ["--cacert", self.server.ca_file, "-H", "Authorization: Bearer alice-token"]
        code, _, _ = curl(*alice, self.server.secure_url + "/api/v1/namespaces/default/pods")
        self.assertEqual(code, 200)
        code, _, body = curl(*alice, "-X", "POST", "-H", "Content-Type: application/json", "-d",
                             '{"metadata":{"name":"x"}}', self.server.secure_url + "/api/v1/namespaces/default/configmaps")
        self.assertEqual(code, 403)
        status = json.loads(body)
        self.assertEqual(status["reason"], "Forbidden")
        self.assertIn('User "alice" cannot create resource "configmaps"', status["message"])
        code, _, _ = curl(*alice, self.server.secure_url + "/api/v1/namespaces/kube-system/pods")
        self.assertEqual(code, 403)
        bob = ["--cacert", self.server.ca_file, "-H", "Authorization: Bearer bob-token"]
        code, _, _ = curl(*bob, self.server.secure_url + "/api/v1/namespaces/default/pods")
        self.assertEqual(code, 403)
        code, _, _ = curl(*bob, self.server.secure_url + "/version")
        self.assertEqual(code, 200)

    def test_watch_over_tls_h2_with_token(self):
        code, version, body = curl("--http2", "--cacert", self.server.ca_file, "-H", "Authorization: Bearer alice-token",
                                   self.server.secure_url + "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1")
        self.assertEqual((code, version, body), (200, "2", ""))


if __name__ == "__main__":
    unittest.main()
