"""kw serve on a real etcd: kubectl works, two servers on one etcd both see every write
through their own watch caches, keys are laid out as kube-apiserver lays them out, and a
watch survives an etcd restart without a gap or a duplicate."""
import http.client
import json
import subprocess
import tempfile
import time
import unittest

from kwtest import EtcdServer, KwServer, make_tls_files, pod, read_events

NS = "/api/v1/namespaces/default"


class EtcdTest(unittest.TestCase):
    def setUp(self):
        self.etcd = EtcdServer().start()
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.cleanup()
        self.etcd.cleanup()

    def serve(self):
        server = KwServer([f"--etcd={self.etcd.url}"])
        self.servers.append(server)
        return server.start()

    def test_kubectl_and_key_layout(self):
        server = self.serve()
        server.kubectl("create", "configmap", "ec", "--from-literal=a=b")
        out = server.kubectl("get", "configmap", "ec", "-o", "jsonpath={.data.a}").stdout
        self.assertEqual(out, "b")
        keys = subprocess.run(["timeout", "10", "etcdctl", f"--endpoints={self.etcd.url}", "get", "/registry/",
                               "--prefix", "--keys-only"], capture_output=True, text=True, env={"ETCDCTL_API": "3"})
        self.assertIn("/registry/configmaps/default/ec", keys.stdout.split())
        self.assertIn("/registry/namespaces/default", keys.stdout.split())
        # Values as kube-apiserver stores them: "k8s\0" + runtime.Unknown{typeMeta{v1, ConfigMap}, raw}.
        value = self.etcdctl("get", "/registry/configmaps/default/ec", "--print-value-only").stdout
        self.assertTrue(value.startswith(b"k8s\x00"), value[:16])
        self.assertIn(b"\x0a\x02v1\x12\x09ConfigMap", value[4:32])
        self.assertNotIn(b'"data"', value)
        # A value stored as JSON (an older kw) is still read, through the watch cache too.
        legacy = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "json"},
                  "metadata": {"name": "legacy", "namespace": "default", "uid": "u-1",
                               "creationTimestamp": "2026-01-01T00:00:00Z"}}
        self.etcdctl("put", "/registry/configmaps/default/legacy", json.dumps(legacy))
        deadline = time.monotonic() + 10
        while True:
            out = server.kubectl("get", "configmap", "legacy", "-o", "jsonpath={.data.k}", check=False)
            if out.returncode == 0 and out.stdout == "json" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(out.stdout, "json", out.stderr)
        server.kubectl("label", "configmap", "legacy", "step=one")
        relabeled = self.etcdctl("get", "/registry/configmaps/default/legacy", "--print-value-only").stdout
        self.assertTrue(relabeled.startswith(b"k8s\x00"), relabeled[:16])

    def etcdctl(self, *args):
        out = subprocess.run(["timeout", "10", "etcdctl", f"--endpoints={self.etcd.url}", *args],
                             capture_output=True, env={"ETCDCTL_API": "3"})
        self.assertEqual(out.returncode, 0, out.stderr)
        return out

    def test_two_servers_see_each_others_writes(self):
        a, b = self.serve(), self.serve()
        conn = http.client.HTTPConnection("127.0.0.1", b.port, timeout=15)
        conn.request("GET", NS + "/pods?watch=1&labelSelector=t%3Dshared")
        resp = conn.getresponse()
        status, _ = a.json("POST", NS + "/pods", pod("shared1", labels={"t": "shared"}))
        self.assertEqual(status, 201)
        a.json("DELETE", NS + "/pods/shared1")
        events = read_events(resp, 2, timeout=15)
        conn.close()
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in events],
                         [("ADDED", "shared1"), ("DELETED", "shared1")])
        status, body = b.json("GET", NS + "/pods/shared1")
        self.assertEqual(status, 404)

    def test_a_get_reads_the_newest_write_of_another_server(self):
        # B's watch cache learns of A's writes a little later; a GET still answers what etcd
        # holds, from the cache only when it holds that very revision.
        a, b = self.serve(), self.serve()
        path = NS + "/configmaps/shared-reads"
        status, _ = a.json("POST", NS + "/configmaps",
                           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared-reads"}})
        self.assertEqual(status, 201)
        for i in range(40):
            status, written = a.json("PATCH", path, {"data": {"n": str(i)}},
                                     {"Content-Type": "application/merge-patch+json"})
            self.assertEqual(status, 200)
            for server in (b, a):
                status, read = server.json("GET", path)
                self.assertEqual(status, 200)
                self.assertEqual(read["metadata"]["resourceVersion"], written["metadata"]["resourceVersion"])
                self.assertEqual(read["data"], {"n": str(i)})
        a.json("DELETE", path)
        status, _ = b.json("GET", path)
        self.assertEqual(status, 404)

    def test_watch_survives_etcd_restart_without_gap_or_duplicate(self):
        server = self.serve()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", NS + "/configmaps?watch=1&labelSelector=t%3Drestart")
        resp = conn.getresponse()
        for i in range(3):
            server.json("POST", NS + "/configmaps", {"metadata": {"name": f"before{i}", "labels": {"t": "restart"}}})
        first = read_events(resp, 3, timeout=15)
        self.etcd.kill()
        self.etcd.start()
        deadline = time.monotonic() + 20
        created = 0
        while created < 3 and time.monotonic() < deadline:
            status, _ = server.json("POST", NS + "/configmaps",
                                    {"metadata": {"name": f"after{created}", "labels": {"t": "restart"}}})
            if status == 201:
                created += 1
            else:
                time.sleep(0.2)
        self.assertEqual(created, 3)
        rest = read_events(resp, 3, timeout=20)
        conn.close()
        names = [e["object"]["metadata"]["name"] for e in first + rest]
        self.assertEqual(names, [f"before{i}" for i in range(3)] + [f"after{i}" for i in range(3)])


class EtcdTlsTest(unittest.TestCase):
    def test_kw_serve_over_tls_with_client_certificates(self):
        with tempfile.TemporaryDirectory(prefix="kw-etcd-tls-") as pki:
            tls = make_tls_files(pki)
            etcd = EtcdServer(tls=tls)
            server = None
            try:
                etcd.start()
                server = KwServer([f"--etcd={etcd.url}", "--etcd-cafile", tls["ca"], "--etcd-certfile", tls["cert"],
                                   "--etcd-keyfile", tls["key"]]).start()
                status, _ = server.json("POST", NS + "/configmaps", {"metadata": {"name": "secure"}})
                self.assertEqual(status, 201)
                status, body = server.json("GET", NS + "/configmaps/secure")
                self.assertEqual((status, body["metadata"]["name"]), (200, "secure"))
                # Without a client certificate etcd refuses the connection: kw serve fails with a clear message.
                bare = KwServer([f"--etcd={etcd.url}", "--etcd-cafile", tls["ca"]])
                with self.assertRaises(RuntimeError) as ctx:
                    bare.start(timeout=15)
                bare.cleanup()
                self.assertIn("storage", str(ctx.exception))
            finally:
                if server:
                    server.cleanup()
                etcd.cleanup()


if __name__ == "__main__":
    unittest.main()
