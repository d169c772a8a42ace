#ifndef TRIBUTARY_COMMON_KERNEL_OP_KERNEL_CONTEXT_H_
#define TRIBUTARY_COMMON_KERNEL_OP_KERNEL_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "common/kernel/allocator_attributes.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/cancellation.h"
#include "common/kernel/frame_and_iter.h"
#include "common/kernel/memory_types.h"
#include "common/kernel/tensor_value.h"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace tributary {

class DeviceBase;
class OpKernel;
// Interfaces owned by later issues (runtime, resources, step stats). The
// context only carries pointers to them so kernels written against the final
// API compile today.
class RendezvousInterface;
class ResourceMgr;
class MemoryBudget;
class FileAccessPolicy;
class StepStatsCollectorInterface;

// The per-invocation world of a kernel: its inputs, where its outputs go,
// the device, the step's rendezvous and cancellation manager. The executor
// fills a Params, builds one OpKernelContext per kernel run, calls
// Compute/ComputeAsync, then reads status() and release_output()s.
//
// Outputs: each output slot is set exactly by allocate_output(),
// set_output(), set_output_ref() or a successful forward; slots never set are
// "missing" (the executor treats them as an error unless the kernel failed).
// Until released, non-ref output tensors are owned by the context.
//
// Thread-safety: one kernel invocation uses a context at a time; an async
// kernel may hand it to another thread, but not use it concurrently.
class OpKernelContext {
 public:
  // Runs `closure` on the step's thread pool (async kernels offload work).
  using Runner = std::function<void(std::function<void()>)>;

  // Everything the executor provides. Pointers are not owned and must
  // outlive the context. Only `op_kernel` and `inputs` are required; the
  // rest default to "not available" (null) so tests can run a kernel alone.
  struct Params {
    // The step this invocation belongs to (same on every worker for a step).
    int64_t step_id = 0;

    // The kernel being run; gives output dtypes, memory types, names.
    OpKernel* op_kernel = nullptr;

    // The device the kernel runs on; null means "host memory, no device"
    // (allocations then come from cpu_allocator()).
    DeviceBase* device = nullptr;

    // One entry per data input, in signature order. Ref inputs carry their
    // mutex (TensorValue::mutex_if_ref).
    absl::Span<const TensorValue> inputs;
    // Set by the executor when any input is a dead tensor (only control-flow
    // kernels, which opt in, ever see that).
    bool is_input_dead = false;
    // How each input was allocated; empty means all default. Used to decide
    // whether an input buffer may be forwarded to an output.
    absl::Span<const AllocatorAttributes> input_alloc_attrs;
    // One entry per output, or null for default attributes everywhere.
    const AllocatorAttributes* output_attr_array = nullptr;

    // The step's rendezvous for _Send/_Recv.
    RendezvousInterface* rendezvous = nullptr;
    // Cancellation of the step: blocking kernels register a callback.
    CancellationManager* cancellation_manager = nullptr;
    // Per-device resource container (variables, queues).
    ResourceMgr* resource_manager = nullptr;

    // Limits of the session the step belongs to (docs/limits.md); null:
    // none. Allocations through get_allocator() count against
    // `memory_budget` (a request beyond it fails with ResourceExhausted
    // naming the budget); ops that touch the filesystem ask `file_access`.
    MemoryBudget* memory_budget = nullptr;
    const FileAccessPolicy* file_access = nullptr;

    // Control-flow position, part of rendezvous keys.
    FrameAndIter frame_iter;

    // Optional hooks.
    StepStatsCollectorInterface* stats_collector = nullptr;
    Runner* runner = nullptr;
  };

  // Output count taken from params->op_kernel, which must be set.
  explicit OpKernelContext(Params* params);
  // For callers whose op_kernel is null or whose output count differs.
  OpKernelContext(Params* params, int num_outputs);
  ~OpKernelContext();

  OpKernelContext(const OpKernelContext&) = delete;
  OpKernelContext& operator=(const OpKernelContext&) = delete;

  // ---- Environment ----
  int64_t step_id() const { return params_->step_id; }
  const OpKernel& op_kernel() const { return *params_->op_kernel; }
  DeviceBase* device() const { return params_->device; }
  // The device's Eigen CPU device; CHECK-fails when the device has none (a
  // device that runs CPU kernels always sets it).
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const;
  // TensorFlow's spelling, so ported kernels can write
  // `out.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = ...`.
  // Only Eigen::ThreadPoolDevice is provided until the GPU issue.
  template <typename EigenDeviceType>
  const EigenDeviceType& eigen_device() const;
  RendezvousInterface* rendezvous() const { return params_->rendezvous; }
  CancellationManager* cancellation_manager() const {
    return params_->cancellation_manager;
  }
  ResourceMgr* resource_manager() const { return params_->resource_manager; }
  // Null: the step's session has no file access restriction.
  const FileAccessPolicy* file_access() const { return params_->file_access; }
  // OK when `path` may be used by this kernel (file_access() allows it);
  // PermissionDenied naming the node and the path otherwise.
  absl::Status CheckFileAccess(absl::string_view path) const;
  // The same for a checkpoint prefix and its files.
  absl::Status CheckCheckpointAccess(absl::string_view prefix) const;
  const FrameAndIter& frame_iter() const { return params_->frame_iter; }
  StepStatsCollectorInterface* stats_collector() const {
    return params_->stats_collector;
  }
  Runner* runner() const { return params_->runner; }
  bool is_input_dead() const { return params_->is_input_dead; }

  // Allocator for `attr` on this device (cpu_allocator() without a device).
  Allocator* get_allocator(AllocatorAttributes attr);

  // ---- Inputs ----
  int num_inputs() const { return static_cast<int>(params_->inputs.size()); }
  // The dtype as seen by the signature (float_ref for a ref input).
  DataType input_dtype(int index) const;
  bool input_is_ref(int index) const;
  // The tensor of non-ref input `index`. CHECK-fails for an out-of-range
  // index or a ref input (use mutable_input): both are kernel bugs.
  const Tensor& input(int index) const;
  // The input argument named `name` (single-valued args only).
  absl::Status input(absl::string_view name, const Tensor** tensor) const;
  // For ref inputs: a copy sharing the referenced buffer. Takes the ref's
  // mutex unless the caller already holds it (`lock_held`).
  Tensor mutable_input(int index, bool lock_held);
  absl::Mutex* input_ref_mutex(int index) const;
  // For ref inputs: makes the referenced tensor itself (the variable) be
  // `tensor`, e.g. Assign giving a variable a new buffer or shape. Takes the
  // ref's mutex unless the caller already holds it (`lock_held`).
  void replace_ref_input(int index, const Tensor& tensor, bool lock_held);
  // Makes ref output `output_index` the same reference (tensor and mutex) as
  // ref input `input_index`, as Assign and the Apply* ops return the variable
  // they updated.
  void forward_ref_input_to_ref_output(int input_index, int output_index);
  AllocatorAttributes input_alloc_attr(int index) const;
  MemoryType input_memory_type(int index) const;
  // True when all inputs have the same shape; otherwise records an
  // InvalidArgument naming `op` and both shapes, and returns false.
  bool ValidateInputsAreSameShape(OpKernel* op);

  // ---- Outputs ----
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // The dtype output `index` must have (from the kernel's signature).
  DataType expected_output_dtype(int index) const;
  AllocatorAttributes output_alloc_attr(int index) const;
  MemoryType output_memory_type(int index) const;

  // Allocates output `index` with `shape` and the signature's dtype; *output
  // points at it (owned by the context). Replaces an earlier value of the
  // slot. ResourceExhausted names node, shape, dtype and allocator on OOM.
  absl::Status allocate_output(int index, const TensorShape& shape,
                               Tensor** output);
  absl::Status allocate_output(int index, const TensorShape& shape,
                               Tensor** output, AllocatorAttributes attr);
  absl::Status allocate_output(absl::string_view name,
                               const TensorShape& shape, Tensor** output);

  // Makes output `index` share `tensor`'s buffer (no copy). A dtype that
  // differs from the signature fails the kernel (SetStatus) and leaves the
  // slot unset: the consumer would otherwise misread the bytes.
  void set_output(int index, const Tensor& tensor);
  void set_output(int index, Tensor&& tensor);
  absl::Status set_output(absl::string_view name, const Tensor& tensor);
  // Ref output: downstream kernels see `tensor_for_ref` guarded by `mu`.
  void set_output_ref(int index, absl::Mutex* mu, Tensor* tensor_for_ref);

  // Reuses the buffer of one of `candidate_input_indices` for output
  // `output_index` when that is safe (see forward_input), otherwise
  // allocates. *forwarded_input (optional) gets the input used, or -1.
  absl::Status forward_input_or_allocate_output(
      absl::Span<const int> candidate_input_indices, int output_index,
      const TensorShape& output_shape, Tensor** output,
      int* forwarded_input = nullptr);
  // Tries to make output `output_index` (reshaped to `output_shape`) share
  // input `input_index`'s buffer. True on success, with *output set.
  bool forward_input_to_output_with_shape(int input_index, int output_index,
                                          const TensorShape& output_shape,
                                          Tensor** output);
  // The primitive: a tensor sharing input `input_index`'s buffer with
  // `output_shape`, or null when forwarding is not safe. Safe means: the
  // input is present, not a ref, has `output_dtype` and the same element
  // count and memory type, this kernel invocation holds the only reference
  // to its buffer (RefCountIsOne: nobody else can observe the in-place
  // write), and the output's allocator attributes ask for nothing the
  // input's memory lacks.
  std::unique_ptr<Tensor> forward_input(int input_index, int output_index,
                                        DataType output_dtype,
                                        const TensorShape& output_shape,
                                        MemoryType output_memory_type,
                                        AllocatorAttributes output_attr);

  // The tensor in slot `index`, or null when unset.
  Tensor* mutable_output(int index);
  bool has_output(int index) const;
  // Hands slot `index` to the caller (the executor) and clears it. For a
  // non-ref value the caller takes ownership of `tensor` (delete it); for a
  // ref value it stays owned by whoever owns the referenced tensor.
  TensorValue release_output(int index);

  // Scratch memory for the duration of Compute.
  absl::Status allocate_temp(DataType type, const TensorShape& shape,
                             Tensor* out_temp,
                             AllocatorAttributes attr = AllocatorAttributes());

  // InvalidArgument unless inputs/outputs match exactly.
  absl::Status MatchSignature(DataTypeSlice expected_inputs,
                              DataTypeSlice expected_outputs);

  // ---- Outcome ----
  // Keeps the first error: later failures are usually consequences of it.
  void SetStatus(const absl::Status& status);
  const absl::Status& status() const { return status_; }

  // Used by OP_REQUIRES*; `file`/`line` locate the failed check.
  void CtxFailure(const absl::Status& s);
  void CtxFailure(const char* file, int line, const absl::Status& s);
  void CtxFailureWithWarning(const char* file, int line, const absl::Status& s);

 private:
  // Checks index/dtype for writing output `index`; SetStatus and false on a
  // kernel bug.
  bool CheckOutputSlot(int index, DataType dtype, const char* what);
  // Drops whatever slot `index` holds (deleting an owned tensor).
  void ClearOutput(int index);
  // Allocates `shape` of `type` from get_allocator(attr) into *tensor.
  absl::Status AllocateTensor(DataType type, const TensorShape& shape,
                              Tensor* tensor, AllocatorAttributes attr);
  // "node 'n' (op 'Add')" or "kernel" when there is no op_kernel.
  std::string KernelForError() const;

  Params* const params_;
  absl::Status status_;
  // Owned Tensor* for non-ref values (see release_output).
  absl::InlinedVector<TensorValue, 4> outputs_;
};

template <>
const Eigen::ThreadPoolDevice& OpKernelContext::eigen_device() const;

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_KERNEL_OP_KERNEL_CONTEXT_H_
