"""An HTTPS admission webhook server for the tests: one behaviour per path, and every
AdmissionReview it was sent kept in `reviews` as (path, review), and the address each came
from in `peers` as (path, (host, port)). It answers ConversionReviews
too, for the colour CRDs (colour_definition) whose conversion webhook it is."""
import base64
import http.server
import json
import threading
import time

from kwtest import https_server, send_json, stop_https_server


def patch_response(ops):
    return {"patchType": "JSONPatch", "patch": base64.b64encode(json.dumps(ops).encode()).decode()}


def label_patch(obj, key, value):
    """A JSON patch that sets metadata.labels[key] on `obj`."""
    if not obj.get("metadata", {}).get("labels"):
        return [{"op": "add", "path": "/metadata/labels", "value": {key: value}}]
    return [{"op": "add", "path": "/metadata/labels/" + key.replace("~", "~0").replace("/", "~1"), "value": value}]


def colour_schema(field):
    """A version's schema: spec.FIELD, a string."""
    return {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {field: {"type": "string"}}}}}}


def colour_definition(group, singular, url, ca_bundle):
    """A namespaced CRD of kind singular.title() served at v1 (stored; spec.color) and v2
    (spec.colour), converted by the webhook at `url` (colour_converted)."""
    kind = singular.title()
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{singular}s.{group}"},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"plural": singular + "s", "singular": singular, "kind": kind, "listKind": kind + "List"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": colour_schema("color")},
                                  {"name": "v2", "served": True, "storage": False, "schema": colour_schema("colour")}],
                     "conversion": {"strategy": "Webhook", "webhook": {
                         "conversionReviewVersions": ["v1"],
                         "clientConfig": {"url": url, "caBundle": ca_bundle}}}}}


def colour_converted(obj, desired):
    """A copy of `obj` at apiVersion `desired`: v1 spec.color <-> v2 spec.colour."""
    obj = json.loads(json.dumps(obj))
    spec = obj.setdefault("spec", {})
    old, new = ("color", "colour") if desired.endswith("/v2") else ("colour", "color")
    if old in spec:
        spec[new] = spec.pop(old)
    obj["apiVersion"] = desired
    return obj


def conversion_answer(review, objects, result=None):
    return {"apiVersion": review["apiVersion"], "kind": "ConversionReview",
            "response": {"uid": review["request"]["uid"], "convertedObjects": objects,
                         "result": result or {"status": "Success"}}}


class WebhookPeer:
    def __init__(self, tls, port):
        self.tls = tls
        self.port = port
        self.reviews = []
        self.peers = []
        self.lock = threading.Lock()
        peer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                review = json.loads(self.rfile.read(length) or b"null")
                path = self.path.split("?")[0]
                with peer.lock:
                    peer.reviews.append((path, review))
                    peer.peers.append((path, self.client_address))
                peer.answer(self, path, review)

            def log_message(self, *args):
                pass

        self.server = https_server(Handler, tls, port)

    def stop(self):
        stop_https_server(self.server)

    def sent(self, path):
        """The reviews sent to `path` so far."""
        with self.lock:
            return [review for p, review in self.reviews if p == path]

    def addresses(self, path):
        """The client addresses the reviews sent to `path` came from."""
        with self.lock:
            return [address for p, address in self.peers if p == path]

    def clear(self):
        with self.lock:
            self.reviews.clear()
            self.peers.clear()

    def answer(self, handler, path, review):
        if review.get("kind") == "ConversionReview":
            desired = review["request"]["desiredAPIVersion"]
            objects = [colour_converted(obj, desired) for obj in review["request"]["objects"]]
            return send_json(handler, 200, conversion_answer(review, objects))
        request = review.get("request") or {}
        obj = request.get("object") or {}
        response = {"uid": request.get("uid"), "allowed": True}
        version = review.get("apiVersion", "admission.k8s.io/v1")
        name = path.strip("/")
        if name == "deny":
            response.update(allowed=False, status={"code": 403, "message": "no thanks", "reason": "NotWelcome"})
        elif name == "deny-plain":
            response.update(allowed=False)
        elif name == "deny-reason":
            response.update(allowed=False, status={"reason": "NotAllowedHere"})
        elif name in ("label", "label-again", "reinvoked"):
            response.update(patch_response(label_patch(obj, "seen-by-" + name, "yes")))
        elif name == "count":
            calls = len(self.sent(path))
            response.update(patch_response(label_patch(obj, "count-calls", str(calls))))
        elif name == "recolor":
            response.update(patch_response([{"op": "replace", "path": "/spec/color", "value": "blue"}]))
        elif name == "add-container":
            response.update(patch_response([{"op": "add", "path": "/spec/containers/-",
                                             "value": {"name": "sidecar", "image": "busybox"}}]))
        elif name == "invalid-patch":
            response.update(patch_response([{"op": "replace", "path": "/spec/containers/0/name", "value": "Bad_Name!"}]))
        elif name == "failing-patch":
            response.update(patch_response([{"op": "remove", "path": "/no/such/field"}]))
        elif name == "patch-no-type":
            response["patch"] = base64.b64encode(b"[]").decode()
        elif name == "warn":
            response.update(warnings=["first warning", "second warning"], auditAnnotations={"checked": "yes"})
        elif name == "slow":
            time.sleep(2)
        elif name == "wrong-uid":
            response["uid"] = "not-the-uid"
        elif name == "no-response":
            return send_json(handler, 200, {"apiVersion": version, "kind": "AdmissionReview"})
        elif name == "bad-json":
            return send_json(handler, 200, b"this is not json")
        elif name == "error-500":
            return send_json(handler, 500, b"boom", "text/plain")
        elif name == "redirect":
            return send_json(handler, 302, b"", headers={"Location": "/allow"})
        elif name == "huge":
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(1 << 30))
            handler.end_headers()
            chunk = b" " * (1 << 20)
            try:
                for _ in range(1024):
                    handler.wfile.write(chunk)
            except OSError:
                pass
            return None
        return send_json(handler, 200, {"apiVersion": version, "kind": "AdmissionReview", "response": response})
