"""deploy/kubernetes's manifests parse and agree with each other and with the
daemons: the cluster spec's addresses are the StatefulSets' pods behind their
headless Services on the ports the containers serve; the flags point at the
mounted ConfigMap and Secret; the probes ask the health service on the right
port; the disruption budgets and Services select the pods; and a worker started
with each pod's name as its host name (--task-from-hostname, in a UTS namespace)
serves the task the spec gives that pod. Every container, and the compose file's,
runs the image tools/image.sh builds (tributary:VERSION). Needs Debian's python3-yaml.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import daemon_process  # noqa: E402

DIR = os.path.join("deploy", "kubernetes")
WORKER = os.path.join("worker", "tributary-worker")


def flags(container):
    """--name=value arguments as a dict (a bare flag maps to True)."""
    out = {}
    for arg in container.get("args", []):
        name, _, value = arg.partition("=")
        out[name] = value if value else True
    return out


class KubernetesManifestsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        try:
            import yaml
        except ImportError:
            raise unittest.SkipTest("Debian's python3-yaml is not installed")
        cls.docs = {}
        cls.files = sorted(f for f in os.listdir(DIR) if f.endswith(".yaml"))
        for name in cls.files:
            with open(os.path.join(DIR, name)) as f:
                cls.docs[name] = [d for d in yaml.safe_load_all(f) if d]
        cls.objects = [d for n, docs in cls.docs.items() if n != "kustomization.yaml"
                       for d in docs]
        config_map = cls.one("ConfigMap", "tributary-cluster")
        cls.cluster = json.loads(config_map["data"]["cluster.json"])

    @classmethod
    def one(cls, kind, name):
        found = [o for o in cls.objects
                 if o["kind"] == kind and o["metadata"]["name"] == name]
        assert len(found) == 1, (kind, name, len(found))
        return found[0]

    def test_every_container_runs_the_image_tools_image_sh_names(self):
        # tools/image.sh's docker-archive loads as tributary:VERSION; the
        # manifests and the compose file must ask for that image.
        with open("VERSION") as f:
            image = "tributary:" + f.read().strip()
        containers = [c for o in self.objects if o["kind"] in ("StatefulSet", "Deployment")
                      for c in o["spec"]["template"]["spec"]["containers"]]
        self.assertTrue(containers)
        for container in containers:
            self.assertEqual(container["image"], image, container["name"])
        import yaml
        with open(os.path.join("deploy", "container", "compose.yaml")) as f:
            compose = yaml.safe_load(f)
        self.assertEqual(compose["x-tributary"]["image"], image)

    def test_kustomization_lists_every_manifest(self):
        (kustomization,) = self.docs["kustomization.yaml"]
        self.assertEqual(sorted(kustomization["resources"]),
                         [f for f in self.files if f != "kustomization.yaml"])
        for o in self.objects:
            self.assertIn("apiVersion", o)
            self.assertEqual(o["metadata"]["labels"]["app.kubernetes.io/name"], "tributary")

    def check_pod(self, template, container, port):
        """What the worker and master pods share: mounts, TLS, metrics, probes."""
        pod = template["spec"]
        f = flags(container)
        volumes = {v["name"]: v for v in pod["volumes"]}
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        self.assertEqual(volumes["cluster"]["configMap"]["name"], "tributary-cluster")
        self.assertEqual(f["--cluster"], mounts["cluster"] + "/cluster.json")
        self.assertEqual(volumes["tls"]["secret"]["secretName"], "tributary-tls")
        for flag, key in (("--tls-cert", "tls.crt"), ("--tls-key", "tls.key"),
                          ("--tls-ca", "ca.crt")):
            self.assertEqual(f[flag], mounts["tls"] + "/" + key)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        self.assertEqual(f["--listen"], "0.0.0.0:%d" % ports["grpc"])
        self.assertEqual(ports["grpc"], port)
        self.assertEqual(f["--metrics-listen"], "0.0.0.0:%d" % ports["metrics"])
        for probe in ("readinessProbe", "livenessProbe"):
            command = " ".join(container[probe]["exec"]["command"])
            self.assertIn("tributary health --target", command)
            self.assertRegex(command, r"grpc://[^ ]*:%d\b" % port)
            for flag in ("--tls-ca", "--tls-cert", "--tls-key"):
                self.assertIn("%s %s" % (flag, f[flag]), command)
        self.assertEqual(int(template["metadata"]["annotations"]["prometheus.io/port"]),
                         ports["metrics"])
        # The grace period plus time to exit.
        self.assertGreater(pod["terminationGracePeriodSeconds"], int(f["--grace-period"]))

    def test_each_job_is_a_statefulset_behind_a_headless_service(self):
        self.assertEqual(sorted(self.cluster), ["ps", "worker"])
        for job, addresses in self.cluster.items():
            service = self.one("Service", job)
            sts = self.one("StatefulSet", job)
            self.assertEqual(service["spec"]["clusterIP"], "None")
            self.assertEqual(sts["spec"]["serviceName"], job)
            self.assertEqual(sts["spec"]["replicas"], len(addresses))
            (port,) = [p["port"] for p in service["spec"]["ports"] if p["name"] == "grpc"]
            self.assertEqual(addresses, ["%s-%d.%s:%d" % (job, i, job, port)
                                         for i in range(len(addresses))])
            template = sts["spec"]["template"]
            labels = template["metadata"]["labels"]
            for selector in (service["spec"]["selector"],
                             sts["spec"]["selector"]["matchLabels"],
                             self.one("PodDisruptionBudget", job)["spec"]["selector"]
                             ["matchLabels"]):
                self.assertLessEqual(selector.items(), labels.items())
            (container,) = template["spec"]["containers"]
            self.assertEqual(container["command"], ["tributary-worker"])
            self.assertIs(flags(container)["--task-from-hostname"], True)
            self.check_pod(template, container, port)
            for probe in ("readinessProbe", "livenessProbe"):
                self.assertIn('"grpc://${HOSTNAME}.%s:%d"' % (job, port),
                              " ".join(container[probe]["exec"]["command"]))

    def test_the_master_serves_its_service_port(self):
        service = self.one("Service", "master")
        deployment = self.one("Deployment", "master")
        template = deployment["spec"]["template"]
        self.assertLessEqual(service["spec"]["selector"].items(),
                             template["metadata"]["labels"].items())
        (port,) = [p["port"] for p in service["spec"]["ports"] if p["name"] == "grpc"]
        (container,) = template["spec"]["containers"]
        self.assertEqual(container["command"], ["tributary-master"])
        self.check_pod(template, container, port)
        # The probe dials "master" (the certificate's name), which is this pod.
        self.assertIn({"ip": "127.0.0.1", "hostnames": ["master"]},
                      template["spec"]["hostAliases"])
        self.assertIn("grpc://master:%d" % port,
                      container["readinessProbe"]["exec"]["command"])

    def test_each_pod_name_makes_its_worker_serve_its_task(self):
        probe = subprocess.run(["unshare", "--uts", "true"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest("cannot make a UTS namespace here (needs root)")
        work = tempfile.mkdtemp()
        spec = os.path.join(work, "cluster.json")
        with open(spec, "w") as f:
            json.dump(self.cluster, f)
        binary = os.path.abspath(WORKER)
        for job, addresses in self.cluster.items():
            for index in range(len(addresses)):
                pod = "%s-%d" % (job, index)
                d = daemon_process.Daemon("unshare", [
                    "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', pod, binary,
                    "--cluster", spec, "--task-from-hostname", "--listen", "127.0.0.1:0"])
                rc, log = d.stop(signal.SIGTERM)
                self.assertEqual(rc, 0, log)
                self.assertIn("task /job:%s/replica:0/task:%d with" % (job, index), log)


if __name__ == "__main__":
    unittest.main()
