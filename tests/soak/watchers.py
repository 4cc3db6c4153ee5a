"""The soak's watchers: kw get -w and python3-kubernetes' Watch, and what each saw."""
import json
import os
import random
import signal
import subprocess
import threading

from load import LABEL, rv_int
from kwtest import KW_BIN


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
    """kw get -w -o json, stdout and stderr in one pipe so relist notices keep their place;
    `options` picks the transport and wire encoding (e.g. ["--transport", "websocket"])."""

    def __init__(self, port, name, work, options=()):
        self.view = View(name)
        self.port = port
        self.err_path = os.path.join(work, f"{name}.messages")
        self.proc = subprocess.Popen(
            [KW_BIN, "get", "configmaps", "-A", "-l", LABEL, "-w", "-o", "json", "--server", f"http://127.0.0.1:{port}",
             *options],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
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
