"""Services as kube-apiserver 1.33 keeps them: defaults, cluster IPs drawn from
--service-cluster-ip-range and recorded as IPAddress objects, node ports from
--service-node-port-range, values kept across updates and given back on deletion, the
validation of ports and types, and the `kubernetes` Service with its endpoints."""
import ipaddress
import unittest

from kwtest import KwServer, ServerTestCase, free_port

NS = "/api/v1/namespaces/default"
IPS = "/apis/networking.k8s.io/v1/ipaddresses"
RANGE = "10.96.0.0/28"  # 13 usable addresses: 10.96.0.1 .. 10.96.0.14, minus nothing else
PORTS = "30000-30009"


def service(name, **spec):
    spec.setdefault("ports", [{"port": 80}])
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


class ServiceTest(ServerTestCase):
    server_args = ["--service-cluster-ip-range", RANGE, "--service-node-port-range", PORTS]

    def create(self, body, expect=201):
        status, created = self.server.json("POST", NS + "/services", body)
        self.assertEqual(status, expect, created)
        return created

    def test_cluster_ip_service_is_defaulted_and_given_an_address(self):
        created = self.create(service("web", selector={"app": "web"}, ports=[{"port": 80, "targetPort": 0}]))
        spec = created["spec"]
        ip = spec["clusterIP"]
        self.assertIn(ipaddress.ip_address(ip), ipaddress.ip_network(RANGE))
        self.assertNotEqual(ip, "10.96.0.0")
        self.assertEqual(spec["clusterIPs"], [ip])
        self.assertEqual(spec["ipFamilies"], ["IPv4"])
        self.assertEqual(spec["ipFamilyPolicy"], "SingleStack")
        self.assertEqual(spec["type"], "ClusterIP")
        self.assertEqual(spec["sessionAffinity"], "None")
        self.assertEqual(spec["internalTrafficPolicy"], "Cluster")
        self.assertEqual(spec["ports"], [{"port": 80, "protocol": "TCP", "targetPort": 80}])
        self.assertNotIn("externalTrafficPolicy", spec)
        self.assertEqual(created["status"], {"loadBalancer": {}})
        self.assertEqual(self.server.json("GET", NS + "/services/web")[1]["status"], {"loadBalancer": {}})
        status, address = self.server.json("GET", IPS + "/" + ip)
        self.assertEqual(status, 200, address)
        self.assertEqual(address["spec"]["parentRef"],
                         {"resource": "services", "namespace": "default", "name": "web"})
        self.assertEqual(address["metadata"]["labels"]["ipaddress.kubernetes.io/managed-by"], "ipallocator.k8s.io")
        # A replace that leaves the allocated values out keeps them.
        body = service("web", selector={"app": "web2"})
        body["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
        status, replaced = self.server.json("PUT", NS + "/services/web", body)
        self.assertEqual(status, 200, replaced)
        self.assertEqual(replaced["spec"]["clusterIP"], ip)
        # Changing it is refused.
        body = service("web", clusterIP="10.96.0.3" if ip != "10.96.0.3" else "10.96.0.4")
        status, refused = self.server.json("PUT", NS + "/services/web", body)
        self.assertEqual(status, 422, refused)
        self.assertIn("spec.clusterIPs[0]: Invalid value: []string{", refused["message"])
        self.assertIn("may not change once set", refused["message"])
        # Deleting the Service frees the address and removes its IPAddress.
        self.assertEqual(self.server.json("DELETE", NS + "/services/web")[0], 200)
        self.assertEqual(self.server.json("GET", IPS + "/" + ip)[0], 404)
        again = self.create(service("again", clusterIP=ip))
        self.assertEqual(again["spec"]["clusterIP"], ip)
        self.server.json("DELETE", NS + "/services/again")

    def test_requested_addresses_are_checked(self):
        first = self.create(service("first", clusterIP="10.96.0.2"))
        self.assertEqual(first["spec"]["clusterIPs"], ["10.96.0.2"])
        refused = self.create(service("second", clusterIP="10.96.0.2"), 422)
        self.assertEqual(refused["message"],
                         'Service "second" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.2"}: '
                         "failed to allocate IP 10.96.0.2: provided IP is already allocated")
        refused = self.create(service("third", clusterIP="10.0.0.9"), 422)
        self.assertIn("failed to allocate IP 10.0.0.9: the provided network does not match the current range",
                      refused["message"])
        refused = self.create(service("fourth", clusterIP="10.96.0.15"), 422)  # the broadcast address
        self.assertIn("failed to allocate IP 10.96.0.15: the provided IP (10.96.0.15) is not in the valid range. "
                      "The range of valid IPs is " + RANGE, refused["message"])
        # A dry run takes nothing.
        status, dry = self.server.json("POST", NS + "/services?dryRun=All", service("dry", clusterIP="10.96.0.5"))
        self.assertEqual(status, 201, dry)
        status, dry = self.server.json("POST", NS + "/services?dryRun=All", service("dry"))
        self.assertEqual(dry["spec"]["clusterIP"], "10.96.0.0")
        self.create(service("real", clusterIP="10.96.0.5"))
        for name in ("first", "real"):
            self.server.json("DELETE", NS + "/services/" + name)

    def test_headless_and_external_name_services_take_no_address(self):
        headless = self.create(service("headless", clusterIP="None", ports=[], selector={"app": "db"}))
        self.assertEqual(headless["spec"]["clusterIPs"], ["None"])
        self.assertEqual((headless["spec"]["ipFamilyPolicy"], headless["spec"]["ipFamilies"]), ("SingleStack", ["IPv4"]))
        bare = self.create(service("bare", clusterIP="None", ports=[]))
        self.assertEqual((bare["spec"]["ipFamilyPolicy"], bare["spec"]["ipFamilies"]),
                         ("RequireDualStack", ["IPv4", "IPv6"]))
        self.server.json("DELETE", NS + "/services/bare")
        external = self.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext"},
                                "spec": {"type": "ExternalName", "externalName": "example.com."}})
        self.assertNotIn("clusterIP", external["spec"])
        self.assertNotIn("ipFamilies", external["spec"])
        self.assertNotIn("internalTrafficPolicy", external["spec"])
        refused = self.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext2"},
                               "spec": {"type": "ExternalName"}}, 422)
        self.assertIn("spec.externalName: Required value", refused["message"])
        for name in ("headless", "ext"):
            self.server.json("DELETE", NS + "/services/" + name)

    def test_node_ports_are_drawn_kept_and_given_back(self):
        created = self.create(service("np", type="NodePort",
                                      ports=[{"name": "dns", "port": 53, "protocol": "UDP"},
                                             {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
                                             {"name": "web", "port": 80, "nodePort": 30001}]))
        ports = created["spec"]["ports"]
        self.assertEqual(created["spec"]["externalTrafficPolicy"], "Cluster")
        self.assertEqual(ports[0]["nodePort"], ports[1]["nodePort"])  # one port number, one node port
        self.assertTrue(30000 <= ports[0]["nodePort"] <= 30009)
        self.assertEqual(ports[2]["nodePort"], 30001)
        refused = self.create(service("np2", type="NodePort", ports=[{"port": 80, "nodePort": 30001}]), 422)
        self.assertEqual(refused["message"], 'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30001: '
                                             "provided port is already allocated")
        refused = self.create(service("np3", type="NodePort", ports=[{"port": 80, "nodePort": 31000}]), 422)
        self.assertIn("provided port is not in the valid range. The range of valid ports is 30000-30009",
                      refused["message"])
        # A merge patch to ClusterIP drops the node ports and frees them.
        status, patched = self.server.request(
            "PATCH", NS + "/services/np", b'{"spec":{"type":"ClusterIP","externalTrafficPolicy":null}}',
            {"Content-Type": "application/merge-patch+json"})[:2]
        self.assertEqual(status, 200, patched)
        self.create(service("np2", type="NodePort", ports=[{"port": 80, "nodePort": 30001}]))
        for name in ("np", "np2"):
            self.server.json("DELETE", NS + "/services/" + name)

    def test_load_balancer_defaults_and_health_check_port(self):
        created = self.create(service("lb", type="LoadBalancer", externalTrafficPolicy="Local"))
        spec = created["spec"]
        self.assertTrue(spec["allocateLoadBalancerNodePorts"])
        self.assertTrue(30000 <= spec["ports"][0]["nodePort"] <= 30009)
        self.assertTrue(30000 <= spec["healthCheckNodePort"] <= 30009)
        self.assertNotEqual(spec["healthCheckNodePort"], spec["ports"][0]["nodePort"])
        self.server.json("DELETE", NS + "/services/lb")

    def test_validation(self):
        cases = [
            (service("Bad"), "metadata.name: Invalid value: \"Bad\": a DNS-1035 label must consist of lower case"),
            (service("noports", ports=[]), "spec.ports: Required value"),
            (service("two", ports=[{"port": 80}, {"port": 81}]), "spec.ports[0].name: Required value"),
            (service("dup", ports=[{"name": "a", "port": 80}, {"name": "b", "port": 80}]),
             'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP"'),
            (service("proto", ports=[{"port": 80, "protocol": "ICMP"}]),
             'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'),
            (service("typ", type="Magic"),
             'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", '
             '"LoadBalancer", "NodePort"'),
            (service("cipnp", ports=[{"port": 80, "nodePort": 30005}]),
             "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"),
            (service("etp", externalTrafficPolicy="Local"),
             'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services'),
            (service("aff", sessionAffinity="Sticky"),
             'spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"'),
            (service("nphl", type="NodePort", clusterIP="None"),
             "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"),
        ]
        for body, message in cases:
            with self.subTest(name=body["metadata"]["name"]):
                refused = self.create(body, 422)
                self.assertIn(message, refused["message"])
        client_ip = self.create(service("sticky", sessionAffinity="ClientIP"))
        self.assertEqual(client_ip["spec"]["sessionAffinityConfig"], {"clientIP": {"timeoutSeconds": 10800}})
        self.server.json("DELETE", NS + "/services/sticky")

    def test_range_exhaustion_is_an_internal_error(self):
        made = []
        for i in range(20):
            status, body = self.server.json("POST", NS + "/services", service(f"fill-{i}"))
            if status != 201:
                self.assertEqual(status, 500, body)
                self.assertIn("range is full", body["message"])
                break
            made.append(body["metadata"]["name"])
        self.assertLessEqual(len(made), 14)
        for name in made:
            self.server.json("DELETE", NS + "/services/" + name)


class KubernetesServiceTest(unittest.TestCase):
    def test_kubernetes_service_names_this_server(self):
        with KwServer(["--advertise-address", "192.0.2.10"], secure_port=free_port()) as server:
            status, svc = server.json("GET", NS + "/services/kubernetes")
            self.assertEqual(status, 200, svc)
            self.assertEqual(svc["spec"]["clusterIP"], "10.0.0.1")
            self.assertEqual(svc["spec"]["ports"],
                             [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": server.secure_port}])
            self.assertEqual(svc["metadata"]["labels"], {"component": "apiserver", "provider": "kubernetes"})
            status, endpoints = server.json("GET", NS + "/endpoints/kubernetes")
            self.assertEqual(status, 200, endpoints)
            self.assertEqual(endpoints["subsets"], [{"addresses": [{"ip": "192.0.2.10"}],
                                                     "ports": [{"name": "https", "port": server.secure_port,
                                                                "protocol": "TCP"}]}])
            status, slice_ = server.json("GET", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes")
            self.assertEqual(status, 200, slice_)
            self.assertEqual(slice_["endpoints"][0]["addresses"], ["192.0.2.10"])
            status, cidr = server.json("GET", "/apis/networking.k8s.io/v1/servicecidrs/kubernetes")
            self.assertEqual(status, 200, cidr)
            self.assertEqual(cidr["spec"]["cidrs"], ["10.0.0.0/24"])
            status, address = server.json("GET", IPS + "/10.0.0.1")
            self.assertEqual(status, 200, address)
            # The client CA, published for components that authenticate clients as this server does.
            status, authn = server.json("GET", "/api/v1/namespaces/kube-system/configmaps/"
                                               "extension-apiserver-authentication")
            self.assertEqual(status, 200, authn)
            with open(server.ca_file) as f:
                self.assertEqual(authn["data"], {"client-ca-file": f.read()})


if __name__ == "__main__":
    unittest.main()
