"""kw against answers recorded from kube-apiserver (tests/conformance/recorded/): the same
requests must get the same codes, messages and causes, and creates the same defaults."""
import base64
import json
import os
import unittest

from kwtest import ServerTestCase, merge

RECORDED = os.path.join(os.path.dirname(__file__), "../../conformance/recorded/kube-apiserver-1.23.json")


class RecordedAnswersTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        for step in cls.recorded["setup"]:
            status, body = cls.server.json("POST", step["path"], step["body"])
            assert status == 201, body

    def test_errors(self):
        for case in self.recorded["errors"]:
            with self.subTest(case["name"]):
                body = case["body"]
                if "merge" in case:
                    _, current = self.server.json("GET", case["path"])
                    body = merge(current, case["merge"])
                status, answer = self.server.json(case["method"], case["path"], body)
                self.assertEqual(status, case["code"], answer)
                self.assertEqual(answer["reason"], case["reason"])
                self.assertEqual(answer["message"], case["message"])
                self.assertEqual(answer["details"]["causes"], case["causes"])

    def test_creates(self):
        for case in self.recorded["creates"]:
            with self.subTest(case["name"]):
                body = dict(case["body"], metadata=dict(case["body"]["metadata"]))
                body["metadata"]["name"] += "-rec"
                status, created = self.server.json("POST", case["path"], body)
                self.assertEqual(status, 201, created)
                _, read = self.server.json("GET", case["path"] + "/" + body["metadata"]["name"])
                for answer in (created, read):
                    for key, value in case["spec"].items():
                        self.assertEqual(answer["spec"].get(key), value, key)
                    self.assertEqual(answer["metadata"].get("labels"), case["labels"])
                    self.assertEqual(answer.get("status"), case["status"])
                    if "template_labels" in case:
                        self.assertEqual(answer["spec"]["template"]["metadata"]["labels"], case["template_labels"])
                    else:  # a generated selector picks this Job's uid, which its pods carry
                        uid = answer["metadata"]["uid"]
                        selected = answer["spec"]["selector"]["matchLabels"]
                        self.assertEqual(list(selected.values()), [uid])
                        labels = answer["spec"]["template"]["metadata"]["labels"]
                        self.assertEqual(labels[next(iter(selected))], uid)
                        self.assertEqual(labels["job-name"], body["metadata"]["name"])


BAD_INPUT = os.path.join(os.path.dirname(__file__), "../../conformance/recorded/bad-input-1.23.json")


def expanded(value):
    """A recorded body with its {$repeat} and {$base64_of_repeat} stand-ins written out."""
    if isinstance(value, dict):
        if "$repeat" in value:
            return value["$repeat"] * value["times"]
        if "$base64_of_repeat" in value:
            return base64.b64encode(value["$base64_of_repeat"].encode() * value["times"]).decode()
        return {key: expanded(item) for key, item in value.items()}
    return value


class RecordedBadInputTest(ServerTestCase):
    """Malformed requests: the code, reason, message and causes kube-apiserver answered."""

    def test_bad_input(self):
        with open(BAD_INPUT) as f:
            cases = json.load(f)["cases"]
        status, body = self.server.json("POST", "/api/v1/namespaces/default/configmaps",
                                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"},
                                         "data": {"a": "b"}})
        self.assertEqual(status, 201, body)
        for case in cases:
            with self.subTest(case["name"]):
                body = None if case["body"] is None else json.dumps(expanded(case["body"])).encode()
                headers = {"Content-Type": "application/merge-patch+json" if case["method"] == "PATCH"
                           else "application/json"}
                status, _, raw = self.server.request(case["method"], case["path"], body, headers)
                self.assertEqual(status, case["code"], raw[:300])
                if "reason" not in case:
                    continue
                answer = json.loads(raw)
                self.assertEqual(answer["reason"], case["reason"])
                self.assertEqual(answer["message"], case["message"])
                self.assertEqual(answer.get("details", {}).get("causes"), case.get("causes"))


if __name__ == "__main__":
    unittest.main()
