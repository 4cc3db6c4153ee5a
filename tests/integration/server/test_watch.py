"""Watch streams of kw serve over every transport and encoding, with real clients:
HTTP/1.1 chunked (http.client), h2c (curl --http2-prior-knowledge, nghttp), WebSocket
(python3-websocket); JSON, YAML and Table; resume, 410, bookmarks, selectors."""
import http.client
import json
import socket
import subprocess
import threading
import time
import unittest

import websocket

from kwtest import KwServer, ServerTestCase, pod, read_events

NS = "/api/v1/namespaces/default"


class WatchTest(ServerTestCase):
    def open_watch(self, query, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=15)
        conn.request("GET", query, headers=headers or {})
        return conn, conn.getresponse()

    def create(self, obj, ns="default"):
        status, body = self.server.json("POST", f"/api/v1/namespaces/{ns}/pods", obj)
        self.assertEqual(status, 201, body)
        return body

    def test_http1_chunked_json_events_in_order(self):
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dh1")
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "application/json")
        self.assertEqual(resp.getheader("Transfer-Encoding"), "chunked")
        created = self.create(pod("h1", labels={"t": "h1"}))
        self.server.json("PATCH", NS + "/pods/h1", {"metadata": {"annotations": {"x": "y"}}},
                         {"Content-Type": "application/merge-patch+json"})
        self.server.json("DELETE", NS + "/pods/h1")
        events = read_events(resp, 3)
        conn.close()
        self.assertEqual([e["type"] for e in events], ["ADDED", "MODIFIED", "DELETED"])
        self.assertEqual(events[0]["object"]["metadata"]["uid"], created["metadata"]["uid"])
        rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
        self.assertEqual(rvs, sorted(rvs))
        self.assertTrue(len(set(rvs)) == 3)

    def test_initial_state_then_resume_from_resource_version(self):
        self.create(pod("r1", labels={"t": "resume"}))
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dresume")
        first = read_events(resp, 1)
        conn.close()
        self.assertEqual(first[0]["type"], "ADDED")
        rv = first[0]["object"]["metadata"]["resourceVersion"]
        self.create(pod("r2", labels={"t": "resume"}))
        conn, resp = self.open_watch(NS + f"/pods?watch=1&labelSelector=t%3Dresume&resourceVersion={rv}")
        events = read_events(resp, 1)
        conn.close()
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in events], [("ADDED", "r2")])

    def test_h2c_with_curl_streams_and_ends_cleanly(self):
        out = {}

        def run():
            out["p"] = subprocess.run(
                ["timeout", "20", "curl", "-sS", "-N", "--http2-prior-knowledge", "-w", "\n%{http_version}",
                 f"{self.server.url}{NS}/pods?watch=1&timeoutSeconds=3&labelSelector=t%3Dh2"],
                capture_output=True, text=True)

        t = threading.Thread(target=run)
        t.start()
        time.sleep(0.7)
        self.create(pod("h2a", labels={"t": "h2"}))
        t.join(20)
        p = out["p"]
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.strip().splitlines()
        self.assertEqual(lines[-1], "2")
        self.assertEqual(json.loads(lines[0])["object"]["metadata"]["name"], "h2a")

    def test_nghttp_multiplexes_watches_on_one_connection(self):
        self.create(pod("mux", labels={"t": "mux"}))
        urls = [f"{self.server.url}{NS}/pods?watch=1&timeoutSeconds=2&labelSelector=t%3Dmux&n={i}" for i in range(4)]
        p = subprocess.run(["timeout", "20", "nghttp", "-n", "-s"] + urls, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        stats = [l for l in p.stdout.splitlines() if "/api/v1" in l]
        self.assertEqual(len(stats), 4, p.stdout)
        self.assertTrue(all(" 200 " in l for l in stats), p.stdout)

    def test_websocket_one_message_per_event(self):
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.server.port}{NS}/pods?watch=1&labelSelector=t%3Dws", timeout=10,
            origin=self.server.url)
        try:
            self.create(pod("ws1", labels={"t": "ws"}))
            self.create(pod("ws2", labels={"t": "ws"}))
            messages = [json.loads(ws.recv()) for _ in range(2)]
        finally:
            ws.close()
        self.assertEqual([(m["type"], m["object"]["metadata"]["name"]) for m in messages],
                         [("ADDED", "ws1"), ("ADDED", "ws2")])

    def test_websocket_protobuf_events_are_binary_messages(self):
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.server.port}{NS}/pods?watch=1&labelSelector=t%3Dwsb", timeout=10,
            origin=self.server.url, header=["Accept: application/vnd.kubernetes.protobuf;stream=watch"])
        try:
            self.create(pod("wsb1", labels={"t": "wsb"}))
            opcode, data = ws.recv_data()
        finally:
            ws.close()
        self.assertEqual(opcode, websocket.ABNF.OPCODE_BINARY)
        # One WatchEvent per message, no length prefix: field 1 (type) comes first.
        self.assertEqual(data[:1], b"\x0a")
        self.assertIn(b"ADDED", data[:16])
        self.assertIn(b"wsb1", data)

    def test_yaml_watch_stream(self):
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dyaml",
                                     {"Accept": "application/yaml;stream=watch"})
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "application/yaml;stream=watch")
        self.create(pod("y1", labels={"t": "yaml"}))
        lines = []
        while not lines or not lines[-1].startswith("type:"):
            lines.append(resp.readline().decode())
        conn.close()
        # Keys in sorted order as Kubernetes writes YAML: the object, then the type that ends it.
        self.assertEqual(lines[:2], ["---\n", "object:\n"])
        self.assertEqual(lines[-1], "type: ADDED\n")
        self.assertIn("    name: y1\n", lines)

    def test_table_watch_has_columns_on_first_event_only(self):
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dtable",
                                     {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        self.create(pod("t1", labels={"t": "table"}))
        self.create(pod("t2", labels={"t": "table"}))
        events = read_events(resp, 2)
        conn.close()
        self.assertEqual(events[0]["object"]["kind"], "Table")
        self.assertEqual(events[0]["object"]["columnDefinitions"][0]["name"], "Name")
        self.assertIsNone(events[1]["object"]["columnDefinitions"])
        self.assertEqual(events[1]["object"]["rows"][0]["cells"][0], "t2")

    def test_selector_enter_and_leave(self):
        self.create(pod("mover", labels={"stage": "a"}))
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=stage%3Db")
        for stage in ["b", "b2", "b"]:
            self.server.json("PATCH", NS + "/pods/mover", {"metadata": {"labels": {"stage": stage}}},
                             {"Content-Type": "application/merge-patch+json"})
        events = read_events(resp, 3)
        conn.close()
        self.assertEqual([e["type"] for e in events], ["ADDED", "DELETED", "ADDED"])

    def test_send_initial_events_ends_with_bookmark(self):
        self.create(pod("wl", labels={"t": "wl"}))
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dwl&sendInitialEvents=true"
                                     "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
        events = read_events(resp, 2)
        conn.close()
        self.assertEqual([e["type"] for e in events], ["ADDED", "BOOKMARK"])
        annotations = events[1]["object"]["metadata"]["annotations"]
        self.assertEqual(annotations, {"k8s.io/initial-events-end": "true"})
        status, body = self.server.json("GET", NS + "/pods?watch=1&sendInitialEvents=true")
        self.assertEqual(status, 422)

    def test_send_initial_events_in_a_table_watch(self):
        # kube-apiserver makes every event's object a Table, the bookmark too: its one row's
        # object carries the bookmark's annotations. The first event has the columns.
        self.create(pod("wlt", labels={"t": "wlt"}))
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dwlt&sendInitialEvents=true"
                                     "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
                                     {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        events = read_events(resp, 2)
        conn.close()
        self.assertEqual([e["type"] for e in events], ["ADDED", "BOOKMARK"])
        self.assertEqual(events[0]["object"]["columnDefinitions"][0]["name"], "Name")
        bookmark = events[1]["object"]
        self.assertEqual(bookmark["kind"], "Table")
        self.assertIsNone(bookmark["columnDefinitions"])
        self.assertEqual(len(bookmark["rows"]), 1)
        row_meta = bookmark["rows"][0]["object"]["metadata"]
        self.assertEqual(row_meta["annotations"], {"k8s.io/initial-events-end": "true"})
        self.assertEqual(row_meta["resourceVersion"], bookmark["metadata"]["resourceVersion"])

    def test_send_initial_events_false_streams_only_changes(self):
        self.create(pod("quiet1", labels={"t": "quiet"}))
        conn, resp = self.open_watch(NS + "/pods?watch=1&labelSelector=t%3Dquiet&sendInitialEvents=false"
                                     "&resourceVersionMatch=NotOlderThan")
        self.assertEqual(resp.status, 200)
        self.create(pod("quiet2", labels={"t": "quiet"}))
        events = read_events(resp, 1)
        conn.close()
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in events], [("ADDED", "quiet2")])

    def test_timeout_ends_stream(self):
        start = time.monotonic()
        conn, resp = self.open_watch(NS + "/pods?watch=1&timeoutSeconds=1&labelSelector=t%3Dnone")
        self.assertEqual(resp.read(), b"")
        conn.close()
        self.assertLess(time.monotonic() - start, 5)

    def test_watch_parameter_is_read_as_kube_reads_booleans(self):
        """Only an absent watch, "0" or "false" (any case) lists; anything else, even "maybe" or an
        empty value, watches. The first of repeated values counts."""
        self.create(pod("boolish", labels={"t": "boolish"}))
        for query, watches in (("watch=maybe", True), ("watch", True), ("watch=", True), ("watch=FALSE", False),
                               ("watch=0", False), ("watch=false&watch=true", False), ("watch=1&watch=0", True)):
            with self.subTest(query=query):
                conn, resp = self.open_watch(NS + f"/pods?{query}&timeoutSeconds=1&labelSelector=t%3Dboolish")
                first = json.loads(resp.read().split(b"\n")[0])
                conn.close()
                self.assertEqual(first.get("type") == "ADDED", watches, first)
                self.assertEqual(first.get("kind") == "PodList", not watches, first)

    def test_legacy_watch_path_and_single_object(self):
        self.create(pod("solo", labels={"t": "solo"}))
        self.create(pod("other", labels={"t": "solo"}))
        conn, resp = self.open_watch("/api/v1/watch/namespaces/default/pods/solo")
        events = read_events(resp, 1)
        conn.close()
        self.assertEqual(events[0]["object"]["metadata"]["name"], "solo")
        conn, resp = self.open_watch(NS + "/pods?watch=1&fieldSelector=metadata.name%3Dother")
        events = read_events(resp, 1)
        conn.close()
        self.assertEqual(events[0]["object"]["metadata"]["name"], "other")


class SlowWatcherTest(unittest.TestCase):
    def test_a_watcher_that_does_not_read_is_closed_and_counted(self):
        with KwServer() as server:
            slow = socket.socket()
            slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            slow.connect(("127.0.0.1", server.port))
            slow.sendall(f"GET {NS}/configmaps?watch=1&labelSelector=t%3Dbig HTTP/1.1\r\n"
                         f"Host: 127.0.0.1\r\n\r\n".encode())
            conn, resp = None, None
            try:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                conn.request("GET", NS + "/configmaps?watch=1&labelSelector=t%3Dbig")
                resp = conn.getresponse()
                payload = "x" * (1000 * 1000)
                terminated = False
                for i in range(40):  # at most 40 MB for the slow watcher's queue and socket buffers
                    status, _ = server.json("POST", NS + "/configmaps",
                                            {"metadata": {"name": f"big{i}", "labels": {"t": "big"}},
                                             "data": {"blob": payload}})
                    self.assertEqual(status, 201)
                    self.assertEqual(json.loads(resp.readline())["object"]["metadata"]["name"], f"big{i}")
                    _, _, metrics = server.request("GET", "/metrics")
                    if b'apiserver_terminated_watchers_total{prefix="/registry/configmaps/"} 1' in metrics:
                        terminated = True
                        break
                self.assertTrue(terminated, "the slow watcher was never closed")
            finally:
                slow.close()
                if conn:
                    conn.close()


class ExpiredWatchTest(unittest.TestCase):
    def test_too_old_resource_version_is_200_with_410_error_event(self):
        server = KwServer()
        try:
            server.start()
            status, _ = server.json("POST", NS + "/configmaps", {"metadata": {"name": "old"}})
            self.assertEqual(status, 201)
            server.stop()
            server.start()  # a fresh cache: its window starts at the current revision
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", NS + "/configmaps?watch=1&resourceVersion=1")
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            event = json.loads(resp.readline())
            self.assertEqual(resp.read(), b"")  # and the stream ends
            conn.close()
            self.assertEqual(event["type"], "ERROR")
            self.assertEqual((event["object"]["code"], event["object"]["reason"]), (410, "Expired"))
            self.assertIn("too old resource version", event["object"]["message"])
        finally:
            server.cleanup()


if __name__ == "__main__":
    unittest.main()
