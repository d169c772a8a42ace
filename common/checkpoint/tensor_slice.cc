#include "common/checkpoint/tensor_slice.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/checkpoint/ordered_code.h"
#include "common/framework/status.h"
#include "common/framework/types.h"

namespace tributary {

TensorSlice::TensorSlice(int dims)
    : starts_(dims, 0), lengths_(dims, kFullExtent) {}

absl::StatusOr<TensorSlice> TensorSlice::Parse(absl::string_view spec) {
  TensorSlice slice;
  const std::vector<absl::string_view> items =
      absl::StrSplit(spec, ':', absl::SkipEmpty());
  for (const absl::string_view item : items) {
    if (item == "-") {
      slice.starts_.push_back(0);
      slice.lengths_.push_back(kFullExtent);
      continue;
    }
    const std::vector<absl::string_view> pair = absl::StrSplit(item, ',');
    int64_t start = 0;
    int64_t length = 0;
    if (pair.size() != 2 || !absl::SimpleAtoi(pair[0], &start) ||
        !absl::SimpleAtoi(pair[1], &length)) {
      return errors::InvalidArgument(
          "Expected a pair of numbers or '-' but got '", item,
          "': string = ", spec);
    }
    if (start < 0 || length <= 0) {
      return errors::InvalidArgument(
          "Expected non-negative start and positive length but got start = ",
          start, ", length = ", length, ": string = ", spec);
    }
    slice.starts_.push_back(start);
    slice.lengths_.push_back(length);
  }
  return slice;
}

absl::StatusOr<TensorSlice> TensorSlice::FromProto(
    const tensorflow::TensorSliceProto& proto) {
  TensorSlice slice;
  for (const auto& extent : proto.extent()) {
    if (extent.has_length_case() ==
        tensorflow::TensorSliceProto::Extent::HAS_LENGTH_NOT_SET) {
      slice.starts_.push_back(0);
      slice.lengths_.push_back(kFullExtent);
      continue;
    }
    if (extent.start() < 0 || extent.length() < 0) {
      return errors::InvalidArgument("Invalid tensor slice extent: start ",
                                     extent.start(), ", length ",
                                     extent.length());
    }
    slice.starts_.push_back(extent.start());
    slice.lengths_.push_back(extent.length());
  }
  return slice;
}

void TensorSlice::AsProto(tensorflow::TensorSliceProto* proto) const {
  proto->Clear();
  for (int d = 0; d < dims(); ++d) {
    auto* extent = proto->add_extent();
    // Only explicit extents are written; a full one stays empty.
    if (!IsFullAt(d)) {
      extent->set_start(starts_[d]);
      extent->set_length(lengths_[d]);
    }
  }
}

bool TensorSlice::IsFull() const {
  for (int d = 0; d < dims(); ++d) {
    if (!IsFullAt(d)) return false;
  }
  return true;
}

bool TensorSlice::CoversShape(const TensorShape& shape) const {
  if (dims() != shape.dims()) return false;
  for (int d = 0; d < dims(); ++d) {
    if (StartIn(d) != 0 || LengthIn(d, shape.dim_size(d)) != shape.dim_size(d))
      return false;
  }
  return true;
}

absl::StatusOr<TensorShape> TensorSlice::SliceShape(
    const TensorShape& full) const {
  if (dims() != full.dims()) {
    return errors::InvalidArgument("Mismatching ranks: shape = ",
                                   full.DebugString(),
                                   ", slice = ", DebugString());
  }
  TensorShape shape;
  for (int d = 0; d < dims(); ++d) {
    if (IsFullAt(d)) {
      shape.AddDim(full.dim_size(d));
      continue;
    }
    if (starts_[d] + lengths_[d] > full.dim_size(d)) {
      return errors::InvalidArgument(
          "Extent in dimension ", d, " out of bounds: shape = ",
          full.DebugString(), ", slice = ", DebugString());
    }
    shape.AddDim(lengths_[d]);
  }
  return shape;
}

bool TensorSlice::Intersect(const TensorSlice& other, const TensorShape& full,
                            TensorSlice* result) const {
  TensorSlice out;
  for (int d = 0; d < dims(); ++d) {
    const int64_t size = full.dim_size(d);
    const int64_t begin = std::max(StartIn(d), other.StartIn(d));
    const int64_t end = std::min(StartIn(d) + LengthIn(d, size),
                                 other.StartIn(d) + other.LengthIn(d, size));
    if (end <= begin && size > 0) return false;
    out.starts_.push_back(begin);
    out.lengths_.push_back(std::max<int64_t>(end - begin, 0));
  }
  if (result != nullptr) *result = std::move(out);
  return true;
}

std::string TensorSlice::DebugString() const {
  std::vector<std::string> parts;
  for (int d = 0; d < dims(); ++d) {
    parts.push_back(IsFullAt(d) ? "-"
                                : absl::StrCat(starts_[d], ",", lengths_[d]));
  }
  return absl::StrJoin(parts, ":");
}

absl::StatusOr<ShapeAndSlice> ParseShapeAndSlice(absl::string_view spec) {
  const std::vector<absl::string_view> parts = absl::StrSplit(spec, ' ');
  if (parts.size() < 2) {
    return errors::InvalidArgument(
        "Need least two elements in shape_and_slice specification: ", spec);
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int64_t dim = 0;
    if (!absl::SimpleAtoi(parts[i], &dim) || dim < 0) {
      return errors::InvalidArgument(
          "Non numerical dimension in shape_and_slice: ", spec);
    }
    dims.push_back(dim);
  }
  ShapeAndSlice out;
  TRIB_ASSIGN_OR_RETURN(out.full_shape, TensorShape::Build(dims));
  TRIB_ASSIGN_OR_RETURN(out.slice, TensorSlice::Parse(parts.back()));
  if (out.slice.dims() != out.full_shape.dims()) {
    return errors::InvalidArgument(
        "Expected ", out.full_shape.dims(), " dimensions in shape_and_slice ",
        "but got ", out.slice.dims(), ": ", spec);
  }
  TRIB_ASSIGN_OR_RETURN(out.slice_shape, out.slice.SliceShape(out.full_shape));
  return out;
}

std::string EncodeTensorNameSlice(const std::string& name,
                                  const TensorSlice& slice) {
  std::string key;
  ordered_code::WriteNumIncreasing(&key, 0);
  ordered_code::WriteString(&key, name);
  ordered_code::WriteNumIncreasing(&key, slice.dims());
  for (int d = 0; d < slice.dims(); ++d) {
    ordered_code::WriteSignedNumIncreasing(&key, slice.start(d));
    ordered_code::WriteSignedNumIncreasing(&key, slice.length(d));
  }
  return key;
}

absl::Status DecodeTensorNameSlice(absl::string_view key, std::string* name,
                                   TensorSlice* slice) {
  absl::string_view src = key;
  uint64_t zero = 1;
  uint64_t rank = 0;
  if (!ordered_code::ReadNumIncreasing(&src, &zero) || zero != 0 ||
      !ordered_code::ReadString(&src, name) ||
      !ordered_code::ReadNumIncreasing(&src, &rank) || rank > 64) {
    return errors::InvalidArgument("Not a tensor slice key");
  }
  std::vector<std::string> parts;
  for (uint64_t d = 0; d < rank; ++d) {
    int64_t start = 0;
    int64_t length = 0;
    if (!ordered_code::ReadSignedNumIncreasing(&src, &start) ||
        !ordered_code::ReadSignedNumIncreasing(&src, &length)) {
      return errors::InvalidArgument("Not a tensor slice key: bad extent");
    }
    parts.push_back(length == TensorSlice::kFullExtent
                        ? "-"
                        : absl::StrCat(start, ",", length));
  }
  if (!src.empty()) return errors::InvalidArgument("Trailing bytes in key");
  TRIB_ASSIGN_OR_RETURN(*slice, TensorSlice::Parse(absl::StrJoin(parts, ":")));
  if (slice->dims() != static_cast<int>(rank)) {
    return errors::InvalidArgument("Not a tensor slice key: rank");
  }
  return absl::OkStatus();
}

absl::Status CopySliceToSlice(const TensorShape& full,
                              const TensorSlice& src_slice, const Tensor& src,
                              const TensorSlice& dst_slice, Tensor* dst) {
  if (src.dtype() != dst->dtype()) {
    return errors::InvalidArgument("Slice copy between dtypes ",
                                   DataTypeString(src.dtype()), " and ",
                                   DataTypeString(dst->dtype()));
  }
  const int rank = full.dims();
  TensorSlice common;
  if (!src_slice.Intersect(dst_slice, full, &common)) return absl::OkStatus();
  if (rank == 0) {
    // A scalar has one element and no extents.
    if (src.dtype() == DT_STRING) {
      dst->flat<std::string>()(0) = src.flat<std::string>()(0);
    } else {
      std::memcpy(dst->data(), src.data(), DataTypeSize(src.dtype()));
    }
    return absl::OkStatus();
  }
  std::vector<int64_t> src_dims(rank), dst_dims(rank), count(rank);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    src_dims[d] = src_slice.LengthIn(d, full.dim_size(d));
    dst_dims[d] = dst_slice.LengthIn(d, full.dim_size(d));
    count[d] = common.length(d);
    total *= count[d];
  }
  if (total == 0) return absl::OkStatus();
  // Row-major strides of each buffer.
  std::vector<int64_t> src_stride(rank, 1), dst_stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    src_stride[d] = src_stride[d + 1] * src_dims[d + 1];
    dst_stride[d] = dst_stride[d + 1] * dst_dims[d + 1];
  }
  // Walk the intersection one innermost run at a time.
  const int64_t run = count[rank - 1];
  std::vector<int64_t> index(rank, 0);
  const bool is_string = src.dtype() == DT_STRING;
  const int64_t elem = is_string ? 0 : DataTypeSize(src.dtype());
  const char* src_base = static_cast<const char*>(src.data());
  char* dst_base = static_cast<char*>(dst->data());
  while (true) {
    int64_t src_off = 0;
    int64_t dst_off = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t pos = common.start(d) + index[d];
      src_off += (pos - src_slice.StartIn(d)) * src_stride[d];
      dst_off += (pos - dst_slice.StartIn(d)) * dst_stride[d];
    }
    if (is_string) {
      const std::string* s = src.flat<std::string>().data() + src_off;
      std::string* t = dst->flat<std::string>().data() + dst_off;
      for (int64_t i = 0; i < run; ++i) t[i] = s[i];
    } else {
      std::memcpy(dst_base + dst_off * elem, src_base + src_off * elem,
                  run * elem);
    }
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < count[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
  return absl::OkStatus();
}

}  // namespace tributary
