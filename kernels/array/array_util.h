// Helpers shared by the array kernels: the dtype lists they register for,
// reading index-typed inputs (shapes, axes, permutations), TensorFlow's
// "legacy scalar/vector" rules, and a visitor that maps a dtype to the plain
// C++ type its elements can be moved as.
//
// Why move elements as unsigned integers of the same width: the array
// kernels (concat, slice, transpose, tile, gather, ...) never look at values,
// they only move them. Instantiating each kernel once per element *width*
// instead of once per dtype gives every dtype TensorFlow supports with six
// instantiations, which keeps compile time down (CI has two cores), and bit
// copies preserve every value exactly (NaN payloads, -0.0).
#ifndef TRIBUTARY_KERNELS_ARRAY_ARRAY_UTIL_H_
#define TRIBUTARY_KERNELS_ARRAY_ARRAY_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"

namespace tributary {

class OpKernelContext;

namespace array_ops {

// Every dtype the data-movement kernels serve (TensorFlow's TF_CALL_ALL_TYPES
// on CPU, less the quantized types nobody feeds them here).
inline constexpr DataType kAllTypes[] = {
    DT_FLOAT, DT_DOUBLE,   DT_INT32,     DT_INT64,     DT_BOOL,   DT_STRING,
    DT_INT8,  DT_INT16,    DT_UINT8,     DT_UINT16,    DT_UINT32, DT_UINT64,
    DT_HALF,  DT_BFLOAT16, DT_COMPLEX64, DT_COMPLEX128};

// The numbers and bool (TF_CALL_POD_TYPES): kAllTypes without string.
inline constexpr DataType kPodTypes[] = {
    DT_FLOAT,  DT_DOUBLE, DT_INT32,    DT_INT64,     DT_BOOL,
    DT_INT8,   DT_INT16,  DT_UINT8,    DT_UINT16,    DT_UINT32,
    DT_UINT64, DT_HALF,   DT_BFLOAT16, DT_COMPLEX64, DT_COMPLEX128};

// Index dtypes of shape/axis arguments.
inline constexpr DataType kIndexTypes[] = {DT_INT32, DT_INT64};

// ---- Element movement ------------------------------------------------------

// 16 bytes moved as one unit (complex128).
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>()) with the type that moves `dtype`'s elements: an
// unsigned integer (or Bytes16) of the element's width for plain-memory
// dtypes, std::string for DT_STRING. Returns false, without calling fn, for
// dtypes whose elements are not plain memory or strings (resource, variant).
template <typename Fn>
bool VisitMovableType(DataType dtype, Fn&& fn) {
  if (dtype == DT_STRING) {
    fn(TypeTag<std::string>());
    return true;
  }
  if (!DataTypeCanUseMemcpy(dtype)) return false;
  switch (DataTypeSize(dtype)) {
    case 1:
      fn(TypeTag<uint8_t>());
      return true;
    case 2:
      fn(TypeTag<uint16_t>());
      return true;
    case 4:
      fn(TypeTag<uint32_t>());
      return true;
    case 8:
      fn(TypeTag<uint64_t>());
      return true;
    case 16:
      fn(TypeTag<Bytes16>());
      return true;
    default:
      return false;
  }
}

// For kernels registered once per dtype with the type that moves its
// elements as a template argument: M(dtype, mover) for every dtype
// VisitMovableType accepts, the list TensorFlow registers its
// update-style movement kernels for (TensorScatterUpdate, ScatterNdUpdate).
#define TRIB_FOR_EACH_MOVABLE_DTYPE(M)                                    \
  M(DT_BOOL, uint8_t);                                                    \
  M(DT_INT8, uint8_t);                                                    \
  M(DT_UINT8, uint8_t);                                                   \
  M(DT_HALF, uint16_t);                                                   \
  M(DT_BFLOAT16, uint16_t);                                               \
  M(DT_INT16, uint16_t);                                                  \
  M(DT_UINT16, uint16_t);                                                 \
  M(DT_FLOAT, uint32_t);                                                  \
  M(DT_INT32, uint32_t);                                                  \
  M(DT_UINT32, uint32_t);                                                 \
  M(DT_DOUBLE, uint64_t);                                                 \
  M(DT_INT64, uint64_t);                                                  \
  M(DT_UINT64, uint64_t);                                                 \
  M(DT_COMPLEX64, uint64_t);                                              \
  M(DT_COMPLEX128, ::tributary::array_ops::Bytes16);                      \
  M(DT_STRING, std::string)

// The Unimplemented error for a dtype VisitMovableType refused.
absl::Status UnsupportedDtype(absl::string_view op, DataType dtype);

// Typed element pointers into a tensor whatever its dtype (flat<T>() insists
// on T matching the dtype; these serve the movement types above). Null for a
// tensor without elements.
template <typename T>
const T* RawData(const Tensor& t) {
  return static_cast<const T*>(t.data());
}
template <typename T>
T* RawData(Tensor* t) {
  return static_cast<T*>(t->data());
}

// Bytes per element as stored in a Tensor (sizeof(std::string) for
// strings), for pointer arithmetic on data().
inline int64_t StoredElementSize(DataType dtype) {
  return dtype == DT_STRING ? static_cast<int64_t>(sizeof(std::string))
                            : DataTypeSize(dtype);
}

// Address of flat element `index` of `t`.
inline const void* ElementAt(const Tensor& t, int64_t index) {
  return static_cast<const char*>(t.data()) +
         index * StoredElementSize(t.dtype());
}

// ---- Index inputs ----------------------------------------------------------

// The values of an int8/int16/int32/int64 tensor, widened (any shape,
// row-major).
std::vector<int64_t> IndexValues(const Tensor& t);
// The first value of an int16/int32/int64 tensor with at least one element.
int64_t FirstIndexValue(const Tensor& t);

// TensorFlow accepts a length-1 vector where a scalar is expected, and a
// scalar where a vector is expected, for graphs written before the rules
// tightened.
inline bool IsLegacyScalar(const TensorShape& s) {
  return s.dims() == 0 || (s.dims() == 1 && s.dim_size(0) == 1);
}
inline bool IsLegacyVector(const TensorShape& s) {
  return s.dims() == 0 || s.dims() == 1;
}

// A shape from dimension values, with TensorFlow's messages:
// "Dimension -1 must be >= 0",
// "Shape [4611686018427387904,4] would have more than 2**63 - 1 elements".
absl::Status MakeShape(absl::Span<const int64_t> dims, TensorShape* shape);

// tensor::MakeShape: `t` must be an int32/int64 vector ("shape must be a
// vector of {int32,int64}, got shape [1,2]"), then MakeShape.
absl::Status MakeShapeFromShapeTensor(const Tensor& t, TensorShape* shape);

// Row-major element strides of `shape` (the last is 1).
absl::InlinedVector<int64_t, 8> RowMajorStrides(const TensorShape& shape);

// "[0,1]": the multi-index of flat element `flat` in `shape` ("" for a
// scalar, "[3]" for a vector), as TensorFlow's SliceDebugString.
std::string SliceDebugString(const TensorShape& shape, int64_t flat);

// ---- Outputs shaped from the input (Pad, MirrorPad, Tile) ----------------

// "paddings must be a matrix with 2 columns: [3]" unless `paddings` is an
// [n, 2] matrix: the first check Pad/PadV2 and MirrorPad share.
absl::Status CheckPaddingsMatrix(const Tensor& paddings);

// Output 0 of an op that grows `input` to `out_dims`: when `is_identity`
// (nothing added) the input itself is forwarded, saving the copy; otherwise
// a new tensor of that shape (MakeShape's errors) is allocated. *out is set
// only when there are elements left to write, else it stays null.
absl::Status ForwardOrAllocateOutput(OpKernelContext* ctx, const Tensor& input,
                                     absl::Span<const int64_t> out_dims,
                                     bool is_identity, Tensor** out);

// ---- Intra-op parallelism --------------------------------------------------

// Runs fn(first, last) over [0, n) split into blocks on the device's Eigen
// thread pool, or inline when the context has no Eigen device or the work
// is small. `bytes_per_unit` is the memory each unit touches (read +
// written), which is what these kernels cost.
void ParallelFor(OpKernelContext* ctx, int64_t n, double bytes_per_unit,
                 const std::function<void(int64_t, int64_t)>& fn);

}  // namespace array_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_ARRAY_UTIL_H_
