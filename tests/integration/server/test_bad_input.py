"""Bad input against one running kw serve: a table of requests that break each limit or try an
attack, each sent over HTTP/1.1 (raw socket), h2c (curl, or hand-written frames where curl will
not send the request) and, for reads, a WebSocket upgrade. Every request must get its status
(and, where the answer is a Status, its reason and a fragment of its message). While the table
runs, another client reads a ConfigMap every 20 ms (p99 under 100 ms), the server's RSS is
sampled (peak under 2 x idle + the largest allowed body), and at the end the server still serves."""
import base64
import http.client
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import unittest
from dataclasses import dataclass, field

from kwtest import KwServer, RssSampler, frame_types, h2_exchange, literal_field, request_frames, rss_bytes

NS = "/api/v1/namespaces/default"
CM = NS + "/configmaps"
MIB = 1024 * 1024
MAX_BODY = 3 * MIB  # kw serve's default largest request body, as kube-apiserver's
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}
INSECURE_PORT = "the insecure port serves only local clients that are not web browsers"
REFUSED = "refused"  # h2: the status, or the connection refused by the HTTP/2 layer (GOAWAY)


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    status: int
    reason: str | None = None  # the Status' reason; None: the answer is not a Status
    message: str = ""  # a fragment of the Status' message, or of a plain-text answer
    body: bytes | None = None
    headers: dict = field(default_factory=dict)
    raw_fields: tuple = ()  # (name, value) header fields no client library will send
    h2: int | str | None = 0  # 0: as `status`; REFUSED; None: not sent over h2


def configmap(name, **metadata):
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **metadata},
                       "data": {"a": "b"}}).encode()


def nested(depth):
    return "[" * depth + "]" * depth


def laughs():
    """Nine levels of nine aliases: 9^9 strings once expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    return ("\n".join(lines) + "\n").encode()


def token(text):
    """A continue token shaped as kube-apiserver's (base64 of its JSON), forged by the client."""
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


TOO_BIG = json.dumps({"metadata": {"name": "too-big"}, "data": {"d": "x" * (MAX_BODY + 100)}}).encode()
COPIES = json.dumps([{"op": "add", "path": "/data/a", "value": "x" * 400000}] +
                    [{"op": "copy", "from": "/data/a", "path": f"/data/b{i}"} for i in range(10)]).encode()
TOO_LARGE = f"Request entity too large: limit is {MAX_BODY}"
REJECTED_PATCH = "the server rejected our request due to an error in our request"
BIG_FIELDS = tuple((b"x-f%d" % i, b"v" * 60000) for i in range(18))  # each under 64 KiB, 1.03 MiB in all

CASES = [
    # --- sizes --------------------------------------------------------------------------------
    Case("body over 3 MiB", "POST", CM, 413, "RequestEntityTooLarge", TOO_LARGE, TOO_BIG, JSON),
    Case("JSON patch body over 3 MiB", "PATCH", CM + "/target", 413, "RequestEntityTooLarge", TOO_LARGE,
         b'{"data":{"d":"' + b"x" * (MAX_BODY + 10) + b'"}}', MERGE_PATCH),
    Case("URL over 1 MiB", "GET", CM + "?labelSelector=" + "a" * MIB, 414, None, "URI Too Long", h2=REFUSED),
    Case("header block over 1 MiB", "GET", "/version", 431, None, "Request Header Fields Too Large",
         raw_fields=BIG_FIELDS, h2=REFUSED),
    Case("one header field of 70,000 bytes", "GET", "/version", 431, None, "Request Header Fields Too Large",
         raw_fields=((b"x-big", b"v" * 70000),), h2=REFUSED),
    Case("one header name of 70,000 bytes", "GET", "/version", 431, None, "Request Header Fields Too Large",
         raw_fields=((b"x-" + b"n" * 70000, b"v"),), h2=REFUSED),
    Case("annotations over 256 KiB", "POST", CM, 422, "Invalid", "must have at most 262144 bytes",
         configmap("big-annotations", annotations={"a": "x" * (300 * 1024)}), JSON),
    Case("name of 300 characters", "POST", CM, 422, "Invalid", "metadata.name: Invalid value", configmap("a" * 300),
         JSON),
    Case("JSON patch of 10,001 operations", "PATCH", CM + "/target", 413, "RequestEntityTooLarge",
         "The allowed maximum operations in a JSON patch is 10000, got 10001",
         json.dumps([{"op": "test", "path": "/metadata/name", "value": "target"}] * 10001).encode(), JSON_PATCH),
    Case("JSON patch copies growing past 3 MiB", "PATCH", CM + "/target", 422, "Invalid", REJECTED_PATCH, COPIES,
         JSON_PATCH),
    Case("fieldManager over 128 bytes", "POST", CM + "?fieldManager=" + "m" * 200, 422, "Invalid",
         "fieldManager: Too long: must have at most 128 bytes", configmap("long-manager"), JSON),
    # --- nesting and expansion ----------------------------------------------------------------------
    Case("JSON nested 20,000 deep", "POST", CM, 400, "BadRequest", "exceeded max depth",
         ('{"metadata":{"name":"deep"},"x":' + nested(20000) + "}").encode(), JSON),
    Case("merge patch nested 20,000 deep", "PATCH", CM + "/target", 400, "BadRequest", "exceeded max depth",
         ('{"x":' + nested(20000) + "}").encode(), MERGE_PATCH),
    Case("strategic merge patch nested 20,000 deep", "PATCH", CM + "/target", 400, "BadRequest",
         "exceeded max depth", ('{"x":' + nested(20000) + "}").encode(),
         {"Content-Type": "application/strategic-merge-patch+json"}),
    Case("JSON patch value nested 20,000 deep", "PATCH", CM + "/target", 400, "BadRequest", "",
         ('[{"op":"add","path":"/x","value":' + nested(20000) + "}]").encode(), JSON_PATCH),
    Case("YAML nested 20,000 deep", "POST", CM, 400, "BadRequest", "not valid YAML",
         ("metadata: {name: deep}\nx: " + nested(20000) + "\n").encode(), YAML),
    Case("apply nested 20,000 deep", "PATCH", CM + "/target?fieldManager=t", 400, "BadRequest", "",
         ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":' + nested(20000) + "}").encode(),
         APPLY),
    Case("YAML billion laughs", "POST", CM, 400, "BadRequest", "yaml: document contains excessive aliasing",
         laughs(), YAML),
    Case("YAML 100 KB string aliased 1000 times", "POST", CM, 400, "BadRequest",
         "yaml: document contains excessive aliasing",
         ('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aliased}\ndata: {a: &a "' + "x" * 100000 +
          '"}\nx: [' + ", ".join(["*a"] * 1000) + "]\n").encode(), YAML),
    Case("apply of a YAML alias bomb", "PATCH", CM + "/target?fieldManager=t", 400, "BadRequest",
         "yaml: document contains excessive aliasing", laughs(), APPLY),
    # --- malformed bodies ---------------------------------------------------------------------------
    Case("unterminated JSON", "POST", CM, 400, "BadRequest", "not valid JSON", b'{"metadata": {"name": "x"', JSON),
    Case("JSON array for an object", "POST", CM, 400, "BadRequest", "must be a JSON object", b"[1,2,3]", JSON),
    Case("JSON with trailing garbage", "POST", CM, 400, "BadRequest", "not valid JSON",
         b'{"metadata":{"name":"tg"}} xyz', JSON),
    Case("JSON with invalid UTF-8", "POST", CM, 400, "BadRequest", "ill-formed UTF-8",
         b'{"metadata":{"name":"u\xff"}}', JSON),
    Case("JSON number overflowing a double", "POST", CM, 400, "BadRequest", "number overflow",
         b'{"metadata":{"name":"n","generation":1e400}}', JSON),
    Case("empty JSON body", "POST", CM, 400, "BadRequest", "not valid JSON", b"", JSON),
    Case("name of the wrong type", "POST", CM, 400, "BadRequest", "metadata.name: expected a string",
         b'{"metadata":{"name":5}}', JSON),
    Case("a repeated member under Strict validation", "POST", CM + "?fieldValidation=Strict", 400, "BadRequest",
         'strict decoding error: duplicate field "metadata.name"',
         b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"first","name":"second"}}', JSON),
    Case("unknown field under Strict validation", "POST", CM + "?fieldValidation=Strict", 400, "BadRequest",
         'strict decoding error: unknown field "bogus"',
         b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict"},"bogus":1}', JSON),
    Case("unknown and repeated members under Strict validation, in document order", "POST",
         CM + "?fieldValidation=Strict", 400, "BadRequest",
         'strict decoding error: unknown field "zz", duplicate field "metadata.name", unknown field "aa"',
         b'{"apiVersion":"v1","kind":"ConfigMap","zz":1,"metadata":{"name":"o","name":"o"},"aa":2}', JSON),
    Case("unterminated YAML flow", "PATCH", CM + "/target?fieldManager=t", 400, "BadRequest",
         "error decoding YAML", b"a: [\n", APPLY),
    Case("protobuf without the k8s prefix", "POST", CM, 400, "BadRequest", 'missing the "k8s\\0" prefix',
         b"\xde\xad\xbe\xef" * 10, PROTOBUF),
    Case("protobuf prefix alone", "POST", CM, 400, "BadRequest", "not valid protobuf", b"k8s\x00", PROTOBUF),
    Case("protobuf field longer than the body", "POST", CM, 400, "BadRequest", "malformed protobuf envelope",
         b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\xff\xff\xff\x0f", PROTOBUF),
    Case("protobuf length of 4 GiB", "POST", CM, 400, "BadRequest", "malformed protobuf envelope",
         b"k8s\x00\x12\xff\xff\xff\xff\x0f", PROTOBUF),
    Case("protobuf varint of 11 bytes", "POST", CM, 400, "BadRequest", "malformed protobuf envelope",
         b"k8s\x00\x08" + b"\xff" * 11, PROTOBUF),
    # --- media types --------------------------------------------------------------------------------
    Case("text/plain body", "POST", CM, 415, "UnsupportedMediaType", INSECURE_PORT, configmap("plain"),
         {"Content-Type": "text/plain"}),
    Case("form body", "POST", CM, 415, "UnsupportedMediaType", INSECURE_PORT, configmap("form"),
         {"Content-Type": "application/x-www-form-urlencoded"}),
    Case("unknown media type", "POST", CM, 415, "UnsupportedMediaType", "unknown format", configmap("bogus"),
         {"Content-Type": "application/bogus"}),
    Case("Content-Type that does not parse", "POST", CM, 415, "UnsupportedMediaType", "", configmap("syntax"),
         {"Content-Type": ";;;"}),
    Case("merge patch media type on create", "POST", CM, 415, "UnsupportedMediaType", "unknown format",
         configmap("merge"), MERGE_PATCH),
    Case("JSON media type on patch", "PATCH", CM + "/target", 415, "UnsupportedMediaType",
         "application/json-patch+json", b'{"data":{"c":"d"}}', JSON),
    Case("unknown Accept", "GET", CM, 406, "NotAcceptable", "unable to respond with a content type",
         headers={"Accept": "application/bogus"}),
    Case("Table of an unknown version", "GET", CM, 406, "NotAcceptable", "",
         headers={"Accept": "application/json;as=Table;v=v9;g=meta.k8s.io"}),
    # --- patches --------------------------------------------------------------------------------------
    Case("JSON patch with an unknown op", "PATCH", CM + "/target", 422, "Invalid", REJECTED_PATCH,
         b'[{"op":"explode","path":"/data"}]', JSON_PATCH),
    Case("JSON patch that is an object", "PATCH", CM + "/target", 400, "BadRequest",
         "a JSON patch must be an array of operations", b'{"op":"add"}', JSON_PATCH),
    Case("JSON patch path without a slash", "PATCH", CM + "/target", 422, "Invalid", REJECTED_PATCH,
         b'[{"op":"add","path":"data/x","value":1}]', JSON_PATCH),
    Case("JSON patch test that fails", "PATCH", CM + "/target", 422, "Invalid", REJECTED_PATCH,
         b'[{"op":"test","path":"/data/a","value":"no"}]', JSON_PATCH),
    Case("unterminated merge patch", "PATCH", CM + "/target", 400, "BadRequest", "patch body is not valid JSON",
         b'{"data":', MERGE_PATCH),
    Case("apply without fieldManager", "PATCH", CM + "/target", 422, "Invalid",
         "fieldManager: Required value: is required for apply patch", configmap("target"), APPLY),
    Case("patch of a missing object", "PATCH", CM + "/nosuch", 404, "NotFound", 'configmaps "nosuch" not found',
         b"{}", MERGE_PATCH),
    # --- selectors ------------------------------------------------------------------------------------
    Case("label selector a===b", "GET", CM + "?labelSelector=a%3D%3D%3Db", 400, "BadRequest",
         "unable to parse labelSelector"),
    Case("label selector with a bad key", "GET", CM + "?labelSelector=-bad-", 400, "BadRequest",
         'invalid label key "-bad-"'),
    Case("label selector with an open set", "GET", CM + "?labelSelector=a+in+(b", 400, "BadRequest",
         "found end of selector"),
    Case("label selector value of 100 bytes", "GET", CM + "?labelSelector=a%3D" + "v" * 100, 400, "BadRequest",
         "unable to parse labelSelector"),
    Case("label selector key of 300 bytes", "GET", CM + "?labelSelector=" + "k" * 300, 400, "BadRequest",
         "unable to parse labelSelector"),
    Case("label selector of 5000 terms", "GET",
         CM + "?labelSelector=" + ",".join(f"k{i}%3Dv" for i in range(5000)), 200),
    Case("field selector on an unknown field", "GET", CM + "?fieldSelector=spec.bogus%3Dx", 400, "BadRequest",
         "field label not supported: spec.bogus"),
    Case("field selector ===", "GET", CM + "?fieldSelector=%3D%3D%3D", 400, "BadRequest",
         "missing field name before the operator"),
    Case("field selector with a set", "GET", CM + "?fieldSelector=metadata.name+in+(a)", 400, "BadRequest",
         "expected field=value"),
    # --- query parameters -----------------------------------------------------------------------------
    Case("resourceVersion abc", "GET", CM + "?resourceVersion=abc", 400, "BadRequest",
         "invalid resource version: abc"),
    Case("resourceVersion -1", "GET", CM + "?resourceVersion=-1", 400, "BadRequest", "invalid resource version: -1"),
    Case("list from a future resourceVersion", "GET",
         CM + "?resourceVersion=999999999&resourceVersionMatch=NotOlderThan", 504, "Timeout",
         "Too large resource version: 999999999"),
    Case("limit abc", "GET", CM + "?limit=abc", 400, "BadRequest", 'limit: Invalid value: "abc"'),
    Case("limit past int64", "GET", CM + "?limit=99999999999999999999999", 400, "BadRequest",
         "must be an integer"),
    Case("limit -5 (no limit)", "GET", CM + "?limit=-5", 200),
    Case("timeoutSeconds abc", "GET", CM + "?watch=1&timeoutSeconds=abc", 400, "BadRequest",
         'timeoutSeconds: Invalid value: "abc"'),
    Case("timeoutSeconds -1 (the watch ends at once)", "GET", CM + "?watch=1&timeoutSeconds=-1", 200),
    Case("continue token garbage", "GET", CM + "?limit=1&continue=garbage", 400, "BadRequest",
         "continue key is not valid"),
    Case("continue token reaching into secrets", "GET",
         CM + "?limit=1&continue=" + token('{"v":"meta.k8s.io/v1","rv":1,"start":"../../secrets/"}'), 400,
         "BadRequest", "continue key is not valid"),
    Case("continue token with an empty start key", "GET",
         CM + "?limit=1&continue=" + token('{"v":"meta.k8s.io/v1","rv":1,"start":""}'), 400, "BadRequest",
         "continue key is not valid"),
    Case("continue token not JSON", "GET", CM + "?limit=1&continue=" + token("not json"), 400, "BadRequest",
         "continue key is not valid"),
    Case("continue token with resourceVersion", "GET", CM + "?limit=1&continue=garbage&resourceVersion=5", 400,
         "BadRequest", ""),
    Case("continue token at resourceVersion 0", "GET",
         CM + "?limit=1&continue=" + token('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'), 400, "BadRequest",
         "incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    Case("continue token of another version", "GET",
         CM + "?limit=1&continue=" + token('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}'), 400, "BadRequest",
         'server does not recognize this encoded version "meta.k8s.io/v2"'),
    Case("valid continue token with resourceVersion", "GET",
         CM + "?limit=1&resourceVersion=5&continue=" + token('{"v":"meta.k8s.io/v1","rv":5,"start":"a"}'), 400,
         "BadRequest", "specifying resource version is not allowed when using continue"),
    Case("resourceVersionMatch Bogus", "GET", CM + "?resourceVersion=0&resourceVersionMatch=Bogus", 422, "Invalid",
         'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: '
         '"Exact", "NotOlderThan", ""'),
    Case("resourceVersionMatch without resourceVersion", "GET", CM + "?resourceVersionMatch=NotOlderThan", 422,
         "Invalid", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is "
                    "provided"),
    Case("dryRun Bogus", "POST", CM + "?dryRun=Bogus", 422, "Invalid",
         'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: '
         '"All"', configmap("dry-bogus"), JSON),
    Case("dryRun Bogus in DeleteOptions", "DELETE", CM + "/target", 422, "Invalid",
         'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Bogus"}',
         b'{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All","Bogus"]}', JSON),
    Case("fieldValidation Bogus", "POST", CM + "?fieldValidation=Bogus", 422, "Invalid",
         'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus"',
         configmap("validation-bogus"), JSON),
    Case("watch with resourceVersion abc", "GET", CM + "?watch=1&resourceVersion=abc", 400, "BadRequest",
         "invalid resource version: abc"),
    Case("watch from a future resourceVersion", "GET", CM + "?watch=1&resourceVersion=999999999&timeoutSeconds=1",
         200),
    Case("fieldManager with a control character", "POST", CM + "?fieldManager=a%01b", 422, "Invalid",
         "invalid character U+0001", configmap("ctrl-manager"), JSON),
    Case("propagationPolicy Bogus", "DELETE", CM + "/target?propagationPolicy=Bogus", 422, "Invalid",
         'propagationPolicy: Unsupported value: "Bogus"'),
    Case("gracePeriodSeconds abc", "DELETE", CM + "/target?gracePeriodSeconds=abc", 400, "BadRequest",
         'gracePeriodSeconds: invalid value "abc"'),
    Case("delete with a wrong UID precondition", "DELETE", CM + "/target", 409, "Conflict",
         "Precondition failed: UID in precondition", b'{"kind":"DeleteOptions","apiVersion":"v1",'
                                                     b'"preconditions":{"uid":"nope"}}', JSON),
    # --- paths ------------------------------------------------------------------------------------------
    Case("../ out of a collection", "GET", CM + "/../secrets", 404, "NotFound", ""),
    Case("%2e%2e out of a collection", "GET", CM + "/%2e%2e/secrets", 404, "NotFound", ""),
    Case("%2F inside a name", "GET", CM + "/a%2Fb", 404, "NotFound", ""),
    Case("NUL inside a name", "GET", CM + "/a%00b", 404, "NotFound", ""),
    Case("namespace ..", "GET", "/api/v1/namespaces/../configmaps", 200),
    Case("name ..", "GET", CM + "/..", 400, "BadRequest", "Name parameter invalid: \"..\": may not be '..'"),
    Case("name .", "DELETE", CM + "/.", 400, "BadRequest", "Name parameter invalid: \".\": may not be '.'"),
    Case("name with %", "GET", CM + "/a%25b", 400, "BadRequest", "Name parameter invalid: \"a%b\": may not contain '%'"),
    Case("DELETE /version", "DELETE", "/version", 405, "MethodNotAllowed", "does not allow this method"),
    Case("POST to a group version", "POST", "/apis/apps/v1", 405, "MethodNotAllowed", "does not allow this method",
         b"{}", JSON),
    Case("unknown resource", "GET", NS + "/bogus", 404, "NotFound", "the server could not find the requested resource"),
    Case("watch of an unknown resource", "GET", NS + "/bogus?watch=1", 404, "NotFound", ""),
    Case("unknown group", "GET", "/apis/nosuch.example.com/v1/things", 404, "NotFound", ""),
    Case("unknown core version", "GET", "/api/v9/namespaces", 404, "NotFound", ""),
    Case("unknown subresource", "GET", CM + "/target/bogus", 404, "NotFound", ""),
    Case("cluster-scoped resource in a namespace", "GET", NS + "/nodes", 404, "NotFound", ""),
    Case("missing object", "GET", CM + "/nosuch", 404, "NotFound", 'configmaps "nosuch" not found'),
    Case("create in a missing namespace", "POST", "/api/v1/namespaces/nosuchns/configmaps", 404, "NotFound",
         'namespaces "nosuchns" not found', configmap("orphan"), JSON),
    Case("an Expect other than 100-continue", "POST", CM, 417, None, "Expectation Failed", configmap("expect"), JSON,
         raw_fields=((b"expect", b"teapot"),), h2=None),
    # --- names, kinds, namespaces -----------------------------------------------------------------------
    Case("upper-case name", "POST", CM, 422, "Invalid", "a lowercase RFC 1123 subdomain", configmap("BadName"),
         JSON),
    Case("name with a slash", "POST", CM, 422, "Invalid", 'Invalid value: "a/b"', configmap("a/b"), JSON),
    Case("no name", "POST", CM, 422, "Invalid", "metadata.name: Required value",
         b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}', JSON),
    Case("upper-case generateName", "POST", CM, 422, "Invalid", "a lowercase RFC 1123 subdomain",
         b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"BAD-"}}', JSON),
    Case("label value with a space", "POST", CM, 422, "Invalid", "metadata.labels: Invalid value",
         configmap("label-value", labels={"a": "not valid!"}), JSON),
    Case("label key starting with -", "POST", CM, 422, "Invalid", "metadata.labels: Invalid value",
         configmap("label-key", labels={"-a": "b"}), JSON),
    Case("namespace Bad_NS", "POST", "/api/v1/namespaces", 422, "Invalid", "a lowercase RFC 1123 label",
         b'{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"Bad_NS"}}', JSON),
    Case("ConfigMap key with a space", "POST", CM, 422, "Invalid",
         'data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters',
         json.dumps({"metadata": {"name": "bad-key"}, "data": {"a b": "x"}}).encode(), JSON),
    Case("ConfigMap data over 1 MiB", "POST", CM, 422, "Invalid", "[]: Too long: must have at most 1048576 bytes",
         json.dumps({"metadata": {"name": "too-much"}, "data": {"a": "x" * (1 << 20), "b": "y"}}).encode(), JSON),
    Case("kind of another resource", "POST", CM, 400, "BadRequest", "do not match the resource configmaps",
         b'{"apiVersion":"v1","kind":"Secret","metadata":{"name":"wrong-kind"}}', JSON),
    Case("unknown apiVersion", "POST", CM, 400, "BadRequest", "do not match the resource configmaps",
         b'{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"wrong-version"}}', JSON),
    Case("namespace other than the URL's", "POST", CM, 400, "BadRequest",
         "the namespace of the provided object does not match the namespace sent on the request",
         configmap("elsewhere", namespace="kube-system"), JSON),
    Case("name other than the URL's", "PUT", CM + "/target", 400, "BadRequest",
         "does not match the name on the URL", configmap("other"), JSON),
    Case("update from a stale resourceVersion", "PUT", CM + "/target", 409, "Conflict", "the object has been modified",
         configmap("target", resourceVersion="1"), JSON),
    Case("update with resourceVersion abc", "PUT", CM + "/target", 422, "Invalid", "metadata.resourceVersion",
         configmap("target", resourceVersion="abc"), JSON),
    # --- verbs ---------------------------------------------------------------------------------------------
    Case("POST to a named object", "POST", CM + "/target", 405, "MethodNotAllowed",
         "POST is not supported on a named object", configmap("target"), JSON),
    Case("unknown method", "FROB", CM, 405, "MethodNotAllowed", "does not allow this method"),
    Case("PUT on a collection", "PUT", CM, 405, "MethodNotAllowed", "does not allow this method", configmap("x"),
         JSON),
    Case("PATCH on a collection", "PATCH", CM, 405, "MethodNotAllowed", "does not allow this method", b"{}",
         MERGE_PATCH),
    # --- cross-site ----------------------------------------------------------------------------------------
    Case("foreign Host", "GET", CM, 403, "Forbidden", 'Host "evil.example" is not a loopback name',
         headers={"Host": "evil.example"}),
    Case("foreign Origin", "POST", CM, 403, "Forbidden", 'Origin "http://evil.example" is not this server',
         configmap("cross-site"), {**JSON, "Origin": "http://evil.example"}),
]


# --- transports ---------------------------------------------------------------------------------
def parse_response(data):
    """(status, body) of a raw HTTP/1.1 response read to the end (Connection: close)."""
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    if b"transfer-encoding: chunked" in head.lower():
        out = b""
        while body:
            size, _, rest = body.partition(b"\r\n")
            n = int(size.split(b";")[0] or b"0", 16)
            if n == 0:
                break
            out, body = out + rest[:n], rest[n + 2:]
        body = out
    return status, body


def head_bytes(case, port, extra=b""):
    host = case.headers.get("Host", f"127.0.0.1:{port}")
    lines = [f"{case.method} {case.path} HTTP/1.1".encode(), f"Host: {host}".encode(), b"Connection: close"]
    lines += [f"{k}: {v}".encode() for k, v in case.headers.items() if k != "Host"]
    lines += [name + b": " + value for name, value in case.raw_fields]
    if case.body is not None:
        lines.append(b"Content-Length: %d" % len(case.body))
    return b"\r\n".join(lines) + b"\r\n" + extra + b"\r\n"


def read_to_end(sock, stop_after_head=False):
    """What the server sends until it closes; an answer that does not end within the socket's
    timeout raises TimeoutError."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
        if stop_after_head and b"\r\n\r\n" in data:
            break
    return data


def send_http1(case, port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            s.sendall(head_bytes(case, port) + (case.body or b""))
        except OSError:
            pass  # answered and closed before the whole request was in
        return parse_response(read_to_end(s))


WS_UPGRADE = (b"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")


def send_websocket(case, port):
    """The upgrade's answer: 101 with no body, or a refusal with its body."""
    payload = head_bytes(case, port, WS_UPGRADE).replace(b"Connection: close", b"Connection: Upgrade")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            s.sendall(payload)
        except OSError:
            pass
        data = read_to_end(s, stop_after_head=True)
        if data.startswith(b"HTTP/1.1 101 "):
            return 101, b""
        return parse_response(data + read_to_end(s))


def send_h2(case, port, scratch):
    if case.h2 == REFUSED:
        # curl will not send these: written by hand (a GET, its fields literal).
        extra = b"".join(literal_field(n, v) for n, v in case.raw_fields)
        data, closed = h2_exchange(port, request_frames(case.path.encode(), extra), timeout=3)
        return data, closed
    args = ["curl", "-sS", "--max-time", "10", "--http2-prior-knowledge", "--path-as-is", "-X", case.method,
            "-o", os.path.join(scratch, "out"), "-w", "%{http_code} %{http_version}"]
    for k, v in case.headers.items():
        args += ["-H", f"{k}: {v}"]
    if "Content-Type" not in case.headers:
        args += ["-H", "Content-Type:"]
    if case.body is not None:
        with open(os.path.join(scratch, "body"), "wb") as f:
            f.write(case.body)
        args += ["--data-binary", "@" + os.path.join(scratch, "body")]
    args.append(f"http://127.0.0.1:{port}{case.path}")
    out = subprocess.run(args, capture_output=True, text=True)
    status, _, version = out.stdout.partition(" ")
    assert out.returncode == 0 and version == "2", f"{case.name}: curl {out.returncode} {out.stdout!r} {out.stderr}"
    with open(os.path.join(scratch, "out"), "rb") as f:
        return int(status), f.read()


# --- what runs beside the table ----------------------------------------------------------------------
class Reader(threading.Thread):
    """An ordinary client: GET of one ConfigMap every 20 ms on a keep-alive connection."""

    def __init__(self, port, path):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.stop = threading.Event()
        self.latencies, self.failures = [], []

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        next_at = time.monotonic()
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                conn.request("GET", self.path)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    self.failures.append(response.status)
            except (OSError, http.client.HTTPException) as e:
                self.failures.append(repr(e))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            self.latencies.append(time.monotonic() - started)
            next_at += 0.02
            self.stop.wait(max(0.0, next_at - time.monotonic()))
        conn.close()

    def p99(self):
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


class BadInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = KwServer().start()
        cls.scratch = tempfile.TemporaryDirectory(prefix="kw-bad-input-")
        status, _, raw = cls.server.request("POST", CM, configmap("target"))
        assert status == 201, raw

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.scratch.cleanup()

    def check(self, case, transport, status, body, expected):
        where = f"{case.name} over {transport}"
        if status != expected:
            return f"{where}: status {status}, expected {expected}: {body[:200]!r}"
        if expected in (101, 200):
            return None
        if case.reason is None:
            if case.message.encode() not in body:
                return f"{where}: {case.message!r} not in {body[:200]!r}"
            return None
        try:
            answer = json.loads(body)
        except ValueError:
            return f"{where}: not a Status: {body[:200]!r}"
        got = (answer.get("kind"), answer.get("code"), answer.get("reason"))
        if got != ("Status", expected, case.reason):
            return f"{where}: (kind, code, reason) {got}, expected {('Status', expected, case.reason)}"
        if case.message not in answer.get("message", ""):
            return f"{where}: {case.message!r} not in message {answer.get('message')!r}"
        return None

    def run_h2(self, case):
        if case.h2 is None:
            return None
        if case.h2 == REFUSED:
            data, closed = send_h2(case, self.server.port, self.scratch.name)
            # The status on the stream, or the connection refused by the HTTP/2 layer (GOAWAY,
            # or closed): never an answer to the request, never a connection left hanging.
            if b"%d " % case.status not in data and 7 not in frame_types(data) and not closed:
                return f"{case.name} over h2: neither {case.status} nor GOAWAY: frames {frame_types(data)}"
            if b'"major"' in data or b"ConfigMapList" in data:
                return f"{case.name} over h2: answered"
            return None
        status, body = send_h2(case, self.server.port, self.scratch.name)
        return self.check(case, "h2", status, body, case.h2 or case.status)

    @staticmethod
    def transports(case):
        return ["h1"] + (["h2"] if case.h2 is not None else []) + (["websocket"] if case.method == "GET" else [])

    def send(self, case, transport):
        """None, or what is wrong with the answer."""
        if transport == "h1":
            return self.check(case, "HTTP/1.1", *send_http1(case, self.server.port), case.status)
        if transport == "h2":
            return self.run_h2(case)
        status, body = send_websocket(case, self.server.port)
        return self.check(case, "WebSocket", status, body, 101 if case.status == 200 else case.status)

    def test_every_bad_request_gets_its_status_while_others_are_served(self):
        self.assertGreaterEqual(len(CASES), 60)
        self.assertEqual(len({c.name for c in CASES}), len(CASES), "case names repeat")
        pid = self.server.proc.pid
        time.sleep(0.5)
        idle = rss_bytes(pid)
        reader = Reader(self.server.port, CM + "/target")
        sampler = RssSampler(pid)
        reader.start()
        sampler.start()
        failures, sent = [], {"h1": 0, "h2": 0, "websocket": 0}
        started = time.monotonic()
        try:
            for case in CASES:
                for transport in self.transports(case):
                    sent[transport] += 1
                    try:
                        failures.append(self.send(case, transport))
                    except (OSError, AssertionError) as e:  # no answer, or one that did not end
                        failures.append(f"{case.name} over {transport}: {e!r}")
                self.assertIsNone(self.server.proc.poll(), f"kw serve exited after {case.name}")
        finally:
            reader.stop.set()
            sampler.stop.set()
            reader.join(10)
            sampler.join(10)
        elapsed = time.monotonic() - started
        failures = [f for f in failures if f]
        p99 = reader.p99()
        print(f"\n{len(CASES)} cases, sent {sent} in {elapsed:.1f} s; reader: {len(reader.latencies)} GETs, "
              f"p99 {p99 * 1000:.1f} ms, max {max(reader.latencies) * 1000:.1f} ms; RSS idle "
              f"{idle / MIB:.1f} MiB, peak {sampler.peak / MIB:.1f} MiB")
        self.assertEqual(failures, [], f"{len(failures)} answers differ:\n" + "\n".join(failures))
        self.assertEqual(reader.failures, [])
        self.assertGreater(len(reader.latencies), 100)
        self.assertLess(p99, 0.1)
        self.assertLess(sampler.peak, 2 * idle + MAX_BODY)
        # Still up and serving.
        self.assertIsNone(self.server.proc.poll())
        self.assertEqual(self.server.request("GET", "/readyz")[0], 200)
        self.assertEqual(self.server.request("GET", CM + "/target")[0], 200)


if __name__ == "__main__":
    unittest.main()
