#ifndef TRIBUTARY_MASTER_DISTRIBUTED_STEP_H_
#define TRIBUTARY_MASTER_DISTRIBUTED_STEP_H_

// One step (or one call of a partial run) over the partitions of a
// RegisteredGraph:
//
//  * RunGraph on every partition at once, all with the same step_id and the
//    step's deadline. The client partition gets the feeds as `send`
//    (tensor keyed by its client-terminated rendezvous key) and the
//    fetches' keys as `recv_key`.
//  * The first failure cancels every other RunGraph of the step
//    (CallOptions::StartCancel) and sends CleanupGraph(step_id) to every
//    worker of the step, which aborts the step's rendezvous there so no
//    partition stays blocked in a _Recv. The master then waits (at most
//    MasterEnv::cancel_grace, never past the deadline) for the others to
//    report, and returns the root cause: the first error that is not
//    Cancelled or Aborted (those are what cancelling does to the other
//    partitions), else the first error.
//  * The deadline: the master stops waiting at it whatever the workers do,
//    cancels the step and answers DeadlineExceeded.
//  * When every RunGraph has completed, CleanupGraph(step_id) goes to
//    every worker of the step, not waited for (TensorFlow does the same):
//    a worker keeps a step's rendezvous until then, because a peer's
//    RecvTensor may still come for a tensor its partition already sent.
//    Partial runs do this after their last call (or a failed one).
//
// Cancel() may be called from any thread at any time (session close, client
// cancel); Run then returns that reason unless a worker error came first.
//
// Nothing waits on a thread: RunAsync ends the step from the RunGraph
// callbacks or the master's DeadlineTimer (MasterEnv::timer), so a step
// costs the master no thread hand-off; Run is RunAsync and a wait.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/distributed/tensor_messages.h"
#include "common/framework/tensor.h"
#include "master/master_env.h"
#include "master/registered_graph.h"
#include "protos/config.pb.h"

namespace tributary {

struct StepOptions {
  int64_t step_id = 0;
  absl::Time deadline = absl::InfiniteFuture();
  // What set the deadline, for the DeadlineExceeded message
  // ("5000 ms (RunOptions.timeout_in_ms)").
  std::string deadline_source;
  std::string session_handle;
  // RunOptions.trace_level > NO_TRACE: workers record step stats.
  bool trace = false;
  bool output_partition_graphs = false;
  bool is_partial = false;
  bool is_last_partial_run = false;
};

class DistributedStep {
 public:
  DistributedStep(const MasterEnv* env,
                  std::shared_ptr<const RegisteredGraph> graph,
                  StepOptions options);
  DistributedStep(const DistributedStep&) = delete;
  DistributedStep& operator=(const DistributedStep&) = delete;

  // Runs the step. `feeds` name feeds of the graph's signature (each at
  // most once); `fetches` are indices into the signature's fetches. On
  // success `outputs` holds one tensor per fetch, in order; `metadata` (may
  // be null) gets the partitions' step stats and graphs when asked for.
  // Call once.
  absl::Status Run(const NamedTensors& feeds, const std::vector<int>& fetches,
                   std::vector<Tensor>* outputs,
                   tensorflow::RunMetadata* metadata);

  // Run without waiting: `done` gets Run's status once, on the thread of
  // the last RunGraph completion or of the master's timer (deadline, or
  // the cancellation grace); `outputs` and `metadata` must stay valid until
  // then. Call once (Run or RunAsync).
  void RunAsync(const NamedTensors& feeds, const std::vector<int>& fetches,
                std::vector<Tensor>* outputs, tensorflow::RunMetadata* metadata,
                StatusCallback done);

  // Stops the step with `reason` (thread-safe, idempotent).
  void Cancel(const absl::Status& reason);

  int64_t step_id() const { return options_.step_id; }

 private:
  struct Shared;

  // The step's status once it ended: the root cause of a failure, else
  // the outputs and metadata filled in.
  static absl::Status Conclude(Shared& shared, const RegisteredGraph& graph,
                               const StepOptions& options,
                               const std::vector<int>& fetches,
                               bool at_deadline, std::vector<Tensor>* outputs,
                               tensorflow::RunMetadata* metadata);

  const MasterEnv* const env_;
  const std::shared_ptr<const RegisteredGraph> graph_;
  const StepOptions options_;
  // With the RunGraph callbacks.
  std::shared_ptr<Shared> shared_;
};

// A random positive step id.
int64_t NewStepId();

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_DISTRIBUTED_STEP_H_
