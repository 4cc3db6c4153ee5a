"""The soak's write side: one writer per object set, every outcome in a ledger."""
import http.client
import json
import random
import threading
import time

NAMESPACES = ("soak-a", "soak-b")
LABEL = "soak=1"


def rv_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
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
