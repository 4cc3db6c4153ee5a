"""ServiceAccount tokens: `kubectl create token` (TokenRequest) issues a JWT signed with the
server's key, which authenticates as system:serviceaccount:NS:NAME until its ServiceAccount
(or the Pod or Secret it is bound to) goes; TokenReview with audiences; the OpenID discovery
documents; legacy Secret-based tokens; keys from --service-account-key-file; the token's
signature checked with openssl against the published key."""
import base64
import json
import os
import re
import subprocess
import tempfile
import time
import unittest

from kwtest import KW_BIN, KwServer, free_port, https, write_tokens



def jws_signature_to_der(raw):
    """An ES256 JWS signature (r then s, 32 bytes each) as OpenSSL reads it: DER, a SEQUENCE of
    the two INTEGERs."""
    def integer(value):
        body = value.lstrip(b"\0") or b"\0"
        if body[0] & 0x80:
            body = b"\0" + body
        return bytes([0x02, len(body)]) + body
    content = integer(raw[:32]) + integer(raw[32:])
    return bytes([0x30, len(content)]) + content


def der_signature_to_jws(der, size):
    """An ECDSA signature as OpenSSL writes it (DER: SEQUENCE of the INTEGERs r and s) as JWS
    carries it: r then s, each `size` bytes, big-endian."""
    def integer(at):
        assert der[at] == 0x02
        length = der[at + 1]
        return int.from_bytes(der[at + 2:at + 2 + length], "big"), at + 2 + length
    assert der[0] == 0x30
    at = 3 if der[1] & 0x80 else 2
    r, at = integer(at)
    s, _ = integer(at)
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")

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
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
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
        self.assertEqual(b64url_json(header)["alg"], "ES256")  # kw's own generated key is ECDSA P-256
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
        self.assertEqual(keys[kid]["kty"], "EC")  # kw's own generated key, ES256
        self.assertEqual({k["kty"] for k in keys.values()}, {"RSA", "EC"})
        signing_key = os.path.join(self.server.data_dir, "pki", "sa.key")
        pub = os.path.join(self.dir.name, "sa.pub")
        subprocess.run(["openssl", "pkey", "-in", signing_key, "-pubout", "-out", pub], check=True, capture_output=True)
        signed, _, signature = token.rpartition(".")
        sig_file = os.path.join(self.dir.name, "sig.bin")
        with open(sig_file, "wb") as f:
            f.write(jws_signature_to_der(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))))
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
        # kw's own generated key is ECDSA P-256: ES256, whose JWS signature is r and s, 32 bytes each.
        signed = b64url(json.dumps({"alg": "ES256"}).encode()) + "." + b64url(json.dumps(claims).encode())
        key = os.path.join(self.server.data_dir, "pki", "sa.key")
        der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signed.encode(),
                             capture_output=True, check=True).stdout
        token = signed + "." + b64url(der_signature_to_jws(der, 32))
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


    def test_discovery_document_headers(self):
        """The issuer's documents may be cached for an hour; a refusal of them may not."""
        cases = [c for c in self.recorded["cases"] if c.get("phase", 1) == 1 and c["user"] in ("admin", "alice", "anonymous")
                 and ("openid-configuration" in c["name"] or "jwks" in c["name"])]
        self.assertGreaterEqual(len(cases), 6)
        for case in cases:
            with self.subTest(case["name"]):
                with tempfile.NamedTemporaryFile("r") as head:
                    code, _ = https(self.server.secure_url + case["path"], self.tokens.get(case["user"]),
                                    extra=["-D", head.name])
                    lines = [line.split(":", 1) for line in head.read().splitlines() if ":" in line]
                headers = {name.strip().lower(): value.strip() for name, value in lines}
                self.assertEqual(code, case["code"])
                for name in ("cache-control", "content-type"):
                    self.assertEqual(headers.get(name), case["response_headers"][name], name)


# Recorded refusals this replay cannot give, and why.
NOT_YET = {
    # Replayed in order by ServiceAccountAdmissionRecordedTest (they need the objects made before them).
    "create Pod without serviceAccountName (no 'default' ServiceAccount)": "replayed in sequence below",
    "create Pod with serviceAccountName missing": "replayed in sequence below",
    "create Pod with automountServiceAccountToken false, serviceAccountName missing": "replayed in sequence below",
    "TokenRequest for deleted ServiceAccount builder": "follows a deletion this replay does not make",
}

GENERATED_VOLUME = re.compile(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}")


class ServiceAccountAdmissionRecordedTest(unittest.TestCase):
    """kube-apiserver's answers to pod creates through the ServiceAccount admission plugin,
    replayed in their recorded order on a kw without its serviceaccount controller (as the
    recording had no controller-manager): the default ServiceAccount, the refusals, the
    projected token volume and its mounts, automountServiceAccountToken of the pod and of the
    ServiceAccount, an existing kube-api-access-* volume, imagePullSecrets copied. The whole
    spec is compared: DefaultTolerationSeconds and Priority ran there too."""

    FIRST = "create Pod without serviceAccountName (no 'default' ServiceAccount)"
    LAST = "create Pod with automountServiceAccountToken false, serviceAccountName missing"

    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            recorded = json.load(f)
        names = [c["name"] for c in recorded["cases"]]
        cls.cases = recorded["cases"][names.index(cls.FIRST):names.index(cls.LAST) + 1]
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-sa-admission-")
        tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])
        cls.server = KwServer(["--token-auth-file", tokens, "--controllers", "*,-serviceaccount"],
                              secure_port=free_port())
        cls.server.start()
        for path, body in (("/api/v1/namespaces", {"metadata": {"name": "team"}}),
                           ("/api/v1/namespaces/team/serviceaccounts", {"metadata": {"name": "builder"}})):
            code, text = https(cls.server.secure_url + path, "admin-token", "POST", body)
            assert code == 201, text

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    @staticmethod
    def comparable_spec(pod):
        return json.loads(GENERATED_VOLUME.sub("kube-api-access-XXXXX", json.dumps(pod["spec"], sort_keys=True)))

    def test_replay_in_order(self):
        self.assertGreaterEqual(len(self.cases), 12)
        for case in self.cases:
            with self.subTest(case["name"]):
                started = time.monotonic()
                code, text = https(self.server.secure_url + case["path"], "admin-token", case["method"],
                                   case["body"], case.get("headers"))
                self.assertEqual(code, case["code"], text)
                answer, expected = json.loads(text), case["response"]
                if expected.get("kind") == "Status":
                    self.assertEqual(answer["message"], expected["message"])
                    self.assertEqual(answer["reason"], expected["reason"])
                    self.assertEqual(answer["details"], expected["details"])
                    if "team/default" in expected["message"]:  # looked for again, as kube does
                        self.assertGreater(time.monotonic() - started, 0.9)
                elif expected.get("kind") == "Pod":
                    self.assertEqual(self.comparable_spec(answer), self.comparable_spec(expected))
                    volumes = [v["name"] for v in answer["spec"].get("volumes", [])]
                    generated = [v for v in volumes if GENERATED_VOLUME.fullmatch(v)]
                    self.assertLessEqual(len(generated), 1, volumes)


class NamespaceDefaultsTest(unittest.TestCase):
    """What kube-controller-manager puts in every namespace, kept by kw: the default
    ServiceAccount and kube-root-ca.crt (the serving CA), made again when deleted and put back
    when changed; a pod created right after its namespace gets the default ServiceAccount."""

    @classmethod
    def setUpClass(cls):
        cls.server = KwServer(secure_port=free_port())
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def kubectl(self, *args, check=True):
        result = subprocess.run(["kubectl", "--kubeconfig", self.server.kubeconfig, *args], capture_output=True,
                                text=True, timeout=60)
        if check:
            self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def wait_for(self, predicate, what, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        self.fail(f"timed out waiting for {what}")

    def root_ca(self, ns):
        result = self.kubectl("-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", "json", check=False)
        return json.loads(result.stdout) if result.returncode == 0 else None

    def test_every_namespace_gets_them(self):
        with open(self.server.ca_file) as f:
            ca = f.read()
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            self.wait_for(lambda: self.root_ca(ns) is not None, f"kube-root-ca.crt in {ns}")
            config_map = self.root_ca(ns)
            self.assertEqual(config_map["data"], {"ca.crt": ca})
            self.assertIn("kube-apiserver", config_map["metadata"]["annotations"]["kubernetes.io/description"])
            self.kubectl("-n", ns, "get", "serviceaccount", "default")

    def test_pod_right_after_its_namespace(self):
        self.kubectl("create", "namespace", "fresh")
        self.kubectl("-n", "fresh", "run", "web", "--image", "nginx:1.23")
        pod = json.loads(self.kubectl("-n", "fresh", "get", "pod", "web", "-o", "json").stdout)
        self.assertEqual(pod["spec"]["serviceAccountName"], "default")
        self.assertEqual(pod["spec"]["serviceAccount"], "default")
        [volume] = pod["spec"]["volumes"]
        self.assertRegex(volume["name"], GENERATED_VOLUME)
        self.assertEqual(pod["spec"]["containers"][0]["volumeMounts"],
                         [{"name": volume["name"], "readOnly": True,
                           "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}])

    def test_made_again_and_put_back(self):
        self.kubectl("create", "namespace", "again")
        self.wait_for(lambda: self.root_ca("again") is not None, "kube-root-ca.crt")
        self.kubectl("-n", "again", "delete", "serviceaccount", "default")
        self.wait_for(lambda: self.kubectl("-n", "again", "get", "sa", "default", check=False).returncode == 0,
                      "the default ServiceAccount again")
        original = self.root_ca("again")["data"]
        self.kubectl("-n", "again", "patch", "configmap", "kube-root-ca.crt", "-p", '{"data":{"ca.crt":"changed"}}')
        self.wait_for(lambda: self.root_ca("again")["data"] == original, "kube-root-ca.crt put back")
        self.kubectl("-n", "again", "delete", "configmap", "kube-root-ca.crt")
        self.wait_for(lambda: (self.root_ca("again") or {}).get("data") == original, "kube-root-ca.crt again")

    def test_unknown_controller_is_refused(self):
        result = subprocess.run([KW_BIN, "serve", "--controllers", "*,-nodes", "--insecure-port", "0"],
                                capture_output=True, text=True, timeout=30)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn('"-nodes" is not in the list of known controllers', result.stderr)


if __name__ == "__main__":
    unittest.main()
