#include "common/kernel/op_kernel_context.h"

#include <utility>

#include "common/kernel/device_base.h"
#include "common/framework/file_access_policy.h"
#include "common/framework/logging.h"
#include "common/framework/memory_budget.h"
#include "common/framework/status.h"
#include "common/kernel/match_signature.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

// Output attributes may only ask for what the input's memory already
// provides (e.g. an input in plain device memory cannot become an output that
// must be host-visible). Bits of `output` must be a subset of `input`'s.
bool IsEqualOrLessRestrictive(AllocatorAttributes output,
                              AllocatorAttributes input) {
  return (output.value | input.value) == input.value;
}

}  // namespace

OpKernelContext::OpKernelContext(Params* params)
    : OpKernelContext(params, params->op_kernel->num_outputs()) {}

OpKernelContext::OpKernelContext(Params* params, int num_outputs)
    : params_(params), outputs_(num_outputs) {}

OpKernelContext::~OpKernelContext() {
  for (int i = 0; i < num_outputs(); ++i) ClearOutput(i);
}

std::string OpKernelContext::KernelForError() const {
  if (params_->op_kernel == nullptr) return "kernel";
  return absl::StrCat("node '", params_->op_kernel->name(), "' (op '",
                      params_->op_kernel->type_string(), "')");
}

const Eigen::ThreadPoolDevice& OpKernelContext::eigen_cpu_device() const {
  CHECK(params_->device != nullptr) << KernelForError() << " has no device";
  const Eigen::ThreadPoolDevice* d = params_->device->eigen_cpu_device();
  CHECK(d != nullptr) << "device '" << params_->device->name()
                      << "' has no Eigen CPU device";
  return *d;
}

template <>
const Eigen::ThreadPoolDevice& OpKernelContext::eigen_device() const {
  return eigen_cpu_device();
}

Allocator* OpKernelContext::get_allocator(AllocatorAttributes attr) {
  Allocator* a = params_->device == nullptr
                     ? cpu_allocator()
                     : params_->device->GetAllocator(attr);
  if (params_->memory_budget != nullptr) a = params_->memory_budget->Wrap(a);
  return a;
}

absl::Status OpKernelContext::CheckFileAccess(absl::string_view path) const {
  if (params_->file_access == nullptr) return absl::OkStatus();
  return params_->file_access->Check(path, KernelForError());
}

absl::Status OpKernelContext::CheckCheckpointAccess(
    absl::string_view prefix) const {
  if (params_->file_access == nullptr) return absl::OkStatus();
  return params_->file_access->CheckCheckpointPrefix(prefix, KernelForError());
}

// ---- Inputs ----------------------------------------------------------------

DataType OpKernelContext::input_dtype(int index) const {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_inputs()) << KernelForError();
  const TensorValue& value = params_->inputs[index];
  return value.dtype();
}

bool OpKernelContext::input_is_ref(int index) const {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_inputs()) << KernelForError();
  return params_->inputs[index].is_ref();
}

const Tensor& OpKernelContext::input(int index) const {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_inputs()) << KernelForError();
  const TensorValue& value = params_->inputs[index];
  CHECK(!value.is_ref()) << KernelForError() << " read ref input " << index
                         << " with input(); use mutable_input()";
  CHECK(value.tensor != nullptr)
      << KernelForError() << " input " << index << " is missing";
  return *value.tensor;
}

absl::Status OpKernelContext::input(absl::string_view name,
                                    const Tensor** tensor) const {
  int start, stop;
  TRIB_RETURN_IF_ERROR(params_->op_kernel->InputRange(name, &start, &stop));
  if (stop != start + 1) {
    return errors::InvalidArgument(KernelForError(),
                                   " used list-valued input name '", name,
                                   "' where a single-valued input was expected");
  }
  if (input_is_ref(start)) {
    return errors::InvalidArgument(KernelForError(),
                                   " used ref input name '", name,
                                   "' where an immutable input was expected");
  }
  *tensor = &input(start);
  return absl::OkStatus();
}

Tensor OpKernelContext::mutable_input(int index, bool lock_held) {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_inputs()) << KernelForError();
  const TensorValue& value = params_->inputs[index];
  if (!value.is_ref() || lock_held) return *value.tensor;
  absl::MutexLock l(value.mutex_if_ref);
  return *value.tensor;
}

absl::Mutex* OpKernelContext::input_ref_mutex(int index) const {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_inputs()) << KernelForError();
  return params_->inputs[index].mutex_if_ref;
}

void OpKernelContext::replace_ref_input(int index, const Tensor& tensor,
                                        bool lock_held) {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_inputs()) << KernelForError();
  const TensorValue& value = params_->inputs[index];
  CHECK(value.is_ref()) << KernelForError() << " replaced non-ref input "
                        << index;
  if (lock_held) {
    *value.tensor = tensor;
    return;
  }
  absl::MutexLock l(value.mutex_if_ref);
  *value.tensor = tensor;
}

void OpKernelContext::forward_ref_input_to_ref_output(int input_index,
                                                      int output_index) {
  CHECK_GE(input_index, 0);
  CHECK_LT(input_index, num_inputs()) << KernelForError();
  const TensorValue& value = params_->inputs[input_index];
  CHECK(value.is_ref()) << KernelForError() << " forwarded non-ref input "
                        << input_index << " as a ref";
  set_output_ref(output_index, value.mutex_if_ref, value.tensor);
}

AllocatorAttributes OpKernelContext::input_alloc_attr(int index) const {
  if (params_->input_alloc_attrs.empty()) return AllocatorAttributes();
  CHECK_GE(index, 0);
  CHECK_LT(index, static_cast<int>(params_->input_alloc_attrs.size()));
  return params_->input_alloc_attrs[index];
}

MemoryType OpKernelContext::input_memory_type(int index) const {
  if (params_->op_kernel == nullptr) return HOST_MEMORY;
  const MemoryTypeVector& types = params_->op_kernel->input_memory_types();
  return index < static_cast<int>(types.size()) ? types[index] : HOST_MEMORY;
}

bool OpKernelContext::ValidateInputsAreSameShape(OpKernel* op) {
  for (int i = 1; i < num_inputs(); ++i) {
    const Tensor& first = *params_->inputs[0].tensor;
    const Tensor& other = *params_->inputs[i].tensor;
    if (!first.shape().IsSameSize(other.shape())) {
      SetStatus(errors::InvalidArgument(
          "Inputs to node '", op->name(), "' (op '", op->type_string(),
          "') must have the same shape. Input 0: ", first.shape().DebugString(),
          " != input ", i, ": ", other.shape().DebugString()));
      return false;
    }
  }
  return true;
}

// ---- Outputs ---------------------------------------------------------------

DataType OpKernelContext::expected_output_dtype(int index) const {
  if (params_->op_kernel == nullptr) return DT_INVALID;
  return params_->op_kernel->output_type(index);
}

AllocatorAttributes OpKernelContext::output_alloc_attr(int index) const {
  if (params_->output_attr_array == nullptr) return AllocatorAttributes();
  return params_->output_attr_array[index];
}

MemoryType OpKernelContext::output_memory_type(int index) const {
  if (params_->op_kernel == nullptr) return HOST_MEMORY;
  const MemoryTypeVector& types = params_->op_kernel->output_memory_types();
  return index < static_cast<int>(types.size()) ? types[index] : HOST_MEMORY;
}

bool OpKernelContext::CheckOutputSlot(int index, DataType dtype,
                                      const char* what) {
  if (index < 0 || index >= num_outputs()) {
    SetStatus(errors::Internal(KernelForError(), " called ", what,
                               " for output ", index, " but has ",
                               num_outputs(), " outputs"));
    return false;
  }
  const DataType expected = expected_output_dtype(index);
  // DT_INVALID: no kernel to tell us (a bare context in a test), trust it.
  if (expected != DT_INVALID && expected != dtype) {
    SetStatus(errors::InvalidArgument(
        KernelForError(), " produced output ", index, " with type ",
        DataTypeString(dtype), " but its signature says ",
        DataTypeString(expected)));
    return false;
  }
  return true;
}

void OpKernelContext::ClearOutput(int index) {
  TensorValue& slot = outputs_[index];
  if (!slot.is_ref()) delete slot.tensor;
  slot = TensorValue();
}

absl::Status OpKernelContext::AllocateTensor(DataType type,
                                             const TensorShape& shape,
                                             Tensor* tensor,
                                             AllocatorAttributes attr) {
  Allocator* a = get_allocator(attr);
  Tensor t(a, type, shape);
  if (!t.IsInitialized()) {
    // What the allocator was asked for (strings and other non-plain
    // elements are about the size of a std::string each).
    const int64_t element = DataTypeSize(type) > 0 ? DataTypeSize(type) : 32;
    int64_t bytes;
    if (__builtin_mul_overflow(shape.num_elements(), element, &bytes)) {
      bytes = INT64_MAX;
    }
    if (params_->memory_budget != nullptr &&
        params_->memory_budget->WouldExceed(bytes)) {
      return errors::ResourceExhausted(
          "Memory budget exceeded: ", KernelForError(), " allocating a tensor "
          "with shape ", shape.DebugString(), " and type ",
          DataTypeString(type), " ",
          params_->memory_budget->ExplainRefusal(bytes),
          "; the step was stopped (other sessions are unaffected)");
    }
    std::string where;
    if (params_->device != nullptr && !params_->device->name().empty()) {
      where = absl::StrCat(" on ", params_->device->name());
    }
    const std::string state = a->StateDebugString();
    return errors::ResourceExhausted(
        "OOM when allocating tensor with shape ", shape.DebugString(),
        " and type ", DataTypeString(type), where, " for ", KernelForError(),
        " by allocator ", a->Name(), " (", bytes, " bytes asked)",
        state.empty() ? "" : "; its state: ", state);
  }
  *tensor = std::move(t);
  return absl::OkStatus();
}

absl::Status OpKernelContext::allocate_output(int index,
                                              const TensorShape& shape,
                                              Tensor** output) {
  return allocate_output(index, shape, output, output_alloc_attr(index));
}

absl::Status OpKernelContext::allocate_output(int index,
                                              const TensorShape& shape,
                                              Tensor** output,
                                              AllocatorAttributes attr) {
  if (index < 0 || index >= num_outputs()) {
    return errors::Internal(KernelForError(), " allocated output ", index,
                            " but has ", num_outputs(), " outputs");
  }
  DataType type = expected_output_dtype(index);
  if (type == DT_INVALID) {
    return errors::Internal(KernelForError(),
                            " cannot allocate output ", index,
                            ": its dtype is unknown (no op_kernel)");
  }
  if (IsRefType(type)) {
    return errors::Internal(KernelForError(), " allocated ref output ", index,
                            "; ref outputs are set with set_output_ref");
  }
  Tensor t;
  TRIB_RETURN_IF_ERROR(AllocateTensor(type, shape, &t, attr));
  ClearOutput(index);
  outputs_[index] = TensorValue(new Tensor(std::move(t)));
  *output = outputs_[index].tensor;
  return absl::OkStatus();
}

absl::Status OpKernelContext::allocate_output(absl::string_view name,
                                              const TensorShape& shape,
                                              Tensor** output) {
  int start, stop;
  TRIB_RETURN_IF_ERROR(params_->op_kernel->OutputRange(name, &start, &stop));
  if (stop != start + 1) {
    return errors::InvalidArgument(KernelForError(),
                                   " used list-valued output name '", name,
                                   "' where a single-valued output was expected");
  }
  return allocate_output(start, shape, output);
}

void OpKernelContext::set_output(int index, const Tensor& tensor) {
  set_output(index, Tensor(tensor));
}

void OpKernelContext::set_output(int index, Tensor&& tensor) {
  if (!CheckOutputSlot(index, tensor.dtype(), "set_output")) return;
  ClearOutput(index);
  outputs_[index] = TensorValue(new Tensor(std::move(tensor)));
}

absl::Status OpKernelContext::set_output(absl::string_view name,
                                         const Tensor& tensor) {
  int start, stop;
  TRIB_RETURN_IF_ERROR(params_->op_kernel->OutputRange(name, &start, &stop));
  if (stop != start + 1) {
    return errors::InvalidArgument(KernelForError(),
                                   " used list-valued output name '", name,
                                   "' where a single-valued output was expected");
  }
  set_output(start, tensor);
  return absl::OkStatus();
}

void OpKernelContext::set_output_ref(int index, absl::Mutex* mu,
                                     Tensor* tensor_for_ref) {
  CHECK(mu != nullptr) << KernelForError() << " set a ref output without mutex";
  if (!CheckOutputSlot(index, MakeRefType(tensor_for_ref->dtype()),
                       "set_output_ref")) {
    return;
  }
  ClearOutput(index);
  outputs_[index] = TensorValue(mu, tensor_for_ref);
}

std::unique_ptr<Tensor> OpKernelContext::forward_input(
    int input_index, int output_index, DataType output_dtype,
    const TensorShape& output_shape, MemoryType output_memory_type,
    AllocatorAttributes output_attr) {
  if (input_index < 0 || input_index >= num_inputs()) return nullptr;
  const TensorValue& input = params_->inputs[input_index];
  // A ref input belongs to a variable: writing into it would change the
  // variable behind everyone's back.
  if (input.tensor == nullptr || input.is_ref()) return nullptr;
  if (input.tensor->dtype() != output_dtype) return nullptr;
  if (input.tensor->NumElements() != output_shape.num_elements()) {
    return nullptr;
  }
  if (input_memory_type(input_index) != output_memory_type) return nullptr;
  // The executor holds exactly one reference per input it hands us; any
  // other holder (another consumer of the same tensor, a fetch, a Slice
  // parent) would see the in-place write.
  if (!input.tensor->RefCountIsOne()) return nullptr;
  if (!IsEqualOrLessRestrictive(output_attr, input_alloc_attr(input_index))) {
    return nullptr;
  }
  auto out = std::make_unique<Tensor>();
  if (!out->CopyFrom(*input.tensor, output_shape)) return nullptr;
  (void)output_index;  // Reserved for graph-level forwarding plans.
  return out;
}

bool OpKernelContext::forward_input_to_output_with_shape(
    int input_index, int output_index, const TensorShape& output_shape,
    Tensor** output) {
  if (output_index < 0 || output_index >= num_outputs()) return false;
  const DataType dtype = expected_output_dtype(output_index);
  if (dtype == DT_INVALID || IsRefType(dtype)) return false;
  std::unique_ptr<Tensor> forwarded =
      forward_input(input_index, output_index, dtype, output_shape,
                    output_memory_type(output_index),
                    output_alloc_attr(output_index));
  if (forwarded == nullptr) return false;
  ClearOutput(output_index);
  outputs_[output_index] = TensorValue(forwarded.release());
  *output = outputs_[output_index].tensor;
  return true;
}

absl::Status OpKernelContext::forward_input_or_allocate_output(
    absl::Span<const int> candidate_input_indices, int output_index,
    const TensorShape& output_shape, Tensor** output, int* forwarded_input) {
  for (int input_index : candidate_input_indices) {
    if (forward_input_to_output_with_shape(input_index, output_index,
                                           output_shape, output)) {
      if (forwarded_input != nullptr) *forwarded_input = input_index;
      return absl::OkStatus();
    }
  }
  if (forwarded_input != nullptr) *forwarded_input = -1;
  return allocate_output(output_index, output_shape, output);
}

Tensor* OpKernelContext::mutable_output(int index) {
  if (index < 0 || index >= num_outputs()) return nullptr;
  return outputs_[index].tensor;
}

bool OpKernelContext::has_output(int index) const {
  return index >= 0 && index < num_outputs() &&
         outputs_[index].tensor != nullptr;
}

TensorValue OpKernelContext::release_output(int index) {
  CHECK_GE(index, 0);
  CHECK_LT(index, num_outputs()) << KernelForError();
  TensorValue value = outputs_[index];
  outputs_[index] = TensorValue();
  return value;
}

absl::Status OpKernelContext::allocate_temp(DataType type,
                                            const TensorShape& shape,
                                            Tensor* out_temp,
                                            AllocatorAttributes attr) {
  return AllocateTensor(type, shape, out_temp, attr);
}

absl::Status OpKernelContext::MatchSignature(DataTypeSlice expected_inputs,
                                             DataTypeSlice expected_outputs) {
  DataTypeVector inputs;
  for (int i = 0; i < num_inputs(); ++i) inputs.push_back(input_dtype(i));
  DataTypeVector outputs;
  if (params_->op_kernel != nullptr) outputs = params_->op_kernel->output_types();
  const std::string name =
      params_->op_kernel != nullptr ? params_->op_kernel->name() : "";
  return MatchSignatureHelper(name, expected_inputs, expected_outputs, inputs,
                              outputs);
}

// ---- Outcome ---------------------------------------------------------------

void OpKernelContext::SetStatus(const absl::Status& status) {
  status_.Update(status);
}

void OpKernelContext::CtxFailure(const absl::Status& s) { SetStatus(s); }

void OpKernelContext::CtxFailure(const char* /*file*/, int /*line*/,
                                 const absl::Status& s) {
  SetStatus(s);
}

void OpKernelContext::CtxFailureWithWarning(const char* /*file*/,
                                            int /*line*/,
                                            const absl::Status& s) {
  // The executor reports the failed node with its name and step; logging
  // here as well would print every kernel error twice.
  SetStatus(s);
}

}  // namespace tributary
