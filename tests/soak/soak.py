#!/usr/bin/python3
"""Chaos soak of kw serve: a steady write load and resumable watchers while servers die.

Scenarios (each runs for --seconds, default $KW_SOAK_SECONDS or 600):
  embedded  one kw serve on its SQLite data dir, killed with SIGKILL at random points and
            restarted on the same data dir and port;
  etcd      two kw serve on one 3-member etcd cluster (Debian's /usr/bin/etcd, started here):
            kw A killed and restarted, an etcd member killed and restarted after a pause, and a
            compaction forced mid-run (etcdctl compact), in turns at random points.

Load: writer threads create, update (with the resourceVersion they last saw as precondition)
and delete ConfigMaps labelled soak=1 in two namespaces. Each object has one writer, so its
acknowledged history is a sequence. A write answered 2xx is acknowledged; a write refused
before it was sent (connection refused), or answered 404/409/422/429, was not applied; any
other outcome (reset, timeout, 5xx) is unknown: it may or may not have been applied, and the
writer re-reads the object before touching it again.

Watchers (one of each per server):
  kw      `kw get configmaps -A -l soak=1 -w -o json` (kw's own resuming client); its stderr
          says when it reconnects ("reconnecting") and when a watch expired ("relisting");
  python  python3-kubernetes' Watch.stream in a loop that resumes from the last seen
          resourceVersion (bookmarks included) and, on 410 Gone, relists and emits the
          synthetic ADDED/MODIFIED/DELETED events an informer's Replace would.

Checks, at the end (after the writers stop and every server is up again):
  lost          every object's final state on every server is its last acknowledged state or
                one of the unknown writes after it (an object whose delete was acknowledged is
                gone); the servers agree;
  duplicates    an ADDED for an object the watcher holds, a MODIFIED or DELETED for one it does
                not hold, or a resourceVersion of an object seen twice;
  out-of-order  a resourceVersion of an object not above the one before it, or (python) a
                stream event not above the resourceVersion the stream resumed from;
  missed        an acknowledged create or update the watcher never saw, unless a relist came
                between (a relist may fold several changes into one synthetic event);
  final view    each watcher's objects equal the server's final state.
  rss           VmRSS of each kw serve process (/proc/PID/status), sampled every second
                under load. A server killed and restarted is measured in its last
                incarnation (every disruption falls between 10% and 55% of the run). "start"
                is its sample WARM_UP (90) seconds after that incarnation's first sample, once
                the watch cache's 75 s event window has filled; "end" is taken after the
                writers stopped, the watchers caught up and everything settled ~5 s. In a run
                too short to warm up (the CI run), "start" is the last sample under load and
                the report says so. A violation is end > start * 1.10 (shrinking is fine).
Counts are printed per scenario; the exit status is 1 on any violation.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration", "server"))
from kwtest import KW_BIN, KwServer, free_port, wait_for  # noqa: E402

NAMESPACES = ("soak-a", "soak-b")
LABEL = "soak=1"
# Seconds a server runs under load before its RSS is taken as the start: the watch cache keeps
# at least 75 s of events, so its memory grows for that long after a start.
WARM_UP = 90.0


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def rv_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# --- HTTP ------------------------------------------------------------------------------------
class Refused(Exception):
    """The request was never sent: nothing listens on the port."""


def call(port, method, path, body=None, timeout=10):
    """(status, parsed body) of one request on a fresh connection; Refused when the connection
    could not be made; any other OSError/HTTPException means the outcome is unknown."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        try:
            conn.connect()
        except (ConnectionRefusedError, ConnectionResetError) as e:
            raise Refused(str(e))
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, None
    finally:
        conn.close()


def list_state(port):
    """{namespace/name: (value, rv)} of the soak objects as the server lists them, or None."""
    state = {}
    for ns in NAMESPACES:
        try:
            status, body = call(port, "GET", f"/api/v1/namespaces/{ns}/configmaps?labelSelector=soak%3D1", timeout=20)
        except (Refused, OSError, http.client.HTTPException):
            return None
        if status != 200:
            return None
        for item in body.get("items") or []:
            meta = item["metadata"]
            state[f"{ns}/{meta['name']}"] = ((item.get("data") or {}).get("v"), rv_int(meta.get("resourceVersion")))
    return state


# --- the ledger of writes --------------------------------------------------------------------
class Ledger:
    """Every write's outcome, per object. A state is ("present", value) or ("absent",)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}      # key -> last acknowledged state
        self.unknown = {}    # key -> states written after it whose outcome is unknown
        self.changes = []    # (key, rv, value) of acknowledged creates and updates
        self.deletes = []    # (key, rv of the version deleted) of acknowledged deletes
        self.counts = {"acknowledged": 0, "unknown": 0, "not_applied": 0, "conflicts": 0}

    def ack(self, key, state, rv):
        """An acknowledged write: `rv` is the resourceVersion written, or for a delete the
        resourceVersion of the version deleted (its precondition)."""
        with self.lock:
            self.acked[key] = state
            self.unknown.pop(key, None)
            self.counts["acknowledged"] += 1
            if state[0] == "present":
                self.changes.append((key, rv, state[1]))
            else:
                self.deletes.append((key, rv))

    def maybe(self, key, state):
        with self.lock:
            self.unknown.setdefault(key, []).append(state)
            self.counts["unknown"] += 1

    def count(self, name):
        with self.lock:
            self.counts[name] += 1

    def check(self, final):
        """Objects whose final state is neither the last acknowledged one nor an unknown write."""
        lost = []
        with self.lock:
            for key in set(self.acked) | set(self.unknown) | set(final):
                actual = ("present", final[key][0]) if key in final else ("absent",)
                allowed = [self.acked.get(key, ("absent",))] + self.unknown.get(key, [])
                if actual not in allowed:
                    lost.append((key, actual, allowed[0]))
        return lost


class Writer(threading.Thread):
    """Creates, updates and deletes its own objects until stopped, at about `rate` writes/s."""

    def __init__(self, index, ports, ledger, stop, objects=24, rate=40):
        super().__init__(daemon=True)
        self.index, self.ports, self.ledger, self.stop = index, ports, ledger, stop
        self.keys = [f"{NAMESPACES[i % 2]}/w{index}-{i}" for i in range(objects)]
        self.belief = {key: None for key in self.keys}  # None (read it first), "absent" or an rv
        self.rate = rate
        self.port_index = index
        self.serial = 0
        self.rng = random.Random(index * 7919 + int(time.time()))

    def port(self):
        return self.ports()[self.port_index % len(self.ports())]

    def run(self):
        next_at = time.monotonic()
        while not self.stop.is_set():
            try:
                self.step(self.rng.choice(self.keys))
            except Refused:
                self.port_index += 1  # that server is down: try the other one, if any
                self.stop.wait(0.1)
            next_at = max(next_at + 1.0 / self.rate, time.monotonic() - 1.0)
            self.stop.wait(max(0.0, next_at - time.monotonic()))

    def step(self, key):
        ns, name = key.split("/")
        path = f"/api/v1/namespaces/{ns}/configmaps"
        belief = self.belief[key]
        if belief is None:
            try:
                status, body = call(self.port(), "GET", f"{path}/{name}")
            except (OSError, http.client.HTTPException):
                return
            if status == 200:
                self.belief[key] = body["metadata"]["resourceVersion"]
            elif status == 404:
                self.belief[key] = "absent"
            return
        self.serial += 1
        value = f"w{self.index}-{self.serial}"
        if belief == "absent":
            method, url, state = "POST", path, ("present", value)
            body = {"metadata": {"name": name, "labels": {"soak": "1"}}, "data": {"v": value}}
        elif self.rng.random() < 0.75:
            method, url, state = "PUT", f"{path}/{name}", ("present", value)
            body = {"metadata": {"name": name, "labels": {"soak": "1"}, "resourceVersion": belief}, "data": {"v": value}}
        else:
            method, url, state = "DELETE", f"{path}/{name}", ("absent",)
            body = {"preconditions": {"resourceVersion": belief}}
        try:
            status, answer = call(self.port(), method, url, body)
        except Refused:
            self.ledger.count("not_applied")
            raise
        except (OSError, http.client.HTTPException):
            status, answer = None, None
        if status in (200, 201, 202):
            if method == "DELETE":
                self.belief[key] = "absent"
                self.ledger.ack(key, state, rv_int(belief))
            else:
                rv = answer["metadata"]["resourceVersion"]
                self.belief[key] = rv
                self.ledger.ack(key, state, rv_int(rv))
        elif status in (404, 409, 422, 429):
            self.ledger.count("not_applied")
            if status in (404, 409):
                self.ledger.count("conflicts")
                self.belief[key] = None
        else:
            self.ledger.maybe(key, state)
            self.belief[key] = None


# --- watchers --------------------------------------------------------------------------------
class View:
    """A watcher's record: its events in order, relist marks, and the objects it holds."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.objects = {}   # key -> (value, rv)
        self.log = []       # ("event", type, key, rv, synthetic) | ("relist", max rv seen so far)
        self.max_rv = 0
        self.counts = {"events": 0, "duplicates": 0, "out_of_order": 0, "resumes": 0, "relists": 0}
        self.last_rv = {}   # key -> highest rv seen for it
        self.problems = []

    def problem(self, kind, text):
        self.counts[kind] += 1
        if len(self.problems) < 20:
            self.problems.append(f"{kind}: {text}")

    def event(self, kind, obj, synthetic=False, floor=None):
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace')}/{meta.get('name')}"
        rv = rv_int(meta.get("resourceVersion"))
        value = (obj.get("data") or {}).get("v")
        with self.lock:
            self.counts["events"] += 1
            held = key in self.objects
            if (kind == "ADDED" and held) or (kind != "ADDED" and not held):
                self.problem("duplicates", f"{kind} {key} rv {rv} while {'held' if held else 'not held'}")
            elif kind == "MODIFIED" and self.objects[key][1] == rv:
                self.problem("duplicates", f"MODIFIED {key} rv {rv} seen before")
            previous = self.last_rv.get(key, 0)
            if kind == "DELETED" and synthetic:
                pass  # carries the object as last seen
            elif rv <= previous and not (kind == "DELETED" and rv == previous):
                self.problem("out_of_order", f"{kind} {key} rv {rv} after rv {previous}")
            if floor is not None and not synthetic and rv <= floor:
                self.problem("out_of_order", f"{kind} {key} rv {rv} on a stream resumed from rv {floor}")
            self.last_rv[key] = max(previous, rv)
            if kind == "DELETED":
                self.objects.pop(key, None)
            else:
                self.objects[key] = (value, rv)
            self.log.append(("event", kind, key, rv, synthetic))
            self.max_rv = max(self.max_rv, rv)

    def relist_mark(self):
        with self.lock:
            self.counts["relists"] += 1
            self.log.append(("relist", self.max_rv))

    def snapshot(self):
        with self.lock:
            return dict(self.objects)

    def missed(self, changes):
        """Acknowledged changes (key, rv) never seen, less those a relist may have folded: a
        change after the last rv seen before a relist, whose object's next event after the
        relist is newer, a DELETED, or absent."""
        with self.lock:
            seen = {(entry[2], entry[3]) for entry in self.log if entry[0] == "event"}
            first_rv = next((entry[3] for entry in self.log if entry[0] == "event"), None)
            marks = [i for i, entry in enumerate(self.log) if entry[0] == "relist"]
            missed = []
            for key, rv, _ in changes:
                if (key, rv) in seen or first_rv is None or rv > self.max_rv:
                    continue
                if self.excused(key, rv, marks):
                    continue
                missed.append((key, f"rv {rv}"))
            return missed

    def missed_deletes(self, changes, deletes):
        """Acknowledged deletes the watcher shows no DELETED for: of the version deleted (rv
        p), a DELETED with p <= rv < n, n being the object's next acknowledged create (a
        relist may instead show it DELETED with its last seen rv). Excused: a relist whose
        last rv seen is below n and not below p (or version p was never seen), and deletes
        after the last rv seen."""
        with self.lock:
            if not self.log:
                return []
            by_key = {}
            for key, rv, _ in changes:
                by_key.setdefault(key, []).append(rv)
            for rvs in by_key.values():
                rvs.sort()
            deleted = {}
            for entry in self.log:
                if entry[0] == "event" and entry[1] == "DELETED":
                    deleted.setdefault(entry[2], []).append(entry[3])
            marks = [entry[1] for entry in self.log if entry[0] == "relist"]
            seen = {(entry[2], entry[3]) for entry in self.log if entry[0] == "event"}
            missed = []
            for key, p in deletes:
                later = [rv for rv in by_key.get(key, []) if rv > p]
                n = later[0] if later else None
                if p >= self.max_rv:
                    continue  # not caught up to it
                upper = n if n is not None else float("inf")
                if any(p <= rv < upper for rv in deleted.get(key, [])):
                    continue
                # A relist before the next create that came after the watcher saw version p, or
                # with version p never seen (the relist folded its create and delete).
                if any(mark < upper and (mark >= p or (key, p) not in seen) for mark in marks):
                    continue
                missed.append((key, f"DELETED of rv {p}"))
            return missed

    def excused(self, key, rv, marks):
        for i in marks:
            if self.log[i][1] >= rv:
                continue
            after = next((entry for entry in self.log[i + 1:] if entry[0] == "event" and entry[2] == key), None)
            # A DELETED right after a relist may carry the object as last seen before it.
            if after is None or after[3] > rv or after[1] == "DELETED":
                return True
        return False


class KwWatcher:
    """kw get -w -o json, stdout and stderr in one pipe so relist notices keep their place."""

    def __init__(self, port, name, work):
        self.view = View(name)
        self.port = port
        self.err_path = os.path.join(work, f"{name}.messages")
        self.proc = subprocess.Popen(
            [KW_BIN, "get", "configmaps", "-A", "-l", LABEL, "-w", "-o", "json", "--server", f"http://127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.listed = False
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        with open(self.err_path, "w") as messages:
            for raw in self.proc.stdout:
                line = raw.decode(errors="replace").strip()
                if not line:
                    continue
                if not line.startswith("{"):
                    messages.write(line + "\n")
                    messages.flush()
                    if "relisting" in line:
                        self.view.relist_mark()
                    elif "reconnecting" in line:
                        self.view.counts["resumes"] += 1
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    messages.write("unparsed: " + line + "\n")
                    continue
                self.view.event(event.get("type"), event.get("object") or {})

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.thread.join(10)
        return self.proc.returncode


class PyWatcher:
    """python3-kubernetes' Watch.stream, resumed by resourceVersion, relisting on 410 Gone."""

    def __init__(self, port, name):
        import kubernetes
        self.k8s = kubernetes
        config = kubernetes.client.Configuration()
        config.host = f"http://127.0.0.1:{port}"
        self.api = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(config))
        self.view = View(name)
        self.stopping = threading.Event()
        self.rng = random.Random(port)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def relist(self):
        listing = self.api.list_config_map_for_all_namespaces(label_selector=LABEL, _request_timeout=20)
        listed = {}
        for item in self.api.api_client.sanitize_for_serialization(listing.items):
            meta = item["metadata"]
            listed[f"{meta['namespace']}/{meta['name']}"] = item
        held = self.view.snapshot()
        for key, item in sorted(listed.items()):
            if key not in held:
                self.view.event("ADDED", item, synthetic=True)
            elif held[key][1] != rv_int(item["metadata"].get("resourceVersion")):
                self.view.event("MODIFIED", item, synthetic=True)
        for key in sorted(set(held) - set(listed)):
            ns, name = key.split("/")
            value, rv = held[key]
            self.view.event("DELETED", {"metadata": {"namespace": ns, "name": name, "resourceVersion": str(rv)},
                                        "data": {"v": value}}, synthetic=True)
        return listing.metadata.resource_version

    def run(self):
        rv, failures, first = None, 0, True
        while not self.stopping.is_set():
            try:
                if rv is None:
                    if not first:
                        self.view.relist_mark()
                    rv = self.relist()
                    first = False
                rv, ended = self.stream(rv)
                failures = 0 if ended else failures + 1
            except self.k8s.client.rest.ApiException as e:
                if e.status == 410:
                    rv = None
                    continue
                failures += 1
            except Exception:  # connection refused or reset, read timeout: resume
                failures += 1
            if failures and not self.stopping.is_set():
                if failures >= 20 and rv is not None:
                    rv = None  # the stream keeps failing from this resourceVersion: start over
                self.stopping.wait(min(2.0, 0.1 * 2 ** min(failures, 5)) * self.rng.uniform(0.75, 1.25))
            if rv is not None and not self.stopping.is_set():
                self.view.counts["resumes"] += 1

    def stream(self, rv):
        """Watches from `rv` until the server ends the stream; (last rv seen, ended cleanly)."""
        watch = self.k8s.watch.Watch()
        floor = rv_int(rv)
        try:
            for event in watch.stream(self.api.list_config_map_for_all_namespaces, label_selector=LABEL,
                                      resource_version=rv, allow_watch_bookmarks=True,
                                      timeout_seconds=self.rng.randint(5, 15), _request_timeout=(5, 30)):
                kind, obj = event["type"], event["raw_object"]
                if kind == "BOOKMARK":
                    rv = obj["metadata"]["resourceVersion"]
                else:
                    self.view.event(kind, obj, floor=floor)
                    rv = obj["metadata"]["resourceVersion"]
                    floor = rv_int(rv)
                if self.stopping.is_set():
                    watch.stop()
                    break
        except KeyError:
            return rv, False  # the server answered with a Status, not a stream
        except Exception:
            raise
        return rv, True

    def stop(self):
        self.stopping.set()
        self.thread.join(40)
        return 0


# --- etcd ------------------------------------------------------------------------------------
class EtcdCluster:
    """Three etcd members on free 127.0.0.1 ports; members can be killed and restarted."""

    def __init__(self, work):
        self.work = work
        self.names = ["m0", "m1", "m2"]
        self.client = {n: free_port() for n in self.names}
        self.peer = {n: free_port() for n in self.names}
        self.procs = {}
        self.cluster = ",".join(f"{n}=http://127.0.0.1:{self.peer[n]}" for n in self.names)

    @property
    def endpoints(self):
        return ",".join(f"http://127.0.0.1:{self.client[n]}" for n in self.names)

    def start(self, name):
        url, peer = f"http://127.0.0.1:{self.client[name]}", f"http://127.0.0.1:{self.peer[name]}"
        out = open(os.path.join(self.work, f"etcd-{name}.log"), "ab")
        self.procs[name] = subprocess.Popen(
            ["etcd", "--name", name, "--data-dir", os.path.join(self.work, f"etcd-{name}"),
             "--listen-client-urls", url, "--advertise-client-urls", url,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", self.cluster, "--initial-cluster-token", "kw-soak",
             "--experimental-watch-progress-notify-interval", "1s"],
            stdout=out, stderr=subprocess.STDOUT)
        out.close()

    def start_all(self):
        for name in self.names:
            self.start(name)
        if not wait_for(lambda: self.etcdctl("endpoint", "health").returncode == 0, 60):
            raise RuntimeError("the etcd cluster did not become healthy")

    def kill(self, name):
        proc = self.procs.get(name)
        if proc and proc.poll() is None:
            proc.kill()
            proc.wait()

    def etcdctl(self, *args, endpoints=None):
        return subprocess.run(["timeout", "10", "etcdctl", f"--endpoints={endpoints or self.endpoints}", *args],
                              capture_output=True, text=True, env={**os.environ, "ETCDCTL_API": "3"})

    def compact(self):
        """Compacts at the current revision; the revision, or None."""
        alive = ",".join(f"http://127.0.0.1:{self.client[n]}" for n in self.names
                         if self.procs[n].poll() is None)
        status = self.etcdctl("endpoint", "status", "-w", "json", endpoints=alive)
        try:
            revision = json.loads(status.stdout)[0]["Status"]["header"]["revision"]
        except (ValueError, LookupError):
            return None
        result = self.etcdctl("compact", str(revision), endpoints=alive)
        return revision if result.returncode == 0 else None

    def cleanup(self):
        for name in self.names:
            self.kill(name)


# --- scenarios -------------------------------------------------------------------------------
class Scenario:
    def __init__(self, name, seconds, writers, work):
        self.name, self.seconds, self.work = name, seconds, work
        self.writer_count = writers
        self.ledger = Ledger()
        self.stop_writers = threading.Event()
        self.kills = {}
        self.rss = {}
        self.notes = []

    def bump(self, what):
        self.kills[what] = self.kills.get(what, 0) + 1

    def schedule(self, actions):
        """Times between 10% and 55% of the run, one per action in turn, at random gaps of
        one to two times max(5 s, 1/30 of the run), short enough for each action to come at
        least once."""
        times, t = [], 0.10 * self.seconds
        end = 0.55 * self.seconds
        i = 0
        while t <= end:
            times.append((t, actions[i % len(actions)]))
            i += 1
            gap = max(5.0, self.seconds / 30) * random.uniform(1.0, 2.0)
            t += min(gap, 0.45 * self.seconds / len(actions))
        return times

    def run_load(self, ports, servers, actions, watchers):
        start = time.monotonic()
        writers = [Writer(i, ports, self.ledger, self.stop_writers) for i in range(self.writer_count)]
        for w in writers:
            w.start()
        plan = self.schedule(actions)
        next_sample = 0.0
        log(f"{self.name}: load running for {self.seconds} s; disruptions at "
            + ", ".join(f"{t:.0f}s {a.__name__}" for t, a in plan))
        while time.monotonic() - start < self.seconds:
            now = time.monotonic() - start
            if plan and now >= plan[0][0]:
                _, action = plan.pop(0)
                action()
                continue
            if now >= next_sample:
                next_sample = now + 1.0
                for name, server in servers().items():
                    self.rss.setdefault(name, []).append((time.monotonic(), server.proc.pid, rss_kb(server.proc.pid)))
            time.sleep(0.05)
        self.load_end = time.monotonic()
        self.stop_writers.set()
        for w in writers:
            w.join(30)
        log(f"{self.name}: writers stopped")

    def rss_start(self, name, pid):
        """(kB, warmed up) of process `pid` under load: its first sample WARM_UP seconds after
        its first sample, else its last sample before the writers stopped."""
        own = [(t, kb) for t, p, kb in self.rss.get(name, []) if p == pid and t <= self.load_end and kb]
        if not own:
            return 0, False
        born = own[0][0]
        warm = [kb for t, kb in own if t >= born + WARM_UP]
        return (warm[0], True) if warm else (own[-1][1], False)

    def finish(self, ports, servers, watchers):
        """Final state, watcher checks, RSS; returns (counts, violations)."""
        violations = []
        finals = {}
        for port in ports():
            wait_for(lambda: list_state(port) is not None, 30)
            finals[port] = list_state(port)
        first = next(iter(finals.values()))
        if first is None or any(state != first for state in finals.values()):
            violations.append("the servers' final states differ or could not be listed")
        final = first or {}
        lost = self.ledger.check(final)
        for key, actual, expected in lost[:10]:
            self.notes.append(f"lost: {key} is {actual}, last acknowledged {expected}")
        if lost:
            violations.append(f"{len(lost)} acknowledged writes lost")
        # Watchers: wait until each holds the final state, then stop it.
        for watcher in watchers:
            wait_for(lambda: watcher.view.snapshot() == final, 60)
        time.sleep(3)  # anything after the final state would be a duplicate
        time.sleep(2)
        rss = {name: self.rss_start(name, server.proc.pid) + (rss_kb(server.proc.pid),)
               for name, server in servers().items()}
        with open(os.path.join(self.work, "ledger.json"), "w") as f:
            json.dump({"changes": self.ledger.changes, "deletes": self.ledger.deletes}, f)
        watcher_counts = {}
        for watcher in watchers:
            code = watcher.stop()
            view = watcher.view
            missed = view.missed(self.ledger.changes) + view.missed_deletes(self.ledger.changes, self.ledger.deletes)
            with open(os.path.join(self.work, f"{view.name}.events"), "w") as f:
                for entry in view.log:
                    f.write(" ".join(str(x) for x in entry) + "\n")
            counts = dict(view.counts, missed=len(missed), exit=code)
            watcher_counts[view.name] = counts
            if view.snapshot() != final:
                got = view.snapshot()
                diff = sorted(k for k in set(got) | set(final) if got.get(k) != final.get(k))
                violations.append(f"{view.name}: final view differs from the server in {len(diff)} objects")
                self.notes.append(f"{view.name}: differs at {diff[:5]}")
            for kind in ("duplicates", "out_of_order", "missed"):
                if counts[kind]:
                    violations.append(f"{view.name}: {counts[kind]} {kind}")
            self.notes += [f"{view.name}: {p}" for p in view.problems[:5]]
            self.notes += [f"{view.name}: missed {k} {what}" for k, what in missed[:5]]
        for name, (start_kb, warmed, end_kb) in rss.items():
            if not warmed:
                self.notes.append(f"rss of {name}: its last incarnation ran under load for less than "
                                  f"{WARM_UP:.0f} s; start is its last sample under load")
            if not start_kb or not end_kb:
                violations.append(f"rss of {name} not measured")
            elif end_kb > start_kb * 1.10:
                violations.append(f"rss of {name} grew from {start_kb} kB to {end_kb} kB")
        counts = {
            "scenario": self.name, "seconds": self.seconds,
            "writes": dict(self.ledger.counts, lost=len(lost), objects_final=len(final)),
            "kills": self.kills, "watchers": watcher_counts,
            "rss_kb": {name: {"start": s, "end": e, "warmed_up": w} for name, (s, w, e) in rss.items()},
        }
        return counts, violations


def create_namespaces(port):
    for ns in NAMESPACES:
        status, _ = call(port, "POST", "/api/v1/namespaces", {"metadata": {"name": ns}})
        if status not in (201, 409):
            raise RuntimeError(f"creating namespace {ns}: {status}")


def start_watchers(scenario, port, watchers):
    """Writes a sentinel object and waits until every watcher holds it, so each has listed
    before the load starts."""
    status, body = call(port, "POST", f"/api/v1/namespaces/{NAMESPACES[0]}/configmaps",
                        {"metadata": {"name": "sentinel", "labels": {"soak": "1"}}, "data": {"v": "sentinel"}})
    if status != 201:
        raise RuntimeError(f"creating the sentinel: {status}")
    scenario.ledger.ack(f"{NAMESPACES[0]}/sentinel", ("present", "sentinel"), rv_int(body["metadata"]["resourceVersion"]))
    key = f"{NAMESPACES[0]}/sentinel"
    if not wait_for(lambda: all(key in w.view.snapshot() for w in watchers), 30):
        raise RuntimeError("the watchers did not start")


def restart(server, timeout=60):
    server.stop(signal.SIGKILL)
    server.start(timeout=timeout)


def embedded(seconds, writers, work):
    scenario = Scenario("embedded", seconds, writers, work)
    server = KwServer(data_dir=os.path.join(work, "kw"))
    os.makedirs(server.data_dir)
    server.start()
    watchers = []
    try:
        create_namespaces(server.port)
        watchers = [KwWatcher(server.port, "kw-watch", work), PyWatcher(server.port, "python-watch")]
        start_watchers(scenario, server.port, watchers)

        def kill_kw():
            log("embedded: kill -9 kw serve")
            restart(server)
            scenario.bump("kw")

        scenario.run_load(lambda: [server.port], lambda: {"kw": server}, [kill_kw], watchers)
        time.sleep(3)  # settle
        return scenario.finish(lambda: [server.port], lambda: {"kw": server}, watchers) + (scenario,)
    finally:
        for watcher in watchers:
            watcher.stop()
        server.cleanup()


def with_etcd(seconds, writers, work):
    scenario = Scenario("etcd", seconds, writers, work)
    etcd = EtcdCluster(work)
    servers = {}
    watchers = []
    try:
        etcd.start_all()
        for name in ("kwA", "kwB"):
            os.makedirs(os.path.join(work, name))
            servers[name] = KwServer(extra_args=[f"--etcd={etcd.endpoints}"], data_dir=os.path.join(work, name))
        servers["kwA"].start(timeout=60)
        servers["kwB"].start(timeout=60)
        a, b = servers["kwA"], servers["kwB"]
        create_namespaces(a.port)
        watchers = [KwWatcher(a.port, "kw-watch@A", work), PyWatcher(a.port, "python-watch@A"),
                    KwWatcher(b.port, "kw-watch@B", work), PyWatcher(b.port, "python-watch@B")]
        start_watchers(scenario, a.port, watchers)

        def kill_kw_a():
            log("etcd: kill -9 kw A")
            restart(a)
            scenario.bump("kw")

        def kill_etcd_member():
            name = random.choice(etcd.names)
            pause = min(10.0, max(2.0, seconds / 15))
            log(f"etcd: kill -9 etcd member {name} for {pause:.0f} s")
            etcd.kill(name)
            scenario.bump("etcd")
            time.sleep(pause)
            etcd.start(name)

        def compact():
            revision = etcd.compact()
            log(f"etcd: compacted at revision {revision}")
            if revision:
                scenario.bump("compactions")
            else:
                scenario.notes.append("a compaction failed")

        ports = lambda: [a.port, b.port]
        scenario.run_load(ports, lambda: servers, [kill_kw_a, kill_etcd_member, compact], watchers)
        wait_for(lambda: etcd.etcdctl("endpoint", "health").returncode == 0, 60)
        time.sleep(3)
        return scenario.finish(ports, lambda: servers, watchers) + (scenario,)
    finally:
        for watcher in watchers:
            watcher.stop()
        for server in servers.values():
            server.cleanup()
        etcd.cleanup()


def report(counts, violations, scenario):
    w = counts["writes"]
    print(f"\n== {counts['scenario']} ({counts['seconds']} s) ==")
    print(f"writes: acknowledged={w['acknowledged']} unknown={w['unknown']} not_applied={w['not_applied']} "
          f"(conflicts={w['conflicts']}) lost={w['lost']} objects at the end={w['objects_final']}")
    print("disruptions: " + (", ".join(f"{k}={v}" for k, v in counts["kills"].items()) or "none"))
    for name, c in counts["watchers"].items():
        print(f"watcher {name}: events={c['events']} duplicates={c['duplicates']} out_of_order={c['out_of_order']} "
              f"missed={c['missed']} resumes={c['resumes']} relists={c['relists']} exit={c['exit']}")
    for name, r in counts["rss_kb"].items():
        start, end = r.get("start") or 0, r.get("end") or 0
        change = f"{(end - start) * 100.0 / start:+.1f}%" if start else "n/a"
        print(f"rss {name}: start={start} kB end={end} kB ({change})")
    for note in scenario.notes:
        print("note: " + note)
    for v in violations:
        print("VIOLATION: " + v)
    print(f"result: {'FAIL' if violations else 'ok'}", flush=True)


def main():
    parser = argparse.ArgumentParser(description="kw chaos soak")
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("KW_SOAK_SECONDS", 600)),
                        help="load time per scenario (default $KW_SOAK_SECONDS or 600)")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--json", help="also write the counts to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    parser.add_argument("scenarios", nargs="*", help="embedded, etcd (default both)")
    args = parser.parse_args()
    for name in args.scenarios:
        if name not in ("embedded", "etcd"):
            parser.error(f"unknown scenario {name}: embedded or etcd")
    work = tempfile.mkdtemp(prefix="kw-soak-")
    log(f"work directory {work}, kw {KW_BIN}")
    results, failed = [], False
    try:
        for name in args.scenarios or ["embedded", "etcd"]:
            run = embedded if name == "embedded" else with_etcd
            sub = os.path.join(work, name)
            os.makedirs(sub)
            counts, violations, scenario = run(args.seconds, args.writers, sub)
            report(counts, violations, scenario)
            counts["violations"] = violations
            results.append(counts)
            failed = failed or bool(violations)
    finally:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
        if args.keep or failed:
            log(f"logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
