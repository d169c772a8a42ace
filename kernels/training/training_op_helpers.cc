#include "kernels/training/training_op_helpers.h"

#include <algorithm>

#include "common/framework/status.h"
#include "common/resource/resource_lookup.h"
#include "kernels/state/variable_update.h"

namespace tributary {

VariableInputs::~VariableInputs() {
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) (*it)->Unlock();
}

absl::Status VariableInputs::Acquire(std::initializer_list<int> input_ids) {
  CHECK(slots_.empty()) << "VariableInputs::Acquire called twice";
  std::vector<absl::Mutex*> to_lock;
  for (int input : input_ids) {
    Slot slot{input, nullptr};
    absl::Mutex* mu = nullptr;
    if (ctx_->input_dtype(input) == DT_RESOURCE) {
      absl::StatusOr<const ResourceHandle*> handle =
          HandleFromInput(ctx_, input);
      TRIB_RETURN_IF_ERROR(handle.status());
      absl::Status found = LookupResource(ctx_, **handle, &slot.var);
      if (!found.ok()) {
        return errors::Internal("Invalid variable reference. (",
                                found.message(), ")");
      }
      mu = slot.var->mu();
    } else if (use_locking_) {
      mu = ctx_->input_ref_mutex(input);
    }
    // The same variable may come in twice (e.g. var and accum aliased).
    if (mu != nullptr &&
        std::find(to_lock.begin(), to_lock.end(), mu) == to_lock.end()) {
      to_lock.push_back(mu);
    }
    slots_.push_back(std::move(slot));
  }
  std::sort(to_lock.begin(), to_lock.end());
  for (absl::Mutex* mu : to_lock) {
    mu->Lock();
    held_.push_back(mu);
  }
  ref_locks_held_ = use_locking_;
  return absl::OkStatus();
}

const VariableInputs::Slot* VariableInputs::FindSlot(int input) const {
  for (const Slot& slot : slots_) {
    if (slot.input == input) return &slot;
  }
  return nullptr;
}

absl::Status VariableInputs::GetTensor(int input, DataType dtype,
                                       Tensor* out) {
  const Slot* slot = FindSlot(input);
  CHECK(slot != nullptr) << "input " << input << " was not acquired";
  const std::string& name = ctx_->op_kernel().requested_input(input);
  if (slot->var != nullptr) {
    // Its mutex is held exclusively (see Acquire).
    Var* var = slot->var.get();
    if (!var->is_initialized) {
      return errors::FailedPrecondition(
          "Attempting to use uninitialized variables: ", name);
    }
    if (var->tensor()->dtype() != dtype) {
      return errors::InvalidArgument(
          "variable ", name, " holds ", DataTypeString(var->tensor()->dtype()),
          " but the op updates it as ", DataTypeString(dtype));
    }
    TRIB_RETURN_IF_ERROR(PrepareToUpdateVariable(ctx_, var->tensor()));
    *out = *var->tensor();
    return absl::OkStatus();
  }
  *out = ctx_->mutable_input(input, ref_locks_held_);
  if (!out->IsInitialized()) {
    return errors::FailedPrecondition(
        "Attempting to use uninitialized variables: ", name);
  }
  // A ref input's dtype is fixed by the signature; nothing to check.
  return absl::OkStatus();
}

void VariableInputs::MaybeForwardRefInputToRefOutput(int input, int output) {
  if (ctx_->input_dtype(input) != DT_RESOURCE) {
    ctx_->forward_ref_input_to_ref_output(input, output);
  }
}

}  // namespace tributary
