#ifndef TRIBUTARY_WORKER_WORKER_TEST_UTIL_H_
#define TRIBUTARY_WORKER_WORKER_TEST_UTIL_H_

// Worker tasks for tests, in this process: one WorkerServer per task
// (its own CPU devices, inter-op pool and Worker), the peers reaching each
// other through one cache. In process, the cache holds the Workers
// themselves; served over gRPC, every task's WorkerServer listens on
// 127.0.0.1 (an ephemeral port) and the cache holds gRPC clients of the
// bound addresses, so RecvTensor between tasks and a test's calls through
// client() go over the wire.
//
// Only the worker side: nothing here places, partitions or drives a step.
// Tests that need the master's part use tests/distributed's
// InProcessCluster, which runs the real master code over these tasks.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/distributed/worker_cache.h"
#include "common/distributed/worker_interface.h"
#include "protos/graph.pb.h"
#include "worker/worker.h"
#include "worker/worker_server.h"

namespace tributary {
namespace worker_test {

// Parses a text-format GraphDef (CHECK-fails on a syntax error).
tensorflow::GraphDef ParseGraph(const std::string& text);

// A scalar float Const node placed on `device`.
std::string ScalarConst(const std::string& name, const std::string& device,
                        float value);
// A float binary op node.
std::string BinaryOp(const std::string& name, const std::string& op,
                     const std::string& a, const std::string& b,
                     const std::string& device);

// CreateWorkerSession `handle` on `worker` (isolated state or the shared
// resources), as a master would, with a 10 s deadline.
absl::Status CreateSession(Worker* worker, const std::string& handle,
                           bool isolate);

class InProcessWorkers {
 public:
  // Tasks by full name ("/job:ps/replica:0/task:0"), each with `num_cpus`
  // CPU devices and an inter-op pool of `threads`. With `grpc`, each is
  // served over gRPC as described above. CHECK-fails when a task cannot
  // be made or served (a test bug or a broken host).
  InProcessWorkers(const std::vector<std::string>& tasks, int num_cpus = 1,
                   int threads = 2, bool grpc = false);
  // Aborts what still runs, then stops every task while its peers exist.
  ~InProcessWorkers();

  std::vector<std::string> tasks() const;
  WorkerServer& server(const std::string& task);
  Worker* worker(const std::string& task) { return server(task).worker(); }
  // How a caller reaches the task: the Worker itself, or its gRPC client.
  WorkerInterface* client(const std::string& task);
  // What the tasks reach each other (and a master reaches them) through.
  WorkerCacheInterface* cache() { return &cache_; }
  bool grpc() const { return grpc_; }

  // Replaces the task by a new one (new devices, new incarnations), as a
  // restarted process. In-process only.
  void RestartTask(const std::string& task);

 private:
  std::unique_ptr<WorkerServer> NewTask(const std::string& task);

  const ClusterSpec cluster_;
  const int num_cpus_;
  const int threads_;
  const bool grpc_;
  InProcessWorkerCache cache_;
  // Over gRPC: the clients in cache_ come from it.
  std::unique_ptr<WorkerCacheInterface> grpc_cache_;
  std::map<std::string, std::unique_ptr<WorkerServer>> servers_;
};

}  // namespace worker_test
}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_TEST_UTIL_H_
