"""Workload validation as kube-apiserver v1.23.13 answered it (recorded): Deployments,
ReplicaSets, StatefulSets, DaemonSets and ReplicationControllers with bad selectors, strategies,
counts, templates and status, selector changes on update, and Ingress class annotations. kw must
give the same codes, messages and causes, in order. Where Kubernetes 1.33 answers otherwise, the
recording's changed_after_1_23 entry, with its reason, is what kw must answer."""
import json
import os

from kwtest import ServerTestCase, merge

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "conformance", "recorded",
                        "workload-validation-1.23.json")


class RecordedWorkloadValidationTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        for step in cls.recorded["setup"]:
            status, body = cls.server.json("POST", step["path"], step["body"])
            assert status == 201, (step["path"], status, body)

    def test_cases(self):
        cases = self.recorded["cases"]
        self.assertGreaterEqual(len(cases), 55)
        changed = self.recorded["changed_after_1_23"]
        self.assertTrue(set(changed) <= {case["name"] for case in cases}, set(changed))
        for recorded in cases:
            case = dict(recorded, **changed.get(recorded["name"], {}))
            with self.subTest(case["name"]):
                body = case.get("body")
                if "merge" in case:
                    status, current = self.server.json("GET", case["read"])
                    self.assertEqual(status, 200, current)
                    body = merge(current, case["merge"])
                status, answer = self.server.json(case.get("method", "POST"), case["path"], body)
                self.assertEqual(status, case["code"], answer)
                if case["code"] >= 400:
                    self.assertEqual(answer["reason"], case["reason"])
                    self.assertEqual(answer["message"], case["message"])
                    self.assertEqual(answer["details"]["causes"], case["causes"])
