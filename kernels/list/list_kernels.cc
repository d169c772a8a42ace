// CPU kernels of the TensorList ops (kernels/ops/list_ops.cc): EmptyTensorList,
// TensorListReserve, TensorListFromTensor, TensorListGetItem,
// TensorListSetItem, TensorListStack, TensorListLength,
// TensorListElementShape, TensorListPushBack, TensorListPopBack.
//
// Semantics and messages follow TensorFlow: an index outside [0, size) and an
// element shape or dtype that does not fit the list are InvalidArgument;
// reading an element that was reserved but never set gives zeros of the
// element shape, which must then be fully known.
//
// Lists are values: an op that "modifies" a list outputs a new one. When
// this kernel holds the only reference to its input list (forward_input),
// the list is taken over and changed in place instead of copied, so a loop
// that sets one element per iteration stays O(n), not O(n^2).
//
// Elements are any dtype (the list is opaque to them): FromTensor's slices
// share the input's buffer, Stack copies them into one tensor.

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/variant.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/memory_types.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_requires.h"
#include "kernels/list/list_op_base.h"
#include "kernels/list/tensor_list.h"

namespace tributary {
namespace {

using list_ops::ChangeInputList;
using list_ops::CopyElements;
using list_ops::ElementShapeFromInput;
using list_ops::GetInputList;
using list_ops::ListOpBase;
using list_ops::MakeZeros;
using list_ops::PartialShapeFromTensor;
using list_ops::SetOutputList;
using list_ops::ShapeForUninitialized;

// EmptyTensorList(element_shape, max_num_elements).
class EmptyTensorListOp : public ListOpBase {
 public:
  explicit EmptyTensorListOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_t = ctx->input(1);
    OP_REQUIRES(ctx, max_t.dims() == 0,
                errors::InvalidArgument(
                    "max_num_elements expected to be a scalar ",
                    "but got shape: ", max_t.shape().DebugString()));
    TensorList list;
    list.element_dtype = element_dtype_;
    list.max_num_elements = max_t.scalar<int32_t>()();
    OP_REQUIRES(ctx, list.max_num_elements >= -1,
                errors::InvalidArgument(
                    "max_num_elements must be non-negative or -1 for "
                    "unlimited, got ",
                    list.max_num_elements));
    OP_REQUIRES_OK(ctx,
                   PartialShapeFromTensor(ctx->input(0), &list.element_shape));
    OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

// TensorListReserve(element_shape, num_elements): num_elements
// uninitialized elements.
class TensorListReserveOp : public ListOpBase {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& n_t = ctx->input(1);
    OP_REQUIRES(ctx, n_t.dims() == 0,
                errors::InvalidArgument(
                    "The num_elements to reserve must be a tensor size 1, ",
                    "but got shape: ", n_t.shape().DebugString()));
    const int32_t n = n_t.scalar<int32_t>()();
    OP_REQUIRES(ctx, n >= 0,
                errors::InvalidArgument("The num_elements to reserve must be a "
                                        "non negative number, but got ",
                                        n));
    TensorList list;
    list.element_dtype = element_dtype_;
    OP_REQUIRES_OK(ctx,
                   PartialShapeFromTensor(ctx->input(0), &list.element_shape));
    list.tensors.resize(n, Tensor(DT_INVALID));
    OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

// TensorListFromTensor(tensor, element_shape): one element per row of dim 0
// (slices sharing the tensor's buffer).
class TensorListFromTensorOp : public ListOpBase {
 public:
  explicit TensorListFromTensorOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    OP_REQUIRES(ctx, t.dims() >= 1,
                errors::InvalidArgument(
                    "Tensor must be at least a vector, but saw shape: ",
                    t.shape().DebugString()));
    PartialTensorShape requested;
    OP_REQUIRES_OK(ctx, PartialShapeFromTensor(ctx->input(1), &requested));
    TensorShape row = t.shape();
    row.RemoveDim(0);
    OP_REQUIRES(ctx, requested.IsCompatibleWith(row),
                errors::InvalidArgument(
                    "Specified a list with shape ", requested.DebugString(),
                    " from a tensor with shape ", row.DebugString()));
    TensorList list;
    list.element_dtype = element_dtype_;
    list.element_shape = requested;
    list.tensors.reserve(t.dim_size(0));
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      list.tensors.push_back(t.SubSlice(i));
    }
    OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

// TensorListGetItem(input_handle, index, element_shape).
class TensorListGetItemOp : public ListOpBase {
 public:
  explicit TensorListGetItemOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &list));
    const Tensor& index_t = ctx->input(1);
    OP_REQUIRES(ctx, index_t.NumElements() == 1,
                errors::InvalidArgument("index must be a scalar, got shape ",
                                        index_t.shape().DebugString()));
    const int64_t index = index_t.flat<int32_t>()(0);
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(
        ctx, index >= 0 && index < size,
        errors::InvalidArgument("Trying to access element ", index,
                                " in a list with ", size, " elements."));
    const Tensor& item = list->tensors[index];
    if (item.dtype() != DT_INVALID) {
      ctx->set_output(0, item);
      return;
    }
    PartialTensorShape partial;
    OP_REQUIRES_OK(ctx, ElementShapeFromInput(*list, ctx->input(2), &partial));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeForUninitialized(*list, partial, &shape));
    Tensor zeros;
    OP_REQUIRES_OK(ctx, MakeZeros(ctx, element_dtype_, shape, &zeros));
    ctx->set_output(0, zeros);
  }
};

// TensorListSetItem(input_handle, index, item).
class TensorListSetItemOp : public ListOpBase {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
    OP_REQUIRES_OK(ctx, ctx->GetAttr("resize_if_index_out_of_bounds",
                                     &resize_if_index_out_of_bounds_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &in));
    const Tensor& index_t = ctx->input(1);
    OP_REQUIRES(ctx, index_t.NumElements() == 1,
                errors::InvalidArgument("index must be a scalar, got shape ",
                                        index_t.shape().DebugString()));
    const int64_t index = index_t.flat<int32_t>()(0);
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    const Tensor& item = ctx->input(2);
    OP_REQUIRES(ctx, in->element_shape.IsCompatibleWith(item.shape()),
                errors::InvalidArgument(
                    "Tried to set a tensor with incompatible shape at a list "
                    "index. Item element shape: ",
                    item.shape().DebugString(),
                    " list shape: ", in->element_shape.DebugString()));
    if (resize_if_index_out_of_bounds_) {
      OP_REQUIRES(
          ctx, index >= 0,
          errors::InvalidArgument("Trying to modify element ", index,
                                  " in a list with ", size, " elements."));
    } else {
      OP_REQUIRES(
          ctx, index >= 0 && index < size,
          errors::InvalidArgument("Trying to modify element ", index,
                                  " in a list with ", size, " elements."));
    }
    OP_REQUIRES_OK(ctx, ChangeInputList(ctx, [&](TensorList* list) {
                     if (index >= static_cast<int64_t>(list->tensors.size())) {
                       list->tensors.resize(index + 1, Tensor(DT_INVALID));
                     }
                     list->tensors[index] = item;
                   }));
  }

 private:
  bool resize_if_index_out_of_bounds_ = false;
};

// TensorListStack(input_handle, element_shape): the elements stacked along a
// new dim 0; uninitialized ones as zeros.
class TensorListStackOp : public ListOpBase {
 public:
  explicit TensorListStackOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_elements", &num_elements_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &list));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, num_elements_ == -1 || num_elements_ == size,
                errors::InvalidArgument(
                    "Operation expected a list with ", num_elements_,
                    " elements but got a list with ", size, " elements."));
    PartialTensorShape partial;
    OP_REQUIRES_OK(ctx, ElementShapeFromInput(*list, ctx->input(1), &partial));
    OP_REQUIRES(
        ctx, partial.IsFullyDefined() || size > 0,
        errors::InvalidArgument("Tried to stack elements of an empty list with "
                                "non-fully-defined element_shape: ",
                                partial.DebugString()));
    TensorShape element_shape;
    OP_REQUIRES_OK(ctx, ShapeForUninitialized(*list, partial, &element_shape));
    for (const Tensor& t : list->tensors) {
      OP_REQUIRES(ctx, t.dtype() == DT_INVALID || t.shape() == element_shape,
                  errors::InvalidArgument(
                      "Tried to stack list which contains an element of shape ",
                      t.shape().DebugString(), " with element_shape ",
                      element_shape.DebugString()));
    }
    TensorShape out_shape = element_shape;
    out_shape.InsertDim(0, size);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t row = element_shape.num_elements();
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      if (t.dtype() == DT_INVALID) {
        OP_REQUIRES_OK(ctx, list_ops::ZeroElements(out, i * row, row));
      } else {
        OP_REQUIRES_OK(ctx, CopyElements(t, out, i * row));
      }
    }
  }

 private:
  int64_t num_elements_ = -1;
};

// TensorListLength(input_handle).
class TensorListLengthOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32_t>()() = static_cast<int32_t>(list->tensors.size());
  }
};

// TensorListElementShape(input_handle): -1 for an unknown rank, else the
// dims with -1 for unknown ones.
class TensorListElementShapeOp : public ListOpBase {
 public:
  explicit TensorListElementShapeOp(OpKernelConstruction* ctx)
      : ListOpBase(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape_type", &shape_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &list));
    ctx->set_output(
        0, list_ops::PartialShapeToTensor(list->element_shape, shape_type_));
  }

 private:
  DataType shape_type_ = DT_INT32;
};

// TensorListPushBack(input_handle, tensor).
class TensorListPushBackOp : public ListOpBase {
 public:
  explicit TensorListPushBackOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &in));
    const Tensor& item = ctx->input(1);
    OP_REQUIRES(ctx, in->element_shape.IsCompatibleWith(item.shape()),
                errors::InvalidArgument(
                    "Tried to append a tensor with incompatible shape to a "
                    "list. Op element shape: ",
                    item.shape().DebugString(),
                    " list shape: ", in->element_shape.DebugString()));
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, in->max_num_elements == -1 || size < in->max_num_elements,
                errors::InvalidArgument(
                    "Tried to push item into a full list", " list size: ", size,
                    " max_num_elements: ", in->max_num_elements));
    OP_REQUIRES_OK(ctx, ChangeInputList(ctx, [&](TensorList* list) {
                     list->tensors.push_back(item);
                   }));
  }
};

// TensorListPopBack(input_handle, element_shape) -> (output_handle, tensor).
class TensorListPopBackOp : public ListOpBase {
 public:
  explicit TensorListPopBackOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &in));
    OP_REQUIRES(ctx, !in->tensors.empty(),
                errors::InvalidArgument("Trying to pop from an empty list."));
    Tensor item = in->tensors.back();
    if (item.dtype() == DT_INVALID) {
      PartialTensorShape partial;
      OP_REQUIRES_OK(ctx, ElementShapeFromInput(*in, ctx->input(1), &partial));
      TensorShape shape;
      OP_REQUIRES_OK(ctx, ShapeForUninitialized(*in, partial, &shape));
      OP_REQUIRES_OK(ctx, MakeZeros(ctx, element_dtype_, shape, &item));
    }
    OP_REQUIRES_OK(ctx, ChangeInputList(ctx, [](TensorList* list) {
                     list->tensors.pop_back();
                   }));
    ctx->set_output(1, item);
  }
};

REGISTER_KERNEL_BUILDER(Name("EmptyTensorList").Device(DEVICE_CPU),
                        EmptyTensorListOp);
REGISTER_KERNEL_BUILDER(Name("TensorListReserve").Device(DEVICE_CPU),
                        TensorListReserveOp);
REGISTER_KERNEL_BUILDER(Name("TensorListFromTensor").Device(DEVICE_CPU),
                        TensorListFromTensorOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGetItem").Device(DEVICE_CPU),
                        TensorListGetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSetItem").Device(DEVICE_CPU),
                        TensorListSetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListStack").Device(DEVICE_CPU),
                        TensorListStackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListLength").Device(DEVICE_CPU),
                        TensorListLengthOp);
REGISTER_KERNEL_BUILDER(Name("TensorListElementShape").Device(DEVICE_CPU),
                        TensorListElementShapeOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPushBack").Device(DEVICE_CPU),
                        TensorListPushBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPopBack").Device(DEVICE_CPU),
                        TensorListPopBackOp);

}  // namespace
}  // namespace tributary
