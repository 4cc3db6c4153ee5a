"""API aggregation: metrics-server's own manifests (../shared/corpus/metrics-server, or KW_CORPUS;
without the corpus, its Service and APIService as they have them) applied with kubectl, and a stand-in metrics.k8s.io server started here behind its Service (reached through an
EndpointSlice). kw checks it and keeps the APIService Available, lists the group in discovery
(legacy and aggregated), proxies requests as the requester (X-Remote-* headers, kw's proxy client
certificate, no bearer token), streams watches on HTTP/1.1 and HTTP/2, relays WebSocket upgrades
as byte tunnels, keeps its connections to the server between requests, and `kubectl top` works.
An APIService whose Service is missing is unavailable in kube's words and answers 503."""
import base64
import hashlib
import http.server
import json
import os
import socket
import ssl
import struct
import subprocess
import tempfile
import time
import unittest

from kwtest import (KwServer, RssSampler, free_port, https, https_server, make_tls_files, rss_bytes, send_json,
                    stop_https_server, write_tokens)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CORPUS = os.environ.get("KW_CORPUS", os.path.join(REPO, "..", "shared", "corpus"))
MANIFEST = os.path.join(CORPUS, "metrics-server", "components.yaml")
GV = "/apis/metrics.k8s.io/v1beta1"
NOW = "2026-01-01T00:00:00Z"
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def ws_frame(opcode, payload, mask):
    """One final WebSocket frame (RFC 6455), masked as a client sends it when `mask`."""
    head = bytes([0x80 | opcode])
    n = len(payload)
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", n)
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


def ws_read(sock):
    """(opcode, payload) of the next frame, unmasking a client's."""
    first, second = read_exact(sock, 2)
    n = second & 0x7F
    if n == 126:
        n = struct.unpack(">H", read_exact(sock, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", read_exact(sock, 8))[0]
    key = read_exact(sock, 4) if second & 0x80 else None
    payload = read_exact(sock, n)
    if key:
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return first & 0x0F, payload


class MetricsStandIn:
    """An HTTPS metrics.k8s.io/v1beta1 server: fixed node and pod metrics, a short watch stream,
    and every request's headers and client certificate kept in `seen`."""

    def __init__(self, tls, client_ca, port):
        self.seen = []
        self.tunnels = []  # how each slow tunnel's sending ended
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def record(self, body=None):
                cert = self.connection.getpeercert()
                subject = dict(x[0] for x in cert["subject"]) if cert else {}
                stand_in.seen.append({"method": self.command, "path": self.path, "body": body,
                                      "headers": [(k.lower(), v) for k, v in self.headers.items()],
                                      "client_cn": subject.get("commonName"), "peer": self.client_address})

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                self.record(body)
                send_json(self, 201, {"echo": body})

            def do_GET(self):
                self.record()
                path, _, query = self.path.partition("?")
                if self.headers.get("Upgrade", "").lower() == "websocket" and path.endswith("/exec"):
                    return self.echo_websocket()
                if self.headers.get("Upgrade", "").lower() == "websocket" and path.endswith("/portforward"):
                    return self.slow_tunnel(dict(p.split("=") for p in query.split("&")))
                if path == GV:
                    return send_json(self, 200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "metrics.k8s.io/v1beta1",
                                            "resources": [
                                                {"name": "nodes", "singularName": "", "namespaced": False, "kind": "NodeMetrics",
                                                 "verbs": ["get", "list"]},
                                                {"name": "pods", "singularName": "", "namespaced": True, "kind": "PodMetrics",
                                                 "verbs": ["get", "list"]}]})
                if path == GV + "/nodes" and "flood=" in query:
                    return self.flood(int(query.partition("flood=")[2].split("&")[0]))
                if path == GV + "/nodes" and "watch=1" in query:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for i in range(3):
                        line = json.dumps({"type": "ADDED", "object": {"metadata": {"name": f"n{i}"}}}).encode() + b"\n"
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                        self.wfile.flush()
                        time.sleep(0.2)
                    self.wfile.write(b"0\r\n\r\n")
                    return None
                if path == GV + "/nodes":
                    return send_json(self, 200, {"kind": "NodeMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
                                            "metadata": {}, "items": [node_metrics("node-1")]})
                if path == GV + "/nodes/node-1":
                    return send_json(self, 200, node_metrics("node-1"))
                if path == GV + "/namespaces/kube-system/pods":
                    return send_json(self, 200, {"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
                                            "metadata": {}, "items": [{
                                                "metadata": {"name": "busy-pod", "namespace": "kube-system",
                                                             "creationTimestamp": NOW},
                                                "timestamp": NOW, "window": "10s",
                                                "containers": [{"name": "main", "usage": {"cpu": "100m",
                                                                                           "memory": "64Mi"}}]}]})
                return send_json(self, 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
                                        "reason": "NotFound", "message": "not here"})

            def echo_websocket(self):
                """Switches to WebSocket with the first subprotocol offered and echoes every data
                frame until the client closes."""
                key = self.headers["Sec-WebSocket-Key"].encode()
                accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest()).decode()
                self.send_response(101)
                self.send_header("Upgrade", "websocket")
                self.send_header("Connection", "Upgrade")
                self.send_header("Sec-WebSocket-Accept", accept)
                offered = self.headers.get("Sec-WebSocket-Protocol")
                if offered:
                    self.send_header("Sec-WebSocket-Protocol", offered.split(",")[0].strip())
                self.end_headers()
                self.wfile.flush()
                sock = self.connection
                while True:
                    opcode, payload = ws_read(sock)
                    if opcode == 8:
                        sock.sendall(ws_frame(8, payload, mask=False))
                        break
                    sock.sendall(ws_frame(opcode, b"echo:" + payload, mask=False))
                self.close_connection = True

            def flood(self, size):
                """A watch that sends `size` bytes of PATTERN as fast as it is taken, then ends."""
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for _ in range(size // len(PATTERN)):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(PATTERN), PATTERN))
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except OSError:
                    pass

            def slow_tunnel(self, params):
                """Switches protocols, then reads nothing for `pause` seconds. Then it reads `in`
                bytes, answers their SHA-256 and sends `out` bytes of a repeated pattern."""
                self.send_response(101)
                self.send_header("Upgrade", "websocket")
                self.send_header("Connection", "Upgrade")
                self.end_headers()
                self.wfile.flush()
                sock = self.connection
                time.sleep(float(params["pause"]))
                digest = hashlib.sha256()
                left = int(params["in"])
                while left:
                    chunk = sock.recv(min(left, 1 << 16))
                    if not chunk:
                        return
                    digest.update(chunk)
                    left -= len(chunk)
                sock.sendall(digest.digest())
                sent = 0
                try:
                    for _ in range(int(params["out"]) // len(PATTERN)):
                        sock.sendall(PATTERN)
                        sent += len(PATTERN)
                    stand_in.tunnels.append({"sent": sent, "closed": None})
                except OSError as e:
                    stand_in.tunnels.append({"sent": sent, "closed": time.monotonic(), "why": repr(e)})
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = https_server(Handler, tls, port, client_ca=client_ca)

    def stop(self):
        stop_https_server(self.server)


# What the slow tunnel sends, over and over: 64 KiB that no compression or coincidence matches.
PATTERN = hashlib.sha256(b"kw").digest() * 2048


def node_metrics(name):
    return {"kind": "NodeMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
            "metadata": {"name": name, "creationTimestamp": NOW}, "timestamp": NOW, "window": "10s",
            "usage": {"cpu": "250m", "memory": "1Gi"}}


class AggregationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-aggregation-")
        serving, client = (os.path.join(cls.dir.name, d) for d in ("serving", "client"))
        os.mkdir(serving)
        os.mkdir(client)
        cls.serving = make_tls_files(serving, dns=("metrics-server.kube-system.svc",))
        cls.client = make_tls_files(client)  # kw's proxy client certificate (CN "etcd" from the helper)
        cls.port = free_port()
        cls.stand_in = MetricsStandIn(cls.serving, cls.client["ca"], cls.port)
        tokens = write_tokens(cls.dir.name, [
            {"token": "admin-token", "user": "admin", "uid": "admin", "groups": ["system:masters"]},
            {"token": "nobody-token", "user": "nobody"}])
        # The audit log tells when kw is done with a proxied request (its ResponseComplete event).
        cls.audit_log = os.path.join(cls.dir.name, "audit.log")
        policy = os.path.join(cls.dir.name, "audit-policy.yaml")
        with open(policy, "w") as f:
            f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
        cls.server = KwServer(["--token-auth-file", tokens, "--authorization-mode", "RBAC",
                               "--proxy-client-cert-file", cls.client["cert"],
                               "--proxy-client-key-file", cls.client["key"],
                               "--audit-policy-file", policy, "--audit-log-path", cls.audit_log,
                               "--audit-log-mode", "blocking"], secure_port=free_port())
        cls.server.start()
        # The stand-in behind metrics-server's Service: an FQDN EndpointSlice (127/8 is refused in
        # IPv4 slices), written before the manifest so that the first check finds it.
        code, text = cls.api("POST", "/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices", {
            "metadata": {"name": "metrics-server-1", "labels": {"kubernetes.io/service-name": "metrics-server"}},
            "addressType": "FQDN", "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}],
            "ports": [{"name": "https", "port": cls.port, "protocol": "TCP"}]})
        assert code == 201, text
        code, text = cls.api("POST", "/api/v1/nodes", {
            "metadata": {"name": "node-1"},
            "status": {"capacity": {"cpu": "2", "memory": "4Gi"}, "allocatable": {"cpu": "2", "memory": "4Gi"}}})
        assert code == 201, text
        if os.path.exists(MANIFEST):
            out = cls.kubectl("apply", "-f", MANIFEST)
            assert out.returncode == 0, out.stderr
        else:  # without the corpus: its Service and APIService, as metrics-server's manifests have them
            code, text = cls.api("POST", "/api/v1/namespaces/kube-system/services", {
                "metadata": {"name": "metrics-server", "labels": {"k8s-app": "metrics-server"}},
                "spec": {"ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": "https"}],
                         "selector": {"k8s-app": "metrics-server"}}})
            assert code == 201, text
            code, text = cls.api("POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
                "metadata": {"name": "v1beta1.metrics.k8s.io", "labels": {"k8s-app": "metrics-server"}},
                "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100,
                         "versionPriority": 100, "insecureSkipTLSVerify": True,
                         "service": {"name": "metrics-server", "namespace": "kube-system"}}})
            assert code == 201, text
        deadline = time.monotonic() + 30
        while cls.available("v1beta1.metrics.k8s.io").get("status") != "True":
            assert time.monotonic() < deadline, cls.available("v1beta1.metrics.k8s.io")
            time.sleep(0.2)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.stand_in.stop()
        cls.dir.cleanup()

    @classmethod
    def api(cls, method, path, body=None, token="admin-token", headers=None, extra=()):
        return https(cls.server.secure_url + path, token, method, body, headers=headers, extra=extra)

    @classmethod
    def kubectl(cls, *args):
        return subprocess.run(["timeout", "60", "kubectl", "--kubeconfig", cls.server.kubeconfig, *args],
                              capture_output=True, text=True)

    @classmethod
    def available(cls, name):
        code, text = cls.api("GET", f"/apis/apiregistration.k8s.io/v1/apiservices/{name}")
        if code != 200:
            return {}
        conditions = json.loads(text).get("status", {}).get("conditions", [])
        return next((c for c in conditions if c["type"] == "Available"), {})

    def tls_socket(self, timeout=20):
        """A TLS connection to kw's secure port, for requests written by hand."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection(("127.0.0.1", self.server.secure_port), timeout=timeout)
        return context.wrap_socket(raw, server_hostname="127.0.0.1")

    @staticmethod
    def send_request(sock, path, upgrade_key=None, extra=""):
        """Writes an admin's GET of `path`; with `upgrade_key`, a WebSocket upgrade."""
        upgrade = (f"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                   f"Sec-WebSocket-Key: {upgrade_key}\r\n") if upgrade_key else ""
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer admin-token\r\n"
                      f"{upgrade}{extra}\r\n").encode())

    def request_head(self, sock, path, upgrade_key=None, extra=""):
        """send_request(), then the answer's head, read a byte at a time (what follows stays unread)."""
        self.send_request(sock, path, upgrade_key, extra)
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += read_exact(sock, 1)
        return head

    def test_the_apiservice_is_available_after_its_check(self):
        condition = self.available("v1beta1.metrics.k8s.io")
        self.assertEqual((condition["reason"], condition["message"]), ("Passed", "all checks passed"))
        self.assertIn("lastTransitionTime", condition)
        checks = [s for s in self.stand_in.seen if s["path"] == GV]
        self.assertTrue(checks)
        headers = dict(checks[0]["headers"])
        self.assertEqual(headers["x-remote-user"], "system:kube-aggregator")
        self.assertEqual(headers["x-remote-group"], "system:masters")

    def test_discovery_lists_the_group(self):
        code, text = self.api("GET", "/apis")
        groups = {g["name"]: g for g in json.loads(text)["groups"]}
        self.assertEqual(groups["metrics.k8s.io"]["preferredVersion"],
                         {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"})
        code, text = self.api("GET", "/apis/metrics.k8s.io")
        self.assertEqual(code, 200)
        self.assertEqual(json.loads(text)["kind"], "APIGroup")
        code, text = self.api("GET", "/apis", headers={
            "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
        items = {i["metadata"]["name"]: i for i in json.loads(text)["items"]}
        [version] = items["metrics.k8s.io"]["versions"]
        self.assertEqual(version["version"], "v1beta1")
        self.assertEqual(sorted(r["resource"] for r in version["resources"]), ["nodes", "pods"])
        code, text = self.api("GET", GV)
        self.assertEqual((code, json.loads(text)["groupVersion"]), (200, "metrics.k8s.io/v1beta1"))

    def test_kubectl_top(self):
        out = self.kubectl("top", "node")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("node-1", out.stdout)
        self.assertIn("250m", out.stdout)
        out = self.kubectl("top", "pod", "-n", "kube-system")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("busy-pod", out.stdout)
        self.assertIn("100m", out.stdout)

    def test_requests_are_proxied_as_the_requester(self):
        code, text = self.api("GET", GV + "/nodes/node-1", headers={
            "Impersonate-User": "jane", "Impersonate-Group": "system:masters",
            "Impersonate-Extra-acme.com%2Fproject": "blue", "X-Remote-User": "spoofed"})
        self.assertEqual(code, 200, text)
        self.assertEqual(json.loads(text)["usage"]["cpu"], "250m")
        [seen] = [s for s in self.stand_in.seen if s["path"] == GV + "/nodes/node-1"]
        names = [name for name, _ in seen["headers"]]
        self.assertNotIn("authorization", names)
        self.assertFalse(any(name.startswith("impersonate-") for name in names))
        self.assertEqual([v for n, v in seen["headers"] if n == "x-remote-user"], ["jane"])
        self.assertEqual(sorted(v for n, v in seen["headers"] if n == "x-remote-group"),
                         ["system:authenticated", "system:masters"])
        self.assertEqual([v for n, v in seen["headers"] if n == "x-remote-extra-acme.com%2fproject"], ["blue"])
        self.assertEqual(seen["client_cn"], "etcd")

    def test_a_request_body_is_forwarded(self):
        code, text = self.api("POST", GV + "/namespaces/default/pods", {"hello": "there"})
        self.assertEqual(code, 201, text)
        self.assertEqual(json.loads(json.loads(text)["echo"]), {"hello": "there"})

    def test_authorization_comes_first(self):
        code, text = self.api("GET", GV + "/nodes", token="nobody-token")
        self.assertEqual(code, 403, text)
        self.assertIn('nodes.metrics.k8s.io is forbidden: User "nobody" cannot list resource "nodes" in API group '
                      '"metrics.k8s.io" at the cluster scope', json.loads(text)["message"])

    def test_watches_stream_through_on_http1_and_http2(self):
        for flag in ("--http1.1", "--http2"):
            with self.subTest(flag=flag):
                code, text = self.api("GET", GV + "/nodes?watch=1", extra=(flag,))
                self.assertEqual(code, 200)
                names = [json.loads(line)["object"]["metadata"]["name"] for line in text.splitlines() if line]
                self.assertEqual(names, ["n0", "n1", "n2"])

    def test_websocket_upgrades_pass_through(self):
        key = base64.b64encode(os.urandom(16)).decode()
        path = GV + "/namespaces/default/pods/busy/exec?command=sh"
        with self.tls_socket() as sock:
            head = self.request_head(sock, path, upgrade_key=key,
                                     extra="Sec-WebSocket-Protocol: v4.channel.k8s.io, base64.channel.k8s.io\r\n")
            lines = head.decode().split("\r\n")
            self.assertTrue(lines[0].startswith("HTTP/1.1 101"), head)
            fields = {name.lower(): value.strip() for name, _, value in (l.partition(":") for l in lines[1:] if l)}
            # The server's own answer, relayed: its accept key and its choice of subprotocol.
            self.assertEqual(fields["sec-websocket-accept"],
                             base64.b64encode(hashlib.sha1(key.encode() + WS_GUID).digest()).decode())
            self.assertEqual(fields["sec-websocket-protocol"], "v4.channel.k8s.io")
            self.assertEqual(fields["upgrade"].lower(), "websocket")
            sock.sendall(ws_frame(1, b"hello", mask=True))
            self.assertEqual(ws_read(sock), (1, b"echo:hello"))
            big = os.urandom(200_000)
            sock.sendall(ws_frame(2, big, mask=True))
            self.assertEqual(ws_read(sock), (2, b"echo:" + big))
            sock.sendall(ws_frame(8, struct.pack(">H", 1000), mask=True))
            self.assertEqual(ws_read(sock), (8, struct.pack(">H", 1000)))
        [seen] = [s for s in self.stand_in.seen if s["path"] == path]
        headers = dict(seen["headers"])
        self.assertEqual(headers["x-remote-user"], "admin")
        self.assertNotIn("authorization", headers)
        self.assertEqual(headers["sec-websocket-key"], key)
        self.assertEqual(seen["client_cn"], "etcd")

    def test_a_tunnel_holds_back_the_faster_side(self):
        """Each side of a relayed upgrade waits for the other instead of filling kw's memory. The
        server reads nothing for two seconds while the client sends 40 MiB; then the client
        reads nothing for two seconds while the server sends 64 MiB. Every byte arrives, and kw
        holds a bounded part of each: the rest waits in the sender."""
        size_in, size_out, pause = 40 << 20, 64 << 20, 2.0
        path = GV + f"/namespaces/default/pods/busy/portforward?in={size_in}&out={size_out}&pause={pause}"
        with self.tls_socket(timeout=60) as sock:
            head = self.request_head(sock, path, upgrade_key=base64.b64encode(os.urandom(16)).decode())
            self.assertTrue(head.startswith(b"HTTP/1.1 101"), head)
            before = rss_bytes(self.server.proc.pid)
            sampler = RssSampler(self.server.proc.pid)
            sampler.start()
            self.addCleanup(sampler.stop.set)
            upload = os.urandom(1 << 20) * (size_in >> 20)
            sent = time.monotonic()
            sock.sendall(upload)  # done once the server reads: kw holds at most its window
            self.assertGreater(time.monotonic() - sent, pause / 2)
            self.assertEqual(read_exact(sock, 32), hashlib.sha256(upload).digest())
            time.sleep(pause)  # the server sends meanwhile, and kw stops reading from it
            got, digest, want = 0, hashlib.sha256(), hashlib.sha256()
            while got < size_out:
                chunk = sock.recv(1 << 20)
                self.assertTrue(chunk, f"the tunnel closed after {got} bytes")
                digest.update(chunk)
                got += len(chunk)
            sampler.stop.set()
            sampler.join()
            for _ in range(size_out // len(PATTERN)):
                want.update(PATTERN)
            self.assertEqual((got, digest.digest()), (size_out, want.digest()))
        # Without flow control kw held most of the 64 MiB (and closed the tunnel at 16 MiB of the upload).
        self.assertLess(sampler.peak - before, 24 << 20, (before, sampler.peak))

    def test_a_slow_client_holds_back_a_proxied_watch(self):
        """The server streams 64 MiB while the client reads nothing for two seconds: kw stops
        reading from the server instead of holding what the client has not taken."""
        size, pause = 64 << 20, 2.0
        with self.tls_socket(timeout=60) as sock:
            self.send_request(sock, f"{GV}/nodes?watch=1&flood={size}")
            before = rss_bytes(self.server.proc.pid)
            sampler = RssSampler(self.server.proc.pid)
            sampler.start()
            self.addCleanup(sampler.stop.set)
            time.sleep(pause)
            reader = sock.makefile("rb")
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += reader.read(1)
            self.assertTrue(head.startswith(b"HTTP/1.1 200"), head)
            digest, want, got = hashlib.sha256(), hashlib.sha256(), 0
            while True:  # the chunks as kw sends them (its own sizes)
                length = int(reader.readline().strip(), 16)
                if length == 0:
                    break
                data = reader.read(length)
                self.assertEqual(reader.read(2), b"\r\n")
                digest.update(data)
                got += len(data)
            sampler.stop.set()
            sampler.join()
        for _ in range(size // len(PATTERN)):
            want.update(PATTERN)
        self.assertEqual((got, digest.digest()), (size, want.digest()))
        self.assertLess(sampler.peak - before, 24 << 20, (before, sampler.peak))

    def test_a_client_that_leaves_a_paused_tunnel_ends_it(self):
        """The client reads nothing and then goes away while kw is not reading from the server
        (the client being behind): kw ends the tunnel, and the server's next send fails."""
        path = GV + f"/namespaces/default/pods/busy/portforward?in=0&out={64 << 20}&pause=0&leave=1"
        with self.tls_socket() as sock:
            head = self.request_head(sock, path, upgrade_key=base64.b64encode(os.urandom(16)).decode())
            self.assertTrue(head.startswith(b"HTTP/1.1 101"), head)
            count = len(self.stand_in.tunnels)
            time.sleep(1.5)  # kw's window fills, and it stops reading from the server
            self.assertEqual(len(self.stand_in.tunnels), count, "the server could send everything")
        left = time.monotonic()
        deadline = left + 10
        while len(self.stand_in.tunnels) == count:
            self.assertLess(time.monotonic(), deadline, "the tunnel to the server stayed open")
            time.sleep(0.05)
        ended = self.stand_in.tunnels[-1]
        self.assertIsNotNone(ended["closed"], ended)
        self.assertLess(ended["sent"], 64 << 20)
        # And kw's side of it is over: the request is complete.
        while not self.audit_stages(path).count("ResponseComplete"):
            self.assertLess(time.monotonic(), deadline, self.audit_stages(path))
            time.sleep(0.05)

    def audit_stages(self, uri):
        with open(self.audit_log) as f:
            return [e["stage"] for e in map(json.loads, f) if e.get("requestURI") == uri]

    def test_a_refused_upgrade_is_answered_as_the_server_answered(self):
        code, text = self.api("GET", GV + "/nodes/node-9", headers={
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode()}, extra=("--http1.1",))
        self.assertEqual(code, 404, text)
        self.assertEqual(json.loads(text)["message"], "not here")

    def test_connections_to_the_server_are_reused(self):
        path = GV + "/nodes/node-1?reuse=1"
        for _ in range(5):
            code, text = self.api("GET", path)
            self.assertEqual(code, 200, text)
        # One request after another goes over the connection kept from the one before.
        peers = {s["peer"] for s in self.stand_in.seen if s["path"] == path}
        self.assertEqual(len(peers), 1, peers)

    def test_an_apiservice_without_its_service(self):
        body = {"metadata": {"name": "v1.unreachable.kw.test"},
                "spec": {"group": "unreachable.kw.test", "version": "v1", "groupPriorityMinimum": 100,
                         "versionPriority": 10, "insecureSkipTLSVerify": True,
                         "service": {"namespace": "default", "name": "gone"}}}
        code, text = self.api("POST", "/apis/apiregistration.k8s.io/v1/apiservices", body)
        self.assertEqual(code, 201, text)
        deadline = time.monotonic() + 10
        while self.available("v1.unreachable.kw.test").get("reason") != "ServiceNotFound":
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.1)
        condition = self.available("v1.unreachable.kw.test")
        self.assertEqual((condition["status"], condition["message"]),
                         ("False", 'service/gone in "default" is not present'))
        code, text = self.api("GET", "/apis/unreachable.kw.test/v1")
        self.assertEqual((code, text), (503, "service unavailable\n"))
        out = self.kubectl("get", "apiservice", "v1.unreachable.kw.test")
        self.assertIn("False (ServiceNotFound)", out.stdout)


if __name__ == "__main__":
    unittest.main()
