"""Front-proxy authentication (--requestheader-*): a client certificate from the request-header CA
names the user in X-Remote-* headers; kube-system/extension-apiserver-authentication publishes the
settings. Expected answers were recorded from kube-apiserver v1.23.13 started with the same flags:
the ConfigMap's JSON string slices ("[]" for a flag not given), 401 for a proxy that names no user
or whose CN is not allowed, and the proxy's user otherwise."""
import json
import os
import subprocess
import tempfile
import unittest

from kwtest import KwServer, free_port, https, write_tokens

REVIEW = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


def openssl(*args):
    subprocess.run(["timeout", "20", "openssl", *args], check=True, capture_output=True)


def client_cert(directory, name, ca, ca_key, organization=None):
    """A client certificate for CN=name signed by (ca, ca_key): (cert, key) paths."""
    cert, key, csr = (os.path.join(directory, f"{name}.{ext}") for ext in ("crt", "key", "csr"))
    ext = os.path.join(directory, "client.cnf")
    with open(ext, "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    subject = f"/CN={name}" + (f"/O={organization}" if organization else "")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", subject)
    openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "1",
            "-extfile", ext)
    return cert, key


class RequestHeaderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-requestheader-")
        d = cls.dir.name
        cls.proxy_ca, proxy_ca_key = os.path.join(d, "proxy-ca.crt"), os.path.join(d, "proxy-ca.key")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", proxy_ca_key, "-out", cls.proxy_ca,
                "-days", "1", "-subj", "/CN=proxy-ca")
        cls.proxy = client_cert(d, "front-proxy-client", cls.proxy_ca, proxy_ca_key)
        cls.other_proxy = client_cert(d, "other-proxy", cls.proxy_ca, proxy_ca_key)
        tokens = write_tokens(d, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])
        cls.server = KwServer(["--token-auth-file", tokens, "--anonymous-auth",
                               "--requestheader-client-ca-file", cls.proxy_ca,
                               "--requestheader-allowed-names", "front-proxy-client",
                               "--requestheader-username-headers", "X-Remote-User",
                               "--requestheader-group-headers", "X-Remote-Group",
                               "--requestheader-extra-headers-prefix", "X-Remote-Extra-"],
                              secure_port=free_port())
        cls.server.start()
        pki = os.path.join(cls.server.data_dir, "pki")
        cls.user = client_cert(d, "carol", os.path.join(pki, "ca.crt"), os.path.join(pki, "ca.key"), "qa")

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def review(self, cert, headers=None):
        code, text = https(self.server.secure_url + REVIEW, method="POST",
                           body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
                           headers=headers, extra=("--cert", cert[0], "--key", cert[1]))
        return code, (json.loads(text)["status"]["userInfo"] if code == 201 else text)

    def test_the_configmap_publishes_the_settings(self):
        code, text = https(self.server.secure_url + "/api/v1/namespaces/kube-system/configmaps/"
                           "extension-apiserver-authentication", "admin-token")
        self.assertEqual(code, 200, text)
        data = json.loads(text)["data"]
        with open(self.proxy_ca) as f:
            self.assertEqual(data["requestheader-client-ca-file"], f.read())
        self.assertIn("BEGIN CERTIFICATE", data["client-ca-file"])
        self.assertEqual({k: v for k, v in data.items() if not k.endswith("-file")}, {
            "requestheader-allowed-names": '["front-proxy-client"]',
            "requestheader-username-headers": '["X-Remote-User"]',
            "requestheader-group-headers": '["X-Remote-Group"]',
            "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]'})

    def test_the_proxy_names_the_user(self):
        code, user = self.review(self.proxy, {"X-Remote-User": "alice", "X-Remote-Group": ["devs", "ops"],
                                              "X-Remote-Extra-Scopes%2Fa": ["x", "y"], "X-Remote-Extra-Team": "t1"})
        self.assertEqual(code, 201, user)
        self.assertEqual(user, {"username": "alice", "groups": ["devs", "ops", "system:authenticated"],
                                "extra": {"scopes/a": ["x", "y"], "team": ["t1"]}})

    def test_a_proxy_that_names_no_user_is_refused(self):
        # Its certificate is no user's own (the client CA did not sign it): 401, anonymous or not.
        code, text = self.review(self.proxy)
        self.assertEqual(code, 401, text)
        self.assertEqual(json.loads(text)["message"], "Unauthorized")

    def test_a_proxy_not_allowed_is_refused(self):
        code, text = self.review(self.other_proxy, {"X-Remote-User": "alice"})
        self.assertEqual(code, 401, text)

    def test_a_users_own_certificate_ignores_the_headers(self):
        code, user = self.review(self.user, {"X-Remote-User": "mallory", "X-Remote-Group": "system:masters"})
        self.assertEqual(code, 201, user)
        self.assertEqual(user, {"username": "carol", "groups": ["qa", "system:authenticated"]})


if __name__ == "__main__":
    unittest.main()
