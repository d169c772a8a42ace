#include "kernels/list/tensor_list.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/kernel/memory_types.h"
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

absl::Status CopyElements(const Tensor& src, Tensor* dst, int64_t dst_offset) {
  const int64_t n = src.NumElements();
  if (n == 0) return absl::OkStatus();
  if (DataTypeCanUseMemcpy(src.dtype())) {
    const size_t size = DataTypeSize(src.dtype());
    std::memcpy(static_cast<char*>(dst->data()) + dst_offset * size, src.data(),
                n * size);
  } else if (src.dtype() == DT_STRING) {
    const std::string* from = static_cast<const std::string*>(src.data());
    std::string* to = static_cast<std::string*>(dst->data()) + dst_offset;
    for (int64_t i = 0; i < n; ++i) to[i] = from[i];
  } else if (src.dtype() == DT_VARIANT) {
    const Variant* from = static_cast<const Variant*>(src.data());
    Variant* to = static_cast<Variant*>(dst->data()) + dst_offset;
    for (int64_t i = 0; i < n; ++i) to[i] = from[i];
  } else {
    return errors::Unimplemented("TensorList elements of ",
                                 DataTypeString(src.dtype()),
                                 " cannot be copied");
  }
  return absl::OkStatus();
}

absl::Status ZeroElements(Tensor* dst, int64_t offset, int64_t count) {
  if (count == 0) return absl::OkStatus();
  if (DataTypeCanUseMemcpy(dst->dtype())) {
    const size_t size = DataTypeSize(dst->dtype());
    std::memset(static_cast<char*>(dst->data()) + offset * size, 0,
                count * size);
  } else if (dst->dtype() == DT_STRING) {
    std::string* to = static_cast<std::string*>(dst->data()) + offset;
    for (int64_t i = 0; i < count; ++i) to[i].clear();
  } else if (dst->dtype() == DT_VARIANT) {
    Variant* to = static_cast<Variant*>(dst->data()) + offset;
    for (int64_t i = 0; i < count; ++i) to[i] = Variant();
  } else {
    return errors::Unimplemented("TensorList elements of ",
                                 DataTypeString(dst->dtype()),
                                 " cannot be zeroed");
  }
  return absl::OkStatus();
}

absl::Status MutableInputList(OpKernelContext* ctx, TensorList* copy,
                              TensorList** list, Tensor* holder) {
  const TensorList* in = nullptr;
  TRIB_RETURN_IF_ERROR(GetInputList(ctx, 0, &in));
  std::unique_ptr<Tensor> forwarded = ctx->forward_input(
      0, 0, DT_VARIANT, TensorShape({}), HOST_MEMORY, AllocatorAttributes());
  if (forwarded != nullptr) {
    TensorList* own = forwarded->scalar<Variant>()().get<TensorList>();
    if (own != nullptr) {
      *holder = *forwarded;
      *list = own;
      return absl::OkStatus();
    }
  }
  *copy = *in;
  *list = copy;
  return absl::OkStatus();
}

absl::Status OutputMutatedList(OpKernelContext* ctx, TensorList* copy,
                               TensorList* list, const Tensor& holder) {
  if (list != copy) {
    ctx->set_output(0, holder);
    return absl::OkStatus();
  }
  return SetOutputList(ctx, 0, std::move(*copy));
}

absl::Status ElementShapeFromInput(const TensorList& list,
                                   const Tensor& shape_input,
                                   PartialTensorShape* shape) {
  PartialTensorShape requested;
  TRIB_RETURN_IF_ERROR(PartialShapeFromTensor(shape_input, &requested));
  absl::StatusOr<PartialTensorShape> merged =
      list.element_shape.MergeWith(requested);
  if (!merged.ok()) return merged.status();
  *shape = *std::move(merged);
  return absl::OkStatus();
}

absl::Status ShapeForUninitialized(const TensorList& list,
                                   PartialTensorShape shape, TensorShape* out) {
  if (!shape.IsFullyDefined()) {
    for (const Tensor& t : list.tensors) {
      if (t.dtype() == DT_INVALID) continue;
      absl::StatusOr<PartialTensorShape> merged =
          shape.MergeWith(PartialTensorShape(t.shape()));
      if (!merged.ok()) return merged.status();
      shape = *std::move(merged);
    }
  }
  absl::StatusOr<TensorShape> full = shape.AsTensorShape();
  if (!full.ok()) {
    return errors::InvalidArgument(
        "Trying to read an uninitialized tensor but element_shape is not "
        "fully defined: ",
        shape.DebugString(), " and no list element is set.");
  }
  *out = *full;
  return absl::OkStatus();
}

}  // namespace list_ops
}  // namespace tributary
