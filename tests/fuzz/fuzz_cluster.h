#ifndef TRIBUTARY_TESTS_FUZZ_FUZZ_CLUSTER_H_
#define TRIBUTARY_TESTS_FUZZ_FUZZ_CLUSTER_H_

// What the service fuzzers drive: a master and two worker tasks
// (/job:worker/replica:0/task:0 and task:1), all in this process, the
// master reaching the workers and the workers each other through an
// in-process cache, each with the services its daemon serves
// (tensorflow.MasterService; tensorflow.WorkerService and
// tributary.WorkerSessionHolds of task 0). Built as the daemons build them,
// with the limits a deployed cluster should set (docs/limits.md) so a fuzzed
// graph meets them instead of exhausting the fuzzer: a 256 MiB memory budget
// per worker session, graphs of 1 MiB and 65536 nodes, 64 sessions, 8 steps per
// session, the checkpoint ops confined to a scratch folder (--allowed-path) so
// fuzzed graphs write nowhere else.
//
// Made on first use and never destroyed: a fuzzer process ends without
// teardown, and each input cleans up what it made (the fuzzers Reset the
// master and delete the worker sessions and graphs they created).

#include <memory>
#include <string>

#include "common/rpc/rpc_service.h"
#include "master/master.h"
#include "worker/worker.h"

namespace tributary {
namespace fuzz {

class FuzzCluster {
 public:
  static FuzzCluster& Get();

  Master* master() { return master_.get(); }
  // Task 0's Worker.
  Worker* worker();
  const RpcService& master_service() const { return *master_service_; }
  const RpcService& worker_service() const { return *worker_service_; }
  const RpcService& holds_service() const { return *holds_service_; }
  // The one folder the checkpoint ops may use.
  const std::string& scratch_dir() const { return scratch_dir_; }

 private:
  FuzzCluster();

  struct Parts;
  std::unique_ptr<Parts> parts_;
  std::string scratch_dir_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<RpcService> master_service_;
  std::unique_ptr<RpcService> worker_service_;
  std::unique_ptr<RpcService> holds_service_;
};

}  // namespace fuzz
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_FUZZ_FUZZ_CLUSTER_H_
