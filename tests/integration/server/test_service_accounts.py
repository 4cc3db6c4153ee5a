"""ServiceAccount tokens: `kubectl create token` (TokenRequest) issues a JWT signed with the
server's key, which authenticates as system:serviceaccount:NS:NAME until its ServiceAccount
(or the Pod or Secret it is bound to) goes; TokenReview with audiences; the OpenID discovery
documents; legacy Secret-based tokens; keys from --service-account-key-file; the token's
signature checked with openssl against the published key."""
import base64
import json
import os
import subprocess
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https, write_tokens


def b64url_json(part):
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class ServiceAccountTokenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-sa-")
        tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])
        # A second verification key: tokens signed by it (another issuer's) authenticate too.
        cls.other_key = os.path.join(cls.dir.name, "other.key")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-out", cls.other_key], check=True, capture_output=True)
        cls.other_pub = os.path.join(cls.dir.name, "other.pub")
        subprocess.run(["openssl", "pkey", "-in", cls.other_key, "-pubout", "-out", cls.other_pub], check=True,
                       capture_output=True)
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--service-account-key-file", cls.other_pub], secure_port=free_port())
        cls.server.start()
        cls.admin("POST", "/api/v1/namespaces", {"metadata": {"name": "team"}})
        cls.admin("POST", "/api/v1/namespaces/team/serviceaccounts", {"metadata": {"name": "builder"}})

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    @classmethod
    def admin(cls, method, path, body=None):
        code, text = https(cls.server.secure_url + path, "admin-token", method, body)
        return code, json.loads(text) if text else None

    def request_token(self, name="builder", spec=None):
        return self.admin("POST", f"/api/v1/namespaces/team/serviceaccounts/{name}/token",
                          {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec or {}})

    def as_token(self, token, path):
        return https(self.server.secure_url + path, token)

    def review(self, token, audiences=None):
        spec = {"token": token}
        if audiences is not None:
            spec["audiences"] = audiences
        code, body = self.admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                                {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec})
        self.assertEqual(code, 201, body)
        return body["status"]

    def test_token_request_claims_and_identity(self):
        code, body = self.request_token()
        self.assertEqual(code, 201, body)
        self.assertEqual(body["kind"], "TokenRequest")
        self.assertEqual(body["spec"]["expirationSeconds"], 3600)
        self.assertEqual(body["spec"]["audiences"], ["https://kubernetes.default.svc.cluster.local"])
        token = body["status"]["token"]
        header, payload, _ = token.split(".")
        self.assertEqual(b64url_json(header)["alg"], "RS256")
        claims = b64url_json(payload)
        self.assertEqual(claims["sub"], "system:serviceaccount:team:builder")
        self.assertEqual(claims["iss"], "https://kubernetes.default.svc.cluster.local")
        self.assertEqual(claims["exp"] - claims["iat"], 3600)
        self.assertEqual(claims["kubernetes.io"]["serviceaccount"]["name"], "builder")
        self.assertEqual(list(claims), sorted(claims))  # kube's claims are a sorted JSON object
        # The identity, its groups, and RBAC's refusal naming it.
        status = self.review(token)
        self.assertTrue(status["authenticated"])
        self.assertEqual(status["user"]["username"], "system:serviceaccount:team:builder")
        self.assertEqual(status["user"]["groups"],
                         ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"])
        code, text = self.as_token(token, "/api/v1/namespaces/team/pods")
        self.assertEqual(code, 403)
        self.assertEqual(json.loads(text)["message"], 'pods is forbidden: User "system:serviceaccount:team:builder" '
                                                      'cannot list resource "pods" in API group "" in the namespace "team"')
        self.assertEqual(self.as_token(token, "/apis")[0], 200)

    def test_signature_checks_out_with_the_published_key(self):
        token = self.request_token()[1]["status"]["token"]
        code, jwks = self.admin("GET", "/openid/v1/jwks")
        self.assertEqual(code, 200)
        kid = b64url_json(token.split(".")[0])["kid"]
        keys = {k["kid"]: k for k in jwks["keys"]}
        self.assertEqual(len(keys), 2)  # the signing key and --service-account-key-file's
        self.assertEqual(keys[kid]["kty"], "RSA")
        self.assertEqual({k["kty"] for k in keys.values()}, {"RSA", "EC"})
        signing_key = os.path.join(self.server.data_dir, "pki", "sa.key")
        pub = os.path.join(self.dir.name, "sa.pub")
        subprocess.run(["openssl", "pkey", "-in", signing_key, "-pubout", "-out", pub], check=True, capture_output=True)
        signed, _, signature = token.rpartition(".")
        sig_file = os.path.join(self.dir.name, "sig.bin")
        with open(sig_file, "wb") as f:
            f.write(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
        out = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pub, "-signature", sig_file],
                             input=signed.encode(), capture_output=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        # kid = base64url(SHA-256(DER public key)), as kube-apiserver derives it.
        der = subprocess.run(["openssl", "pkey", "-pubin", "-in", pub, "-outform", "DER"], check=True,
                             capture_output=True).stdout
        import hashlib
        self.assertEqual(kid, b64url(hashlib.sha256(der).digest()))
        code, config = self.admin("GET", "/.well-known/openid-configuration")
        self.assertEqual(code, 200)
        self.assertEqual(config["issuer"], "https://kubernetes.default.svc.cluster.local")
        self.assertTrue(config["jwks_uri"].endswith("/openid/v1/jwks"))
        self.assertEqual(config["response_types_supported"], ["id_token"])

    def test_audiences(self):
        token = self.request_token(spec={"audiences": ["vault"], "expirationSeconds": 7200})[1]["status"]["token"]
        self.assertEqual(self.review(token, ["vault"])["audiences"], ["vault"])
        status = self.review(token)
        self.assertNotIn("authenticated", status)
        self.assertEqual(status["error"], '[invalid bearer token, token audiences ["vault"] is invalid for the target '
                                          'audiences ["https://kubernetes.default.svc.cluster.local"]]')
        self.assertEqual(self.as_token(token, "/apis")[0], 401)  # not for this API

    def test_validation_and_missing_objects(self):
        code, body = self.request_token(spec={"expirationSeconds": 100})
        self.assertEqual(code, 422)
        self.assertEqual(body["message"], 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: '
                                          'Invalid value: 100: may not specify a duration less than 10 minutes')
        code, body = self.request_token("nobody")
        self.assertEqual(code, 404)
        self.assertEqual(body["message"], 'serviceaccounts "nobody" not found')
        code, body = self.request_token(spec={"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}})
        self.assertEqual(code, 400)
        self.assertEqual(body["message"], "cannot bind token to object of type /v1, Kind=ConfigMap")

    def test_deleted_or_recreated_service_account_ends_its_tokens(self):
        self.admin("POST", "/api/v1/namespaces/team/serviceaccounts", {"metadata": {"name": "short-lived"}})
        token = self.request_token("short-lived")[1]["status"]["token"]
        self.assertEqual(self.as_token(token, "/apis")[0], 200)
        self.admin("DELETE", "/api/v1/namespaces/team/serviceaccounts/short-lived")
        code, text = self.as_token(token, "/apis")
        self.assertEqual(code, 401)
        self.assertEqual(json.loads(text)["message"], "Unauthorized")
        self.admin("POST", "/api/v1/namespaces/team/serviceaccounts", {"metadata": {"name": "short-lived"}})
        status = self.review(token)
        self.assertIn("service account UID", status["error"])

    def test_pod_bound_token(self):
        pod = {"metadata": {"name": "runner"},
               "spec": {"serviceAccountName": "builder", "containers": [{"name": "c", "image": "busybox"}]}}
        code, created = self.admin("POST", "/api/v1/namespaces/team/pods", pod)
        self.assertEqual(code, 201, created)
        uid = created["metadata"]["uid"]
        code, body = self.request_token(spec={"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "runner",
                                                                 "uid": "wrong"}})
        self.assertEqual(code, 409)
        code, body = self.request_token(spec={"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "runner",
                                                                 "uid": uid}, "expirationSeconds": 3607})
        self.assertEqual(code, 201, body)
        token = body["status"]["token"]
        claims = b64url_json(token.split(".")[1])
        self.assertEqual(claims["kubernetes.io"]["pod"], {"name": "runner", "uid": uid})
        # 3607 s for a Pod: a year, stale after 3607 s (--service-account-extend-token-expiration).
        self.assertEqual(claims["exp"] - claims["iat"], 365 * 24 * 3600)
        self.assertEqual(claims["kubernetes.io"]["warnafter"] - claims["iat"], 3607)
        status = self.review(token)
        self.assertEqual(status["user"]["extra"], {"authentication.kubernetes.io/pod-name": ["runner"],
                                                   "authentication.kubernetes.io/pod-uid": [uid]})
        self.admin("DELETE", "/api/v1/namespaces/team/pods/runner?gracePeriodSeconds=0")
        deadline = time.monotonic() + 5
        while self.admin("GET", "/api/v1/namespaces/team/pods/runner")[0] != 404 and time.monotonic() < deadline:
            time.sleep(0.05)
        status = self.review(token)
        self.assertEqual(status["error"], "[invalid bearer token, service account token has been invalidated]")
        code, body = self.request_token(spec={"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "runner"}})
        self.assertEqual(code, 404)

    def test_legacy_secret_token(self):
        code, sa = self.admin("GET", "/api/v1/namespaces/team/serviceaccounts/builder")
        claims = {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "team",
                  "kubernetes.io/serviceaccount/secret.name": "builder-token",
                  "kubernetes.io/serviceaccount/service-account.name": "builder",
                  "kubernetes.io/serviceaccount/service-account.uid": sa["metadata"]["uid"],
                  "sub": "system:serviceaccount:team:builder"}
        signed = b64url(json.dumps({"alg": "RS256"}).encode()) + "." + b64url(json.dumps(claims).encode())
        key = os.path.join(self.server.data_dir, "pki", "sa.key")
        signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signed.encode(),
                                   capture_output=True, check=True).stdout
        token = signed + "." + b64url(signature)
        self.assertEqual(self.as_token(token, "/apis")[0], 401)  # no Secret holds it yet
        secret = {"metadata": {"name": "builder-token", "annotations": {"kubernetes.io/service-account.name": "builder"}},
                  "type": "kubernetes.io/service-account-token",
                  "data": {"token": base64.b64encode(token.encode()).decode()}}
        code, body = self.admin("POST", "/api/v1/namespaces/team/secrets", secret)
        self.assertEqual(code, 201, body)
        self.assertEqual(self.review(token)["user"]["username"], "system:serviceaccount:team:builder")
        secret["data"]["token"] = base64.b64encode(b"something-else").decode()
        self.admin("PUT", "/api/v1/namespaces/team/secrets/builder-token", secret)
        self.assertEqual(self.review(token)["error"], "[invalid bearer token, Token does not match server's copy]")


RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "conformance", "recorded",
                        "serviceaccount-tokens-1.23.json")


@unittest.skipUnless(os.path.exists(RECORDED), "no recorded ServiceAccount token answers")
class RecordedTokenAnswersTest(unittest.TestCase):
    """The refusals kube-apiserver 1.23.13 gave to TokenRequests, TokenReviews and the OpenID
    documents (those that name no uid or token made during its run), asked of kw."""

    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-sa-recorded-")
        tokens = write_tokens(cls.dir.name, [t for t in cls.recorded["tokens"] if t.get("token")])
        cls.tokens = {t["user"]: t["token"] for t in cls.recorded["tokens"] if t.get("token")}
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC", "--anonymous-auth"],
                              secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            if step.get("phase", 1) == 1:
                code, text = https(cls.server.secure_url + step["path"], cls.tokens["admin"], step["method"], step["body"])
                assert code < 300, (step["path"], code, text)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def replayable(self, case):
        return (case.get("phase", 1) == 1 and case["code"] >= 400 and case["user"] in ("admin", "alice", "anonymous")
                and "uid" not in json.dumps(case.get("body")) and case["name"] not in NOT_YET)

    def test_refusals(self):
        cases = [c for c in self.recorded["cases"] if self.replayable(c)]
        self.assertGreaterEqual(len(cases), 20)
        for case in cases:
            with self.subTest(case["name"]):
                code, text = https(self.server.secure_url + case["path"], self.tokens.get(case["user"]), case["method"],
                                   case.get("body"), case.get("headers"))
                self.assertEqual(code, case["code"], text)
                expected = case["response"]
                if isinstance(expected, dict) and expected.get("kind") == "Status":
                    status = json.loads(text)
                    self.assertEqual(status["message"], expected["message"])
                    self.assertEqual(status.get("reason"), expected.get("reason"))


# Recorded refusals kw does not give yet, and why.
NOT_YET = {
    "create Pod without serviceAccountName (no 'default' ServiceAccount)": "the ServiceAccount admission plugin",
    "create Pod with serviceAccountName missing": "the ServiceAccount admission plugin",
    "create Pod with automountServiceAccountToken false, serviceAccountName missing": "the ServiceAccount admission plugin",
    "TokenRequest for deleted ServiceAccount builder": "follows a deletion this replay does not make",
}


if __name__ == "__main__":
    unittest.main()
