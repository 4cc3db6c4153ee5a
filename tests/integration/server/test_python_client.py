"""The official Python client (Debian python3-kubernetes) against kw serve."""
import threading
import time
import unittest

from kubernetes import client, watch
from kubernetes.client.exceptions import ApiException

from kwtest import ServerTestCase


class PythonClientTest(ServerTestCase):
    def setUp(self):
        config = client.Configuration()
        config.host = self.server.url
        self.api = client.ApiClient(config)
        self.core = client.CoreV1Api(self.api)
        self.apps = client.AppsV1Api(self.api)

    def tearDown(self):
        self.api.close()

    def pod(self, name):
        return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels={"app": "py"}),
                            spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")]))

    def test_crud_and_errors(self):
        self.core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
        created = self.core.create_namespaced_pod("py", self.pod("a"))
        self.assertEqual(created.status.phase, "Pending")
        pods = self.core.list_namespaced_pod("py", label_selector="app=py")
        self.assertEqual([p.metadata.name for p in pods.items], ["a"])
        with self.assertRaises(ApiException) as ctx:
            self.core.create_namespaced_pod("py", self.pod("a"))
        self.assertEqual(ctx.exception.status, 409, ctx.exception.body)
        with self.assertRaises(ApiException) as ctx:
            self.core.read_namespaced_pod("missing", "py")
        self.assertEqual(ctx.exception.status, 404)
        dep = client.V1Deployment(
            metadata=client.V1ObjectMeta(name="d"),
            spec=client.V1DeploymentSpec(
                selector=client.V1LabelSelector(match_labels={"app": "d"}),
                template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={"app": "d"}),
                                                  spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="x")]))))
        self.apps.create_namespaced_deployment("py", dep)
        self.assertEqual(self.apps.read_namespaced_deployment("d", "py").spec.template.spec.containers[0].image, "x")

    def test_watch_stream_and_resume(self):
        self.core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="pyw")))
        listed = self.core.list_namespaced_pod("pyw")
        rv = listed.metadata.resource_version
        seen = []

        def writer():
            time.sleep(0.5)
            self.core.create_namespaced_pod("pyw", self.pod("w1"))
            self.core.patch_namespaced_pod("w1", "pyw", {"metadata": {"labels": {"x": "1"}}})
            self.core.delete_namespaced_pod("w1", "pyw")

        t = threading.Thread(target=writer)
        t.start()
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_pod, "pyw", resource_version=rv, timeout_seconds=10):
            seen.append((event["type"], event["object"].metadata.name, event["object"].metadata.resource_version))
            if len(seen) == 3:
                w.stop()
        t.join()
        self.assertEqual([s[:2] for s in seen], [("ADDED", "w1"), ("MODIFIED", "w1"), ("DELETED", "w1")])
        # Resuming from the first event's version replays exactly what came after it.
        resumed = []
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_pod, "pyw", resource_version=seen[0][2], timeout_seconds=3):
            resumed.append((event["type"], event["object"].metadata.name))
            if len(resumed) == 2:
                w.stop()
        self.assertEqual(resumed, [("MODIFIED", "w1"), ("DELETED", "w1")])


if __name__ == "__main__":
    unittest.main()
