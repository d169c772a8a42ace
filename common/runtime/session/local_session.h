#ifndef TRIBUTARY_COMMON_RUNTIME_SESSION_LOCAL_SESSION_H_
#define TRIBUTARY_COMMON_RUNTIME_SESSION_LOCAL_SESSION_H_

// The in-process session (TensorFlow's DirectSession): client, master and
// worker in one object (core/common_runtime/direct_session.cc).
//
// New(config) creates the session's own devices from the ConfigProto
// (device_count {"CPU": N}, intra_op_parallelism_threads) and its inter-op
// thread pool(s) (inter_op_parallelism_threads, session_inter_op_thread_pool;
// a negative inter_op_parallelism_threads runs every step on the caller's
// thread). Create/Extend hand it the graph, which it imports and places on
// those devices (graph_execution_state.h).
//
// Run(feeds, fetches, targets): the first Run of a (feeds, fetches, targets)
// signature prunes the graph to what the step needs, rewrites feeds and
// fetches into _Arg/_Retval nodes on the client device (CPU:0) (or, with
// LocalSessionOptions::feed_fetch_through_rendezvous, into client-terminated
// _Recv/_Send nodes whose values the session sends and receives), splits the
// graph by device with _Send/_Recv pairs on cut edges and builds one
// executor per partition; the result is cached, so later Runs of the same
// signature (same names in the same order) only run. Each step gets a call
// frame (feeds in, fetches out), its own intra-process rendezvous and a
// cancellation manager that Close() and the step timeout can fire; the
// partitions run concurrently on the inter-op pool and the step ends when
// all of them have (executor_barrier.h).
//
// Variables live in the session's ResourceMgr and so persist across Runs
// until Close(). Runs may be concurrent.
//
// Timeouts: RunOptions.timeout_in_ms, else ConfigProto
// .operation_timeout_in_ms, bounds a step; past it the step is cancelled and
// Run returns DeadlineExceeded once every partition has unwound.
//
// Errors (TensorFlow's codes): a fetch/feed/target of an unknown node is
// NotFound; a Placeholder not fed is the Placeholder kernel's
// InvalidArgument; a failing kernel's error names its node; Run before a
// graph exists is InvalidArgument; after Close, Cancelled.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/kernel/cancellation.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/runtime/placement/device_set.h"
#include "common/resource/resource_mgr.h"
#include "common/runtime/session/executors_and_keys.h"
#include "common/runtime/graph_execution/graph_execution_state.h"
#include "common/runtime/executor/inter_op_thread_pool.h"
#include "common/runtime/session/session.h"
#include "common/device/device_mgr.h"
#include "protos/config.pb.h"

namespace tributary {

// Choices beyond what ConfigProto says.
struct LocalSessionOptions {
  // Feeds and fetches travel through the step's rendezvous under
  // client-terminated keys (_Recv/_Send nodes, as a worker's RunGraph
  // does) instead of a call frame (_Arg/_Retval, TensorFlow's
  // DirectSession default). Results are the same; the call frame is
  // cheaper.
  bool feed_fetch_through_rendezvous = false;
};

class LocalSession : public Session {
 public:
  // The device name prefix of a local session's devices, TensorFlow's.
  static constexpr const char* kDevicePrefix =
      "/job:localhost/replica:0/task:0";

  // Creates the devices and thread pools `config` asks for. Errors from the
  // device factory (InvalidArgument for a bad device_count, NotFound when
  // no CPU device results).
  static absl::StatusOr<std::unique_ptr<LocalSession>> New(
      const tensorflow::ConfigProto& config,
      const LocalSessionOptions& options = LocalSessionOptions());

  // Closes the session if needed.
  ~LocalSession() override;

  absl::Status Create(const tensorflow::GraphDef& graph) override;
  absl::Status Extend(const tensorflow::GraphDef& graph) override;
  using Session::Run;
  absl::Status Run(const tensorflow::RunOptions& run_options,
                   const NamedTensorList& inputs,
                   const std::vector<std::string>& output_tensor_names,
                   const std::vector<std::string>& target_node_names,
                   std::vector<Tensor>* outputs,
                   tensorflow::RunMetadata* run_metadata) override;
  absl::StatusOr<std::vector<tensorflow::DeviceAttributes>> ListDevices()
      override;
  absl::Status Close() override;

  const DeviceMgr& device_mgr() const { return *device_mgr_; }
  ResourceMgr* resource_mgr() { return &resource_mgr_; }
  const tensorflow::ConfigProto& config() const { return config_; }

  // How many step signatures have been compiled into executors: stays put
  // when a Run hits the cache.
  int64_t num_executor_builds() const {
    return num_executor_builds_.load(std::memory_order_relaxed);
  }

 private:
  LocalSession(const tensorflow::ConfigProto& config,
               const LocalSessionOptions& options,
               std::unique_ptr<DeviceMgr> device_mgr);

  absl::Status Init();
  absl::Status ExtendLocked(const tensorflow::GraphDef& graph)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph_mu_);
  absl::StatusOr<std::shared_ptr<ExecutorsAndKeys>> GetOrCreateExecutors(
      const std::shared_ptr<const GraphExecutionState>& state,
      const StepSignature& signature);
  // Runs one step of `executors` (see Run).
  absl::Status RunStep(const tensorflow::RunOptions& run_options,
                       const NamedTensorList& inputs,
                       ExecutorsAndKeys* executors,
                       std::vector<Tensor>* outputs,
                       tensorflow::RunMetadata* run_metadata);
  void EndRun();

  const tensorflow::ConfigProto config_;
  const LocalSessionOptions options_;
  std::unique_ptr<DeviceMgr> device_mgr_;
  DeviceSet device_set_;
  ResourceMgr resource_mgr_;
  // Index = RunOptions.inter_op_thread_pool. Null entry: run on the
  // caller's thread.
  std::vector<std::unique_ptr<InterOpThreadPool>> thread_pools_;
  // Parent of every step's cancellation manager; Close() fires it.
  CancellationManager cancellation_manager_;
  PartitionOptions::NewNameFn new_name_;
  std::atomic<int64_t> num_executor_builds_{0};

  // Serialises Create/Extend (TensorFlow: a graph is built by one thread).
  absl::Mutex graph_mu_;
  // Serialises executor builds, so concurrent first Runs of one signature
  // build it once.
  absl::Mutex build_mu_;

  absl::Mutex mu_;
  std::shared_ptr<const GraphExecutionState> execution_state_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<ExecutorsAndKeys>> executors_
      ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_runs_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SESSION_LOCAL_SESSION_H_
