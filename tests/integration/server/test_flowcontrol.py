"""API priority and fairness: requests are classified by the FlowSchemas to priority levels, and
a flood of LISTs from one user fills its own level's queues (429 with Retry-After and the
X-Kubernetes-PF-* headers) while a node's Lease renewals and the scheduler's bindings, in other
levels, are still served."""
import http.client
import json
import os
import ssl
import tempfile
import unittest

from kwtest import KwServer, Load, free_port, wait_for

FC = "/apis/flowcontrol.apiserver.k8s.io/v1"
NS = "/api/v1/namespaces/default"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
TOKENS = ('flood-token,flooder,2001\n'
          'node-token,system:node:n1,2002,"system:nodes"\n'
          'scheduler-token,system:kube-scheduler,2003\n')


class PriorityAndFairnessTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.config_dir = tempfile.TemporaryDirectory(prefix="kw-apf-")
        tokens = os.path.join(cls.config_dir.name, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        # A server concurrency limit of 6 seats: global-default gets ceil(6 * 20 / 245) = 1.
        cls.server = KwServer(["--max-requests-inflight=4", "--max-mutating-requests-inflight=2",
                               "--worker-threads=4", "--token-auth-file", tokens],
                              secure_port=free_port()).start()
        cls.context = ssl.create_default_context(cafile=cls.server.ca_file)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.config_dir.cleanup()

    def connect(self):
        return http.client.HTTPSConnection("127.0.0.1", self.server.secure_port, timeout=60, context=self.context)

    def as_user(self, token, method, path, body=None):
        conn = self.connect()
        try:
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def uid(self, kind, name):
        status, obj = self.server.json("GET", f"{FC}/{kind}/{name}")
        self.assertEqual(status, 200, obj)
        return obj["metadata"]["uid"]

    def test_suggested_configuration_is_created(self):
        _, levels = self.server.json("GET", FC + "/prioritylevelconfigurations")
        self.assertLessEqual({"exempt", "catch-all", "system", "node-high", "leader-election", "workload-high",
                              "workload-low", "global-default"}, {i["metadata"]["name"] for i in levels["items"]})
        _, schemas = self.server.json("GET", FC + "/flowschemas")
        self.assertLessEqual({"exempt", "probes", "system-leader-election", "workload-leader-election",
                              "system-node-high", "system-nodes", "kube-controller-manager", "kube-scheduler",
                              "kube-system-service-accounts", "service-accounts", "global-default", "catch-all"},
                             {i["metadata"]["name"] for i in schemas["items"]})

    def test_answers_name_the_flow_schema_and_priority_level(self):
        status, headers, _ = self.as_user("flood-token", "GET", NS + "/configmaps")
        self.assertEqual(status, 200)
        self.assertEqual(headers["x-kubernetes-pf-flowschema-uid"], self.uid("flowschemas", "global-default"))
        self.assertEqual(headers["x-kubernetes-pf-prioritylevel-uid"],
                         self.uid("prioritylevelconfigurations", "global-default"))
        status, headers, _ = self.as_user("node-token", "GET", "/api/v1/nodes")  # nodes: node-high
        self.assertEqual(headers["x-kubernetes-pf-flowschema-uid"], self.uid("flowschemas", "system-node-high"))
        status, headers, _ = self.as_user("node-token", "GET", "/api/v1/pods")
        self.assertEqual(headers["x-kubernetes-pf-flowschema-uid"], self.uid("flowschemas", "system-nodes"))
        self.assertEqual(headers["x-kubernetes-pf-prioritylevel-uid"], self.uid("prioritylevelconfigurations", "system"))

    def dangling(self, name):
        _, schema = self.server.json("GET", f"{FC}/flowschemas/{name}")
        conditions = [c for c in schema.get("status", {}).get("conditions", []) if c["type"] == "Dangling"]
        return (conditions[0]["status"], conditions[0]["reason"]) if conditions else None

    def test_a_flow_schema_without_its_priority_level_is_dangling(self):
        schema = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
                  "metadata": {"name": "orphan"},
                  "spec": {"priorityLevelConfiguration": {"name": "not-yet"}, "matchingPrecedence": 50,
                           "rules": [{"subjects": [{"kind": "User", "user": {"name": "flooder"}}],
                                      "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}}
        self.assertEqual(self.server.json("POST", FC + "/flowschemas", schema)[0], 201)
        self.assertTrue(wait_for(lambda: self.dangling("orphan") == ("True", "NotFound")), self.dangling("orphan"))
        # Left out of matching: the flooder's non-resource requests stay in global-default.
        _, headers, _ = self.as_user("flood-token", "GET", "/version")
        self.assertEqual(headers["x-kubernetes-pf-flowschema-uid"], self.uid("flowschemas", "global-default"))
        level = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
                 "metadata": {"name": "not-yet"},
                 "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5,
                                                         "limitResponse": {"type": "Reject"}}}}
        self.assertEqual(self.server.json("POST", FC + "/prioritylevelconfigurations", level)[0], 201)
        self.assertTrue(wait_for(lambda: self.dangling("orphan") == ("False", "Found")), self.dangling("orphan"))
        self.assertEqual(self.dangling("global-default"), ("False", "Found"))
        _, headers, _ = self.as_user("flood-token", "GET", "/version")
        self.assertEqual(headers["x-kubernetes-pf-flowschema-uid"], self.uid("flowschemas", "orphan"))
        self.assertEqual(self.server.json("DELETE", FC + "/flowschemas/orphan")[0], 200)
        self.assertEqual(self.server.json("DELETE", FC + "/prioritylevelconfigurations/not-yet")[0], 200)

    def test_a_list_flood_is_refused_while_leases_and_bindings_are_served(self):
        # The flood's level, made small: one queue of two (the objects are followed live).
        status, level = self.server.json("GET", FC + "/prioritylevelconfigurations/global-default")
        self.assertEqual(status, 200, level)
        level["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] = "false"
        level["spec"]["limited"]["limitResponse"]["queuing"] = {"queues": 1, "handSize": 1, "queueLengthLimit": 2}
        status, level = self.server.json("PUT", FC + "/prioritylevelconfigurations/global-default", level)
        self.assertEqual(status, 200, level)
        for i in range(40):  # LISTs of 40 x 20 KiB make each request take a while
            status, _, _ = self.server.request("POST", NS + "/configmaps", {
                "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"big-{i}"}, "data": {"d": "x" * 20000}})
            self.assertEqual(status, 201)
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "n1"},
                 "spec": {"holderIdentity": "n1", "leaseDurationSeconds": 40}}
        self.assertEqual(self.server.json("POST", LEASES, lease)[0], 201)
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "to-bind"},
               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        self.assertEqual(self.server.json("POST", NS + "/pods", pod)[0], 201)

        with Load(None, [NS + "/configmaps"], threads=16, connect=self.connect,
                  headers={"Authorization": "Bearer flood-token"}) as flood:
            self.assertTrue(wait_for(lambda: flood.count(429) > 0), f"no 429 under the flood: {flood.statuses}")
            headers, body = flood.refused
            self.assertEqual(headers.get("retry-after"), "1")
            self.assertEqual(headers.get("x-kubernetes-pf-flowschema-uid"), self.uid("flowschemas", "global-default"))
            self.assertEqual(headers.get("x-kubernetes-pf-prioritylevel-uid"),
                             self.uid("prioritylevelconfigurations", "global-default"))
            refused = json.loads(body)
            self.assertEqual((refused["code"], refused["reason"]), (429, "TooManyRequests"))
            # While the flood is being refused, the node renews its Lease (node-high) ...
            for renewal in range(5):
                before = flood.count(429)
                status, headers, body = self.as_user("node-token", "GET", LEASES + "/n1")
                self.assertEqual(status, 200, body)
                current = json.loads(body)
                current["spec"]["renewTime"] = f"2026-01-01T00:00:{renewal:02d}.000000Z"
                status, headers, body = self.as_user("node-token", "PUT", LEASES + "/n1", current)
                self.assertEqual(status, 200, body)
                self.assertEqual(headers["x-kubernetes-pf-flowschema-uid"], self.uid("flowschemas", "system-node-high"))
                self.assertTrue(wait_for(lambda: flood.count(429) > before), f"the flood stopped: {flood.statuses}")
            # ... and the scheduler binds a pod (workload-high).
            binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "to-bind"},
                       "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"}}
            status, headers, body = self.as_user("scheduler-token", "POST", NS + "/pods/to-bind/binding", binding)
            self.assertEqual(status, 201, body)
            self.assertEqual(headers["x-kubernetes-pf-prioritylevel-uid"],
                             self.uid("prioritylevelconfigurations", "workload-high"))
        self.assertGreater(flood.count(200), 0)
        metrics = self.server.request("GET", "/metrics")[2].decode()
        rejected = [line for line in metrics.splitlines()
                    if line.startswith("apiserver_flowcontrol_rejected_requests_total{")
                    and 'priority_level="global-default"' in line]
        self.assertTrue(rejected, metrics)
        self.assertGreater(sum(int(line.split()[-1]) for line in rejected), 0)
        self.assertIn("apiserver_flowcontrol_current_executing_requests{", metrics)
        self.assertIn("apiserver_flowcontrol_current_inqueue_requests{", metrics)


if __name__ == "__main__":
    unittest.main()
