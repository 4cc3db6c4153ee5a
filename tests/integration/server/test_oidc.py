"""OpenID Connect login: kw serve with --oidc-issuer-url pointing at a local HTTPS issuer that
this test runs (discovery document and JWKS), ID tokens signed with the issuer's RSA key by
openssl; the user and groups come from the claims, with prefixes; a wrong audience, an
expired token or another key are refused; a rotated key is picked up."""
import base64
import http.server
import json
import os
import subprocess
import tempfile
import time
import unittest

from kwtest import KW_BIN, KwServer, free_port, https, https_server, make_tls_files, send_json, stop_https_server, write_tokens

CLIENT_ID = "kw-test"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def rsa_key(path):
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path],
                   check=True, capture_output=True)
    text = subprocess.run(["openssl", "rsa", "-in", path, "-noout", "-modulus"], check=True, capture_output=True,
                          text=True).stdout
    modulus = bytes.fromhex(text.strip().split("=", 1)[1])
    return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": os.path.basename(path), "n": b64url(modulus),
            "e": "AQAB"}


def sign(key_path, kid, claims):
    signed = b64url(json.dumps({"alg": "RS256", "kid": kid}).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_path], input=signed.encode(),
                               capture_output=True, check=True).stdout
    return signed + "." + b64url(signature)


class Issuer:
    """A minimal OIDC provider: /.well-known/openid-configuration and /keys over HTTPS."""

    def __init__(self, directory):
        self.tls = make_tls_files(directory)
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.jwks = {"keys": []}
        issuer = self

        self.refreshes = []  # (Authorization header, form) of each token request
        self.token_answer = None  # what the token endpoint answers (a callable of the form)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                form = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                issuer.refreshes.append((self.headers.get("Authorization"), form))
                if self.path != "/token" or issuer.token_answer is None:
                    self.send_error(404)
                    return
                send_json(self, *issuer.token_answer(self.headers.get("Authorization"), form))

            def do_GET(self):
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": issuer.url, "jwks_uri": issuer.url + "/keys", "token_endpoint": issuer.url + "/token",
                            "id_token_signing_alg_values_supported": ["RS256"]}
                elif self.path == "/keys":
                    body = issuer.jwks
                else:
                    self.send_error(404)
                    return
                send_json(self, 200, body)

            def log_message(self, *args):
                pass

        self.server = https_server(Handler, self.tls, self.port)

    def stop(self):
        stop_https_server(self.server)


class OidcTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-oidc-")
        cls.issuer = Issuer(cls.dir.name)
        cls.key = os.path.join(cls.dir.name, "key-1")
        cls.issuer.jwks["keys"].append(rsa_key(cls.key))
        tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--oidc-issuer-url", cls.issuer.url, "--oidc-client-id", CLIENT_ID,
                               "--oidc-ca-file", cls.issuer.tls["ca"], "--oidc-username-claim", "email",
                               "--oidc-groups-claim", "groups", "--oidc-groups-prefix", "oidc:"],
                              secure_port=free_port())
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.issuer.stop()
        cls.dir.cleanup()

    def claims(self, **changes):
        now = int(time.time())
        claims = {"iss": self.issuer.url, "aud": CLIENT_ID, "sub": "1234", "email": "jane@example.com",
                  "email_verified": True, "groups": ["devs", "ops"], "iat": now, "exp": now + 600}
        claims.update(changes)
        return claims

    def whoami(self, token):
        out = subprocess.run(["timeout", "30", KW_BIN, "auth", "whoami", "-o", "json",
                              f"--server={self.server.secure_url}", "--insecure-skip-tls-verify", f"--token={token}"],
                             capture_output=True, text=True)
        return out.returncode, (json.loads(out.stdout)["status"]["userInfo"] if out.returncode == 0 else out.stderr)

    def wait_for_login(self, token):
        deadline = time.monotonic() + 15  # the keys are fetched in the background
        while True:
            code, answer = self.whoami(token)
            if code == 0 or time.monotonic() > deadline:
                return code, answer
            time.sleep(0.2)

    def test_login_names_the_user_and_groups(self):
        code, user = self.wait_for_login(sign(self.key, "key-1", self.claims()))
        self.assertEqual(code, 0, user)
        self.assertEqual(user["username"], "jane@example.com")  # the email claim has no prefix
        self.assertEqual(user["groups"], ["oidc:devs", "oidc:ops", "system:authenticated"])
        # RBAC sees the prefixed group.
        https(self.server.secure_url + "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "admin-token", "POST",
              {"metadata": {"name": "oidc-devs"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
               "subjects": [{"kind": "Group", "name": "oidc:devs", "apiGroup": "rbac.authorization.k8s.io"}]})
        token = sign(self.key, "key-1", self.claims())
        deadline = time.monotonic() + 5
        while https(self.server.secure_url + "/api/v1/namespaces/default/pods", token)[0] != 200:
            self.assertLess(time.monotonic(), deadline, "the binding never applied")
            time.sleep(0.05)

    def test_refusals(self):
        self.wait_for_login(sign(self.key, "key-1", self.claims()))
        for name, token in [
            ("wrong audience", sign(self.key, "key-1", self.claims(aud="someone-else"))),
            ("expired", sign(self.key, "key-1", self.claims(exp=int(time.time()) - 3600))),
            ("email not verified", sign(self.key, "key-1", self.claims(email_verified=False))),
            ("unknown key", sign(os.path.join(self.dir.name, "stranger"), "x", self.claims())
             if rsa_key(os.path.join(self.dir.name, "stranger")) else ""),
        ]:
            with self.subTest(name):
                code, text = https(self.server.secure_url + "/apis", token)
                self.assertEqual(code, 401, text)

    def test_rotated_key_is_picked_up(self):
        self.wait_for_login(sign(self.key, "key-1", self.claims()))
        new_key = os.path.join(self.dir.name, "key-2")
        self.issuer.jwks["keys"].append(rsa_key(new_key))
        token = sign(new_key, "key-2", self.claims(email="rotated@example.com"))
        code, user = self.wait_for_login(token)
        self.assertEqual(code, 0, user)
        self.assertEqual(user["username"], "rotated@example.com")

    def kubeconfig_with(self, provider):
        path = os.path.join(self.dir.name, "auth-provider.kubeconfig")
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "c",
                       "clusters": [{"name": "kw", "cluster": {"server": self.server.secure_url,
                                                                "insecure-skip-tls-verify": True}}],
                       "contexts": [{"name": "c", "context": {"cluster": "kw", "user": "jane"}}],
                       "users": [{"name": "jane", "user": {"auth-provider": provider}}]}, f)
        return path

    def whoami_with(self, kubeconfig):
        out = subprocess.run(["timeout", "30", KW_BIN, "--kubeconfig", kubeconfig, "auth", "whoami", "-o", "json"],
                             capture_output=True, text=True)
        return out.returncode, (json.loads(out.stdout)["status"]["userInfo"] if out.returncode == 0 else out.stderr)

    def test_kubeconfig_oidc_auth_provider_refreshes_and_persists_tokens(self):
        self.wait_for_login(sign(self.key, "key-1", self.claims()))
        fresh = sign(self.key, "key-1", self.claims(email="refreshed@example.com"))

        def answer(authorization, form):
            wanted = "Basic " + base64.b64encode(f"{CLIENT_ID}:s%3Ecret".encode()).decode()
            if authorization != wanted or "grant_type=refresh_token" not in form or "refresh_token=rt-1" not in form:
                return 401, {"error": "invalid_client"}
            return 200, {"access_token": "opaque", "token_type": "Bearer", "id_token": fresh, "refresh_token": "rt-2"}

        self.issuer.token_answer = answer
        self.issuer.refreshes.clear()
        expired = sign(self.key, "key-1", self.claims(exp=int(time.time()) - 60))
        config = {"client-id": CLIENT_ID, "client-secret": "s>cret", "idp-issuer-url": self.issuer.url,
                  "idp-certificate-authority": self.issuer.tls["ca"], "id-token": expired, "refresh-token": "rt-1"}
        kubeconfig = self.kubeconfig_with({"name": "oidc", "config": config})
        code, user = self.whoami_with(kubeconfig)
        self.assertEqual(code, 0, user)
        self.assertEqual(user["username"], "refreshed@example.com")
        self.assertEqual(len(self.issuer.refreshes), 1)
        # The new ID token and the rotated refresh token are in the kubeconfig now, and the
        # valid ID token is used as it is: no second refresh.
        out = subprocess.run([KW_BIN, "--kubeconfig", kubeconfig, "config", "view", "--raw", "-o", "json"],
                             capture_output=True, text=True, check=True)
        saved = json.loads(out.stdout)["users"][0]["user"]["auth-provider"]["config"]
        self.assertEqual(saved["id-token"], fresh)
        self.assertEqual(saved["refresh-token"], "rt-2")
        self.assertEqual(saved["client-secret"], "s>cret")
        code, user = self.whoami_with(kubeconfig)
        self.assertEqual((code, user["username"]), (0, "refreshed@example.com"))
        self.assertEqual(len(self.issuer.refreshes), 1)

    def test_auth_provider_refusals(self):
        expired = sign(self.key, "key-1", self.claims(exp=int(time.time()) - 60))
        for provider, message in [
            ({"name": "oidc", "config": {"client-id": CLIENT_ID, "idp-issuer-url": self.issuer.url, "id-token": expired}},
             "No valid id-token, and cannot refresh without refresh-token"),
            ({"name": "oidc", "config": {"client-id": CLIENT_ID}}, "Must provide idp-issuer-url"),
            ({"name": "gcp", "config": {}}, 'Please use the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin'),
            ({"name": "azure", "config": {}}, "The azure auth plugin has been removed."),
            ({"name": "mystery", "config": {}}, 'no Auth Provider found for name "mystery"'),
        ]:
            with self.subTest(provider["name"]):
                code, text = self.whoami_with(self.kubeconfig_with(provider))
                self.assertNotEqual(code, 0)
                self.assertIn(message, text)


if __name__ == "__main__":
    unittest.main()
