#!/usr/bin/env python3
"""Creates per second through one validating admission webhook, against a webhook server that
keeps its connections (kw reuses them: one TLS handshake for the run) and against one that
closes each connection after its answer (a new TCP and TLS connection per call, what kw did
before it kept connections). Both servers are the same Python HTTPS server on 127.0.0.1, with
TCP_NODELAY as Go servers set it; both configurations live in one kw serve, and the runs
alternate. One run prints RESULT lines:

  RESULT webhook.keep.creates_per_s N
  RESULT webhook.close.creates_per_s N
  RESULT webhook.keep.mean_ms N      (and webhook.close.mean_ms)

Usage: webhook_bench.py --kw PATH [--requests N] [--runs K]"""
import argparse
import base64
import http.server
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration", "server"))
from kwtest import KwServer, free_port, https_server, make_tls_files, send_json, stop_https_server  # noqa: E402


def webhook_server(tls, port, close_each):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            send_json(self, 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                  "response": {"uid": review["request"]["uid"], "allowed": True}},
                      headers={"Connection": "close"} if close_each else None)
            if close_each:
                self.close_connection = True

        def log_message(self, *args):
            pass

    return https_server(Handler, tls, port)


def h2load(url, body, requests):
    """(creates/s, mean ms) of `requests` sequential creates."""
    out = subprocess.run(["timeout", "300", "h2load", "-n", str(requests), "-c", "1", "-m", "1", "-d", body,
                          "-H", "Content-Type: application/json", url], capture_output=True, text=True).stdout
    if f"{requests} succeeded" not in out:
        raise SystemExit("h2load did not succeed:\n" + out)
    rate = float(out.split("finished in")[1].split(",")[1].split("req/s")[0])
    mean = [line for line in out.splitlines() if line.startswith("time for request")][0].split()[5]
    mean_ms = float(mean[:-2]) if mean.endswith("ms") else float(mean[:-2]) / 1000 if mean.endswith("us") else float(mean[:-1]) * 1000
    return rate, mean_ms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kw", required=True)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    os.environ["KW_BIN"] = args.kw
    with tempfile.TemporaryDirectory(prefix="kw-bench-webhook-") as directory:
        tls = make_tls_files(directory)
        ports = {"keep": free_port(), "close": free_port()}
        servers = [webhook_server(tls, port, mode == "close") for mode, port in ports.items()]
        server = KwServer([])
        try:
            server.start()
            bundle = base64.b64encode(open(tls["ca"], "rb").read()).decode()
            for mode, port in ports.items():
                server.json("POST", "/api/v1/namespaces", {"metadata": {"name": mode}})
                status, answer = server.json("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
                    "metadata": {"name": mode},
                    "webhooks": [{"name": f"{mode}.bench.kw", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                                  "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": mode}},
                                  "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                             "resources": ["configmaps"]}],
                                  "clientConfig": {"url": f"https://127.0.0.1:{port}/", "caBundle": bundle}}]})
                assert status == 201, answer
            time.sleep(2)  # the configurations reach the webhook plugin
            body = os.path.join(directory, "configmap.json")
            with open(body, "w") as f:
                json.dump({"metadata": {"generateName": "bench-"}, "data": {"k": "v"}}, f)
            for _ in range(args.runs):
                for mode in ("keep", "close"):
                    rate, mean_ms = h2load(f"{server.url}/api/v1/namespaces/{mode}/configmaps", body, args.requests)
                    print(f"RESULT webhook.{mode}.creates_per_s {rate}")
                    print(f"RESULT webhook.{mode}.mean_ms {mean_ms}", flush=True)
        finally:
            server.cleanup()
            for s in servers:
                stop_https_server(s)


if __name__ == "__main__":
    main()
