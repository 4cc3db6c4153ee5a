"""Protobuf on the wire (application/vnd.kubernetes.protobuf), checked by hand-decoding the
frames and by the real protoc against the project's .proto files; server-side fieldValidation."""
import http.client
import json
import os
import struct
import subprocess
import tempfile
import time
import unittest

from kwtest import ServerTestCase, fields, pod

NS = "/api/v1/namespaces/default"
PROTO_DIR = os.path.join(os.path.dirname(__file__), "../../../core/proto")


def unwrap(enveloped):
    assert enveloped[:4] == b"k8s\x00", enveloped[:8]
    unknown = dict(fields(enveloped[4:]))
    type_meta = dict(fields(unknown[1]))
    return type_meta[1].decode(), type_meta[2].decode(), unknown[2]


def protoc_decode(message, raw):
    out = subprocess.run(["timeout", "20", "protoc", f"--decode={message}", "-I", PROTO_DIR,
                          "k8s.io/api/core/v1/generated.proto"], input=raw, capture_output=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode()


class ProtobufTest(ServerTestCase):
    def test_get_and_list_as_protobuf(self):
        self.server.json("POST", NS + "/pods", pod("pb1", labels={"t": "pb"}))
        status, headers, raw = self.server.request("GET", NS + "/pods/pb1",
                                                   headers={"Accept": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/vnd.kubernetes.protobuf")
        api_version, kind, body = unwrap(raw)
        self.assertEqual((api_version, kind), ("v1", "Pod"))
        text = protoc_decode("k8s.io.api.core.v1.Pod", body)
        self.assertIn('name: "pb1"', text)
        self.assertIn('image: "nginx"', text)
        status, _, raw = self.server.request("GET", NS + "/pods?labelSelector=t%3Dpb",
                                             headers={"Accept": "application/vnd.kubernetes.protobuf"})
        _, kind, body = unwrap(raw)
        self.assertEqual(kind, "PodList")
        self.assertIn('name: "pb1"', protoc_decode("k8s.io.api.core.v1.PodList", body))

    def test_objects_served_from_the_stored_bytes_carry_their_resource_version(self):
        # GET at resourceVersion 0, LIST and watch events join the stored protobuf messages,
        # with metadata.resourceVersion set on the wire: each must say what JSON says.
        pb = {"Accept": "application/vnd.kubernetes.protobuf"}
        _, created = self.server.json("POST", NS + "/pods", pod("pbrv", labels={"t": "pbrv"}))
        status, updated = self.server.json("PATCH", NS + "/pods/pbrv", {"metadata": {"labels": {"x": "1"}}},
                                           headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, updated)
        rv = updated["metadata"]["resourceVersion"]
        self.assertNotEqual(rv, created["metadata"]["resourceVersion"])
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", NS + "/pods?watch=1&labelSelector=t%3Dpbrv&resourceVersion=" + rv,
                     headers={"Accept": "application/vnd.kubernetes.protobuf;stream=watch"})
        resp = conn.getresponse()
        for path in ("/pods/pbrv?resourceVersion=0", "/pods/pbrv", "/pods?labelSelector=t%3Dpbrv"):
            # A read at resourceVersion 0 may be served before the cache has the patch, as
            # kube-apiserver's may: wait (bounded) for the cache to reach it.
            for _ in range(100):
                status, _, raw = self.server.request("GET", NS + path, headers=pb)
                self.assertEqual(status, 200, path)
                _, kind, body = unwrap(raw)
                if "resourceVersion=0" not in path or rv.encode() in body:
                    break
                time.sleep(0.05)
            text = protoc_decode("k8s.io.api.core.v1." + kind, body)
            if kind == "PodList":
                text = text.split("items {", 1)[1]  # the item, not the list's own metadata
            self.assertEqual(text.count('resourceVersion: "%s"' % rv), 1, (path, text))
            self.assertIn('value: "1"', text)  # the patched label
        status, _, raw = self.server.request("GET", NS + "/pods/pbrv?resourceVersion=0")
        self.assertEqual(json.loads(raw)["metadata"]["resourceVersion"], rv)
        status, _ = self.server.json("DELETE", NS + "/pods/pbrv?gracePeriodSeconds=0")
        self.assertEqual(status, 200)
        length = struct.unpack(">I", resp.read(4))[0]
        event = dict(fields(resp.read(length)))
        conn.close()
        self.assertEqual(event[1], b"DELETED")
        _, _, body = unwrap(dict(fields(event[2]))[1])
        text = protoc_decode("k8s.io.api.core.v1.Pod", body)
        self.assertNotIn('resourceVersion: "%s"' % rv, text)  # the deletion's own revision
        self.assertEqual(text.count("resourceVersion:"), 1, text)
        self.assertIn('name: "pbrv"', text)

    def test_watch_frames_are_length_prefixed_watch_events(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", NS + "/pods?watch=1&labelSelector=t%3Dpbw",
                     headers={"Accept": "application/vnd.kubernetes.protobuf;stream=watch"})
        resp = conn.getresponse()
        self.assertEqual(resp.getheader("Content-Type"), "application/vnd.kubernetes.protobuf;stream=watch")
        self.server.json("POST", NS + "/pods", pod("pbw", labels={"t": "pbw"}))
        length = struct.unpack(">I", resp.read(4))[0]
        frame = resp.read(length)
        conn.close()
        event = dict(fields(frame))
        self.assertEqual(event[1], b"ADDED")
        raw_extension = dict(fields(event[2]))
        api_version, kind, body = unwrap(raw_extension[1])
        self.assertEqual((api_version, kind), ("v1", "Pod"))
        self.assertIn('name: "pbw"', protoc_decode("k8s.io.api.core.v1.Pod", body))

    def test_protobuf_request_body(self):
        _, _, raw = self.server.request("GET", NS + "/pods/pb1", headers={"Accept": "application/vnd.kubernetes.protobuf"})
        if raw[:4] != b"k8s\x00":
            self.server.json("POST", NS + "/pods", pod("pb1", labels={"t": "pb"}))
            _, _, raw = self.server.request("GET", NS + "/pods/pb1",
                                            headers={"Accept": "application/vnd.kubernetes.protobuf"})
        self.server.json("DELETE", NS + "/pods/pb1")
        status, _, created = self.server.request("POST", NS + "/pods", raw,
                                                 {"Content-Type": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 201, created)
        self.assertEqual(json.loads(created)["metadata"]["name"], "pb1")

    def test_delete_options_in_protobuf_for_any_group_version(self):
        """client-go's typed clients send DeleteOptions as protobuf, typed with the resource's
        own group version (v1, apps/v1): kube-apiserver takes meta's DeleteOptions for them."""
        def envelope(api_version, kind, raw):
            def field(number, payload):
                return bytes([number << 3 | 2, len(payload)]) + payload
            type_meta = field(1, api_version.encode()) + field(2, kind.encode())
            return b"k8s\x00" + field(1, type_meta) + field(2, raw) + b"\x1a\x00\x22\x00"
        body = envelope("v1", "DeleteOptions", b"\x08\x00")  # gracePeriodSeconds: 0
        status, _, _ = self.server.request("POST", "/api/v1/namespaces/default/pods", pod("pb-delete"))
        self.assertEqual(status, 201)
        headers = {"Content-Type": "application/vnd.kubernetes.protobuf", "Accept": "application/json"}
        status, _, raw = self.server.request("DELETE", "/api/v1/namespaces/default/pods/pb-delete", body, headers)
        self.assertEqual(status, 200, raw)
        status, _, _ = self.server.request("GET", "/api/v1/namespaces/default/pods/pb-delete")
        self.assertEqual(status, 404)  # grace period 0: gone at once
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "pb-delete"},
                      "spec": {"selector": {"matchLabels": {"app": "x"}},
                               "template": {"metadata": {"labels": {"app": "x"}},
                                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        status, _, _ = self.server.request("POST", "/apis/apps/v1/namespaces/default/deployments", deployment)
        self.assertEqual(status, 201)
        status, _, raw = self.server.request("DELETE", "/apis/apps/v1/namespaces/default/deployments/pb-delete",
                                             envelope("apps/v1", "DeleteOptions", b""), headers)
        self.assertEqual(status, 200, raw)

    def test_field_validation(self):
        typo = pod("fv")
        typo["spec"]["containers"][0]["imagee"] = "x"
        status, headers, raw = self.server.request("POST", NS + "/pods?fieldValidation=Strict", json.dumps(typo).encode(),
                                                   {"Content-Type": "application/json"})
        self.assertEqual(status, 400)
        self.assertIn('strict decoding error: unknown field "spec.containers[0].imagee"', json.loads(raw)["message"])
        status, headers, raw = self.server.request("POST", NS + "/pods", json.dumps(typo).encode(),
                                                   {"Content-Type": "application/json"})
        self.assertEqual(status, 201)
        self.assertIn('unknown field \\"spec.containers[0].imagee\\"', headers.get("warning", ""))
        self.assertNotIn("imagee", json.loads(raw)["spec"]["containers"][0])
        status, _, _ = self.server.request("POST", NS + "/pods?fieldValidation=Bogus", json.dumps(pod("fv2")).encode(),
                                           {"Content-Type": "application/json"})
        self.assertEqual(status, 422)
        # A repeated member is named too, by its path; one also unknown is named as unknown only.
        spec = json.dumps(pod("fv3")["spec"])
        body = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"fv3"},"spec":' + spec + ',"spec":' + spec + "}"
        status, _, raw = self.server.request("POST", NS + "/pods?fieldValidation=Strict", body.encode(),
                                             {"Content-Type": "application/json"})
        self.assertEqual(status, 400, raw)
        self.assertEqual(json.loads(raw)["message"], 'strict decoding error: duplicate field "spec"')
        twice = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"fv4","labels":{"a":"1","a":"2"}},' \
            '"spec":' + json.dumps(pod("fv4")["spec"]) + "}"
        status, headers, raw = self.server.request("POST", NS + "/pods", twice.encode(),
                                                   {"Content-Type": "application/json"})
        self.assertEqual(status, 201, raw)
        self.assertEqual(headers.get("warning", ""), '299 - "duplicate field \\"metadata.labels.a\\""')
        self.assertEqual(json.loads(raw)["metadata"]["labels"], {"a": "2"})

    def test_discovery_answers_in_protobuf(self):
        """client-go asks for protobuf first (kube-controller-manager's default): every discovery
        document comes back as an enveloped meta.k8s.io message."""
        accept = {"Accept": "application/vnd.kubernetes.protobuf, application/json"}
        for path, kind in (("/api", "APIVersions"), ("/apis", "APIGroupList"), ("/api/v1", "APIResourceList"),
                           ("/apis/apps", "APIGroup"), ("/apis/apps/v1", "APIResourceList")):
            status, headers, raw = self.server.request("GET", path, headers=accept)
            self.assertEqual(status, 200, (path, raw[:200]))
            self.assertEqual(headers["content-type"], "application/vnd.kubernetes.protobuf")
            api_version, got, body = unwrap(raw)
            self.assertEqual((api_version, got), ("v1", kind), path)
            text = protoc_decode_meta("k8s.io.apimachinery.pkg.apis.meta.v1." + kind, body)
            if kind == "APIResourceList":
                self.assertIn('name: "', text)
                self.assertIn("verbs {", text)

    def test_metadata_only_lists_gets_and_watches(self):
        """The metadata informers of the garbage collector: as=PartialObjectMetadata(List), in JSON
        and protobuf, bookmarks included."""
        self.server.json("POST", NS + "/configmaps",
                         {"metadata": {"name": "pom", "labels": {"t": "pom"}}, "data": {"secret": "payload"}})
        status, listed = self.server.json(
            "GET", NS + "/configmaps?labelSelector=t%3Dpom",
            headers={"Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"})
        self.assertEqual(status, 200, listed)
        self.assertEqual((listed["apiVersion"], listed["kind"]), ("meta.k8s.io/v1", "PartialObjectMetadataList"))
        self.assertEqual([i["metadata"]["name"] for i in listed["items"]], ["pom"])
        self.assertEqual(listed["items"][0]["kind"], "PartialObjectMetadata")
        self.assertNotIn("data", listed["items"][0])
        self.assertTrue(listed["metadata"]["resourceVersion"])
        status, got = self.server.json("GET", NS + "/configmaps/pom",
                                       headers={"Accept": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
        self.assertEqual((status, got["kind"], sorted(got)), (200, "PartialObjectMetadata", ["apiVersion", "kind", "metadata"]))
        status, _, raw = self.server.request(
            "GET", NS + "/configmaps?labelSelector=t%3Dpom",
            headers={"Accept": "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
                               "application/json"})
        self.assertEqual(status, 200)
        api_version, kind, body = unwrap(raw)
        self.assertEqual((api_version, kind), ("meta.k8s.io/v1", "PartialObjectMetadataList"))
        text = protoc_decode_meta("k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList", body)
        self.assertIn('name: "pom"', text)
        self.assertNotIn("payload", text)
        # A list may not ask for single objects, nor a get for a list.
        status, _, _ = self.server.request("GET", NS + "/configmaps",
                                           headers={"Accept": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
        self.assertEqual(status, 406)
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", NS + "/configmaps?watch=1&labelSelector=t%3Dpom&allowWatchBookmarks=true"
                                 "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
                     headers={"Accept": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        added = json.loads(resp.readline())
        bookmark = json.loads(resp.readline())
        conn.close()
        self.assertEqual((added["type"], added["object"]["kind"]), ("ADDED", "PartialObjectMetadata"))
        self.assertNotIn("data", added["object"])
        self.assertEqual((bookmark["type"], bookmark["object"]["kind"]), ("BOOKMARK", "PartialObjectMetadata"))
        self.assertEqual(bookmark["object"]["apiVersion"], "meta.k8s.io/v1")
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", NS + "/configmaps?watch=1&labelSelector=t%3Dpom",
                     headers={"Accept": "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
        resp = conn.getresponse()
        self.assertEqual(resp.getheader("Content-Type"), "application/vnd.kubernetes.protobuf;stream=watch")
        length = struct.unpack(">I", resp.read(4))[0]
        event = dict(fields(resp.read(length)))
        conn.close()
        api_version, kind, body = unwrap(dict(fields(event[2]))[1])
        self.assertEqual((event[1], api_version, kind), (b"ADDED", "meta.k8s.io/v1", "PartialObjectMetadata"))


def protoc_decode_meta(message, raw):
    out = subprocess.run(["timeout", "20", "protoc", f"--decode={message}", "-I", PROTO_DIR,
                          "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto"], input=raw, capture_output=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode()


if __name__ == "__main__":
    unittest.main()
