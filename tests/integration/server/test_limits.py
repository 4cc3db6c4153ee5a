"""kw serve's request limits, driven with curl and raw sockets: in-flight requests without priority
and fairness (429 with Retry-After, watches and system:masters exempt), header block (431), request target (414), body (413) on
HTTP/1.1 and h2c, and the idle timeout of keep-alive connections."""
import http.client
import json
import os
import socket
import ssl
import subprocess
import tempfile
import time
import unittest

from kwtest import KwServer, Load, free_port, frame_types, h2_exchange, literal_field, raw_exchange, request_frames, wait_for

NS = "/api/v1/namespaces/default"
MIB = 1024 * 1024
TOO_MANY = "Too many requests, please try again later."


def curl(*args, timeout=20):
    return subprocess.run(["timeout", str(timeout), "curl", "-sS", *args], capture_output=True, text=True)


def configmap(name, size=0):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"d": "x" * size}}


# kube-apiserver's max-in-flight filter, which priority and fairness replaces when enabled (the
# default; test_flowcontrol.py).
NO_APF = "--enable-priority-and-fairness=false"


class InflightLimitTest(unittest.TestCase):
    def test_readonly_limit_answers_429_and_watches_still_open(self):
        with KwServer([NO_APF, "--max-requests-inflight=1", "--worker-threads=2"]) as server:
            for i in range(40):  # LISTs of 40 x 20 KiB make each request take a while
                status, _, _ = server.request("POST", NS + "/configmaps", configmap(f"big-{i}", 20000))
                self.assertEqual(status, 201)
            paths = [NS + "/configmaps", "/openapi/v2"]
            with Load(server.port, paths) as load:
                self.assertTrue(wait_for(lambda: load.count(429) > 0), f"no 429 under load: {load.statuses}")
                headers, body = load.refused
                self.assertEqual(headers.get("retry-after"), "1")
                status = json.loads(body)
                self.assertEqual((status["kind"], status["code"], status["reason"], status["message"]),
                                 ("Status", 429, "TooManyRequests", TOO_MANY))
                self.assertEqual(status["details"]["retryAfterSeconds"], 1)
                # Each time a probe shows the limit reached, a watch must still open (HTTP/1.1
                # and h2c): watches are long-running and take no slot.
                opened = 0
                for attempt in range(400):
                    if opened == 6:
                        break
                    probe = curl("-o", "/dev/null", "-w", "%{http_code}", server.url + NS + "/configmaps?limit=1")
                    if probe.stdout != "429":
                        continue
                    transport = "--http1.1" if opened % 2 == 0 else "--http2-prior-knowledge"
                    watch = curl(transport, "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "3",
                                 server.url + NS + "/configmaps?watch=1&timeoutSeconds=1")
                    self.assertEqual(watch.stdout, "200", watch.stderr)
                    opened += 1
                self.assertEqual(opened, 6, "the limit was not reached often enough to check watches")
            self.assertGreater(load.count(200), 0)
            # Below the limit again: requests are served, and the refusals were counted.
            # (the metrics are read from the first answer that is not refused: a slow request of
            # the load may still hold a seat a moment longer)
            served = {}

            def metrics_served():
                answer = server.request("GET", "/metrics")
                served["metrics"] = answer[2]
                return answer[0] == 200

            self.assertTrue(wait_for(metrics_served))
            metrics = served["metrics"].decode()
            self.assertIn('apiserver_dropped_requests_total{request_kind="readOnly"}', metrics)
            line = [l for l in metrics.splitlines() if l.startswith('apiserver_dropped_requests_total{request_kind="readOnly"}')]
            self.assertGreater(int(line[0].split()[-1]), 0)

    def test_mutating_limit_is_separate(self):
        with KwServer([NO_APF, "--max-mutating-requests-inflight=1", "--worker-threads=4"]) as server:
            def body(index, n):
                return {"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"generateName": f"w{index}-"}, "data": {"d": "x" * 50000}}

            with Load(server.port, [NS + "/configmaps"], threads=12, method="POST", body=body) as load:
                self.assertTrue(wait_for(lambda: load.count(429) > 0), f"no 429 under load: {load.statuses}")
                # Reads have their own limit (400 by default): never refused here.
                for _ in range(20):
                    self.assertEqual(server.request("GET", NS + "/configmaps?limit=1")[0], 200)
            self.assertGreater(load.count(201), 0)
            status = json.loads(load.refused[1])
            self.assertEqual(status["reason"], "TooManyRequests")


    def test_system_masters_are_exempt(self):
        # kube-apiserver's max-in-flight filter lets system:masters through, so an administrator
        # can still act on a server that refuses everyone else.
        with tempfile.TemporaryDirectory(prefix="kw-limits-") as config_dir:
            tokens = os.path.join(config_dir, "tokens.csv")
            with open(tokens, "w") as f:
                f.write('load-token,loader,1001\nroot-token,root,1002,"system:masters"\n')
            with KwServer([NO_APF, "--max-requests-inflight=1", "--worker-threads=2", "--token-auth-file", tokens],
                          secure_port=free_port()) as server:
                for i in range(40):
                    status, _, _ = server.request("POST", NS + "/configmaps", configmap(f"big-{i}", 20000))
                    self.assertEqual(status, 201)
                context = ssl.create_default_context(cafile=server.ca_file)

                def connect():
                    return http.client.HTTPSConnection("127.0.0.1", server.secure_port, timeout=20, context=context)

                def as_user(token):
                    return curl("-o", "/dev/null", "-w", "%{http_code}", "--cacert", server.ca_file,
                                "-H", f"Authorization: Bearer {token}",
                                server.secure_url + NS + "/configmaps?limit=1").stdout

                with Load(server.secure_port, [NS + "/configmaps"], connect=connect,
                          headers={"Authorization": "Bearer load-token"}) as load:
                    self.assertTrue(wait_for(lambda: load.count(429) > 0), f"no 429 under load: {load.statuses}")
                    # Whenever the limit refuses an ordinary user, system:masters is still served.
                    checked = 0
                    for attempt in range(400):
                        if checked == 5:
                            break
                        if as_user("load-token") != "429":
                            continue
                        self.assertEqual(as_user("root-token"), "200")
                        checked += 1
                    self.assertEqual(checked, 5, "the limit was not reached often enough to check the exemption")


class SizeLimitTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = KwServer().start()
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.tmp.cleanup()

    def assert_still_serving(self):
        self.assertEqual(self.server.request("GET", NS + "/configmaps")[0], 200)

    def test_http1_header_block_over_1mib_gets_431_and_close(self):
        headers = b"".join(b"X-F%d: %s\r\n" % (i, b"v" * 60000) for i in range(18))  # ~1.03 MiB
        line, closed = raw_exchange(self.server.port, b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
        self.assertEqual(line, "HTTP/1.1 431 Request Header Fields Too Large")
        self.assertTrue(closed)
        # Just under the limit is served.
        headers = b"".join(b"X-F%d: %s\r\n" % (i, b"v" * 60000) for i in range(16))
        line, _ = raw_exchange(self.server.port, b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers + b"\r\n")
        self.assertEqual(line, "HTTP/1.1 200 OK")
        self.assert_still_serving()

    def test_http1_single_field_of_64kib_gets_431_and_the_server_stays_up(self):
        # Beast holds a field in 16-bit lengths: a longer name, value or chunked trailer was an
        # uncaught exception (the process aborted) before any authentication.
        for payload in (
                b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"v" * 70000 + b"\r\n\r\n",
                b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-" + b"n" * 70000 + b": v\r\n\r\n",
                b"POST " + NS.encode() + b"/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                b"Content-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\nX-T: " + b"t" * 70000 + b"\r\n\r\n"):
            line, closed = raw_exchange(self.server.port, payload)
            self.assertEqual(line, "HTTP/1.1 431 Request Header Fields Too Large")
            self.assertTrue(closed)
            self.assert_still_serving()

    def test_http1_smuggling_shapes_get_one_refusal_and_close(self):
        # A Transfer-Encoding other than "chunked" is 501 (as Go's server, kube-apiserver's,
        # answers it); "chunked" twice, Content-Length beside it, or Content-Length twice is 400 (the
        # parser's refusal); and the connection is closed: the body is never read as the next request.
        smuggled = b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        for head, status in ((b"Transfer-Encoding: gzip\r\n", 501), (b"Transfer-Encoding: xchunked\r\n", 501),
                             (b"Transfer-Encoding: chunked, identity\r\n", 501),
                             (b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", 400),
                             (b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", 400),
                             (b"Content-Length: 2\r\nContent-Length: 20\r\n", 400)):
            payload = (b"POST " + NS.encode() + b"/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n" + head +
                       b"Content-Type: application/json\r\n\r\n" + smuggled)
            with socket.create_connection(("127.0.0.1", self.server.port), timeout=10) as conn:
                conn.sendall(payload)
                data = b""
                while chunk := conn.recv(65536):
                    data += chunk
            with self.subTest(head):
                self.assertTrue(data.startswith(b"HTTP/1.1 %d " % status), data[:100])
                self.assertEqual(data.count(b"HTTP/1.1 "), 1)
                self.assertNotIn(b'"major"', data)
        self.assert_still_serving()

    def test_http1_url_over_1mib_gets_414_and_close(self):
        target = NS + "/configmaps?labelSelector=" + "a" * MIB
        line, closed = raw_exchange(self.server.port, f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        self.assertEqual(line, "HTTP/1.1 414 URI Too Long")
        self.assertTrue(closed)
        self.assert_still_serving()

    def test_h2_header_list_over_1mib_is_refused(self):
        # Written by hand (curl will not send such a block): 18 literal fields of 60,000 bytes,
        # each under HPACK's per-field cap, together over the 1 MiB limit.
        fields = b"".join(literal_field(b"x-f%d" % i, b"v" * 60000) for i in range(18))
        data, closed = h2_exchange(self.server.port, request_frames(b"/version", fields), timeout=3)
        types = frame_types(data)
        # 431, or the connection refused by the HTTP/2 layer (nghttp2 allows a header block of
        # a few CONTINUATION frames only): never a 200, never a connection left hanging.
        self.assertTrue(b"431 Request Header Fields Too Large" in data or 7 in types or closed, f"frames {types}")
        self.assertNotIn(b'"major"', data)
        self.assert_still_serving()

    def test_h2_long_path_is_refused(self):
        path = (NS + "/configmaps?labelSelector=" + "a" * MIB).encode()
        data, closed = h2_exchange(self.server.port, request_frames(path), timeout=3)
        types = frame_types(data)
        self.assertTrue(b"414 URI Too Long" in data or 7 in types, f"frames {types}")
        self.assertTrue(closed or b"414" in data)
        self.assert_still_serving()

    def test_body_over_3mib_gets_413_on_http1_and_h2(self):
        path = os.path.join(self.tmp.name, "body.json")
        with open(path, "w") as f:
            json.dump(configmap("too-big", 3 * MIB + 100), f)
        for transport in ("--http1.1", "--http2-prior-knowledge"):
            result = curl(transport, "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
                          "--data-binary", "@" + path, self.server.url + NS + "/configmaps")
            self.assertEqual(result.stdout, "413", f"{transport}: {result.stderr}")
        self.assertEqual(self.server.request("GET", NS + "/configmaps/too-big")[0], 404)
        self.assert_still_serving()

    def test_yaml_aliases_expanding_past_the_bound_get_400(self):
        """A 1 MiB string aliased 1000 times would expand to a GiB: the YAML body is refused as
        go-yaml v2 refuses it, on create and on apply; a few aliases decode as usual."""
        laughs = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: laughs}\n"
                  f'data: {{a: &a "{"x" * MIB}"}}\nx: [{", ".join(["*a"] * 1000)}]\n').encode()
        for method, path, content_type in (("POST", NS + "/configmaps", "application/yaml"),
                                           ("PATCH", NS + "/configmaps/laughs?fieldManager=t",
                                            "application/apply-patch+yaml")):
            with self.subTest(content_type):
                status, _, raw = self.server.request(method, path, laughs, {"Content-Type": content_type})
                self.assertEqual(status, 400, raw[:300])
                body = json.loads(raw)
                self.assertEqual((body["kind"], body["reason"]), ("Status", "BadRequest"))
                self.assertIn("yaml: document contains excessive aliasing", body["message"])
        self.assert_still_serving()
        few = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aliased}\ndata: {a: &v hello, b: *v}\n"
        status, _, raw = self.server.request("POST", NS + "/configmaps", few, {"Content-Type": "application/yaml"})
        self.assertEqual(status, 201, raw[:300])
        self.assertEqual(json.loads(raw)["data"], {"a": "hello", "b": "hello"})


DEEP_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: blobs.deep.example.com
spec:
  group: deep.example.com
  scope: Namespaced
  names: {plural: blobs, singular: blob, kind: Blob}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""


def nested(depth):
    """JSON text of `depth` arrays inside one another."""
    return "[" * depth + "]" * depth


class CrossSiteTest(unittest.TestCase):
    """The cleartext port has no authentication: what a web page could send it from another site
    (a foreign Origin, a rebound DNS name, a form or text/plain body) is refused there. The TLS
    port keeps kube-apiserver's reading of a body without Content-Type as JSON."""

    @classmethod
    def setUpClass(cls):
        cls.server = KwServer(secure_port=free_port()).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def post(self, name, headers, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        try:
            data = body if body is not None else json.dumps({"metadata": {"name": name}}).encode()
            conn.request("POST", NS + "/configmaps", body=data, headers=headers)
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            conn.close()

    def test_foreign_origin_and_host_are_refused(self):
        own = f"127.0.0.1:{self.server.port}"
        json_type = {"Content-Type": "application/json"}
        status, body = self.post("from-evil", {**json_type, "Origin": "http://evil.example"})
        self.assertEqual((status, body["reason"]), (403, "Forbidden"), body)
        self.assertIn('Origin "http://evil.example" is not this server\'s', body["message"])
        status, body = self.post("rebound", {**json_type, "Host": f"evil.example:{self.server.port}"})
        self.assertEqual(status, 403, body)
        self.assertIn("is not a loopback name", body["message"])
        self.assertEqual(self.post("same-origin", {**json_type, "Origin": f"http://{own}"})[0], 201)
        self.assertEqual(self.post("localhost", {**json_type, "Host": f"localhost:{self.server.port}"})[0], 201)
        # Reads are guarded too: a rebound page must not read secrets.
        line, _ = raw_exchange(self.server.port, b"GET /api/v1/secrets HTTP/1.1\r\nHost: evil.example\r\n"
                                                 b"Connection: close\r\n\r\n")
        self.assertEqual(line, "HTTP/1.1 403 Forbidden")

    def test_bodies_a_browser_sends_without_preflight_are_refused(self):
        for i, headers in enumerate(({}, {"Content-Type": "text/plain"},
                                     {"Content-Type": "application/x-www-form-urlencoded"},
                                     {"Content-Type": "multipart/form-data; boundary=x"})):
            status, body = self.post(f"simple-{i}", headers)
            self.assertEqual((status, body["reason"]), (415, "UnsupportedMediaType"), (headers, body))
        self.assertEqual(self.server.request("GET", NS + "/configmaps/simple-0")[0], 404)
        # A PUT needs a preflight a browser never gets here: without a Content-Type it is JSON, as
        # kubectl sends some updates (scale --current-replicas).
        self.assertEqual(self.post("typed", {"Content-Type": "application/json"})[0], 201)
        line, _ = raw_exchange(self.server.port, b"PUT " + NS.encode() + b"/configmaps/typed HTTP/1.1\r\n"
                               b"Host: 127.0.0.1\r\nContent-Length: 31\r\nConnection: close\r\n\r\n"
                               b'{"metadata": {"name": "typed"}}')
        self.assertEqual(line, "HTTP/1.1 200 OK")

    def test_the_tls_port_reads_a_body_without_content_type_as_json(self):
        pki = os.path.join(self.server.data_dir, "pki")
        out = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", self.server.ca_file,
                              "--cert", os.path.join(pki, "admin.crt"), "--key", os.path.join(pki, "admin.key"),
                              "-H", "Content-Type:", "--data-binary", '{"metadata": {"name": "untyped"}}',
                              f"{self.server.secure_url}{NS}/configmaps"], capture_output=True, text=True, timeout=20)
        self.assertEqual(out.stdout, "201", out.stderr)


class UnauthenticatedBodyTest(unittest.TestCase):
    """A request the server refuses for its credentials is answered (401) as soon as its head is
    in: without credentials nobody makes the server read and hold a body."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tokens = os.path.join(cls.tmp.name, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('good-token,writer,writer,"system:masters"\n')
        cls.server = KwServer(["--token-auth-file", tokens], secure_port=free_port()).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.tmp.cleanup()

    def ask(self, extra_headers):
        """Sends a head promising 3 MB of body and 3 bytes of it; the status line, or 'waiting'."""
        context = ssl.create_default_context(cafile=self.server.ca_file)
        context.set_alpn_protocols(["http/1.1"])
        with socket.create_connection(("127.0.0.1", self.server.secure_port), timeout=2) as raw:
            with context.wrap_socket(raw, server_hostname="localhost") as s:
                s.sendall(b"POST " + NS.encode() + b"/configmaps HTTP/1.1\r\nHost: localhost\r\n"
                          b"Content-Type: application/json\r\nContent-Length: 3000000\r\n" + extra_headers +
                          b"\r\n{\"a")
                data = b""
                try:
                    while b"\r\n" not in data:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                except socket.timeout:
                    return "waiting"
                return data.split(b"\r\n")[0].decode()

    def test_no_or_wrong_credentials_get_401_before_the_body(self):
        self.assertEqual(self.ask(b""), "HTTP/1.1 401 Unauthorized")
        self.assertEqual(self.ask(b"Authorization: Bearer wrong\r\n"), "HTTP/1.1 401 Unauthorized")
        self.assertEqual(self.ask(b"Expect: 100-continue\r\n"), "HTTP/1.1 401 Unauthorized")
        # With good credentials the server waits for the body.
        self.assertEqual(self.ask(b"Authorization: Bearer good-token\r\n"), "waiting")


class NestingDepthTest(unittest.TestCase):
    """Bodies nested deeper than kube-apiserver's 10,000 levels are refused with 400 before they
    are parsed, on every way in (JSON and YAML bodies, each patch type, apply); an object
    nested as deep as allowed is stored, patched, applied, listed, watched and read back in every
    format without exhausting a thread's stack."""

    @classmethod
    def setUpClass(cls):
        cls.server = KwServer().start()
        status, _, raw = cls.server.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                            DEEP_CRD.encode(), {"Content-Type": "application/yaml"})
        assert status == 201, raw
        deadline = time.monotonic() + 20
        while cls.server.request("GET", "/apis/deep.example.com/v1/namespaces/default/blobs")[0] != 200:
            assert time.monotonic() < deadline, "the CRD was not served"
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def refused(self, method, path, body, content_type):
        status, _, raw = self.server.request(method, path, body.encode(), {"Content-Type": content_type})
        self.assertEqual(status, 400, raw[:300])
        self.assertEqual(json.loads(raw)["reason"], "BadRequest")
        self.assertEqual(self.server.request("GET", "/readyz")[0], 200)
        return json.loads(raw)["message"]

    def test_too_deep_bodies_get_400(self):
        self.server.json("POST", NS + "/configmaps", {"metadata": {"name": "target"}})
        deep = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + nested(20000) + "}"
        self.assertIn("exceeded max depth", self.refused("POST", NS + "/configmaps", deep, "application/json"))
        self.assertIn("exceeded max depth", self.refused("PUT", NS + "/configmaps/target", deep, "application/json"))
        for patch_type in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
            self.assertIn("exceeded max depth",
                          self.refused("PATCH", NS + "/configmaps/target", '{"x":' + nested(20000) + "}", patch_type))
        self.refused("PATCH", NS + "/configmaps/target",
                     '[{"op":"add","path":"/x","value":' + nested(20000) + "}]", "application/json-patch+json")
        self.refused("PATCH", NS + "/configmaps/target?fieldManager=t", deep, "application/apply-patch+yaml")
        yaml_deep = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\nx: " + nested(20000) + "\n"
        self.refused("POST", NS + "/configmaps", yaml_deep, "application/yaml")

    def test_json_patch_bounds(self):
        """Answers recorded from kube-apiserver v1.23.13: copies may add 3 MiB in all and a patch
        holds at most 10,000 operations; every failed JSON patch gets the same generic 422."""
        status, _ = self.server.json("POST", NS + "/configmaps", {"metadata": {"name": "copied"},
                                                                 "data": {"a": "x" * 400000}})
        self.assertEqual(status, 201)
        patch = NS + "/configmaps/copied"
        headers = {"Content-Type": "application/json-patch+json"}
        refused = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                   "message": "the server rejected our request due to an error in our request", "reason": "Invalid",
                   "details": {}, "code": 422}
        copies = [{"op": "copy", "from": "/data/a", "path": f"/data/b{i}"} for i in range(10)]
        started = time.monotonic()
        status, body = self.server.json("PATCH", patch, copies, headers=headers)
        self.assertEqual((status, body), (422, refused))
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(self.server.json("PATCH", patch, copies[:1], headers=headers)[0], 200)
        for failing in ([{"op": "test", "path": "/data/a", "value": "y"}], [{"op": "remove", "path": "/data/nosuch"}]):
            self.assertEqual(self.server.json("PATCH", patch, failing, headers=headers), (422, refused))
        many = [{"op": "test", "path": "/metadata/name", "value": "copied"}] * 10001
        status, body = self.server.json("PATCH", patch, many, headers=headers)
        self.assertEqual(status, 413, body)
        self.assertEqual(body["message"],
                         "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001")
        self.assertEqual(self.server.json("PATCH", patch, many[:10000], headers=headers)[0], 200)

    def test_the_deepest_allowed_object_is_served_in_every_format(self):
        path = "/apis/deep.example.com/v1/namespaces/default/blobs"
        _, listed = self.server.json("GET", path)
        since = listed["metadata"]["resourceVersion"]
        x = '{"a":' * 9990 + "{}" + "}" * 9990  # objects: every walk recurses through them
        body = '{"apiVersion":"deep.example.com/v1","kind":"Blob","metadata":{"name":"deep"},"x":' + x + "}"
        status, _, raw = self.server.request("POST", path, body.encode(), {"Content-Type": "application/json"})
        self.assertEqual(status, 201, raw[:300])
        for accept in ("application/json", "application/yaml", "application/json;as=Table;v=v1;g=meta.k8s.io"):
            with self.subTest(accept):
                status, _, raw = self.server.request("GET", path + "/deep", headers={"Accept": accept}, timeout=60)
                self.assertEqual(status, 200, raw[:200])
                self.assertLess(len(raw), 20 * len(body))  # YAML goes to flow style, not quadratic indentation
                status, _, raw = self.server.request("GET", path, headers={"Accept": accept}, timeout=60)
                self.assertEqual(status, 200, raw[:200])
                status, _, raw = self.server.request(
                    "GET", f"{path}?watch=1&resourceVersion={since}&timeoutSeconds=1", headers={"Accept": accept},
                    timeout=60)
                self.assertIn(b"ADDED", raw)
        status, _, raw = self.server.request("PATCH", path + "/deep", b'{"metadata":{"labels":{"a":"b"}}}',
                                             {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, raw[:200])
        status, _, raw = self.server.request("PATCH", path + "/deep?fieldManager=t&force=true", body.encode(),
                                             {"Content-Type": "application/apply-patch+yaml"}, timeout=60)
        self.assertEqual(status, 200, raw[:200])
        self.assertEqual(self.server.request("GET", "/readyz")[0], 200)


class PathDecodingTest(unittest.TestCase):
    def test_a_path_is_percent_decoded_once(self):
        # As Go decodes a URL path: /configmaps/a%2541 names "a%41" (which, holding a '%', is
        # no object name), not "aA".
        with KwServer() as server:
            status, body = server.json("GET", NS + "/configmaps/a%2541")
            self.assertEqual(status, 400)
            self.assertEqual(body["message"], 'Name parameter invalid: "a%41": may not contain \'%\'')


class WatchTimeoutTest(unittest.TestCase):
    def test_huge_timeout_seconds_keeps_the_watch_open(self):
        # timeoutSeconds=INT64_MAX wrapped around the clock and ended the watch at once.
        with KwServer() as server:
            _, listed = server.json("GET", NS + "/configmaps")
            rv = listed["metadata"]["resourceVersion"]
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", NS + f"/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=9223372036854775807")
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            time.sleep(0.5)
            server.json("POST", NS + "/configmaps", {"metadata": {"name": "after"}})
            line = resp.readline()  # an empty line is the end of the stream
            self.assertIn(b'"after"', line)
            conn.close()


class FileDescriptorExhaustionTest(unittest.TestCase):
    def test_accept_backs_off_when_out_of_descriptors(self):
        # With every descriptor in use, accept() fails with EMFILE at once; retried in a tight
        # loop it took a whole core. The listener waits instead (5 ms doubling to 1 s), and serves
        # again once descriptors are free.
        server = KwServer(launcher=["prlimit", "--nofile=96:96", "--"]).start()  # kw raises soft to hard
        conns = []
        try:
            for _ in range(150):
                conns.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            time.sleep(0.5)

            def cpu_seconds():
                with open(f"/proc/{server.proc.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

            before = cpu_seconds()
            time.sleep(2)
            self.assertLess(cpu_seconds() - before, 0.3)  # not spinning on accept
        finally:
            for conn in conns:
                conn.close()
        deadline = time.monotonic() + 10
        while server.request("GET", "/version")[0] != 200:
            self.assertLess(time.monotonic(), deadline, "not serving after descriptors were freed")
            time.sleep(0.2)
        server.cleanup()


class IdleTimeoutTest(unittest.TestCase):
    def test_idle_connections_are_closed(self):
        with KwServer(["--idle-timeout-seconds=1"]) as server:
            # HTTP/1.1: one request, then silence.
            started = time.monotonic()
            line, closed = raw_exchange(server.port, b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            self.assertEqual(line, "HTTP/1.1 200 OK")
            self.assertTrue(closed)
            self.assertLess(time.monotonic() - started, 8)
            # h2c: the preface and SETTINGS, then silence: GOAWAY, then the close.
            started = time.monotonic()
            data, closed = h2_exchange(server.port, b"")
            self.assertTrue(closed)
            self.assertLess(time.monotonic() - started, 8)
            self.assertIn(7, frame_types(data), f"no GOAWAY in {frame_types(data)}")

    def test_active_connection_is_kept(self):
        with KwServer(["--idle-timeout-seconds=1"]) as server:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            first_socket = None
            for _ in range(6):  # requests 0.5 s apart keep the connection open past the timeout
                conn.request("GET", "/version")
                response = conn.getresponse()
                response.read()
                self.assertEqual(response.status, 200)
                first_socket = first_socket or conn.sock
                self.assertIs(conn.sock, first_socket)
                time.sleep(0.5)
            conn.close()


if __name__ == "__main__":
    unittest.main()
