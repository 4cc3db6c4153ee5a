"""The audit log (--audit-policy-file, --audit-log-*). The requests recorded from kube-apiserver
v1.23.13 with one policy (tests/conformance/recorded/audit-log-1.23.json: every level, stage
omissions, resourceNames, */scale, omitManagedFields, watch, non-resource URLs, RBAC and
impersonation, anonymous and failed credentials, a client's Audit-ID, a long User-Agent) are
replayed against kw with the same policy, and every event kw writes is compared with kube's:
level, stage, verb, URI, user, impersonatedUser, objectRef, responseStatus, annotations and
the logged request and response objects. Then what the recording cannot show: the legacy
format, a failed login's single ResponseStarted event, rotation with pruning and gzip, the
default asynchronous mode, policy errors, and the Audit-Id on every answer."""
import copy
import glob
import gzip
import http.client
import json
import os
import re
import ssl
import subprocess
import tempfile
import time
import unittest

from kwtest import KW_BIN, KwServer, free_port, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "audit-log-1.23.json")
MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
SETUP_AGENT = "audit-setup"

# kube-apiserver 1.23 drops the ResponseComplete event of an apply whose body is YAML (it cannot
# embed the body in JSON and logs a plugin error instead); kw writes the event without the body.
KUBE_DROPPED_COMPLETE = {"cm-apply"}


def request(port, method, path, token=None, body=None, headers=None):
    """(status, lower-cased headers, body bytes) of one HTTPS request with exactly these headers."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=20, context=ssl._create_unverified_context())
    sent = dict(headers or {})
    if token:
        sent.setdefault("Authorization", f"Bearer {token}")
    data = None
    if body is not None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    conn.request(method, path, body=data, headers=sent)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw


def read_lines(path):
    """The complete lines of a log (a line being written has no newline yet)."""
    try:
        with open(path) as f:
            return [line for line in f.read().split("\n")[:-1] if line]
    except FileNotFoundError:
        return []


def events_of(path, agent):
    return [e for e in map(json.loads, read_lines(path)) if e.get("userAgent", "").startswith(agent)]


def normalized_object(obj):
    """An object with the values that differ between two servers (uids, versions, times) masked."""
    obj = copy.deepcopy(obj)

    def mask(meta):
        for key in ("uid", "resourceVersion", "creationTimestamp"):
            if isinstance(meta.get(key), str):
                meta[key] = "<set>"
        for entry in meta.get("managedFields") or []:
            entry["time"] = "<time>"

    def walk(value):
        if isinstance(value, dict):
            # kw's list items carry their apiVersion and kind; kube's typed lists leave them out.
            for item in value.get("items") or [] if isinstance(value.get("items"), list) else []:
                if isinstance(item, dict):
                    item.pop("apiVersion", None)
                    item.pop("kind", None)
            if isinstance(value.get("metadata"), dict):
                mask(value["metadata"])
            if isinstance(value.get("details"), dict) and "uid" in value["details"]:
                value["details"]["uid"] = "<set>"
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    walk(obj)
    return obj


def comparable(event):
    """The fields of an event both servers must agree on."""
    out = {k: v for k, v in event.items()
           if k not in ("auditID", "requestReceivedTimestamp", "stageTimestamp", "requestObject", "responseObject")}
    ref = out.get("objectRef")
    if ref:
        out["objectRef"] = {k: ("<set>" if k in ("uid", "resourceVersion") else v) for k, v in ref.items()}
    return out


class RecordedAuditLogTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-audit-")
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.token = {t["label"]: t["token"] for t in cls.recorded["tokens"]}
        cls.policy = os.path.join(cls.dir.name, "policy.yaml")
        with open(cls.policy, "w") as f:
            f.write(cls.recorded["policy"])
        cls.log = os.path.join(cls.dir.name, "logs", "audit.log")
        # Without the controllers kube-apiserver ran without (its peer had no controller-manager).
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC", "--anonymous-auth",
                               "--controllers", "*,-root-ca-cert-publisher,-serviceaccount",
                               "--audit-policy-file", cls.policy, "--audit-log-path", cls.log,
                               "--audit-log-mode", "blocking"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, _, raw = request(cls.server.secure_port, step["method"], step["path"], cls.token["admin"],
                                   step["body"], {"User-Agent": SETUP_AGENT})
            assert code == step["code"], (step, code, raw)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def send(self, case, last_get):
        headers = dict(case.get("headers") or {})
        if case.get("authorization"):
            headers["Authorization"] = case["authorization"]
        token = self.token.get(case["user"]) if case.get("user") else None
        body = case.get("body")
        if case["method"] == "PUT":  # the recorded PUT sends what its GET returned, changed
            body = copy.deepcopy(last_get[case["path"]])
            body["data"] = case["body"]["data"]
        elif isinstance(body, dict) and headers.get("Content-Type", "").startswith("application/apply-patch"):
            body = json.dumps(body)
        return request(self.server.secure_port, case["method"], case["path"], token, body, headers)

    def test_events_match_kube_apiserver(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 30)
        last_get = {}
        for case in cases:
            with self.subTest(case["name"]):
                code, headers, raw = self.send(case, last_get)
                self.assertEqual(code, case["code"], raw[:300])
                if case["method"] == "GET" and code == 200 and raw.startswith(b"{"):
                    last_get[case["path"]] = json.loads(raw)
                audit_id = headers.get("audit-id", "")
                if "Audit-ID" in (case.get("headers") or {}):
                    self.assertEqual(audit_id, case["headers"]["Audit-ID"])
                else:
                    self.assertRegex(audit_id, UUID)
                agent = case["headers"]["User-Agent"]
                if case["name"] == "long-agent":
                    agent = agent[:40]
                got = events_of(self.log, agent)
                want = case["events"]
                if case["name"] in KUBE_DROPPED_COMPLETE:
                    self.assertEqual([e["stage"] for e in got], ["RequestReceived", "ResponseComplete"])
                    self.assertNotIn("requestObject", got[1])  # a YAML body is not logged
                    got = got[:1]
                self.assertEqual([e["stage"] for e in got], [e["stage"] for e in want])
                for mine, theirs in zip(got, want):
                    self.assertEqual(mine["auditID"], audit_id)
                    self.assertEqual(comparable(mine), comparable(theirs))
                    self.assertRegex(mine["requestReceivedTimestamp"], MICRO_TIME)
                    self.assertRegex(mine["stageTimestamp"], MICRO_TIME)
                    self.assertLessEqual(mine["requestReceivedTimestamp"], mine["stageTimestamp"])
                    for key in ("requestObject", "responseObject"):
                        self.assertEqual(key in mine, key in theirs, key)
                        if key in theirs:
                            self.assertEqual(normalized_object(mine[key]), normalized_object(theirs[key]), key)
                    # The JSON keys come in kube-apiserver's order.
                    self.assertEqual(list(mine), list(theirs))


class LegacyFormatTest(unittest.TestCase):
    def test_lines_match_kube_apiserver(self):
        with open(RECORDED) as f:
            recorded = json.load(f)
        with tempfile.TemporaryDirectory(prefix="kw-audit-legacy-") as tmp:
            tokens = write_tokens(tmp, recorded["tokens"])
            policy = os.path.join(tmp, "policy.yaml")
            with open(policy, "w") as f:
                f.write(recorded["policy"])
            log = os.path.join(tmp, "audit.log")
            with KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC", "--anonymous-auth",
                           "--audit-policy-file", policy, "--audit-log-path", log, "--audit-log-format", "legacy",
                           "--audit-log-mode", "blocking"], secure_port=free_port()) as server:
                admin = {t["label"]: t["token"] for t in recorded["tokens"]}
                for step in recorded["setup"] + recorded["legacy_setup"]:
                    request(server.secure_port, step["method"], step["path"], admin["admin"], step["body"],
                            {"User-Agent": SETUP_AGENT})
                for case in recorded["legacy"]:
                    with self.subTest(case["name"]):
                        token = admin.get(case["user"]) if case.get("user") else None
                        code, headers, _ = request(server.secure_port, case["method"], case["path"], token,
                                                   None, case["headers"])
                        self.assertEqual(code, case["code"])
                        agent = case["headers"]["User-Agent"]
                        got = [line for line in read_lines(log) if f'user-agent="{agent}"' in line]
                        stamp = re.compile(r"^\S+ AUDIT: id=\"[^\"]+\" ")
                        self.assertEqual([stamp.sub("", line) for line in got],
                                         [stamp.sub("", line) for line in case["lines"]])
                        for line in got:
                            self.assertRegex(line, r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z AUDIT: id="'
                                             + re.escape(headers["audit-id"]) + '"')


class AuditLogBehaviourTest(unittest.TestCase):
    """What kube-apiserver's code does and the recording cannot show."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kw-audit-b-")
        self.tokens = write_tokens(self.tmp.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])

    def tearDown(self):
        self.tmp.cleanup()

    def policy(self, text):
        path = os.path.join(self.tmp.name, "policy.yaml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def serve(self, *args):
        return KwServer(["--token-auth-file", self.tokens, *args], secure_port=free_port())

    def wait_for(self, log, agent, count, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = events_of(log, agent)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        return events_of(log, agent)

    def test_failed_login_is_one_response_started_event(self):
        policy = self.policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
        log = os.path.join(self.tmp.name, "audit.log")
        with self.serve("--audit-policy-file", policy, "--audit-log-path", log) as server:
            code, headers, _ = request(server.secure_port, "GET", "/api/v1/namespaces", "wrong-token",
                                       headers={"User-Agent": "bad-login"})
            self.assertEqual(code, 401)
            events = self.wait_for(log, "bad-login", 1)
            self.assertEqual(len(events), 1, events)
            event = events[0]
            self.assertEqual(event["stage"], "ResponseStarted")
            self.assertEqual(event["user"], {})
            self.assertEqual(event["auditID"], headers["audit-id"])
            self.assertEqual(event["responseStatus"],
                             {"metadata": {}, "status": "Failure", "reason": "Unauthorized", "code": 401})
            self.assertNotIn("annotations", event)
            # Batch mode (the default) hands events over asynchronously; they arrive all the same.
            for i in range(50):
                request(server.secure_port, "GET", f"/api/v1/namespaces/default/configmaps?n={i}", "admin-token",
                        headers={"User-Agent": "burst"})
            self.assertEqual(len(self.wait_for(log, "burst", 100)), 100)
            self.assertEqual(os.stat(log).st_mode & 0o777, 0o600)
            _, _, metrics = request(server.secure_port, "GET", "/metrics", "admin-token")
            counted = re.search(rb"^apiserver_audit_event_total (\d+)$", metrics, re.M)
            self.assertTrue(counted and int(counted.group(1)) >= 101, metrics[:300])
            self.assertIn(b'apiserver_audit_error_total{plugin="log"} 0', metrics)

    def test_rotation_keeps_backups_and_gzips_them(self):
        policy = self.policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n")
        log = os.path.join(self.tmp.name, "logs", "kube-audit.log")
        with self.serve("--audit-policy-file", policy, "--audit-log-path", log, "--audit-log-maxsize", "1",
                        "--audit-log-maxbackup", "2", "--audit-log-compress", "--audit-log-mode", "blocking") as server:
            payload = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {"x": "y" * 200_000}}
            request(server.secure_port, "POST", "/api/v1/namespaces/default/configmaps", "admin-token", payload)
            for _ in range(12):  # each GET logs the 200 KB object once
                request(server.secure_port, "GET", "/api/v1/namespaces/default/configmaps/big", "admin-token",
                        headers={"User-Agent": "rotate"})
                time.sleep(0.002)  # backups are named by the millisecond
        backups = sorted(glob.glob(os.path.join(self.tmp.name, "logs", "kube-audit-*.log.gz")))
        self.assertEqual(len(backups), 2, os.listdir(os.path.dirname(log)))
        for backup in backups:
            self.assertRegex(os.path.basename(backup), r"^kube-audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$")
            with gzip.open(backup, "rt") as f:
                lines = f.read().splitlines()
            self.assertTrue(lines and all(json.loads(line)["kind"] == "Event" for line in lines))
        self.assertLessEqual(os.path.getsize(log), 1024 * 1024)
        self.assertEqual(glob.glob(os.path.join(self.tmp.name, "logs", "kube-audit-*.log")), [])

    def test_policy_errors_stop_the_server(self):
        bad = {
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n": "rules[0].level: Required value",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n": "loaded illegal policy with 0 rules",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n":
                'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"',
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [healthz]\n":
                "rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must begin with a '/' character",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Never]\nrules:\n- level: None\n":
                'omitStages[0]: Invalid value: "Never": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
        }
        log = os.path.join(self.tmp.name, "audit.log")
        for text, message in bad.items():
            with self.subTest(message):
                out = subprocess.run([KW_BIN, "serve", "--data-dir", self.tmp.name, "--secure-port", "0",
                                      "--insecure-port", str(free_port()), "--audit-policy-file", self.policy(text),
                                      "--audit-log-path", log], capture_output=True, text=True, timeout=30)
                self.assertNotEqual(out.returncode, 0)
                self.assertIn(message, out.stderr)

    def test_every_answer_carries_an_audit_id(self):
        with self.serve() as server:  # no audit log at all
            for path in ("/healthz", "/version", "/api/v1/namespaces", "/apis/nope/v1/x"):
                _, headers, _ = request(server.secure_port, "GET", path, "admin-token")
                self.assertRegex(headers.get("audit-id", ""), UUID, path)
            _, headers, _ = request(server.secure_port, "GET", "/api", "admin-token", headers={"Audit-ID": "mine"})
            self.assertEqual(headers["audit-id"], "mine")


if __name__ == "__main__":
    unittest.main()
