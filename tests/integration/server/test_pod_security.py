"""The PodSecurity admission plugin (on by default, as in kube-apiserver): namespaces'
pod-security.kubernetes.io/ labels select the level pods are held to. enforce refuses pods,
warn answers with a Warning header, both in the words of kube's pod-security-admission
(staging/src/k8s.io/pod-security-admission: its checks' reasons and details, joined in the order
of their IDs, baseline before restricted). Workloads' pod templates are warned about, never
refused. Bad label values are refused on namespaces; raising a namespace's enforce level warns
about the pods already in it. Also through kubectl, which prints the warnings."""
import json
import os
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.request

from kwtest import KwServer, ServerTestCase, wait_for

ENFORCE = "pod-security.kubernetes.io/enforce"
WARN = "pod-security.kubernetes.io/warn"

# A pod as most manifests write it, and one that meets the restricted level.
PLAIN = {"containers": [{"name": "c", "image": "nginx"}]}
HARDENED = {"securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "c", "image": "nginx", "securityContext": {
                "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}}]}
PLAIN_RESTRICTED = ('allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
                    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
                    'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
                    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')


def pod(name, spec, annotations=None):
    meta = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


class Calls:
    """Requests to the test class's server, with the warnings they got."""

    def call(self, method, path, body=None, content_type="application/json"):
        """(code, answer, warnings) of one request."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.server.url + path, data=data, method=method,
                                         headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=20) as r:
                return r.status, json.loads(r.read()), r.headers.get_all("Warning") or []
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read()), e.headers.get_all("Warning") or []

    def namespace(self, name, labels):
        code, answer, _ = self.call("POST", "/api/v1/namespaces", {"metadata": {"name": name, "labels": labels}})
        self.assertEqual(code, 201, answer)

    def create(self, ns, obj, plural="pods", group_version="api/v1"):
        return self.call("POST", f"/{group_version}/namespaces/{ns}/{plural}", obj)

    def assert_refused(self, answer, name, policy, detail):
        self.assertEqual((answer["code"], answer["reason"]), (403, "Forbidden"), answer)
        self.assertEqual(answer["message"], f'pods "{name}" is forbidden: violates PodSecurity "{policy}": {detail}')
        self.assertEqual(answer["details"], {"name": name, "kind": "pods"})


class PodSecurityTest(Calls, ServerTestCase):
    def test_restricted_refuses_a_plain_pod_and_admits_a_hardened_one(self):
        self.namespace("ps-restricted", {ENFORCE: "restricted"})
        code, answer, _ = self.create("ps-restricted", pod("plain", PLAIN))
        self.assertEqual(code, 403)
        self.assert_refused(answer, "plain", "restricted:latest", PLAIN_RESTRICTED)
        code, answer, warnings = self.create("ps-restricted", pod("hardened", HARDENED))
        self.assertEqual(code, 201, answer)
        self.assertEqual(warnings, [])

    def test_baseline_names_every_broken_control_in_order(self):
        self.namespace("ps-baseline", {ENFORCE: "baseline"})
        # (no hostNetwork: 1.33 refuses network sysctls beside it as invalid, before admission)
        spec = {"hostPID": True,
                "securityContext": {"sysctls": [{"name": "net.core.somaxconn", "value": "1024"},
                                                {"name": "kernel.shm_rmid_forced", "value": "1"}],
                                    "seLinuxOptions": {"type": "spc_t", "user": "root"}},
                "volumes": [{"name": "root", "hostPath": {"path": "/"}}, {"name": "etc", "hostPath": {"path": "/etc"}}],
                "containers": [
                    {"name": "a", "image": "x", "ports": [{"containerPort": 80, "hostPort": 80}],
                     "securityContext": {"privileged": True, "capabilities": {"add": ["NET_ADMIN", "CHOWN", "SYS_TIME"]},
                                         "seccompProfile": {"type": "Unconfined"}}},
                    {"name": "b", "image": "x", "ports": [{"containerPort": 8443, "hostPort": 8443}],
                     "securityContext": {"privileged": True}}]}
        code, answer, _ = self.create("ps-baseline", pod("loud", spec))
        self.assertEqual(code, 403)
        self.assert_refused(answer, "loud", "baseline:latest", ", ".join([
            'non-default capabilities (container "a" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)',
            'host namespaces (hostPID=true)',
            'hostPath volumes (volumes "root", "etc")',
            'hostPort (containers "a", "b" use hostPorts 80, 8443)',
            'privileged (containers "a", "b" must not set securityContext.privileged=true)',
            'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)',
            'seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")',
            'forbidden sysctls (net.core.somaxconn)']))

    def test_an_unmasked_proc_mount_needs_its_own_user_namespace_then_baseline_refuses_it(self):
        self.namespace("ps-procmount", {ENFORCE: "baseline"})
        container = {"name": "a", "image": "x", "securityContext": {"procMount": "Unmasked"}}
        code, answer, _ = self.create("ps-procmount", pod("shared-users", {"containers": [container]}))
        self.assertEqual(code, 422)
        self.assertEqual(answer["details"]["causes"], [{
            "reason": "FieldValueInvalid", "field": "spec.containers[0].securityContext.procMount",
            "message": 'Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`'}])
        code, answer, _ = self.create("ps-procmount", pod("own-users", {"hostUsers": False, "containers": [container]}))
        self.assertEqual(code, 403)
        self.assert_refused(answer, "own-users", "baseline:latest",
                            'procMount (container "a" must not set securityContext.procMount to "Unmasked")')

    def test_restricted_replaces_the_baseline_checks_it_tightens(self):
        # hostPath is reported once, as a restricted volume type; capabilities once, as restricted.
        self.namespace("ps-overrides", {ENFORCE: "restricted"})
        spec = json.loads(json.dumps(HARDENED))
        spec["volumes"] = [{"name": "h", "hostPath": {"path": "/tmp"}}, {"name": "n", "nfs": {"server": "s", "path": "/"}}]
        spec["containers"][0]["securityContext"]["capabilities"]["add"] = ["SYS_ADMIN"]
        spec["containers"][0]["securityContext"]["runAsUser"] = 0
        code, answer, _ = self.create("ps-overrides", pod("over", spec))
        self.assertEqual(code, 403)
        self.assert_refused(answer, "over", "restricted:latest", ", ".join([
            'unrestricted capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
            'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")',
            'runAsUser=0 (container "c" must not set runAsUser=0)']))

    def test_a_pinned_version_uses_the_checks_of_that_version(self):
        # runAsUser=0 is a restricted violation from v1.23 on; capabilities from v1.22.
        self.namespace("ps-v121", {ENFORCE: "restricted", ENFORCE + "-version": "v1.21"})
        spec = json.loads(json.dumps(HARDENED))
        del spec["containers"][0]["securityContext"]["capabilities"]
        spec["securityContext"]["runAsUser"] = 0
        code, answer, _ = self.create("ps-v121", pod("old-rules", spec))
        self.assertEqual(code, 201, answer)
        self.namespace("ps-v123", {ENFORCE: "restricted", ENFORCE + "-version": "v1.23"})
        code, answer, _ = self.create("ps-v123", pod("new-rules", spec))
        self.assertEqual(code, 403)
        self.assert_refused(answer, "new-rules", "restricted:v1.23",
                            'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
                            'runAsUser=0 (pod must not set runAsUser=0)')

    def test_warn_admits_with_a_warning(self):
        self.namespace("ps-warn", {WARN: "restricted"})
        code, answer, warnings = self.create("ps-warn", pod("plain", PLAIN))
        self.assertEqual(code, 201, answer)
        quoted = PLAIN_RESTRICTED.replace('"', '\\"')
        self.assertEqual(warnings, [f'299 - "would violate PodSecurity \\"restricted:latest\\": {quoted}"'])

    def test_workloads_are_warned_about_never_refused(self):
        self.namespace("ps-workloads", {ENFORCE: "restricted", WARN: "baseline"})
        template = {"metadata": {"labels": {"app": "w"}},
                    "spec": {"hostNetwork": True, "containers": [{"name": "c", "image": "nginx"}]}}
        deployment = {"metadata": {"name": "w"}, "spec": {"selector": {"matchLabels": {"app": "w"}}, "template": template}}
        code, answer, warnings = self.create("ps-workloads", deployment, "deployments", "apis/apps/v1")
        self.assertEqual(code, 201, answer)
        self.assertEqual(warnings, ['299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostNetwork=true)"'])
        cron = {"metadata": {"name": "cj"}, "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {
            "spec": {"restartPolicy": "Never", "hostPID": True, "containers": [{"name": "c", "image": "busybox"}]}}}}}}
        code, answer, warnings = self.create("ps-workloads", cron, "cronjobs", "apis/batch/v1")
        self.assertEqual(code, 201, answer)
        self.assertEqual(warnings, ['299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostPID=true)"'])
        # Enforce alone does not warn about templates (kube's well-known surprise).
        self.namespace("ps-enforce-only", {ENFORCE: "restricted"})
        code, answer, warnings = self.create("ps-enforce-only", dict(deployment, metadata={"name": "quiet"}),
                                             "deployments", "apis/apps/v1")
        self.assertEqual((code, warnings), (201, []))

    def test_bad_label_values_are_refused_on_namespaces(self):
        code, answer, _ = self.call("POST", "/api/v1/namespaces", {"metadata": {"name": "ps-bad", "labels": {
            ENFORCE: "strict", WARN + "-version": "1.25"}}})
        self.assertEqual(code, 422)
        self.assertEqual(answer["message"], 'Namespace "ps-bad" is invalid: ['
                         'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": '
                         'must be one of privileged, baseline, restricted, '
                         'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.25": '
                         'must be "latest" or "v1.x"]')
        self.assertEqual([c["field"] for c in answer["details"]["causes"]],
                         ["metadata.labels[pod-security.kubernetes.io/enforce]",
                          "metadata.labels[pod-security.kubernetes.io/warn-version]"])

    def test_raising_enforce_warns_about_the_pods_already_there(self):
        self.namespace("ps-raise", {})
        for name in ("web-2", "web-1", "web-3"):
            code, answer, _ = self.create("ps-raise", pod(name, PLAIN))
            self.assertEqual(code, 201, answer)
        code, answer, _ = self.create("ps-raise", pod("host", {"hostIPC": True, "containers": [{"name": "c", "image": "x"}]}))
        self.assertEqual(code, 201, answer)
        # The existing pods are read from the watch cache (kube's plugin reads its informer's).
        self.assertTrue(wait_for(lambda: len(self.call("GET", "/api/v1/namespaces/ps-raise/pods?resourceVersion=0")[1]
                                             ["items"]) == 4))
        code, answer, warnings = self.call("PATCH", "/api/v1/namespaces/ps-raise",
                                           {"metadata": {"labels": {ENFORCE: "restricted"}}},
                                           "application/merge-patch+json")
        self.assertEqual(code, 200, answer)
        self.assertEqual(warnings, [
            '299 - "existing pods in namespace \\"ps-raise\\" violate the new PodSecurity enforce level \\"restricted:latest\\""',
            '299 - "host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"',
            '299 - "web-1 (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"'])
        # Lowering it again, or a change that keeps it, says nothing.
        code, answer, warnings = self.call("PATCH", "/api/v1/namespaces/ps-raise",
                                           {"metadata": {"labels": {ENFORCE: "baseline", "team": "a"}}},
                                           "application/merge-patch+json")
        self.assertEqual((code, warnings), (200, []))
        # (the plugin reads namespaces from the watch cache, as kube's reads its informer's)
        self.assertTrue(wait_for(lambda: self.call("GET", "/api/v1/namespaces/ps-raise?resourceVersion=0")[1]
                                 ["metadata"]["labels"].get("team") == "a"))
        # A pod that breaks the level may still change what the checks do not see (its labels).
        code, answer, _ = self.call("PATCH", "/api/v1/namespaces/ps-raise/pods/host",
                                    {"metadata": {"labels": {"seen": "yes"}}}, "application/merge-patch+json")
        self.assertEqual(code, 200, answer)
        # A new image is a significant update: checked again.
        code, answer, _ = self.call("PATCH", "/api/v1/namespaces/ps-raise/pods/host",
                                    {"spec": {"containers": [{"name": "c", "image": "y"}]}},
                                    "application/strategic-merge-patch+json")
        self.assertEqual(code, 403)
        self.assert_refused(answer, "host", "baseline:latest", "host namespaces (hostIPC=true)")

    def test_kubectl_prints_the_warning_and_the_refusal(self):
        self.namespace("ps-kubectl", {ENFORCE: "baseline", WARN: "restricted"})
        manifest = json.dumps(pod("plain", PLAIN))
        run = subprocess.run(["timeout", "30", "kubectl", f"--server={self.server.url}", "-n", "ps-kubectl",
                              "create", "-f", "-"], input=manifest, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stderr, f'Warning: would violate PodSecurity "restricted:latest": {PLAIN_RESTRICTED}\n')
        privileged = pod("priv", {"containers": [{"name": "c", "image": "x", "securityContext": {"privileged": True}}]})
        run = subprocess.run(["timeout", "30", "kubectl", f"--server={self.server.url}", "-n", "ps-kubectl",
                              "create", "-f", "-"], input=json.dumps(privileged), capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: '
                         'violates PodSecurity "baseline:latest": privileged '
                         '(container "c" must not set securityContext.privileged=true)\n')


class PodSecurityConfigurationTest(Calls, ServerTestCase):
    """--admission-control-config-file: a PodSecurityConfiguration (in its own file, named by
    `path`) sets the levels of namespaces without labels and the exemptions."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-pod-security-")
        with open(os.path.join(cls.dir.name, "pod-security.yaml"), "w") as f:
            f.write("apiVersion: pod-security.admission.config.k8s.io/v1\n"
                    "kind: PodSecurityConfiguration\n"
                    "defaults:\n  enforce: baseline\n  warn: restricted\n  warn-version: latest\n"
                    "exemptions:\n  namespaces: [ps-exempt]\n  runtimeClasses: [trusted]\n")
        cls.config = os.path.join(cls.dir.name, "admission.yaml")
        with open(cls.config, "w") as f:
            f.write("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"
                    "plugins:\n- name: PodSecurity\n  path: pod-security.yaml\n")
        cls.server_args = ("--admission-control-config-file", cls.config)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.dir.cleanup()

    def test_defaults_apply_to_namespaces_without_labels(self):
        self.namespace("ps-default", {})
        code, answer, warnings = self.create("ps-default", pod("plain", PLAIN))
        self.assertEqual(code, 201, answer)
        self.assertEqual(len(warnings), 1)
        self.assertIn('would violate PodSecurity \\"restricted:latest\\"', warnings[0])
        privileged = pod("priv", {"containers": [{"name": "c", "image": "x", "securityContext": {"privileged": True}}]})
        code, answer, _ = self.create("ps-default", privileged)
        self.assertEqual(code, 403)
        self.assert_refused(answer, "priv", "baseline:latest",
                            'privileged (container "c" must not set securityContext.privileged=true)')
        # A label overrides the default.
        self.namespace("ps-labelled", {ENFORCE: "privileged"})
        code, answer, _ = self.create("ps-labelled", privileged)
        self.assertEqual(code, 201, answer)

    def test_exempt_namespaces_and_runtime_classes(self):
        privileged = {"containers": [{"name": "c", "image": "x", "securityContext": {"privileged": True}}]}
        self.namespace("ps-exempt", {})
        code, answer, warnings = self.create("ps-exempt", pod("priv", privileged))
        self.assertEqual((code, warnings), (201, []), answer)
        code, answer, _ = self.call("POST", "/apis/node.k8s.io/v1/runtimeclasses",
                                    {"metadata": {"name": "trusted"}, "handler": "runc"})
        self.assertEqual(code, 201, answer)
        self.namespace("ps-runtime", {})
        code, answer, warnings = self.create("ps-runtime", pod("priv", dict(privileged, runtimeClassName="trusted")))
        self.assertEqual((code, warnings), (201, []), answer)

    def test_a_bad_configuration_stops_the_server(self):
        bad = os.path.join(self.dir.name, "bad.yaml")
        with open(bad, "w") as f:
            f.write("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
                    "- name: PodSecurity\n  configuration:\n"
                    "    apiVersion: pod-security.admission.config.k8s.io/v1\n    kind: PodSecurityConfiguration\n"
                    "    defaults: {enforce: strict}\n")
        server = KwServer(["--admission-control-config-file", bad])
        try:
            with self.assertRaises(RuntimeError) as raised:
                server.start()
            self.assertIn('PodSecurity: invalid PodSecurity configuration: defaults.enforce: Invalid value: "strict": '
                          'must be one of privileged, baseline, restricted', str(raised.exception))
        finally:
            server.cleanup()


if __name__ == "__main__":
    unittest.main()
