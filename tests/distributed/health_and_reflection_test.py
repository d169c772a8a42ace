"""Both daemons as processes, probed with gRPC's own Python client (Debian's
python3-grpcio) and the messages of Debian's grpc-proto, as Kubernetes' gRPC
probes, grpc_health_probe and grpcurl would: the standard health service
(Check and Watch, NOT_SERVING once SIGTERM begins the drain) and server
reflection (services listed, then described well enough to build a request
from the descriptors alone and call the daemon with it).
Without Debian's grpcio the checks are skipped, never passed.
"""
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import daemon_process  # noqa: E402

PROTO_ROOT = "/usr/share/grpc-proto"
PROTOS = ["grpc/health/v1/health.proto", "grpc/reflection/v1/reflection.proto",
          "grpc/reflection/v1alpha/reflection.proto"]

MASTER = os.path.join("master", "tributary-master")
WORKER = os.path.join("worker", "tributary-worker")
CLI = os.path.join("tools", "tributary")


class HealthAndReflectionTest(daemon_process.ClusterSpecTestCase):

    @classmethod
    def setUpClass(cls):
        try:
            import grpc
        except ImportError:
            raise unittest.SkipTest("Debian's python3-grpcio is not installed "
                                    "(tools/setup.sh --tests)")
        if not all(os.path.exists(os.path.join(PROTO_ROOT, p)) for p in PROTOS):
            raise unittest.SkipTest("Debian's grpc-proto is not installed")
        cls.grpc = grpc
        cls.generated = tempfile.TemporaryDirectory()
        # Loaded by path, not imported: the package "grpc" is grpcio's.
        root = cls.generated.name
        subprocess.run(["protoc", "-I" + PROTO_ROOT, "--python_out=" + root, *PROTOS],
                       check=True)
        cls.health = cls._load(root, "grpc/health/v1/health_pb2.py")
        cls.refl_v1 = cls._load(root, "grpc/reflection/v1/reflection_pb2.py")
        cls.refl_v1alpha = cls._load(root, "grpc/reflection/v1alpha/reflection_pb2.py")

    @staticmethod
    def _load(root, relative):
        import importlib.util
        name = "probe_" + relative.replace("/", "_")[:-3]
        spec = importlib.util.spec_from_file_location(name, os.path.join(root, relative))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    @classmethod
    def tearDownClass(cls):
        cls.generated.cleanup()

    # --- the daemons ----------------------------------------------------------------

    def start_worker(self):
        ports = daemon_process.free_ports(1)
        spec = self.spec({"worker": ["127.0.0.1:%d" % ports[0]]})
        worker = daemon_process.Daemon(
            WORKER, ["--cluster", spec, "--job", "worker", "--task", "0"])
        self.addCleanup(worker.kill)
        return spec, worker

    def start_master(self, spec):
        master = daemon_process.Daemon(MASTER, ["--cluster", spec,
                                                "--listen", "127.0.0.1:0"])
        self.addCleanup(master.kill)
        return master

    def channel(self, address):
        channel = self.grpc.insecure_channel(address)
        self.addCleanup(channel.close)
        return channel

    # --- health -------------------------------------------------------------------

    def check(self, channel, service):
        call = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=self.health.HealthCheckRequest.SerializeToString,
            response_deserializer=self.health.HealthCheckResponse.FromString)
        return call(self.health.HealthCheckRequest(service=service), timeout=20).status

    def test_check_answers_serving_for_each_daemon_and_its_service(self):
        SERVING = self.health.HealthCheckResponse.SERVING
        spec, worker = self.start_worker()
        master = self.start_master(spec)
        for daemon, service in [(worker, "tensorflow.WorkerService"),
                                (master, "tensorflow.MasterService")]:
            channel = self.channel(daemon.address)
            self.assertEqual(self.check(channel, ""), SERVING)
            self.assertEqual(self.check(channel, service), SERVING)
            with self.assertRaises(self.grpc.RpcError) as refused:
                self.check(channel, "tensorflow.EagerService")
            self.assertEqual(refused.exception.code(), self.grpc.StatusCode.NOT_FOUND)

    def test_watch_sees_not_serving_when_sigterm_begins_the_drain(self):
        Response = self.health.HealthCheckResponse
        _, worker = self.start_worker()
        watch = self.channel(worker.address).unary_stream(
            "/grpc.health.v1.Health/Watch",
            request_serializer=self.health.HealthCheckRequest.SerializeToString,
            response_deserializer=Response.FromString)
        stream = watch(self.health.HealthCheckRequest(service=""), timeout=60)
        self.assertEqual(next(stream).status, Response.SERVING)
        seen = []

        def read_rest():
            try:
                for update in stream:
                    seen.append(update.status)
            except self.grpc.RpcError as e:
                seen.append(e.code())

        reader = threading.Thread(target=read_rest)
        reader.start()
        began = time.monotonic()
        rc, log = worker.stop(signal.SIGTERM)
        reader.join(timeout=30)
        self.assertFalse(reader.is_alive(), "the Watch stream never ended")
        self.assertEqual(rc, 0, log)
        # Told, then the call ends with OK.
        self.assertEqual(seen, [Response.NOT_SERVING])
        # An open Watch does not hold the daemon for its grace period.
        self.assertLess(time.monotonic() - began, 5, log)

    # --- reflection ---------------------------------------------------------------

    def reflect(self, channel, module, version, requests):
        call = channel.stream_stream(
            "/grpc.reflection.%s.ServerReflection/ServerReflectionInfo" % version,
            request_serializer=module.ServerReflectionRequest.SerializeToString,
            response_deserializer=module.ServerReflectionResponse.FromString)
        return list(call(iter(requests), timeout=20))

    def pool_with(self, responses):
        """A descriptor pool holding every file the responses carried."""
        from google.protobuf import descriptor_pb2, descriptor_pool
        files = {}
        for response in responses:
            for raw in response.file_descriptor_response.file_descriptor_proto:
                proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
                files[proto.name] = proto
        pool = descriptor_pool.DescriptorPool()
        added = set()
        while len(added) < len(files):  # imports first
            progress = False
            for name, proto in files.items():
                if name not in added and all(d in added for d in proto.dependency):
                    pool.Add(proto)
                    added.add(name)
                    progress = True
            self.assertTrue(progress, "imports missing from the answers: %s" %
                            {n: list(p.dependency) for n, p in files.items()})
        return pool

    def test_reflection_lists_and_describes_both_daemons(self):
        spec, worker = self.start_worker()
        master = self.start_master(spec)
        for daemon, service, method, request_type in [
                (worker, "tensorflow.WorkerService", "GetStatus",
                 "tensorflow.GetStatusRequest"),
                (master, "tensorflow.MasterService", "ListDevices",
                 "tensorflow.ListDevicesRequest")]:
            channel = self.channel(daemon.address)
            for version, module in [("v1", self.refl_v1), ("v1alpha", self.refl_v1alpha)]:
                Request = module.ServerReflectionRequest
                answers = self.reflect(channel, module, version, [
                    Request(list_services=""),
                    Request(file_containing_symbol=service),
                    Request(file_containing_symbol="no.such.Service"),
                ])
                self.assertEqual(len(answers), 3)
                listed = [s.name for s in answers[0].list_services_response.service]
                self.assertIn(service, listed)
                self.assertIn("grpc.health.v1.Health", listed)
                self.assertIn("grpc.reflection.v1.ServerReflection", listed)
                self.assertEqual(answers[2].error_response.error_code,
                                 self.grpc.StatusCode.NOT_FOUND.value[0])
                pool = self.pool_with(answers[1:2])
                described = pool.FindServiceByName(service)
                found = {m.name: m for m in described.methods}
                self.assertIn(method, found)
                self.assertEqual(found[method].input_type.full_name, request_type)
                # What grpcurl does next: a request built from the descriptors
                # alone, sent to the daemon, answered.
                from google.protobuf import message_factory
                make = message_factory.GetMessageClass \
                    if hasattr(message_factory, "GetMessageClass") else \
                    message_factory.MessageFactory(pool).GetPrototype
                RequestType = make(found[method].input_type)
                ResponseType = make(found[method].output_type)
                call = channel.unary_unary(
                    "/%s/%s" % (service, method),
                    request_serializer=RequestType.SerializeToString,
                    response_deserializer=ResponseType.FromString)
                answer = call(RequestType(), timeout=20)
                devices = [d.name for field in ("device_attributes", "local_device",
                                                "remote_device")
                           if hasattr(answer, field) for d in getattr(answer, field)]
                self.assertTrue(any("CPU:0" in d for d in devices), devices)


class HealthCommandTest(daemon_process.ClusterSpecTestCase):
    """`tributary health`, the probe for scripts and Kubernetes exec probes."""

    def health(self, *args):
        return subprocess.run([CLI, "health", *args], capture_output=True, text=True,
                              timeout=60)

    def test_serving_daemons_and_what_is_not(self):
        port = daemon_process.free_ports(1)[0]
        spec = self.spec({"worker": ["127.0.0.1:%d" % port]})
        worker = daemon_process.Daemon(
            WORKER, ["--cluster", spec, "--job", "worker", "--task", "0"])
        self.addCleanup(worker.kill)
        master = daemon_process.Daemon(MASTER, ["--cluster", spec,
                                                "--listen", "127.0.0.1:0"])
        self.addCleanup(master.kill)
        for daemon, service in [(worker, "tensorflow.WorkerService"),
                                (master, "tensorflow.MasterService")]:
            target = "grpc://" + daemon.address
            for args in ([], ["--service", service]):
                proc = self.health("--target", target, *args)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertEqual(proc.stdout, "SERVING\n")
            proc = self.health("--target", target, "--service", "tensorflow.EagerService")
            self.assertEqual(proc.returncode, 1)
            self.assertIn("No service 'tensorflow.EagerService'", proc.stderr)
        rc, log = worker.stop()
        self.assertEqual(rc, 0, log)
        proc = self.health("--target", "grpc://127.0.0.1:%d" % port, "--timeout", "2")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("127.0.0.1:%d" % port, proc.stderr)
        self.assertEqual(self.health("--target", "http://x:1").returncode, 2)


if __name__ == "__main__":
    unittest.main()
