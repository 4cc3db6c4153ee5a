"""Authorization over every shape of a read request: each combination of namespace, resource,
object name, request form (get, list, watch by parameter or by legacy path, single-object
watch, fieldSelector on metadata.name, cluster-wide list and watch, a continue token,
resourceVersion=0), response encoding (JSON, YAML, protobuf, Table) and transport (HTTP/1.1,
HTTP/2, a WebSocket upgrade) is asked of kw under RBAC, and the answer must follow one model
of what the user may do: allowed requests are never refused, denied ones get kube's 403 for
the right verb and object before any event is written."""
import json
import os
import subprocess
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from itertools import product

from kwtest import KwServer, free_port, https, write_tokens

# What ann may do: read configmaps in team; get the one secret `open` in team.
GRANTS = [("team", "configmaps", {"get", "list", "watch"}, None),
          ("team", "secrets", {"get"}, "open")]
NAMESPACES = ("team", "other")
RESOURCES = ("configmaps", "secrets")
NAMES = ("open", "closed")
ACCEPTS = {
    "json": "application/json",
    "yaml": "application/yaml",
    "protobuf": "application/vnd.kubernetes.protobuf",
    "table": "application/json;as=Table;g=meta.k8s.io;v=v1",
}
TRANSPORTS = ("--http1.1", "--http2")


def allowed(ns, resource, verb, name):
    return any(ns == g_ns and resource == g_res and verb in verbs and (g_name is None or g_name == name)
               for g_ns, g_res, verbs, g_name in GRANTS)


def forms(ns, resource, name):
    """(description, path, verb, name the request is about, watch) of each request form."""
    base = f"/api/v1/namespaces/{ns}/{resource}"
    yield "get", f"{base}/{name}", "get", name, False
    yield "list", base, "list", "", False
    yield "list limit+continue", f"{base}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0",\
        "list", "", False
    yield "list rv=0", f"{base}?resourceVersion=0", "list", "", False
    yield "list by name", f"{base}?fieldSelector=metadata.name%3D{name}", "list", name, False
    yield "watch=true", f"{base}?watch=true&timeoutSeconds=1", "watch", "", True
    yield "watch=1 by name", f"{base}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3D{name}", "watch", name, True
    yield "legacy watch path", f"/api/v1/watch/namespaces/{ns}/{resource}?timeoutSeconds=1", "watch", "", True
    yield "legacy single-object watch", f"/api/v1/watch/namespaces/{ns}/{resource}/{name}?timeoutSeconds=1", \
        "watch", name, True


def forbidden_message(ns, resource, verb, name, cluster=False):
    subject = f'{resource} "{name}"' if name else resource
    where = "cluster scope" if cluster else f'the namespace "{ns}"'
    return (f'{subject} is forbidden: User "ann" cannot {verb} resource "{resource}" in API group "" '
            f'{"at the " + where if cluster else "in " + where}')


class RequestShapesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-shapes-")
        tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]},
                                             {"token": "ann-token", "user": "ann", "groups": []}])
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC"], secure_port=free_port())
        cls.server.start()
        for ns in NAMESPACES:
            cls.admin("POST", "/api/v1/namespaces", {"metadata": {"name": ns}})
            for name in NAMES:
                cls.admin("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": name}})
                cls.admin("POST", f"/api/v1/namespaces/{ns}/secrets", {"metadata": {"name": name}})
        cls.admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", {
            "metadata": {"name": "reader"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]},
                      {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["open"], "verbs": ["get"]}]})
        cls.admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
            "metadata": {"name": "ann-reads"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "User", "name": "ann", "apiGroup": "rbac.authorization.k8s.io"}]})
        code, _ = https(cls.server.secure_url + "/api/v1/namespaces/team/configmaps/open", "ann-token")
        assert code == 200, code

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    @classmethod
    def admin(cls, method, path, body):
        code, text = https(cls.server.secure_url + path, "admin-token", method, body)
        assert code in (200, 201), (path, code, text)

    def ask(self, path, accept, transport, extra_headers=None):
        headers = {"Accept": accept}
        headers.update(extra_headers or {})
        return https(self.server.secure_url + path, "ann-token", headers=headers,
                     extra=[transport, "--max-time", "5"])

    def cases(self):
        for ns, resource, name in product(NAMESPACES, RESOURCES, NAMES):
            for form in forms(ns, resource, name):
                for encoding, transport in product(ACCEPTS, TRANSPORTS):
                    yield (ns, resource, name, form, encoding, transport)
        # Cluster-wide: never allowed to ann, whatever the encoding.
        for resource, (desc, query, verb) in product(RESOURCES, [("cluster list", "", "list"),
                                                                 ("cluster watch", "?watch=true&timeoutSeconds=1", "watch")]):
            for encoding, transport in product(ACCEPTS, TRANSPORTS):
                yield ("", resource, "", (desc, f"/api/v1/{resource}{query}", verb, "", verb == "watch"), encoding,
                       transport)

    def check(self, case):
        ns, resource, name, (desc, path, verb, about, watch), encoding, transport = case
        code, text = self.ask(path, ACCEPTS[encoding], transport)
        label = f"{desc} {path} as {encoding} over {transport}"
        if ns and allowed(ns, resource, verb, about):
            # Allowed: never 403 (a continue token of another list may be refused as bad input).
            return None if code != 403 else f"{label}: refused: {text[:200]}"
        if code != 403:
            return f"{label}: expected 403, got {code}: {text[:200]}"
        status = json.loads(text)  # a refusal is always a JSON Status, whatever was asked for
        expected = forbidden_message(ns, resource, verb, about, cluster=not ns)
        if status.get("message") != expected:
            return f"{label}: message {status.get('message')!r}, expected {expected!r}"
        if '"type"' in text:
            return f"{label}: an event was written before the refusal"
        return None

    def test_every_shape_follows_the_model(self):
        cases = list(self.cases())
        self.assertGreater(len(cases), 300)
        with ThreadPoolExecutor(max_workers=8) as pool:
            failures = [f for f in pool.map(self.check, cases) if f]
        self.assertEqual(failures, [], f"{len(failures)} of {len(cases)} shapes:\n" + "\n".join(failures[:20]))

    def test_websocket_upgrades_are_authorized_first(self):
        upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        for ns, resource in product(NAMESPACES, RESOURCES):
            for desc, path, verb, about, watch in forms(ns, resource, "closed"):
                if not watch:
                    continue
                code, text = self.ask(path, "application/json", "--http1.1", upgrade)
                if allowed(ns, resource, verb, about):
                    self.assertIn(code, (101, 200), f"{desc} {path}")
                else:
                    self.assertEqual(code, 403, f"{desc} {path}: {text[:200]}")
                    self.assertEqual(json.loads(text)["message"], forbidden_message(ns, resource, verb, about))


if __name__ == "__main__":
    unittest.main()
