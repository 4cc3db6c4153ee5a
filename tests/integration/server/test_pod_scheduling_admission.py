"""The Priority and DefaultTolerationSeconds admission plugins: the answers recorded from
kube-apiserver v1.23.13 replayed against kw in order. A pod gets the priority and
preemptionPolicy of its PriorityClass (or of the global default, or 0), refusals name what
the pod got wrong, updates keep the stored values, pods that do not tolerate not-ready and
unreachable nodes get 300-second tolerations (on update too), and only one PriorityClass may
be the global default."""
import json
import os
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https, write_tokens

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "..", "conformance", "recorded", "pod-scheduling-admission-1.23.json")


def without(path):
    def edit(obj):
        *parents, last = path
        for key in parents:
            obj = obj[key]
        obj.pop(last, None)
    return edit


# What each recorded PUT did to the object its GET returned, applied to kw's own object.
PUT_EDITS = {
    "12b": [without(["spec", "priority"]), without(["spec", "preemptionPolicy"]),
            lambda o: o["metadata"].setdefault("labels", {}).update({"x": "1"})],
    "13b": [without(["spec", "tolerations"])],
    "16b": [],
    "18b": [lambda o: o.update({"globalDefault": True})],
}
POD_FIELDS = ("priority", "preemptionPolicy", "priorityClassName", "tolerations")


class RecordedPodSchedulingAdmissionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RECORDED) as f:
            cls.recorded = json.load(f)
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-prio-")
        tokens = write_tokens(cls.dir.name, cls.recorded["tokens"])
        cls.token = {t["label"]: t["token"] for t in cls.recorded["tokens"]}["admin"]
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC"], secure_port=free_port())
        cls.server.start()
        for step in cls.recorded["setup"]:
            code, text = https(cls.server.secure_url + step["path"], cls.token, step["method"], step["body"])
            assert code == step["code"] or (code == 409 and "serviceaccounts" in step["path"]), (step, code, text)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def test_cases_in_order(self):
        self.assertGreaterEqual(len(self.recorded["cases"]), 20)
        last_get = {}
        for case in self.recorded["cases"]:
            with self.subTest(case["name"]):
                if case.get("wait_seconds_before"):
                    time.sleep(0.3)
                body = case.get("body")
                tag = case["name"].split()[0]
                if case["method"] == "PUT":
                    body = json.loads(json.dumps(last_get[case["path"]]))
                    for edit in PUT_EDITS[tag]:
                        edit(body)
                code, text = https(self.server.secure_url + case["path"], self.token, case["method"], body)
                self.assertEqual(code, case["code"], text[:400])
                answer, expected = json.loads(text), case["response"]
                if case["method"] == "GET":
                    last_get[case["path"]] = answer
                if code == 403:
                    self.assertEqual(answer["message"], expected["message"])
                    self.assertEqual(answer["details"], expected["details"])
                elif answer.get("kind") == "Pod":
                    for field in POD_FIELDS:
                        self.assertEqual(answer["spec"].get(field), expected["spec"].get(field), field)
                    self.assertEqual(answer["metadata"].get("labels"), expected["metadata"].get("labels"))
                elif answer.get("kind") == "PriorityClass":
                    for field in ("value", "globalDefault", "preemptionPolicy"):
                        self.assertEqual(answer.get(field), expected.get(field), field)
                if case["method"] == "PUT" and code == 200:
                    # An update that changes nothing writes nothing, as kube-apiserver's 13b and 16b show.
                    same = expected["metadata"]["resourceVersion"] == case["body"]["metadata"]["resourceVersion"]
                    self.assertEqual(answer["metadata"]["resourceVersion"] == body["metadata"]["resourceVersion"],
                                     same)


if __name__ == "__main__":
    unittest.main()
