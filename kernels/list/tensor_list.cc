#include "kernels/list/tensor_list.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel_context.h"

namespace tributary {

std::string TensorList::DebugString() const {
  return absl::StrCat("TensorList<dtype: ", DataTypeString(element_dtype),
                      " element_shape: ", element_shape.DebugString(),
                      " size: ", tensors.size(), ">");
}

namespace list_ops {

absl::Status GetInputList(OpKernelContext* ctx, int index,
                          const TensorList** list) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_VARIANT || t.NumElements() != 1 || t.dims() != 0) {
    return errors::InvalidArgument("Input handle is not a list. Saw: '",
                                   t.DebugString(), "'");
  }
  const TensorList* l = t.scalar<Variant>()().get<TensorList>();
  if (l == nullptr) {
    return errors::InvalidArgument("Input handle is not a list. Saw: '",
                                   t.scalar<Variant>()().DebugString(), "'");
  }
  *list = l;
  return absl::OkStatus();
}

absl::Status PartialShapeFromTensor(const Tensor& t,
                                    PartialTensorShape* shape) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return errors::InvalidArgument("element_shape must be int32 or int64, got ",
                                   DataTypeString(t.dtype()));
  }
  auto value = [&t](int64_t i) -> int64_t {
    return t.dtype() == DT_INT32 ? t.flat<int32_t>()(i) : t.flat<int64_t>()(i);
  };
  if (t.dims() == 0) {
    if (value(0) != -1) {
      return errors::InvalidArgument(
          "The only valid scalar shape tensor is the fully unknown shape "
          "specified as -1.");
    }
    *shape = PartialTensorShape::UnknownRank();
    return absl::OkStatus();
  }
  if (t.dims() != 1) {
    return errors::InvalidArgument(
        "element_shape must be a scalar or a "
        "vector, got shape ",
        t.shape().DebugString());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t.NumElements(); ++i) dims.push_back(value(i));
  absl::StatusOr<PartialTensorShape> built = PartialTensorShape::Build(dims);
  if (!built.ok()) return built.status();
  *shape = *std::move(built);
  return absl::OkStatus();
}

Tensor PartialShapeToTensor(const PartialTensorShape& shape, DataType dtype) {
  if (shape.unknown_rank()) {
    Tensor t(dtype, TensorShape({}));
    if (dtype == DT_INT32) {
      t.scalar<int32_t>()() = -1;
    } else {
      t.scalar<int64_t>()() = -1;
    }
    return t;
  }
  Tensor t(dtype, TensorShape({shape.dims()}));
  for (int d = 0; d < shape.dims(); ++d) {
    if (dtype == DT_INT32) {
      t.vec<int32_t>()(d) = static_cast<int32_t>(shape.dim_size(d));
    } else {
      t.vec<int64_t>()(d) = shape.dim_size(d);
    }
  }
  return t;
}

absl::Status SetOutputList(OpKernelContext* ctx, int index, TensorList list) {
  Tensor* out = nullptr;
  TRIB_RETURN_IF_ERROR(ctx->allocate_output(index, TensorShape({}), &out));
  out->scalar<Variant>()() = std::move(list);
  return absl::OkStatus();
}

absl::Status CheckElementDtype(DataType op_dtype, const TensorList& list) {
  if (op_dtype != list.element_dtype) {
    return errors::InvalidArgument(
        "Invalid data types; op elements ", DataTypeString(op_dtype),
        " but list elements ", DataTypeString(list.element_dtype));
  }
  return absl::OkStatus();
}

absl::Status MakeZeros(OpKernelContext* ctx, DataType dtype,
                       const TensorShape& shape, Tensor* out) {
  TRIB_RETURN_IF_ERROR(ctx->allocate_temp(dtype, shape, out));
  // Strings are constructed empty; every other element type TensorFlow
  // lists hold is zero as all-zero bytes (bool, half, complex, ...).
  if (DataTypeCanUseMemcpy(dtype) && out->NumElements() > 0) {
    std::memset(out->data(), 0, out->tensor_data().size());
  }
  return absl::OkStatus();
}

}  // namespace list_ops
}  // namespace tributary
