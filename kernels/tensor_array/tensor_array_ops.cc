// CPU kernels for the TensorArray*V3 ops (kernels/ops/tensor_array_ops.cc).
// The arrays live in the step's container of the ResourceMgr and are reached
// through DT_RESOURCE handles; the float `flow` tensors carry no data, only
// the order the graph imposes, and are passed through.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_handle.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/step_container.h"
#include "kernels/tensor_array/tensor_array.h"

namespace tributary {
namespace {

std::atomic<int64_t> tensor_array_counter{0};

absl::Status GetTensorArray(OpKernelContext* ctx,
                            RefCountPtr<TensorArray>* array) {
  TRIB_ASSIGN_OR_RETURN(const ResourceHandle* handle, HandleFromInput(ctx, 0));
  return LookupResource<TensorArray>(ctx, *handle, array);
}

// The container of this step's resources (see step_container.h).
std::string StepContainerName(OpKernelContext* ctx) {
  return ScopedStepContainer::NameForStep(ctx->step_id());
}

absl::Status ScalarInt32(OpKernelContext* ctx, int input, const char* what,
                         int32_t* value) {
  const Tensor& t = ctx->input(input);
  if (t.dims() != 0 || t.dtype() != DT_INT32) {
    return errors::InvalidArgument(what, " must be a scalar, but had shape: ",
                                   t.shape().DebugString());
  }
  *value = t.scalar<int32_t>()();
  return absl::OkStatus();
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &options_.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &options_.element_shape));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &options_.dynamic_size));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("clear_after_read", &options_.clear_after_read));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes",
                                     &options_.identical_element_shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &tensor_array_name_));
    if (tensor_array_name_.empty()) tensor_array_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, ScalarInt32(ctx, 0, "Size", &size));
    OP_REQUIRES(ctx, size >= 0,
                errors::InvalidArgument("Size should be >= 0."));
    const std::string container = StepContainerName(ctx);
    const std::string key = absl::StrCat(
        tensor_array_name_, "_",
        tensor_array_counter.fetch_add(1, std::memory_order_relaxed));
    TensorArray::Options options = options_;
    options.size = size;
    const ResourceHandle handle =
        MakeResourceHandle<TensorArray>(ctx, container, key);
    OP_REQUIRES_OK(ctx,
                   CreateResource(ctx, handle, new TensorArray(key, options)));
    ctx->set_output(0, MakeResourceHandleTensor(handle));
    ctx->set_output(1, Tensor(0.0f));
  }

 private:
  TensorArray::Options options_;
  std::string tensor_array_name_;
};

// TensorArrayGradV3 / TensorArrayGradWithShape: the gradient array of the
// input array for `source`, made on first use (same size and dtype, the
// forward elements' shapes, later writes aggregated) and found again by
// every later call with the same source in this step.
class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("source", &source_));
  }

  void Compute(OpKernelContext* ctx) override {
    const bool with_shape = ctx->num_inputs() == 3;
    TensorShape prepend;
    if (with_shape) {
      const Tensor& s = ctx->input(2);
      OP_REQUIRES(ctx, s.dims() == 1,
                  errors::InvalidArgument(
                      "shape_to_prepend must be a vector, but had shape: ",
                      s.shape().DebugString()));
      for (int64_t i = 0; i < s.NumElements(); ++i) {
        OP_REQUIRES_OK(ctx, prepend.AddDimWithStatus(s.vec<int32_t>()(i)));
      }
    }
    auto handle_or = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle_or.status());
    const ResourceHandle& forward_handle = **handle_or;
    RefCountPtr<TensorArray> forward;
    OP_REQUIRES_OK(ctx, LookupResource<TensorArray>(ctx, forward_handle,
                                                    &forward));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, forward->Size(&size));
    const std::string key = absl::StrCat(forward_handle.name(), "@", source_);
    const ResourceHandle grad_handle = MakeResourceHandle<TensorArray>(
        ctx, forward_handle.container(), key);
    TensorArray::Options options;
    options.dtype = forward->dtype();
    options.size = size;
    options.element_shape = forward->element_shape();
    if (with_shape) {
      options.element_shape =
          PartialTensorShape(prepend).Concatenate(options.element_shape);
    }
    options.identical_element_shapes = forward->identical_element_shapes();
    options.dynamic_size = false;
    options.clear_after_read = true;
    options.multiple_writes_aggregate = true;
    const TensorArray* source_array = forward.get();
    RefCountPtr<TensorArray> grad;
    OP_REQUIRES_OK(
        ctx, LookupOrCreateResource<TensorArray>(
                 ctx, grad_handle, &grad,
                 [&](TensorArray** ret) -> absl::Status {
                   auto* array = new TensorArray(key, options);
                   absl::Status s = array->CopyShapesFrom(
                       *source_array, with_shape ? &prepend : nullptr);
                   if (!s.ok()) {
                     array->Unref();
                     return s;
                   }
                   *ret = array;
                   return absl::OkStatus();
                 }));
    ctx->set_output(0, MakeResourceHandleTensor(grad_handle));
    ctx->set_output(1, ctx->input(1));
  }

 private:
  std::string source_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ScalarInt32(ctx, 1, "TensorArray index", &index));
    OP_REQUIRES_OK(ctx, array->Write(index, ctx->input(2)));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ScalarInt32(ctx, 1, "TensorArray index", &index));
    Tensor value;
    OP_REQUIRES_OK(ctx, array->Read(index, dtype_, &value));
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType dtype_;
};

// Stacks equal-shaped `values` along a new dimension 0; with none, the shape
// comes from `empty_shape`, which must then be fully defined.
absl::Status Stack(const std::vector<Tensor>& values, DataType dtype,
                   const PartialTensorShape& empty_shape, Tensor* out) {
  TensorShape element;
  if (values.empty()) {
    if (!empty_shape.IsFullyDefined()) {
      return errors::Unimplemented(
          "TensorArray has size zero, but element shape ",
          empty_shape.DebugString(),
          " is not fully defined. Currently only static shapes are supported "
          "when packing zero-size TensorArrays.");
    }
    TRIB_ASSIGN_OR_RETURN(element, empty_shape.AsTensorShape());
  } else {
    element = values[0].shape();
  }
  TensorShape shape({static_cast<int64_t>(values.size())});
  for (int64_t d : element.dim_sizes()) shape.AddDim(d);
  *out = Tensor(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].shape().IsSameSize(element)) {
      return errors::InvalidArgument(
          "TensorArray has inconsistent shapes.  Index 0 has shape: ",
          element.DebugString(), " but index ", i,
          " has shape: ", values[i].shape().DebugString());
    }
    CopyElements(values[i], out, static_cast<int64_t>(i) * element.num_elements());
  }
  return absl::OkStatus();
}

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, indices.dims() == 1,
                errors::InvalidArgument("indices must be a vector, but had shape: ",
                                        indices.shape().DebugString()));
    std::vector<Tensor> values(indices.NumElements());
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      OP_REQUIRES_OK(ctx, array->Read(indices.vec<int32_t>()(i), dtype_,
                                      &values[i]));
    }
    PartialTensorShape empty_shape = element_shape_;
    if (values.empty()) {
      auto merged = array->element_shape().MergeWith(element_shape_);
      OP_REQUIRES_OK(ctx, merged.status());
      empty_shape = *merged;
    }
    Tensor out;
    OP_REQUIRES_OK(ctx, Stack(values, dtype_, empty_shape, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  DataType dtype_;
  PartialTensorShape element_shape_;
};

class TensorArrayScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    const Tensor& indices = ctx->input(1);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES(ctx, indices.dims() == 1,
                errors::InvalidArgument("indices must be a vector, but had shape: ",
                                        indices.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() >= 1,
                errors::InvalidArgument(
                    "Expected value to be at least a vector, but received "
                    "shape: ",
                    value.shape().DebugString()));
    OP_REQUIRES(ctx, indices.NumElements() == value.dim_size(0),
                errors::InvalidArgument(
                    "Expected len(indices) == values.shape[0], but saw: ",
                    indices.NumElements(), " vs. ", value.dim_size(0)));
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      OP_REQUIRES_OK(ctx, array->Write(indices.vec<int32_t>()(i),
                                       value.SubSlice(i)));
    }
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape_except0",
                                     &element_shape_except0_));
  }
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    std::vector<Tensor> values(size);
    for (int32_t i = 0; i < size; ++i) {
      OP_REQUIRES_OK(ctx, array->Read(i, dtype_, &values[i]));
    }
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({size}), &lengths));
    TensorShape except0;
    int64_t rows = 0;
    for (int32_t i = 0; i < size; ++i) {
      const TensorShape& s = values[i].shape();
      OP_REQUIRES(ctx, s.dims() >= 1,
                  errors::InvalidArgument("Concat saw a scalar shape at index ",
                                          i, " but requires at least vectors."));
      TensorShape rest = s;
      rest.RemoveDim(0);
      if (i == 0) {
        except0 = rest;
      } else {
        OP_REQUIRES(ctx, rest.IsSameSize(except0),
                    errors::InvalidArgument(
                        "TensorArray has inconsistent shapes.  Index 0 has "
                        "(excepting dimension 0) shape: ",
                        except0.DebugString(), " but index ", i,
                        " has (excepting dimension 0) shape: ",
                        rest.DebugString()));
      }
      lengths->vec<int64_t>()(i) = s.dim_size(0);
      rows += s.dim_size(0);
    }
    if (size == 0) {
      OP_REQUIRES(ctx, element_shape_except0_.IsFullyDefined(),
                  errors::Unimplemented(
                      "TensorArray has size zero, but element_shape_except0 ",
                      element_shape_except0_.DebugString(),
                      " is not fully defined. Currently only static shapes "
                      "are supported when concatenating zero-size "
                      "TensorArrays."));
      auto shape = element_shape_except0_.AsTensorShape();
      OP_REQUIRES_OK(ctx, shape.status());
      except0 = *shape;
    }
    TensorShape shape({rows});
    for (int64_t d : except0.dim_sizes()) shape.AddDim(d);
    Tensor out(dtype_, shape);
    int64_t offset = 0;
    for (const Tensor& v : values) {
      CopyElements(v, &out, offset);
      offset += v.NumElements();
    }
    ctx->set_output(0, std::move(out));
  }

 private:
  DataType dtype_;
  PartialTensorShape element_shape_except0_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, lengths.dims() == 1,
                errors::InvalidArgument(
                    "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() >= 1,
                errors::InvalidArgument(
                    "Expected value to be at least a vector, but received "
                    "shape: ",
                    value.shape().DebugString()));
    int64_t total = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t n = lengths.vec<int64_t>()(i);
      OP_REQUIRES(ctx, n >= 0,
                  errors::InvalidArgument("lengths must be non-negative, got ",
                                          n, " at ", i));
      total += n;
    }
    OP_REQUIRES(ctx, total == value.dim_size(0),
                errors::InvalidArgument(
                    "Expected sum of lengths to be equal to values.shape[0], "
                    "but sum of lengths is ",
                    total, " and value's shape is: ",
                    value.shape().DebugString()));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    OP_REQUIRES(ctx,
                array->dynamic_size() || size == lengths.NumElements(),
                errors::InvalidArgument(
                    "TensorArray's size is not equal to the size of lengths (",
                    size, " vs. ", lengths.NumElements(),
                    "), and the TensorArray is not marked as dynamically "
                    "resizeable"));
    int64_t offset = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t n = lengths.vec<int64_t>()(i);
      OP_REQUIRES_OK(ctx, array->Write(static_cast<int32_t>(i),
                                       value.Slice(offset, offset + n)));
      offset += n;
    }
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    ctx->set_output(0, Tensor(size));
  }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RefCountPtr<TensorArray> array;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    OP_REQUIRES_OK(ctx, array->Close());
  }
};

REGISTER_KERNEL_BUILDER(Name("TensorArrayV3").Device(DEVICE_CPU), TensorArrayOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGradV3").Device(DEVICE_CPU),
                        TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGradWithShape").Device(DEVICE_CPU),
                        TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWriteV3").Device(DEVICE_CPU),
                        TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayReadV3").Device(DEVICE_CPU),
                        TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGatherV3").Device(DEVICE_CPU),
                        TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayScatterV3").Device(DEVICE_CPU),
                        TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayConcatV3").Device(DEVICE_CPU),
                        TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySplitV3").Device(DEVICE_CPU),
                        TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySizeV3").Device(DEVICE_CPU),
                        TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayCloseV3").Device(DEVICE_CPU),
                        TensorArrayCloseOp);

}  // namespace
}  // namespace tributary
