#ifndef TRIBUTARY_KERNELS_STATE_LEGACY_VAR_H_
#define TRIBUTARY_KERNELS_STATE_LEGACY_VAR_H_

// LegacyVar: the resource behind a TF1 reference variable (VariableV2). The
// kernel outputs a reference (tensor pointer + mutex) into this object, and
// Assign/Apply* mutate the tensor through it in place; keeping it in the
// ResourceMgr is what makes the value survive from one Run to the next.
//
// A distinct type from Var (resource variables), so a VariableV2 "w" and a
// VarHandleOp "w" are different variables, as in TensorFlow.

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/resource/resource_base.h"

namespace tributary {

class LegacyVar : public ResourceBase {
 public:
  // An uninitialised variable: `shape` with no memory, so IsInitialized()
  // is false until an Assign gives it a buffer (unless it has no elements).
  LegacyVar(DataType dtype, const TensorShape& shape)
      : tensor_(dtype, shape, /*buffer=*/nullptr) {}

  // The mutex that ref edges carry; Assign holds it while replacing the
  // tensor, use_locking=true updates while writing elements.
  absl::Mutex* mu() { return &mu_; }
  Tensor* tensor() { return &tensor_; }

  std::string DebugString() const override {
    absl::MutexLock l(&mu_);
    return absl::StrCat(DataTypeString(tensor_.dtype()), "/",
                        tensor_.shape().DebugString());
  }

 private:
  ~LegacyVar() override = default;

  mutable absl::Mutex mu_;
  Tensor tensor_;
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_STATE_LEGACY_VAR_H_
