"""Test harness: starts a real `kw serve` on free 127.0.0.1 ports with a temp data dir and
stops it after (also on failure). Every wait is bounded."""
import http.client
import http.server
import json
import re
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

KW_BIN = os.environ.get("KW_BIN", os.path.join(os.path.dirname(__file__), "../../../build/cli/kw"))


def make_tls_files(directory, dns=("localhost",)):
    """A throwaway CA and one certificate for 127.0.0.1 (and the `dns` names) usable as server and
    client cert."""
    ca, cert, key = (os.path.join(directory, n) for n in ("ca.crt", "tls.crt", "tls.key"))
    ca_key = os.path.join(directory, "ca.key")
    ext = os.path.join(directory, "ext.cnf")
    with open(ext, "w") as f:
        names = ",".join(f"DNS:{name}" for name in dns)
        f.write(f"subjectAltName=IP:127.0.0.1,{names}\nextendedKeyUsage=serverAuth,clientAuth\n")
    run = lambda *a: subprocess.run(["timeout", "20", "openssl", *a], check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "1", "-subj", "/CN=test-ca")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert + ".csr", "-subj", "/CN=etcd")
    run("x509", "-req", "-in", cert + ".csr", "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
        "-days", "1", "-extfile", ext)
    return {"ca": ca, "cert": cert, "key": key}


def https_server(handler, tls, port, client_ca=None):
    """A threaded HTTPS server for `handler` (a BaseHTTPRequestHandler class) on 127.0.0.1:port with
    the certificate in `tls`, serving in the background; with `client_ca`, client certificates
    signed by it are asked for (not required). Stop it with stop_https_server()."""

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # a caller that gave up (a timeout test) is expected

    # Answers leave at once, as from a Go server (TCP_NODELAY): a kept connection does not wait
    # out the client's delayed ACK between a response's head and body.
    handler.disable_nagle_algorithm = True
    server = Server(("127.0.0.1", port), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls["cert"], tls["key"])
    if client_ca:
        context.load_verify_locations(client_ca)
        context.verify_mode = ssl.CERT_OPTIONAL
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def send_json(handler, code, data, content_type="application/json", headers=None):
    """Answers a BaseHTTPRequestHandler's request: `data` as JSON (bytes as they are), with
    Content-Length and any extra headers."""
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def stop_https_server(server):
    server.shutdown()
    server.server_close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def https(url, token=None, method="GET", body=None, headers=None, ca=None, extra=(), timeout=20):
    """(code, body text) of one request made with curl (TLS not verified unless `ca` is given)."""
    args = ["timeout", str(timeout), "curl", "-sS", "-o", "-", "-w", "\n%{http_code}", "-X", method]
    args += ["--cacert", ca] if ca else ["-k"]
    if token:
        args += ["-H", f"Authorization: Bearer {token}"]
    for name, value in (headers or {}).items():
        for one in value if isinstance(value, list) else [value]:
            args += ["-H", f"{name}: {one}"]
    if body is not None:
        args += ["-H", "Content-Type: application/json", "--data-binary", json.dumps(body)]
    # Binary answers (protobuf) come back with their undecodable bytes replaced.
    out = subprocess.run(args + list(extra) + [url], capture_output=True, encoding="utf-8", errors="replace")
    text, _, code = out.stdout.rpartition("\n")
    return int(code or 0), text


def write_tokens(directory, tokens):
    """A --token-auth-file in `directory` for [{token, user, uid?, groups?}]; its path."""
    path = os.path.join(directory, "tokens.csv")
    with open(path, "w") as f:
        for t in tokens:
            groups = ",".join(t.get("groups") or [])
            f.write(f'{t["token"]},{t["user"]},{t.get("uid") or t["user"]}' + (f',"{groups}"' if groups else "") + "\n")
    return path


# Replaying a recorded PUT: the edit the recording made to its own GET, made to kw's object.
def merge_diff(before, after):
    """The JSON merge patch that turns `before` into `after` (server-set metadata aside)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    out = {key: None for key in before if key not in after}
    for key, value in after.items():
        if key in ("resourceVersion", "managedFields", "uid", "creationTimestamp"):
            continue
        if key not in before:
            out[key] = value
        elif before[key] != value:
            out[key] = merge_diff(before[key], value)
    return out


def merge(target, patch):
    if not isinstance(patch, dict):
        return patch
    target = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = merge(target.get(key), value)
    return target


def object_path(path):
    """The object a subresource path belongs to (its /status or /approval left off)."""
    for tail in ("/status", "/approval"):
        if path.endswith(tail):
            return path[: -len(tail)]
    return path


class KwServer:
    """A kw serve process; use as a context manager."""

    def __init__(self, extra_args=(), data_dir=None, port=None, secure_port=None, launcher=()):
        self.launcher = list(launcher)  # runs kw, e.g. ["prlimit", "--nofile=96:96", "--"]
        self.own_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="kw-it-")
        self.port = port or free_port()
        self.secure_port = secure_port or 0
        self.extra_args = list(extra_args)
        self.proc = None
        self.log_path = os.path.join(self.data_dir, "serve.log")

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def secure_url(self):
        return f"https://127.0.0.1:{self.secure_port}"

    @property
    def kubeconfig(self):
        return os.path.join(self.data_dir, "admin.kubeconfig")

    @property
    def ca_file(self):
        return os.path.join(self.data_dir, "pki", "ca.crt")

    def start(self, timeout=20):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            self.launcher + [KW_BIN, "serve", "--data-dir", self.data_dir, "--insecure-port", str(self.port), "--secure-port", str(self.secure_port)]
            + self.extra_args,
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"kw serve exited with {self.proc.returncode}: {self.read_log()}")
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.05)
        raise RuntimeError("kw serve did not become ready: " + self.read_log())

    def read_log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()
        return self.proc.returncode if self.proc else None

    def cleanup(self):
        if self.proc and self.proc.poll() is not None and self.proc.returncode not in (0, -signal.SIGKILL):
            print(f"\nkw serve had exited with {self.proc.returncode}; its log:\n{self.read_log()}", file=sys.stderr)
        elif os.environ.get("KW_IT_SHOW_LOG"):
            print(f"\nkw serve log:\n{self.read_log()}", file=sys.stderr)
        self.stop(signal.SIGKILL)
        if self.own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()

    # --- helpers -----------------------------------------------------------------------------
    def request(self, method, path, body=None, headers=None, timeout=10):
        data = None
        headers = dict(headers or {})
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def json(self, method, path, body=None, headers=None):
        status, _, raw = self.request(method, path, body, headers)
        return status, json.loads(raw) if raw else None

    def kubectl(self, *args, timeout=30, check=True):
        cmd = ["timeout", str(timeout), "kubectl", f"--server={self.url}", *args]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if check and out.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr}")
        return out


def kubectl_requests(log):
    """The (verb, url) of each request in kubectl -v=6's log: kubectl up to 1.30 writes
    'GET http://... 200 OK', later ones '"Response" verb="GET" url="http://..."'."""
    out = []
    for line in log.splitlines():
        if m := re.search(r'"Response" verb="([A-Z]+)" url="([^"]+)"', line):
            out.append((m.group(1), m.group(2)))
        elif m := re.search(r"\] (GET|POST|PUT|PATCH|DELETE) (https?://\S+)", line):
            out.append((m.group(1), m.group(2)))
    return out


class EtcdServer:
    """A real etcd (Debian etcd-server) on free 127.0.0.1 ports with its own data dir."""

    def __init__(self, tls=None):
        self.dir = tempfile.mkdtemp(prefix="kw-etcd-")
        self.client_port, self.peer_port = free_port(), free_port()
        self.proc = None
        self.tls = tls  # {"ca", "cert", "key"}: serve clients over TLS and require client certificates

    @property
    def url(self):
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self.client_port}"

    def start(self, timeout=30):
        peer = f"http://127.0.0.1:{self.peer_port}"
        self.log = open(os.path.join(self.dir, "etcd.log"), "ab")
        self.proc = subprocess.Popen(
            ["etcd", "--name", "kw", "--data-dir", os.path.join(self.dir, "data"),
             "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"kw={peer}", "--experimental-watch-progress-notify-interval", "1s"]
            + (["--cert-file", self.tls["cert"], "--key-file", self.tls["key"], "--client-cert-auth",
                "--trusted-ca-file", self.tls["ca"]] if self.tls else []),
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.healthy():
                return self
            time.sleep(0.1)
        raise RuntimeError("etcd did not become healthy")

    def healthy(self):
        args = ["timeout", "5", "etcdctl", f"--endpoints={self.url}", "endpoint", "health"]
        if self.tls:
            args += ["--cacert", self.tls["ca"], "--cert", self.tls["cert"], "--key", self.tls["key"]]
        return subprocess.run(args, capture_output=True, env={"ETCDCTL_API": "3"}).returncode == 0

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


class Background:
    """A command running in its own process group, killed (the whole group) on exit, and
    bounded by `timeout` seconds even if the test forgets it."""

    def __init__(self, args, timeout=30):
        self.proc = subprocess.Popen(["timeout", str(timeout), *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)

    def __enter__(self):
        return self.proc

    def __exit__(self, *exc):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.communicate()


class ServerTestCase(unittest.TestCase):
    """One kw serve for the whole test class."""

    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.server = KwServer(cls.server_args)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()


def read_events(resp, count, timeout=10):
    """Reads `count` newline-delimited JSON events from a streaming http.client response."""
    events = []
    deadline = time.monotonic() + timeout
    while len(events) < count and time.monotonic() < deadline:
        line = resp.readline()
        if not line:
            break
        events.append(json.loads(line))
    return events


def pod(name, labels=None, node=None, image="nginx"):
    spec = {"containers": [{"name": "c", "image": image}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}}, "spec": spec}


# --- load ------------------------------------------------------------------------------------
class Load:
    """Threads sending requests in a loop on keep-alive connections, counting the statuses."""

    def __init__(self, port, paths, threads=12, method="GET", body=None, connect=None, headers=None):
        self.port, self.paths, self.method, self.body = port, paths, method, body
        self.connect = connect or (lambda: http.client.HTTPConnection("127.0.0.1", self.port, timeout=20))
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.statuses = {}
        self.refused = None  # (headers with lower-case names, body) of one 429
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(threads)]

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(30)

    def run(self, index):
        conn = self.connect()
        n = 0
        while not self.stop.is_set():
            path = self.paths[(index + n) % len(self.paths)]
            n += 1
            try:
                body = None if self.body is None else json.dumps(self.body(index, n)).encode()
                conn.request(self.method, path, body=body, headers=self.headers)
                response = conn.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = self.connect()
                continue
            with self.lock:
                self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
                if response.status == 429 and self.refused is None:
                    self.refused = ({k.lower(): v for k, v in response.getheaders()}, payload)
        conn.close()

    def count(self, status):
        with self.lock:
            return self.statuses.get(status, 0)


def wait_for(predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


# --- raw HTTP/1.1 and h2c exchanges (requests no client library will send) ---------------------
def raw_exchange(port, payload, timeout=10):
    """Sends payload on a fresh connection; returns (status line, closed by the server)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(payload)
        except OSError:
            pass  # the server may answer and close before the whole payload is in
        data = b""
        closed = False
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
        return data.split(b"\r\n", 1)[0].decode(), closed


H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def hpack_integer(value, prefix_bits):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([value])
    out = [limit]
    value -= limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal_field(name, value):
    """HPACK literal header field without indexing, new name, no Huffman coding."""
    return b"\x00" + hpack_integer(len(name), 7) + name + hpack_integer(len(value), 7) + value


def request_frames(path, extra=b""):
    """A GET on stream 1: HEADERS, then CONTINUATIONs of 16 KiB (the default frame size)."""
    block = b"\x04" + hpack_integer(len(path), 7) + path  # :path, name from the static table
    block += b"\x82\x86\x41\x09127.0.0.1" + extra  # :method GET, :scheme http, :authority
    pieces = [block[i:i + 16384] for i in range(0, len(block), 16384)]
    frames = b""
    for i, piece in enumerate(pieces):
        kind = 0x1 if i == 0 else 0x9
        flags = (0x1 if i == 0 else 0) | (0x4 if i == len(pieces) - 1 else 0)  # END_STREAM, END_HEADERS
        frames += len(piece).to_bytes(3, "big") + bytes([kind, flags]) + (1).to_bytes(4, "big") + piece
    return frames


def h2_exchange(port, frames, timeout=10):
    """h2c with prior knowledge: preface, empty SETTINGS, frames; returns (bytes read, closed),
    reading until the server closes or stays silent for `timeout` seconds."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(H2_PREFACE + frames)
        except OSError:
            pass
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return data, True
            except TimeoutError:
                return data, False  # still open: HTTP/2 answers a stream and keeps the connection
            if not chunk:
                return data, True
            data += chunk


def frame_types(data):
    types, at = [], 0
    while at + 9 <= len(data):
        types.append(data[at + 3])
        at += 9 + int.from_bytes(data[at:at + 3], "big")
    return types


# --- protobuf wire reading (no generated code) ----------------------------------------------
def fields(data):
    """Top-level (field number, bytes) pairs of length-delimited fields of a protobuf message."""
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 2:
            length, i = varint(data, i)
            out.append((number, data[i:i + length]))
            i += length
        elif wire == 0:
            _, i = varint(data, i)
        else:
            raise ValueError(f"unexpected wire type {wire}")
    return out


def varint(data, i):
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def rss_bytes(pid):
    """The resident set of a process, in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class RssSampler(threading.Thread):
    """Samples a process's resident set every 5 ms until `stop` is set; `peak` is the largest."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.stop = threading.Event()
        self.peak = 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, rss_bytes(self.pid))
            except OSError:
                return
            self.stop.wait(0.005)
