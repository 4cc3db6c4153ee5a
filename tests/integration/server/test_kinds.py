"""The kind conformance suite: every resource kw serves, driven by its discovery, a sample
object per kind (tests/conformance/samples/) and what kube-apiserver answers for it
(tests/conformance/kinds.json). For each kind, on the embedded store and on a real etcd:
create, get, list with label and field selectors, update, merge and strategic patch,
watch in JSON and protobuf, the Table columns, a protobuf round trip that reads back field
for field, the etcd key and stored envelope, the OpenAPI schema and `kubectl explain`, the
discovery row, and delete. A served resource without a sample or an expectation fails."""
import http.client
import json
import os
import struct
import subprocess
import unittest

import yaml

from kwtest import EtcdServer, KwServer, fields

HERE = os.path.dirname(__file__)
CONFORMANCE = os.path.join(HERE, "../../conformance")
NAMESPACE = "conformance"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
PROTOBUF = "application/vnd.kubernetes.protobuf"


def load_expectations():
    with open(os.path.join(CONFORMANCE, "kinds.json")) as f:
        expected = json.load(f)
    expected.pop("_comment", None)
    return expected


def sample_path(api_version, kind):
    return os.path.join(CONFORMANCE, "samples", f"{api_version.replace('/', '.')}.{kind}.yaml")


def group_path(api_version):
    return "/api/v1" if api_version == "v1" else f"/apis/{api_version}"


def length_fields(data):
    """Top-level length-delimited fields of a protobuf message: {number: bytes} (first of each)."""
    out = {}
    for number, value in fields(data):
        out.setdefault(number, value)
    return out


def envelope_type(enveloped):
    """(apiVersion, kind) of a "k8s\\0" + runtime.Unknown value."""
    assert enveloped[:4] == b"k8s\x00", enveloped[:16]
    type_meta = length_fields(length_fields(enveloped[4:])[1])
    return type_meta[1].decode(), type_meta[2].decode()


class KindConformance:
    """One pass of the suite over every served resource, against one running server."""

    def __init__(self, test, server, etcd=None, explain=False):
        self.t = test
        self.server = server
        self.etcd = etcd
        self.explain = explain
        self.expected = load_expectations()

    # --- discovery ---------------------------------------------------------------------------
    def served(self):
        """{"pods": row, "apps/deployments": row, ...} for every top-level resource served."""
        out = {}
        versions = ["v1"]
        status, groups = self.server.json("GET", "/apis")
        self.t.assertEqual(status, 200)
        for group in groups["groups"]:
            versions += [v["groupVersion"] for v in group["versions"]]
        for api_version in versions:
            status, doc = self.server.json("GET", group_path(api_version))
            self.t.assertEqual(status, 200, api_version)
            group = api_version.rpartition("/")[0]
            for row in doc["resources"]:
                if "/" in row["name"]:
                    continue
                key = f"{group}/{row['name']}" if group else row["name"]
                if key in out:  # a group's later (not preferred) version
                    key = f"{api_version}/{row['name']}"
                out[key] = dict(row, groupVersion=api_version)
        return out

    def run(self):
        served = self.served()
        missing = sorted(set(served) - set(self.expected))
        self.t.assertEqual(missing, [], "served resources without an entry in tests/conformance/kinds.json")
        no_sample = [r for r in served if not os.path.exists(sample_path(served[r]["groupVersion"], served[r]["kind"]))]
        self.t.assertEqual(no_sample, [], "served resources without a sample in tests/conformance/samples/")
        self.t.assertEqual(sorted(set(self.expected) - set(served)), [], "expected resources that are not served")
        status, _ = self.server.json("POST", "/api/v1/namespaces",
                                     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        self.t.assertIn(status, (201, 409))
        for resource in sorted(served):
            with self.t.subTest(resource=resource, store="etcd" if self.etcd else "embedded"):
                KindCase(self, resource, served[resource], self.expected[resource]).run()


class KindCase:
    """The checks for one resource."""

    def __init__(self, suite, resource, row, expected):
        self.t = suite.t
        self.suite = suite
        self.server = suite.server
        self.row = row
        self.expected = expected
        self.plural = resource.rpartition("/")[2]
        self.api_version = expected["version"]
        with open(sample_path(self.api_version, expected["kind"])) as f:
            self.sample = yaml.safe_load(f)
        self.verbs = expected.get("verbs", ["create", "delete", "deletecollection", "get", "list", "patch", "update",
                                            "watch"])
        self.name = self.sample.get("metadata", {}).get("name", "")
        if "update" in self.verbs:
            self.sample["metadata"]["labels"] = {"conformance": "yes"}
        # Labels the server adds itself (a Namespace's kubernetes.io/metadata.name).
        self.labels = {"conformance": "yes"}
        self.labels.update({k: v.format(name=self.name) for k, v in expected.get("addedLabels", {}).items()})
        self.namespaced = expected["namespaced"]
        base = group_path(self.api_version)
        self.collection = f"{base}/namespaces/{NAMESPACE}/{self.plural}" if self.namespaced else f"{base}/{self.plural}"
        self.item = f"{self.collection}/{self.name}"

    def run(self):
        self.check_discovery()
        if "update" not in self.verbs:
            return self.run_limited()
        created = self.create()
        self.check_get_and_list()
        updated = self.update()
        before_patch = updated["metadata"]["resourceVersion"]
        self.patch()
        self.check_watch(before_patch)
        self.check_table()
        if self.expected["protobuf"]:
            self.check_protobuf_round_trip()
        if self.suite.etcd:
            self.check_storage(created)
        self.check_openapi()
        self.delete()

    def check_discovery(self):
        row, want = self.row, self.expected
        self.t.assertEqual(row["kind"], want["kind"])
        self.t.assertEqual(row["namespaced"], want["namespaced"])
        self.t.assertEqual(sorted(row.get("shortNames", [])), sorted(want["shortNames"]))
        self.t.assertEqual(sorted(row["verbs"]), sorted(self.verbs))

    def run_limited(self):
        """Kinds that are answered rather than stored: the reviews and Binding (create only),
        ComponentStatus (get and list). Every other verb is 405."""
        if "create" in self.verbs:
            if self.expected["kind"] == "Binding":
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": self.name},
                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
                pods = f"{self.collection.rpartition('/')[0]}/pods"
                self.t.assertEqual(self.server.json("POST", pods, pod)[0], 201)
            status, body = self.server.json("POST", self.collection, self.sample)
            self.t.assertEqual(status, 201, body)
            if self.expected["kind"] == "Binding":
                self.t.assertEqual((body["kind"], body["status"]), ("Status", "Success"))
                _, bound = self.server.json("GET", f"{self.collection.rpartition('/')[0]}/pods/{self.name}")
                self.t.assertEqual(bound["spec"]["nodeName"], self.sample["target"]["name"])
                self.server.json("DELETE", f"{self.collection.rpartition('/')[0]}/pods/{self.name}",
                                 {"gracePeriodSeconds": 0})
            else:
                self.t.assertEqual((body["kind"], body["apiVersion"]), (self.expected["kind"], self.api_version))
                self.t.assertIn("status", body)
        if "list" in self.verbs:
            status, listed = self.server.json("GET", self.collection)
            self.t.assertEqual(status, 200, listed)
            self.t.assertEqual(listed["kind"], self.expected["kind"] + "List")
            self.t.assertTrue(listed["items"])
            status, table = self.server.json("GET", self.collection, headers={"Accept": TABLE})
            self.t.assertEqual(status, 200, table)
            self.t.assertEqual([c["name"] for c in table["columnDefinitions"]], self.expected["columns"])
            if self.name:
                status, body = self.server.json("GET", self.item)
                self.t.assertEqual(status, 200, body)
        for verb, method in (("list", "GET"), ("create", "POST")):
            if verb not in self.verbs:
                status, body = self.server.json(method, self.collection, self.sample if method == "POST" else None)
                self.t.assertEqual(status, 405, (verb, body))

    def create(self):
        status, body = self.server.json("POST", self.collection, self.sample)
        self.t.assertEqual(status, 201, body)
        self.t.assertEqual(body["kind"], self.expected["kind"])
        self.t.assertEqual(body["apiVersion"], self.api_version)
        self.t.assertEqual(body["metadata"]["name"], self.name)
        self.t.assertTrue(body["metadata"]["uid"])
        # Only the kinds whose strategy keeps a generation have one.
        if self.expected.get("generation"):
            self.t.assertEqual(body["metadata"].get("generation"), 1)
        else:
            self.t.assertNotIn("generation", body["metadata"])
        return body

    def check_get_and_list(self):
        status, body = self.server.json("GET", self.item)
        self.t.assertEqual(status, 200, body)
        self.t.assertEqual(body["metadata"]["labels"], self.labels)
        for query, count in (("labelSelector=conformance%3Dyes", 1), ("labelSelector=conformance%3Dno", 0),
                             (f"fieldSelector=metadata.name%3D{self.name}", 1),
                             ("fieldSelector=metadata.name%3Dnone", 0)):
            status, listed = self.server.json("GET", f"{self.collection}?{query}")
            self.t.assertEqual(status, 200, listed)
            self.t.assertEqual(listed["kind"], self.expected["kind"] + "List")
            names = [item["metadata"]["name"] for item in listed["items"]]
            self.t.assertEqual(names.count(self.name), count, query)

    def update(self):
        # The server's controllers may write the object meanwhile (a quota's status): a 409 is
        # answered as clients answer it, by reading again.
        for _ in range(5):
            _, current = self.server.json("GET", self.item)
            current["metadata"].setdefault("annotations", {})["conformance/updated"] = "true"
            status, body = self.server.json("PUT", self.item, current)
            if status != 409:
                break
        self.t.assertEqual(status, 200, body)
        self.t.assertEqual(body["metadata"]["annotations"]["conformance/updated"], "true")
        self.t.assertNotEqual(body["metadata"]["resourceVersion"], current["metadata"]["resourceVersion"])
        return body

    def patch(self):
        for content_type, value in (("application/merge-patch+json", "merge"),
                                    ("application/strategic-merge-patch+json", "strategic")):
            status, body = self.server.json("PATCH", self.item, {"metadata": {"labels": {"patched": value}}},
                                            {"Content-Type": content_type})
            self.t.assertEqual(status, 200, body)
            self.t.assertEqual(body["metadata"]["labels"], dict(self.labels, patched=value))

    def watch(self, accept, resource_version):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", f"{self.collection}?watch=1&resourceVersion={resource_version}"
                            f"&fieldSelector=metadata.name%3D{self.name}&timeoutSeconds=5", headers={"Accept": accept})
        return conn, conn.getresponse()

    def check_watch(self, resource_version):
        conn, resp = self.watch("application/json", resource_version)
        try:
            self.t.assertEqual(resp.status, 200)
            event = json.loads(resp.readline())
            self.t.assertEqual(event["type"], "MODIFIED")
            self.t.assertEqual(event["object"]["metadata"]["name"], self.name)
            self.t.assertEqual(event["object"]["kind"], self.expected["kind"])
        finally:
            conn.close()
        if not self.expected["protobuf"]:
            return
        conn, resp = self.watch(PROTOBUF + ";stream=watch", resource_version)
        try:
            self.t.assertEqual(resp.status, 200)
            (length,) = struct.unpack(">I", resp.read(4))
            event = length_fields(resp.read(length))
            self.t.assertEqual(event[1], b"MODIFIED")
            raw = length_fields(event[2])[1]
            self.t.assertEqual(envelope_type(raw), (self.api_version, self.expected["kind"]))
            self.t.assertIn(self.name.encode(), raw)
        finally:
            conn.close()

    def check_table(self):
        status, table = self.server.json("GET", self.item, headers={"Accept": TABLE})
        self.t.assertEqual(status, 200, table)
        self.t.assertEqual(table["kind"], "Table")
        columns = [c["name"] for c in table["columnDefinitions"]]
        self.t.assertEqual(columns, self.expected["columns"])
        self.t.assertEqual(len(table["rows"]), 1)
        self.t.assertEqual(len(table["rows"][0]["cells"]), self.expected.get("cells", len(columns)))
        self.t.assertIn(self.name, table["rows"][0]["cells"])

    def check_protobuf_round_trip(self):
        _, before = self.server.json("GET", self.item)
        status, _, raw = self.server.request("GET", self.item, headers={"Accept": PROTOBUF})
        self.t.assertEqual(status, 200)
        self.t.assertEqual(envelope_type(raw), (self.api_version, self.expected["kind"]))
        status, _, answer = self.server.request("PUT", self.item, raw,
                                                {"Content-Type": PROTOBUF, "Accept": "application/json"})
        self.t.assertEqual(status, 200, answer)
        _, after = self.server.json("GET", self.item)
        for obj in (before, after):
            obj["metadata"].pop("resourceVersion")
        self.t.assertEqual(after, before)

    def check_storage(self, created):
        prefix = "/registry/" + self.expected["storage"] + "/"
        key = prefix + (f"{NAMESPACE}/{self.name}" if self.namespaced else self.name)
        out = subprocess.run(["timeout", "10", "etcdctl", f"--endpoints={self.suite.etcd.url}", "get", key,
                              "--print-value-only"], capture_output=True, env={"ETCDCTL_API": "3"})
        self.t.assertEqual(out.returncode, 0, out.stderr)
        value = out.stdout.rstrip(b"\n")
        self.t.assertTrue(value, f"nothing stored at {key}")
        if self.expected.get("storedProtobuf", self.expected["protobuf"]):
            stored_as = self.expected.get("storedAs", self.api_version)
            self.t.assertEqual(envelope_type(value), (stored_as, self.expected["kind"]))
        else:
            stored = json.loads(value)
            self.t.assertEqual(stored["metadata"]["uid"], created["metadata"]["uid"])

    def check_openapi(self):
        status, doc = self.server.json("GET", "/openapi/v3/" + group_path(self.api_version).lstrip("/"))
        self.t.assertEqual(status, 200)
        group, _, version = self.api_version.rpartition("/")
        gvk = {"group": group, "version": version, "kind": self.expected["kind"]}
        found = [s for s in doc["components"]["schemas"].values()
                 if gvk in s.get("x-kubernetes-group-version-kind", [])]
        self.t.assertEqual(len(found), 1, gvk)
        self.t.assertIn("metadata", found[0]["properties"])
        if self.suite.explain:
            out = self.server.kubectl("explain", self.plural, f"--api-version={self.api_version}", check=False)
            self.t.assertEqual(out.returncode, 0, out.stderr)
            self.t.assertIn(f"KIND:       {self.expected['kind']}", out.stdout)

    def delete(self):
        status, body = self.server.json("DELETE", self.item)
        self.t.assertEqual(status, 200, body)
        status, body = self.server.json("GET", self.item)
        if status == 200:  # a namespace is Terminating until its contents are gone
            self.t.assertIn("deletionTimestamp", body["metadata"])
        else:
            self.t.assertEqual(status, 404, body)


class KindConformanceTest(unittest.TestCase):
    def test_every_kind_on_the_embedded_store(self):
        with KwServer() as server:
            KindConformance(self, server, explain=True).run()

    def test_every_kind_on_etcd(self):
        with EtcdServer() as etcd, KwServer([f"--etcd={etcd.url}"]) as server:
            KindConformance(self, server, etcd=etcd).run()

    def test_the_samples_and_expectations_agree(self):
        expected = load_expectations()
        samples = os.listdir(os.path.join(CONFORMANCE, "samples"))
        wanted = sorted(f"{e['version'].replace('/', '.')}.{e['kind']}.yaml" for e in expected.values())
        self.assertEqual(sorted(samples), wanted)


if __name__ == "__main__":
    unittest.main()
