#!/usr/bin/env python3
"""Summarises the raw benchmark output of scripts/bench.sh (a directory) as a Markdown
report: medians over the runs and ratios against the baselines measured in the same
invocation. Usage: summarize.py OUT_DIR"""
import glob
import json
import os
import statistics
import sys


def results(paths):
    """RESULT lines of the given files -> {name: [values...]}."""
    values = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[0] == "RESULT":
                    values.setdefault(parts[1], []).append(float(parts[2]))
    return values


def median(values, name):
    v = values.get(name)
    return statistics.median(v) if v else None


def fmt(x, digits=3):
    if x is None:
        return "–"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def codec_section(out, lines):
    path = os.path.join(out, "codec.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        report = json.load(f)
    runs = {}
    for b in report["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        entry = runs.setdefault(name, {"ns": [], "bps": [], "ips": []})
        entry["ns"].append(b["cpu_time"] * scale)
        entry["bps"].append(b.get("bytes_per_second", 0))
        entry["ips"].append(b.get("items_per_second", 0))
    med = {k: {m: statistics.median(v[m]) for m in v} for k, v in runs.items()}
    base = results([os.path.join(out, "codec-baseline.txt")]) if os.path.exists(
        os.path.join(out, "codec-baseline.txt")) else {}
    py_loads = median(base, "python.json_loads")
    py_dumps = median(base, "python.json_dumps")
    protoc = median(base, "protoc.decode")
    baseline_of = {"json_parse": ("python json.loads", py_loads), "json_dump": ("python json.dumps", py_dumps),
                   "protobuf_decode_object": ("protoc --decode (per process)", protoc),
                   "protobuf_decode_watch_event": ("kw json_parse", med.get("json_parse", {}).get("ns")),
                   "yaml_decode": ("kw json_parse", med.get("json_parse", {}).get("ns")),
                   "yaml_encode": ("kw json_dump", med.get("json_dump", {}).get("ns")),
                   "protobuf_encode_object": ("kw json_dump", med.get("json_dump", {}).get("ns"))}
    lines += ["## Codecs (one ~3 KB Pod; median of the runs)", "",
              "| benchmark | CPU ns/op | MB/s | items/s | baseline | baseline ns/op | speed-up vs baseline |",
              "|---|---:|---:|---:|---|---:|---:|"]
    for name, m in med.items():
        label, b = baseline_of.get(name, ("", None))
        lines.append(f"| {name} | {fmt(m['ns'])} | {fmt(m['bps'] / 1e6)} | {fmt(m['ips'])} | {label} | {fmt(b)} | "
                     f"{fmt(ratio(b, m['ns']))} |")
    lines += ["", "speed-up = baseline time / kw time (> 1: kw is faster). protoc's figure is one process per "
              "decode, start-up included, as measured.", ""]


def storage_section(out, lines):
    values = results(sorted(glob.glob(os.path.join(out, "storage.*.txt"))))
    if not values:
        return
    lines += ["## Storage backends (median of the runs)", "",
              "| metric | kw sqlite | kw etcd3 (real etcd) | sqlite / etcd3 |", "|---|---:|---:|---:|"]
    metrics = sorted({k.split(".", 1)[1] for k in values if k.startswith(("sqlite.", "etcd3."))},
                     key=lambda k: (not k.startswith("t"), int(k.split(".")[0][1:]) if k.startswith("t") and
                                    k.split(".")[0][1:].isdigit() else 0, k))
    for metric in metrics:
        s, e = median(values, "sqlite." + metric), median(values, "etcd3." + metric)
        unit = ("ms" if metric.endswith(("p50", "p99")) else "% over raw etcd" if metric.endswith("_overhead")
                else "CPU µs" if "cpu_us" in metric else "ops/s" if metric.startswith("t") else "events/s")
        lines.append(f"| {metric} ({unit}) | {fmt(s)} | {fmt(e)} | {fmt(ratio(s, e))} |")
    ctl, e1 = median(values, "etcdctl.t1.creates"), median(values, "etcd3.t1.creates")
    if ctl is not None:
        lines += ["", f"etcdctl baseline (one process per put, same etcd): {fmt(ctl)} puts/s; the etcd3 backend "
                  f"with 1 writer does {fmt(ratio(e1, ctl))}x that."]
    lines += ["", "tN = N writer threads. watch_replay: a watch started before N stored events; watch_live: "
              "a watch open while 8 writers create N keys (latency from write ack to callback). raw_*: the "
              "same operations as a raw gRPC loop against the same etcd, run back to back with kw's in each "
              "round; *_overhead: the median over rounds of raw rate / kw rate - 1 (negative: kw was faster); "
              "cpu_us_per_write: this process's CPU per write.", ""]


FANOUT_TARGETS = {"open_seconds": 3, "rss_per_watcher": 4, "latency_p99": 50, "cpu_per_1m": 4}


def fanout_section(out, lines):
    """fanout.<store>.<transport>.<encoding>.n<N>.w<W>.<metric> and fanout.<store>.list.n<K>.seconds."""
    values = results(sorted(glob.glob(os.path.join(out, "fanout.*.txt"))))
    if not values:
        return
    lines += ["## Watch fan-out through kw serve (1 KiB ConfigMaps; median of the runs)", "",
              "| store | transport | enc | N watchers | W asked/s | writes/s | deliveries/s | p50 ms | p99 ms | "
              "max ms | CPU-s per 1M | RSS KiB per idle watcher | open s | lost | dup | closed |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    scenarios = sorted({tuple(k.split(".")[1:6]) for k in values
                        if len(k.split(".")) == 7 and k.split(".")[2] != "list"},
                       key=lambda t: (t[0], t[1], t[2], int(t[3][1:]), float(t[4][1:])))
    for store, transport, encoding, n, w in scenarios:
        p = f"fanout.{store}.{transport}.{encoding}.{n}.{w}."
        m = lambda metric: median(values, p + metric)
        def cell(metric):
            v = m(metric)
            flag = " ✗" if v is not None and metric in FANOUT_TARGETS and v > FANOUT_TARGETS[metric] else ""
            return fmt(v) + flag
        lines.append(f"| {store} | {transport} | {encoding} | {n[1:]} | {w[1:]} | {fmt(m('write_rate'))} | "
                     f"{fmt(m('delivery_rate'))} | {cell('latency_p50')} | {cell('latency_p99')} | "
                     f"{cell('latency_max')} | {cell('cpu_per_1m')} | {cell('rss_per_watcher')} | "
                     f"{cell('open_seconds')} | {fmt(m('lost') or 0)} | {fmt(m('duplicated') or 0)} | "
                     f"{fmt(m('closed_watchers') or 0)} |")
    lists = sorted(k for k in values if ".list." in k)
    for key in lists:
        parts = key.split(".")
        lines.append("")
        lines.append(f"LIST of {parts[3][1:]} ConfigMaps from the cache ({parts[1]}): {fmt(median(values, key))} s "
                     f"(target < 0.1 s)")
    lines += ["", "deliveries/s = events x watchers received per second, from the first write to the last "
              "receipt. Latency runs from the moment the write is sent to the receipt. CPU-s per 1M: server "
              "utime+stime over the write phase / deliveries x 1e6. RSS per idle watcher: server VmRSS after "
              "opening minus before, / watchers. ✗ marks a figure past the issue's target (p99 50 ms, 4 CPU-s, "
              "4 KiB, 3 s).", ""]


def client_section(out, lines):
    values = results(sorted(glob.glob(os.path.join(out, "client.*.txt"))))
    if not values:
        return
    lines += ["## Client: `kw get -w` against `kubectl get -w` (same recorded stream, median of the runs)", "",
              "| metric | kw | kubectl | kw / kubectl |", "|---|---:|---:|---:|"]
    for output in ("table", "json"):
        k, c = median(values, f"client.kw.{output}.events_per_s"), median(values, f"client.kubectl.{output}.events_per_s")
        lines.append(f"| get -w {output}, events/s | {fmt(k)} | {fmt(c)} | {fmt(ratio(k, c))} |")
    k, c = median(values, "client.kw.startup_ms"), median(values, "client.kubectl.startup_ms")
    lines.append(f"| start-up to first connection, ms | {fmt(k)} | {fmt(c)} | {fmt(ratio(k, c))} |")
    floor = median(values, "client.floor.startup_ms")
    if floor is not None:
        lines.append(f"| the same for a static program that only connects (the harness's share), ms | "
                     f"{fmt(floor)} | | |")
    lines += ["", "Targets: at least 10x kubectl's events/s, start-up under 10 ms.", ""]
    state = results(sorted(glob.glob(os.path.join(out, "client-state.*.txt"))))
    if not state:
        return
    lines += ["## Client: the first state of `kw get pods -w` on a large namespace (median of the runs)", "",
              "| output | metric | watch-list | LIST + WATCH | watch-list / LIST |", "|---|---|---:|---:|---:|"]
    for output in ("table", "name"):
        for metric, label in (("seconds", "seconds to the last pod printed"), ("peak_rss_mib", "peak RSS, MiB")):
            w = median(state, f"client.state.watchlist.{output}.{metric}")
            l = median(state, f"client.state.list.{output}.{metric}")
            lines.append(f"| {output} | {label} | {fmt(w)} | {fmt(l)} | {fmt(ratio(w, l))} |")
    lines += ["", "watch-list: one watch with sendInitialEvents=true (the state ends at the initial-events-end "
              "bookmark); LIST: pages of 500, then a watch. Same binary, same server, same pods.", ""]


def audit_section(out, lines):
    values = results(sorted(glob.glob(os.path.join(out, "audit.*.txt"))))
    if not values:
        return
    lines += ["## What an audit record adds to a request (audit_bench: CPU per request, writer included; "
              "median of the runs)", "",
              "| policy | log mode | ns per request |", "|---|---|---:|"]
    for name, policy, mode in (("none", "level None (baseline: the rule lookup)", "batch"),
                               ("batch", "level Metadata", "batch"), ("blocking", "level Metadata", "blocking")):
        lines.append(f"| {policy} | {mode} | {fmt(median(values, f'audit.{name}.cpu_ns_per_request'))} |")
    lines.append("")


def webhook_section(out, lines):
    values = results(sorted(glob.glob(os.path.join(out, "webhook.*.txt"))))
    if not values:
        return
    lines += ["## Creates through a validating webhook (h2load, one client; median of the runs)", "",
              "| webhook server | creates/s | mean ms |", "|---|---:|---:|"]
    for mode, label in (("keep", "keeps connections (kw reuses them)"),
                        ("close", "closes each connection (a new TLS connection per call)")):
        lines.append(f"| {label} | {fmt(median(values, f'webhook.{mode}.creates_per_s'))} | "
                     f"{fmt(median(values, f'webhook.{mode}.mean_ms'))} |")
    keep, close = median(values, "webhook.keep.creates_per_s"), median(values, "webhook.close.creates_per_s")
    lines += ["", f"Kept connections: {fmt(ratio(keep, close))}x the creates/s of a new connection per call.", ""]


API_STORES, API_TRANSPORTS, API_VERBS, API_CLIENTS = ("embedded", "etcd"), ("h1", "h2"), ("get", "create", "getdeploy", "apply"), (1, 64)
API_AUTHZ = (("", "AlwaysAllow"), ("-rbac", "RBAC"), ("-audit", "AlwaysAllow + audit log (Metadata)"),
             ("-webhooks", "AlwaysAllow + 2 dead webhooks, unmatched"),
             ("-kube", "kube-apiserver, AlwaysAllow"))


def api_section(out, lines):
    """tests/bench/api_bench.sh: RESULT api.<store>.<transport>.<verb>.c<N>.<metric>, <store> being
    embedded or etcd under AlwaysAllow and embedded-rbac or etcd-rbac under RBAC."""
    paths = sorted(glob.glob(os.path.join(out, "api.*.txt")))
    if not paths:
        return
    values = results(paths)
    runs = len(paths)
    lines += ["## REST API (h2load, TLS + bearer token, one connection per client)", "",
              f"Median of {runs} run(s). GET: one 1 KiB ConfigMap; CREATE: POST of a 1 KiB ConfigMap "
              "with generateName; APPLY: server-side apply of an unchanged 5 KiB Deployment (no write); GETDEPLOY: "
              "GET of that Deployment. AlwaysAllow: as a system:masters user; RBAC: as a user outside "
              "system:masters granted get/create on configmaps in default, among 1,000 ClusterRoles and "
              "10,000 RoleBindings.", "",
              "| store | authorization | transport | verb | clients | requests/s | p50 ms | p99 ms |",
              "|---|---|---|---|---:|---:|---:|---:|"]
    both = []
    for store in API_STORES:
        for transport in API_TRANSPORTS:
            for verb in API_VERBS:
                for clients in API_CLIENTS:
                    measured = 0
                    for suffix, authz in API_AUTHZ:
                        key = f"api.{store}{suffix}.{transport}.{verb}.c{clients}"
                        rps = median(values, key + ".rps")
                        if rps is None:
                            continue
                        measured += 1
                        label = "HTTP/1.1" if transport == "h1" else "HTTP/2"
                        lines.append(f"| {store} | {authz} | {label} | {verb} | {clients} | {fmt(rps)} | "
                                     f"{fmt(median(values, key + '.p50_ms'))} | "
                                     f"{fmt(median(values, key + '.p99_ms'))} |")
                    if measured > 1:
                        both.append((store, transport, verb, clients))
    lines.append("")
    for suffix, mode, what in (("-rbac", "RBAC", "RBAC"), ("-audit", "Audit", "the audit log at level Metadata"),
                               ("-webhooks", "Webhooks", "two dead admission webhooks that match none of it")):
        rows = []
        for store, transport, verb, clients in both:
            allow = f"api.{store}.{transport}.{verb}.c{clients}"
            other = f"api.{store}{suffix}.{transport}.{verb}.c{clients}"
            r_a, r_o = median(values, allow + ".rps"), median(values, other + ".rps")
            p_a, p_o = median(values, allow + ".p99_ms"), median(values, other + ".p99_ms")
            if r_a is None or r_o is None:
                continue
            c_a, c_o = median(values, allow + ".cpu_us"), median(values, other + ".cpu_us")
            label = "HTTP/1.1" if transport == "h1" else "HTTP/2"
            rows.append(f"| {store} | {label} | {verb} | {clients} | {fmt(r_a)} | {fmt(r_o)} | {fmt(ratio(r_o, r_a))} "
                        f"| {fmt(p_a)} | {fmt(p_o)} | {fmt(ratio(p_o, p_a))} "
                        f"| {fmt(c_a)} | {fmt(c_o)} | {fmt(ratio(c_o, c_a))} |")
        if rows:
            lines += [f"### {mode} against AlwaysAllow", "",
                      f"| store | transport | verb | clients | req/s AlwaysAllow | req/s {mode} | req/s {mode} / AlwaysAllow "
                      f"| p99 ms AlwaysAllow | p99 ms {mode} | p99 {mode} / AlwaysAllow "
                      f"| server CPU us/req AlwaysAllow | server CPU us/req {mode} | CPU {mode} / AlwaysAllow |",
                      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *rows,
                      "", f"Ratios of the medians: req/s below 1 and p99 above 1 are what {what} costs. The modes run "
                      "in each run, one after the other, each on a fresh kw serve.", ""]
    kube_rows = []
    for transport in API_TRANSPORTS:
        for verb in API_VERBS:
            for clients in API_CLIENTS:
                kw_key, kube_key = f"api.etcd.{transport}.{verb}.c{clients}", f"api.etcd-kube.{transport}.{verb}.c{clients}"
                r_kw, r_kube = median(values, kw_key + ".rps"), median(values, kube_key + ".rps")
                if r_kw is None or r_kube is None:
                    continue
                p_kw, p_kube = median(values, kw_key + ".p99_ms"), median(values, kube_key + ".p99_ms")
                c_kw, c_kube = median(values, kw_key + ".cpu_us"), median(values, kube_key + ".cpu_us")
                label = "HTTP/1.1" if transport == "h1" else "HTTP/2"
                kube_rows.append(f"| {label} | {verb} | {clients} | {fmt(r_kube)} | {fmt(r_kw)} | {fmt(ratio(r_kw, r_kube))} "
                                 f"| {fmt(p_kube)} | {fmt(p_kw)} | {fmt(ratio(p_kw, p_kube))} "
                                 f"| {fmt(c_kube)} | {fmt(c_kw)} | {fmt(ratio(c_kw, c_kube))} |")
    if kube_rows:
        lines += ["### kw against kube-apiserver on the same etcd (AlwaysAllow)", "",
                  "| transport | verb | clients | req/s kube | req/s kw | req/s kw / kube | p99 ms kube | p99 ms kw "
                  "| p99 kw / kube | server CPU us/req kube | server CPU us/req kw | CPU kw / kube |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *kube_rows, "",
                  "Ratios of the medians; each run measures both servers, one after the other, on one etcd "
                  "(each under its own key prefix).", ""]
    applied = []
    for store in API_STORES:
        for suffix, authz in API_AUTHZ:
            for transport in API_TRANSPORTS:
                for clients in API_CLIENTS:
                    key = f"api.{store}{suffix}.{transport}.%s.c{clients}.rps"
                    get, apply_ = median(values, key % "getdeploy"), median(values, key % "apply")
                    if get is not None and apply_ is not None:
                        label = "HTTP/1.1" if transport == "h1" else "HTTP/2"
                        applied.append(f"| {store} | {authz} | {label} | {clients} | {fmt(get)} | {fmt(apply_)} | "
                                       f"{fmt(ratio(get, apply_))} |")
    if applied:
        lines += ["### Server-side apply of an unchanged Deployment against a GET of it", "",
                  "| store | authorization | transport | clients | GET req/s | APPLY req/s | APPLY cost / GET cost |",
                  "|---|---|---|---:|---:|---:|---:|", *applied, "",
                  "Cost = 1 / req/s of the medians; target: an unchanged apply at most 2x a GET, writing nothing.", ""]
    for store in API_STORES:
        matched = median(values, f"api.{store}-webhooks.matched_create_ms")
        if matched is not None:
            lines.append(f"A create on {store} that the two dead webhooks (failurePolicy Ignore, timeoutSeconds 1) "
                         f"do match: {fmt(matched)} ms (median); each webhook adds its timeout.")
        load_s = median(values, f"api.{store}-rbac.policy.load_s")
        objects = median(values, f"api.{store}-rbac.policy.objects")
        if load_s is not None:
            lines.append(f"RBAC policy load on {store}: {fmt(objects)} POSTs as system:masters (Namespaces, "
                         f"ClusterRoles, RoleBindings, the grant) in {fmt(load_s)} s (median), "
                         f"{fmt(ratio(objects, load_s))} objects/s.")
    if lines[-1]:
        lines.append("")


CLUSTER_FIGURES = [
    ("requests_per_s", "requests/s"), ("mutating_p99_ms", "mutating p99 ms"), ("get_p99_ms", "GET p99 ms"),
    ("list_p99_ms", "LIST page p99 ms"), ("watch_lag_p50_ms", "watch lag p50 ms"),
    ("watch_lag_p99_ms", "watch lag p99 ms"), ("pod_startup_p50_ms", "pod start-up p50 ms"),
    ("pod_startup_p99_ms", "pod start-up p99 ms"), ("server_cpu_cores", "server CPU cores"),
    ("server_rss_mib", "server peak RSS MiB"), ("generator_cpu_cores", "generator CPU cores"),
    ("errors", "errors"), ("setup_s", "set-up s"),
]


def cluster_section(out, lines):
    """tests/bench/cluster_run.sh: one cluster_load JSON report per run."""
    reports = []
    for path in sorted(glob.glob(os.path.join(out, "cluster.*.json"))):
        with open(path) as f:
            try:
                reports.append(json.load(f))
            except json.JSONDecodeError:
                continue
    if not reports:
        return
    first = reports[0]
    lines += ["## Simulated cluster (cluster_load)", "",
              f"{first.get('nodes')} nodes, {first.get('pods_target')} pods at steady state, "
              f"{first.get('churn_per_s')} pods/s of churn, {first.get('controllers')} controllers, "
              f"{first.get('duration_s')} s measured; medians over {len(reports)} run(s).", "",
              "| figure | median |", "|---|---:|"]
    for key, label in CLUSTER_FIGURES:
        values = [r[key] for r in reports if isinstance(r.get(key), (int, float))]
        lines.append(f"| {label} | {fmt(statistics.median(values) if values else None)} |")
    lines.append("")


def main():
    out = sys.argv[1]
    lines = ["# kw benchmark results", ""]
    settings = os.path.join(out, "settings")
    if os.path.exists(settings):
        lines += [f"Settings: {open(settings).read().strip()}; machine: {os.cpu_count()} CPUs, load average "
                  f"{open('/proc/loadavg').read().split()[0]} at the end.", ""]
    codec_section(out, lines)
    storage_section(out, lines)
    fanout_section(out, lines)
    client_section(out, lines)
    api_section(out, lines)
    webhook_section(out, lines)
    audit_section(out, lines)
    cluster_section(out, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
