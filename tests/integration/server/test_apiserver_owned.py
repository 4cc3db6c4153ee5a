"""What kube-apiserver itself does beyond storing objects: pod binding, the access and token
reviews (answered, never stored), deletion propagation finalizers and graceful pod deletion,
and verbs a resource does not serve."""
import json
import unittest

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
