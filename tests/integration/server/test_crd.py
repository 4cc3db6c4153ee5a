"""CustomResourceDefinitions end to end: the real kubectl applies a CRD to kw serve (embedded
store), waits for Established, and uses the new resource: tables with the printer columns,
short names, categories, validation, pruning, patches, watch; deleting the CRD removes its
objects and stops serving it; a restart serves stored CRDs again."""
import json
import os
import re
import subprocess
import tempfile
import time
import unittest

from kwtest import Background, KwServer, ServerTestCase, fields, kubectl_requests, wait_for

GROUP = "stable.example.com"

CRD = f"""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.{GROUP}
spec:
  group: {GROUP}
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {{}}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Image
      type: string
      priority: 1
      jsonPath: .spec.image
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [cronSpec]
            properties:
              cronSpec:
                type: string
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){{4}}$'
              image:
                type: string
                maxLength: 40
              replicas:
                type: integer
                minimum: 1
                maximum: 10
              mode:
                type: string
                enum: [Fast, Slow]
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              ready:
                type: boolean
              replicas:
                type: integer
              selector:
                type: string
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""

CLUSTER_CRD = f"""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: regions.{GROUP}
spec:
  group: {GROUP}
  scope: Cluster
  names: {{plural: regions, kind: Region}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {{type: object, properties: {{zone: {{type: string}}}}}}
"""


def header(headers, name):
    return next((v for k, v in headers.items() if k.lower() == name.lower()), "")


def crontab(name, **spec):
    spec.setdefault("cronSpec", "* * * * */5")
    return {"apiVersion": f"{GROUP}/v1", "kind": "CronTab", "metadata": {"name": name}, "spec": spec}


class CrdCase(ServerTestCase):
    """A kw serve with the CronTab CRD applied by kubectl and Established."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp(prefix="kw-crd-")
        cls.apply_text(CRD)
        cls.server.kubectl("wait", "--for=condition=Established", f"crd/crontabs.{GROUP}", "--timeout=20s")

    @classmethod
    def apply_text(cls, text, *args, check=True):
        path = os.path.join(cls.tmp, f"doc-{time.monotonic_ns()}.yaml")
        with open(path, "w") as f:
            f.write(text)
        return cls.server.kubectl("apply", "-f", path, *args, check=check)

    @classmethod
    def apply_object(cls, obj, *args, check=True):
        return cls.apply_text(json.dumps(obj), *args, check=check)


class CustomResourceTest(CrdCase):
    def test_crd_status_established(self):
        crd = json.loads(self.server.kubectl("get", "crd", f"crontabs.{GROUP}", "-o", "json").stdout)
        conditions = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
        self.assertEqual(conditions["Established"], "True")
        self.assertEqual(conditions["NamesAccepted"], "True")
        self.assertEqual(crd["status"]["acceptedNames"]["shortNames"], ["ct"])
        self.assertEqual(crd["status"]["storedVersions"], ["v1"])

    def test_discovery_and_api_resources(self):
        status, groups = self.server.json("GET", "/apis")
        self.assertEqual(status, 200)
        group = next(g for g in groups["groups"] if g["name"] == GROUP)
        self.assertEqual([v["version"] for v in group["versions"]], ["v1", "v1beta1"])
        status, resources = self.server.json("GET", f"/apis/{GROUP}/v1")
        self.assertEqual(status, 200)
        entry = next(r for r in resources["resources"] if r["name"] == "crontabs")
        self.assertEqual(entry["kind"], "CronTab")
        self.assertEqual(entry["shortNames"], ["ct"])
        self.assertEqual(entry["categories"], ["all"])
        self.assertTrue(entry["namespaced"])
        self.assertIn("crontabs/status", [r["name"] for r in resources["resources"]])
        self.assertEqual(self.server.json("GET", f"/apis/{GROUP}")[0], 200)
        out = self.server.kubectl("api-resources", f"--api-group={GROUP}", "--no-headers").stdout.splitlines()
        self.assertIn(["crontabs", "ct", f"{GROUP}/v1", "true", "CronTab"], [line.split() for line in out])

    def test_explain_uses_the_crd_schema(self):
        out = self.server.kubectl("explain", "crontabs.spec").stdout
        for field in ("cronSpec", "replicas", "mode"):
            self.assertIn(field, out)

    def test_table_short_name_category_and_yaml(self):
        self.apply_object(crontab("table-a", replicas=2, image="busybox"))
        out = self.server.kubectl("get", "crontabs").stdout.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "SPEC", "REPLICAS", "AGE"])
        row = next(line for line in out if line.startswith("table-a "))
        self.assertEqual(row.split()[1:7], ["*", "*", "*", "*", "*/5", "2"])
        wide = self.server.kubectl("get", "ct", "table-a", "-o", "wide").stdout.splitlines()
        self.assertEqual(wide[0].split(), ["NAME", "SPEC", "REPLICAS", "IMAGE", "AGE"])
        self.assertIn("busybox", wide[1].split())
        everything = self.server.kubectl("get", "all").stdout
        self.assertIn(f"crontab.{GROUP}/table-a", everything)
        doc = self.server.kubectl("get", "ct", "table-a", "-o", "yaml").stdout
        self.assertIn(f"apiVersion: {GROUP}/v1", doc)
        self.assertIn("kind: CronTab", doc)
        self.assertIn("replicas: 2", doc)

    def test_invalid_object_reports_field_paths(self):
        res = self.apply_object(crontab("bad", replicas=100, mode="Medium"), check=False)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn('The CronTab "bad" is invalid', res.stderr)
        self.assertIn("spec.replicas: Invalid value: 100: spec.replicas in body should be less than or equal to 10",
                      res.stderr)
        self.assertIn('spec.mode: Unsupported value: "Medium"', res.stderr)
        status, body = self.server.json("POST", f"/apis/{GROUP}/v1/namespaces/default/crontabs",
                                        {"apiVersion": f"{GROUP}/v1", "kind": "CronTab",
                                         "metadata": {"name": "bad2"}, "spec": {"replicas": "two"}})
        self.assertEqual(status, 422)
        fields = sorted(c["field"] for c in body["details"]["causes"])
        self.assertEqual(fields, ["spec.cronSpec", "spec.replicas"])
        self.assertEqual(self.server.json("GET", f"/apis/{GROUP}/v1/namespaces/default/crontabs/bad")[0], 404)

    def test_unknown_fields_pruned_warned_or_refused(self):
        obj = crontab("pruned", bogus="x", extra={"free": {"form": 1}})
        obj["status"] = {"ready": True, "junk": 1}
        res = self.apply_object(obj, "--validate=strict", check=False)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn('unknown field "spec.bogus"', res.stderr)
        res = self.apply_object(obj, "--validate=warn")
        self.assertIn('unknown field "spec.bogus"', res.stderr)
        got = json.loads(self.server.kubectl("get", "ct", "pruned", "-o", "json").stdout)
        self.assertNotIn("bogus", got["spec"])
        self.assertEqual(got["spec"]["extra"], {"free": {"form": 1}})
        self.assertNotIn("status", got)  # the status subresource owns status
        path = f"/apis/{GROUP}/v1/namespaces/default/crontabs"
        status, headers, raw = self.server.request("POST", path + "?fieldValidation=Strict",
                                                   crontab("strict", nope=1))
        self.assertEqual(status, 400)
        self.assertIn('strict decoding error: unknown field \\"spec.nope\\"', raw.decode())
        repeated = json.dumps(crontab("repeated")).replace('"spec": {', '"spec": {"nope": 1, "nope": 2, ', 1)
        status, headers, raw = self.server.request("POST", path + "?fieldValidation=Strict", repeated.encode())
        self.assertEqual(status, 400, raw)
        self.assertEqual(json.loads(raw)["message"],
                         'strict decoding error: duplicate field "spec.nope", unknown field "spec.nope"')
        status, headers, raw = self.server.request("POST", path + "?fieldValidation=Warn", crontab("warned", nope=1))
        self.assertEqual(status, 201)
        self.assertIn('unknown field \\"spec.nope\\"', header(headers, "Warning"))
        self.assertNotIn("nope", json.loads(raw)["spec"])

    def test_patches_and_status_subresource(self):
        self.apply_object(crontab("patched", replicas=1))
        self.server.kubectl("patch", "ct", "patched", "--type=merge", "-p", '{"spec":{"replicas":3}}')
        self.server.kubectl("patch", "ct", "patched", "--type=json",
                            "-p", '[{"op":"add","path":"/spec/image","value":"nginx"}]')
        got = json.loads(self.server.kubectl("get", "ct", "patched", "-o", "json").stdout)
        self.assertEqual((got["spec"]["replicas"], got["spec"]["image"]), (3, "nginx"))
        self.assertEqual(got["metadata"]["generation"], 3)
        bad = self.server.kubectl("patch", "ct", "patched", "--type=merge", "-p", '{"spec":{"replicas":0}}', check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("spec.replicas", bad.stderr)
        path = f"/apis/{GROUP}/v1/namespaces/default/crontabs/patched"
        status, _, _ = self.server.request("PATCH", path, b'{"spec":{"replicas":4}}',
                                           {"Content-Type": "application/strategic-merge-patch+json"})
        self.assertEqual(status, 415)
        status, body = self.server.json("PATCH", path + "/status", {"status": {"ready": True}},
                                        {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["status"], {"ready": True})
        self.assertEqual(body["metadata"]["generation"], 3)

    def test_scale_subresource(self):
        self.apply_object(crontab("scaled", replicas=2))
        path = f"/apis/{GROUP}/v1/namespaces/default/crontabs/scaled"
        status, body = self.server.json("PATCH", path + "/status",
                                        {"status": {"replicas": 2, "selector": "app=cron"}},
                                        {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, body)
        self.server.kubectl("scale", "ct", "scaled", "--replicas=5")
        status, scale = self.server.json("GET", path + "/scale")
        self.assertEqual(status, 200, scale)
        self.assertEqual((scale["kind"], scale["apiVersion"]), ("Scale", "autoscaling/v1"))
        self.assertEqual(scale["spec"], {"replicas": 5})
        self.assertEqual(scale["status"], {"replicas": 2, "selector": "app=cron"})
        self.assertEqual(scale["metadata"]["name"], "scaled")
        got = json.loads(self.server.kubectl("get", "ct", "scaled", "-o", "json").stdout)
        self.assertEqual(got["spec"]["replicas"], 5)
        self.assertEqual(got["status"]["replicas"], 2)
        # The schema still applies (maximum 10), and a Scale cannot go negative.
        too_many = self.server.kubectl("scale", "ct", "scaled", "--replicas=11", check=False)
        self.assertNotEqual(too_many.returncode, 0)
        self.assertIn("spec.replicas", too_many.stderr)
        status, body = self.server.json("PUT", path + "/scale", dict(scale, spec={"replicas": -1}))
        self.assertEqual(status, 422, body)
        # A stale resourceVersion on the Scale is a conflict; kubectl's precondition too.
        status, body = self.server.json("PUT", path + "/scale", dict(scale, spec={"replicas": 3}))
        self.assertEqual(status, 200, body)
        self.assertEqual(body["spec"]["replicas"], 3)
        status, body = self.server.json("PUT", path + "/scale", dict(scale, spec={"replicas": 4}))
        self.assertEqual(status, 409, body)
        stale = self.server.kubectl("scale", "ct", "scaled", "--replicas=6", "--current-replicas=5", check=False)
        self.assertNotEqual(stale.returncode, 0)
        status, _, _ = self.server.request("GET", path + "/scale", None,
                                           {"Accept": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 406)
        # Server-side apply through /scale: the applier owns the replicas path of the CRD.
        status, body = self.server.json(
            "PATCH", path + "/scale?fieldManager=hpa&force=true",
            {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "scaled"}, "spec": {"replicas": 7}},
            {"Content-Type": "application/apply-patch+yaml"})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["spec"]["replicas"], 7)
        got = json.loads(self.server.kubectl("get", "ct", "scaled", "-o", "json", "--show-managed-fields").stdout)
        self.assertEqual(got["spec"]["replicas"], 7)
        entries = [e for e in got["metadata"]["managedFields"] if e["manager"] == "hpa"]
        self.assertEqual([(e["operation"], e["apiVersion"], e.get("subresource"), e["fieldsV1"]) for e in entries],
                         [("Apply", f"{GROUP}/v1", "scale", {"f:spec": {"f:replicas": {}}})])

    def test_updates_ratchet_on_a_tightened_schema(self):
        group = "ratchet.example.com"
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": f"gauges.{group}"},
               "spec": {"group": group, "scope": "Namespaced",
                        "names": {"plural": "gauges", "singular": "gauge", "kind": "Gauge"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                            "type": "object", "properties": {"spec": {"type": "object", "properties": {
                                "size": {"type": "integer"}, "note": {"type": "string"}}}}}}}]}}
        status, body = self.server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        self.assertEqual(status, 201, body)
        path = f"/apis/{group}/v1/namespaces/default/gauges"
        gauge = {"apiVersion": f"{group}/v1", "kind": "Gauge", "metadata": {"name": "old"}, "spec": {"size": 9}}
        self.assertTrue(wait_for(lambda: self.server.json("POST", path, gauge)[0] == 201, 30))
        # The schema now allows at most 5.
        status, body = self.server.json(
            "PATCH", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gauges.{group}",
            {"spec": {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "properties": {
                    "size": {"type": "integer", "maximum": 5}, "note": {"type": "string"}}}}}}}]}},
            {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, body)
        fresh = dict(gauge, metadata={"name": "fresh"})
        self.assertTrue(wait_for(lambda: self.server.json("POST", path + "?dryRun=All", fresh)[0] == 422, 30))
        # The old object can still be changed elsewhere; its size only to a valid value.
        merge = {"Content-Type": "application/merge-patch+json"}
        status, body = self.server.json("PATCH", path + "/old", {"spec": {"note": "kept"}}, merge)
        self.assertEqual(status, 200, body)
        status, body = self.server.json("PATCH", path + "/old", {"spec": {"size": 8}}, merge)
        self.assertEqual(status, 422, body)
        self.assertIn("spec.size", body["message"])
        status, body = self.server.json("PATCH", path + "/old", {"spec": {"size": 4}}, merge)
        self.assertEqual(status, 200, body)

    def test_other_served_version_changes_only_api_version(self):
        self.apply_object(crontab("versions", replicas=5))
        status, body = self.server.json("GET", f"/apis/{GROUP}/v1beta1/namespaces/default/crontabs/versions")
        self.assertEqual(status, 200)
        self.assertEqual(body["apiVersion"], f"{GROUP}/v1beta1")
        self.assertEqual(body["spec"]["replicas"], 5)
        status, listed = self.server.json("GET", f"/apis/{GROUP}/v1beta1/crontabs")
        self.assertEqual(listed["kind"], "CronTabList")
        self.assertTrue(all(i["apiVersion"] == f"{GROUP}/v1beta1" for i in listed["items"]))

    def test_watch_custom_resources(self):
        lines = []
        with Background(["kubectl", f"--server={self.server.url}", "get", "ct", "-w", "--output-watch-events",
                         "-l", "app=watched"], timeout=30) as watch:
            time.sleep(1.0)
            obj = crontab("watched", replicas=1)
            obj["metadata"]["labels"] = {"app": "watched"}
            self.apply_object(obj)
            self.server.kubectl("patch", "ct", "watched", "--type=merge", "-p", '{"spec":{"replicas":2}}')
            self.server.kubectl("delete", "ct", "watched")
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and len(lines) < 4:
                line = watch.stdout.readline()
                if not line:
                    break
                lines.append(line.split())
        self.assertEqual(lines[0], ["EVENT", "NAME", "SPEC", "REPLICAS", "AGE"])
        self.assertEqual([(l[0], l[1]) for l in lines[1:]], [("ADDED", "watched"), ("MODIFIED", "watched"),
                                                             ("DELETED", "watched")])
        self.assertEqual(lines[2][7], "2")

    def test_protobuf_watch_is_not_acceptable(self):
        path = f"/apis/{GROUP}/v1/namespaces/default/crontabs?watch=true&timeoutSeconds=1"
        status, _, _ = self.server.request("GET", path, headers={"Accept": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 406)
        status, headers, raw = self.server.request(
            "GET", path, headers={"Accept": "application/vnd.kubernetes.protobuf, application/json"})
        self.assertEqual(status, 200)
        self.assertTrue(header(headers, "Content-Type").startswith("application/json"))

    def test_cluster_scoped_resource(self):
        self.apply_text(CLUSTER_CRD)
        self.server.kubectl("wait", "--for=condition=Established", f"crd/regions.{GROUP}", "--timeout=20s")
        self.apply_object({"apiVersion": f"{GROUP}/v1", "kind": "Region", "metadata": {"name": "eu"},
                           "spec": {"zone": "a"}})
        out = self.server.kubectl("get", "regions").stdout.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "AGE"])
        self.assertEqual(out[1].split()[0], "eu")
        status, body = self.server.json("GET", f"/apis/{GROUP}/v1/regions/eu")
        self.assertEqual((status, body["spec"]), (200, {"zone": "a"}))
        self.assertEqual(self.server.json("GET", f"/apis/{GROUP}/v1/namespaces/default/regions/eu")[0], 404)
        # Scope and group are fixed once created.
        changed = self.apply_text(CLUSTER_CRD.replace("scope: Cluster", "scope: Namespaced"), check=False)
        self.assertNotEqual(changed.returncode, 0)
        self.assertIn("spec.scope", changed.stderr)
        self.assertIn("field is immutable", changed.stderr)


REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "../../.."))
CORPUS = os.environ.get("KW_CORPUS", os.path.join(REPO, "..", "shared", "corpus"))
CERT_MANAGER_CRDS = os.path.join(CORPUS, "cert-manager", "crds")
CRD_DEFINITION = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."

TYPO_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.typo.example.com
spec:
  group: typo.example.com
  scope: Namespaced
  names: {plural: gizmos, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknwon-fields: true
"""


def envelope_type(enveloped):
    """(apiVersion, kind) of a "k8s\\0" + runtime.Unknown value."""
    assert enveloped[:4] == b"k8s\x00", enveloped[:16]
    type_meta = dict(fields(dict(fields(enveloped[4:]))[1]))
    return type_meta[1].decode(), type_meta[2].decode()


class CrdSchemaTest(ServerTestCase):
    """The CustomResourceDefinition kind has its real schema: kubectl validates and explains
    CRDs against /openapi/v2 and v3, Strict field validation catches typos inside their
    schemas, and clients may read and write them as protobuf (they are stored as JSON)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp(prefix="kw-crd-schema-")
        cls.cache = os.path.join(cls.tmp, "kube-cache")

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.tmp])
        super().tearDownClass()

    def kubectl(self, *args, check=True):
        # A private cache: no OpenAPI document of another server on the same port is reused.
        return self.server.kubectl(f"--cache-dir={self.cache}", *args, check=check)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    @unittest.skipUnless(os.path.isdir(CERT_MANAGER_CRDS), f"no cert-manager CRDs at {CERT_MANAGER_CRDS}")
    def test_apply_cert_manager_crds_as_a_list(self):
        import yaml
        items = []
        for name in sorted(os.listdir(CERT_MANAGER_CRDS)):
            if name.endswith((".yaml", ".yml")):
                with open(os.path.join(CERT_MANAGER_CRDS, name)) as f:
                    items += [doc for doc in yaml.safe_load_all(f) if doc]
        self.assertTrue(items)
        path = self.write("cert-manager.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        out = self.kubectl("apply", "-f", path)
        self.assertEqual(out.stdout.count(" created"), len(items), out.stdout)
        out = self.kubectl("apply", "-f", path)
        self.assertEqual(out.stdout.count(" unchanged"), len(items), out.stdout)
        for item in items:
            name = item["metadata"]["name"]
            self.kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=20s")
            stored = json.loads(self.kubectl("get", "crd", name, "-o", "json").stdout)
            # As sent, with kube's default conversion (strategy None) where the manifest has none.
            expected = dict(item["spec"])
            expected.setdefault("conversion", {"strategy": "None"})
            self.assertEqual(stored["spec"], expected, name)

    def test_explain_shows_the_crd_schema(self):
        out = self.kubectl("explain", "customresourcedefinitions.spec.versions.schema").stdout
        flat = " ".join(out.split())
        self.assertIn("How objects of a version are validated.", flat)
        self.assertIn("openAPIV3Schema", out)
        out = self.kubectl("explain", "crd.spec.versions.schema.openAPIV3Schema", "--output=plaintext-openapiv2").stdout
        for key in ("$ref", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations", "properties"):
            self.assertRegex(out, rf"\n   {re.escape(key)}\t", key)
        self.assertNotIn("xKubernetesPreserveUnknownFields", out)

    def test_misspelled_field_in_a_crd_is_refused_with_strict_validation(self):
        path = self.write("typo.yaml", TYPO_CRD)
        out = self.kubectl("create", "-f", path, "-v=6", check=False)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertTrue(any(v == "POST" and "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?" in u
                            and "fieldValidation=Strict" in u for v, u in kubectl_requests(out.stderr)),
                        out.stderr)
        self.assertIn('unknown field "spec.versions[0].schema.openAPIV3Schema.properties[spec].'
                      'x-kubernetes-preserve-unknwon-fields"', out.stderr)
        self.assertNotEqual(self.kubectl("get", "crd", "gizmos.typo.example.com", check=False).returncode, 0)
        # Warn keeps the CRD and names the dropped field.
        out = self.kubectl("create", "-f", path, "--validate=warn")
        self.assertIn("x-kubernetes-preserve-unknwon-fields", out.stderr)
        stored = json.loads(self.kubectl("get", "crd", "gizmos.typo.example.com", "-o", "json").stdout)
        spec = stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        self.assertEqual(spec, {"type": "object"})

    def test_crds_travel_as_protobuf(self):
        path = self.write("crontab.yaml", CRD.replace(GROUP, "proto.example.com"))
        self.kubectl("apply", "-f", path)
        item = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.proto.example.com"
        _, before = self.server.json("GET", item)
        status, headers, raw = self.server.request("GET", item,
                                                   headers={"Accept": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 200)
        self.assertEqual(header(headers, "content-type"), "application/vnd.kubernetes.protobuf")
        self.assertEqual(envelope_type(raw), ("apiextensions.k8s.io/v1", "CustomResourceDefinition"))
        status, _, answer = self.server.request("PUT", item, raw, {"Content-Type": "application/vnd.kubernetes.protobuf",
                                                                   "Accept": "application/json"})
        self.assertEqual(status, 200, answer)
        self.assertEqual(json.loads(answer)["spec"], before["spec"])
        status, _, listed = self.server.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                                headers={"Accept": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(status, 200)
        self.assertEqual(envelope_type(listed), ("apiextensions.k8s.io/v1", "CustomResourceDefinitionList"))

    def test_openapi_publishes_the_crd_schema_under_kube_apiserver_names(self):
        status, doc = self.server.json("GET", "/openapi/v2", headers={"Accept": "application/json"})
        self.assertEqual(status, 200)
        definitions = doc["definitions"]
        crd = definitions[CRD_DEFINITION + "CustomResourceDefinition"]
        self.assertEqual(crd["properties"]["spec"]["$ref"],
                         "#/definitions/" + CRD_DEFINITION + "CustomResourceDefinitionSpec")
        self.assertNotIn("x-kubernetes-preserve-unknown-fields", crd)
        self.assertEqual(crd["required"], ["spec"])
        for name in ("JSON", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray"):
            self.assertEqual(list(definitions[CRD_DEFINITION + name]), ["description"], name)
        self.assertIn("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService", definitions)
        status, doc = self.server.json("GET", "/openapi/v3/apis/apiextensions.k8s.io/v1")
        self.assertEqual(status, 200)
        props = doc["components"]["schemas"][CRD_DEFINITION + "JSONSchemaProps"]["properties"]
        self.assertEqual(props["x-kubernetes-validations"]["x-kubernetes-list-map-keys"], ["rule"])


class CrdLifecycleTest(unittest.TestCase):
    """Restart and deletion, on a server of its own."""

    def test_restart_serves_stored_crds_and_delete_removes_objects(self):
        data_dir = tempfile.mkdtemp(prefix="kw-crd-life-")
        first = KwServer(data_dir=data_dir)
        try:
            first.start()
            path = os.path.join(data_dir, "crd.yaml")
            with open(path, "w") as f:
                f.write(CRD)
            first.kubectl("apply", "-f", path)
            first.kubectl("wait", "--for=condition=Established", f"crd/crontabs.{GROUP}", "--timeout=20s")
            for name in ("one", "two"):
                status, body = first.json("POST", f"/apis/{GROUP}/v1/namespaces/default/crontabs", crontab(name))
                self.assertEqual(status, 201, body)
            self.assertEqual(first.stop(), 0)
        finally:
            first.stop()
        second = KwServer(data_dir=data_dir, port=first.port)
        try:
            second.start()
            out = second.kubectl("get", "ct", "-o", "name").stdout.split()
            self.assertEqual(out, [f"crontab.{GROUP}/one", f"crontab.{GROUP}/two"])
            second.kubectl("delete", "crd", f"crontabs.{GROUP}")
            self.assertEqual(second.json("GET", f"/apis/{GROUP}/v1/namespaces/default/crontabs")[0], 404)
            self.assertEqual(second.json("GET", f"/apis/{GROUP}/v1")[0], 404)
            res = second.kubectl("get", "ct", check=False)
            self.assertNotEqual(res.returncode, 0)
            # Recreated, the resource is empty: the old objects went with the CRD.
            second.kubectl("apply", "-f", path)
            second.kubectl("wait", "--for=condition=Established", f"crd/crontabs.{GROUP}", "--timeout=20s")
            status, listed = second.json("GET", f"/apis/{GROUP}/v1/crontabs")
            self.assertEqual((status, listed["items"]), (200, []))
        finally:
            second.cleanup()
            subprocess.run(["rm", "-rf", data_dir])


if __name__ == "__main__":
    unittest.main()
