#include "worker/worker_test_util.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "common/cluster/cluster_spec.h"
#include "common/device/device_factory.h"
#include "common/device/device_name_utils.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/grpc_worker_cache.h"
#include "common/rpc/grpc_worker_service.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/runtime/placement/device_set.h"
#include "common/rendezvous/rendezvous_key.h"
#include "google/protobuf/text_format.h"

namespace tributary {
namespace worker_test {

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef gdef;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &gdef)) << text;
  return gdef;
}

std::string TestTask::cpu(int i) const {
  return absl::StrCat(name, "/device:CPU:", i);
}

TestCluster::TestCluster(const std::vector<std::string>& tasks, int num_cpus,
                         int threads, bool grpc)
    : num_cpus_(num_cpus), threads_(threads), grpc_(grpc) {
  for (const std::string& t : tasks) StartTask(t);
  if (grpc_) ServeOverGrpc();
}

TestCluster::~TestCluster() {
  // Workers first (they wait for their steps), while every peer still
  // exists.
  for (auto& [name, t] : tasks_) t->worker->AbortAll(errors::Cancelled("end"));
  for (auto& [name, t] : tasks_) {
    if (t->server != nullptr) {
      t->server->Shutdown(absl::Now() + absl::Seconds(10));
    }
  }
  for (auto& [name, t] : tasks_) {
    t->server.reset();
    t->service.reset();
  }
  for (auto& [name, t] : tasks_) t->worker.reset();
  grpc_clients_.clear();
  grpc_cache_.reset();
}

void TestCluster::ServeOverGrpc() {
  // Servers first (ephemeral ports), then the cluster spec of the bound
  // addresses, then the cache every worker reaches its peers with.
  std::map<std::string, std::map<int, std::string>> jobs;
  for (auto& [name, t] : tasks_) {
    t->service = NewGrpcWorkerService(t->worker.get());
    auto server = StartGrpcServer("127.0.0.1:0", {t->service.get()});
    CHECK(server.ok()) << server.status();
    t->server = std::move(server->server);
    t->address = server->address;
    DeviceNameUtils::ParsedName parsed;
    CHECK(DeviceNameUtils::ParseFullName(name, &parsed));
    jobs[parsed.job][parsed.task] = t->address;
  }
  std::string json = "{";
  for (auto& [job, tasks] : jobs) {
    if (json.size() > 1) json += ", ";
    absl::StrAppend(&json, "\"", job, "\": {");
    bool first = true;
    for (auto& [index, address] : tasks) {
      absl::StrAppend(&json, first ? "" : ", ", "\"", index, "\": \"", address,
                      "\"");
      first = false;
    }
    json += "}";
  }
  json += "}";
  auto spec = ClusterSpec::FromJson(json);
  CHECK(spec.ok()) << spec.status() << " " << json;
  grpc_cache_ = NewGrpcWorkerCache(*spec);
  for (auto& [name, t] : tasks_) {
    t->env.worker_cache = grpc_cache_.get();
    auto client = grpc_cache_->GetWorker(name);
    CHECK(client.ok()) << client.status();
    grpc_clients_[name] = *client;
  }
}

WorkerInterface* TestCluster::client(const std::string& name) {
  if (!grpc_) return worker(name);
  auto it = grpc_clients_.find(name);
  CHECK(it != grpc_clients_.end()) << name;
  return it->second.get();
}

void TestCluster::StartTask(const std::string& name) {
  auto t = std::make_unique<TestTask>();
  t->name = name;
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = num_cpus_;
  std::vector<std::unique_ptr<Device>> devices;
  CHECK(DeviceFactory::AddDevices(config, name, &devices).ok());
  auto mgr = DeviceMgr::Create(std::move(devices));
  CHECK(mgr.ok());
  t->device_mgr = *std::move(mgr);
  if (threads_ > 0) t->pool = std::make_unique<InterOpThreadPool>(threads_);
  t->env.task_name = name;
  t->env.device_mgr = t->device_mgr.get();
  t->env.worker_cache = &cache_;
  t->env.compute_pool = t->pool.get();
  t->worker = std::make_unique<Worker>(&t->env);
  // The cache does not own workers: the cluster does.
  cache_.AddWorker(name, std::shared_ptr<WorkerInterface>(
                             t->worker.get(), [](WorkerInterface*) {}));
  tasks_[name] = std::move(t);
}

void TestCluster::RestartTask(const std::string& name) {
  CHECK(!grpc_) << "RestartTask is for in-process clusters";
  auto it = tasks_.find(name);
  CHECK(it != tasks_.end());
  cache_.RemoveWorker(name);
  it->second->worker.reset();
  tasks_.erase(it);
  StartTask(name);
}

TestTask& TestCluster::task(const std::string& name) {
  auto it = tasks_.find(name);
  CHECK(it != tasks_.end()) << name;
  return *it->second;
}

absl::StatusOr<MasterStep> TestCluster::Partition(
    const tensorflow::GraphDef& graph, const StepSignature& signature,
    const std::string& client_task) {
  DeviceSet devices;
  for (auto& [name, t] : tasks_) {
    for (const auto& attrs : t->device_mgr->ListDeviceAttributes()) {
      TRIB_RETURN_IF_ERROR(devices.AddDevice(attrs));
    }
  }
  const std::string client = task(client_task).cpu(0);
  TRIB_RETURN_IF_ERROR(devices.set_client_device(client));
  GraphExecutionStateOptions options;
  options.devices = &devices;
  options.placer_options.default_device = client;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<GraphExecutionState> state,
                        GraphExecutionState::Create(graph, options));
  TRIB_ASSIGN_OR_RETURN(ClientGraph client_graph,
                        state->BuildClientGraph(signature,
                                                /*use_call_frame=*/false));
  PartitionOptions popts;
  popts.node_to_loc = SplitByTask();
  popts.new_name = MakeNodeNameGenerator("/_");
  popts.get_incarnation = [&devices](const std::string& name) -> uint64_t {
    const PlacementDevice* d = devices.FindDeviceByName(name);
    return d == nullptr ? PartitionOptions::kIllegalIncarnation
                        : d->incarnation();
  };
  MasterStep step;
  step.client_task = client_task;
  TRIB_RETURN_IF_ERROR(
      tributary::Partition(popts, client_graph.graph.get(), &step.partitions));
  const uint64_t inc = devices.client_device()->incarnation();
  for (const std::string& f : signature.feeds) {
    step.feed_keys.push_back(
        CreateRendezvousKey(client, inc, client, f, FrameAndIter(0, 0)));
  }
  for (const std::string& f : signature.fetches) {
    step.fetch_keys.push_back(
        CreateRendezvousKey(client, inc, client, f, FrameAndIter(0, 0)));
  }
  return step;
}

absl::StatusOr<std::map<std::string, std::string>> TestCluster::Register(
    const MasterStep& step, const std::string& session) {
  std::map<std::string, std::string> handles;
  for (const auto& [t, gdef] : step.partitions) {
    tensorflow::RegisterGraphRequest req;
    req.set_session_handle(session);
    req.set_create_worker_session_called(!session.empty());
    *req.mutable_graph_def() = gdef;
    tensorflow::RegisterGraphResponse resp;
    TRIB_RETURN_IF_ERROR(
        client(t)->RegisterGraph(req, &resp, absl::Seconds(30)));
    handles[t] = resp.graph_handle();
  }
  return handles;
}

TestCluster::StepResult TestCluster::RunStep(
    const MasterStep& step, const std::map<std::string, std::string>& handles,
    const std::string& session, int64_t step_id,
    const std::vector<Tensor>& feeds, absl::Duration timeout,
    const tensorflow::ExecutorOpts& exec_opts, bool cleanup) {
  struct Call {
    std::string task;
    RunGraphRequestMsg request;
    RunGraphResponseMsg response;
    absl::Status status;
  };
  std::vector<std::unique_ptr<Call>> calls;
  for (const auto& [t, handle] : handles) {
    auto call = std::make_unique<Call>();
    call->task = t;
    auto& req = call->request.proto;
    req.set_session_handle(session);
    req.set_create_worker_session_called(!session.empty());
    req.set_graph_handle(handle);
    req.set_step_id(step_id);
    *req.mutable_exec_opts() = exec_opts;
    if (t == step.client_task) {
      for (size_t i = 0; i < feeds.size(); ++i) {
        call->request.send.emplace_back(step.feed_keys[i], feeds[i]);
      }
      for (const std::string& k : step.fetch_keys) req.add_recv_key(k);
    }
    calls.push_back(std::move(call));
  }
  // Concurrently, like the master: each partition may wait for another.
  std::vector<std::thread> threads;
  for (auto& call : calls) {
    threads.emplace_back([this, &call, timeout] {
      call->status =
          client(call->task)->RunGraph(call->request, &call->response, timeout);
    });
  }
  for (auto& th : threads) th.join();
  StepResult result;
  absl::Status first_error, root_cause;
  for (auto& call : calls) {
    result.per_task[call->task] = call->status;
    result.responses[call->task] = call->response.proto;
    const absl::Status& s = call->status;
    if (!s.ok() && first_error.ok()) first_error = s;
    // The master's rule: the first error that is not an echo of another.
    if (!s.ok() && root_cause.ok() && !absl::IsCancelled(s) &&
        !absl::IsAborted(s)) {
      root_cause = s;
    }
    if (call->task == step.client_task && s.ok()) {
      for (auto& [key, value] : call->response.recv) {
        result.fetches.push_back(value);
      }
    }
  }
  result.status = root_cause.ok() ? first_error : root_cause;
  if (!cleanup) return result;
  for (auto& [t, handle] : handles) {
    tensorflow::CleanupGraphRequest req;
    req.set_step_id(step_id);
    tensorflow::CleanupGraphResponse resp;
    CHECK(client(t)->CleanupGraph(req, &resp, absl::Seconds(30)).ok());
  }
  return result;
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

}  // namespace worker_test
}  // namespace tributary
