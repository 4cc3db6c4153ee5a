"""ComponentStatus probes the scheduler (10259) and the controller-manager (10257) as
kube-apiserver's HTTP prober does: GET /healthz over TLS, certificate not verified. The answers
were recorded from kube-apiserver v1.23.13 against the same stand-ins: the body of a 2xx, "HTTP
probe failed with statuscode: N", Go's dial error when nothing listens, and "net/http: TLS
handshake timeout" (after 10 s) for a listener that never completes the handshake."""
import http.server
import json
import socket
import tempfile
import unittest

from kwtest import KwServer, https_server, make_tls_files, stop_https_server

SCHEDULER, CONTROLLER_MANAGER = 10259, 10257


def port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def healthz(code, body):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


@unittest.skipUnless(port_free(SCHEDULER) and port_free(CONTROLLER_MANAGER), "the components' ports are taken")
class ComponentStatusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="kw-cs-")
        cls.tls = make_tls_files(cls.dir.name)
        cls.server = KwServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def condition(self, name):
        status, body = self.server.json("GET", f"/api/v1/componentstatuses/{name}")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["metadata"], {"name": name, "creationTimestamp": None})
        return body["conditions"][0]

    def test_nothing_listening(self):
        self.assertEqual(self.condition("scheduler"), {
            "type": "Healthy", "status": "False",
            "message": 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused'})

    def test_healthy(self):
        server = https_server(healthz(200, "ok"), self.tls, SCHEDULER)
        try:
            self.assertEqual(self.condition("scheduler"), {"type": "Healthy", "status": "True", "message": "ok"})
        finally:
            stop_https_server(server)

    def test_unhealthy(self):
        server = https_server(healthz(500, "[-]ping failed\nhealthz check failed"), self.tls, CONTROLLER_MANAGER)
        try:
            self.assertEqual(self.condition("controller-manager"), {
                "type": "Healthy", "status": "False", "message": "HTTP probe failed with statuscode: 500"})
        finally:
            stop_https_server(server)

    def test_the_list_and_the_store(self):
        status, body = self.server.json("GET", "/api/v1/componentstatuses")
        self.assertEqual(status, 200, body)
        self.assertEqual([i["metadata"]["name"] for i in body["items"]], ["scheduler", "controller-manager", "etcd-0"])
        self.assertEqual(body["items"][2]["conditions"], [
            {"type": "Healthy", "status": "True", "message": '{"health":"true"}'}])


if __name__ == "__main__":
    unittest.main()
