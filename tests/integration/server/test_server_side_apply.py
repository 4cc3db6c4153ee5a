"""Server-side apply and managedFields: 84 answers recorded from kube-apiserver v1.23.13
replayed against kw in order. Two managers apply ConfigMaps, a Deployment, a Service, a Pod
and a custom resource with map, set and atomic lists, granular and atomic maps and structs;
conflicts (and their 409 wording), force, removal of what an applier stopped sending, status
and scale writes, dry runs, the errors of bad options and bad configurations, kubectl's move
from client-side apply (and back), the cap of 10 Update managers, and what POST and PUT
record. Objects are compared whole, managedFields included, with server-made values (uids,
resourceVersions, times, generated names, cluster IPs) left out."""
import copy
import json
import os
import re
import subprocess
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "server-side-apply-1.23.json")

# Answers whose message names Go pointers or the YAML parser's own words: the code and reason
# are compared, not the text.
LOOSE_MESSAGE = {"C3-apply-invalid-yaml", "C11-apply-kind-secret-on-configmaps-path",
                 "B0-apply-unquoted-y-is-yaml-bool"}


def request(url, token, method, body, headers):
    args = ["timeout", "20", "curl", "-sS", "-k", "-o", "-", "-w", "\n%{http_code}", "-X", method,
            "-H", f"Authorization: Bearer {token}"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}" if value != "" else f"{name};"]
    if body is not None:
        args += ["--data-binary", body]
    out = subprocess.run(args + [url], capture_output=True, encoding="utf-8", errors="replace")
    text, _, code = out.stdout.rpartition("\n")
    return int(code or 0), text


def normalize(value):
    """The answer without what each server makes up."""
    value = copy.deepcopy(value)
    if not isinstance(value, dict):
        return value
    meta = value.get("metadata")
    if isinstance(meta, dict):
        for key in ("uid", "resourceVersion", "creationTimestamp", "selfLink"):
            meta.pop(key, None)
        if "deletionTimestamp" in meta:
            meta["deletionTimestamp"] = "T"
        entries = meta.get("managedFields")
        if entries is not None:
            for entry in entries:
                if "time" in entry:
                    entry["time"] = "T"
            # Apply entries come first; within an operation the order is by time in seconds,
            # which differs between two servers running at different speeds.
            ops = [e["operation"] for e in entries]
            assert ops == sorted(ops), ops
            meta["managedFields"] = sorted(entries, key=lambda e: (e["operation"], e.get("manager", ""),
                                                                   e.get("subresource", "")))
    text = json.dumps(value, sort_keys=True)
    text = re.sub(r"kube-api-access-[a-z0-9]{5}", "kube-api-access-xxxxx", text)
    value = json.loads(text)
    spec = value.get("spec")
    if value.get("kind") == "Service" and isinstance(spec, dict):
        for key in ("clusterIP", "clusterIPs"):
            spec.pop(key, None)
    if value.get("kind") == "Status":
        causes = (value.get("details") or {}).get("causes")
        if causes:
            causes.sort(key=lambda c: json.dumps(c, sort_keys=True))
    return value


def differences(mine, theirs, at=""):
    """Where two JSON values differ: one line per differing leaf or missing part."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        out = []
        for key in sorted(set(mine) | set(theirs)):
            if key not in mine:
                out.append(f"  {at}.{key}: kw has none, kube {json.dumps(theirs[key], sort_keys=True)}")
            elif key not in theirs:
                out.append(f"  {at}.{key}: kube has none, kw {json.dumps(mine[key], sort_keys=True)}")
            else:
                out += differences(mine[key], theirs[key], f"{at}.{key}")
        return out
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return [line for i, (a, b) in enumerate(zip(mine, theirs)) for line in differences(a, b, f"{at}[{i}]")]
    if mine != theirs:
        return [f"  {at}: kw {json.dumps(mine, sort_keys=True)}, kube {json.dumps(theirs, sort_keys=True)}"]
    return []


class RecordedServerSideApplyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-ssa-")
        tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])
        cls.token = "admin-token"
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, text = request(cls.server.secure_url + step["path"], cls.token, step["method"],
                                 json.dumps(step["body"]), {"Content-Type": "application/json"})
            assert code == step["code"] or (code == 409 and "serviceaccounts" in step["path"]), (step, code, text)
        # The custom resource is served once its CRD is established.
        for _ in range(100):
            code, _ = request(cls.server.secure_url + "/apis/example.com/v1/namespaces/ssa/widgets", cls.token, "GET",
                              None, {})
            if code == 200:
                break
            subprocess.run(["sleep", "0.1"])

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def kubeconfig(self):
        path = os.path.join(self.dir.name, "kubeconfig")
        with open(path, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters: [{{name: kw, cluster: {{server: "{self.server.secure_url}", insecure-skip-tls-verify: true}}}}]
users: [{{name: admin, user: {{token: {self.token}}}}}]
contexts: [{{name: kw, context: {{cluster: kw, user: admin}}}}]
current-context: kw
""")
        return path

    def test_cases_in_order(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 80)
        last = {}  # kw's latest object per object path
        failures = []
        for case in cases:
            name = case["name"]
            path = case["path"].split("?")[0]
            object_path = re.sub(r"/(status|scale)$", "", path)
            if "kubectl_manifest" in case:
                manifest = os.path.join(self.dir.name, "manifest.yaml")
                with open(manifest, "w") as f:
                    f.write(case["kubectl_manifest"])
                subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig(), "apply", "-f", manifest],
                               check=True, capture_output=True, timeout=60)
            if case.get("wait_seconds_before"):
                # Update entries are ordered, and the oldest capped, by their time in seconds.
                time.sleep(case["wait_seconds_before"])
            body = case.get("body")
            if case["method"] == "PUT":
                # The recorded body is the peer's object: send kw's own, changed the same way.
                sent = json.loads(body)
                mine = last.get(object_path, {"metadata": {}})
                for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
                    if key in mine["metadata"]:
                        sent["metadata"][key] = mine["metadata"][key]
                    else:
                        sent["metadata"].pop(key, None)
                body = json.dumps(sent)
            headers = dict(case["headers"])
            code, text = request(self.server.secure_url + case["path"], self.token, case["method"], body, headers)
            try:
                answer = json.loads(text)
            except ValueError:
                answer = text
            if code < 300 and isinstance(answer, dict) and answer.get("kind") not in ("Status", "Scale"):
                if not ("dryRun" in case["path"]):
                    last[object_path] = answer
            expected = case["response"]
            problems = []
            if code != case["code"]:
                problems.append(f"code {code}, recorded {case['code']}")
            mine, theirs = normalize(answer), normalize(expected)
            if name in LOOSE_MESSAGE and isinstance(mine, dict) and isinstance(theirs, dict):
                mine.pop("message", None)
                theirs.pop("message", None)
                mine.pop("reason", None)
                theirs.pop("reason", None)
            if mine != theirs:
                problems.append("answer differs:\n" + "\n".join(differences(mine, theirs)))
            if problems:
                failures.append(name + ": " + "; ".join(problems))
        self.assertEqual(failures, [], "\n\n".join(failures))


class ScaleSubresourceApplyTest(unittest.TestCase):
    """Apply and updates through /scale, with the managedFields kube-apiserver's scale handler
    keeps: the Scale's spec.replicas is owned by whoever owns the workload's replicas; a Scale
    manager's entry on the workload names the workload's version and subresource scale."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-ssa-scale-")
        tokens = write_tokens(cls.dir.name, [{"token": "admin-token", "user": "admin", "groups": ["system:masters"]}])
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC"], secure_port=free_port())
        cls.server.start()
        cls.base = cls.server.secure_url + "/apis/apps/v1/namespaces/default/deployments/web"

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def call(self, method, path, body=None, content_type="application/apply-patch+yaml"):
        code, text = request(self.base + path, "admin-token", method, body,
                             {"Content-Type": content_type} if body is not None else {})
        return code, json.loads(text)

    def entries(self):
        code, deployment = self.call("GET", "")
        self.assertEqual(code, 200)
        return {(e["manager"], e["operation"], e.get("subresource", "")): e
                for e in deployment["metadata"]["managedFields"]}, deployment

    def test_apply_through_scale(self):
        manifest = json.dumps({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        code, _ = self.call("PATCH", "?fieldManager=mgr1", manifest)
        self.assertEqual(code, 201)

        scale = json.dumps({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"},
                            "spec": {"replicas": 3}})
        # mgr1 owns the replicas: the Scale shows them as its, and an apply by another conflicts.
        code, status = self.call("PATCH", "/scale?fieldManager=hpa", scale)
        self.assertEqual(code, 409, status)
        self.assertEqual(status["message"], 'Apply failed with 1 conflict: conflict with "mgr1": .spec.replicas')
        self.assertEqual(status["details"]["causes"],
                         [{"reason": "FieldManagerConflict", "message": 'conflict with "mgr1"',
                           "field": ".spec.replicas"}])

        code, answer = self.call("PATCH", "/scale?fieldManager=hpa&force=true", scale)
        self.assertEqual(code, 200, answer)
        self.assertEqual(answer["kind"], "Scale")
        self.assertEqual(answer["spec"]["replicas"], 3)
        self.assertNotIn("managedFields", answer["metadata"])
        entries, deployment = self.entries()
        self.assertEqual(deployment["spec"]["replicas"], 3)
        hpa = entries[("hpa", "Apply", "scale")]
        self.assertEqual(hpa["apiVersion"], "apps/v1")
        self.assertEqual(hpa["fieldsV1"], {"f:spec": {"f:replicas": {}}})
        self.assertNotIn("time", hpa)  # the workload had no entry of this identity
        self.assertNotIn("f:replicas", entries[("mgr1", "Apply", "")]["fieldsV1"]["f:spec"])

        # The Scale's applier owns the replicas now: it changes them freely, mgr1 conflicts.
        code, answer = self.call("PATCH", "/scale?fieldManager=hpa",
                                 scale.replace('"replicas": 3', '"replicas": 4'))
        self.assertEqual((code, answer["spec"]["replicas"]), (200, 4))
        code, status = self.call("PATCH", "?fieldManager=mgr1", manifest)
        self.assertEqual(code, 409)
        self.assertEqual(status["message"],
                         'Apply failed with 1 conflict: conflict with "hpa" with subresource "scale": .spec.replicas')

        # A merge patch through /scale by a third manager takes them as an Update entry.
        code, answer = self.call("PATCH", "/scale?fieldManager=scaler", '{"spec":{"replicas":5}}',
                                 "application/merge-patch+json")
        self.assertEqual((code, answer["spec"]["replicas"]), (200, 5))
        entries, _ = self.entries()
        self.assertNotIn(("hpa", "Apply", "scale"), entries)
        self.assertEqual(entries[("scaler", "Update", "scale")]["fieldsV1"], {"f:spec": {"f:replicas": {}}})

        # A Scale that names another object's uid is refused as a failed precondition.
        code, status = self.call("PUT", "/scale?fieldManager=scaler", json.dumps(
            {"apiVersion": "autoscaling/v1", "kind": "Scale",
             "metadata": {"name": "web", "uid": "00000000-0000-0000-0000-000000000000"}, "spec": {"replicas": 1}}),
            "application/json")
        self.assertEqual(code, 409, status)
        self.assertEqual(status["message"],
                         'Operation cannot be fulfilled on deployments/scale.apps "web": Precondition failed: UID in '
                         "precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: "
                         + deployment["metadata"]["uid"])
        self.assertEqual(status["details"], {"name": "web", "group": "apps", "kind": "deployments/scale"})

        # Apply through /scale never creates, and wants a Scale.
        code, status = request(self.base.replace("/web", "/none") + "/scale?fieldManager=hpa", "admin-token", "PATCH",
                               scale.replace('"web"', '"none"'), {"Content-Type": "application/apply-patch+yaml"})
        self.assertEqual(code, 404, status)
        code, status = self.call("PATCH", "/scale?fieldManager=hpa", manifest)
        self.assertEqual(code, 400, status)
        self.assertEqual(status["message"], "Incorrect version specified in apply patch. Specified patch version: "
                                            "apps/v1, expected: autoscaling/v1")


if __name__ == "__main__":
    unittest.main()
