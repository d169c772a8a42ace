#ifndef TRIBUTARY_COMMON_RESOURCE_VAR_H_
#define TRIBUTARY_COMMON_RESOURCE_VAR_H_

// Var: the resource behind a resource variable (VarHandleOp and the
// *VariableOp kernels). A tensor guarded by a mutex, plus whether it has been
// assigned.
//
// Copy-on-write discipline (TensorFlow's): readers take the mutex shared,
// copy the Tensor object (sharing the buffer) and release it, so a read is a
// snapshot. Writers take it exclusively and, when the buffer is shared with
// such a snapshot (!RefCountIsOne), first give the variable a private copy
// (see kernels/state/variable_update.h) so outstanding reads never change.

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/resource/resource_base.h"

namespace tributary {

class Var : public ResourceBase {
 public:
  explicit Var(DataType dtype) : tensor_(dtype) {}

  absl::Mutex* mu() const { return &mu_; }
  // Guarded by mu(): read with it held (shared is enough), write exclusive.
  Tensor* tensor() { return &tensor_; }
  const Tensor* tensor() const { return &tensor_; }

  // Whether an assignment has happened (a Var may be created empty, e.g. by
  // a failed or not yet run initialiser). Guarded by mu().
  bool is_initialized = false;

  std::string DebugString() const override {
    absl::ReaderMutexLock l(&mu_);
    return absl::StrCat(DataTypeString(tensor_.dtype()), "/",
                        tensor_.shape().DebugString());
  }
  int64_t MemoryUsed() const override {
    absl::ReaderMutexLock l(&mu_);
    return static_cast<int64_t>(tensor_.TotalBytes());
  }

 private:
  ~Var() override = default;

  mutable absl::Mutex mu_;
  Tensor tensor_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_VAR_H_
