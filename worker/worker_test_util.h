#ifndef TRIBUTARY_WORKER_WORKER_TEST_UTIL_H_
#define TRIBUTARY_WORKER_WORKER_TEST_UTIL_H_

// An in-process cluster for the worker tests: real Workers (one per task,
// each with its own CPU devices) in one InProcessWorkerCache, and the
// master's part of a step done the way the master does it
// (GraphExecutionState places the whole graph on every task's devices,
// BuildClientGraph with client-terminated feeds/fetches, Partition with
// SplitByTask), so RunGraph sees exactly what it gets in a real cluster.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/device/device_mgr.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/tensor.h"
#include "common/runtime/graph_execution/graph_execution_state.h"
#include "common/runtime/executor/inter_op_thread_pool.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/rpc_service.h"
#include "protos/graph.pb.h"
#include "worker/worker.h"
#include "worker/worker_env.h"

namespace tributary {
namespace worker_test {

// Parses a text-format GraphDef (CHECK-fails on a syntax error).
tensorflow::GraphDef ParseGraph(const std::string& text);

// One task: devices, env, worker (and, over gRPC, its server).
struct TestTask {
  std::string name;  // "/job:ps/replica:0/task:0"
  std::unique_ptr<DeviceMgr> device_mgr;
  std::unique_ptr<InterOpThreadPool> pool;
  WorkerEnv env;
  std::unique_ptr<Worker> worker;
  std::unique_ptr<RpcService> service;
  std::unique_ptr<GrpcServer> server;
  std::string address;

  std::string cpu(int i) const;
};

// The master's view of one step signature: the partition for each task and
// the client-terminated keys of the feeds and fetches.
struct MasterStep {
  std::map<std::string, tensorflow::GraphDef> partitions;  // by task
  std::vector<std::string> feed_keys;
  std::vector<std::string> fetch_keys;
  std::string client_task;
};

class TestCluster {
 public:
  // Tasks by name, each with `num_cpus` CPU devices; `threads` > 0 gives
  // each an inter-op pool of that size (0: kernels run inline). With
  // `grpc`, every worker is served on 127.0.0.1 (an ephemeral port) and
  // everything (the test's calls and the workers' RecvTensor to peers)
  // goes through a gRPC worker cache over those addresses.
  TestCluster(const std::vector<std::string>& tasks, int num_cpus = 1,
              int threads = 2, bool grpc = false);
  ~TestCluster();

  TestTask& task(const std::string& name);
  Worker* worker(const std::string& name) { return task(name).worker.get(); }
  // How the test (the "master") reaches a task: the Worker itself, or its
  // gRPC client.
  WorkerInterface* client(const std::string& name);
  // Replaces `name`'s worker and devices by new ones (new incarnations), as
  // a restarted process. In-process clusters only.
  void RestartTask(const std::string& name);

  // Places and partitions `graph` for `signature` like the master
  // (client device: CPU:0 of `client_task`).
  absl::StatusOr<MasterStep> Partition(const tensorflow::GraphDef& graph,
                                       const StepSignature& signature,
                                       const std::string& client_task);

  // RegisterGraph of every partition in `session` (""= legacy): handles
  // by task.
  absl::StatusOr<std::map<std::string, std::string>> Register(
      const MasterStep& step, const std::string& session);

  struct StepResult {
    absl::Status status;  // First non-derived error, else the first.
    std::map<std::string, absl::Status> per_task;
    std::vector<Tensor> fetches;
    std::map<std::string, tensorflow::RunGraphResponse> responses;
  };
  // RunGraph on every task at once (feeds/fetches to the client task), then
  // CleanupGraph everywhere (unless `cleanup` is false), as the master
  // does. `timeout` (> 0) is each
  // call's deadline.
  StepResult RunStep(const MasterStep& step,
                     const std::map<std::string, std::string>& handles,
                     const std::string& session, int64_t step_id,
                     const std::vector<Tensor>& feeds,
                     absl::Duration timeout = absl::ZeroDuration(),
                     const tensorflow::ExecutorOpts& exec_opts = {},
                     bool cleanup = true);

 private:
  void StartTask(const std::string& name);
  void ServeOverGrpc();

  int num_cpus_;
  int threads_;
  bool grpc_;
  InProcessWorkerCache cache_;
  std::unique_ptr<WorkerCacheInterface> grpc_cache_;
  std::map<std::string, std::shared_ptr<WorkerInterface>> grpc_clients_;
  std::map<std::string, std::unique_ptr<TestTask>> tasks_;
};

// A scalar float Const node placed on `device`.
std::string ScalarConst(const std::string& name, const std::string& device,
                        float value);
// A float binary op node.
std::string BinaryOp(const std::string& name, const std::string& op,
                     const std::string& a, const std::string& b,
                     const std::string& device);

}  // namespace worker_test
}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_TEST_UTIL_H_
