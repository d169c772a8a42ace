// The daemons as processes: a cluster spec with errors is refused by both
// with a message saying what is wrong and exit status 2; TF_CONFIG works in
// place of the flags; --help documents every flag; SIGTERM stops a cluster
// with exit status 0, also while a step is still running.

#include <signal.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/unary_call.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/cli/daemon_readiness.h"
#include "tools/client/graph_builder.h"

namespace tributary {
namespace test {
namespace {

constexpr absl::Duration kExitTimeout = absl::Seconds(30);

std::string WriteFile(const std::string& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

struct BadSpec {
  const char* name;
  const char* json;
  const char* says;  // a fragment the message must contain
};

const BadSpec kBadSpecs[] = {
    {"not_json", R"({"worker": ["127.0.0.1:2222")", "cluster spec"},
    {"no_port", R"({"worker": ["127.0.0.1"]})", "127.0.0.1"},
    {"port_out_of_range", R"({"worker": ["127.0.0.1:70000"]})", "70000"},
    {"empty_job", R"({"worker": [], "ps": ["127.0.0.1:2222"]})", "worker"},
    {"bad_job_name", R"({"work er": ["127.0.0.1:2222"]})", "work er"},
    {"address_not_a_string", R"({"worker": [2222]})", "worker"},
    {"not_an_object", R"(["127.0.0.1:2222"])", "cluster spec"},
};

class DaemonLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("daemon_lifecycle");
    auto ports = PickFreePorts(1);
    ASSERT_TRUE(ports.ok()) << ports.status();
    listen_ = absl::StrCat("127.0.0.1:", (*ports)[0]);
  }

  void ExpectRefused(const std::string& binary,
                     const std::vector<std::string>& args,
                     const std::string& says,
                     const std::vector<std::string>& env = {}) {
    SCOPED_TRACE(binary + " " + absl::StrJoin(args, " "));
    auto result = RunToExit(binary, args, kExitTimeout, env);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->exit_code, 2) << result->output;
    EXPECT_TRUE(absl::StrContains(result->output, says))
        << "the message should mention '" << says << "':\n"
        << result->output;
  }

  std::string dir_;
  std::string listen_;
};

TEST_F(DaemonLifecycleTest, BadClusterSpecIsRefusedByBothDaemons) {
  for (const BadSpec& bad : kBadSpecs) {
    SCOPED_TRACE(bad.name);
    const std::string spec =
        WriteFile(dir_, std::string(bad.name) + ".json", bad.json);
    ExpectRefused(WorkerBinary(),
                  {"--cluster", spec, "--job", "worker", "--task", "0"},
                  bad.says);
    ExpectRefused(MasterBinary(), {"--cluster", spec, "--listen", listen_},
                  bad.says);
  }
}

TEST_F(DaemonLifecycleTest, MissingClusterFileIsRefused) {
  const std::string missing = dir_ + "/no_such_cluster.json";
  ExpectRefused(WorkerBinary(),
                {"--cluster", missing, "--job", "worker", "--task", "0"},
                "no_such_cluster.json");
  ExpectRefused(MasterBinary(), {"--cluster", missing, "--listen", listen_},
                "no_such_cluster.json");
}

TEST_F(DaemonLifecycleTest, WorkerTaskNotInTheSpecIsRefused) {
  const std::string spec =
      WriteFile(dir_, "good.json", R"({"worker": ["127.0.0.1:2222"]})");
  ExpectRefused(WorkerBinary(),
                {"--cluster", spec, "--job", "worker", "--task", "3"}, "3");
  ExpectRefused(WorkerBinary(),
                {"--cluster", spec, "--job", "ps", "--task", "0"}, "ps");
}

TEST_F(DaemonLifecycleTest, BadTfConfigIsRefused) {
  ExpectRefused(WorkerBinary(), {}, "TF_CONFIG",
                {R"(TF_CONFIG={"cluster": {"worker": ["127.0.0.1"]}, )"
                 R"("task": {"type": "worker", "index": 0}})"});
}

TEST_F(DaemonLifecycleTest, WorkerStartsFromTfConfig) {
  auto ports = PickFreePorts(1);
  ASSERT_TRUE(ports.ok());
  const std::string address = absl::StrCat("127.0.0.1:", (*ports)[0]);
  const std::string tf_config =
      absl::StrCat(R"(TF_CONFIG={"cluster": {"worker": [")", address,
                   R"("]}, "task": {"type": "worker", "index": 0}})");
  auto worker = StartTestProcess("tf_config_worker", {WorkerBinary()},
                                 dir_ + "/tf_config_worker.log", {tf_config});
  ASSERT_TRUE(worker.ok()) << worker.status();
  ReadinessWait wait;
  wait.deadline = absl::Now() + absl::Seconds(60);
  wait.timeout = absl::Seconds(60);
  auto status = WaitForWorkerReady(**worker, address, wait);
  ASSERT_TRUE(status.ok()) << status.status() << "\n" << ReadLog(**worker);
  ASSERT_GT(status->device_attributes_size(), 0);
  EXPECT_EQ(status->device_attributes(0).name(),
            "/job:worker/replica:0/task:0/device:CPU:0");
  (*worker)->Signal(SIGTERM);
  ASSERT_TRUE((*worker)->WaitUntil(absl::Now() + kExitTimeout))
      << ReadLog(**worker);
  EXPECT_EQ((*worker)->ExitCode(), 0) << ReadLog(**worker);
}

TEST_F(DaemonLifecycleTest, HelpDocumentsEveryFlag) {
  const std::vector<std::string> worker_flags = {"--cluster",
                                                 "--job",
                                                 "--task",
                                                 "--log-level",
                                                 "--inter-op-threads",
                                                 "--intra-op-threads",
                                                 "--cpu-devices",
                                                 "--max-message-size",
                                                 "--max-graph-bytes",
                                                 "--session-memory-budget",
                                                 "--allowed-path",
                                                 "--grace-period"};
  const std::vector<std::string> master_flags = {"--cluster",
                                                 "--listen",
                                                 "--log-level",
                                                 "--discovery-timeout",
                                                 "--task-startup-window",
                                                 "--idle-session-timeout",
                                                 "--max-message-size",
                                                 "--max-graph-bytes",
                                                 "--max-sessions",
                                                 "--max-steps-per-client",
                                                 "--max-steps-per-session",
                                                 "--grace-period"};
  for (const auto& [binary, flags] :
       {std::make_pair(WorkerBinary(), worker_flags),
        std::make_pair(MasterBinary(), master_flags)}) {
    auto result = RunToExit(binary, {"--help"}, kExitTimeout);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->exit_code, 0) << result->output;
    for (const std::string& flag : flags) {
      EXPECT_TRUE(absl::StrContains(result->output, flag))
          << binary << " --help does not mention " << flag << ":\n"
          << result->output;
    }
  }
}

tensorflow::GraphDef SmallGraph() {
  GraphBuilder b;
  Output x = b.Scalar<float>(2.0f, NodeOptions("x").WithDevice(Cpu(kWorker1)));
  b.Mul(x, b.Scalar<float>(5.0f, NodeOptions("y").WithDevice(Cpu(kPs))),
        NodeOptions("z").WithDevice(Cpu(kWorker0)));
  Output never = NeverArrivingRecv(&b, Cpu(kWorker1), "never");
  b.Identity(never, NodeOptions("blocked").WithDevice(Cpu(kWorker0)));
  return b.Build().value();
}

TEST_F(DaemonLifecycleTest, SigtermStopsTheClusterWithExitZero) {
  auto cluster = TestCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto session = OpenSession((*cluster)->master_target(), SmallGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status st = RunStep(session->get(), {}, {"z"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(out[0].scalar<float>()(), 10.0f);
  // The session is left open: the master releases it on the way out.
  absl::Status stopped = (*cluster)->TerminateAll(kExitTimeout);
  EXPECT_TRUE(stopped.ok()) << stopped;
}

TEST_F(DaemonLifecycleTest, IdleSessionsAreCollected) {
  ClusterOptions options;
  options.master_flags = {"--idle-session-timeout", "1"};
  auto cluster = TestCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto session = OpenSession((*cluster)->master_target(), SmallGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE(RunStep(session->get(), {}, {"z"}, {}, &out).ok());
  // Idleness is the behaviour under test, so the test has to be idle. Each
  // look at the session makes it busy again, hence longer and longer waits.
  absl::Status st;
  for (absl::Duration idle = absl::Seconds(2);
       idle <= absl::Seconds(16) && st.ok(); idle *= 2) {
    absl::SleepFor(idle);
    st = RunStep(session->get(), {}, {"z"}, {}, &out);
  }
  // TensorFlow's code for a session the master no longer has.
  EXPECT_EQ(st.code(), absl::StatusCode::kAborted) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "not found")) << st;
  // The master itself goes on.
  auto next = OpenSession((*cluster)->master_target(), SmallGraph());
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_TRUE(RunStep(next->get(), {}, {"z"}, {}, &out).ok());
}

// SmallGraph's "blocked" fetch, which never finishes by itself, run in the
// background.
std::future<absl::Status> RunBlockedStep(Session* s) {
  return std::async(std::launch::async, [s] {
    std::vector<Tensor> out;
    return RunStep(s, {}, {"blocked"}, {}, &out);
  });
}

// The health service's answer for the whole daemon at `address`.
grpc::health::v1::HealthCheckResponse::ServingStatus CheckHealth(
    const std::string& address, grpc::Status* status) {
  grpc::GenericStub stub(NewGrpcChannel(address));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  *status = ProtoCallOnThisThread(
      &stub, &context, "/grpc.health.v1.Health/Check", request, &response);
  return response.status();
}

// What a Kubernetes probe sees while a worker drains a running step after
// SIGTERM: an answer, NOT_SERVING, until the grace period ends the step.
TEST_F(DaemonLifecycleTest, HealthAnswersNotServingWhileAStepDrains) {
  using grpc::health::v1::HealthCheckResponse;
  ClusterOptions options;
  options.worker_flags = {"--grace-period", "4"};
  auto cluster = TestCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string worker0 = (*cluster)->TaskAddress("worker", 0);
  grpc::Status status;
  ASSERT_EQ(CheckHealth(worker0, &status), HealthCheckResponse::SERVING)
      << status.error_message();
  auto session = OpenSession((*cluster)->master_target(), SmallGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::future<absl::Status> step = RunBlockedStep(session->get());
  ASSERT_EQ(step.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);

  const absl::Time signalled = absl::Now();
  ASSERT_TRUE((*cluster)->SignalTask("worker", 0, SIGTERM).ok());
  HealthCheckResponse::ServingStatus answer = HealthCheckResponse::SERVING;
  while (answer == HealthCheckResponse::SERVING &&
         absl::Now() - signalled < absl::Seconds(3)) {
    answer = CheckHealth(worker0, &status);
  }
  EXPECT_TRUE(status.ok()) << "a probe during the drain was refused: "
                           << status.error_message();
  EXPECT_EQ(answer, HealthCheckResponse::NOT_SERVING);
  // Still draining: the step holds the worker until its grace period ends.
  EXPECT_TRUE((*cluster)->TaskRunning("worker", 0));

  ASSERT_EQ(step.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_FALSE(step.get().ok());
  for (int i = 0; i < 600 && (*cluster)->TaskRunning("worker", 0); ++i) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_FALSE((*cluster)->TaskRunning("worker", 0)) << (*cluster)->LogTails();
  CheckHealth(worker0, &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(DaemonLifecycleTest, SigtermWithAStepStillRunningExitsZero) {
  ClusterOptions options;
  options.worker_flags = {"--grace-period", "1"};
  options.master_flags = {"--grace-period", "1"};
  auto cluster = TestCluster::Start(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto session = OpenSession((*cluster)->master_target(), SmallGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::future<absl::Status> step = RunBlockedStep(session->get());
  ASSERT_EQ(step.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  // The step never finishes by itself: the daemons must give up on it after
  // their grace period and still exit 0.
  absl::Status stopped = (*cluster)->TerminateAll(kExitTimeout);
  EXPECT_TRUE(stopped.ok()) << stopped;
  ASSERT_EQ(step.wait_for(std::chrono::seconds(kSafetyTimeoutMs / 1000 + 30)),
            std::future_status::ready);
  absl::Status st = step.get();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.code(), absl::StatusCode::kDeadlineExceeded)
      << "the client waited for its own deadline instead of being told: " << st;
}

}  // namespace
}  // namespace test
}  // namespace tributary
