#ifndef TRIBUTARY_KERNELS_TRAINING_TRAINING_OP_HELPERS_H_
#define TRIBUTARY_KERNELS_TRAINING_TRAINING_OP_HELPERS_H_

// Access to the variables an optimizer kernel updates, for both forms of
// each op: Apply* takes TF1 reference inputs (Ref(T)), ResourceApply* takes
// DT_RESOURCE handles to Vars. One kernel class serves both.
//
// Locking:
//  - reference inputs: with use_locking, every distinct ref mutex is held
//    for the whole update (acquired in address order, so two ops updating
//    overlapping variables cannot deadlock); without it, nothing is held
//    while elements are written (TensorFlow's Hogwild semantics: concurrent
//    updates may interleave, each reads the buffer pointer under the lock).
//  - resource inputs: the Var's mutex is always held exclusively. TensorFlow
//    holds it shared without use_locking, but a copy-on-write (replacing the
//    Var's tensor while a snapshot shares the buffer) under a shared lock
//    races on the Tensor object itself; exclusive costs little here and
//    keeps that memory-safe.

#include <initializer_list>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_base.h"
#include "common/resource/var.h"

namespace tributary {

class VariableInputs {
 public:
  VariableInputs(OpKernelContext* ctx, bool use_locking)
      : ctx_(ctx), use_locking_(use_locking) {}
  // Releases the locks (reverse order) and the Vars.
  ~VariableInputs();

  VariableInputs(const VariableInputs&) = delete;
  VariableInputs& operator=(const VariableInputs&) = delete;

  // Resolves inputs `input_ids` (each a ref or a resource input) and takes
  // the locks described above. A resource that cannot be found is Internal
  // "Invalid variable reference." (TensorFlow's code), with the reason.
  absl::Status Acquire(std::initializer_list<int> input_ids);

  // The tensor behind variable input `input` (one of the acquired ones),
  // sharing the variable's buffer so writes land in the variable. For a
  // resource it has been made private first (copy-on-write). Errors:
  // FailedPrecondition "Attempting to use uninitialized variables: <input>"
  // naming the variable's producer, InvalidArgument for a dtype other than
  // `dtype`.
  absl::Status GetTensor(int input, DataType dtype, Tensor* out);

  // For the Apply* (ref) form: output `output` becomes the updated
  // variable's reference. No-op for resource inputs.
  void MaybeForwardRefInputToRefOutput(int input, int output);

 private:
  struct Slot {
    int input;
    RefCountPtr<Var> var;  // Null for a ref input.
  };
  const Slot* FindSlot(int input) const;

  OpKernelContext* const ctx_;
  const bool use_locking_;
  std::vector<Slot> slots_;
  // Held exclusively, in acquisition order.
  std::vector<absl::Mutex*> held_;
  bool ref_locks_held_ = false;
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_TRAINING_OP_HELPERS_H_
