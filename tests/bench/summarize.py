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
        unit = "ms" if metric.endswith(("p50", "p99")) else "ops/s" if metric.startswith("t") else "events/s"
        lines.append(f"| {metric} ({unit}) | {fmt(s)} | {fmt(e)} | {fmt(ratio(s, e))} |")
    ctl, e1 = median(values, "etcdctl.t1.creates"), median(values, "etcd3.t1.creates")
    if ctl is not None:
        lines += ["", f"etcdctl baseline (one process per put, same etcd): {fmt(ctl)} puts/s; the etcd3 backend "
                  f"with 1 writer does {fmt(ratio(e1, ctl))}x that."]
    lines += ["", "tN = N writer threads. watch_replay: a watch started before N stored events; watch_live: "
              "a watch open while 8 writers create N keys (latency from write ack to callback).", ""]


def fanout_section(out, lines):
    values = results(sorted(glob.glob(os.path.join(out, "fanout.*.txt"))))
    if not values:
        return
    base = median(values, "fanout.baseline.w0.write_rate")
    lines += ["## Watch fan-out through kw serve (embedded store; median of the runs)", "",
              f"Baseline: {fmt(base)} creates/s with 0 watchers (one keep-alive HTTP/1.1 writer).", "",
              "| transport | encoding | watchers | events | creates/s | vs 0 watchers | deliveries/s | p50 ms | p99 ms | "
              "undelivered | closed | deliveries vs json |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    scenarios = sorted({tuple(k.split(".")[1:4]) for k in values if not k.startswith("fanout.baseline")},
                       key=lambda t: (t[0], t[1], int(t[2][1:])))
    for transport, encoding, w in scenarios:
        p = f"fanout.{transport}.{encoding}.{w}."
        rate = median(values, p + "write_rate")
        delivery = median(values, p + "delivery_rate")
        json_delivery = median(values, f"fanout.{transport}.json.{w}.delivery_rate")
        lines.append(f"| {transport} | {encoding} | {w[1:]} | {fmt(median(values, p + 'events'))} | {fmt(rate)} | {fmt(ratio(rate, base))} | "
                     f"{fmt(delivery)} | {fmt(median(values, p + 'latency_p50'))} | "
                     f"{fmt(median(values, p + 'latency_p99'))} | {fmt(median(values, p + 'undelivered') or 0)} | "
                     f"{fmt(median(values, p + 'closed_watchers') or 0)} | {fmt(ratio(delivery, json_delivery))} |")
    lines += ["", "deliveries/s = events x watchers received per second, from the first write to the last "
              "receipt. Latency is from the writer's ack to receipt (an event received before its ack counts "
              "as 0). undelivered/closed: events not received / watchers the server closed (slow-consumer "
              "policy) before the deadline.", ""]


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
    print("\n".join(lines))


if __name__ == "__main__":
    main()
