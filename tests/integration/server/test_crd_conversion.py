"""CustomResourceDefinitions with several versions and a conversion webhook (ConversionReview v1)
started here: objects are stored at the storage version and served at every served version, on
create, get, list, update and watch; status.storedVersions keeps every version objects were stored
at; a failing webhook and one that changes what it may not change are 500s in kube's words."""
import base64
import http.server
import json
import subprocess
import tempfile
import time
import unittest

from kwtest import KwServer, free_port, https_server, make_tls_files, send_json, stop_https_server
from webhook_peer import colour_converted, colour_definition, colour_schema, conversion_answer

GROUP = "convert.kw.test"
CRD = "widgets." + GROUP


class Converter:
    """v1 spec.color <-> v2 spec.colour; `mode` makes it fail or misbehave."""

    def __init__(self, tls, port):
        self.mode = "ok"
        self.reviews = []
        converter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                converter.reviews.append(review)
                request = review["request"]
                desired = request["desiredAPIVersion"]
                objects = []
                for obj in request["objects"]:
                    obj = colour_converted(obj, desired)
                    obj["metadata"].setdefault("labels", {})["converted-to"] = desired.split("/")[1]
                    if converter.mode == "rename":
                        obj["metadata"]["name"] = "other"
                    objects.append(obj)
                result = None
                if converter.mode == "fail":
                    result = {"status": "Failure", "message": "cannot convert today"}
                send_json(self, 200, conversion_answer(review, objects, result))

            def log_message(self, *args):
                pass

        self.server = https_server(Handler, tls, port)

    def stop(self):
        stop_https_server(self.server)


class CrdConversionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-conversion-")
        cls.tls = make_tls_files(cls.dir.name)
        cls.port = free_port()
        cls.converter = Converter(cls.tls, cls.port)
        cls.server = KwServer()
        cls.server.start()
        with open(cls.tls["ca"], "rb") as f:
            bundle = base64.b64encode(f.read()).decode()
        crd = colour_definition(GROUP, "widget", f"https://127.0.0.1:{cls.port}/convert", bundle)
        status, body = cls.server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        assert status == 201, body
        deadline = time.monotonic() + 10
        while cls.server.json("GET", f"/apis/{GROUP}/v2/widgets")[0] != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.converter.stop()
        cls.dir.cleanup()

    def setUp(self):
        self.converter.mode = "ok"

    def path(self, version, name=""):
        return f"/apis/{GROUP}/{version}/namespaces/default/widgets" + (f"/{name}" if name else "")

    def create_v2(self, name, colour="red"):
        status, body = self.server.json("POST", self.path("v2"), {
            "apiVersion": f"{GROUP}/v2", "kind": "Widget", "metadata": {"name": name}, "spec": {"colour": colour}})
        self.assertEqual(status, 201, body)
        return body

    def test_stored_at_the_storage_version_and_served_at_each(self):
        created = self.create_v2("red-one")
        self.assertEqual(created["apiVersion"], f"{GROUP}/v2")
        self.assertEqual(created["spec"], {"colour": "red"})
        status, v1 = self.server.json("GET", self.path("v1", "red-one"))
        self.assertEqual((status, v1["apiVersion"], v1["spec"]), (200, f"{GROUP}/v1", {"color": "red"}))
        status, v2 = self.server.json("GET", self.path("v2", "red-one"))
        self.assertEqual((status, v2["spec"]), (200, {"colour": "red"}))
        self.assertEqual(v2["metadata"]["uid"], v1["metadata"]["uid"])
        self.assertEqual(v2["metadata"]["labels"]["converted-to"], "v2")
        status, listed = self.server.json("GET", self.path("v2"))
        self.assertEqual(status, 200)
        mine = [i for i in listed["items"] if i["metadata"]["name"] == "red-one"]
        self.assertEqual(mine[0]["spec"], {"colour": "red"})
        desired = {r["request"]["desiredAPIVersion"] for r in self.converter.reviews}
        self.assertEqual(desired, {f"{GROUP}/v1", f"{GROUP}/v2"})

    def test_an_update_at_the_other_version(self):
        self.create_v2("blue-one", "red")
        status, v1 = self.server.json("GET", self.path("v1", "blue-one"))
        v1["spec"]["color"] = "blue"
        status, updated = self.server.json("PUT", self.path("v1", "blue-one"), v1)
        self.assertEqual(status, 200, updated)
        status, v2 = self.server.json("GET", self.path("v2", "blue-one"))
        self.assertEqual(v2["spec"], {"colour": "blue"})

    def test_a_watch_at_the_other_version(self):
        proc = subprocess.Popen(["timeout", "20", "curl", "-sN", self.server.url + self.path("v2") + "?watch=1"],
                                stdout=subprocess.PIPE)
        try:
            time.sleep(0.5)
            status, _ = self.server.json("POST", self.path("v1"), {
                "apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": "watched"},
                "spec": {"color": "green"}})
            self.assertEqual(status, 201)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                event = json.loads(proc.stdout.readline())
                if event["object"]["metadata"]["name"] == "watched":
                    self.assertEqual(event["object"]["apiVersion"], f"{GROUP}/v2")
                    self.assertEqual(event["object"]["spec"], {"colour": "green"})
                    return
            self.fail("no event for the object")
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()

    def test_stored_versions(self):
        status, crd = self.server.json("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{CRD}")
        self.assertEqual(crd["status"]["storedVersions"], ["v1"])

    def test_definition_defaults(self):
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "gadgets." + GROUP},
               "spec": {"group": GROUP, "scope": "Cluster", "names": {"plural": "gadgets", "kind": "Gadget"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": colour_schema("color")}]}}
        status, body = self.server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        self.assertEqual(status, 201, body)
        self.assertEqual(body["spec"]["conversion"], {"strategy": "None"})
        self.assertEqual((body["spec"]["names"]["singular"], body["spec"]["names"]["listKind"]), ("gadget", "GadgetList"))

    def test_a_failing_webhook(self):
        self.create_v2("failing")
        self.converter.mode = "fail"
        status, body = self.server.json("GET", self.path("v2", "failing") + "?resourceVersion=")
        self.assertEqual(status, 500, body)
        self.assertEqual(body["message"], "Internal error occurred: conversion webhook for "
                                          f"{GROUP}/v1, Kind=Widget failed: cannot convert today")

    def test_a_list_with_a_failing_webhook(self):
        self.create_v2("listed-failing")
        self.converter.mode = "fail"
        status, body = self.server.json("GET", self.path("v2") + "?limit=500")
        self.assertEqual(status, 500, body)
        self.assertEqual(body["message"], "Internal error occurred: conversion webhook for "
                                          f"{GROUP}/v1, Kind=WidgetList failed: cannot convert today")

    def test_a_list_is_converted_in_one_review(self):
        for name in ("batch-a", "batch-b", "batch-c"):
            self.create_v2(name)
        time.sleep(0.5)  # the watch caches convert the new objects one by one; not counted below
        self.converter.reviews.clear()
        status, listed = self.server.json("GET", self.path("v2") + "?limit=500")
        self.assertEqual(status, 200, listed)
        names = [i["metadata"]["name"] for i in listed["items"]]
        self.assertTrue({"batch-a", "batch-b", "batch-c"} <= set(names), names)
        self.assertEqual(len(self.converter.reviews), 1, [len(r["request"]["objects"]) for r in self.converter.reviews])
        sent = [o["metadata"]["name"] for o in self.converter.reviews[0]["request"]["objects"]]
        self.assertEqual(sent, names)
        # A bad item is named by its place in the answer, as kube names a list's.
        self.converter.mode = "rename"
        status, body = self.server.json("GET", self.path("v2") + "?limit=500")
        self.assertEqual(status, 500, body)
        self.assertEqual(body["message"], "Internal error occurred: conversion webhook for "
                                          f"{GROUP}/v1, Kind=WidgetList returned invalid converted object at index 1: "
                                          f"must have the same name: {names[0]} != other")

    def test_a_webhook_that_renames(self):
        self.converter.mode = "rename"
        status, body = self.server.json("POST", self.path("v2"), {
            "apiVersion": f"{GROUP}/v2", "kind": "Widget", "metadata": {"name": "renamed"}, "spec": {"colour": "x"}})
        self.assertEqual(status, 500, body)
        self.assertEqual(body["message"], "Internal error occurred: conversion webhook for "
                                          f"{GROUP}/v2, Kind=Widget returned invalid object at index 0: "
                                          "must have the same name: renamed != other")


if __name__ == "__main__":
    unittest.main()
