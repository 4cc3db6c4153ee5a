"""Pod templates read back with Kubernetes' pod defaults (SetDefaults_PodSpec and nested), as
kube-apiserver gives every template: Deployment, StatefulSet (and its claim templates), Job,
CronJob and ReplicationController."""
import unittest

from kwtest import ServerTestCase

NS = "/namespaces/default"


def bare_template(labels):
    return {"metadata": {"labels": labels},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}]}}


class PodTemplateDefaultsTest(ServerTestCase):
    def assert_pod_defaults(self, spec):
        self.assertEqual(spec["dnsPolicy"], "ClusterFirst")
        self.assertEqual(spec["restartPolicy"], "Always")
        self.assertEqual(spec["schedulerName"], "default-scheduler")
        self.assertEqual(spec["securityContext"], {})
        self.assertEqual(spec["terminationGracePeriodSeconds"], 30)
        container = spec["containers"][0]
        self.assertEqual(container["imagePullPolicy"], "IfNotPresent")
        self.assertEqual(container["terminationMessagePath"], "/dev/termination-log")
        self.assertEqual(container["terminationMessagePolicy"], "File")
        self.assertEqual(container["ports"][0]["protocol"], "TCP")

    def test_deployment_with_a_bare_container_reads_back_with_pod_defaults(self):
        body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bare"},
                "spec": {"selector": {"matchLabels": {"app": "bare"}}, "template": bare_template({"app": "bare"})}}
        status, created = self.server.json("POST", "/apis/apps/v1" + NS + "/deployments", body)
        self.assertEqual(status, 201, created)
        self.assert_pod_defaults(created["spec"]["template"]["spec"])
        status, read = self.server.json("GET", "/apis/apps/v1" + NS + "/deployments/bare")
        self.assertEqual(status, 200)
        self.assert_pod_defaults(read["spec"]["template"]["spec"])

    def test_statefulset_templates_and_claim_templates(self):
        body = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                         "template": bare_template({"app": "db"}),
                         "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                                   "spec": {"accessModes": ["ReadWriteOnce"],
                                                            "resources": {"requests": {"storage": "1Gi"}}}}]}}
        status, created = self.server.json("POST", "/apis/apps/v1" + NS + "/statefulsets", body)
        self.assertEqual(status, 201, created)
        self.assert_pod_defaults(created["spec"]["template"]["spec"])
        claim = created["spec"]["volumeClaimTemplates"][0]
        self.assertEqual(claim["spec"]["volumeMode"], "Filesystem")
        self.assertEqual(claim["status"], {"phase": "Pending"})

    def test_job_and_cronjob_templates(self):
        template = bare_template({"app": "batch"})
        template["spec"]["restartPolicy"] = "Never"
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"}, "spec": {"template": template}}
        status, created = self.server.json("POST", "/apis/batch/v1" + NS + "/jobs", job)
        self.assertEqual(status, 201, created)
        spec = created["spec"]["template"]["spec"]
        self.assertEqual(spec["restartPolicy"], "Never")
        self.assertEqual(spec["dnsPolicy"], "ClusterFirst")
        self.assertEqual(spec["containers"][0]["imagePullPolicy"], "IfNotPresent")
        cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
                "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": template}}}}
        status, created = self.server.json("POST", "/apis/batch/v1" + NS + "/cronjobs", cron)
        self.assertEqual(status, 201, created)
        spec = created["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        self.assertEqual(spec["schedulerName"], "default-scheduler")
        self.assertEqual(spec["containers"][0]["terminationMessagePath"], "/dev/termination-log")

    def test_job_without_restart_policy_is_refused_as_kube_refuses_it(self):
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "always"},
               "spec": {"template": bare_template({"app": "always"})}}
        status, body = self.server.json("POST", "/apis/batch/v1" + NS + "/jobs", job)
        self.assertEqual(status, 422)
        self.assertIn({"reason": "FieldValueRequired", "field": "spec.template.spec.restartPolicy",
                       "message": 'Required value: valid values: "OnFailure", "Never"'}, body["details"]["causes"])

    def test_replication_controller_template(self):
        rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
              "spec": {"template": bare_template({"app": "rc"})}}
        status, created = self.server.json("POST", "/api/v1" + NS + "/replicationcontrollers", rc)
        self.assertEqual(status, 201, created)
        self.assert_pod_defaults(created["spec"]["template"]["spec"])


if __name__ == "__main__":
    unittest.main()
