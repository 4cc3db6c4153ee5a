#!/usr/bin/env python3
"""Client benchmark: `kw get pods -w` over a large collection, its first state fetched by
watch-list (one watch with sendInitialEvents) against LIST (paged, 500 a page) and WATCH.

The pods are created once in a namespace of the running `kw serve` (h2load, POSTs with
generateName; skipped when they are there already). Each run starts `kw get pods -w`, waits
until it has printed every pod, then stops it with SIGINT. Reported (RESULT lines; the
baseline is the LIST mode of the same binary in the same invocation):

  client.state.<watchlist|list>.<table|name>.seconds       start to the last pod printed
  client.state.<watchlist|list>.<table|name>.peak_rss_mib  the client's peak resident memory

Usage: client_state_bench.py --kw BIN --server HOST:PORT [--pods N]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from client_bench import request, sample_pod

NAMESPACE = "kw-state-bench"
POD = sample_pod(generateName="p-")


def pods_there(server):
    try:
        body = request(server, "GET", f"/api/v1/namespaces/{NAMESPACE}/pods?limit=1")
    except RuntimeError:
        return 0
    return len(body.get("items", [])) + body["metadata"].get("remainingItemCount", 0)


def populate(server, count):
    """Makes the namespace hold at least `count` pods; how many it holds."""
    request(server, "POST", "/api/v1/namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    missing = count - pods_there(server)
    if missing <= 0:
        return pods_there(server)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as body:
        json.dump(POD, body)
    try:
        started = time.monotonic()
        subprocess.run(["timeout", "900", "h2load", "-n", str(missing), "-c", "4", "-m", "16", "-t", "2",
                        "-d", body.name, "-H", "content-type: application/json",
                        f"http://{server}/api/v1/namespaces/{NAMESPACE}/pods"],
                       check=True, stdout=subprocess.DEVNULL)
        print(f"# created {missing} pods in {time.monotonic() - started:.1f} s", flush=True)
    finally:
        os.unlink(body.name)
    there = pods_there(server)
    if there < count:
        raise RuntimeError(f"only {there} of {count} pods were created")
    return there


def run(kw, server, count, mode, output):
    """Seconds until every pod is printed, and the peak RSS in MiB."""
    env = dict(os.environ, KUBE_FEATURE_WatchListClient="true" if mode == "watchlist" else "false",
               HOME=tempfile.gettempdir(), KUBECONFIG="")
    args = [kw, "get", "pods", "-n", NAMESPACE, "-w", "--server", f"http://{server}"]
    if output == "name":
        args += ["-o", "name"]
    want = count + (1 if output == "table" else 0)  # the table's header line
    started = time.monotonic()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = 0
    deadline = started + 600
    while lines < want and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines += 1
    seconds = time.monotonic() - started
    proc.send_signal(signal.SIGINT)
    proc.stdout.close()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    if lines < want:
        raise RuntimeError(f"{mode} {output}: {lines} of {want} lines printed")
    return seconds, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kw", required=True)
    parser.add_argument("--server", required=True, help="HOST:PORT of a kw serve (plain HTTP)")
    parser.add_argument("--pods", type=int, default=100000)
    args = parser.parse_args()
    count = populate(args.server, args.pods)
    for output in ("table", "name"):
        for mode in ("watchlist", "list"):
            seconds, rss = run(args.kw, args.server, count, mode, output)
            print(f"RESULT client.state.{mode}.{output}.seconds {seconds:.2f}")
            print(f"RESULT client.state.{mode}.{output}.peak_rss_mib {rss:.0f}", flush=True)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, subprocess.CalledProcessError, OSError) as error:
        print(f"client_state_bench.py: {error}", file=sys.stderr)
        sys.exit(1)
