#ifndef TRIBUTARY_COMMON_RUNTIME_SESSION_EXECUTORS_AND_KEYS_H_
#define TRIBUTARY_COMMON_RUNTIME_SESSION_EXECUTORS_AND_KEYS_H_

// What a session caches per step signature (TensorFlow's
// ExecutorsAndKeys): one executor per device partition of the signature's
// graph, and the dtypes of the call frame its feeds and fetches go through.
// Built once by BuildExecutorsAndKeys, then shared read-only by every Run
// with that signature (executors allow concurrent steps).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/types.h"
#include "common/runtime/executor/executor.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/rendezvous/rendezvous_key.h"
#include "common/runtime/graph_execution/graph_execution_state.h"
#include "protos/graph.pb.h"

namespace tributary {

class Device;
class DeviceMgr;
class ResourceMgr;

struct PartitionExecutor {
  Device* device = nullptr;  // Owned by the session's DeviceMgr.
  std::unique_ptr<Executor> executor;
  // The partition as the executor got it, for
  // RunOptions.output_partition_graphs.
  tensorflow::GraphDef graph_def;
};

struct ExecutorsAndKeys {
  std::vector<PartitionExecutor> items;
  // How feeds and fetches travel (BuildExecutorsOptions::use_call_frame).
  bool use_call_frame = true;
  // Call frame: argument i is feed i, return value j is fetch j (their
  // dtypes, which also check feeds in the rendezvous convention).
  DataTypeVector feed_types;
  DataTypeVector fetch_types;
  // Rendezvous convention: where feed i is sent and fetch j received,
  // "<client>;<incarnation>;<client>;<name as given>;0:0".
  std::vector<RendezvousParsedKey> feed_keys;
  std::vector<RendezvousParsedKey> fetch_keys;
  // The fetches as the client named them, for messages.
  std::vector<std::string> fetch_names;
  // Steps run with these executors so far.
  std::atomic<int64_t> step_count{0};
};

struct BuildExecutorsOptions {
  const GraphExecutionState* state = nullptr;
  const DeviceMgr* device_mgr = nullptr;
  const DeviceSet* device_set = nullptr;
  // Handed to every kernel (variables live here across steps).
  ResourceMgr* resource_mgr = nullptr;
  // The session's node name generator, so partition nodes never clash.
  PartitionOptions::NewNameFn new_name;
  // Feeds and fetches through a call frame (_Arg/_Retval, TensorFlow's
  // DirectSession default) or through the step's rendezvous under
  // client-terminated keys (_Recv/_Send, what a worker's RunGraph uses).
  bool use_call_frame = true;
};

// Prunes and rewrites the graph for `signature`, partitions it by device
// (cutting cross-device edges into _Send/_Recv pairs) and builds one
// executor per partition. Errors name the node at fault: rewrite errors
// (NotFound for an unknown fetch), placement errors, kernel construction
// errors.
absl::StatusOr<std::unique_ptr<ExecutorsAndKeys>> BuildExecutorsAndKeys(
    const BuildExecutorsOptions& options, const StepSignature& signature);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SESSION_EXECUTORS_AND_KEYS_H_
