// Resource variables (TF2 style): VarHandleOp makes a DT_RESOURCE handle
// naming a Var in the device's ResourceMgr; reads and writes are separate
// kernels on that handle.
//
// Concurrency follows TensorFlow's copy-on-write scheme (see var.h): a read
// shares the variable's buffer under a shared lock, so its result is a
// snapshot; a write holds the lock exclusively and first copies the buffer
// when a snapshot still uses it.

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/var.h"
#include "kernels/state/dense_update_functor.h"
#include "kernels/state/variable_update.h"

namespace tributary {
namespace {

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &name_));
    DtypeAndPartialTensorShape dtype_and_shape;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_and_shape.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &dtype_and_shape.shape));
    dtypes_and_shapes_.push_back(dtype_and_shape);
  }

  void Compute(OpKernelContext* ctx) override {
    // An empty container attr means the manager's default container, known
    // only now: the runtime passes the manager with each run.
    const std::string& container =
        !container_.empty() ? container_
        : ctx->resource_manager() != nullptr
            ? ctx->resource_manager()->default_container()
            : default_container_;
    absl::MutexLock lock(&mu_);
    if (!cached_ || cached_container_ != container) {
      cached_handle_ = MakeResourceHandleTensor(MakeResourceHandle<Var>(
          ctx, container, name_, dtypes_and_shapes_));
      cached_container_ = container;
      cached_ = true;
    }
    // Consumers only read handles, so every step can share one tensor.
    ctx->set_output(0, cached_handle_);
  }

 private:
  const std::string default_container_ = ResourceMgr::kDefaultContainer;
  std::string container_;
  std::string name_;
  std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes_;

  absl::Mutex mu_;
  bool cached_ ABSL_GUARDED_BY(mu_) = false;
  std::string cached_container_ ABSL_GUARDED_BY(mu_);
  Tensor cached_handle_ ABSL_GUARDED_BY(mu_);
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;  // A buffer share, no copy.
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    RefCountPtr<Var> variable;
    const absl::Status status = LookupResource(ctx, **handle, &variable);
    OP_REQUIRES(
        ctx, status.ok(),
        errors::FailedPrecondition(
            "Could not find variable ", (*handle)->name(), ". ",
            "This could mean that the variable has been deleted. ",
            "In TF1, it can also mean the variable is uninitialized. ",
            "Debug info: container=", (*handle)->container(),
            ", status error message=", status.message()));
    absl::ReaderMutexLock lock(variable->mu());
    const Tensor* t = variable->tensor();
    OP_REQUIRES(ctx, variable->is_initialized,
                errors::FailedPrecondition(
                    "Attempting to read uninitialized variable ",
                    (*handle)->container(), "/", (*handle)->name()));
    OP_REQUIRES(ctx, dtype_ == t->dtype(),
                errors::InvalidArgument(
                    "Trying to read variable with wrong dtype. Expected ",
                    DataTypeString(dtype_), " got ",
                    DataTypeString(t->dtype())));
    // Shares the buffer: the next write copies it first (copy-on-write).
    ctx->set_output(0, *t);
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, dtype_ == value.dtype(),
                errors::InvalidArgument(
                    "Variable and value dtypes don't match; respectively, ",
                    DataTypeString(dtype_), " and ",
                    DataTypeString(value.dtype())));
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    RefCountPtr<Var> variable;
    // The first assignment creates the variable, holding `value` itself.
    // Sharing the buffer is safe: every later write copies a shared buffer
    // before touching it.
    std::function<absl::Status(Var**)> creator = [this, &value](Var** ptr) {
      *ptr = new Var(dtype_);
      *(*ptr)->tensor() = value;
      (*ptr)->is_initialized = true;
      return absl::OkStatus();
    };
    OP_REQUIRES_OK(ctx, LookupOrCreateResource<Var>(ctx, **handle, &variable,
                                                    creator));
    absl::MutexLock lock(variable->mu());
    Tensor* var_tensor = variable->tensor();
    OP_REQUIRES(ctx, var_tensor->dtype() == dtype_,
                errors::InvalidArgument(
                    "Trying to assign variable with wrong dtype. Expected ",
                    DataTypeString(var_tensor->dtype()), " got ",
                    DataTypeString(dtype_)));
    OP_REQUIRES(ctx,
                !validate_shape_ || !variable->is_initialized ||
                    var_tensor->shape().IsSameSize(value.shape()),
                errors::InvalidArgument(
                    "Trying to assign to variable with tensor with wrong "
                    "shape. Expected ",
                    var_tensor->shape().DebugString(), " got ",
                    value.shape().DebugString()));
    *var_tensor = value;
    variable->is_initialized = true;
  }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

template <typename T, DenseUpdateType OP>
class AssignUpdateVariableOp : public OpKernel {
 public:
  explicit AssignUpdateVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    RefCountPtr<Var> variable;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, **handle, &variable));
    const Tensor& value = ctx->input(1);
    absl::MutexLock lock(variable->mu());
    Tensor* var_tensor = variable->tensor();
    OP_REQUIRES(ctx, variable->is_initialized,
                errors::FailedPrecondition(
                    "Attempting to update uninitialized variable ",
                    (*handle)->container(), "/", (*handle)->name()));
    OP_REQUIRES(ctx, var_tensor->dtype() == DataTypeToEnum<T>::v(),
                errors::InvalidArgument(
                    "Trying to update variable with wrong dtype. Expected ",
                    DataTypeString(var_tensor->dtype()), " got ",
                    DataTypeString(DataTypeToEnum<T>::v())));
    OP_REQUIRES(ctx, var_tensor->shape().IsSameSize(value.shape()),
                errors::InvalidArgument(
                    "Cannot update variable with shape ",
                    var_tensor->shape().DebugString(),
                    " using a Tensor with shape ",
                    value.shape().DebugString(), ", shapes must be equal."));
    OP_REQUIRES_OK(ctx, PrepareToUpdateVariable(ctx, var_tensor));
    DenseUpdate<T, OP>()(ctx->eigen_cpu_device(), var_tensor->flat<T>(),
                         value.flat<T>());
  }
};

class VarIsInitializedOp : public OpKernel {
 public:
  explicit VarIsInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &output));
    bool initialized = false;
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    RefCountPtr<Var> variable;
    // Any lookup failure (absent, wrong type) just means "not initialized".
    if (LookupResource(ctx, **handle, &variable).ok()) {
      absl::ReaderMutexLock lock(variable->mu());
      initialized = variable->is_initialized;
    }
    output->scalar<bool>()() = initialized;
  }
};

// TensorFlow switches the variable out of its copy-on-read mode (a mode its
// sparse updates use). Our variables have no such mode: reads always share a
// snapshot (see the top of this file), so what is left is TensorFlow's check
// that the variable exists.
class DisableCopyOnReadOp : public OpKernel {
 public:
  explicit DisableCopyOnReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    RefCountPtr<Var> variable;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, **handle, &variable));
  }
};

// The variable's shape as a vector of out_type (tf.shape of a resource
// variable). A missing variable is NOT_FOUND; a dimension past int32's range
// with out_type int32 is INVALID_ARGUMENT rather than a wrapped number.
class VariableShapeOp : public OpKernel {
 public:
  explicit VariableShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    RefCountPtr<Var> variable;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, **handle, &variable));
    TensorShape shape;
    {
      absl::ReaderMutexLock lock(variable->mu());
      shape = variable->tensor()->shape();
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({shape.dims()}), &output));
    for (int d = 0; d < shape.dims(); ++d) {
      const int64_t size = shape.dim_size(d);
      if (out_type_ == DT_INT64) {
        output->flat<int64_t>()(d) = size;
        continue;
      }
      OP_REQUIRES(ctx, size <= std::numeric_limits<int32_t>::max(),
                  errors::InvalidArgument(
                      "Shape ", shape.DebugString(),
                      " does not fit out_type int32: use int64"));
      output->flat<int32_t>()(d) = static_cast<int32_t>(size);
    }
  }

 private:
  DataType out_type_ = DT_INT32;
};

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    const absl::Status status = DeleteResource(ctx, **handle);
    if (ignore_lookup_error_ && errors::IsNotFound(status)) return;
    OP_REQUIRES_OK(ctx, status);
  }

 private:
  bool ignore_lookup_error_ = true;
};

REGISTER_KERNEL_BUILDER(Name("VarHandleOp").Device(DEVICE_CPU), VarHandleOp);
REGISTER_KERNEL_BUILDER(Name("ReadVariableOp").Device(DEVICE_CPU),
                        ReadVariableOp);
REGISTER_KERNEL_BUILDER(Name("AssignVariableOp").Device(DEVICE_CPU),
                        AssignVariableOp);
REGISTER_KERNEL_BUILDER(Name("DisableCopyOnRead").Device(DEVICE_CPU),
                        DisableCopyOnReadOp);
REGISTER_KERNEL_BUILDER(Name("VarIsInitializedOp").Device(DEVICE_CPU),
                        VarIsInitializedOp);
REGISTER_KERNEL_BUILDER(Name("VariableShape").Device(DEVICE_CPU),
                        VariableShapeOp);
REGISTER_KERNEL_BUILDER(Name("DestroyResourceOp").Device(DEVICE_CPU),
                        DestroyResourceOp);

#define TRIB_REGISTER_ASSIGN_UPDATE(T)                                     \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("AssignAddVariableOp").Device(DEVICE_CPU).TypeConstraint<T>(    \
          "dtype"),                                                        \
      AssignUpdateVariableOp<T, DenseUpdateType::kAdd>);                   \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("AssignSubVariableOp").Device(DEVICE_CPU).TypeConstraint<T>(    \
          "dtype"),                                                        \
      AssignUpdateVariableOp<T, DenseUpdateType::kSub>)

TRIB_REGISTER_ASSIGN_UPDATE(float);
TRIB_REGISTER_ASSIGN_UPDATE(double);
TRIB_REGISTER_ASSIGN_UPDATE(int32_t);
TRIB_REGISTER_ASSIGN_UPDATE(int64_t);
#undef TRIB_REGISTER_ASSIGN_UPDATE

}  // namespace
}  // namespace tributary
