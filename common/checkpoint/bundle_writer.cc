#include "common/checkpoint/bundle_writer.h"

#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/bundle_format.h"
#include "common/checkpoint/bundle_naming.h"
#include "common/checkpoint/crc32c.h"
#include "common/checkpoint/table_file.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

std::string TempSuffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return absl::StrCat(".tempstate", rng());
}

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

}  // namespace

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  data_path_ = DataFilename(prefix_, 0, 1) + TempSuffix();
  index_path_ = MetaFilename(prefix_) + TempSuffix();
  status_ = CreateDirs(Dirname(prefix_));
  if (!status_.ok()) return;
  auto out = BufferedFileWriter::Create(data_path_);
  if (!out.ok()) {
    status_ = out.status();
    return;
  }
  out_ = std::move(*out);
}

BundleWriter::~BundleWriter() {
  if (finished_) return;
  if (out_ != nullptr) {
    out_->Close().IgnoreError();
    DeleteFile(data_path_).IgnoreError();
  }
}

absl::Status BundleWriter::WriteEntry(const Tensor& value,
                                      tensorflow::BundleEntryProto* entry) {
  entry->set_dtype(value.dtype());
  value.shape().AsProto(entry->mutable_shape());
  entry->set_shard_id(0);
  entry->set_offset(static_cast<int64_t>(out_->size()));
  const uint64_t start = out_->size();
  uint32_t crc = 0;
  if (value.dtype() == DT_STRING) {
    const int64_t n = value.NumElements();
    const std::string* elems =
        n == 0 ? nullptr : value.flat<std::string>().data();
    std::string lengths;
    lengths.reserve(n);
    // The lengths' checksum is over their fixed-width values, not the
    // varints (see bundle_format.h).
    uint32_t length_crc = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t size = elems[i].size();
      PutVarint64(&lengths, size);
      if (size <= UINT32_MAX) {
        const uint32_t size32 = static_cast<uint32_t>(size);
        length_crc = crc32c::Extend(length_crc, &size32, sizeof(size32));
      } else {
        length_crc = crc32c::Extend(length_crc, &size, sizeof(size));
      }
    }
    TRIB_RETURN_IF_ERROR(out_->Append(lengths.data(), lengths.size(), nullptr));
    const uint32_t masked = crc32c::Mask(length_crc);
    crc = crc32c::Extend(length_crc, &masked, sizeof(masked));
    TRIB_RETURN_IF_ERROR(out_->Append(&masked, sizeof(masked), nullptr));
    for (int64_t i = 0; i < n; ++i) {
      TRIB_RETURN_IF_ERROR(out_->Append(elems[i].data(), elems[i].size(), &crc));
    }
  } else {
    const absl::string_view bytes = value.tensor_data();
    TRIB_RETURN_IF_ERROR(out_->Append(bytes.data(), bytes.size(), &crc));
  }
  entry->set_size(static_cast<int64_t>(out_->size() - start));
  entry->set_crc32c(crc32c::Mask(crc));
  return absl::OkStatus();
}

absl::Status BundleWriter::Add(absl::string_view key, const Tensor& value) {
  if (!status_.ok()) return status_;
  if (key == kHeaderEntryKey) {
    return errors::InvalidArgument("The empty string is not a tensor name");
  }
  if (!IsSavableDtype(value.dtype())) {
    return errors::InvalidArgument("Cannot save tensor '", key, "' of dtype ",
                                   DataTypeString(value.dtype()),
                                   " in a checkpoint");
  }
  const std::string key_string(key);
  if (entries_.count(key_string) != 0) {
    return errors::InvalidArgument("Adding duplicate key: ", key);
  }
  tensorflow::BundleEntryProto entry;
  status_ = WriteEntry(value, &entry);
  if (!status_.ok()) return status_;
  entries_.emplace(key_string, std::move(entry));
  return absl::OkStatus();
}

absl::Status BundleWriter::AddSlice(absl::string_view full_key,
                                    const TensorShape& full_shape,
                                    const TensorSlice& slice,
                                    const Tensor& value) {
  if (!status_.ok()) return status_;
  if (slice.CoversShape(full_shape) || slice.IsFull()) {
    return Add(full_key, value);
  }
  TRIB_ASSIGN_OR_RETURN(const TensorShape slice_shape,
                        slice.SliceShape(full_shape));
  if (slice_shape != value.shape()) {
    return errors::InvalidArgument(
        "Slice ", slice.DebugString(), " of ", full_key, " ",
        full_shape.DebugString(), " has shape ", slice_shape.DebugString(),
        " but the tensor saved for it has shape ",
        value.shape().DebugString());
  }
  const std::string full_key_string(full_key);
  tensorflow::BundleEntryProto& full = entries_[full_key_string];
  if (full.dtype() != DT_INVALID && full.dtype() != value.dtype()) {
    return errors::InvalidArgument("Slices of ", full_key, " have dtypes ",
                                   DataTypeString(full.dtype()), " and ",
                                   DataTypeString(value.dtype()));
  }
  if (full.has_shape()) {
    auto stored = TensorShape::FromProto(full.shape());
    if (!stored.ok() || *stored != full_shape) {
      return errors::InvalidArgument("Slices of ", full_key,
                                     " disagree on the full shape");
    }
  }
  // The full tensor's entry lists slices only; shard and offset mean nothing
  // for it (TensorFlow leaves them unset too).
  full.set_dtype(value.dtype());
  full_shape.AsProto(full.mutable_shape());
  slice.AsProto(full.add_slices());
  return Add(EncodeTensorNameSlice(full_key_string, slice), value);
}

absl::Status BundleWriter::Finish() {
  if (!status_.ok()) return status_;
  finished_ = true;
  status_ = out_->Close();
  out_.reset();
  if (status_.ok()) status_ = RenameFile(data_path_, DataFilename(prefix_, 0, 1));
  if (!status_.ok()) {
    DeleteFile(data_path_).IgnoreError();
    return status_;
  }
  std::map<std::string, std::string> table;
  table.emplace(std::string(kHeaderEntryKey),
                MakeHeader(1).SerializeAsString());
  for (const auto& [key, entry] : entries_) {
    table.emplace(key, entry.SerializeAsString());
  }
  absl::StatusOr<std::string> bytes = BuildTable(table);
  status_ = bytes.status();
  if (status_.ok()) status_ = WriteStringToFile(index_path_, *bytes);
  if (status_.ok()) status_ = RenameFile(index_path_, MetaFilename(prefix_));
  if (!status_.ok()) {
    DeleteFile(index_path_).IgnoreError();
    return status_;
  }
  status_ = errors::FailedPrecondition("BundleWriter for ", prefix_,
                                       " is finished");
  return absl::OkStatus();
}

}  // namespace tributary
