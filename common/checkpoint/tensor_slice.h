// A slice of a tensor as TensorFlow's checkpoints describe it: per dimension
// a start and a length, or "full" (the whole dimension). Partitioned variables
// save each partition as a slice of the full variable; RestoreV2 asks for a
// slice with a spec string and gets it from whatever slices were stored.
//
// Spec strings are TensorFlow's:
//  * a slice: extents joined by ':', each "start,length" or "-" (full);
//    "0,5:-" is rows [0, 5) of a matrix, every column;
//  * a shape and slice (SaveV2/RestoreV2's shape_and_slices): the full shape's
//    dims and then a slice, space-separated: "10 4 0,5:-".
// A full extent is kept as start 0, length kFullExtent (-1), as TensorFlow
// does: it is written to a TensorSliceProto as an Extent without a length and
// into a slice's table key as start 0, length -1, so an explicit "0,10" of a
// 10-long dimension is a different slice from "-" on disk.
#ifndef TRIBUTARY_COMMON_CHECKPOINT_TENSOR_SLICE_H_
#define TRIBUTARY_COMMON_CHECKPOINT_TENSOR_SLICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "protos/tensor_slice.pb.h"

namespace tributary {

class TensorSlice {
 public:
  static constexpr int64_t kFullExtent = -1;

  TensorSlice() = default;
  // A full slice of `dims` dimensions.
  explicit TensorSlice(int dims);

  // InvalidArgument for anything but TensorFlow's syntax, a negative start or
  // a length < 1.
  static absl::StatusOr<TensorSlice> Parse(absl::string_view spec);
  // InvalidArgument for a negative start or length (DATA_LOSS is the caller's
  // word when the proto came from a file).
  static absl::StatusOr<TensorSlice> FromProto(
      const tensorflow::TensorSliceProto& proto);
  void AsProto(tensorflow::TensorSliceProto* proto) const;

  int dims() const { return static_cast<int>(starts_.size()); }
  int64_t start(int d) const { return starts_[d]; }
  int64_t length(int d) const { return lengths_[d]; }
  bool IsFullAt(int d) const { return lengths_[d] == kFullExtent; }
  bool IsFull() const;
  // Start and length of dim `d` within a full dimension of size `dim_size`.
  int64_t StartIn(int d) const { return IsFullAt(d) ? 0 : starts_[d]; }
  int64_t LengthIn(int d, int64_t dim_size) const {
    return IsFullAt(d) ? dim_size : lengths_[d];
  }
  // Whether this slice covers all of `shape` (full, or explicit extents
  // spanning every dim).
  bool CoversShape(const TensorShape& shape) const;

  // The shape of this slice of a tensor of shape `full`. InvalidArgument when
  // the ranks differ or an extent reaches past the shape.
  absl::StatusOr<TensorShape> SliceShape(const TensorShape& full) const;

  // The intersection with `other` within a tensor of shape `full` (both
  // slices of it), or false when it is empty. Extents of the result are
  // explicit.
  bool Intersect(const TensorSlice& other, const TensorShape& full,
                 TensorSlice* result) const;

  // TensorFlow's spec syntax ("0,5:-").
  std::string DebugString() const;

  bool operator==(const TensorSlice& other) const {
    return starts_ == other.starts_ && lengths_ == other.lengths_;
  }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> lengths_;
};

// The parts of a SaveV2/RestoreV2 shape_and_slices string.
struct ShapeAndSlice {
  TensorShape full_shape;
  TensorSlice slice;
  TensorShape slice_shape;
};
// InvalidArgument (naming the spec) for a malformed string, a rank mismatch
// between shape and slice, or a slice reaching past the shape.
absl::StatusOr<ShapeAndSlice> ParseShapeAndSlice(absl::string_view spec);

// The table key under which a slice of tensor `name` is stored (OrderedCode:
// 0, name, rank, then start and length per dim).
std::string EncodeTensorNameSlice(const std::string& name,
                                  const TensorSlice& slice);
// The inverse; InvalidArgument for a key that is not such an encoding.
absl::Status DecodeTensorNameSlice(absl::string_view key, std::string* name,
                                   TensorSlice* slice);

// Copies the elements of `src` (holding slice `src_slice` of a tensor of shape
// `full`) that fall inside `dst_slice` into `dst` (holding `dst_slice`).
// Both tensors have the same dtype (memcpy-able or string) and their slices'
// shapes. Elements outside the intersection are left alone.
absl::Status CopySliceToSlice(const TensorShape& full,
                              const TensorSlice& src_slice, const Tensor& src,
                              const TensorSlice& dst_slice, Tensor* dst);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_TENSOR_SLICE_H_
