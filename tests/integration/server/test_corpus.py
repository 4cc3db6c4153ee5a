"""Real projects' installs (../shared/corpus: argo-cd, cert-manager, ingress-nginx,
kube-state-metrics, metrics-server, prometheus-operator) applied with the real kubectl, as its
README says kube-apiserver takes them: CRDs first (each Established before its objects), then
Namespaces, then everything else. Client-side apply accepts every object except the CRDs whose
last-applied annotation would pass 256 KiB (refused with "metadata.annotations: Too long", as
kube-apiserver does; those are created instead). A second apply succeeds, the objects read back
with Kubernetes' defaults, and everything deletes cleanly. Server-side apply (`kubectl apply
--server-side`) takes every object, the CRDs too, and a second one writes nothing."""
import json
import os
import subprocess
import tempfile
import unittest

import yaml

from kwtest import KwServer

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "../../.."))
CORPUS = os.environ.get("KW_CORPUS", os.path.join(REPO, "..", "shared", "corpus"))
PROJECTS = ["argo-cd", "cert-manager", "ingress-nginx", "kube-state-metrics", "metrics-server", "prometheus-operator"]
TOO_LONG = "metadata.annotations: Too long"


class Loader(yaml.SafeLoader):
    """YAML 1.1 as kubectl reads it: "=" is a plain string, not PyYAML's value tag."""


Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def documents(project):
    """Every object of a project's install, in file order, with the file it came from."""
    root = os.path.join(CORPUS, project)
    paths = []
    for directory, _, files in sorted(os.walk(root)):
        paths += [os.path.join(directory, f) for f in sorted(files) if f.endswith((".yaml", ".yml"))]
    out = []
    for path in paths:
        with open(path) as f:
            for doc in yaml.load_all(f, Loader=Loader):
                if isinstance(doc, dict) and doc.get("kind"):
                    out.extend(doc["items"] if doc["kind"].endswith("List") and "items" in doc else [doc])
    return out


def phase(obj):
    return 0 if obj["kind"] == "CustomResourceDefinition" else 1 if obj["kind"] == "Namespace" else 2


class Served(unittest.TestCase):
    """A kw serve of the class's own, and a directory for the manifests it is given."""

    @classmethod
    def setUpClass(cls):
        cls.server = KwServer().__enter__()
        cls.work = tempfile.mkdtemp(prefix="kw-corpus-")

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def write(self, name, objects):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            yaml.safe_dump_all(objects, f)
        return path


@unittest.skipUnless(os.path.isdir(CORPUS), f"no corpus at {CORPUS}")
class CorpusTest(Served):

    def apply(self, path, *extra):
        return self.server.kubectl("apply", "-f", path, *extra, timeout=120, check=False)

    def check_project(self, project):
        objects = documents(project)
        self.assertTrue(objects, project)
        stages = [[o for o in objects if phase(o) == p] for p in range(3)]
        for round_ in (1, 2):
            for number, stage in enumerate(stages):
                if not stage:
                    continue
                path = self.write(f"{project}-{number}.yaml", stage)
                out = self.apply(path)
                # kubectl's own warnings (a created CRD has no last-applied annotation yet) are not refusals.
                # One refusal per "Error from server"/"error:" block (a patch error spans lines).
                refused = []
                for line in out.stderr.splitlines():
                    if not line.strip() or line.startswith("Warning:"):
                        continue
                    if line.startswith(("Error from server", "error:")) or not refused:
                        refused.append(line)
                    else:
                        refused[-1] += "\n" + line
                too_long = [line for line in refused if TOO_LONG in line]
                self.assertEqual([line for line in refused if TOO_LONG not in line], [],
                                 f"{project} apply {round_}, stage {number}")
                if too_long and round_ == 1:
                    # What kube-apiserver users do with these: create them.
                    big = [o for o in stage if o["kind"] == "CustomResourceDefinition"
                           and any(f'"{o["metadata"]["name"]}"' in line for line in too_long)]
                    self.assertEqual(len(big), len(too_long), too_long)
                    self.server.kubectl("create", "-f", self.write(f"{project}-big.yaml", big), timeout=120)
                if number == 0:
                    names = [f"crd/{o['metadata']['name']}" for o in stage]
                    self.server.kubectl("wait", "--for=condition=Established", "--timeout=30s", *names, timeout=60)
        return objects

    def check_read_back(self, objects):
        for obj in objects:
            if obj["kind"] == "Deployment":
                namespace = obj["metadata"].get("namespace", "default")
                out = self.server.kubectl("get", "deployment", obj["metadata"]["name"], "-n", namespace, "-o", "json")
                got = json.loads(out.stdout)
                self.assertEqual(got["spec"]["strategy"]["type"], obj["spec"].get("strategy", {}).get("type", "RollingUpdate"))
                self.assertIn("revisionHistoryLimit", got["spec"])
                self.assertIn("progressDeadlineSeconds", got["spec"])
                container = got["spec"]["template"]["spec"]["containers"][0]
                self.assertIn("imagePullPolicy", container)
                self.assertEqual(got["spec"]["template"]["spec"]["schedulerName"], "default-scheduler")

    def delete(self, project, objects):
        stages = [[o for o in objects if phase(o) == p] for p in range(3)]
        for number in (2, 1, 0):
            if stages[number]:
                path = self.write(f"{project}-delete-{number}.yaml", stages[number])
                out = self.server.kubectl("delete", "-f", path, "--wait=false", "--ignore-not-found",
                                          timeout=120, check=False)
                self.assertEqual(out.returncode, 0, f"{project} delete: {out.stderr}")

    def test_each_install_applies_twice_reads_back_and_deletes(self):
        for project in PROJECTS:
            if not os.path.isdir(os.path.join(CORPUS, project)):
                continue
            with self.subTest(project=project):
                objects = self.check_project(project)
                self.check_read_back(objects)
                self.delete(project, objects)


@unittest.skipUnless(os.path.isdir(CORPUS), f"no corpus at {CORPUS}")
class ServerSideCorpusTest(Served):
    def versions(self, path):
        """resourceVersion of every object of a manifest, by kind/namespace/name."""
        out = self.server.kubectl("get", "-f", path, "-o", "json", timeout=120)
        items = json.loads(out.stdout)
        items = items.get("items", [items])
        return {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o["metadata"]["resourceVersion"]
                for o in items}

    def test_each_install_applies_server_side_twice_and_the_second_changes_nothing(self):
        for project in PROJECTS:
            if not os.path.isdir(os.path.join(CORPUS, project)):
                continue
            with self.subTest(project=project):
                objects = documents(project)
                stages = [[o for o in objects if phase(o) == p] for p in range(3)]
                for number, stage in enumerate(stages):
                    if not stage:
                        continue
                    path = self.write(f"{project}-ssa-{number}.yaml", stage)
                    first = self.server.kubectl("apply", "--server-side", "-f", path, timeout=120, check=False)
                    self.assertEqual(first.returncode, 0, f"{project} stage {number}: {first.stderr}")
                    if number == 0:
                        names = [f"crd/{o['metadata']['name']}" for o in stage]
                        self.server.kubectl("wait", "--for=condition=Established", "--timeout=30s", *names, timeout=60)
                    # Examples that configure one object several ways in a row change it on every pass.
                    keys = [(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in stage]
                    repeated = {k[0::2] for k in keys if keys.count(k) > 1}
                    before = self.versions(path)
                    second = self.server.kubectl("apply", "--server-side", "-f", path, timeout=120, check=False)
                    self.assertEqual(second.returncode, 0, f"{project} stage {number}: {second.stderr}")
                    after = self.versions(path)
                    for key, version in before.items():
                        if key[0::2] not in repeated:
                            self.assertEqual(after[key], version, f"{project} stage {number}: the second apply wrote {key}")
                    # kubectl knows the fields as its own: managedFields name it.
                    got = json.loads(self.server.kubectl("get", "-f", path, "-o", "json", "--show-managed-fields",
                                                         timeout=120).stdout)
                    for item in got.get("items", [got]):
                        managers = {e["manager"] for e in item["metadata"].get("managedFields", [])}
                        self.assertIn("kubectl", managers, item["metadata"]["name"])


if __name__ == "__main__":
    unittest.main()
