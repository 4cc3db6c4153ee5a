"""REST semantics of kw serve: status codes, Status bodies, concurrency, selectors, paging, patches."""
import http.client
import json
import time
import unittest

from kwtest import ServerTestCase, pod

NS = "/api/v1/namespaces/default"


class RestTest(ServerTestCase):
    def test_create_sets_server_fields_and_duplicates_conflict(self):
        status, body = self.server.json("POST", NS + "/configmaps",
                                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}})
        self.assertEqual(status, 201)
        meta = body["metadata"]
        self.assertTrue(meta["uid"] and meta["resourceVersion"] and meta["creationTimestamp"])
        self.assertEqual(meta["namespace"], "default")
        status, body = self.server.json("POST", NS + "/configmaps", {"metadata": {"name": "c1"}})
        self.assertEqual(status, 409)
        self.assertEqual((body["kind"], body["reason"], body["code"]), ("Status", "AlreadyExists", 409))

    def test_get_missing_is_404_status(self):
        status, body = self.server.json("GET", NS + "/pods/nope")
        self.assertEqual(status, 404)
        self.assertEqual(body["reason"], "NotFound")
        self.assertEqual(body["message"], 'pods "nope" not found')
        self.assertEqual(body["details"], {"name": "nope", "kind": "pods"})

    def test_stale_resource_version_conflicts(self):
        _, created = self.server.json("POST", NS + "/configmaps", {"metadata": {"name": "cas"}, "data": {"v": "1"}})
        first = dict(created, data={"v": "2"})
        status, updated = self.server.json("PUT", NS + "/configmaps/cas", first)
        self.assertEqual(status, 200)
        self.assertNotEqual(updated["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"])
        stale = dict(created, data={"v": "3"})
        status, body = self.server.json("PUT", NS + "/configmaps/cas", stale)
        self.assertEqual(status, 409)
        self.assertEqual(body["reason"], "Conflict")

    def test_invalid_objects_are_422_with_field_paths(self):
        status, body = self.server.json("POST", NS + "/pods", pod("Bad_Name"))
        self.assertEqual(status, 422)
        self.assertEqual(body["reason"], "Invalid")
        self.assertEqual(body["details"]["causes"][0]["field"], "metadata.name")
        no_containers = pod("ok")
        no_containers["spec"]["containers"] = []
        status, body = self.server.json("POST", NS + "/pods", no_containers)
        self.assertEqual(status, 422)
        self.assertEqual(body["details"]["causes"][0]["field"], "spec.containers")
        status, body = self.server.json("POST", NS + "/pods", pod("badlabel", labels={"a": "-x-"}))
        self.assertEqual(status, 422)

    def test_malformed_body_and_unknown_paths(self):
        status, _, raw = self.server.request("POST", NS + "/pods", b"{not json", {"Content-Type": "application/json"})
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(raw)["kind"], "Status")
        status, body = self.server.json("GET", "/api/v1/widgets")
        self.assertEqual(status, 404)
        self.assertEqual(body["kind"], "Status")
        status, body = self.server.json("GET", NS + "/pods?labelSelector=a%20in%20(")
        self.assertEqual(status, 400)
        status, body = self.server.json("GET", NS + "/pods?fieldSelector=spec.bogus%3Dx")
        self.assertEqual(status, 400)
        self.assertIn("field label not supported", body["message"])

    def test_missing_namespace_is_refused(self):
        status, body = self.server.json("POST", "/api/v1/namespaces/ghost/configmaps", {"metadata": {"name": "x"}})
        self.assertEqual(status, 404)
        self.assertIn('namespaces "ghost" not found', body["message"])

    def test_generate_name_and_dry_run(self):
        status, body = self.server.json("POST", NS + "/configmaps?dryRun=All", {"metadata": {"name": "dry"}})
        self.assertEqual(status, 201)
        status, _ = self.server.json("GET", NS + "/configmaps/dry")
        self.assertEqual(status, 404)
        status, body = self.server.json("POST", NS + "/configmaps", {"metadata": {"generateName": "gen-"}})
        self.assertEqual(status, 201)
        self.assertRegex(body["metadata"]["name"], r"^gen-[a-z0-9]{5}$")
        name = body["metadata"]["name"]
        # Wrongly typed metadata is a 400 naming the field; null means absent.
        status, typed = self.server.json("POST", NS + "/configmaps", {"metadata": {"name": 5}})
        self.assertEqual(status, 400)
        self.assertIn("metadata.name: expected a string", typed["message"])
        status, typed = self.server.json("POST", NS + "/configmaps",
                                         {"metadata": {"name": None, "generateName": "nul-", "labels": None}})
        self.assertEqual(status, 201)
        status, typed = self.server.json("POST", NS + "/configmaps", {"kind": 7, "metadata": {"name": "k"}})
        self.assertEqual(status, 400)
        # DeleteOptions.dryRun in the body (as kubectl sends it) deletes nothing.
        status, _ = self.server.json("DELETE", NS + "/configmaps/" + name,
                                     {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]})
        self.assertEqual(status, 200)
        status, _ = self.server.json("GET", NS + "/configmaps/" + name)
        self.assertEqual(status, 200)
        status, body = self.server.json("DELETE", NS + "/configmaps/" + name,
                                        {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["Maybe"]})
        self.assertEqual(status, 422)
        self.assertEqual(body["message"], 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: '
                                          '[]string{"Maybe"}: supported values: "All"')

    def test_pagination_and_selectors(self):
        self.server.json("POST", "/api/v1/namespaces", {"metadata": {"name": "paging"}})
        base = "/api/v1/namespaces/paging/pods"
        for i in range(5):
            status, _ = self.server.json("POST", base, pod(f"p{i}", labels={"odd": str(i % 2)}, node=f"n{i % 2}"))
            self.assertEqual(status, 201)
        # A pod created after the first page is not in the pages (they read one revision), and
        # each page's remainingItemCount says how many of that revision's pods are left.
        names, token, pages, remaining = [], "", 0, []
        while True:
            status, body = self.server.json("GET", base + "?limit=2" + (f"&continue={token}" if token else ""))
            self.assertEqual(status, 200)
            names += [p["metadata"]["name"] for p in body["items"]]
            pages += 1
            token = body["metadata"].get("continue", "")
            remaining.append(body["metadata"].get("remainingItemCount"))
            if pages == 1:
                self.server.json("POST", base, pod("p9", labels={"odd": "late"}))
            if not token:
                break
        self.assertEqual(names, [f"p{i}" for i in range(5)])
        self.assertEqual(pages, 3)
        self.assertEqual(remaining, [3, 1, None])
        # A filtered list says nothing of what remains (kube-apiserver cannot know it either).
        _, body = self.server.json("GET", base + "?limit=1&labelSelector=odd%3D0")
        self.assertIn("continue", body["metadata"])
        self.assertNotIn("remainingItemCount", body["metadata"])
        self.server.json("DELETE", base + "/p9")
        _, body = self.server.json("GET", base + "?labelSelector=odd%3D1")
        self.assertEqual([p["metadata"]["name"] for p in body["items"]], ["p1", "p3"])
        _, body = self.server.json("GET", base + "?fieldSelector=spec.nodeName%3Dn0,metadata.name!%3Dp0")
        self.assertEqual([p["metadata"]["name"] for p in body["items"]], ["p2", "p4"])
        status, body = self.server.json("GET", base + "?continue=garbage&limit=1")
        self.assertEqual(status, 400)

    def test_patches(self):
        self.server.json("POST", NS + "/pods", pod("patched", labels={"a": "1"}))
        status, body = self.server.json("PATCH", NS + "/pods/patched", {"metadata": {"labels": {"b": "2", "a": None}}},
                                        {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200)
        self.assertEqual(body["metadata"]["labels"], {"b": "2"})
        status, body = self.server.json("PATCH", NS + "/pods/patched",
                                        [{"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:2"}],
                                        {"Content-Type": "application/json-patch+json"})
        self.assertEqual(status, 200)
        self.assertEqual(body["spec"]["containers"][0]["image"], "nginx:2")
        # A pod's containers are fixed once it exists (ValidatePodUpdate)...
        sidecar = {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}]}}
        status, body = self.server.json("PATCH", NS + "/pods/patched", sidecar,
                                        {"Content-Type": "application/strategic-merge-patch+json"})
        self.assertEqual(status, 422)
        self.assertEqual(body["details"]["causes"][0]["message"],
                         "Forbidden: pod updates may not add or remove containers")
        # ...a pod template's are not.
        template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "patched"},
                    "template": {"spec": pod("unused")["spec"]}}
        self.server.json("POST", NS + "/podtemplates", template)
        status, body = self.server.json("PATCH", NS + "/podtemplates/patched", {"template": sidecar},
                                        {"Content-Type": "application/strategic-merge-patch+json"})
        self.assertEqual(status, 200)
        # As kube-apiserver merges it: a new item not placed after an existing one goes first.
        self.assertEqual([c["name"] for c in body["template"]["spec"]["containers"]], ["sidecar", "c"])
        status, _ = self.server.json("PATCH", NS + "/pods/patched", {"x": 1}, {"Content-Type": "text/plain"})
        self.assertEqual(status, 415)

    def test_status_subresource_only_changes_status(self):
        _, created = self.server.json("POST", NS + "/pods", pod("st"))
        changed = json.loads(json.dumps(created))
        changed["status"] = {"phase": "Running"}
        changed["spec"]["containers"][0]["image"] = "ignored"
        status, body = self.server.json("PUT", NS + "/pods/st/status", changed)
        self.assertEqual(status, 200)
        self.assertEqual(body["status"]["phase"], "Running")
        self.assertEqual(body["spec"]["containers"][0]["image"], "nginx")
        changed = dict(body, status={"phase": "Failed"})
        status, body = self.server.json("PUT", NS + "/pods/st", changed)
        self.assertEqual(body["status"]["phase"], "Running")  # the main resource keeps status

    def test_status_writes_keep_the_metadata_each_kind_allows(self):
        """A Deployment's status strategy keeps annotation changes and resets labels (the
        deployment controller writes both); a spec change through /status is ignored."""
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "sd", "labels": {"a": "1"}},
                      "spec": {"selector": {"matchLabels": {"app": "sd"}},
                               "template": {"metadata": {"labels": {"app": "sd"}},
                                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        path = "/apis/apps/v1/namespaces/default/deployments"
        _, created = self.server.json("POST", path, deployment)
        changed = json.loads(json.dumps(created))
        changed["metadata"]["annotations"] = {"deployment.kubernetes.io/revision": "1"}
        changed["metadata"]["labels"] = {"a": "2"}
        changed["spec"]["replicas"] = 7
        changed["status"] = {"observedGeneration": 1, "replicas": 1}
        status, body = self.server.json("PUT", path + "/sd/status", changed)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"]["annotations"], {"deployment.kubernetes.io/revision": "1"})
        self.assertEqual(body["metadata"]["labels"], {"a": "1"})
        self.assertEqual(body["spec"], created["spec"])
        self.assertEqual(body["status"]["replicas"], 1)
        self.assertEqual(body["metadata"]["generation"], created["metadata"]["generation"])

    def test_delete_preconditions_and_namespace_cascade(self):
        self.server.json("POST", "/api/v1/namespaces", {"metadata": {"name": "doomed"}})
        self.server.json("POST", "/api/v1/namespaces/doomed/configmaps", {"metadata": {"name": "a"}})
        status, body = self.server.json("DELETE", "/api/v1/namespaces/doomed/configmaps/a",
                                        {"preconditions": {"uid": "wrong"}})
        self.assertEqual(status, 409)
        status, body = self.server.json("DELETE", "/api/v1/namespaces/doomed")
        self.assertEqual(status, 200)
        self.assertEqual(body["status"]["phase"], "Terminating")
        # Terminating: no new content, existing objects still readable and deletable for a
        # moment, then the namespace controller's work removes contents and namespace.
        status, _ = self.server.json("POST", "/api/v1/namespaces/doomed/configmaps", {"metadata": {"name": "b"}})
        self.assertEqual(status, 403)
        status, _ = self.server.json("GET", "/api/v1/namespaces/doomed/configmaps/a")
        self.assertEqual(status, 200)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status, _ = self.server.json("GET", "/api/v1/namespaces/doomed")
            if status == 404:
                break
            time.sleep(0.1)
        self.assertEqual(status, 404)
        status, _ = self.server.json("GET", "/api/v1/namespaces/doomed/configmaps/a")
        self.assertEqual(status, 404)

    def test_table_and_yaml_output(self):
        self.server.json("POST", NS + "/pods", pod("tabled"))
        status, headers, raw = self.server.request(
            "GET", NS + "/pods/tabled", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        table = json.loads(raw)
        self.assertEqual(table["kind"], "Table")
        self.assertEqual([c["name"] for c in table["columnDefinitions"]][:5],
                         ["Name", "Ready", "Status", "Restarts", "Age"])
        self.assertEqual(table["rows"][0]["cells"][:4], ["tabled", "0/1", "Pending", "0"])
        self.assertEqual(table["rows"][0]["object"]["kind"], "PartialObjectMetadata")
        status, headers, raw = self.server.request("GET", NS + "/pods/tabled", headers={"Accept": "application/yaml"})
        self.assertEqual(status, 200)
        self.assertIn("name: tabled", raw.decode())
        status, _, _ = self.server.request("GET", NS + "/pods/tabled", headers={"Accept": "image/png"})
        self.assertEqual(status, 406)

    def test_status_and_scale_subresources_answer_tables(self):
        # kube-apiserver 1.24+: a status subresource in its resource's columns, a Scale in its own.
        table_accept = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"}
        self.server.json("POST", NS + "/pods", pod("sub"))
        status, _, raw = self.server.request("GET", NS + "/pods/sub/status", headers=table_accept)
        table = json.loads(raw)
        self.assertEqual((status, table["kind"]), (200, "Table"))
        self.assertEqual([c["name"] for c in table["columnDefinitions"]][:3], ["Name", "Ready", "Status"])
        self.assertEqual(table["rows"][0]["cells"][:3], ["sub", "0/1", "Pending"])
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "scaled"},
                      "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "s"}},
                               "template": {"metadata": {"labels": {"app": "s"}},
                                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        apps = "/apis/apps/v1/namespaces/" + NS.rsplit("/", 1)[-1]
        self.assertEqual(self.server.json("POST", apps + "/deployments", deployment)[0], 201)
        status, _, raw = self.server.request("GET", apps + "/deployments/scaled/scale", headers=table_accept)
        table = json.loads(raw)
        self.assertEqual((status, table["kind"]), (200, "Table"))
        self.assertEqual([c["name"] for c in table["columnDefinitions"]], ["Name", "Desired", "Available", "Age"])
        self.assertEqual(table["rows"][0]["cells"][:3], ["scaled", 3, 0])
        # Without a Table in Accept the Scale itself comes back.
        status, scale = self.server.json("GET", apps + "/deployments/scaled/scale")
        self.assertEqual((status, scale["kind"]), (200, "Scale"))

    def test_keepalive_request_body_arriving_after_its_headers(self):
        # Regression: a read outstanding while the previous request's bytes were consumed made
        # the connection re-parse stale bytes, answering a POST with the last GET's response.
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        for i in range(60):
            body = json.dumps({"metadata": {"name": f"ka{i}"}}).encode()
            conn.putrequest("POST", NS + "/configmaps")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
            if i % 2:
                time.sleep(0.002)
            conn.send(body)
            resp = conn.getresponse()
            self.assertEqual((resp.status, json.loads(resp.read())["metadata"]["name"]), (201, f"ka{i}"))
            conn.request("GET", NS + f"/configmaps?labelSelector=x%3D{i}")
            resp = conn.getresponse()
            self.assertEqual((resp.status, json.loads(resp.read())["kind"]), (200, "ConfigMapList"))
        conn.close()

    def test_discovery_and_health(self):
        _, body = self.server.json("GET", "/api")
        self.assertEqual(body["versions"], ["v1"])
        _, body = self.server.json("GET", "/apis")
        self.assertIn("apps", [g["name"] for g in body["groups"]])
        _, body = self.server.json("GET", "/apis/apps/v1")
        self.assertIn("deployments", [r["name"] for r in body["resources"]])
        _, body = self.server.json("GET", "/version")
        self.assertEqual(body["major"], "1")
        for path in ["/healthz", "/livez", "/readyz"]:
            status, _, raw = self.server.request("GET", path)
            self.assertEqual((status, raw), (200, b"ok"))
        status, _, raw = self.server.request("GET", "/metrics")
        self.assertIn(b"apiserver_request_total", raw)


if __name__ == "__main__":
    unittest.main()
