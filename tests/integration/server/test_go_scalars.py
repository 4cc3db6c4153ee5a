"""Plain (non-pointer) scalars of Kubernetes' Go types read back as Go's encoding/json writes them:
a zero value whose JSON tag says omitempty is left out (workingDir "", hostIP "", hostIPC false),
one without omitempty is always there (a ReplicaSet's status.replicas, a Node's nodeInfo and
kubelet port, an Event's reportingComponent). The same holds for bodies sent as protobuf, where Go
clients write every plain scalar. Expected answers were recorded from kube-apiserver v1.23.13."""
import os
import subprocess
import unittest

from kwtest import KwServer

PROTO_DIR = os.path.join(os.path.dirname(__file__), "../../../core/proto")


def envelope(api_version, kind, raw):
    """runtime.Unknown behind kube's "k8s\\0" magic, as client-go sends a protobuf body."""
    def field(number, payload):
        length, out = len(payload), b""
        while True:
            out += bytes([(length & 0x7F) | (0x80 if length > 0x7F else 0)])
            length >>= 7
            if not length:
                break
        return bytes([number << 3 | 2]) + out + payload
    return b"k8s\x00" + field(1, field(1, api_version.encode()) + field(2, kind.encode())) + field(2, raw)

RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs1"},
      "spec": {"replicas": 0, "selector": {"matchLabels": {"a": "b"}},
               "template": {"metadata": {"labels": {"a": "b"}},
                            "spec": {"containers": [{"name": "c", "image": "x", "workingDir": "",
                                                     "ports": [{"containerPort": 80, "hostIP": ""}]}],
                                     "hostIPC": False}}}}


class GoScalarsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = KwServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def create(self, path, body):
        status, created = self.server.json("POST", path, body)
        self.assertEqual(status, 201, created)
        return created

    def test_zero_values_with_omitempty_are_left_out(self):
        rs = self.create("/apis/apps/v1/namespaces/default/replicasets", RS)
        spec = rs["spec"]["template"]["spec"]
        self.assertEqual(spec["containers"][0], {
            "name": "c", "image": "x", "ports": [{"containerPort": 80, "protocol": "TCP"}], "resources": {},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "Always"})
        self.assertNotIn("hostIPC", spec)
        self.assertEqual(rs["metadata"]["generation"], 1)
        status, read = self.server.json("GET", "/apis/apps/v1/namespaces/default/replicasets/rs1")
        self.assertEqual(read["spec"], rs["spec"])

    def test_values_without_omitempty_are_always_there(self):
        self.assertEqual(self.create("/apis/apps/v1/namespaces/default/replicasets",
                                     dict(RS, metadata={"name": "rs2"}))["status"], {"replicas": 0})
        node = self.create("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
        self.assertEqual(node["status"]["daemonEndpoints"], {"kubeletEndpoint": {"Port": 0}})
        self.assertEqual(node["status"]["nodeInfo"], {
            "machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "",
            "containerRuntimeVersion": "", "kubeletVersion": "", "kubeProxyVersion": "", "operatingSystem": "",
            "architecture": ""})
        event = self.create("/api/v1/namespaces/default/events", {
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
            "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "r", "count": 0})
        event.pop("metadata")
        self.assertEqual(event, {
            "kind": "Event", "apiVersion": "v1", "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "r",
            "source": {}, "firstTimestamp": None, "lastTimestamp": None, "eventTime": None,
            "reportingComponent": "", "reportingInstance": ""})

    def test_a_protobuf_body_with_every_plain_scalar_written(self):
        # As a Go client sends it: plain scalars are always on the wire, zero or not.
        text = """
metadata { name: "rs-pb" generateName: "" namespace: "" resourceVersion: "" generation: 0 }
spec {
  replicas: 0 minReadySeconds: 0
  selector { matchLabels { key: "a" value: "b" } }
  template {
    metadata { labels { key: "a" value: "b" } generation: 0 }
    spec {
      containers { name: "c" image: "x" workingDir: "" terminationMessagePath: "" imagePullPolicy: ""
                   ports { containerPort: 80 hostPort: 0 hostIP: "" protocol: "" } stdin: false tty: false }
      hostIPC: false hostNetwork: false hostPID: false nodeName: "" serviceAccountName: ""
    }
  }
}
status { replicas: 0 }
"""
        raw = subprocess.run(["timeout", "20", "protoc", "--encode=k8s.io.api.apps.v1.ReplicaSet", "-I", PROTO_DIR,
                              "k8s.io/api/apps/v1/generated.proto"], input=text.encode(), capture_output=True)
        self.assertEqual(raw.returncode, 0, raw.stderr)
        status, _, body = self.server.request("POST", "/apis/apps/v1/namespaces/default/replicasets",
                                              envelope("apps/v1", "ReplicaSet", raw.stdout),
                                              {"Content-Type": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 201, body)
        status, read = self.server.json("GET", "/apis/apps/v1/namespaces/default/replicasets/rs-pb")
        self.assertEqual(read["metadata"]["generation"], 1)
        self.assertNotIn("generateName", read["metadata"])
        self.assertEqual(read["spec"]["template"]["metadata"], {"labels": {"a": "b"}, "creationTimestamp": None})
        self.assertNotIn("minReadySeconds", read["spec"])
        spec = read["spec"]["template"]["spec"]
        self.assertEqual(spec["containers"][0], {
            "name": "c", "image": "x", "ports": [{"containerPort": 80, "protocol": "TCP"}], "resources": {},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "Always"})
        for absent in ("hostIPC", "hostNetwork", "hostPID", "nodeName", "serviceAccountName"):
            self.assertNotIn(absent, spec)
        self.assertEqual(read["status"], {"replicas": 0})

if __name__ == "__main__":
    unittest.main()
