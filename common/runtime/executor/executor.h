#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_H_

// The executor: runs one partition graph (all nodes on one device) for one
// step at a time, as TensorFlow's local executor does
// (core/common_runtime/executor.cc).
//
// NewLocalExecutor() prepares a graph once: a topological pass gives every
// node a precomputed item (kernel, where its inputs live, its out-edges, its
// initial pending count, whether it is expensive) in flat arrays, and finds
// the root nodes. RunAsync() then runs a step:
//
//  * Ready nodes go on a queue. Inexpensive kernels run inline on the thread
//    that made them ready (no thread hop for Identity, Add of scalars, ...);
//    expensive ones are handed to Args::runner (the inter-op thread pool).
//    "Expensive" starts from OpKernel::IsExpensive() and then follows the
//    kernel's measured cost, so a kernel that turns out cheap runs inline.
//  * RunAsync itself runs the inexpensive root nodes (_Arg, Const, a _Recv
//    of a fed value) and the inexpensive nodes they make ready on the
//    caller's thread, and hands every expensive node to the runner: the
//    caller gets its thread back after the cheap work, and the partitions
//    of a step start side by side. A caller that would only wait for the
//    step can lend its thread by keeping the first closure its runner gets.
//  * Pending input counts are atomics; async kernels (_Recv) complete through
//    callbacks and never hold a thread while they wait. A callback that
//    fires inside ComputeAsync (the value was already there) continues on
//    the same thread; one that fires later hands what it made ready to the
//    runner, so a rendezvous or RPC thread returns at once.
//  * Fetching a reference that was never initialised (a VariableV2 never
//    assigned, through a _Retval or a _Send) fails the step with
//    FailedPrecondition "Attempting to use uninitialized value <name>", as
//    does any other consumer of it.
//  * Dead tensors (the untaken side of a Switch) propagate; TF1 loops run in
//    frames and iterations (Enter/Exit/NextIteration/Merge/Switch/LoopCond).
//  * The first failing node ends the step: its status, with the node and op
//    named, is the step's status; the step's cancellation manager and
//    rendezvous are aborted so every outstanding op (a _Recv waiting for a
//    peer, a kernel blocked on a queue) wakes up; nodes not yet started are
//    skipped. The done callback runs exactly once, after every node that
//    started has finished, and no thread is left waiting on the step.
//
// Thread-safety: an Executor is immutable after creation; RunAsync may be
// called concurrently for different steps.

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "protos/node_def.pb.h"

namespace tributary {

class CallFrameInterface;
class CancellationManager;
class Device;
class FileAccessPolicy;
class Graph;
class MemoryBudget;
class OpKernel;
class RendezvousInterface;
class ResourceMgr;
class ScopedStepContainer;
class StepStatsCollectorInterface;

class Executor {
 public:
  virtual ~Executor() = default;

  // Runs a closure on the inter-op thread pool (must not run it inline if
  // the caller wants parallelism; running it inline gives a single-threaded
  // step).
  using Runner = std::function<void(std::function<void()>)>;

  // Everything one step needs. Pointers are not owned and must stay valid
  // until the done callback has run.
  struct Args {
    // Same on every partition and worker taking part in the step.
    int64_t step_id = 0;
    // Where this partition's _Send/_Recv meet the other partitions'. The
    // executor aborts it when a node fails.
    RendezvousInterface* rendezvous = nullptr;
    // Feeds (_Arg nodes) and fetches (_Retval nodes) of a call-frame style
    // partition; may be null when the graph has neither.
    CallFrameInterface* call_frame = nullptr;
    // The step's cancellation: cancelling it aborts the step with
    // Cancelled; a failing node cancels it so blocking kernels wake up.
    CancellationManager* cancellation_manager = nullptr;
    // Per-device resources (variables) that outlive the step.
    ResourceMgr* resource_mgr = nullptr;
    // Per-step resources; carried for kernels that will need them (not yet
    // reachable from OpKernelContext).
    ScopedStepContainer* step_container = nullptr;
    // Per-node start/end times and output sizes when non-null.
    StepStatsCollectorInterface* stats_collector = nullptr;
    // The inter-op thread pool. Empty means "run everything on the calling
    // thread" (then RunAsync returns only when the step is done, unless an
    // async kernel is still waiting).
    Runner runner;
    // Call Device::Sync() before reporting success (devices with queues).
    bool sync_on_finish = false;
    // Never hand kernels to `runner`, even expensive ones (a deterministic
    // single-threaded step; also what an empty runner implies).
    bool run_all_kernels_inline = false;
  };

  // Called exactly once with the step's status: OK, or the first error
  // (naming the failing node and op).
  using DoneCallback = std::function<void(const absl::Status&)>;

  // Starts a step and returns after running its inexpensive start-up nodes
  // (see above); `done` runs when it has finished (possibly before RunAsync
  // returns, on this thread).
  virtual void RunAsync(const Args& args, DoneCallback done) = 0;

  // Runs a step and waits for it.
  absl::Status Run(const Args& args);

  // Runs a step and waits at most `timeout`. On expiry the step is cancelled
  // (through a child of args.cancellation_manager, which is left alone), the
  // call waits for the step to unwind, and returns DeadlineExceeded. A
  // non-positive timeout means no limit.
  absl::Status Run(const Args& args, absl::Duration timeout);
};

// How NewLocalExecutor builds and frees kernels.
struct LocalExecutorParams {
  // The device every node of the graph runs on. Required; must outlive the
  // executor.
  Device* device = nullptr;

  // Handed to kernel constructors (and by the default create_kernel);
  // may be null.
  ResourceMgr* resource_mgr = nullptr;

  // Builds the kernel for `node_def` (which lists its inputs, as in a
  // GraphDef). Empty: CreateOpKernel on `device` with the global registries.
  // A caller that shares kernels between executors (TensorFlow's OpSegment)
  // provides both functions.
  std::function<absl::Status(const tensorflow::NodeDef& node_def,
                             int graph_def_version, OpKernel** kernel)>
      create_kernel;
  // Frees a kernel made by create_kernel. Empty: delete.
  std::function<void(OpKernel*)> delete_kernel;

  // The limits of the session the graph belongs to, handed to every kernel
  // run (OpKernelContext::Params); null: none. Not owned; must outlive the
  // executor.
  MemoryBudget* memory_budget = nullptr;
  const FileAccessPolicy* file_access = nullptr;
};

// Prepares `graph` (every op node placed on params.device) for execution.
// The graph is only read here; the executor keeps no pointer to it.
// Errors: a node whose kernel cannot be built (the kernel registry's error
// with the node named), a malformed TF1 loop (Exit without Enter, a frame
// that both enters and exits inconsistently), a node whose data input has no
// edge.
absl::StatusOr<std::unique_ptr<Executor>> NewLocalExecutor(
    const LocalExecutorParams& params, const Graph& graph);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_H_
