// Reads a tensor bundle (a V2 checkpoint) written by TensorFlow or by
// BundleWriter: the index table under "<prefix>.index" (header checked: byte
// order, format version) and tensors from the data shards it names, each
// checked against its crc32c.
//
// Errors name the tensor and the file:
//  * NOT_FOUND: no index under the prefix, a missing data shard, a key not in
//    the checkpoint;
//  * DATA_LOSS: a corrupted index (bad block checksum, unparseable entry), a
//    data shard shorter than its entries say (truncated), a checksum mismatch
//    (a flipped byte), an entry whose size does not fit its dtype and shape;
//  * INVALID_ARGUMENT: a requested slice that the stored slices do not cover
//    or that does not fit the stored shape;
//  * UNIMPLEMENTED: dtypes the format here does not hold (variant), a
//    big-endian checkpoint.
// A reader may be used from several threads at once.
#ifndef TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_READER_H_
#define TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_READER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/checkpoint/file_io.h"
#include "common/checkpoint/table_file.h"
#include "common/checkpoint/tensor_slice.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "protos/tensor_bundle.pb.h"

namespace tributary {

class BundleReader {
 public:
  static absl::StatusOr<std::unique_ptr<BundleReader>> Open(
      const std::string& prefix);

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return header_.num_shards(); }
  const tensorflow::BundleHeaderProto& header() const { return header_; }

  // The entry of `key` (a tensor name or an encoded slice key).
  absl::StatusOr<tensorflow::BundleEntryProto> Entry(absl::string_view key) const;

  // The whole tensor `key`; a partitioned one is assembled from its slices.
  absl::StatusOr<Tensor> Lookup(absl::string_view key,
                                Allocator* allocator = cpu_allocator()) const;
  // Slice `slice` of tensor `key`, from a whole stored tensor or from the
  // stored slices that cover it.
  absl::StatusOr<Tensor> LookupSlice(absl::string_view key,
                                     const TensorSlice& slice,
                                     Allocator* allocator = cpu_allocator()) const;

  // Every (key, entry) but the header's, in key order.
  absl::Status ForEachEntry(
      absl::FunctionRef<absl::Status(absl::string_view key,
                                     const tensorflow::BundleEntryProto& entry)>
          fn) const;

 private:
  BundleReader(std::string prefix, std::unique_ptr<TableReader> table,
               tensorflow::BundleHeaderProto header);

  // Reads the bytes of a (non-partitioned) entry into a new tensor of its
  // dtype and shape.
  absl::StatusOr<Tensor> ReadEntry(absl::string_view key,
                                   const tensorflow::BundleEntryProto& entry,
                                   Allocator* allocator) const;
  // Reads entry `entry` of `key` into `out` (already of the entry's dtype and
  // shape).
  absl::Status ReadEntryInto(absl::string_view key,
                             const tensorflow::BundleEntryProto& entry,
                             Tensor* out) const;
  absl::StatusOr<const RandomAccessFile*> DataFile(int shard) const;
  // Unimplemented naming tensor and checkpoint for a dtype a bundle cannot
  // hold here (variant, resource).
  absl::Status CheckRestorable(absl::string_view key, DataType dtype) const;

  const std::string prefix_;
  const std::unique_ptr<TableReader> table_;
  const tensorflow::BundleHeaderProto header_;

  mutable absl::Mutex mu_;
  mutable std::map<int, std::unique_ptr<RandomAccessFile>> data_files_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_READER_H_
