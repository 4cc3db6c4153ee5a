"""CRD x-kubernetes-validations: CEL rules checked on every write of a custom object.

Expected answers: the field paths, `<nil>` for a rule at the root, the "failed rule: RULE" default,
"no such key: ... evaluating rule: ..." and the CRD's own 422 causes ("rule is not specified",
"compilation failed: ERROR: <input>:1:5: undefined field 'nosuch'" with its caret lines) were
recorded from kube-apiserver v1.23.13 (CustomResourceValidationExpressions on). Since 1.24 a
failure names the value by its schema type ("object", "string") instead of printing it, and
transition rules (oldSelf), messageExpression, reason and fieldPath exist: those follow
apiextensions-apiserver v0.33's validator."""
import json
import subprocess
import time
import unittest

from kwtest import KwServer

GROUP = "cel.kw.test"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
WIDGETS = f"/apis/{GROUP}/v1/namespaces/default/widgets"

SPEC_RULES = [
    {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
    {"rule": "self.mode == oldSelf.mode", "message": "mode is immutable"},
    {"rule": "!has(self.maxReplicas) || self.maxReplicas <= 10", "reason": "FieldValueForbidden",
     "fieldPath": ".maxReplicas",
     "messageExpression": "'maxReplicas ' + string(self.maxReplicas) + ' is over 10'"},
]


def widget_crd():
    spec = {"type": "object", "x-kubernetes-validations": SPEC_RULES, "properties": {
        "minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}, "mode": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string",
                                            "x-kubernetes-validations": [{"rule": "self.size() <= 5"}]}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                      "name": {"type": "string"},
                      "port": {"type": "integer", "x-kubernetes-validations": [
                          {"rule": "self >= oldSelf", "message": "port may only grow"}]}}}},
        "labels": {"type": "object", "additionalProperties": {
            "type": "string", "x-kubernetes-validations": [{"rule": "self != 'bad'"}]}},
        "many": {"type": "array", "maxItems": 1500, "items": {"type": "integer"},
                 "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x != y || x == y))",
                                               "message": "pairs"}]}}}
    schema = {"type": "object", "properties": {"spec": spec},
              "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('w')",
                                            "message": "name must start with w"}]}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"widgets.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def gadget_crd(rules):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {
                             "type": "object", "x-kubernetes-validations": rules,
                             "properties": {"a": {"type": "integer"}}}}}}}]}}


def causes(body):
    return sorted((c["field"], c["message"]) for c in body["details"]["causes"])


class CrdValidationRulesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = KwServer().start()
        status, body = cls.server.json("POST", CRDS, widget_crd())
        assert status == 201, body
        deadline = time.monotonic() + 10
        while cls.server.json("GET", WIDGETS)[0] != 200:
            assert time.monotonic() < deadline, "the CRD is not served"
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def create(self, name, spec):
        return self.server.json("POST", WIDGETS, {"apiVersion": f"{GROUP}/v1", "kind": "Widget",
                                                  "metadata": {"name": name}, "spec": spec})

    def test_every_broken_rule_is_a_cause(self):
        status, body = self.create("xbad", {"minReplicas": 5, "maxReplicas": 2, "mode": "a",
                                            "tags": ["ok", "toolong"], "labels": {"a": "bad", "b": "fine"}})
        self.assertEqual(status, 422, body)
        self.assertEqual(causes(body), sorted([
            ("<nil>", 'Invalid value: "object": name must start with w'),
            ("spec", 'Invalid value: "object": minReplicas must not exceed maxReplicas'),
            ("spec.tags[1]", 'Invalid value: "string": failed rule: self.size() <= 5'),
            ("spec.labels[a]", "Invalid value: \"string\": failed rule: self != 'bad'")]))
        self.assertTrue(body["message"].startswith(f'Widget.{GROUP} "xbad" is invalid: ['), body["message"])
        self.assertEqual({c["reason"] for c in body["details"]["causes"]}, {"FieldValueInvalid"})

    def test_an_evaluation_error(self):
        status, body = self.create("w-missing", {"mode": "a"})
        self.assertEqual(status, 422, body)
        self.assertEqual(causes(body), [(
            "spec", 'Invalid value: "object": no such key: minReplicas evaluating rule: '
                    'minReplicas must not exceed maxReplicas')])

    def test_message_expression_reason_and_field_path(self):
        status, body = self.create("w-big", {"minReplicas": 1, "maxReplicas": 20, "mode": "a"})
        self.assertEqual(status, 422, body)
        self.assertEqual(body["details"]["causes"], [
            {"reason": "FieldValueForbidden", "message": "Forbidden: maxReplicas 20 is over 10",
             "field": "spec.maxReplicas"}])

    def test_transition_rules_run_on_updates_only(self):
        status, body = self.create("w-transition", {"minReplicas": 1, "maxReplicas": 2, "mode": "a",
                                                    "ports": [{"name": "http", "port": 80}]})
        self.assertEqual(status, 201, body)
        status, body = self.server.json("PATCH", WIDGETS + "/w-transition", {"spec": {
            "mode": "b", "ports": [{"name": "http", "port": 70}, {"name": "new", "port": 1}]}},
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 422, body)
        self.assertEqual(causes(body), [
            ("spec", 'Invalid value: "object": mode is immutable'),
            ("spec.ports[0].port", 'Invalid value: "integer": port may only grow')])
        status, body = self.server.json("PATCH", WIDGETS + "/w-transition", {"spec": {
            "ports": [{"name": "new", "port": 1}, {"name": "http", "port": 81}]}},
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, body)

    def test_a_rule_over_its_cost_limit_stops(self):
        started = time.monotonic()
        status, body = self.create("w-costly", {"minReplicas": 1, "maxReplicas": 2, "mode": "a",
                                                "many": list(range(1500))})
        self.assertEqual(status, 422, body)
        self.assertEqual(causes(body), [(
            "spec.many", "Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further "
                         "validation rules will be run due to call cost exceeds limit for rule: pairs")])
        self.assertLess(time.monotonic() - started, 5)

    def test_a_definition_with_bad_rules_is_refused(self):
        status, body = self.server.json("POST", CRDS, gadget_crd([{"rule": ""}, {"rule": "self.a > 1", "message": " "},
                                                                  {"rule": "self.a > 1", "reason": "Nope"}]))
        self.assertEqual(status, 422, body)
        at = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations"
        self.assertEqual(causes(body), sorted([
            (f"{at}[0].rule", "Required value: rule is not specified"),
            (f"{at}[1].message", 'Invalid value: " ": message must be non-empty if specified'),
            (f"{at}[2].reason", 'Unsupported value: "Nope": supported values: "FieldValueDuplicate", '
                                '"FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"')]))

    def test_a_definition_whose_rule_does_not_compile_is_refused(self):
        status, body = self.server.json("POST", CRDS, gadget_crd([{"rule": "self.nosuch > 0"}]))
        self.assertEqual(status, 422, body)
        [(field, message)] = causes(body)
        self.assertEqual(field, "spec.versions[0].schema.openAPIV3Schema.properties[spec]"
                                ".x-kubernetes-validations[0].rule")
        self.assertEqual(message, 'Invalid value: apiextensions.ValidationRule{Rule:"self.nosuch > 0", Message:"", '
                                  'MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), '
                                  'FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: '
                                  "ERROR: <input>:1:5: undefined field 'nosuch'\n | self.nosuch > 0\n | ....^")


if __name__ == "__main__":
    unittest.main()
