"""PodSecurity as kube-apiserver v1.23.13 answered it (recorded): for pods and a Deployment in
namespaces that enforce, warn and audit baseline and restricted at pinned versions (v1.23 and
v1.0), and for bad labels and a raised enforce level: the same codes, refusals and Warning
headers, in order. Where Kubernetes 1.33 answers otherwise (a feature gate turned on, the
seccomp annotation sync removed, restricted checks overriding baseline ones), the recording's
changed_after_1_23 entry, with its reason, is what kw must answer."""
import json
import os
import subprocess
import tempfile
import unittest

from kwtest import KwServer, free_port, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "pod-security-1.23.json")


class RecordedPodSecurityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-pod-security-")
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.token = cls.recorded["tokens"][0]["token"]
        # No ServiceAccount controller: the recording's kube-apiserver had none either.
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--controllers", "*,-serviceaccount"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, answer, _ = cls.call(step["method"], step["path"], step["body"])
            assert code == step["code"], (step["path"], code, answer)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    @classmethod
    def call(cls, method, path, body, content_type="application/json"):
        """(code, answer, Warning header values in order)."""
        out = os.path.join(cls.dir.name, "body")
        args = ["timeout", "20", "curl", "-sk", "-D", "-", "-o", out, "-X", method, "-H", f"Authorization: Bearer {cls.token}",
                "-H", f"Content-Type: {content_type}", "--data-binary", json.dumps(body), cls.server.secure_url + path]
        lines = subprocess.run(args, capture_output=True, text=True).stdout.replace("\r", "").split("\n")
        code = int(lines[0].split()[1])
        warnings = [line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("warning:")]
        with open(out) as f:
            return code, json.load(f), warnings

    def test_cases(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 70)
        changed = self.recorded["changed_after_1_23"]
        for recorded in cases:
            case = dict(recorded, **changed.get(recorded["name"], {}))
            if "response" in case and case["code"] < 400:
                del case["response"]
            with self.subTest(case["name"]):
                code, answer, warnings = self.call(case["method"], case["path"], case["body"],
                                                   case.get("content_type", "application/json"))
                self.assertEqual(code, case["code"], answer.get("message"))
                self.assertEqual(warnings, case["warnings"])
                if "response" in case:
                    for key in ("message", "reason", "details"):
                        self.assertEqual(answer.get(key), case["response"][key], key)


if __name__ == "__main__":
    unittest.main()
