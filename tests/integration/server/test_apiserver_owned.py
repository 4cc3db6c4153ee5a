"""What kube-apiserver itself does beyond storing objects: pod binding, the access and token
reviews (answered, never stored), deletion propagation finalizers and graceful pod deletion,
and verbs a resource does not serve."""
import http.client
import json
import os
import time
import unittest

import yaml

from kwtest import ServerTestCase, pod

NS = "/api/v1/namespaces/default"


class BindingTest(ServerTestCase):
    def test_binding_assigns_the_pod_once(self):
        self.server.json("POST", NS + "/pods", pod("bind-me"))
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bind-me", "annotations": {"a": "b"}},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}
        status, body = self.server.json("POST", NS + "/pods/bind-me/binding", binding)
        self.assertEqual(status, 201, body)
        self.assertEqual((body["kind"], body["status"]), ("Status", "Success"))
        _, bound = self.server.json("GET", NS + "/pods/bind-me")
        self.assertEqual(bound["spec"]["nodeName"], "node-1")
        self.assertEqual(bound["metadata"]["annotations"], {"a": "b"})
        scheduled = [c for c in bound["status"]["conditions"] if c["type"] == "PodScheduled"]
        self.assertEqual(scheduled[0]["status"], "True")
        status, body = self.server.json("POST", NS + "/bindings", dict(binding, target={"kind": "Node", "name": "n2"}))
        self.assertEqual(status, 409, body)
        self.assertIn('is already assigned to node "node-1"', body["message"])
        status, body = self.server.json("POST", NS + "/bindings",
                                        dict(binding, metadata={"name": "missing"}))
        self.assertEqual(status, 404, body)
        status, body = self.server.json("GET", NS + "/bindings")
        self.assertEqual(status, 405, body)
        # The pod the URL names is the one the body names, as kube's binding store checks.
        self.server.json("POST", NS + "/pods", pod("other"))
        status, body = self.server.json("POST", NS + "/pods/other/binding", binding)
        self.assertEqual(status, 400, body)
        self.assertEqual(body["message"], "name in URL does not match name in Binding object")


class EvictionTest(ServerTestCase):
    PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

    def running_pod(self, name, labels):
        status, body = self.server.json("POST", NS + "/pods", pod(name, labels=labels, node="node-1"))
        self.assertEqual(status, 201, body)
        body["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        status, body = self.server.json("PUT", NS + "/pods/" + name + "/status", body)
        self.assertEqual(status, 200, body)

    def budget(self, name, app, allowed):
        status, body = self.server.json("POST", self.PDBS, {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": app}}}})
        self.assertEqual(status, 201, body)
        body["status"] = {"observedGeneration": body["metadata"]["generation"], "disruptionsAllowed": allowed,
                          "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2}
        status, body = self.server.json("PUT", self.PDBS + "/" + name + "/status", body)
        self.assertEqual(status, 200, body)

    def evict(self, name, body_name=None):
        return self.server.json("POST", NS + "/pods/" + name + "/eviction", {
            "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": body_name or name}})

    def test_eviction_respects_the_disruption_budget(self):
        self.running_pod("guarded", {"app": "guarded"})
        self.budget("guard", "guarded", 0)
        status, body = self.evict("guarded")
        self.assertEqual(status, 429, body)
        self.assertEqual(body["message"], "Cannot evict pod as it would violate the pod's disruption budget.")
        self.assertEqual(body["details"]["causes"],
                         [{"reason": "DisruptionBudget",
                           "message": "The disruption budget guard needs 2 healthy pods and has 2 currently"}])
        self.running_pod("free", {"app": "free"})
        self.budget("free-budget", "free", 1)
        status, body = self.evict("free")
        self.assertEqual(status, 201, body)
        self.assertEqual((body["kind"], body["status"], body["code"]), ("Status", "Success", 201))
        _, evicted = self.server.json("GET", NS + "/pods/free")
        self.assertIn("deletionTimestamp", evicted["metadata"])
        target = [c for c in evicted["status"]["conditions"] if c["type"] == "DisruptionTarget"]
        self.assertEqual((target[0]["reason"], target[0]["message"]), ("EvictionByEvictionAPI", "Eviction API: evicting"))
        _, budget = self.server.json("GET", self.PDBS + "/free-budget")
        self.assertEqual(budget["status"]["disruptionsAllowed"], 0)
        self.assertIn("free", budget["status"]["disruptedPods"])
        status, body = self.evict("free", body_name="other")
        self.assertEqual(status, 400, body)
        self.assertEqual(body["message"], "name in URL does not match name in Eviction object")
        self.assertEqual(self.evict("missing")[0], 404)

    def test_pods_that_are_not_running_go_without_a_budget(self):
        status, body = self.server.json("POST", NS + "/pods", pod("pending", labels={"app": "pending"}))
        self.assertEqual(status, 201, body)
        self.budget("pending-guard", "pending", 0)
        status, body = self.evict("pending")
        self.assertEqual(status, 201, body)
        # Never scheduled: deleted at once.
        self.assertEqual(self.server.json("GET", NS + "/pods/pending")[0], 404)

    def test_discovery_names_the_eviction_kind(self):
        _, resources = self.server.json("GET", "/api/v1")
        entry = [r for r in resources["resources"] if r["name"] == "pods/eviction"][0]
        self.assertEqual((entry.get("group"), entry["version"], entry["kind"], entry["verbs"]),
                         ("policy", "v1", "Eviction", ["create"]))


class NamespaceFinalizeTest(ServerTestCase):
    def test_finalizers_hold_a_terminating_namespace(self):
        status, ns = self.server.json("POST", "/api/v1/namespaces", {
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "held"},
            "spec": {"finalizers": ["example.com/hold"]}})
        self.assertEqual(status, 201, ns)
        self.assertEqual(ns["metadata"]["labels"], {"kubernetes.io/metadata.name": "held"})
        self.assertEqual(ns["spec"]["finalizers"], ["example.com/hold", "kubernetes"])
        # A plain update cannot change them; /finalize checks their names.
        ns["spec"]["finalizers"] = []
        ns["metadata"]["labels"] = {}
        status, updated = self.server.json("PUT", "/api/v1/namespaces/held", ns)
        self.assertEqual(status, 200, updated)
        self.assertEqual(updated["spec"]["finalizers"], ["example.com/hold", "kubernetes"])
        self.assertEqual(updated["metadata"]["labels"], {"kubernetes.io/metadata.name": "held"})
        updated["spec"]["finalizers"] = ["plain"]
        status, refused = self.server.json("PUT", "/api/v1/namespaces/held/finalize", updated)
        self.assertEqual(status, 422, refused)
        self.assertIn('spec.finalizers: Invalid value: "plain": name is neither a standard finalizer name nor is '
                      "it fully qualified", refused["message"])
        # Deleted: emptied and the "kubernetes" finalizer taken off, but held by the other one.
        self.assertEqual(self.server.json("DELETE", "/api/v1/namespaces/held")[0], 200)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            _, now = self.server.json("GET", "/api/v1/namespaces/held")
            if now["spec"].get("finalizers") == ["example.com/hold"]:
                break
            time.sleep(0.2)
        self.assertEqual(now["spec"].get("finalizers"), ["example.com/hold"])
        self.assertEqual(now["status"]["phase"], "Terminating")
        now["spec"]["finalizers"] = []
        status, body = self.server.json("PUT", "/api/v1/namespaces/held/finalize", now)
        self.assertEqual(status, 200, body)
        self.assertEqual(self.server.json("GET", "/api/v1/namespaces/held")[0], 404)


class CertificateSigningRequestTest(ServerTestCase):
    CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"

    def csr(self, name):
        with open(os.path.join(os.path.dirname(__file__),
                               "../../conformance/samples/certificates.k8s.io.v1.CertificateSigningRequest.yaml")) as f:
            body = yaml.safe_load(f)
        body["metadata"] = {"name": name}
        body["spec"]["username"] = "someone-else"
        status, created = self.server.json("POST", self.CSRS, body)
        self.assertEqual(status, 201, created)
        return created

    def test_requester_is_recorded_and_kubectl_approves(self):
        created = self.csr("approve-me")
        self.assertEqual(created["spec"]["username"], "system:unsecured")
        self.assertIn("system:masters", created["spec"]["groups"])
        self.assertEqual(created["status"], {})
        out = self.server.kubectl("certificate", "approve", "approve-me")
        self.assertIn("certificatesigningrequest.certificates.k8s.io/approve-me approved", out.stdout)
        _, approved = self.server.json("GET", self.CSRS + "/approve-me")
        condition = approved["status"]["conditions"][0]
        self.assertEqual((condition["type"], condition["status"], condition["reason"]), ("Approved", "True", "KubectlApprove"))
        self.assertIn("lastTransitionTime", condition)
        self.assertEqual(approved["spec"]["username"], "system:unsecured")
        # Approval cannot be taken back, nor given through /status.
        approved["status"]["conditions"] = []
        status, body = self.server.json("PUT", self.CSRS + "/approve-me/approval", approved)
        self.assertEqual(status, 422, body)
        self.assertIn('status.conditions: Forbidden: updates may not remove a condition of type "Approved"', body["message"])
        other = self.csr("status-only")
        other["status"] = {"conditions": [{"type": "Approved", "status": "True", "reason": "Sneaky"}]}
        status, body = self.server.json("PUT", self.CSRS + "/status-only/status", other)
        self.assertEqual(status, 422, body)
        self.assertIn('updates may not add a condition of type "Approved"', body["message"])
        out = self.server.kubectl("certificate", "deny", "status-only")
        self.assertIn("denied", out.stdout)
        _, denied = self.server.json("GET", self.CSRS + "/status-only")
        self.assertEqual([c["type"] for c in denied["status"]["conditions"]], ["Denied"])
        # A main-resource update changes metadata only.
        denied["spec"]["usages"] = ["server auth"]
        denied["status"]["conditions"] = []
        denied["metadata"]["labels"] = {"seen": "yes"}
        status, body = self.server.json("PUT", self.CSRS + "/status-only", denied)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["spec"]["usages"], ["digital signature", "client auth"])
        self.assertEqual([c["type"] for c in body["status"]["conditions"]], ["Denied"])
        self.assertEqual(body["metadata"]["labels"], {"seen": "yes"})


class EphemeralContainersTest(ServerTestCase):
    def test_kubectl_debug_adds_an_ephemeral_container(self):
        status, body = self.server.json("POST", NS + "/pods", pod("debug-me", node="node-1"))
        self.assertEqual(status, 201, body)
        self.server.kubectl("debug", "debug-me", "--image=busybox", "--container=debugger", "--target=c")
        _, debugged = self.server.json("GET", NS + "/pods/debug-me/ephemeralcontainers")
        ephemeral = debugged["spec"]["ephemeralContainers"]
        self.assertEqual([(c["name"], c["image"], c["targetContainerName"]) for c in ephemeral],
                         [("debugger", "busybox", "c")])
        self.assertEqual(ephemeral[0]["terminationMessagePolicy"], "File")  # defaulted like any container
        # Only added: removing or changing one is refused, and nothing else of the pod changes.
        debugged["spec"]["ephemeralContainers"] = []
        status, body = self.server.json("PUT", NS + "/pods/debug-me/ephemeralcontainers", debugged)
        self.assertEqual(status, 422, body)
        self.assertIn('spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be '
                      "removed", body["message"])
        _, current = self.server.json("GET", NS + "/pods/debug-me")
        current["spec"]["ephemeralContainers"].append({"name": "second", "image": "busybox", "ports": [{"containerPort": 80}]})
        status, body = self.server.json("PUT", NS + "/pods/debug-me/ephemeralcontainers", current)
        self.assertEqual(status, 422, body)
        self.assertIn("spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container",
                      body["message"])
        current["spec"]["ephemeralContainers"][1] = {"name": "c", "image": "busybox"}
        current["spec"]["nodeName"] = "elsewhere"
        status, body = self.server.json("PUT", NS + "/pods/debug-me/ephemeralcontainers", current)
        self.assertEqual(status, 422, body)
        self.assertIn('spec.ephemeralContainers[1].name: Duplicate value: "c"', body["message"])
        current["spec"]["ephemeralContainers"][1] = {"name": "third", "image": "busybox"}
        status, body = self.server.json("PUT", NS + "/pods/debug-me/ephemeralcontainers", current)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["spec"]["nodeName"], "node-1")
        self.assertEqual(len(body["spec"]["ephemeralContainers"]), 2)


class WriteSemanticsTest(ServerTestCase):
    def test_a_write_that_changes_nothing_is_not_a_write(self):
        status, created = self.server.json("POST", NS + "/configmaps", {"metadata": {"name": "same"}, "data": {"a": "1"}})
        self.assertEqual(status, 201, created)
        rv = created["metadata"]["resourceVersion"]
        status, put = self.server.json("PUT", NS + "/configmaps/same", created)
        self.assertEqual((status, put["metadata"]["resourceVersion"]), (200, rv))
        for content_type in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
            status, patched = self.server.json("PATCH", NS + "/configmaps/same", {}, {"Content-Type": content_type})
            self.assertEqual((status, patched["metadata"]["resourceVersion"]), (200, rv))
        # No watch event either: the next event after rv is the real change.
        self.server.json("PATCH", NS + "/configmaps/same", {"data": {"a": "2"}},
                         {"Content-Type": "application/merge-patch+json"})
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", NS + "/configmaps?watch=1&resourceVersion=" + rv + "&timeoutSeconds=1")
        events = [json.loads(line) for line in conn.getresponse().read().splitlines() if line.strip()]
        conn.close()
        self.assertEqual([(e["type"], e["object"]["data"]["a"]) for e in events], [("MODIFIED", "2")])

    def test_status_sent_on_create_is_the_servers(self):
        body = pod("born-running")
        body["status"] = {"phase": "Running", "podIP": "10.1.2.3"}
        status, created = self.server.json("POST", NS + "/pods", body)
        self.assertEqual(status, 201, created)
        self.assertEqual(created["status"], {"phase": "Pending", "qosClass": "BestEffort"})
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "fresh"},
                      "spec": {"selector": {"matchLabels": {"app": "x"}},
                               "template": {"metadata": {"labels": {"app": "x"}},
                                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
                      "status": {"replicas": 5, "readyReplicas": 5}}
        status, created = self.server.json("POST", "/apis/apps/v1/namespaces/default/deployments", deployment)
        self.assertEqual(status, 201, created)
        self.assertNotIn("replicas", created.get("status", {}))

    def test_delete_options_from_the_query(self):
        status, body = self.server.json("POST", NS + "/pods", pod("quick", node="node-1"))
        self.assertEqual(status, 201, body)
        status, _, _ = self.server.request("DELETE", NS + "/pods/quick?gracePeriodSeconds=0")
        self.assertEqual(status, 200)
        self.assertEqual(self.server.json("GET", NS + "/pods/quick")[0], 404)


class ReviewTest(ServerTestCase):
    def test_access_reviews_are_answered_not_stored(self):
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                  "spec": {"resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}}}
        status, body = self.server.json("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review)
        self.assertEqual(status, 201, body)
        self.assertTrue(body["status"]["allowed"])
        self.assertIsNone(body["metadata"]["creationTimestamp"])
        status, body = self.server.json("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        self.assertEqual(status, 405, body)
        status, body = self.server.json("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                        {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                                         "spec": {"user": "jane"}})
        self.assertEqual(status, 422, body)
        status, body = self.server.json("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                        {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
        self.assertEqual(status, 201, body)
        self.assertIn("username", body["status"]["userInfo"])
        status, body = self.server.json("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                                        {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                         "spec": {"token": "not-a-token"}})
        self.assertEqual(status, 201, body)
        self.assertFalse(body["status"].get("authenticated", False))
        status, _, _ = self.server.request(
            "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json.dumps(review).encode(),
            {"Content-Type": "application/json", "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        self.assertEqual(status, 406)


class DeletionTest(ServerTestCase):
    def configmap(self, name, finalizers=None):
        meta = {"name": name}
        if finalizers:
            meta["finalizers"] = finalizers
        status, body = self.server.json("POST", NS + "/configmaps", {"metadata": meta})
        self.assertEqual(status, 201, body)

    def test_propagation_policy_sets_the_collectors_finalizers(self):
        for name, policy, finalizer in (("fg", "Foreground", "foregroundDeletion"), ("or", "Orphan", "orphan")):
            self.configmap(name)
            status, body = self.server.json("DELETE", NS + "/configmaps/" + name,
                                            {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": policy})
            self.assertEqual(status, 200, body)
            self.assertEqual(body["metadata"]["finalizers"], [finalizer])
            self.assertIn("deletionTimestamp", body["metadata"])
            self.assertEqual(body["metadata"]["deletionGracePeriodSeconds"], 0)
            # The collector removes its finalizer and the object goes.
            body["metadata"]["finalizers"] = []
            status, body = self.server.json("PUT", NS + "/configmaps/" + name, body)
            self.assertEqual(status, 200, body)
            status, _ = self.server.json("GET", NS + "/configmaps/" + name)
            self.assertEqual(status, 404, name)
        self.configmap("bg")
        status, _ = self.server.json("DELETE", NS + "/configmaps/bg", {"propagationPolicy": "Background"})
        self.assertEqual(status, 200)
        self.assertEqual(self.server.json("GET", NS + "/configmaps/bg")[0], 404)
        self.configmap("bad")
        status, body = self.server.json("DELETE", NS + "/configmaps/bad", {"propagationPolicy": "Sometimes"})
        self.assertEqual(status, 422, body)
        self.assertIn('supported values: "Foreground", "Background", "Orphan"', body["message"])
        status, body = self.server.json("DELETE", NS + "/configmaps/bad",
                                        {"propagationPolicy": "Orphan", "orphanDependents": True})
        self.assertEqual(status, 422, body)

    def test_an_object_with_finalizers_waits_for_them(self):
        self.configmap("held", ["example.com/hold"])
        status, body = self.server.json("DELETE", NS + "/configmaps/held")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"]["finalizers"], ["example.com/hold"])
        rv = body["metadata"]["resourceVersion"]
        # A second delete changes nothing while the deletion is pending.
        status, again = self.server.json("DELETE", NS + "/configmaps/held", {"propagationPolicy": "Foreground"})
        self.assertEqual((status, again["metadata"]["resourceVersion"]), (200, rv))
        self.assertEqual(again["metadata"]["finalizers"], ["example.com/hold"])

    def test_scheduled_pods_are_deleted_gracefully(self):
        self.server.json("POST", NS + "/pods", pod("graceful", node="node-1"))
        status, body = self.server.json("DELETE", NS + "/pods/graceful")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"]["deletionGracePeriodSeconds"], 30)
        status, body = self.server.json("DELETE", NS + "/pods/graceful", {"gracePeriodSeconds": 5})
        self.assertEqual(body["metadata"]["deletionGracePeriodSeconds"], 5)
        status, body = self.server.json("DELETE", NS + "/pods/graceful", {"gracePeriodSeconds": 0})
        self.assertEqual(status, 200, body)
        self.assertEqual(self.server.json("GET", NS + "/pods/graceful")[0], 404)
        # A pod no node runs goes at once.
        self.server.json("POST", NS + "/pods", pod("pending"))
        self.server.json("DELETE", NS + "/pods/pending")
        self.assertEqual(self.server.json("GET", NS + "/pods/pending")[0], 404)


class BootstrapTest(ServerTestCase):
    def test_the_objects_every_cluster_has(self):
        for path, names in (("/api/v1/namespaces", {"default", "kube-system", "kube-public", "kube-node-lease"}),
                            ("/apis/scheduling.k8s.io/v1/priorityclasses", {"system-node-critical", "system-cluster-critical"}),
                            ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", {"exempt", "catch-all"}),
                            ("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", {"exempt", "catch-all"})):
            status, listed = self.server.json("GET", path)
            self.assertEqual(status, 200, listed)
            self.assertLessEqual(names, {item["metadata"]["name"] for item in listed["items"]}, path)
        _, critical = self.server.json("GET", "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical")
        self.assertEqual((critical["value"], critical["preemptionPolicy"]), (2000001000, "PreemptLowerPriority"))
        _, exempt = self.server.json("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt")
        self.assertEqual(exempt["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"], "true")
        self.assertEqual(exempt["spec"]["priorityLevelConfiguration"]["name"], "exempt")


if __name__ == "__main__":
    unittest.main()
