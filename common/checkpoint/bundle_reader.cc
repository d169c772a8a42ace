#include "common/checkpoint/bundle_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/checkpoint/bundle_format.h"
#include "common/checkpoint/bundle_naming.h"
#include "common/checkpoint/crc32c.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

// Numeric tensors are read and checksummed in pieces of this size, so each
// piece is still in the cache when its checksum is taken.
constexpr size_t kReadChunk = 4 << 20;

bool GetVarint64(absl::string_view* in, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const unsigned char byte = static_cast<unsigned char>((*in)[0]);
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = result;
      return true;
    }
  }
  return false;
}

absl::StatusOr<Tensor> NewTensor(Allocator* allocator, DataType dtype,
                                 const TensorShape& shape,
                                 absl::string_view key) {
  Tensor t(allocator, dtype, shape);
  if (!t.IsInitialized()) {
    return errors::ResourceExhausted("Out of memory restoring tensor '", key,
                                     "' of shape ", shape.DebugString());
  }
  return t;
}

}  // namespace

BundleReader::BundleReader(std::string prefix,
                           std::unique_ptr<TableReader> table,
                           tensorflow::BundleHeaderProto header)
    : prefix_(std::move(prefix)),
      table_(std::move(table)),
      header_(std::move(header)) {}

absl::StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(
    const std::string& prefix) {
  const std::string index = MetaFilename(prefix);
  if (!FileExists(index)) {
    return errors::NotFound("Failed to find the checkpoint index ", index,
                            " (no checkpoint under the prefix ", prefix, ")");
  }
  TRIB_ASSIGN_OR_RETURN(std::string contents, ReadFileToString(index));
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableReader> table,
                        TableReader::Open(index, std::move(contents)));
  absl::StatusOr<std::string> header_bytes = table->Get(kHeaderEntryKey);
  if (!header_bytes.ok()) {
    return errors::DataLoss(index, ": no header entry in the checkpoint index (",
                            header_bytes.status().message(), ")");
  }
  tensorflow::BundleHeaderProto header;
  if (!header.ParseFromString(*header_bytes)) {
    return errors::DataLoss(index, ": the checkpoint header is not parseable");
  }
  TRIB_RETURN_IF_ERROR(CheckHeader(header, index));
  return std::unique_ptr<BundleReader>(
      new BundleReader(prefix, std::move(table), std::move(header)));
}

absl::StatusOr<tensorflow::BundleEntryProto> BundleReader::Entry(
    absl::string_view key) const {
  absl::StatusOr<std::string> bytes = table_->Get(key);
  if (errors::IsNotFound(bytes.status())) {
    return errors::NotFound("Key ", key, " not found in checkpoint ", prefix_);
  }
  if (!bytes.ok()) return bytes.status();
  tensorflow::BundleEntryProto entry;
  if (!entry.ParseFromString(*bytes)) {
    return errors::DataLoss("Entry for key ", key, " in ",
                            MetaFilename(prefix_), " not parseable");
  }
  if (!TensorShape::FromProto(entry.shape()).ok()) {
    return errors::DataLoss("Invalid tensor shape for key ", key, " in ",
                            MetaFilename(prefix_), ": ",
                            entry.shape().ShortDebugString());
  }
  return entry;
}

absl::Status BundleReader::CheckRestorable(absl::string_view key,
                                           DataType dtype) const {
  if (IsSavableDtype(dtype)) return absl::OkStatus();
  return errors::Unimplemented("Tensor ", key, " in checkpoint ", prefix_,
                               " has dtype ", DataTypeString(dtype),
                               ", which cannot be restored here");
}

absl::StatusOr<const RandomAccessFile*> BundleReader::DataFile(int shard) const {
  absl::MutexLock lock(&mu_);
  auto it = data_files_.find(shard);
  if (it != data_files_.end()) return it->second.get();
  const std::string path = DataFilename(prefix_, shard, num_shards());
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
      RandomAccessFile::Open(path);
  if (!file.ok()) {
    if (errors::IsNotFound(file.status())) {
      return errors::NotFound("Data shard ", path, " of checkpoint ", prefix_,
                              " is missing");
    }
    return file.status();
  }
  const RandomAccessFile* raw = file->get();
  data_files_.emplace(shard, std::move(*file));
  return raw;
}

absl::Status BundleReader::ReadEntryInto(
    absl::string_view key, const tensorflow::BundleEntryProto& entry,
    Tensor* out) const {
  const DataType dtype = entry.dtype();
  TRIB_RETURN_IF_ERROR(CheckRestorable(key, dtype));
  if (entry.shard_id() < 0 || entry.shard_id() >= num_shards()) {
    return errors::DataLoss("Tensor ", key, " in ", MetaFilename(prefix_),
                            " names data shard ", entry.shard_id(), " of ",
                            num_shards());
  }
  if (entry.offset() < 0 || entry.size() < 0) {
    return errors::DataLoss("Tensor ", key, " in ", MetaFilename(prefix_),
                            " has a negative offset or size");
  }
  const int64_t n = out->NumElements();
  const uint64_t size = static_cast<uint64_t>(entry.size());
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  if (dtype != DT_STRING) {
    const uint64_t expected = static_cast<uint64_t>(n) * DataTypeSize(dtype);
    if (size != expected) {
      return errors::DataLoss("Invalid size in bundle entry: key ", key,
                              "; stored size ", size, "; expected size ",
                              expected, " (", MetaFilename(prefix_), ")");
    }
  } else if (size < static_cast<uint64_t>(n) + (size > 0 ? 4 : 0)) {
    return errors::DataLoss("Invalid size in bundle entry: key ", key,
                            "; stored size ", size, " for ", n, " strings (",
                            MetaFilename(prefix_), ")");
  }
  const std::string path = DataFilename(prefix_, entry.shard_id(), num_shards());
  auto with_key = [&](const absl::Status& s) {
    return errors::PrependToMessage(s, "Restoring tensor ", key, " from ",
                                    path, ": ");
  };
  if (size == 0) {
    if (dtype == DT_STRING || n == 0) {
      // TensorFlow writes nothing for an empty numeric tensor and reads
      // nothing for a size-0 string entry.
      if (crc32c::Unmask(entry.crc32c()) != 0 && n > 0) {
        return with_key(errors::DataLoss("checksum mismatch on empty data"));
      }
      return absl::OkStatus();
    }
  }
  TRIB_ASSIGN_OR_RETURN(const RandomAccessFile* file, DataFile(entry.shard_id()));
  uint32_t crc = 0;
  if (dtype != DT_STRING) {
    char* dst = static_cast<char*>(out->data());
    for (uint64_t done = 0; done < size;) {
      const size_t chunk = std::min<uint64_t>(kReadChunk, size - done);
      absl::Status s = file->ReadExactly(offset + done, chunk, dst + done);
      if (!s.ok()) return with_key(s);
      crc = crc32c::Extend(crc, dst + done, chunk);
      done += chunk;
    }
  } else {
    std::string bytes(size, '\0');
    absl::Status s = file->ReadExactly(offset, size, bytes.data());
    if (!s.ok()) return with_key(s);
    absl::string_view in(bytes);
    std::vector<uint64_t> lengths(n);
    for (int64_t i = 0; i < n; ++i) {
      if (!GetVarint64(&in, &lengths[i])) {
        return with_key(errors::DataLoss("bad string length ", i));
      }
      if (lengths[i] <= UINT32_MAX) {
        const uint32_t len32 = static_cast<uint32_t>(lengths[i]);
        crc = crc32c::Extend(crc, &len32, sizeof(len32));
      } else {
        crc = crc32c::Extend(crc, &lengths[i], sizeof(uint64_t));
      }
    }
    if (in.size() < 4) {
      return with_key(errors::DataLoss("string lengths longer than the entry"));
    }
    uint32_t stored_length_crc;
    std::memcpy(&stored_length_crc, in.data(), 4);
    in.remove_prefix(4);
    if (crc32c::Unmask(stored_length_crc) != crc) {
      return with_key(errors::DataLoss(absl::StrFormat(
          "The length checksum does not match: expected %08x but actual is "
          "%08x",
          crc32c::Unmask(stored_length_crc), crc)));
    }
    crc = crc32c::Extend(crc, &stored_length_crc, 4);
    std::string* elems = out->flat<std::string>().data();
    for (int64_t i = 0; i < n; ++i) {
      if (in.size() < lengths[i]) {
        return with_key(errors::DataLoss("string ", i, " of ", lengths[i],
                                         " bytes runs past the entry"));
      }
      elems[i].assign(in.data(), lengths[i]);
      crc = crc32c::Extend(crc, in.data(), lengths[i]);
      in.remove_prefix(lengths[i]);
    }
    if (!in.empty()) {
      return with_key(errors::DataLoss(in.size(), " unused bytes at the end"));
    }
  }
  if (crc32c::Unmask(entry.crc32c()) != crc) {
    return with_key(errors::DataLoss(absl::StrFormat(
        "Checksum does not match (%d bytes at offset %d): stored %08x vs. "
        "calculated on the restored bytes %08x",
        size, offset, crc32c::Unmask(entry.crc32c()), crc)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> BundleReader::ReadEntry(
    absl::string_view key, const tensorflow::BundleEntryProto& entry,
    Allocator* allocator) const {
  TRIB_ASSIGN_OR_RETURN(const TensorShape shape,
                        TensorShape::FromProto(entry.shape()));
  TRIB_RETURN_IF_ERROR(CheckRestorable(key, entry.dtype()));
  TRIB_ASSIGN_OR_RETURN(Tensor out,
                        NewTensor(allocator, entry.dtype(), shape, key));
  TRIB_RETURN_IF_ERROR(ReadEntryInto(key, entry, &out));
  return out;
}

absl::StatusOr<Tensor> BundleReader::Lookup(absl::string_view key,
                                            Allocator* allocator) const {
  TRIB_ASSIGN_OR_RETURN(const tensorflow::BundleEntryProto entry, Entry(key));
  if (entry.slices().empty()) return ReadEntry(key, entry, allocator);
  return LookupSlice(key, TensorSlice(entry.shape().dim_size()), allocator);
}

absl::StatusOr<Tensor> BundleReader::LookupSlice(absl::string_view key,
                                                 const TensorSlice& slice,
                                                 Allocator* allocator) const {
  TRIB_ASSIGN_OR_RETURN(const tensorflow::BundleEntryProto entry, Entry(key));
  TRIB_ASSIGN_OR_RETURN(const TensorShape full,
                        TensorShape::FromProto(entry.shape()));
  absl::StatusOr<TensorShape> slice_shape = slice.SliceShape(full);
  if (!slice_shape.ok()) {
    return errors::InvalidArgument(
        "Slice ", slice.DebugString(), " does not fit tensor ", key, " of ",
        "shape ", full.DebugString(), " in checkpoint ", prefix_, ": ",
        slice_shape.status().message());
  }
  TRIB_RETURN_IF_ERROR(CheckRestorable(key, entry.dtype()));
  TRIB_ASSIGN_OR_RETURN(Tensor out,
                        NewTensor(allocator, entry.dtype(), *slice_shape, key));
  if (entry.slices().empty()) {
    // Stored whole: read it straight into the result when the whole is
    // asked for, else read it and copy the part.
    if (slice.CoversShape(full) || slice.IsFull()) {
      TRIB_RETURN_IF_ERROR(ReadEntryInto(key, entry, &out));
      return out;
    }
    TRIB_ASSIGN_OR_RETURN(Tensor whole, ReadEntry(key, entry, allocator));
    TRIB_RETURN_IF_ERROR(CopySliceToSlice(full, TensorSlice(full.dims()), whole,
                                          slice, &out));
    return out;
  }
  // Stored as slices: find those that meet the request; together they must
  // cover it (the slices of one tensor never overlap).
  std::vector<TensorSlice> parts;
  int64_t covered = 0;
  for (const auto& proto : entry.slices()) {
    absl::StatusOr<TensorSlice> stored = TensorSlice::FromProto(proto);
    if (!stored.ok() || !stored->SliceShape(full).ok()) {
      return errors::DataLoss("Tensor ", key, " in ", MetaFilename(prefix_),
                              " lists a slice that does not fit its shape ",
                              full.DebugString());
    }
    TensorSlice common;
    if (!stored->Intersect(slice, full, &common)) continue;
    int64_t count = 1;
    for (int d = 0; d < common.dims(); ++d) count *= common.length(d);
    covered += count;
    parts.push_back(*std::move(stored));
  }
  if (covered < slice_shape->num_elements()) {
    return errors::InvalidArgument(
        "Does not have sufficient slices for partitioned tensor ", key,
        " to restore in slice_spec: ", slice.DebugString(), " (checkpoint ",
        prefix_, ")");
  }
  for (const TensorSlice& stored : parts) {
    const std::string slice_key = EncodeTensorNameSlice(std::string(key), stored);
    absl::StatusOr<tensorflow::BundleEntryProto> part = Entry(slice_key);
    if (!part.ok()) {
      return errors::DataLoss("Slice ", stored.DebugString(), " of tensor ",
                              key, " is listed in ", MetaFilename(prefix_),
                              " but its entry is not: ",
                              part.status().message());
    }
    TRIB_ASSIGN_OR_RETURN(const TensorShape stored_shape,
                          stored.SliceShape(full));
    if (part->dtype() != entry.dtype() ||
        TensorShape::FromProto(part->shape()).value_or(TensorShape()) !=
            stored_shape) {
      return errors::DataLoss("Slice ", stored.DebugString(), " of tensor ",
                              key, " in ", MetaFilename(prefix_),
                              " does not match the tensor's dtype or shape");
    }
    const std::string label = absl::StrCat(key, " (slice ", stored.DebugString(), ")");
    if (parts.size() == 1 && stored_shape == *slice_shape &&
        stored.Intersect(slice, full, nullptr)) {
      TensorSlice common;
      stored.Intersect(slice, full, &common);
      bool same = true;
      for (int d = 0; d < common.dims(); ++d) {
        same = same && common.start(d) == stored.StartIn(d) &&
               common.length(d) == stored.LengthIn(d, full.dim_size(d));
      }
      if (same) {
        TRIB_RETURN_IF_ERROR(ReadEntryInto(label, *part, &out));
        return out;
      }
    }
    TRIB_ASSIGN_OR_RETURN(Tensor stored_tensor,
                          ReadEntry(label, *part, allocator));
    TRIB_RETURN_IF_ERROR(
        CopySliceToSlice(full, stored, stored_tensor, slice, &out));
  }
  return out;
}

absl::Status BundleReader::ForEachEntry(
    absl::FunctionRef<absl::Status(absl::string_view,
                                   const tensorflow::BundleEntryProto&)>
        fn) const {
  return table_->ForEach(
      [&](absl::string_view key, absl::string_view value) -> absl::Status {
        if (key == kHeaderEntryKey) return absl::OkStatus();
        tensorflow::BundleEntryProto entry;
        if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          return errors::DataLoss("Entry for key ", key, " in ",
                                  MetaFilename(prefix_), " not parseable");
        }
        return fn(key, entry);
      });
}

}  // namespace tributary
