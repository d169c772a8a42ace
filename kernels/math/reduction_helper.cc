#include "kernels/math/reduction_helper.h"

#include <cstring>

#include "common/framework/status.h"
#include "common/framework/types.h"

namespace tributary {
namespace {

std::vector<int64_t> AxisValues(const Tensor& axes) {
  std::vector<int64_t> values;
  if (axes.dtype() == DT_INT32) {
    auto flat = axes.flat<int32_t>();
    values.assign(flat.data(), flat.data() + flat.size());
  } else {
    auto flat = axes.flat<int64_t>();
    values.assign(flat.data(), flat.data() + flat.size());
  }
  return values;
}

// A 16-byte element (complex128), moved as a whole.
struct Bytes16 {
  uint64_t lo, hi;
};

// Copies elements of `elem_size` bytes from `in` (dims `dims`) to `out`
// with the dimensions permuted to `perm` (out dim i = in dim perm[i]).
template <typename Word>
void Permute(const Word* in, Word* out, const std::vector<int64_t>& dims,
             const std::vector<int>& perm) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> in_strides(rank);
  int64_t stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    in_strides[k] = stride;
    stride *= dims[k];
  }
  const int64_t total = stride;
  std::vector<int64_t> out_dims(rank), out_in_strides(rank);
  for (int i = 0; i < rank; ++i) {
    out_dims[i] = dims[perm[i]];
    out_in_strides[i] = in_strides[perm[i]];
  }
  std::vector<int64_t> coord(rank, 0);
  int64_t in_offset = 0;
  for (int64_t o = 0; o < total; ++o) {
    out[o] = in[in_offset];
    for (int k = rank - 1; k >= 0; --k) {
      in_offset += out_in_strides[k];
      if (++coord[k] < out_dims[k]) break;
      in_offset -= out_in_strides[k] * coord[k];
      coord[k] = 0;
    }
  }
}

}  // namespace

absl::Status ReductionHelper::Simplify(const Tensor& data, const Tensor& axes,
                                       bool keep_dims) {
  const int rank = data.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t index : AxisValues(axes)) {
    if (index < -rank || index >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension (", index,
                                     " for input with ", rank, " dimension(s)");
    }
    const int64_t axis = index < 0 ? index + rank : index;
    if (reduced[axis]) {
      return errors::InvalidArgument(
          "Invalid reduction arguments: Axes contains duplicate dimension: ",
          axis);
    }
    reduced[axis] = true;
  }

  out_shape_ = TensorShape();
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out_shape_.AddDim(data.dim_size(i));
    } else if (keep_dims) {
      out_shape_.AddDim(1);
    }
  }

  // Collapse: skip leading 1s, then merge each dimension into the previous
  // one when both are reduced or both kept (a size-1 dimension takes its
  // predecessor's side, so it never splits a run).
  data_reshape_.clear();
  out_reshape_.clear();
  int i = 0;
  while (i < rank && data.dim_size(i) == 1) ++i;
  if (i == rank) {
    reduce_first_axis_ = true;  // Nothing left to reduce: identity.
    return absl::OkStatus();
  }
  reduce_first_axis_ = reduced[i];
  data_reshape_.push_back(data.dim_size(i));
  bool prev = reduced[i];
  for (++i; i < rank; ++i) {
    const int64_t size = data.dim_size(i);
    const bool cur = size == 1 ? prev : reduced[i];
    if (cur != prev) {
      data_reshape_.push_back(size);
    } else {
      data_reshape_.back() *= size;
    }
    prev = cur;
  }
  for (size_t k = reduce_first_axis_ ? 1 : 0; k < data_reshape_.size();
       k += 2) {
    out_reshape_.push_back(data_reshape_[k]);
  }
  return absl::OkStatus();
}

void ReductionHelper::TransposeReducedLast(const Tensor& data,
                                           Tensor* out) const {
  std::vector<int> perm;
  const int n = ndims();
  const int first_kept = reduce_first_axis_ ? 1 : 0;
  for (int k = first_kept; k < n; k += 2) perm.push_back(k);
  for (int k = 1 - first_kept; k < n; k += 2) perm.push_back(k);
  const size_t elem = DataTypeSize(data.dtype());
  const void* in = data.data();
  void* o = out->data();
  switch (elem) {
    case 1:
      Permute(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(o),
              data_reshape_, perm);
      break;
    case 2:  // half, bfloat16
      Permute(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(o),
              data_reshape_, perm);
      break;
    case 4:
      Permute(static_cast<const uint32_t*>(in), static_cast<uint32_t*>(o),
              data_reshape_, perm);
      break;
    case 16:  // complex128
      Permute(static_cast<const Bytes16*>(in), static_cast<Bytes16*>(o),
              data_reshape_, perm);
      break;
    default:  // 8: double, int64, complex64
      Permute(static_cast<const uint64_t*>(in), static_cast<uint64_t*>(o),
              data_reshape_, perm);
      break;
  }
}

absl::StatusOr<ArgReductionShape> ArgReduction(const Tensor& input,
                                               const Tensor& dimension) {
  if (dimension.dims() != 0) {
    return errors::InvalidArgument(
        "dim must be a scalar, but received tensor of shape: ",
        dimension.shape().DebugString());
  }
  const int64_t dim = dimension.dtype() == DT_INT32
                          ? dimension.scalar<int32_t>()()
                          : dimension.scalar<int64_t>()();
  const int rank = input.dims();
  const int64_t axis = dim < 0 ? dim + rank : dim;
  if (axis < 0 || axis >= rank) {
    return errors::InvalidArgument("Expected dimension in the range [", -rank,
                                   ", ", rank, "), but got ", dim);
  }
  if (input.dim_size(axis) <= 0) {
    return errors::InvalidArgument("Reduction axis ", dim,
                                   " is empty in shape ",
                                   input.shape().DebugString());
  }
  ArgReductionShape shape;
  shape.axis = static_cast<int>(axis);
  for (int i = 0; i < rank; ++i) {
    if (i == axis) continue;
    shape.out_shape.AddDim(input.dim_size(i));
    (i < axis ? shape.outer : shape.inner) *= input.dim_size(i);
  }
  return shape;
}

}  // namespace tributary
