#include "master/testing/master_test_util.h"

#include "common/framework/logging.h"
#include "google/protobuf/text_format.h"

namespace tributary {
namespace test {

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef g;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &g));
  return g;
}

tensorflow::GraphDef PsWorkerGraph() {
  return ParseGraph(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "v"
      op: "VariableV2"
      device: "/job:ps"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 2 } } } }
    }
    node {
      name: "y"
      op: "Add"
      device: "/job:worker/task:1"
      input: "x"
      input: "v"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "z"
      op: "Identity"
      input: "y"
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb");
}

MasterOptions MasterTest::DefaultOptions() {
  MasterOptions o;
  o.worker_cache = &cache_;
  o.cluster = cluster_;
  o.discovery_timeout = absl::Seconds(30);
  o.control_timeout = absl::Seconds(30);
  o.cancel_grace = absl::Seconds(30);
  return o;
}

void MasterTest::SetUp() {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::FromJson(kClusterJson);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  cluster_ = *cluster;
  ps_ = std::make_shared<FakeWorker>(kPs);
  w0_ = std::make_shared<FakeWorker>(kWorker0, /*num_cpus=*/2);
  w1_ = std::make_shared<FakeWorker>(kWorker1);
  cache_.AddWorker(kPs, ps_);
  cache_.AddWorker(kWorker0, w0_);
  cache_.AddWorker(kWorker1, w1_);
  master_ = std::make_unique<Master>(DefaultOptions());
}

void MasterTest::TearDown() { master_.reset(); }

void MasterTest::RestartMaster(MasterOptions options) {
  master_.reset();
  master_ = std::make_unique<Master>(std::move(options));
}

absl::StatusOr<std::string> MasterTest::CreateSession(
    const tensorflow::GraphDef& graph, const tensorflow::ConfigProto& config) {
  tensorflow::CreateSessionRequest req;
  *req.mutable_graph_def() = graph;
  *req.mutable_config() = config;
  tensorflow::CreateSessionResponse resp;
  absl::Status s = master_->CreateSession(nullptr, req, &resp);
  if (!s.ok()) return s;
  return resp.session_handle();
}

absl::Status MasterTest::Run(const std::string& handle,
                             const NamedTensors& feeds,
                             const std::vector<std::string>& fetches,
                             const std::vector<std::string>& targets,
                             std::vector<Tensor>* outputs,
                             const tensorflow::RunOptions& options,
                             tensorflow::RunMetadata* metadata,
                             CallOptions* call) {
  RunStepRequestMsg req;
  req.proto.set_session_handle(handle);
  req.feed = feeds;
  for (const auto& f : fetches) req.proto.add_fetch(f);
  for (const auto& t : targets) req.proto.add_target(t);
  *req.proto.mutable_options() = options;
  RunStepResponseMsg resp;
  absl::Status s = master_->RunStep(call, req, &resp);
  if (!s.ok()) return s;
  if (outputs != nullptr) {
    outputs->clear();
    for (auto& [name, t] : resp.tensor) outputs->push_back(t);
  }
  if (metadata != nullptr) *metadata = resp.proto.metadata();
  return absl::OkStatus();
}

void MasterTest::WaitForBackgroundCalls() {
  ASSERT_TRUE(master_->env().background->WaitIdle(absl::Now() +
                                                   absl::Seconds(30)));
}

}  // namespace test
}  // namespace tributary
