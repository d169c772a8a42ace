// CPU kernels of the TensorList ops that move many elements at once, as
// tf.TensorArray's gather/scatter/concat/split and resizing lower to them in
// TensorFlow 2: TensorListGather, TensorListScatter, TensorListScatterV2,
// TensorListScatterIntoExistingList, TensorListConcatV2, TensorListSplit,
// TensorListResize.
//
// Checks and messages follow TensorFlow's kernels, in their order. Where
// TensorFlow reads an element at an index it has not checked (a negative
// gather or scatter index), ours is InvalidArgument instead. A scatter past
// the end of an existing list leaves the gap uninitialized (zeros when read);
// TensorFlow fills it with empty float tensors, which its Stack then packs
// out of place. Elements that
// were reserved but never set read as zeros; scatter and split elements
// share the input tensor's buffer (lists are values, never written in place
// through an element).

#include <algorithm>
#include <cstdint>
#include <utility>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
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
using list_ops::PartialShapeFromTensor;
using list_ops::SetOutputList;
using list_ops::ZeroElements;

// `shape` without its first dim (unknown rank stays unknown).
absl::StatusOr<PartialTensorShape> WithoutFirstDim(
    const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return PartialTensorShape::UnknownRank();
  return PartialTensorShape::Build(shape.dim_sizes().subspan(1));
}

// Each listed element (index i at output row k) copied into `out`, whose
// rows have `row` elements; an uninitialized element gives zeros.
absl::Status FillRows(const TensorList& list, const int32_t* indices, int64_t n,
                      int64_t row, Tensor* out) {
  for (int64_t k = 0; k < n; ++k) {
    const Tensor& t = list.tensors[indices[k]];
    TRIB_RETURN_IF_ERROR(t.dtype() == DT_INVALID
                             ? ZeroElements(out, k * row, row)
                             : CopyElements(t, out, k * row));
  }
  return absl::OkStatus();
}

// Sets list->tensors[indices[k]] to row k of `value` (sharing its buffer).
void ScatterRows(const Tensor& value, const Tensor& indices, TensorList* list) {
  const int32_t* idx = indices.flat<int32_t>().data();
  for (int64_t k = 0; k < indices.NumElements(); ++k) {
    list->tensors[idx[k]] = value.SubSlice(k);
  }
}

// TensorListGather(input_handle, indices, element_shape): the elements at
// `indices`, stacked along a new dim 0.
class TensorListGatherOp : public ListOpBase {
 public:
  explicit TensorListGatherOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &list));
    const Tensor& indices = ctx->input(1);
    const int64_t n = indices.NumElements();
    PartialTensorShape partial;
    OP_REQUIRES_OK(ctx, ElementShapeFromInput(*list, ctx->input(2), &partial));
    OP_REQUIRES(
        ctx, partial.IsFullyDefined() || n > 0,
        errors::InvalidArgument("Tried to gather 0-elements from a list with "
                                "non-fully-defined shape: ",
                                partial.DebugString()));
    const int32_t* idx = indices.flat<int32_t>().data();
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    for (int64_t k = 0; k < n; ++k) {
      OP_REQUIRES(ctx, idx[k] >= 0 && idx[k] < size,
                  errors::InvalidArgument("Index ", idx[k],
                                          " out o range; list only has ", size,
                                          " elements."));
      const Tensor& t = list->tensors[idx[k]];
      if (t.dtype() == DT_INVALID) continue;
      absl::StatusOr<PartialTensorShape> merged =
          partial.MergeWith(PartialTensorShape(t.shape()));
      OP_REQUIRES_OK(ctx, merged.status());
      partial = *std::move(merged);
    }
    absl::StatusOr<TensorShape> element_shape = partial.AsTensorShape();
    OP_REQUIRES(ctx, element_shape.ok(),
                errors::InvalidArgument(
                    "Tried to gather uninitialized tensors from a list with "
                    "non-fully-defined element_shape: ",
                    partial.DebugString()));
    TensorShape out_shape = *element_shape;
    out_shape.InsertDim(0, n);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   FillRows(*list, idx, n, element_shape->num_elements(), out));
  }
};

// TensorListScatter(tensor, indices, element_shape) and TensorListScatterV2
// (..., num_elements): a new list whose element indices[k] is row k of
// tensor; the list is as long as the highest index + 1, or num_elements.
class TensorListScatterOp : public ListOpBase {
 public:
  explicit TensorListScatterOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    PartialTensorShape element_shape;
    OP_REQUIRES_OK(ctx, PartialShapeFromTensor(ctx->input(2), &element_shape));
    int64_t num_elements = -1;
    if (ctx->num_inputs() >= 4) {
      OP_REQUIRES(ctx, ctx->input(3).NumElements() == 1,
                  errors::InvalidArgument("num_elements must be a scalar"));
      num_elements = ctx->input(3).flat<int32_t>()(0);
    }
    OP_REQUIRES(ctx, num_elements >= -1,
                errors::InvalidArgument(
                    "TensorListScatter expects num_elements >= -1, found: ",
                    num_elements));
    OP_REQUIRES(ctx, value.dims() >= 1,
                errors::InvalidArgument(
                    "Tensor must be at least a vector, but saw shape: ",
                    value.shape().DebugString()));
    TensorShape row = value.shape();
    row.RemoveDim(0);
    OP_REQUIRES(ctx, element_shape.IsCompatibleWith(row),
                errors::InvalidArgument(
                    "Specified a list with shape ", element_shape.DebugString(),
                    " from a tensor with shape ", row.DebugString()));
    OP_REQUIRES(ctx, indices.NumElements() == value.dim_size(0),
                errors::InvalidArgument(
                    "Invalid number of rows in input tensor. Expected: ",
                    indices.NumElements(), " Actual: ", value.dim_size(0)));
    int64_t highest = -1;
    const int32_t* idx = indices.flat<int32_t>().data();
    for (int64_t k = 0; k < indices.NumElements(); ++k) {
      OP_REQUIRES(
          ctx, idx[k] >= 0,
          errors::InvalidArgument(
              "Indices in TensorListScatter must all be non-negative."));
      OP_REQUIRES(ctx, num_elements == -1 || idx[k] < num_elements,
                  errors::InvalidArgument(
                      "TensorListScatter: Trying to scatter at index ", idx[k],
                      " in list with size ", num_elements));
      highest = std::max<int64_t>(highest, idx[k]);
    }
    TensorList list;
    list.element_dtype = element_dtype_;
    list.element_shape = element_shape;
    list.tensors.resize(std::max(highest + 1, num_elements),
                        Tensor(DT_INVALID));
    ScatterRows(value, indices, &list);
    OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

// TensorListScatterIntoExistingList(input_handle, tensor, indices): the list
// with element indices[k] set to row k of tensor, grown to fit the highest
// index.
class TensorListScatterIntoExistingListOp : public ListOpBase {
 public:
  explicit TensorListScatterIntoExistingListOp(OpKernelConstruction* ctx)
      : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &in));
    const Tensor& value = ctx->input(1);
    const Tensor& indices = ctx->input(2);
    OP_REQUIRES(ctx, value.dtype() == in->element_dtype,
                errors::InvalidArgument(
                    "Invalid data types; input tensor type: ",
                    DataTypeString(value.dtype()),
                    " list element_type: ", DataTypeString(in->element_dtype)));
    OP_REQUIRES(ctx, value.dims() >= 1,
                errors::InvalidArgument(
                    "Tensor must be at least a vector, but saw shape: ",
                    value.shape().DebugString()));
    OP_REQUIRES(ctx, indices.dims() == 1,
                errors::InvalidArgument(
                    "Expected indices to be a vector, but received shape: ",
                    indices.shape().DebugString()));
    OP_REQUIRES(ctx, indices.NumElements() == value.dim_size(0),
                errors::InvalidArgument(
                    "Expected len(indices) == tensor.shape[0], but saw: ",
                    indices.NumElements(), " vs. ", value.dim_size(0)));
    const int32_t* idx = indices.flat<int32_t>().data();
    int64_t highest = -1;
    for (int64_t k = 0; k < indices.NumElements(); ++k) {
      OP_REQUIRES(
          ctx, idx[k] >= 0,
          errors::InvalidArgument(
              "Indices in TensorListScatter must all be non-negative."));
      highest = std::max<int64_t>(highest, idx[k]);
    }
    OP_REQUIRES_OK(
        ctx, ChangeInputList(ctx, [&](TensorList* list) {
          if (highest + 1 > static_cast<int64_t>(list->tensors.size())) {
            list->tensors.resize(highest + 1, Tensor(DT_INVALID));
          }
          ScatterRows(value, indices, list);
        }));
  }
};

// TensorListConcatV2(input_handle, element_shape, leading_dims): the
// elements concatenated along dim 0, and each one's length. An
// uninitialized element is zeros, as long as leading_dims says, or as the
// first dim every set element shares.
class TensorListConcatV2Op : public ListOpBase {
 public:
  explicit TensorListConcatV2Op(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, TypedInputList(ctx, &list));
    PartialTensorShape element_shape;
    OP_REQUIRES_OK(ctx,
                   ElementShapeFromInput(*list, ctx->input(1), &element_shape));
    OP_REQUIRES(ctx, element_shape.unknown_rank() || element_shape.dims() >= 1,
                errors::InvalidArgument(
                    "Concat requires elements to be at least vectors, found "
                    "scalars instead."));
    int64_t first_dim =
        element_shape.unknown_rank() ? -1 : element_shape.dim_size(0);
    absl::StatusOr<PartialTensorShape> rest_or = WithoutFirstDim(element_shape);
    OP_REQUIRES_OK(ctx, rest_or.status());
    PartialTensorShape rest = *std::move(rest_or);
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, size > 0 || rest.IsFullyDefined(),
                errors::InvalidArgument(
                    "All except the first dimension must be fully defined when "
                    "concating an empty tensor list. element_shape: ",
                    rest.DebugString()));
    // The set elements: at least vectors, the same dims after the first,
    // a first dim that matches a known one; with none known, the first dim
    // they all share (if they do) sizes the uninitialized ones.
    const bool infer_first = first_dim == -1;
    bool shared = true;
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      if (t.dtype() == DT_INVALID) continue;
      OP_REQUIRES(
          ctx, t.dims() >= 1,
          errors::InvalidArgument("Concat saw a scalar shape at index ", i,
                                  " but requires at least vectors."));
      TensorShape t_rest = t.shape();
      t_rest.RemoveDim(0);
      absl::StatusOr<PartialTensorShape> merged =
          rest.MergeWith(PartialTensorShape(t_rest));
      OP_REQUIRES_OK(ctx, merged.status());
      rest = *std::move(merged);
      if (!infer_first) {
        OP_REQUIRES(
            ctx, first_dim == t.dim_size(0),
            errors::InvalidArgument(
                "First entry of element_shape input does not match the "
                "first dim of list element at index: ",
                i, " Expected: ", first_dim, " Actual: ", t.dim_size(0)));
      } else if (shared) {
        if (first_dim == -1) {
          first_dim = t.dim_size(0);
        } else if (first_dim != t.dim_size(0)) {
          first_dim = -1;
          shared = false;
        }
      }
    }
    absl::StatusOr<TensorShape> rest_shape = rest.AsTensorShape();
    OP_REQUIRES(ctx, rest_shape.ok(),
                errors::InvalidArgument(
                    "Trying to concat list with only uninitialized tensors but "
                    "element_shape_except_first_dim_ is not fully defined: ",
                    rest.DebugString()));
    const Tensor& leading_dims = ctx->input(2);
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({size}), &lengths));
    int64_t* length = lengths->flat<int64_t>().data();
    int64_t total = 0;
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      if (t.dtype() != DT_INVALID) {
        length[i] = t.dim_size(0);
      } else if (i >= leading_dims.NumElements() && first_dim != -1) {
        length[i] = first_dim;
      } else {
        OP_REQUIRES(ctx, i < leading_dims.NumElements(),
                    errors::InvalidArgument(
                        "List contains uninitialized tensor at index ", i,
                        " but leading_dims has only ",
                        leading_dims.NumElements(), " elements."));
        length[i] = leading_dims.flat<int64_t>()(i);
        OP_REQUIRES(ctx, length[i] >= 0,
                    errors::InvalidArgument("Invalid value in leading_dims: ",
                                            length[i]));
      }
      total += length[i];
    }
    TensorShape out_shape = *rest_shape;
    out_shape.InsertDim(0, total);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t row = rest_shape->num_elements();
    int64_t offset = 0;
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      const int64_t count = length[i] * row;
      OP_REQUIRES_OK(ctx, t.dtype() == DT_INVALID
                              ? ZeroElements(out, offset, count)
                              : CopyElements(t, out, offset));
      offset += count;
    }
  }
};

// TensorListSplit(tensor, element_shape, lengths): a list of the pieces of
// tensor along dim 0, piece i lengths[i] rows long; the lengths must use
// every row.
class TensorListSplitOp : public ListOpBase {
 public:
  explicit TensorListSplitOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    ReadElementDtype(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    PartialTensorShape element_shape;
    OP_REQUIRES_OK(ctx, PartialShapeFromTensor(ctx->input(1), &element_shape));
    OP_REQUIRES(ctx, element_shape.unknown_rank() || element_shape.dims() >= 1,
                errors::InvalidArgument(
                    "TensorListSplit requires element_shape to be at least of "
                    "rank 1, but saw: ",
                    element_shape.DebugString()));
    OP_REQUIRES(ctx, value.dims() >= 1,
                errors::InvalidArgument(
                    "Tensor must be at least a vector, but saw shape: ",
                    value.shape().DebugString()));
    TensorShape value_rest = value.shape();
    value_rest.RemoveDim(0);
    absl::StatusOr<PartialTensorShape> shape_rest =
        WithoutFirstDim(element_shape);
    OP_REQUIRES_OK(ctx, shape_rest.status());
    OP_REQUIRES(
        ctx, shape_rest->IsCompatibleWith(value_rest),
        errors::InvalidArgument("tensor shape ", value.shape().DebugString(),
                                " is not compatible with element_shape ",
                                element_shape.DebugString()));
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, lengths.dims() == 1,
                errors::InvalidArgument(
                    "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    TensorList list;
    list.element_dtype = element_dtype_;
    list.element_shape = element_shape;
    list.tensors.reserve(lengths.NumElements());
    const int64_t rows = value.dim_size(0);
    int64_t start = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t length = lengths.flat<int64_t>()(i);
      OP_REQUIRES(
          ctx, length >= 0,
          errors::InvalidArgument("Invalid value in lengths: ", length));
      OP_REQUIRES(ctx, length <= rows - start,
                  errors::InvalidArgument("Attempting to slice [", start, ", ",
                                          start + length,
                                          "] from tensor with length ", rows));
      list.tensors.push_back(value.Slice(start, start + length));
      start += length;
    }
    OP_REQUIRES(ctx, start == rows,
                errors::InvalidArgument(
                    "Unused values in tensor. Length of tensor: ", rows,
                    " Values used: ", start));
    OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

// TensorListResize(input_handle, size): the list cut to `size` elements, or
// grown with uninitialized ones.
class TensorListResizeOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetInputList(ctx, 0, &in));
    OP_REQUIRES(ctx, ctx->input(1).NumElements() == 1,
                errors::InvalidArgument("size must be a scalar"));
    const int64_t size = ctx->input(1).flat<int32_t>()(0);
    OP_REQUIRES(
        ctx, size >= 0,
        errors::InvalidArgument(
            "TensorListSlice expects size to be non-negative. Got: ", size));
    OP_REQUIRES_OK(ctx, ChangeInputList(ctx, [size](TensorList* list) {
                     list->tensors.resize(size, Tensor(DT_INVALID));
                   }));
  }
};

REGISTER_KERNEL_BUILDER(Name("TensorListGather").Device(DEVICE_CPU),
                        TensorListGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorListScatter").Device(DEVICE_CPU),
                        TensorListScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorListScatterV2").Device(DEVICE_CPU),
                        TensorListScatterOp);
REGISTER_KERNEL_BUILDER(
    Name("TensorListScatterIntoExistingList").Device(DEVICE_CPU),
    TensorListScatterIntoExistingListOp);
REGISTER_KERNEL_BUILDER(Name("TensorListConcatV2").Device(DEVICE_CPU),
                        TensorListConcatV2Op);
REGISTER_KERNEL_BUILDER(Name("TensorListSplit").Device(DEVICE_CPU),
                        TensorListSplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorListResize").Device(DEVICE_CPU),
                        TensorListResizeOp);

}  // namespace
}  // namespace tributary
