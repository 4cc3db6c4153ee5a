#!/usr/bin/env python3
"""Client benchmark: `kw get -w` against `kubectl get -w` on the same recorded watch stream.

A replay proxy sits in front of a running `kw serve`: every request is forwarded to it except
pod watches, which get a pre-rendered stream of EVENTS pod events (Table rows when the client
asks for a Table, else JSON WatchEvents), built from one real pod and one real Table event of
that server. Both clients see byte-identical streams over HTTP/1.1 chunked. Reported (RESULT
lines, one run per invocation; scripts/bench.sh repeats and takes medians):

  client.<tool>.<table|json>.events_per_s   events printed per second, process start to last
  client.<tool>.startup_ms                  process start to the proxy accepting its first connection
  client.floor.startup_ms                   the same for --floor, a static program that only connects:
                                            the harness's share of both tools' start-up figures

Usage: client_bench.py --kw BIN --server HOST:PORT [--events N] [--kubectl BIN] [--floor BIN]
"""
import argparse
import copy
import http.client
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

NAMESPACE = "kw-client-bench"   # stays empty in the server: LISTs return nothing
TEMPLATE_NS = "kw-client-bench-template"
POPULATION = 1000               # distinct pods the stream cycles through
CHUNK = 256 * 1024


def sample_pod(**metadata):
    """The pod the client benchmarks stream and create, with `metadata` (name or generateName)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": dict(metadata, labels={"app": "bench", "tier": "web"}),
            "spec": {"nodeName": "node-1",
                     "containers": [{"name": "app", "image": "registry.example/app:1.2.3",
                                     "ports": [{"containerPort": 8080}],
                                     "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}


def request(server, method, path, body=None, accept="application/json"):
    conn = http.client.HTTPConnection(server, timeout=30)
    headers = {"Accept": accept}
    if body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(body)
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    if resp.status >= 300 and resp.status != 409:
        raise RuntimeError(f"{method} {path}: HTTP {resp.status}: {data[:300]!r}")
    return json.loads(data) if data else None


def first_watch_event(server, path, accept):
    """The first event line of a real watch of the server (bounded by timeoutSeconds)."""
    conn = http.client.HTTPConnection(server, timeout=30)
    conn.request("GET", path, headers={"Accept": accept})
    resp = conn.getresponse()
    line = resp.readline()
    conn.close()
    return json.loads(line)


def record_templates(server):
    """One real pod and one real Table watch event from the server."""
    for ns in (NAMESPACE, TEMPLATE_NS):
        request(server, "POST", "/api/v1/namespaces",
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    pod = sample_pod(name="template")
    request(server, "POST", f"/api/v1/namespaces/{TEMPLATE_NS}/pods", pod)
    base = f"/api/v1/namespaces/{TEMPLATE_NS}/pods?watch=1&timeoutSeconds=5"
    pod_event = first_watch_event(server, base, "application/json")
    table_event = first_watch_event(
        server, base, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
    if table_event["object"].get("kind") != "Table":
        raise RuntimeError("the server did not answer a Table watch")
    return pod_event["object"], table_event["object"]


def render_streams(pod, table, events):
    """The chunked bodies of the JSON and the Table stream: lists of bytes pieces."""
    columns = table["columnDefinitions"]
    row = table["rows"][0]
    streams = {}
    for kind in ("json", "table"):
        pieces, buf = [], []
        size = 0
        for i in range(events):
            name = f"pod-{i % POPULATION:04d}"
            rv = str(1000 + i)
            etype = "ADDED" if i < POPULATION else "MODIFIED"
            if kind == "json":
                obj = copy.deepcopy(pod)
                obj["metadata"].update(name=name, namespace=NAMESPACE, resourceVersion=rv,
                                       uid=f"00000000-0000-4000-8000-{i % POPULATION:012d}")
                obj["metadata"]["labels"]["generation"] = str(i // POPULATION)
            else:
                r = copy.deepcopy(row)
                r["cells"][0] = name
                meta = r.get("object", {}).get("metadata")
                if meta is not None:
                    meta.update(name=name, namespace=NAMESPACE, resourceVersion=rv)
                obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                       "metadata": {"resourceVersion": rv},
                       "columnDefinitions": columns if i == 0 else None, "rows": [r]}
            line = json.dumps({"type": etype, "object": obj}, separators=(",", ":")).encode() + b"\n"
            buf.append(line)
            size += len(line)
            if size >= CHUNK:
                pieces.append(b"".join(buf))
                buf, size = [], 0
        if buf:
            pieces.append(b"".join(buf))
        streams[kind] = [b"%x\r\n" % len(p) + p + b"\r\n" for p in pieces] + [b"0\r\n\r\n"]
    return streams


def initial_events_end(kind):
    """The bookmark that ends a watch-list's initial events, in the stream's form ("json" or
    "table": a Table whose one row carries the bookmark's metadata, as kube-apiserver sends it)."""
    meta = {"resourceVersion": "999", "annotations": {"k8s.io/initial-events-end": "true"}}
    if kind == "json":
        return {"type": "BOOKMARK", "object": {"kind": "Pod", "apiVersion": "v1", "metadata": meta}}
    row = {"cells": ["", "0/0", "", 0, "<unknown>"],
           "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}}
    return {"type": "BOOKMARK", "object": {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                                           "metadata": {"resourceVersion": "999"}, "columnDefinitions": None,
                                           "rows": [row]}}


class Replay:
    """The proxy: forwards to kw serve, replays pod watches, notes when the first connection arrives."""

    def __init__(self, upstream, streams):
        self.upstream = upstream
        self.streams = streams
        self.first_request = None
        self.lock = threading.Lock()
        replay = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self.forward()

            def do_POST(self):
                self.forward()

            def forward(self):
                watch = "/pods?" in self.path and ("watch=1" in self.path or "watch=true" in self.path)
                if watch and f"/namespaces/{NAMESPACE}/" in self.path:
                    return self.replay_watch()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() in ("accept", "content-type", "user-agent")}
                conn = http.client.HTTPConnection(replay.upstream, timeout=30)
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                self.send_response(resp.status)
                self.send_header("Content-Type", resp.getheader("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def replay_watch(self):
                if "resourceVersion=" in self.path and "resourceVersion=&" not in self.path and \
                        int(self.path.split("resourceVersion=")[1].split("&")[0] or 0) >= 1000:
                    # A reconnect after the recorded stream: hold it open briefly, then end.
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    time.sleep(2)
                    self.wfile.write(b"0\r\n\r\n")
                    return
                accept = self.headers.get("Accept", "")
                kind = "table" if "as=Table" in accept else "json"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                if "sendInitialEvents=true" in self.path:
                    # A watch-list: the namespace is empty, so its state ends at once.
                    line = json.dumps(initial_events_end(kind), separators=(",", ":")).encode() + b"\n"
                    self.wfile.write(b"%x\r\n" % len(line) + line + b"\r\n")
                for piece in replay.streams[kind]:
                    self.wfile.write(piece)
                self.wfile.flush()
                self.close_connection = True

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def process_request(self, request, client_address):
                # Stamped on accept, before the handler thread starts: the client's first
                # connection is its first request, and Python's thread start-up is not its time.
                with replay.lock:
                    if replay.first_request is None:
                        replay.first_request = time.perf_counter()
                super().process_request(request, client_address)

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def kubeconfig(path, port):
    with open(path, "w") as f:
        f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: replay
  cluster: {{server: "http://127.0.0.1:{port}"}}
users:
- name: anyone
  user: {{}}
contexts:
- name: replay
  context: {{cluster: replay, user: anyone, namespace: {NAMESPACE}}}
current-context: replay
""")


def run_watch(tool, argv, output, events, env, timeout):
    """Seconds from process start until `events` events were printed (None on failure).
    Table output: one line per event after the header; kw -o json: one line per event;
    kubectl -o json: pretty-printed objects, each ending with a "}" line."""
    marker = b"\n}\n" if (tool == "kubectl" and output == "json") else b"\n"
    extra = 1 if output == "table" else 0
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    seen = 0
    carry = b""
    done = None
    try:
        fd = proc.stdout.fileno()
        while time.perf_counter() - start < timeout:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            data = carry + chunk
            seen += data.count(marker)
            # Keep the bytes after the last marker (a marker may straddle two reads).
            cut = data.rfind(marker)
            carry = data[cut + len(marker):] if cut >= 0 else data
            if seen - extra >= events:
                done = time.perf_counter() - start
                break
    finally:
        proc.kill()
        proc.wait()
    if done is None:
        err = proc.stderr.read().decode(errors="replace")[-500:]
        print(f"# {tool} {output}: saw {seen - extra} of {events} events: {err}", file=sys.stderr)
    return done


def run_startup(argv, replay, env):
    replay.first_request = None
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=60)
    return None if replay.first_request is None else (replay.first_request - start) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kw", required=True)
    ap.add_argument("--kubectl", default=shutil.which("kubectl") or "kubectl")
    ap.add_argument("--server", required=True, help="kw serve's insecure HOST:PORT")
    ap.add_argument("--events", type=int, default=100000)
    ap.add_argument("--floor", help="a program run as FLOOR 127.0.0.1 PORT that only connects (connect_floor)")
    ap.add_argument("--startup-runs", type=int, default=30)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--outputs", default="table,json", help="comma-separated subset of table,json")
    ap.add_argument("--tools", default="kw,kubectl", help="comma-separated subset of kw,kubectl")
    args = ap.parse_args()

    pod, table = record_templates(args.server)
    streams = render_streams(pod, table, args.events)
    replay = Replay(args.server, streams)
    work = tempfile.mkdtemp(prefix="kw-client-bench-")
    try:
        config = os.path.join(work, "kubeconfig")
        kubeconfig(config, replay.port)
        env = dict(os.environ, KUBECONFIG=config, HOME=work)
        tools = {
            "kw": lambda out: [args.kw, "get", "pods", "-w", "--transport=http1"] + (["-o", "json"] if out == "json" else []),
            "kubectl": lambda out: [args.kubectl, "get", "pods", "-w"] + (["-o", "json"] if out == "json" else []),
        }
        # Warm the kubectl discovery cache so both tools start from the same state.
        subprocess.run([args.kubectl, "get", "pods"], env=env, capture_output=True, timeout=60)
        tools = {k: v for k, v in tools.items() if k in args.tools.split(",")}
        for output in args.outputs.split(","):
            for tool, argv in tools.items():
                seconds = run_watch(tool, argv(output), output, args.events, env, args.timeout)
                if seconds:
                    print(f"RESULT client.{tool}.{output}.events_per_s {args.events / seconds:.1f}", flush=True)
        starters = {tool: argv for tool, argv in (("kw", [args.kw, "get", "pods"]),
                                                   ("kubectl", [args.kubectl, "get", "pods"])) if tool in tools}
        if args.floor:
            starters["floor"] = [args.floor, "127.0.0.1", str(replay.port)]
        # Interleaved, so that a noisy stretch of the machine falls on every program alike.
        samples = {tool: [] for tool in starters}
        for _ in range(args.startup_runs):
            for tool, argv in starters.items():
                t = run_startup(argv, replay, env)
                if t:
                    samples[tool].append(t)
        for tool, times in samples.items():
            if times:
                times.sort()
                print(f"RESULT client.{tool}.startup_ms {times[len(times) // 2]:.2f}", flush=True)
    finally:
        replay.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
