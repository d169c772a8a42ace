// Tensor: a dtype, a TensorShape and a refcounted, 64-byte-aligned buffer.
// Copying a Tensor is cheap and shares the buffer (like TensorFlow); use
// DeepCopy (tensor_util.h) for an independent copy.
//
// DT_STRING tensors hold std::string elements: they are constructed when the
// buffer is allocated and destroyed with it.
//
// Typed views (flat<T>(), matrix<T>(), ...) CHECK that T matches dtype() and
// that the rank fits: kernels validate dtypes and shapes first and return a
// Status, so a mismatch here is a bug, not bad input.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_TENSOR_H_
#define TRIBUTARY_COMMON_FRAMEWORK_TENSOR_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/framework/allocator.h"
#include "common/framework/logging.h"
#include "common/framework/tensor_buffer.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/tensor_types.h"
#include "common/framework/types.h"
#include "protos/tensor.pb.h"

namespace tributary {

class Tensor {
 public:
  // An empty float tensor: shape [0], no buffer, IsInitialized() (TensorFlow's
  // default).
  Tensor();
  // An empty tensor of `dtype` (shape [0]).
  explicit Tensor(DataType dtype);
  // Allocates from cpu_allocator().
  Tensor(DataType dtype, const TensorShape& shape);
  // Allocates from `allocator`; when the allocation fails the tensor is left
  // uninitialized (IsInitialized() == false) so callers can report
  // ResourceExhausted. CHECK-fails for a dtype Tensor cannot hold.
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);
  // Wraps an existing buffer (takes one reference; the caller keeps its own).
  // CHECKs the buffer is large enough for shape and dtype.
  Tensor(DataType dtype, const TensorShape& shape, TensorBuffer* buffer);

  // Scalar tensors of the matching dtype.
  explicit Tensor(float value);
  explicit Tensor(double value);
  explicit Tensor(int32_t value);
  explicit Tensor(int64_t value);
  explicit Tensor(bool value);
  explicit Tensor(const std::string& value);
  explicit Tensor(const char* value);

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }

  // Bytes of element data; for DT_STRING the string bytes plus
  // sizeof(std::string) per element (TensorFlow's estimate).
  size_t TotalBytes() const;
  // Whether the tensor has memory for its elements (always true with zero
  // elements).
  bool IsInitialized() const;
  // Whether data() is kAllocatorAlignment-aligned (false for some slices).
  bool IsAligned() const;
  // Raw element memory; nullptr when not initialized or empty.
  void* data() const { return buf_ == nullptr ? nullptr : buf_->data(); }
  // The raw bytes of the elements (for DT_STRING, of the std::string objects,
  // which is useless for anything but identity).
  absl::string_view tensor_data() const;

  // Same root allocation (slices share with their parent).
  bool SharesBufferWith(const Tensor& other) const;
  // True when this tensor holds the only reference to its (owned) memory, so
  // a kernel may reuse it in place.
  bool RefCountIsOne() const;
  // Makes this tensor share `other`'s buffer with a new shape. Returns false
  // (and changes nothing) when the element counts differ.
  bool CopyFrom(const Tensor& other, const TensorShape& shape);

  // Rows [start, limit) of dim 0, sharing this tensor's buffer (no copy).
  // CHECKs dims() >= 1 and 0 <= start <= limit <= dim_size(0). The result's
  // data may not be 64-byte aligned (see tensor_types.h for why that is fine).
  Tensor Slice(int64_t start, int64_t limit) const;
  // Row `index` of dim 0 with that dim removed (shares the buffer).
  Tensor SubSlice(int64_t index) const;

  // --- Eigen views. `T` must match dtype(). ---
  template <typename T>
  typename TTypes<T>::Flat flat();
  template <typename T>
  typename TTypes<T>::ConstFlat flat() const;
  template <typename T>
  typename TTypes<T>::Vec vec();  // CHECKs dims() == 1
  template <typename T>
  typename TTypes<T>::ConstVec vec() const;
  template <typename T>
  typename TTypes<T>::Matrix matrix();  // CHECKs dims() == 2
  template <typename T>
  typename TTypes<T>::ConstMatrix matrix() const;
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor();  // CHECKs dims() == NDIMS
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor tensor() const;
  template <typename T>
  typename TTypes<T>::Scalar scalar();  // CHECKs NumElements() == 1
  template <typename T>
  typename TTypes<T>::ConstScalar scalar() const;
  // The elements viewed with another shape of the same element count.
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor shaped(absl::Span<const int64_t> new_sizes);
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor shaped(
      absl::Span<const int64_t> new_sizes) const;
  // Collapses the leading dims into the first of NDIMS ([2,3,4] -> [6,4]).
  template <typename T, int NDIMS = 2>
  typename TTypes<T, NDIMS>::Tensor flat_inner_dims();
  template <typename T, int NDIMS = 2>
  typename TTypes<T, NDIMS>::ConstTensor flat_inner_dims() const;
  // Collapses the trailing dims into the last of NDIMS ([2,3,4] -> [2,12]).
  template <typename T, int NDIMS = 2>
  typename TTypes<T, NDIMS>::Tensor flat_outer_dims();
  template <typename T, int NDIMS = 2>
  typename TTypes<T, NDIMS>::ConstTensor flat_outer_dims() const;
  // TensorFlow spellings for ported code; every view is unaligned already.
  template <typename T>
  typename TTypes<T>::UnalignedFlat unaligned_flat() {
    return flat<T>();
  }
  template <typename T>
  typename TTypes<T>::UnalignedConstFlat unaligned_flat() const {
    return flat<T>();
  }
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::UnalignedTensor unaligned_shaped(
      absl::Span<const int64_t> new_sizes) {
    return shaped<T, NDIMS>(new_sizes);
  }

  // --- TensorProto conversion. ---
  // InvalidArgument for an unsupported or ref dtype, an invalid or partially
  // known shape, tensor_content whose size is not NumElements * element size,
  // or more typed values than elements. Fewer typed values than elements
  // repeat the last value; none at all gives zeros (TensorFlow's rule, which
  // lets a Const of a big filled tensor carry one value). ResourceExhausted
  // when `allocator` fails, and, with `max_expanded_bytes` > 0, before
  // allocating when fewer values than elements would fill a tensor of more
  // than that many bytes (a 20-byte proto may describe a terabyte; tensors
  // from the network are bounded so, common/rpc/tensor_coding.h).
  static absl::StatusOr<Tensor> FromProto(const tensorflow::TensorProto& proto,
                                          Allocator* allocator = cpu_allocator(),
                                          int64_t max_expanded_bytes = 0);
  // dtype, shape and the elements as raw bytes in tensor_content (for
  // DT_STRING: TensorFlow's varint-length string list encoding).
  void AsProtoTensorContent(tensorflow::TensorProto* proto) const;
  // dtype, shape and the elements in the typed repeated field for the dtype
  // (float_val, int_val, ...).
  void AsProtoField(tensorflow::TensorProto* proto) const;

  // "Tensor<type: float shape: [2,2] values: [1 2][3 4]>", at most
  // `num_values` elements.
  std::string DebugString(int num_values = 3) const;
  // The first `max_entries` values ("[1 2][3 4]", "...") for messages.
  std::string SummarizeValue(int64_t max_entries) const;

 private:
  // CHECK-fails when T's dtype differs from dtype().
  void CheckType(DataType expected) const;
  // Element pointer for views; nullptr for an empty tensor.
  template <typename T>
  T* base() const {
    return buf_ == nullptr ? nullptr : buf_->base<T>();
  }
  // Dims for flat_inner_dims / flat_outer_dims.
  template <int NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> ComputeFlatInnerDims() const;
  template <int NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> ComputeFlatOuterDims() const;

  DataType dtype_ = DT_FLOAT;
  TensorShape shape_;
  TensorBuffer* buf_ = nullptr;  // owns one reference when not null
};

// ---------------------------------------------------------------------------
// Template implementations.

template <typename T>
typename TTypes<T>::Flat Tensor::flat() {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T>::Flat(base<T>(), NumElements());
}
template <typename T>
typename TTypes<T>::ConstFlat Tensor::flat() const {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T>::ConstFlat(base<const T>(), NumElements());
}

template <typename T>
typename TTypes<T>::Vec Tensor::vec() {
  return tensor<T, 1>();
}
template <typename T>
typename TTypes<T>::ConstVec Tensor::vec() const {
  return tensor<T, 1>();
}

template <typename T>
typename TTypes<T>::Matrix Tensor::matrix() {
  return tensor<T, 2>();
}
template <typename T>
typename TTypes<T>::ConstMatrix Tensor::matrix() const {
  return tensor<T, 2>();
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() {
  CheckType(DataTypeToEnum<T>::v());
  CHECK_EQ(dims(), NDIMS) << "tensor of shape " << shape_.DebugString();
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           shape_.AsEigenDSizes<NDIMS>());
}
template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::tensor() const {
  CheckType(DataTypeToEnum<T>::v());
  CHECK_EQ(dims(), NDIMS) << "tensor of shape " << shape_.DebugString();
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                shape_.AsEigenDSizes<NDIMS>());
}

template <typename T>
typename TTypes<T>::Scalar Tensor::scalar() {
  CheckType(DataTypeToEnum<T>::v());
  CHECK_EQ(NumElements(), 1) << "not a scalar: shape " << shape_.DebugString();
  return typename TTypes<T>::Scalar(base<T>());
}
template <typename T>
typename TTypes<T>::ConstScalar Tensor::scalar() const {
  CheckType(DataTypeToEnum<T>::v());
  CHECK_EQ(NumElements(), 1) << "not a scalar: shape " << shape_.DebugString();
  return typename TTypes<T>::ConstScalar(base<const T>());
}

namespace tensor_internal {
// Validates `new_sizes` against `num_elements` (CHECK) and returns them as
// Eigen dims.
template <int NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> ShapedDims(
    absl::Span<const int64_t> new_sizes, int64_t num_elements) {
  CHECK_EQ(static_cast<int>(new_sizes.size()), NDIMS);
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> dims;
  int64_t product = 1;
  for (int d = 0; d < NDIMS; ++d) {
    CHECK_GE(new_sizes[d], 0);
    product *= new_sizes[d];
    dims[d] = new_sizes[d];
  }
  CHECK_EQ(product, num_elements) << "shaped() must keep the element count";
  return dims;
}
}  // namespace tensor_internal

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::shaped(
    absl::Span<const int64_t> new_sizes) {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T, NDIMS>::Tensor(
      base<T>(), tensor_internal::ShapedDims<NDIMS>(new_sizes, NumElements()));
}
template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::shaped(
    absl::Span<const int64_t> new_sizes) const {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T, NDIMS>::ConstTensor(
      base<const T>(),
      tensor_internal::ShapedDims<NDIMS>(new_sizes, NumElements()));
}

template <int NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> Tensor::ComputeFlatInnerDims() const {
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> out;
  const int rank = dims();
  // Trailing NDIMS-1 dims are kept (padded with 1s in front when rank is
  // smaller); everything before them collapses into out[0].
  int64_t first = 1;
  for (int d = 0; d < rank - (NDIMS - 1); ++d) first *= dim_size(d);
  out[0] = first;
  for (int i = 1; i < NDIMS; ++i) {
    const int d = rank - NDIMS + i;
    out[i] = d >= 0 ? dim_size(d) : 1;
  }
  return out;
}

template <int NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> Tensor::ComputeFlatOuterDims() const {
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> out;
  const int rank = dims();
  // Leading NDIMS-1 dims are kept (padded with trailing 1s); the rest
  // collapses into out[NDIMS-1].
  for (int i = 0; i < NDIMS - 1; ++i) out[i] = i < rank ? dim_size(i) : 1;
  int64_t last = 1;
  for (int d = NDIMS - 1; d < rank; ++d) last *= dim_size(d);
  out[NDIMS - 1] = last;
  return out;
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_inner_dims() {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           ComputeFlatInnerDims<NDIMS>());
}
template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_inner_dims() const {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                ComputeFlatInnerDims<NDIMS>());
}
template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_outer_dims() {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           ComputeFlatOuterDims<NDIMS>());
}
template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_outer_dims() const {
  CheckType(DataTypeToEnum<T>::v());
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                ComputeFlatOuterDims<NDIMS>());
}

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_TENSOR_H_
