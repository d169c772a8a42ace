// CPU kernels for StackV2/StackPushV2/StackPopV2/StackCloseV2: the stacks in
// which a tf.compat.v1 while loop's gradient keeps the forward iterations'
// values (pushed forward, popped backward). Like TensorArrays they live in
// the step's container, behind DT_RESOURCE handles. Errors are
// InvalidArgument, as in TensorFlow.

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_base.h"
#include "common/resource/resource_handle.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/step_container.h"

namespace tributary {
namespace {

class Stack : public ResourceBase {
 public:
  Stack(DataType dtype, std::string name, int32_t max_size)
      : dtype_(dtype), name_(std::move(name)), max_size_(max_size) {}

  std::string DebugString() const override {
    absl::MutexLock l(&mu_);
    return absl::StrCat("Stack[", name_, "] of ", DataTypeString(dtype_), ", ",
                        elements_.size(), " elements");
  }

  absl::Status Push(const Tensor& value) {
    absl::MutexLock l(&mu_);
    TRIB_RETURN_IF_ERROR(CheckOpenLocked());
    if (value.dtype() != dtype_) {
      return errors::InvalidArgument("Stack[", name_, "] holds ",
                                     DataTypeString(dtype_),
                                     " but was pushed ",
                                     DataTypeString(value.dtype()));
    }
    if (max_size_ >= 0 && elements_.size() >= static_cast<size_t>(max_size_)) {
      return errors::InvalidArgument("Stack[", name_, "] overflowed its max_size (",
                                     max_size_, ")");
    }
    elements_.push_back(value);
    return absl::OkStatus();
  }

  absl::Status Pop(DataType dtype, Tensor* value) {
    absl::MutexLock l(&mu_);
    TRIB_RETURN_IF_ERROR(CheckOpenLocked());
    if (dtype != dtype_) {
      return errors::InvalidArgument("Stack[", name_, "] holds ",
                                     DataTypeString(dtype_), " but ",
                                     DataTypeString(dtype), " was popped");
    }
    if (elements_.empty()) {
      return errors::InvalidArgument("Stack[", name_, "] is empty.");
    }
    *value = std::move(elements_.back());
    elements_.pop_back();
    return absl::OkStatus();
  }

  void Close() {
    absl::MutexLock l(&mu_);
    closed_ = true;
    elements_.clear();
  }

 private:
  absl::Status CheckOpenLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) {
      return errors::InvalidArgument("Stack[", name_,
                                     "] has already been closed.");
    }
    return absl::OkStatus();
  }

  const DataType dtype_;
  const std::string name_;
  const int32_t max_size_;
  mutable absl::Mutex mu_;
  std::vector<Tensor> elements_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

std::atomic<int64_t> stack_counter{0};

absl::Status GetStack(OpKernelContext* ctx, RefCountPtr<Stack>* stack) {
  TRIB_ASSIGN_OR_RETURN(const ResourceHandle* handle, HandleFromInput(ctx, 0));
  return LookupResource<Stack>(ctx, *handle, stack);
}

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &elem_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("stack_name", &stack_name_));
    if (stack_name_.empty()) stack_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_size = ctx->input(0);
    OP_REQUIRES(ctx, max_size.dims() == 0,
                errors::InvalidArgument("max_size must be a scalar, but had shape: ",
                                        max_size.shape().DebugString()));
    const std::string key = absl::StrCat(
        stack_name_, "_", stack_counter.fetch_add(1, std::memory_order_relaxed));
    const ResourceHandle handle = MakeResourceHandle<Stack>(
        ctx, ScopedStepContainer::NameForStep(ctx->step_id()), key);
    OP_REQUIRES_OK(ctx, CreateResource(ctx, handle,
                                       new Stack(elem_type_, key,
                                                 max_size.scalar<int32_t>()())));
    ctx->set_output(0, MakeResourceHandleTensor(handle));
  }

 private:
  DataType elem_type_;
  std::string stack_name_;
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<Stack> stack;
    OP_REQUIRES_OK(ctx, GetStack(ctx, &stack));
    // swap_memory only matters for accelerators; on the CPU it is a no-op.
    OP_REQUIRES_OK(ctx, stack->Push(ctx->input(1)));
    ctx->set_output(0, ctx->input(1));
  }
};

class StackPopOp : public OpKernel {
 public:
  explicit StackPopOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &elem_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<Stack> stack;
    OP_REQUIRES_OK(ctx, GetStack(ctx, &stack));
    Tensor value;
    OP_REQUIRES_OK(ctx, stack->Pop(elem_type_, &value));
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType elem_type_;
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<Stack> stack;
    OP_REQUIRES_OK(ctx, GetStack(ctx, &stack));
    stack->Close();
  }
};

REGISTER_KERNEL_BUILDER(Name("StackV2").Device(DEVICE_CPU), StackOp);
REGISTER_KERNEL_BUILDER(Name("StackPushV2").Device(DEVICE_CPU), StackPushOp);
REGISTER_KERNEL_BUILDER(Name("StackPopV2").Device(DEVICE_CPU), StackPopOp);
REGISTER_KERNEL_BUILDER(Name("StackCloseV2").Device(DEVICE_CPU), StackCloseOp);

}  // namespace
}  // namespace tributary
