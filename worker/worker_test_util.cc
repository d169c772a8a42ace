#include "worker/worker_test_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/cluster/cluster_spec.h"
#include "common/device/device_name_utils.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_worker_cache.h"
#include "google/protobuf/text_format.h"

namespace tributary {
namespace worker_test {
namespace {

// The tasks as {"job": {"index": "address"}} with every address `address`.
ClusterSpec SpecOf(const std::vector<std::string>& tasks,
                   const std::map<std::string, std::string>& addresses,
                   const std::string& address) {
  std::map<std::string, std::map<int, std::string>> jobs;
  for (const std::string& t : tasks) {
    DeviceNameUtils::ParsedName parsed;
    CHECK(DeviceNameUtils::ParseFullName(t, &parsed)) << t;
    auto it = addresses.find(t);
    jobs[parsed.job][parsed.task] =
        it == addresses.end() ? address : it->second;
  }
  std::string json = "{";
  for (const auto& [job, by_index] : jobs) {
    if (json.size() > 1) json += ", ";
    absl::StrAppend(&json, "\"", job, "\": {");
    bool first = true;
    for (const auto& [index, addr] : by_index) {
      absl::StrAppend(&json, first ? "" : ", ", "\"", index, "\": \"", addr,
                      "\"");
      first = false;
    }
    json += "}";
  }
  json += "}";
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(json);
  CHECK(spec.ok()) << spec.status() << " " << json;
  return *spec;
}

}  // namespace

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef gdef;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &gdef)) << text;
  return gdef;
}

std::string ScalarConst(const std::string& name, const std::string& device,
                        float value) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' device: '", device,
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } "
      "float_val: ",
      value, " } } } }\n");
}

std::string BinaryOp(const std::string& name, const std::string& op,
                     const std::string& a, const std::string& b,
                     const std::string& device) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b, "' device: '", device,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

absl::Status CreateSession(Worker* worker, const std::string& handle,
                           bool isolate) {
  tensorflow::CreateWorkerSessionRequest request;
  request.set_session_handle(handle);
  request.set_isolate_session_state(isolate);
  tensorflow::CreateWorkerSessionResponse response;
  return worker->CreateWorkerSession(request, &response, absl::Seconds(10));
}

// The servers' own spec names the tasks at an address nobody listens on
// (port 1): the addresses are known only once every server bound, so the
// tasks reach each other through cache_ instead (WorkerServerOptions::
// worker_cache), never through the spec.
InProcessWorkers::InProcessWorkers(const std::vector<std::string>& tasks,
                                   int num_cpus, int threads, bool grpc)
    : cluster_(SpecOf(tasks, {}, "127.0.0.1:1")),
      num_cpus_(num_cpus),
      threads_(threads),
      grpc_(grpc) {
  for (const std::string& t : tasks) servers_[t] = NewTask(t);
  if (!grpc_) {
    for (auto& [name, server] : servers_) {
      // The cache does not own workers: their servers do.
      cache_.AddWorker(name, std::shared_ptr<WorkerInterface>(
                                 server->worker(), [](WorkerInterface*) {}));
    }
    return;
  }
  // Servers first (ephemeral ports), then gRPC clients of the bound
  // addresses in the cache every worker reaches its peers with.
  std::map<std::string, std::string> bound;
  for (auto& [name, server] : servers_) {
    const absl::Status started = server->Start();
    CHECK(started.ok()) << started;
    bound[name] = server->bound_address();
  }
  grpc_cache_ = NewGrpcWorkerCache(SpecOf(tasks, bound, ""));
  for (auto& [name, server] : servers_) {
    absl::StatusOr<std::shared_ptr<WorkerInterface>> client =
        grpc_cache_->GetWorker(name);
    CHECK(client.ok()) << client.status();
    cache_.AddWorker(name, *client);
  }
}

InProcessWorkers::~InProcessWorkers() {
  // Every step ends first, while every peer still exists; then the servers
  // go (each waits for nothing any more).
  for (auto& [name, server] : servers_) {
    if (server->worker() != nullptr) {
      server->worker()->AbortAll(errors::Cancelled("end of test"));
    }
  }
  for (auto& [name, server] : servers_) {
    server->Stop(absl::Now() + absl::Seconds(10));
  }
  for (auto& [name, server] : servers_) cache_.RemoveWorker(name);
  servers_.clear();
  grpc_cache_.reset();
}

std::unique_ptr<WorkerServer> InProcessWorkers::NewTask(
    const std::string& task) {
  DeviceNameUtils::ParsedName parsed;
  CHECK(DeviceNameUtils::ParseFullName(task, &parsed)) << task;
  WorkerServerOptions options;
  options.job = parsed.job;
  options.task = parsed.task;
  options.listen_address = "127.0.0.1:0";
  options.cpu_devices = num_cpus_;
  options.inter_op_threads = threads_;
  options.worker_cache = &cache_;
  absl::StatusOr<std::unique_ptr<WorkerServer>> server =
      WorkerServer::Create(cluster_, options);
  CHECK(server.ok()) << server.status();
  return *std::move(server);
}

std::vector<std::string> InProcessWorkers::tasks() const {
  std::vector<std::string> out;
  for (const auto& [name, server] : servers_) out.push_back(name);
  return out;
}

WorkerServer& InProcessWorkers::server(const std::string& task) {
  auto it = servers_.find(task);
  CHECK(it != servers_.end()) << task;
  return *it->second;
}

WorkerInterface* InProcessWorkers::client(const std::string& task) {
  if (!grpc_) return worker(task);
  absl::StatusOr<std::shared_ptr<WorkerInterface>> client =
      cache_.GetWorker(task);
  CHECK(client.ok()) << client.status();
  // The cache keeps the client alive as long as this object.
  return client->get();
}

void InProcessWorkers::RestartTask(const std::string& task) {
  CHECK(!grpc_) << "RestartTask is for in-process workers";
  auto it = servers_.find(task);
  CHECK(it != servers_.end()) << task;
  cache_.RemoveWorker(task);
  it->second.reset();
  it->second = NewTask(task);
  cache_.AddWorker(task, std::shared_ptr<WorkerInterface>(
                             it->second->worker(), [](WorkerInterface*) {}));
}

}  // namespace worker_test
}  // namespace tributary
