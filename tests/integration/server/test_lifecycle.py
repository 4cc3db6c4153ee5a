"""kw serve start-up and shutdown: SIGTERM ends watches cleanly and exits 0, data survives a
restart and kill -9, a second server on the same data dir is refused."""
import signal
import subprocess
import threading
import time
import unittest

from kwtest import KW_BIN, KwServer, free_port

NS = "/api/v1/namespaces/default"


class LifecycleTest(unittest.TestCase):
    def test_sigterm_finishes_open_watches_and_exits_zero(self):
        server = KwServer()
        try:
            server.start()
            results = {}

            def watch(name, args):
                results[name] = subprocess.run(
                    ["timeout", "20", "curl", "-sS", "-N", *args, f"{server.url}{NS}/pods?watch=1"],
                    capture_output=True, text=True)

            threads = [threading.Thread(target=watch, args=("h1", ["--http1.1"])),
                       threading.Thread(target=watch, args=("h2", ["--http2-prior-knowledge"]))]
            for t in threads:
                t.start()
            time.sleep(1)
            started = time.monotonic()
            self.assertEqual(server.stop(signal.SIGTERM), 0)
            self.assertLess(time.monotonic() - started, 10)
            for t in threads:
                t.join(20)
            for name in ["h1", "h2"]:
                self.assertEqual(results[name].returncode, 0, f"{name}: {results[name].stderr}")
        finally:
            server.cleanup()

    def test_data_survives_restart_and_kill_9(self):
        server = KwServer()
        try:
            server.start()
            for i in range(20):
                status, _ = server.json("POST", NS + "/configmaps", {"metadata": {"name": f"keep{i}"}})
                self.assertEqual(status, 201)
            server.stop(signal.SIGKILL)
            server.start()
            _, body = server.json("GET", NS + "/configmaps")
            self.assertEqual(sorted(i["metadata"]["name"] for i in body["items"]),
                             sorted(f"keep{i}" for i in range(20)))
        finally:
            server.cleanup()

    def test_the_servers_own_objects_go_through_admission(self):
        """A missing system namespace is made again at start-up through the admission chain, as
        kube-apiserver's post-start hooks make it: a policy that refuses it keeps it out (the
        start goes on and says why), and once the policy goes the next start makes it."""
        admission = "/apis/admissionregistration.k8s.io/v1"
        server = KwServer()
        try:
            server.start()
            status, body = server.json("POST", admission + "/validatingadmissionpolicies", {
                "metadata": {"name": "no-lease-namespace"},
                "spec": {"failurePolicy": "Fail",
                         "matchConstraints": {"resourceRules": [{
                             "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                             "resources": ["namespaces"]}]},
                         "validations": [{"expression": "object.metadata.name != 'kube-node-lease'",
                                          "message": "the lease namespace stays out"}]}})
            self.assertEqual(status, 201, body)
            status, body = server.json("POST", admission + "/validatingadmissionpolicybindings", {
                "metadata": {"name": "no-lease-namespace"},
                "spec": {"policyName": "no-lease-namespace", "validationActions": ["Deny"]}})
            self.assertEqual(status, 201, body)
            status, body = server.json("DELETE", "/api/v1/namespaces/kube-node-lease")
            self.assertEqual(status, 200, body)
            deadline = time.monotonic() + 20
            while server.json("GET", "/api/v1/namespaces/kube-node-lease")[0] != 404:
                self.assertLess(time.monotonic(), deadline, "kube-node-lease was not deleted")
                time.sleep(0.1)

            server.stop()
            server.start()
            self.assertEqual(server.json("GET", "/api/v1/namespaces/kube-node-lease")[0], 404)
            self.assertEqual(server.json("GET", "/api/v1/namespaces/kube-system")[0], 200)
            self.assertIn("cannot create the Namespace kube-node-lease: ", server.read_log())
            self.assertIn("the lease namespace stays out", server.read_log())

            status, body = server.json("DELETE", admission + "/validatingadmissionpolicybindings/no-lease-namespace")
            self.assertEqual(status, 200, body)
            server.stop()
            server.start()
            status, body = server.json("GET", "/api/v1/namespaces/kube-node-lease")
            self.assertEqual(status, 200, body)
        finally:
            server.cleanup()

    def test_second_server_on_same_data_dir_is_refused(self):
        server = KwServer()
        try:
            server.start()
            out = subprocess.run(["timeout", "20", KW_BIN, "serve", "--data-dir", server.data_dir,
                                  "--insecure-port", str(free_port()), "--secure-port", "0"],
                                 capture_output=True, text=True)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("in use by another kw serve", out.stderr)
        finally:
            server.cleanup()

    def test_bad_flags_are_reported(self):
        out = subprocess.run([KW_BIN, "serve", "--authorization-mode", "Bogus", "--insecure-port", "1"],
                             capture_output=True, text=True, timeout=20)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("Bogus", out.stderr)
        out = subprocess.run([KW_BIN, "sevre"], capture_output=True, text=True, timeout=20)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('did you mean "serve"?', out.stderr)


if __name__ == "__main__":
    unittest.main()
