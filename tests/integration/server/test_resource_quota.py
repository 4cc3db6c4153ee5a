"""ResourceQuota: the answers kube-apiserver v1.23.13 and kube-controller-manager's resourcequota
controller gave (resourcequota-1.23.json), replayed against kw in order. The admission plugin's
refusals ("exceeded quota: ...", "failed quota: ... must specify ..."), what it charges to
status.used, kw's own quota controller (status.hard from spec.hard, usage recounted from the
namespace's objects, scopes, the periodic recount that corrects a wrong status), the quota's
validation and its Table."""
import json
import os
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https, merge, merge_diff, object_path, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "resourcequota-1.23.json")

# Cases whose quota status raced with the controller in the recording: code only.
STATUS_RACE = {"2a", "19c"}
# Kubernetes 1.33 prints ResourceQuotas as Name, Request, Limit, Age (1.23: Name, Age, Request,
# Limit); cells are compared by column name.
TABLE = "20"
# How long a "(after status settled)" case polls for the recorded status (the recording's own
# poll allowed 20 s; its sync period was 5 s, as here).
SETTLE_SECONDS = 20


class RecordedResourceQuotaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-quota-")
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.token = {t["label"]: t["token"] for t in cls.recorded["tokens"]}
        # As recorded: no controller publishes ServiceAccounts or kube-root-ca.crt (setup creates
        # the default ServiceAccounts), and quotas are recounted every 5 s.
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--controllers", "*,-serviceaccount,-root-ca-cert-publisher",
                               "--resource-quota-sync-period", "5s"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, text = https(cls.server.secure_url + step["path"], cls.token["admin"], step["method"], step["body"])
            assert code == step["code"], (step, code, text)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def call(self, case, body):
        headers = {k: v for k, v in case.get("headers", {}).items() if k != "Content-Type"}
        return https(self.server.secure_url + case["path"], self.token[case["user"]], case["method"], body,
                     headers=headers)

    def settle(self, case):
        """GETs the quota until its status is the recorded one (or the time is up); the last answer."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while True:
            code, text = self.call(case, None)
            answer = json.loads(text)
            if answer.get("status") == case["response"]["status"] or time.monotonic() > deadline:
                return code, answer
            time.sleep(0.2)

    def check_table(self, answer, expected):
        names = [c["name"] for c in answer["columnDefinitions"]]
        self.assertEqual(names, ["Name", "Request", "Limit", "Age"])
        expected_names = [c["name"] for c in expected["columnDefinitions"]]
        self.assertEqual(sorted(names), sorted(expected_names))
        self.assertEqual(len(answer["rows"]), len(expected["rows"]))
        for row, expected_row in zip(answer["rows"], expected["rows"]):
            cells = dict(zip(names, row["cells"]))
            expected_cells = dict(zip(expected_names, expected_row["cells"]))
            cells.pop("Age")
            expected_cells.pop("Age")
            self.assertEqual(cells, expected_cells)

    def test_cases_in_order(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 49)
        recorded_get, kw_get = {}, {}
        for case in cases:
            tag = case["name"].split()[0]
            with self.subTest(case["name"]):
                expected = case["response"]
                if "(after status settled" in case["name"]:
                    code, answer = self.settle(case)
                    text = json.dumps(answer)
                else:
                    body = case.get("body")
                    if case["method"] == "PUT" and object_path(case["path"]) in kw_get:
                        # The recorded PUT edited the recorded GET; kw's own object gets the same edit.
                        edit = merge_diff(recorded_get[object_path(case["path"])], body)
                        body = merge(kw_get[object_path(case["path"])], edit)
                    code, text = self.call(case, body)
                    answer = json.loads(text) if text.startswith("{") else text
                self.assertEqual(code, case["code"], text[:400])
                if case["method"] == "GET" and code == 200 and answer.get("kind") == "ResourceQuota":
                    recorded_get[object_path(case["path"])] = expected
                    kw_get[object_path(case["path"])] = answer
                if code >= 400:
                    self.assertEqual(answer["message"], expected["message"])
                    self.assertEqual(answer.get("details"), expected.get("details"))
                    continue
                if tag == TABLE:
                    self.check_table(answer, expected)
                    continue
                kind = answer.get("kind")
                if kind == "ResourceQuota":
                    self.assertEqual(answer["spec"], expected["spec"])
                    if tag not in STATUS_RACE:
                        self.assertEqual(answer.get("status"), expected.get("status"))
                elif kind == "Pod":
                    self.assertEqual(answer["status"].get("qosClass"), expected["status"].get("qosClass"))

    def test_charges_are_atomic_under_concurrent_creates(self):
        """Creates racing for the last units of a quota: exactly the quota's worth succeed."""
        import concurrent.futures
        with KwServer(["--resource-quota-sync-period", "1h"]) as server:
            quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "few"},
                     "spec": {"hard": {"count/podtemplates": "5"}}}
            self.assertEqual(server.json("POST", "/api/v1/namespaces/default/resourcequotas", quota)[0], 201)
            deadline = time.monotonic() + 10
            while "used" not in server.json("GET", "/api/v1/namespaces/default/resourcequotas/few")[1].get("status", {}):
                self.assertLess(time.monotonic(), deadline, "the quota controller never counted the quota")
                time.sleep(0.1)
            status = server.json("GET", "/api/v1/namespaces/default/resourcequotas/few")[1]["status"]
            self.assertEqual(status["used"]["count/podtemplates"], "0")

            def create(i):
                template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": f"race-{i}"},
                            "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}
                return server.json("POST", "/api/v1/namespaces/default/podtemplates", template)[0]

            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                codes = list(pool.map(create, range(16)))
            self.assertEqual(codes.count(201), 5, codes)
            self.assertEqual(codes.count(403), 11, codes)
            status = server.json("GET", "/api/v1/namespaces/default/resourcequotas/few")[1]["status"]
            self.assertEqual(status["used"]["count/podtemplates"], "5")

    def test_dry_run_is_checked_but_not_charged(self):
        with KwServer() as server:
            ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dry"}}
            self.assertEqual(server.json("POST", "/api/v1/namespaces", ns)[0], 201)
            quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "one"},
                     "spec": {"hard": {"services": "1"}}}
            path = "/api/v1/namespaces/dry/resourcequotas/one"
            self.assertEqual(server.json("POST", "/api/v1/namespaces/dry/resourcequotas", quota)[0], 201)
            deadline = time.monotonic() + 10
            while server.json("GET", path)[1].get("status", {}).get("used") is None:
                self.assertLess(time.monotonic(), deadline, "the quota controller never counted the quota")
                time.sleep(0.1)
            svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}
            code, answer = server.json("POST", "/api/v1/namespaces/dry/services?dryRun=All", svc)
            self.assertEqual(code, 201, answer)
            self.assertEqual(server.json("GET", path)[1]["status"]["used"]["services"], "0")
            self.assertEqual(server.json("POST", "/api/v1/namespaces/dry/services", svc)[0], 201)
            self.assertEqual(server.json("GET", path)[1]["status"]["used"]["services"], "1")
            svc["metadata"]["name"] = "t"
            code, answer = server.json("POST", "/api/v1/namespaces/dry/services?dryRun=All", svc)
            self.assertEqual(code, 403, answer)
            self.assertEqual(answer["message"], 'services "t" is forbidden: exceeded quota: one, requested: services=1, '
                                                'used: services=1, limited: services=1')
            # Deleting the service gives the unit back once the controller recounts.
            self.assertEqual(server.json("DELETE", "/api/v1/namespaces/dry/services/s")[0], 200)
            deadline = time.monotonic() + 10
            while server.json("GET", path)[1]["status"]["used"]["services"] != "0":
                self.assertLess(time.monotonic(), deadline, "the deletion was never given back")
                time.sleep(0.1)

    def test_bad_sync_period_is_refused(self):
        server = KwServer(["--resource-quota-sync-period", "soon"])
        with self.assertRaises(Exception):
            server.start(timeout=5)
        self.assertIn("--resource-quota-sync-period", server.read_log())
        server.cleanup()


if __name__ == "__main__":
    unittest.main()
