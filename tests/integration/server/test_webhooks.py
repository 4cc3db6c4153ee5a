"""Admission webhooks (MutatingAdmissionWebhook, ValidatingAdmissionWebhook) against a real HTTPS
webhook server started here (webhook_peer.py): the AdmissionReview a webhook is sent, refusals,
JSONPatch mutations (defaulted again), reinvocation, url and Service references (resolved through
EndpointSlices, the certificate checked for NAME.NAMESPACE.svc against caBundle), selectors,
failurePolicy, timeouts, dry runs, warnings, audit annotations, configuration changes, and every
bad answer a webhook can give.

The expected answers are kube-apiserver v1.23.13's: with KW_TEST_APISERVER=https://HOST:PORT and
KW_TEST_TOKEN=TOKEN (a system:masters token whose user is admin with uid admin, and the server
started with --enable-aggregator-routing) the same tests run against that server instead of kw.
"""
import base64
import concurrent.futures
import json
import os
import socket
import ssl
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from kwtest import KwServer, free_port, make_tls_files, write_tokens
from webhook_peer import WebhookPeer, colour_definition

PEER_APISERVER = os.environ.get("KW_TEST_APISERVER")
ADMISSION = "/apis/admissionregistration.k8s.io/v1"
# A custom resource served at v1 (stored; spec.color) and v2 (spec.colour), converted by the peer.
GADGETS = "equiv.kw.test"


def gadgets_rule(*versions):
    return {"operations": ["CREATE", "UPDATE"], "apiGroups": [GADGETS], "apiVersions": list(versions),
            "resources": ["gadgets"]}
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources: [{group: "", resources: ["configmaps"]}]
"""


class WebhookTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-webhooks-")
        cls.tls = make_tls_files(cls.dir.name, dns=("localhost", "webhook.hooks.svc"))
        with open(cls.tls["ca"]) as f:
            cls.ca_bundle = base64.b64encode(f.read().encode()).decode()
        other = os.path.join(cls.dir.name, "other")
        os.mkdir(other)
        with open(make_tls_files(other)["ca"]) as f:
            cls.wrong_ca_bundle = base64.b64encode(f.read().encode()).decode()
        cls.peer_port = free_port()
        cls.peer = WebhookPeer(cls.tls, cls.peer_port)
        cls.audit_log = None
        if PEER_APISERVER:
            cls.base, cls.token, cls.server = PEER_APISERVER, os.environ["KW_TEST_TOKEN"], None
        else:
            tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "uid": "admin",
                                                  "groups": ["system:masters"]}])
            policy = os.path.join(cls.dir.name, "audit.yaml")
            with open(policy, "w") as f:
                f.write(AUDIT_POLICY)
            cls.audit_log = os.path.join(cls.dir.name, "audit.log")
            cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                                   "--audit-policy-file", policy, "--audit-log-path", cls.audit_log,
                                   "--audit-log-mode", "blocking",
                                   # few workers: slow webhooks must not hold the others' requests
                                   "--worker-threads", "2"], secure_port=free_port())
            cls.server.start()
            cls.base, cls.token = cls.server.secure_url, "admin-token"
        cls.context = ssl.create_default_context()
        cls.context.check_hostname = False
        cls.context.verify_mode = ssl.CERT_NONE
        # The webhook's Service: no selector; its endpoint is written here. Addresses in 127/8 are
        # refused in IPv4 EndpointSlices and in Endpoints, so the slice names the peer as an FQDN
        # address (kube-apiserver 1.23 routes through Endpoints instead: no Service-reference
        # test runs against it).
        cls.setup_object("/api/v1/namespaces", {"metadata": {"name": "hooks", "labels": {"team": "a"}}})
        cls.setup_object("/api/v1/namespaces", {"metadata": {"name": "elsewhere", "labels": {"team": "b"}}})
        cls.setup_object("/api/v1/namespaces/hooks/services", {
            "metadata": {"name": "webhook"},
            "spec": {"ports": [{"name": "https", "port": 443, "targetPort": cls.peer_port}]}})
        cls.setup_object("/api/v1/namespaces/hooks/services", {
            "metadata": {"name": "nowhere"}, "spec": {"ports": [{"name": "https", "port": 443}]}})
        cls.setup_object("/api/v1/namespaces/hooks/services", {
            "metadata": {"name": "unready"}, "spec": {"ports": [{"name": "https", "port": 443}]}})
        # No controller publishes ServiceAccounts to a bare kube-apiserver: pods need "default".
        cls.call("POST", "/api/v1/namespaces/hooks/serviceaccounts", {"metadata": {"name": "default"}})
        if not PEER_APISERVER:
            cls.setup_object("/apis/discovery.k8s.io/v1/namespaces/hooks/endpointslices", {
                "metadata": {"name": "webhook-1", "labels": {"kubernetes.io/service-name": "webhook"}},
                "addressType": "FQDN", "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}],
                "ports": [{"name": "https", "port": cls.peer_port, "protocol": "TCP"}]})

        cls.setup_object("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", colour_definition(
            GADGETS, "gadget", f"https://127.0.0.1:{cls.peer_port}/convert", cls.ca_bundle))
        deadline = time.monotonic() + 10
        while cls.call("GET", f"/apis/{GADGETS}/v2/namespaces/hooks/gadgets")[0] != 200:
            assert time.monotonic() < deadline, "gadgets are not served"
            time.sleep(0.1)

    @classmethod
    def setup_object(cls, path, body):
        code, answer, _ = cls.call("POST", path, body)
        assert code == 201, (path, code, answer)

    @classmethod
    def tearDownClass(cls):
        if cls.server:
            cls.server.cleanup()
        cls.peer.stop()
        cls.dir.cleanup()

    @classmethod
    def call(cls, method, path, body=None, content_type="application/json", timeout=30):
        """(code, answer, headers) of one request to the API server."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(cls.base + path, data=data, method=method,
                                         headers={"Authorization": "Bearer " + cls.token, "Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, context=cls.context, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null"), r.headers
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null"), e.headers

    def setUp(self):
        self.peer.clear()
        self.configurations = []

    def tearDown(self):
        """Removes the configurations the test installed (also called mid-test, between cases)."""
        for plural, name in self.configurations:
            self.call("DELETE", f"{ADMISSION}/{plural}/{name}")
        if self.configurations:
            time.sleep(1)
        self.configurations = []

    # --- helpers -----------------------------------------------------------------------------
    def url_client(self, path, port=None):
        return {"url": f"https://127.0.0.1:{port or self.peer_port}{path}", "caBundle": self.ca_bundle}

    def service_client(self, path, name="webhook"):
        return {"service": {"namespace": "hooks", "name": name, "path": path, "port": 443}, "caBundle": self.ca_bundle}

    def install(self, mutating, name, hooks):
        """Stores a configuration of `hooks` (each a dict merged over defaults that select
        configmaps labelled hook-test=NAME) and waits for it to apply."""
        plural = "mutatingwebhookconfigurations" if mutating else "validatingwebhookconfigurations"
        webhooks = []
        for hook in hooks:
            full = {"sideEffects": "None", "admissionReviewVersions": ["v1"], "failurePolicy": "Fail",
                    "objectSelector": {"matchLabels": {"hook-test": name}},
                    "rules": [{"operations": ["CREATE", "UPDATE", "DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                               "resources": ["configmaps"]}]}
            full.update(hook)
            webhooks.append(full)
        code, answer, _ = self.call("POST", f"{ADMISSION}/{plural}", {"metadata": {"name": name}, "webhooks": webhooks})
        self.assertEqual(code, 201, answer)
        self.configurations.append((plural, name))
        time.sleep(1)

    def configmap(self, test, name, namespace="hooks", dry_run=False, data=None):
        body = {"metadata": {"name": name, "labels": {"hook-test": test}}, "data": data or {"k": "v"}}
        return self.call("POST", f"/api/v1/namespaces/{namespace}/configmaps" + ("?dryRun=All" if dry_run else ""), body)

    def gadget(self, test, name, version="v2", colour="red"):
        field = "colour" if version == "v2" else "color"
        return self.call("POST", f"/apis/{GADGETS}/{version}/namespaces/hooks/gadgets", {
            "apiVersion": f"{GADGETS}/{version}", "kind": "Gadget",
            "metadata": {"name": name, "labels": {"hook-test": test}}, "spec": {field: colour}})

    def assert_status(self, answer, code, message, reason=None, prefix=False):
        self.assertEqual(answer["kind"], "Status", answer)
        self.assertEqual(answer["code"], code, answer)
        if prefix:
            self.assertTrue(answer["message"].startswith(message), answer["message"])
        else:
            self.assertEqual(answer["message"], message)
        if reason is not None:
            self.assertEqual(answer.get("reason"), reason, answer)

    def failed_call(self, name):
        return f'Internal error occurred: failed calling webhook "{name}": '

    # --- tests -------------------------------------------------------------------------------
    def test_refusal_carries_the_webhooks_status_and_the_review_is_complete(self):
        self.install(False, "deny", [{"name": "deny.kw.test", "clientConfig": self.url_client("/deny")}])
        code, answer, _ = self.configmap("deny", "refused")
        self.assertEqual(code, 403)
        self.assert_status(answer, 403, 'admission webhook "deny.kw.test" denied the request: no thanks', "NotWelcome")
        [review] = self.peer.sent("/deny")
        self.assertEqual((review["apiVersion"], review["kind"]), ("admission.k8s.io/v1", "AdmissionReview"))
        request = review["request"]
        self.assertEqual(request["kind"], {"group": "", "version": "v1", "kind": "ConfigMap"})
        self.assertEqual(request["resource"], {"group": "", "version": "v1", "resource": "configmaps"})
        self.assertEqual(request["requestKind"], request["kind"])
        self.assertEqual(request["requestResource"], request["resource"])
        self.assertEqual((request["name"], request["namespace"], request["operation"]), ("refused", "hooks", "CREATE"))
        self.assertEqual(request["userInfo"]["username"], "admin")
        self.assertIn("system:masters", request["userInfo"]["groups"])
        self.assertEqual(request["object"]["data"], {"k": "v"})
        self.assertEqual(request["object"]["metadata"]["namespace"], "hooks")
        self.assertIsNone(request["oldObject"])
        self.assertFalse(request["dryRun"])
        self.assertEqual(request["options"]["kind"], "CreateOptions")
        self.assertNotIn("subResource", request)
        code, _, _ = self.call("GET", "/api/v1/namespaces/hooks/configmaps/refused")
        self.assertEqual(code, 404)

    def test_refusals_without_a_message(self):
        self.install(False, "plain", [{"name": "plain.kw.test", "clientConfig": self.url_client("/deny-plain")}])
        code, answer, _ = self.configmap("plain", "a")
        self.assertEqual(code, 400)
        self.assert_status(answer, 400, 'admission webhook "plain.kw.test" denied the request without explanation')
        self.tearDown()
        self.install(False, "reason", [{"name": "reason.kw.test", "clientConfig": self.url_client("/deny-reason")}])
        code, answer, _ = self.configmap("reason", "b")
        self.assertEqual(code, 400)
        self.assert_status(answer, 400, 'admission webhook "reason.kw.test" denied the request: NotAllowedHere',
                           "NotAllowedHere")

    @unittest.skipIf(PEER_APISERVER, "kube-apiserver 1.23 routes through Endpoints, which refuse 127.0.0.1")
    def test_a_service_reference_is_resolved_and_its_patch_applied(self):
        self.install(True, "svc", [{"name": "label.kw.test", "clientConfig": self.service_client("/label")}])
        code, answer, _ = self.configmap("svc", "labelled")
        self.assertEqual(code, 201, answer)
        self.assertEqual(answer["metadata"]["labels"]["seen-by-label"], "yes")
        code, stored, _ = self.call("GET", "/api/v1/namespaces/hooks/configmaps/labelled")
        self.assertEqual(stored["metadata"]["labels"], {"hook-test": "svc", "seen-by-label": "yes"})

    def test_a_patched_pod_is_defaulted_again(self):
        self.install(True, "pods", [{"name": "sidecar.kw.test", "clientConfig": self.url_client("/add-container"),
                                     "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                                "resources": ["pods"]}]}])
        pod = {"metadata": {"name": "with-sidecar", "labels": {"hook-test": "pods"}},
               "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}
        code, answer, _ = self.call("POST", "/api/v1/namespaces/hooks/pods", pod)
        self.assertEqual(code, 201, answer)
        sidecar = answer["spec"]["containers"][1]
        self.assertEqual(sidecar["name"], "sidecar")
        self.assertEqual(sidecar["imagePullPolicy"], "Always")
        self.assertEqual(sidecar["terminationMessagePath"], "/dev/termination-log")
        self.call("DELETE", "/api/v1/namespaces/hooks/pods/with-sidecar?gracePeriodSeconds=0")

    def test_reinvocation_if_needed(self):
        self.install(True, "again", [
            {"name": "count.kw.test", "clientConfig": self.url_client("/count"), "reinvocationPolicy": "IfNeeded"},
            {"name": "label.kw.test", "clientConfig": self.url_client("/label")}])
        code, answer, _ = self.configmap("again", "twice")
        self.assertEqual(code, 201, answer)
        self.assertEqual(len(self.peer.sent("/count")), 2)
        self.assertEqual(len(self.peer.sent("/label")), 1)
        self.assertEqual(answer["metadata"]["labels"]["count-calls"], "2")
        self.assertEqual(answer["metadata"]["labels"]["seen-by-label"], "yes")

    def test_no_reinvocation_by_default(self):
        self.install(True, "once", [
            {"name": "count.kw.test", "clientConfig": self.url_client("/count")},
            {"name": "label.kw.test", "clientConfig": self.url_client("/label")}])
        code, answer, _ = self.configmap("once", "one")
        self.assertEqual(code, 201, answer)
        self.assertEqual(len(self.peer.sent("/count")), 1)
        self.assertEqual(answer["metadata"]["labels"]["count-calls"], "1")

    def test_update_and_delete_send_the_old_object(self):
        self.install(False, "ops", [{"name": "allow.kw.test", "clientConfig": self.url_client("/allow")}])
        self.assertEqual(self.configmap("ops", "changing")[0], 201)
        code, current, _ = self.call("GET", "/api/v1/namespaces/hooks/configmaps/changing")
        current["data"] = {"k": "w"}
        self.assertEqual(self.call("PUT", "/api/v1/namespaces/hooks/configmaps/changing", current)[0], 200)
        self.assertEqual(self.call("DELETE", "/api/v1/namespaces/hooks/configmaps/changing")[0], 200)
        reviews = [r["request"] for r in self.peer.sent("/allow")]
        self.assertEqual([r["operation"] for r in reviews], ["CREATE", "UPDATE", "DELETE"])
        update, delete = reviews[1], reviews[2]
        self.assertEqual((update["object"]["data"], update["oldObject"]["data"]), ({"k": "w"}, {"k": "v"}))
        self.assertEqual(update["options"]["kind"], "UpdateOptions")
        self.assertIsNone(delete["object"])
        self.assertEqual(delete["oldObject"]["data"], {"k": "w"})
        self.assertEqual((delete["name"], delete["options"]["kind"]), ("changing", "DeleteOptions"))

    def test_a_reapply_that_changes_nothing_is_still_admitted(self):
        # A server-side apply of what was applied before writes nothing, and the webhooks see it
        # all the same: their warnings come back, and a refusal refuses it.
        self.install(False, "reapply", [{"name": "warn.kw.test", "clientConfig": self.url_client("/warn")}])
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "again", "labels": {"hook-test": "reapply"}}, "data": {"k": "v"}}
        path = "/api/v1/namespaces/hooks/configmaps/again?fieldManager=tester"
        answers = []
        for expected in (201, 200):
            code, answer, headers = self.call("PATCH", path, body, content_type="application/apply-patch+yaml")
            self.assertEqual(code, expected, answer)
            self.assertEqual(headers.get_all("Warning"), ['299 - "first warning"', '299 - "second warning"'])
            answers.append(answer)
        self.assertEqual(answers[1]["metadata"]["resourceVersion"], answers[0]["metadata"]["resourceVersion"])
        reviews = [r["request"] for r in self.peer.sent("/warn")]
        # (kube-apiserver sends a patch's options as the create's or update's)
        self.assertEqual([(r["operation"], r["options"]["kind"]) for r in reviews],
                         [("CREATE", "CreateOptions"), ("UPDATE", "UpdateOptions")])
        self.assertEqual(reviews[1]["oldObject"]["data"], {"k": "v"})
        self.install(False, "reapply-deny", [{"name": "deny.kw.test", "clientConfig": self.url_client("/deny"),
                                              "objectSelector": {"matchLabels": {"hook-test": "reapply"}}}])
        code, answer, _ = self.call("PATCH", path, body, content_type="application/apply-patch+yaml")
        self.assertEqual(code, 403, answer)
        self.assert_status(answer, 403, 'admission webhook "deny.kw.test" denied the request: no thanks', "NotWelcome")

    def test_a_reapply_a_mutating_webhook_changes_calls_it_once(self):
        # The re-apply changes nothing itself, but the webhook changes the object: it is called
        # once for the update, as kube-apiserver calls it, and its change is stored.
        self.install(True, "reapply-count", [{"name": "count.kw.test", "clientConfig": self.url_client("/count")}])
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "counted", "labels": {"hook-test": "reapply-count"}}, "data": {"k": "v"}}
        path = "/api/v1/namespaces/hooks/configmaps/counted?fieldManager=tester"
        code, first, _ = self.call("PATCH", path, body, content_type="application/apply-patch+yaml")
        self.assertEqual(code, 201, first)
        self.assertEqual(first["metadata"]["labels"]["count-calls"], "1")
        code, second, _ = self.call("PATCH", path, body, content_type="application/apply-patch+yaml")
        self.assertEqual(code, 200, second)
        self.assertEqual([r["request"]["operation"] for r in self.peer.sent("/count")], ["CREATE", "UPDATE"])
        self.assertEqual(second["metadata"]["labels"]["count-calls"], "2")
        self.assertNotEqual(second["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"])
        self.call("DELETE", "/api/v1/namespaces/hooks/configmaps/counted")

    def test_subresource_creates_are_sent_as_their_own_kind_and_deletions_once(self):
        """A binding, a TokenRequest and an eviction are CREATEs of their own kinds on the pods'
        and ServiceAccounts' subresources; the writes they make to the pod, and a graceful
        deletion's marking, are not sent again (kube's subresource stores write unadmitted)."""
        self.install(False, "subresources", [{
            "name": "allow.kw.test", "clientConfig": self.url_client("/allow"), "objectSelector": {},
            "namespaceSelector": {"matchLabels": {"team": "a"}},
            "rules": [{"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["pods", "pods/binding", "pods/eviction", "pods/status", "serviceaccounts/token"]}]}])
        pods = "/api/v1/namespaces/hooks/pods"
        pod = {"metadata": {"name": "subresources"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        self.assertEqual(self.call("POST", pods, pod)[0], 201)
        code, answer, _ = self.call("POST", pods + "/subresources/binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "subresources"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-a"}})
        self.assertEqual(code, 201, answer)
        code, answer, _ = self.call("POST", "/api/v1/namespaces/hooks/serviceaccounts/default/token", {
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
        self.assertEqual(code, 201, answer)
        code, answer, _ = self.call("POST", pods + "/subresources/eviction", {
            "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "subresources"}})
        self.assertEqual(code, 201, answer)
        bound = dict(pod, metadata={"name": "graceful"}, spec=dict(pod["spec"], nodeName="node-a"))
        self.assertEqual(self.call("POST", pods, bound)[0], 201)
        self.assertEqual(self.call("DELETE", pods + "/graceful")[0], 200)
        reviews = [r["request"] for r in self.peer.sent("/allow")]
        seen = [(r["operation"], r["kind"]["kind"], r["resource"]["resource"], r.get("subResource", ""), r.get("name"))
                for r in reviews]
        self.assertEqual(seen, [
            ("CREATE", "Pod", "pods", "", "subresources"),
            ("CREATE", "Binding", "pods", "binding", "subresources"),
            ("CREATE", "TokenRequest", "serviceaccounts", "token", "default"),
            ("CREATE", "Eviction", "pods", "eviction", "subresources"),
            ("CREATE", "Pod", "pods", "", "graceful"),
            ("DELETE", "Pod", "pods", "", "graceful")])
        self.assertEqual(reviews[1]["kind"], {"group": "", "version": "v1", "kind": "Binding"})
        self.assertEqual(reviews[1]["object"]["target"]["name"], "node-a")
        self.assertEqual(reviews[2]["kind"], {"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"})
        self.assertEqual(reviews[3]["kind"], {"group": "policy", "version": "v1", "kind": "Eviction"})
        self.assertEqual(reviews[3]["options"]["kind"], "CreateOptions")

    def test_a_dead_webhook_fails_closed_or_is_ignored(self):
        dead = free_port()
        self.install(False, "dead", [{"name": "dead.kw.test", "clientConfig": self.url_client("/x", port=dead)}])
        code, answer, _ = self.configmap("dead", "closed")
        self.assertEqual(code, 500)
        self.assert_status(answer, 500, self.failed_call("dead.kw.test") +
                           f'failed to call webhook: Post "https://127.0.0.1:{dead}/x?timeout=10s": ', "InternalError",
                           prefix=True)
        self.tearDown()
        self.install(False, "ignored", [{"name": "dead.kw.test", "failurePolicy": "Ignore",
                                         "clientConfig": self.url_client("/x", port=dead)}])
        self.assertEqual(self.configmap("ignored", "open")[0], 201)

    def test_a_service_without_endpoints(self):
        self.install(False, "nowhere", [{"name": "nowhere.kw.test", "clientConfig": self.service_client("/", "nowhere")}])
        code, answer, _ = self.configmap("nowhere", "x")
        self.assertEqual(code, 500)
        self.assert_status(answer, 500, self.failed_call("nowhere.kw.test") +
                           'failed to call webhook: Post "https://nowhere.hooks.svc:443/?timeout=10s": '
                           'endpoints "nowhere" not found', "InternalError")

    @unittest.skipIf(PEER_APISERVER, "kube-apiserver 1.23 routes through Endpoints, which refuse 127.0.0.1")
    def test_a_service_without_ready_endpoints(self):
        self.setup_object("/apis/discovery.k8s.io/v1/namespaces/hooks/endpointslices", {
            "metadata": {"name": "unready-1", "labels": {"kubernetes.io/service-name": "unready"}},
            "addressType": "FQDN", "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": False}}],
            "ports": [{"name": "https", "port": self.peer_port, "protocol": "TCP"}]})
        self.install(False, "unready", [{"name": "unready.kw.test", "clientConfig": self.service_client("/", "unready")}])
        code, answer, _ = self.configmap("unready", "x")
        self.assertEqual(code, 500)
        self.assert_status(answer, 500, self.failed_call("unready.kw.test") +
                           'failed to call webhook: Post "https://unready.hooks.svc:443/?timeout=10s": '
                           'no endpoints available for service "unready"', "InternalError")

    def test_an_untrusted_certificate(self):
        client = self.url_client("/allow")
        client["caBundle"] = self.wrong_ca_bundle
        self.install(False, "untrusted", [{"name": "untrusted.kw.test", "clientConfig": client}])
        code, answer, _ = self.configmap("untrusted", "x")
        self.assertEqual(code, 500)
        self.assert_status(answer, 500, self.failed_call("untrusted.kw.test") +
                           f'failed to call webhook: Post "https://127.0.0.1:{self.peer_port}/allow?timeout=10s": ',
                           prefix=True)
        self.assertEqual(self.peer.sent("/allow"), [])

    def test_bad_answers_are_status_errors(self):
        # (path, code, the message after "failed calling webhook "NAME": ", or its start)
        cases = [
            ("/wrong-uid", 500, 'received invalid webhook response: expected response.uid="', True),
            ("/no-response", 500, "received invalid webhook response: webhook response was absent", False),
            ("/bad-json", 500, "failed to call webhook: ", True),
            ("/error-500", 500, 'failed to call webhook: an error on the server ("boom") has prevented the request '
                                "from succeeding", False),
            ("/redirect", 500, "failed to call webhook: ", True),
            # kube-apiserver reads the whole GiB (of spaces: "webhook response was absent"); kw
            # stops at 64 MiB ("failed to call webhook: ... larger than ...").
            ("/huge", 500, "", True),
            ("/patch-no-type", 500, "received invalid webhook response: webhook returned response.patch but not "
                                    "response.patchType", False),
        ]
        for path, code, message, prefix in cases:
            with self.subTest(path=path):
                test = "bad" + path.replace("/", "-")
                self.install(True, test, [{"name": "bad.kw.test", "clientConfig": self.url_client(path)}])
                got, answer, _ = self.configmap(test, "x")
                self.assertEqual(got, code, answer)
                self.assert_status(answer, code, self.failed_call("bad.kw.test") + message, "InternalError",
                                   prefix=prefix)
                self.tearDown()

    def test_a_patch_that_makes_the_object_invalid(self):
        self.install(True, "invalid", [{"name": "invalid.kw.test", "clientConfig": self.url_client("/invalid-patch"),
                                        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                                   "resources": ["pods"]}]}])
        pod = {"metadata": {"name": "made-invalid", "labels": {"hook-test": "invalid"}},
               "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
        code, answer, _ = self.call("POST", "/api/v1/namespaces/hooks/pods", pod)
        self.assertEqual(code, 422, answer)
        self.assertEqual(answer["reason"], "Invalid")
        self.assertEqual(answer["details"]["causes"][0]["field"], "spec.containers[0].name")

    def test_a_patch_that_cannot_apply(self):
        self.install(True, "failing", [{"name": "failing.kw.test", "clientConfig": self.url_client("/failing-patch")}])
        code, answer, _ = self.configmap("failing", "x")
        self.assertEqual(code, 500, answer)
        self.assertEqual(answer["reason"], "InternalError")
        self.assertTrue(answer["message"].startswith("Internal error occurred: "), answer["message"])

    def test_timeouts(self):
        self.install(False, "timeout", [{"name": "slow.kw.test", "clientConfig": self.url_client("/slow"),
                                         "timeoutSeconds": 1}])
        code, answer, _ = self.configmap("timeout", "x")
        self.assertEqual(code, 500)
        self.assert_status(answer, 500, self.failed_call("slow.kw.test") +
                           f'failed to call webhook: Post "https://127.0.0.1:{self.peer_port}/slow?timeout=1s": ',
                           prefix=True)
        self.assertIn("deadline exceeded", answer["message"])

    def test_a_webhook_that_accepts_and_never_answers(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        try:
            self.install(False, "silent", [{"name": "silent.kw.test", "timeoutSeconds": 1,
                                            "clientConfig": self.url_client("/x", port=port)}])
            started = time.monotonic()
            code, answer, _ = self.configmap("silent", "x")
            self.assertLess(time.monotonic() - started, 5)
            self.assertEqual(code, 500)
            self.assert_status(answer, 500, self.failed_call("silent.kw.test") +
                               f'failed to call webhook: Post "https://127.0.0.1:{port}/x?timeout=1s": ', prefix=True)
        finally:
            silent.close()

    def test_connections_to_a_webhook_are_kept_between_calls(self):
        self.install(False, "reuse", [{"name": "reuse.kw.test", "clientConfig": self.url_client("/allow")},
                                      {"name": "reuse-svc.kw.test", "clientConfig": self.service_client("/allow-svc")}])
        for i in range(5):
            code, answer, _ = self.configmap("reuse", f"reused-{i}")
            self.assertEqual(code, 201, answer)
        # One call after another: each webhook's calls share one connection.
        self.assertEqual(len(self.peer.addresses("/allow")), 5)
        self.assertEqual(len(set(self.peer.addresses("/allow"))), 1, self.peer.addresses("/allow"))
        self.assertEqual(len(set(self.peer.addresses("/allow-svc"))), 1, self.peer.addresses("/allow-svc"))

    def test_a_slow_webhook_delays_only_what_it_matches(self):
        self.install(False, "slow", [{"name": "slow.kw.test", "clientConfig": self.url_client("/slow")}])
        with concurrent.futures.ThreadPoolExecutor(5) as pool:
            started = time.monotonic()
            slow = [pool.submit(self.configmap, "slow", f"matched-{i}") for i in range(4)]
            time.sleep(0.3)
            fast = self.configmap("other", "unmatched")
            fast_done = time.monotonic() - started
            self.assertEqual(fast[0], 201)
            self.assertFalse(any(s.done() for s in slow), "the matched requests should still wait for their webhook")
            self.assertEqual([s.result()[0] for s in slow], [201] * 4)
            self.assertGreaterEqual(time.monotonic() - started, 2.0)
        self.assertLess(fast_done, 1.5)

    def test_dry_run(self):
        self.install(False, "dry", [{"name": "dry.kw.test", "clientConfig": self.url_client("/allow"),
                                     "sideEffects": "NoneOnDryRun"}])
        code, answer, _ = self.configmap("dry", "x", dry_run=True)
        self.assertEqual(code, 201, answer)
        [review] = self.peer.sent("/allow")
        self.assertTrue(review["request"]["dryRun"])
        self.assertEqual(review["request"]["options"]["dryRun"], ["All"])

    def test_namespace_selector(self):
        self.install(False, "ns", [{"name": "ns.kw.test", "clientConfig": self.url_client("/deny"),
                                    "namespaceSelector": {"matchLabels": {"team": "a"}}}])
        self.assertEqual(self.configmap("ns", "x")[0], 403)
        self.assertEqual(self.configmap("ns", "x", namespace="elsewhere")[0], 201)

    @unittest.skipIf(PEER_APISERVER, "matchConditions came in Kubernetes 1.27")
    def test_match_conditions(self):
        # (As kube-apiserver 1.28+ answers: a false condition skips the webhook; an evaluation
        # error fails the request with 403 under failurePolicy Fail and skips it under Ignore.)
        conditions = [{"name": "not-exempt", "expression": "object.metadata.name != 'exempt'"},
                      {"name": "creates", "expression": "request.operation == 'CREATE'"}]
        self.install(False, "mc", [{"name": "mc.kw.test", "clientConfig": self.url_client("/deny"),
                                    "matchConditions": conditions}])
        self.assertEqual(self.configmap("mc", "exempt")[0], 201)
        self.assertEqual(self.configmap("mc", "other")[0], 403)
        self.assertEqual([r["request"]["name"] for r in self.peer.sent("/deny")], ["other"])
        self.tearDown()
        broken = [{"name": "broken", "expression": "object.data.nosuch == 'x'"}]
        self.install(False, "mc-fail", [{"name": "mc.kw.test", "clientConfig": self.url_client("/deny"),
                                         "matchConditions": broken}])
        code, answer, _ = self.configmap("mc-fail", "errs")
        self.assertEqual(code, 403, answer)
        self.assert_status(answer, 403, 'configmaps "errs" is forbidden: expression \'object.data.nosuch == \'x\'\' '
                                        "resulted in error: no such key: nosuch", "Forbidden")
        self.tearDown()
        self.install(False, "mc-ignore", [{"name": "mc.kw.test", "clientConfig": self.url_client("/deny"),
                                           "failurePolicy": "Ignore", "matchConditions": broken}])
        self.assertEqual(self.configmap("mc-ignore", "skipped")[0], 201)

    @unittest.skipIf(PEER_APISERVER, "matchConditions came in Kubernetes 1.27")
    def test_match_conditions_must_compile(self):
        code, answer, _ = self.call("POST", f"{ADMISSION}/validatingwebhookconfigurations", {
            "metadata": {"name": "mc-bad"}, "webhooks": [{
                "name": "mc.kw.test", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "clientConfig": self.url_client("/deny"),
                "matchConditions": [{"name": "bad", "expression": "object.metadata.name =="},
                                    {"name": "nobody", "expression": "nobody.name == 'x'"}]}]})
        self.assertEqual(code, 422, answer)
        causes = {c["field"]: c["message"] for c in answer["details"]["causes"]}
        at = "webhooks[0].matchConditions"
        self.assertEqual(sorted(causes), [f"{at}[0].expression", f"{at}[1].expression"])
        self.assertTrue(causes[f"{at}[0].expression"].startswith(
            'Invalid value: "object.metadata.name ==": compilation failed: ERROR: <input>:1:'), causes)
        self.assertEqual(causes[f"{at}[1].expression"],
                         'Invalid value: "nobody.name == \'x\'": compilation failed: ERROR: <input>:1:1: '
                         "undeclared reference to 'nobody' (in container '')\n | nobody.name == 'x'\n | ^")

    def test_warnings_and_audit_annotations(self):
        self.install(False, "warn", [{"name": "warn.kw.test", "clientConfig": self.url_client("/warn")}])
        code, answer, headers = self.configmap("warn", "warned")
        self.assertEqual(code, 201, answer)
        self.assertEqual(headers.get_all("Warning"), ['299 - "first warning"', '299 - "second warning"'])
        if self.audit_log is None:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open(self.audit_log) as f:
                events = [json.loads(line) for line in f if '"warned"' in line]
            done = [e for e in events if e["stage"] == "ResponseComplete" and e["verb"] == "create"]
            if done:
                self.assertEqual(done[0]["annotations"].get("warn.kw.test/checked"), "yes", done[0])
                return
            time.sleep(0.1)
        self.fail("no audit event for the create")

    def test_a_configuration_change_applies_within_a_second(self):
        self.install(False, "change", [{"name": "change.kw.test", "clientConfig": self.url_client("/allow")}])
        self.assertEqual(self.configmap("change", "a")[0], 201)
        code, configuration, _ = self.call("GET", f"{ADMISSION}/validatingwebhookconfigurations/change")
        configuration["webhooks"][0]["clientConfig"]["url"] = f"https://127.0.0.1:{self.peer_port}/deny"
        self.assertEqual(self.call("PUT", f"{ADMISSION}/validatingwebhookconfigurations/change", configuration)[0], 200)
        changed = time.monotonic()
        while self.configmap("change", "b")[0] != 403:
            self.assertLess(time.monotonic() - changed, 1.0)
            time.sleep(0.05)

    def test_an_admission_review_v1beta1_webhook(self):
        self.install(False, "beta", [{"name": "beta.kw.test", "clientConfig": self.url_client("/deny"),
                                      "admissionReviewVersions": ["v1beta1"]}])
        code, answer, _ = self.configmap("beta", "x")
        self.assertEqual(code, 403)
        [review] = self.peer.sent("/deny")
        self.assertEqual(review["apiVersion"], "admission.k8s.io/v1beta1")


    # --- matchPolicy ---------------------------------------------------------------------------
    def test_match_policy_equivalent_by_default_sends_the_object_at_the_version_the_rules_name(self):
        # Its matchConditions see the object at v1 as well.
        self.install(False, "equivalent", [{"name": "equivalent.kw.test", "clientConfig": self.url_client("/v1-only"),
                                            "rules": [gadgets_rule("v1")],
                                            "matchConditions": [{"name": "at-v1", "expression":
                                                                 f"object.apiVersion == '{GADGETS}/v1' && "
                                                                 "request.requestKind.version == 'v2'"}]}])
        code, stored, _ = self.call("GET", f"{ADMISSION}/validatingwebhookconfigurations/equivalent")
        self.assertEqual(stored["webhooks"][0]["matchPolicy"], "Equivalent")
        code, answer, _ = self.gadget("equivalent", "through-v2")
        self.assertEqual(code, 201, answer)
        self.assertEqual((answer["apiVersion"], answer["spec"]), (f"{GADGETS}/v2", {"colour": "red"}))
        [review] = self.peer.sent("/v1-only")
        request = review["request"]
        self.assertEqual(request["kind"], {"group": GADGETS, "version": "v1", "kind": "Gadget"})
        self.assertEqual(request["resource"], {"group": GADGETS, "version": "v1", "resource": "gadgets"})
        self.assertEqual(request["requestKind"], {"group": GADGETS, "version": "v2", "kind": "Gadget"})
        self.assertEqual(request["requestResource"], {"group": GADGETS, "version": "v2", "resource": "gadgets"})
        self.assertEqual(request["object"]["apiVersion"], f"{GADGETS}/v1")
        self.assertEqual(request["object"]["spec"], {"color": "red"})
        self.assertIsNone(request["oldObject"])
        # An update sends the old object at v1 too.
        answer["spec"] = {"colour": "green"}
        code, answer, _ = self.call("PUT", f"/apis/{GADGETS}/v2/namespaces/hooks/gadgets/through-v2", answer)
        self.assertEqual(code, 200, answer)
        update = self.peer.sent("/v1-only")[-1]["request"]
        self.assertEqual((update["operation"], update["object"]["spec"], update["oldObject"]["spec"]),
                         ("UPDATE", {"color": "green"}, {"color": "red"}))
        self.assertEqual(update["oldObject"]["apiVersion"], f"{GADGETS}/v1")
        self.assertEqual(update["requestKind"]["version"], "v2")

    def test_match_policy_exact_calls_the_webhook_only_for_the_version_its_rules_name(self):
        self.install(False, "exact", [{"name": "exact.kw.test", "clientConfig": self.url_client("/exact"),
                                       "matchPolicy": "Exact", "rules": [gadgets_rule("v1")]}])
        code, answer, _ = self.gadget("exact", "exact-v2")
        self.assertEqual(code, 201, answer)
        self.assertEqual(self.peer.sent("/exact"), [])
        code, answer, _ = self.gadget("exact", "exact-v1", version="v1")
        self.assertEqual(code, 201, answer)
        [review] = self.peer.sent("/exact")
        self.assertEqual(review["request"]["kind"], review["request"]["requestKind"])
        self.assertEqual(review["request"]["requestKind"]["version"], "v1")

    def test_a_refusal_through_an_equivalent_version_refuses_the_request(self):
        self.install(False, "refuse-equivalent", [{"name": "refuse.kw.test", "clientConfig": self.url_client("/deny"),
                                                   "rules": [gadgets_rule("v1")]}])
        code, answer, _ = self.gadget("refuse-equivalent", "refused-v2")
        self.assertEqual(code, 403, answer)
        self.assert_status(answer, 403, 'admission webhook "refuse.kw.test" denied the request: no thanks')
        code, _, _ = self.call("GET", f"/apis/{GADGETS}/v2/namespaces/hooks/gadgets/refused-v2")
        self.assertEqual(code, 404)

    def test_a_mutating_webhook_patches_the_equivalent_version_and_the_client_reads_its_own(self):
        self.install(True, "recolor", [{"name": "recolor.kw.test", "clientConfig": self.url_client("/recolor"),
                                        "rules": [gadgets_rule("v1")]},
                                       {"name": "label.kw.test", "clientConfig": self.url_client("/label"),
                                        "rules": [gadgets_rule("v1")]}])
        code, answer, _ = self.gadget("recolor", "recolored")
        self.assertEqual(code, 201, answer)
        self.assertEqual((answer["apiVersion"], answer["spec"]), (f"{GADGETS}/v2", {"colour": "blue"}))
        self.assertEqual(answer["metadata"]["labels"]["seen-by-label"], "yes")
        [review] = self.peer.sent("/recolor")
        self.assertEqual(review["request"]["object"]["spec"], {"color": "red"})
        # The second webhook saw the first one's patch, at v1.
        [review] = self.peer.sent("/label")
        self.assertEqual(review["request"]["object"]["spec"], {"color": "blue"})
        code, stored, _ = self.call("GET", f"/apis/{GADGETS}/v2/namespaces/hooks/gadgets/recolored")
        self.assertEqual((code, stored["spec"]), (200, {"colour": "blue"}))
        code, stored, _ = self.call("GET", f"/apis/{GADGETS}/v1/namespaces/hooks/gadgets/recolored")
        self.assertEqual((code, stored["spec"]), (200, {"color": "blue"}))

    def test_a_built_in_kind_served_at_two_versions_is_sent_converted(self):
        self.install(False, "hpa", [{"name": "hpa.kw.test", "clientConfig": self.url_client("/hpa-v1"),
                                     "rules": [{"operations": ["CREATE"], "apiGroups": ["autoscaling"],
                                                "apiVersions": ["v1"], "resources": ["horizontalpodautoscalers"]}]}])
        hpa = {"metadata": {"name": "web", "labels": {"hook-test": "hpa"}},
               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                        "minReplicas": 1, "maxReplicas": 3,
                        "metrics": [{"type": "Resource", "resource": {
                            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]}}
        code, answer, _ = self.call("POST", "/apis/autoscaling/v2/namespaces/hooks/horizontalpodautoscalers", hpa)
        self.assertEqual(code, 201, answer)
        [review] = self.peer.sent("/hpa-v1")
        request = review["request"]
        self.assertEqual(request["kind"], {"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"})
        self.assertEqual(request["requestKind"]["version"], "v2")
        self.assertEqual(request["object"]["apiVersion"], "autoscaling/v1")
        self.assertEqual(request["object"]["spec"]["targetCPUUtilizationPercentage"], 70)
        self.assertNotIn("metrics", request["object"]["spec"])
        self.call("DELETE", "/apis/autoscaling/v2/namespaces/hooks/horizontalpodautoscalers/web")


if __name__ == "__main__":
    unittest.main()
