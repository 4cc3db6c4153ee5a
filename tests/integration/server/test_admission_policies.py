"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1):
CEL validations on every request a bound policy matches.

Expected answers follow kube-apiserver 1.33's validating policy plugin (k8s.io/apiserver
v0.33 pkg/admission/plugin/policy/validating): the refusal "ValidatingAdmissionPolicy 'P' with
binding 'B' denied request: MSG" inside admission's `RESOURCE "NAME" is forbidden: ...`, with the
validation's reason and code and the message as the one cause; the message chosen from
messageExpression, message, then "failed expression: EXPR"; Warn as a Warning header, Audit
and auditAnnotations as audit annotations; params by name and selector with
parameterNotFoundAction; failurePolicy for evaluation and configuration errors."""
import json
import os
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https, write_tokens

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources: [{group: "", resources: ["configmaps"]}]
"""


# A custom resource served at v1 (stored) and v2, conversion None: only apiVersion differs.
GADGETS = "policyequiv.kw.test"


def gadgets_rule(*versions):
    return {"apiGroups": [GADGETS], "apiVersions": list(versions), "operations": ["CREATE"], "resources": ["gadgets"]}


def configmaps_rule(operations=("CREATE", "UPDATE"), **extra):
    return {"apiGroups": [""], "apiVersions": ["v1"], "operations": list(operations),
            "resources": ["configmaps"], **extra}


class AdmissionPolicyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-policies-")
        policy = os.path.join(cls.dir.name, "audit.yaml")
        with open(policy, "w") as f:
            f.write(AUDIT_POLICY)
        cls.audit_log = os.path.join(cls.dir.name, "audit.log")
        cls.server = KwServer(["--audit-policy-file", policy, "--audit-log-path", cls.audit_log,
                               "--audit-log-mode", "blocking"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    # ---- helpers ----------------------------------------------------------------------------
    def namespace(self, name, labels=None):
        status, body = self.server.json("POST", "/api/v1/namespaces",
                                        {"metadata": {"name": name, "labels": labels or {"policy-test": name}}})
        self.assertEqual(status, 201, body)

    def policy(self, name, spec, expect=201):
        spec = {"failurePolicy": "Fail",
                "matchConstraints": {"resourceRules": [configmaps_rule()],
                                     "namespaceSelector": {"matchLabels": {"policy-test": name}}},
                **spec}
        status, body = self.server.json("POST", f"{ADMISSION}/validatingadmissionpolicies",
                                        {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(status, expect, body)
        return body

    def bind(self, name, policy, actions=("Deny",), **spec):
        status, body = self.server.json("POST", f"{ADMISSION}/validatingadmissionpolicybindings", {
            "metadata": {"name": name}, "spec": {"policyName": policy, "validationActions": list(actions), **spec}})
        self.assertEqual(status, 201, body)

    def configmap(self, namespace, name, data=None, labels=None):
        status, headers, raw = self.server.request("POST", f"/api/v1/namespaces/{namespace}/configmaps", {
            "metadata": {"name": name, "labels": labels or {}}, "data": data or {}})
        return status, json.loads(raw), {key.lower(): value for key, value in headers.items()}

    def until_refused(self, namespace, data=None, timeout=5):
        """Creates configmaps until one is refused (the policy has reached the plugin)."""
        deadline = time.monotonic() + timeout
        n = 0
        while True:
            n += 1
            status, body, headers = self.configmap(namespace, f"probe-{n}", data)
            if status >= 400 or time.monotonic() > deadline:
                return status, body, headers
            time.sleep(0.05)

    def serve_gadgets(self):
        """The gadgets CRD, created by the first test that needs it."""
        if self.server.json("GET", f"/apis/{GADGETS}/v2/gadgets")[0] == 200:
            return
        open_schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
        status, body = self.server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
            "metadata": {"name": "gadgets." + GADGETS},
            "spec": {"group": GADGETS, "scope": "Namespaced",
                     "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": open_schema},
                                  {"name": "v2", "served": True, "storage": False, "schema": open_schema}]}})
        self.assertEqual(status, 201, body)
        deadline = time.monotonic() + 10
        while self.server.json("GET", f"/apis/{GADGETS}/v2/gadgets")[0] != 200:
            self.assertLess(time.monotonic(), deadline, "gadgets are not served")
            time.sleep(0.1)

    def gadget(self, namespace, name, version):
        return self.server.json("POST", f"/apis/{GADGETS}/{version}/namespaces/{namespace}/gadgets", {
            "apiVersion": f"{GADGETS}/{version}", "kind": "Gadget", "metadata": {"name": name}})

    def until_gadget_refused(self, namespace, version, timeout=5):
        deadline = time.monotonic() + timeout
        n = 0
        while True:
            n += 1
            status, body = self.gadget(namespace, f"probe-{version}-{n}", version)
            if status >= 400 or time.monotonic() > deadline:
                return status, body
            time.sleep(0.05)

    def gadget_policy(self, name, match_policy=None):
        """A policy on v1 gadgets in namespace NAME whose one validation fails, saying what it saw."""
        self.serve_gadgets()
        self.namespace(name)
        constraints = {"resourceRules": [gadgets_rule("v1")],
                       "namespaceSelector": {"matchLabels": {"policy-test": name}}}
        if match_policy:
            constraints["matchPolicy"] = match_policy
        body = self.policy(name, {"matchConstraints": constraints, "validations": [{
            "expression": "false",
            "messageExpression": "'object ' + object.apiVersion + ', kind ' + request.kind.version + "
                                 "', resource ' + request.resource.version + ', requestKind ' + "
                                 "request.requestKind.version + ', requestResource ' + request.requestResource.version"}]})
        self.bind(name, name)
        return body

    def audit_annotations(self, name, timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.audit_log) as f:
                for line in f:
                    event = json.loads(line)
                    if (event["stage"] == "ResponseComplete" and event["verb"] == "create"
                            and event.get("objectRef", {}).get("name") == name):
                        return event.get("annotations", {})
            time.sleep(0.1)
        self.fail(f"no audit event for {name}")

    # ---- tests ------------------------------------------------------------------------------
    def test_deny_with_message_reason_and_code(self):
        self.namespace("deny")
        self.policy("deny", {"validations": [
            {"expression": "size(object.data) <= 2", "message": "at most two keys", "reason": "Forbidden"},
            {"expression": "!object.metadata.name.startsWith('bad')"}]})
        self.bind("deny-binding", "deny")
        status, body, _ = self.until_refused("deny", {"a": "1", "b": "2", "c": "3"})
        self.assertEqual(status, 403, body)
        why = "ValidatingAdmissionPolicy 'deny' with binding 'deny-binding' denied request: at most two keys"
        self.assertEqual(body["reason"], "Forbidden")
        self.assertEqual(body["message"], f'configmaps "{body["details"]["name"]}" is forbidden: {why}')
        self.assertEqual(body["details"]["kind"], "configmaps")
        self.assertEqual(body["details"]["causes"], [{"message": why}])
        # The default reason is Invalid (422), the default message the expression.
        status, body, _ = self.configmap("deny", "bad-name")
        self.assertEqual(status, 422, body)
        self.assertEqual(body["reason"], "Invalid")
        self.assertEqual(body["message"], 'configmaps "bad-name" is forbidden: ValidatingAdmissionPolicy '
                                          "'deny' with binding 'deny-binding' denied request: failed expression: "
                                          "!object.metadata.name.startsWith('bad')")
        self.assertEqual(self.configmap("deny", "fine", {"a": "1"})[0], 201)
        # Requests the policy does not match: other namespaces, deletes.
        self.namespace("deny-other", {"policy-test": "elsewhere"})
        self.assertEqual(self.configmap("deny-other", "bad-elsewhere")[0], 201)
        self.assertEqual(self.server.json("DELETE", "/api/v1/namespaces/deny/configmaps/fine")[0], 200)

    def test_message_expression(self):
        self.namespace("msgexpr")
        self.policy("msgexpr", {"validations": [
            {"expression": "size(object.data) == 0", "message": "no data",
             "messageExpression": "'configmap ' + object.metadata.name + ' has ' + string(size(object.data)) + ' keys'"},
            {"expression": "false", "message": "fallback message", "messageExpression": "42"}]})
        self.bind("msgexpr", "msgexpr")
        status, body, _ = self.until_refused("msgexpr", {"k": "v"})
        name = body["details"]["name"]
        self.assertEqual(body["details"]["causes"], [{
            "message": f"ValidatingAdmissionPolicy 'msgexpr' with binding 'msgexpr' denied request: "
                       f"configmap {name} has 1 keys"}])
        # A messageExpression that is not a string falls back to the message.
        status, body, _ = self.configmap("msgexpr", "empty")
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith("denied request: fallback message"), body)

    def test_params_by_name_and_selector(self):
        self.namespace("params")
        spec = {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "matchConstraints": {"resourceRules": [configmaps_rule()],
                                     "namespaceSelector": {"matchLabels": {"policy-test": "params"}},
                                     "objectSelector": {"matchLabels": {"checked": "yes"}}},
                "validations": [{"expression": "size(object.data) <= int(params.data.max)",
                                 "messageExpression": "'more than ' + params.data.max + ' keys'"}]}
        self.policy("params", spec)
        # The param lives in the request's namespace (paramRef.namespace unset).
        self.assertEqual(self.configmap("params", "limits", {"max": "1"})[0], 201)
        self.bind("params-by-name", "params", paramRef={"name": "limits", "parameterNotFoundAction": "Deny"})
        deadline = time.monotonic() + 5
        while True:
            status, body, _ = self.configmap("params", f"two-{time.monotonic_ns()}", {"a": "1", "b": "2"},
                                             labels={"checked": "yes"})
            if status != 201 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith(
            "ValidatingAdmissionPolicy 'params' with binding 'params-by-name' denied request: more than 1 keys"), body)
        self.assertEqual(self.configmap("params", "one", {"a": "1"}, labels={"checked": "yes"})[0], 201)
        # Another namespace has no such param: parameterNotFoundAction Deny refuses.
        self.namespace("params-none", {"policy-test": "params"})
        status, body, _ = self.configmap("params-none", "x", labels={"checked": "yes"})
        self.assertEqual(status, 422, body)
        self.assertEqual(body["details"]["causes"], [{
            "message": "ValidatingAdmissionPolicy 'params' with binding 'params-by-name' denied request: "
                       "failed to configure binding: no params found for policy binding with `Deny` "
                       "parameterNotFoundAction"}])

    def test_params_selected_by_labels_and_allow(self):
        self.namespace("paramsel")
        self.namespace("paramstore", {"policy-test": "nothing"})
        spec = {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "validations": [{"expression": "!(params.data.forbidden in object.data)",
                                 "messageExpression": "'key ' + params.data.forbidden + ' is forbidden'"}]}
        self.policy("paramsel", spec)
        for name, key in (("p1", "alpha"), ("p2", "beta")):
            status, body = self.server.json("POST", "/api/v1/namespaces/paramstore/configmaps", {
                "metadata": {"name": name, "labels": {"forbidden-key": "yes"}}, "data": {"forbidden": key}})
            self.assertEqual(status, 201, body)
        self.bind("paramsel", "paramsel", paramRef={
            "namespace": "paramstore", "selector": {"matchLabels": {"forbidden-key": "yes"}},
            "parameterNotFoundAction": "Allow"})
        status, body, _ = self.until_refused("paramsel", {"beta": "1"})
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith("denied request: key beta is forbidden"), body)
        status, body, _ = self.configmap("paramsel", "has-alpha", {"alpha": "1"})
        self.assertTrue(body["message"].endswith("denied request: key alpha is forbidden"), body)
        self.assertEqual(self.configmap("paramsel", "clean", {"gamma": "1"})[0], 201)
        # With no param found and Allow, the binding lets everything through.
        status, binding = self.server.json("GET", f"{ADMISSION}/validatingadmissionpolicybindings/paramsel")
        binding["spec"]["paramRef"]["selector"] = {"matchLabels": {"forbidden-key": "nowhere"}}
        self.assertEqual(self.server.json("PUT", f"{ADMISSION}/validatingadmissionpolicybindings/paramsel",
                                          binding)[0], 200)
        deadline = time.monotonic() + 5
        while self.configmap("paramsel", f"allowed-{time.monotonic_ns()}", {"beta": "1"})[0] != 201:
            self.assertLess(time.monotonic(), deadline, "the binding change did not apply")
            time.sleep(0.05)

    def test_warn_and_audit_actions(self):
        self.namespace("warn")
        self.policy("warn", {"validations": [{"expression": "'owner' in object.metadata.labels",
                                              "message": "configmaps need an owner label"}],
                             "auditAnnotations": [{"key": "size", "valueExpression": "string(size(object.data))"},
                                                  {"key": "skipped", "valueExpression": "null"}]})
        self.bind("warn-binding", "warn", actions=("Warn", "Audit"))
        deadline = time.monotonic() + 5
        while True:
            name = f"warned-{time.monotonic_ns()}"
            status, body, headers = self.configmap("warn", name, {"a": "1"})
            self.assertEqual(status, 201, body)
            if "warning" in headers or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(headers.get("warning"),
                         "299 - \"Validation failed for ValidatingAdmissionPolicy 'warn' with binding "
                         "'warn-binding': configmaps need an owner label\"")
        annotations = self.audit_annotations(name)
        self.assertEqual(json.loads(annotations["validation.policy.admission.k8s.io/validation_failure"]), [{
            "message": "configmaps need an owner label", "policy": "warn", "binding": "warn-binding",
            "expressionIndex": 0, "validationActions": ["Warn", "Audit"]}])
        self.assertEqual(annotations.get("warn/size"), "1")
        self.assertNotIn("warn/skipped", annotations)
        status, body, headers = self.configmap("warn", "owned", labels={"owner": "me"})
        self.assertEqual(status, 201, body)
        self.assertNotIn("warning", headers)

    def test_variables_namespace_object_and_request(self):
        self.namespace("vars", {"policy-test": "vars", "env": "prod"})
        self.policy("vars", {
            "variables": [{"name": "keys", "expression": "object.data.map(k, k)"},
                          {"name": "prod", "expression": "namespaceObject.metadata.labels.env == 'prod'"},
                          {"name": "creating", "expression": "request.operation == 'CREATE'"}],
            "validations": [{"expression": "!variables.prod || !variables.creating || "
                                           "variables.keys.all(k, k.startsWith('prod-'))",
                             "messageExpression": "'in ' + namespaceObject.metadata.name + ' by ' + "
                                                  "request.userInfo.username + ': keys must start with prod-'"}]})
        self.bind("vars", "vars")
        status, body, _ = self.until_refused("vars", {"dev-key": "1"})
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith("denied request: in vars by system:unsecured: "
                                                 "keys must start with prod-"), body)
        self.assertEqual(self.configmap("vars", "good", {"prod-key": "1"})[0], 201)

    def test_failure_policy_on_evaluation_errors(self):
        for failure_policy in ("Fail", "Ignore"):
            name = f"errors-{failure_policy.lower()}"
            self.namespace(name)
            self.policy(name, {"failurePolicy": failure_policy,
                               "validations": [{"expression": "object.data.nosuch == 'x'"}]})
            self.bind(name, name)
        status, body, _ = self.until_refused("errors-fail")
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith(
            "ValidatingAdmissionPolicy 'errors-fail' with binding 'errors-fail' denied request: "
            "expression 'object.data.nosuch == 'x'' resulted in error: no such key: nosuch"), body)
        time.sleep(0.5)  # both policies are in place
        self.assertEqual(self.configmap("errors-ignore", "passes")[0], 201)

    def test_match_conditions_rules_and_binding_match_resources(self):
        self.namespace("match")
        self.namespace("match-narrow", {"policy-test": "match", "narrow": "yes"})
        self.policy("match", {
            "matchConstraints": {
                "resourceRules": [configmaps_rule(resourceNames=["guarded", "guarded-2", "excluded"])],
                "excludeResourceRules": [configmaps_rule(resourceNames=["excluded"])],
                "namespaceSelector": {"matchLabels": {"policy-test": "match"}}},
            "matchConditions": [{"name": "not-exempt", "expression": "!has(object.metadata.labels) || "
                                                                     "!('exempt' in object.metadata.labels)"}],
            "validations": [{"expression": "false", "message": "guarded"}]})
        self.bind("match", "match", matchResources={"namespaceSelector": {"matchLabels": {"narrow": "yes"}}})
        deadline = time.monotonic() + 5
        while self.configmap("match-narrow", "guarded")[0] == 201:
            self.server.json("DELETE", "/api/v1/namespaces/match-narrow/configmaps/guarded")
            self.assertLess(time.monotonic(), deadline, "the policy did not apply")
            time.sleep(0.05)
        self.assertEqual(self.configmap("match-narrow", "guarded-2")[0], 422)
        self.assertEqual(self.configmap("match-narrow", "excluded")[0], 201)
        self.assertEqual(self.configmap("match-narrow", "unnamed")[0], 201)
        self.assertEqual(self.configmap("match-narrow", "guarded-2", labels={"exempt": "1"})[0], 201)
        self.assertEqual(self.configmap("match", "guarded")[0], 201)  # the binding narrows to narrow=yes

    def test_configuration_errors(self):
        self.namespace("badkind")
        self.policy("badkind", {"paramKind": {"apiVersion": "example.kw.test/v1", "kind": "Nope"},
                                "validations": [{"expression": "true"}]})
        self.bind("badkind", "badkind", paramRef={"name": "x", "parameterNotFoundAction": "Allow"})
        status, body, _ = self.until_refused("badkind")
        self.assertEqual(status, 422, body)
        self.assertEqual(body["details"]["causes"], [{
            "message": "ValidatingAdmissionPolicy 'badkind' denied request: failed to configure policy: failed "
                       "to find resource referenced by paramKind: 'example.kw.test/v1, Kind=Nope'"}])

    def test_expressions_must_compile(self):
        body = self.policy("broken", {"validations": [{"expression": "object.metadata.name ==",
                                                       "messageExpression": "nobody"}],
                                      "variables": [{"name": "v", "expression": "params.x"}],
                                      "auditAnnotations": [{"key": "k", "valueExpression": "undeclared"}]},
                           expect=422)
        causes = {c["field"]: c["message"] for c in body["details"]["causes"]}
        self.assertEqual(sorted(causes), ["spec.auditAnnotations[0].valueExpression",
                                          "spec.validations[0].expression",
                                          "spec.validations[0].messageExpression",
                                          "spec.variables[0].expression"])
        self.assertEqual(causes["spec.variables[0].expression"],
                         'Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared '
                         "reference to 'params' (in container '')\n | params.x\n | ^")

    def test_deletes_see_the_old_object(self):
        self.namespace("deletes")
        self.policy("deletes", {"matchConstraints": {
            "resourceRules": [configmaps_rule(operations=("DELETE",))],
            "namespaceSelector": {"matchLabels": {"policy-test": "deletes"}}},
            # (Empty labels are not stored: the old object of "gone" has none.)
            "validations": [{"expression": "object == null && "
                                           "!(has(oldObject.metadata.labels) && 'keep' in oldObject.metadata.labels)",
                             "message": "kept"}]})
        self.assertEqual(self.configmap("deletes", "kept", labels={"keep": "1"})[0], 201)
        self.assertEqual(self.configmap("deletes", "gone")[0], 201)
        self.bind("deletes", "deletes")
        deadline = time.monotonic() + 5
        while True:
            status, body = self.server.json("DELETE", "/api/v1/namespaces/deletes/configmaps/kept")
            if status != 200 or time.monotonic() > deadline:
                break
            self.assertEqual(self.configmap("deletes", "kept", labels={"keep": "1"})[0], 201)
            time.sleep(0.05)
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith("denied request: kept"), body)
        self.assertEqual(self.server.json("DELETE", "/api/v1/namespaces/deletes/configmaps/gone")[0], 200)

    def test_match_policy_equivalent_applies_to_an_equivalent_version_seen_as_the_one_named(self):
        stored = self.gadget_policy("equivalent")
        self.assertEqual(stored["spec"]["matchConstraints"]["matchPolicy"], "Equivalent")
        status, body = self.until_gadget_refused("equivalent", "v2")
        self.assertEqual(status, 422, body)
        self.assertEqual(body["details"]["causes"], [{
            "message": "ValidatingAdmissionPolicy 'equivalent' with binding 'equivalent' denied request: "
                       f"object {GADGETS}/v1, kind v1, resource v1, requestKind v2, requestResource v2"}])

    def test_match_policy_equivalent_applies_to_excluded_rules_too(self):
        self.serve_gadgets()
        self.namespace("equivalent-exclude")
        self.policy("equivalent-exclude", {
            "matchConstraints": {"resourceRules": [gadgets_rule("*")],
                                 "excludeResourceRules": [{**gadgets_rule("v1"), "resourceNames": ["spared"]}],
                                 "namespaceSelector": {"matchLabels": {"policy-test": "equivalent-exclude"}}},
            "validations": [{"expression": "false", "message": "no gadgets here"}]})
        self.bind("equivalent-exclude", "equivalent-exclude")
        status, body = self.until_gadget_refused("equivalent-exclude", "v2")
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith("denied request: no gadgets here"), body)
        status, body = self.gadget("equivalent-exclude", "spared", "v2")
        self.assertEqual(status, 201, body)

    def test_match_policy_exact_applies_only_to_the_version_named(self):
        self.gadget_policy("exact", "Exact")
        status, body = self.until_gadget_refused("exact", "v1")
        self.assertEqual(status, 422, body)
        self.assertTrue(body["message"].endswith(
            f"denied request: object {GADGETS}/v1, kind v1, resource v1, requestKind v1, requestResource v1"), body)
        status, body = self.gadget("exact", "through-v2", "v2")
        self.assertEqual(status, 201, body)



class PolicyAuthorizerTest(unittest.TestCase):
    """The authorizer library in policy expressions, answered by the server's RBAC about the
    requester."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-policy-authz-")
        tokens = write_tokens(cls.dir.name, [
            {"token": "admin-token", "user": "admin", "groups": ["system:masters"]},
            {"token": "dev-token", "user": "dev"}])
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC"],
                              secure_port=free_port()).start()
        for path, body in (
                ("/api/v1/namespaces", {"metadata": {"name": "authz"}}),
                ("/apis/rbac.authorization.k8s.io/v1/namespaces/authz/roles", {
                    "metadata": {"name": "configmaps"},
                    "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}]}),
                ("/apis/rbac.authorization.k8s.io/v1/namespaces/authz/rolebindings", {
                    "metadata": {"name": "dev"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                             "name": "configmaps"},
                    "subjects": [{"kind": "User", "name": "dev", "apiGroup": "rbac.authorization.k8s.io"}]}),
                (f"{ADMISSION}/validatingadmissionpolicies", {"metadata": {"name": "secret-readers"}, "spec": {
                    "failurePolicy": "Fail",
                    "matchConstraints": {"resourceRules": [configmaps_rule()]},
                    "variables": [{"name": "reason", "expression": "authorizer.group('').resource('secrets')"
                                                                   ".namespace('authz').check('get').reason()"}],
                    "matchConditions": [{"name": "labelled", "expression": "has(object.metadata.labels) && "
                                                                           "'reads-secrets' in object.metadata.labels"}],
                    "validations": [{
                        "expression": "authorizer.group('').resource('secrets').namespace(object.metadata.namespace)"
                                      ".check('get').allowed()",
                        # (messageExpression has no authorizer, as in kube; a variable may.)
                        "messageExpression": "'only secret readers: ' + variables.reason"},
                        {"expression": "authorizer.requestResource.check('create').allowed()"}]}}),
                (f"{ADMISSION}/validatingadmissionpolicybindings", {"metadata": {"name": "secret-readers"}, "spec": {
                    "policyName": "secret-readers", "validationActions": ["Deny"]}})):
            code, text = https(cls.server.secure_url + path, "admin-token", "POST", body)
            assert code == 201, (path, code, text)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def create(self, token, name):
        code, text = https(f"{self.server.secure_url}/api/v1/namespaces/authz/configmaps", token, "POST",
                           {"metadata": {"name": name, "labels": {"reads-secrets": "yes"}}})
        return code, json.loads(text)

    def test_checks_ask_the_servers_authorizer_about_the_requester(self):
        deadline = time.monotonic() + 5
        while True:
            code, body = self.create("dev-token", f"dev-{time.monotonic_ns()}")
            if code != 201 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(code, 422, body)
        self.assertTrue(body["message"].endswith("denied request: only secret readers:"), body)
        self.assertEqual(self.create("admin-token", "admin-made")[0], 201)
        # Without the label the policy does not apply: the dev may create it.
        code, text = https(f"{self.server.secure_url}/api/v1/namespaces/authz/configmaps", "dev-token", "POST",
                           {"metadata": {"name": "plain"}})
        self.assertEqual(code, 201, text)


if __name__ == "__main__":
    unittest.main()
