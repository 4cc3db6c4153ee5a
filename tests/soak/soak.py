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
  kw      `kw get configmaps -A -l soak=1 -w -o json` (kw's own resuming client: h2c on the
          embedded store; HTTP/1.1 with JSON on kw A and WebSocket with protobuf on kw B);
          its stderr says when it reconnects ("reconnecting") and when a watch expired
          ("relisting");
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
Counts are printed per scenario; the exit status is 1 on any violation. The writers and the
ledger are in load.py, the watchers and their checks in watchers.py.
"""
import argparse
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
from load import NAMESPACES, Ledger, Writer, call, list_state, rv_int  # noqa: E402
from watchers import KwWatcher, PyWatcher  # noqa: E402

# Seconds a server runs under load before its RSS is taken as the start: the watch cache keeps
# at least 75 s of events, so its memory grows for that long after a start.
WARM_UP = 90.0


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
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
        self.restart_seconds = []  # from kill -9 to /readyz answering, per kw restart
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

    def run_load(self, ports, servers, actions):
        """Writers for `seconds` (longer if a disruption overruns), the disruptions on their
        own thread, RSS sampled every second meanwhile."""
        start = time.monotonic()
        writers = [Writer(i, ports, self.ledger, self.stop_writers) for i in range(self.writer_count)]
        for w in writers:
            w.start()
        plan = self.schedule(actions)
        log(f"{self.name}: load running for {self.seconds} s; disruptions at "
            + ", ".join(f"{t:.0f}s {a.__name__}" for t, a in plan))
        errors = []

        def disrupt():
            for at, action in plan:
                time.sleep(max(0.0, start + at - time.monotonic()))
                try:
                    action()
                except Exception as e:  # a server that did not come back
                    errors.append(f"{action.__name__}: {e}")
                    return

        chaos = threading.Thread(target=disrupt, daemon=True)
        chaos.start()
        while time.monotonic() - start < self.seconds or chaos.is_alive():
            for name, server in servers().items():
                pid = server.proc.pid
                self.rss.setdefault(name, []).append((time.monotonic(), pid, rss_kb(pid)))
            time.sleep(1.0)
        if errors:
            raise RuntimeError("; ".join(errors))
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
            "kw_restart_seconds": {"max": round(max(self.restart_seconds, default=0), 2),
                                   "mean": round(sum(self.restart_seconds) / max(1, len(self.restart_seconds)), 2)},
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


def restart(scenario, server, timeout=60):
    """SIGKILL, then start again on the same data dir and port; notes how long it took to be
    ready."""
    server.stop(signal.SIGKILL)
    began = time.monotonic()
    server.start(timeout=timeout)
    scenario.restart_seconds.append(time.monotonic() - began)


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
            restart(scenario, server)
            scenario.bump("kw")

        scenario.run_load(lambda: [server.port], lambda: {"kw": server}, [kill_kw])
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
        # kw's watchers here take the other transports and encodings: HTTP/1.1 chunked JSON,
        # and WebSocket with protobuf frames (the embedded scenario's uses the default, h2c).
        watchers = [KwWatcher(a.port, "kw-watch@A", work, ["--transport", "http1", "--encoding", "json"]),
                    PyWatcher(a.port, "python-watch@A"),
                    KwWatcher(b.port, "kw-watch@B", work, ["--transport", "websocket", "--encoding", "protobuf"]),
                    PyWatcher(b.port, "python-watch@B")]
        start_watchers(scenario, a.port, watchers)

        def kill_kw_a():
            log("etcd: kill -9 kw A")
            restart(scenario, a)
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
        scenario.run_load(ports, lambda: servers, [kill_kw_a, kill_etcd_member, compact])
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
    if counts["kills"].get("kw"):
        r = counts["kw_restart_seconds"]
        print(f"kw restart, kill to ready: mean {r['mean']} s, max {r['max']} s")
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
