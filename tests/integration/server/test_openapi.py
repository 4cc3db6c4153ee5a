"""The OpenAPI documents against the real kubectl: apply/create with client validation on
(no --validate=false), explain, strategic merge patches computed from the v3 merge keys,
and unknown fields rejected through fieldValidation=Strict."""
import json
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request

from kwtest import ServerTestCase, kubectl_requests, wait_for

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 1
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: IMAGE
        ports:
        - containerPort: 80
        env:
        - name: MODE
          value: prod
      - name: sidecar
        image: busybox
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  greeting: hello
  mode: MODE
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: NAME
spec:
  containers:
  - name: main
    IMAGE_KEY: nginx
"""


class OpenApiTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.work = tempfile.mkdtemp(prefix="kw-openapi-")
        cls.cache = os.path.join(cls.work, "kube-cache")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)
        super().tearDownClass()

    def kubectl(self, *args, check=True):
        # A private cache dir: nothing from other servers (or earlier runs) is reused.
        return self.server.kubectl(f"--cache-dir={self.cache}", *args, check=check)

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_v3_discovery_and_hashed_documents(self):
        status, discovery = self.server.json("GET", "/openapi/v3")
        self.assertEqual(status, 200)
        self.assertIn("api/v1", discovery["paths"])
        url = discovery["paths"]["apis/apps/v1"]["serverRelativeURL"]
        self.assertRegex(url, r"^/openapi/v3/apis/apps/v1\?hash=[0-9A-F]+$")
        status, headers, body = self.server.request("GET", url, headers={"Accept": "application/json"})
        self.assertEqual(status, 200)
        headers = {k.lower(): v for k, v in headers.items()}
        self.assertEqual(headers["cache-control"], "public, immutable")
        self.assertEqual(headers["content-type"], "application/json")
        doc = json.loads(body)
        self.assertEqual(doc["openapi"], "3.0.0")
        deployment = doc["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"]
        self.assertEqual(deployment["x-kubernetes-group-version-kind"],
                         [{"group": "apps", "kind": "Deployment", "version": "v1"}])
        # A revalidation with the ETag is answered without a body.
        req = urllib.request.Request(self.server.url + url, headers={"If-None-Match": headers["etag"]})
        with self.assertRaises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(req, timeout=10)
        self.assertEqual(caught.exception.code, 304)

    def test_v2_is_served_as_json(self):
        status, doc = self.server.json("GET", "/openapi/v2", headers={"Accept": "application/json"})
        self.assertEqual(status, 200)
        self.assertEqual(doc["swagger"], "2.0")
        pod = doc["definitions"]["io.k8s.api.core.v1.Pod"]
        self.assertEqual(pod["x-kubernetes-group-version-kind"], [{"group": "", "kind": "Pod", "version": "v1"}])
        post = doc["paths"]["/api/v1/namespaces/{namespace}/pods"]["post"]
        self.assertIn("fieldValidation", [p.get("name") for p in post["parameters"]])

    def test_explain_through_v2_protobuf(self):
        # client-go reads /openapi/v2 only in gnostic protobuf form.
        out = self.kubectl("explain", "pods.spec.containers", "--output=plaintext-openapiv2").stdout
        self.assertIn("KIND:     Pod", out)
        self.assertIn("RESOURCE: containers <[]Object>", out)
        self.assertRegex(out, r"\n   image\t<string>")
        self.assertRegex(out, r"\n   name\t<string> -required-")

    def test_custom_resource_schema_in_v2(self):
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "gadgets.v2.example.com"},
               "spec": {"group": "v2.example.com", "scope": "Namespaced",
                        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget",
                                  "listKind": "GadgetList"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": {
                                "type": "object", "required": ["size", "note"],
                                "properties": {
                                    "size": {"type": "integer", "description": "How big the gadget is."},
                                    "note": {"type": "string", "nullable": True},
                                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                              "properties": {"a": {"type": "string"}}}}}}}}}]}}
        status, _ = self.server.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        self.assertEqual(status, 201)

        def published():
            status, doc = self.server.json("GET", "/openapi/v2", headers={"Accept": "application/json"})
            return status == 200 and "com.example.v2.v1.Gadget" in doc["definitions"] and doc

        self.assertTrue(wait_for(published, 30))
        spec = published()["definitions"]["com.example.v2.v1.Gadget"]["properties"]["spec"]
        self.assertEqual(spec["required"], ["size"])  # a nullable field is not required in v2
        self.assertEqual(spec["properties"]["note"], {})
        self.assertEqual(spec["properties"]["extra"], {"x-kubernetes-preserve-unknown-fields": True})
        # kubectl reads the v2 document in protobuf form.
        out = self.kubectl("explain", "gadgets.spec", "--output=plaintext-openapiv2").stdout
        self.assertRegex(out, r"\n   size\t<integer> -required-\n")
        self.assertIn("How big the gadget is.", out)
        self.assertNotRegex(out, r"note\t<string> -required-")

    def test_apply_deployment_and_configmap_twice_with_validation(self):
        dep = self.write("deploy.yaml", DEPLOYMENT.replace("IMAGE", "nginx:1.25"))
        cm = self.write("cm.yaml", CONFIGMAP.replace("MODE", "one"))
        for path, name in [(dep, "deployment.apps/web"), (cm, "configmap/settings")]:
            out = self.kubectl("apply", "-f", path)
            self.assertIn(f"{name} created", out.stdout)
            out = self.kubectl("apply", "-f", path)
            self.assertRegex(out.stdout, rf"{re.escape(name)} (unchanged|configured)")
        # A change goes through the strategic merge patch built from the v3 merge keys.
        self.write("deploy.yaml", DEPLOYMENT.replace("IMAGE", "nginx:1.26"))
        out = self.kubectl("apply", "-f", dep, "-v=6")
        self.assertIn("deployment.apps/web configured", out.stdout)
        self.assertTrue(any(v == "PATCH" and "/apis/apps/v1/namespaces/default/deployments/web?" in u and "fieldValidation=Strict" in u
                            for v, u in kubectl_requests(out.stderr)), out.stderr)
        got = json.loads(self.kubectl("get", "deployment", "web", "-o", "json").stdout)
        containers = got["spec"]["template"]["spec"]["containers"]
        self.assertEqual([c["name"] for c in containers], ["web", "sidecar"])
        self.assertEqual(containers[0]["image"], "nginx:1.26")
        self.assertEqual(containers[0]["env"], [{"name": "MODE", "value": "prod"}])
        self.assertEqual(got["spec"]["strategy"]["rollingUpdate"], {"maxSurge": "25%", "maxUnavailable": 1})
        self.write("cm.yaml", CONFIGMAP.replace("MODE", "two"))
        self.assertIn("configmap/settings configured", self.kubectl("apply", "-f", cm).stdout)
        got = json.loads(self.kubectl("get", "configmap", "settings", "-o", "json").stdout)
        self.assertEqual(got["data"], {"greeting": "hello", "mode": "two"})

    def test_create_pod_from_file(self):
        path = self.write("pod.yaml", POD.replace("NAME", "created").replace("IMAGE_KEY", "image"))
        out = self.kubectl("create", "-f", path, "-v=6")
        self.assertIn("pod/created created", out.stdout)
        self.assertTrue(any(v == "POST" and "/api/v1/namespaces/default/pods?" in u and "fieldValidation=Strict" in u
                            for v, u in kubectl_requests(out.stderr)), out.stderr)
        got = json.loads(self.kubectl("get", "pod", "created", "-o", "json").stdout)
        self.assertEqual(got["spec"]["containers"][0]["image"], "nginx")

    def test_explain_field_of_pod(self):
        out = self.kubectl("explain", "pods.spec.containers.image").stdout
        self.assertIn("KIND:       Pod", out)
        self.assertIn("VERSION:    v1", out)
        self.assertIn("FIELD: image <string>", out)
        self.assertIn("DESCRIPTION:", out)

    def test_explain_lists_fields(self):
        out = self.kubectl("explain", "pods.spec.containers").stdout
        self.assertIn("FIELD: containers <[]Container>", out)
        self.assertRegex(out, r"\n  name\t<string> -required-")
        self.assertRegex(out, r"\n  ports\t<\[\]ContainerPort>")
        out = self.kubectl("explain", "deployment.spec.strategy").stdout
        self.assertIn("GROUP:      apps", out)
        self.assertIn("FIELD: strategy <DeploymentStrategy>", out)
        self.assertRegex(out, r"\n  rollingUpdate\t<RollingUpdateDeployment>")
        self.assertRegex(out, r"\n  type\t<string>")
        out = self.kubectl("explain", "deployment.spec.strategy.rollingUpdate.maxSurge").stdout
        self.assertIn("FIELD: maxSurge <IntOrString>", out)

    def explain(self, *args):
        """kubectl explain's output with its line wrapping undone (runs of spaces become one)."""
        out = self.kubectl("explain", *args).stdout
        return out, " ".join(out.split())

    def test_explain_pods_has_descriptions(self):
        out, flat = self.explain("pods")
        self.assertNotIn("<empty>", out)
        self.assertIn("DESCRIPTION: A group of one or more containers scheduled together on one node", flat)
        # Every field of Pod is described: metadata, spec and status too.
        self.assertNotIn("<no description>", out)
        self.assertIn("spec <PodSpec> Desired state of the pod: its containers, volumes and scheduling.", flat)

    def test_explain_field_description(self):
        image = ("Container image to run, such as nginx:1.25 or registry.example.com/app@sha256:<digest>. "
                 "A tag-less name means :latest.")
        for output in ("plaintext", "plaintext-openapiv2"):
            with self.subTest(output=output):
                out, flat = self.explain("pods.spec.containers.image", f"--output={output}")
                self.assertIn("DESCRIPTION: " + image, flat)

    def test_explain_message_field_shows_field_and_type_descriptions(self):
        field = "How old pods are replaced by new ones."
        kind = "How a deployment replaces old pods with new ones."
        type_text = "RollingUpdate (default) replaces pods gradually; Recreate deletes all old pods first."
        for output in ("plaintext", "plaintext-openapiv2"):
            with self.subTest(output=output):
                out, flat = self.explain("deployment.spec.strategy", f"--output={output}")
                self.assertIn("DESCRIPTION: " + field + " " + kind, flat)
                self.assertIn(type_text, flat)
                self.assertRegex(out, r"\n\s+rollingUpdate\t<(Object|RollingUpdateDeployment)>")
                self.assertNotIn("<no description>", out)

    def test_unknown_field_is_rejected(self):
        path = self.write("typo.yaml", POD.replace("NAME", "typo").replace("IMAGE_KEY", "imagee"))
        out = self.kubectl("create", "-f", path, "-v=6", check=False)
        self.assertTrue(any(v == "POST" and "/api/v1/namespaces/default/pods?" in u and "fieldValidation=Strict" in u
                            for v, u in kubectl_requests(out.stderr)), out.stderr)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn('unknown field "spec.containers[0].imagee"', out.stderr)
        missing = self.kubectl("get", "pod", "typo", check=False)
        self.assertNotEqual(missing.returncode, 0)
