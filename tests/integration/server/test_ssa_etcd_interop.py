"""Server-side apply across servers on one etcd: a Deployment that kube-apiserver v1.23.13 wrote
by apply and update (its etcd value, recorded) is read by kw exactly as kube-apiserver read it,
managedFields included, and kw answers the further applies, forced applies, field removals and
updates as kube-apiserver answered them: the same conflicts, objects and managedFields (times of
the new entries aside)."""
import base64
import json
import os
import subprocess
import unittest

from kwtest import EtcdServer, KwServer, free_port, https, wait_for, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "ssa-etcd-interop-1.23.json")
# Set by the server at write time: compared by presence, not value.
VOLATILE = ("resourceVersion",)


def without_times(managed_fields):
    return [{k: v for k, v in entry.items() if k != "time"} for entry in managed_fields or []]


class SsaEtcdInteropTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.etcd = EtcdServer().start()
        # The value goes in before kw starts, as kube-apiserver left it; the namespace too.
        cls.put(cls.recorded["etcd"]["key"], base64.b64decode(cls.recorded["etcd"]["value_base64"]))
        cls.server = KwServer([f"--etcd={cls.etcd.url}", "--token-auth-file", write_tokens(cls.etcd.dir, cls.recorded["tokens"]),
                               "--authorization-mode", "RBAC"], secure_port=free_port())
        cls.server.start()
        cls.token = cls.recorded["tokens"][0]["token"]
        code, text = https(cls.server.secure_url + "/api/v1/namespaces", cls.token, "POST",
                           {"metadata": {"name": cls.recorded["namespace"]}})
        assert code == 201, text

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.etcd.cleanup()

    @classmethod
    def put(cls, key, value):
        """A binary value through etcd's JSON gateway (etcdctl takes values as arguments)."""
        body = json.dumps({"key": base64.b64encode(key.encode()).decode(), "value": base64.b64encode(value).decode()})
        out = subprocess.run(["timeout", "10", "curl", "-sS", "-X", "POST", "--data-binary", body,
                              cls.etcd.url + "/v3/kv/put"], capture_output=True, text=True)
        assert out.returncode == 0 and "header" in out.stdout, out.stdout + out.stderr

    def send(self, step):
        return https(self.server.secure_url + self.recorded["path"] + step["query"], self.token, step["method"],
                     step["body"], headers={"Content-Type": step["content_type"]})

    def test_kw_reads_what_kube_apiserver_stored(self):
        url = self.server.secure_url + self.recorded["path"]
        wait_for(lambda: https(url, self.token)[0] == 200, 10)
        code, text = https(url, self.token)
        self.assertEqual(code, 200, text)
        got, want = json.loads(text), json.loads(json.dumps(self.recorded["stored"]))
        for key in VOLATILE:
            self.assertIn(key, got["metadata"])
            got["metadata"].pop(key)
            want["metadata"].pop(key)
        self.assertEqual(got["metadata"], want["metadata"])
        self.assertEqual(got["spec"], want["spec"])

    def test_z_further_writes_are_answered_as_kube_apiserver_answered_them(self):
        self.test_kw_reads_what_kube_apiserver_stored()
        for step in self.recorded["after"]:
            with self.subTest(step["name"]):
                code, text = self.send(step)
                self.assertEqual(code, step["code"], text[:500])
                answer, want = json.loads(text), step["response"]
                if code >= 400:
                    self.assertEqual(answer["message"], want["message"])
                    self.assertEqual(answer.get("reason"), want["reason"])
                    self.assertEqual(answer.get("details"), want["details"])
                    continue
                self.assertEqual(answer["spec"], want["spec"])
                self.assertEqual(answer["metadata"].get("labels"), want["metadata"]["labels"])
                self.assertEqual(answer["metadata"].get("generation"), want["metadata"]["generation"])
                self.assertEqual(without_times(answer["metadata"]["managedFields"]),
                                 without_times(want["metadata"]["managedFields"]))


if __name__ == "__main__":
    unittest.main()
