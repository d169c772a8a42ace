// Writes one tensor bundle (a V2 checkpoint) under a prefix, byte for byte as
// TensorFlow's BundleWriter does: every tensor's bytes appended to
// "<prefix>.data-00000-of-00001" in the order they are added, then the
// "<prefix>.index" table of the header and one BundleEntryProto per key,
// sorted. Both are written to temporary names and renamed by Finish, so a
// crash never leaves a half-written file under the final names.
//
// A sharded save (tf.compat.v1.train.Saver(sharded=True)) writes one bundle
// per device under temporary prefixes and merges the indexes afterwards
// (merge_bundles.h).
#ifndef TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_WRITER_H_
#define TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_WRITER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/checkpoint/file_io.h"
#include "common/checkpoint/tensor_slice.h"
#include "common/framework/tensor.h"
#include "protos/tensor_bundle.pb.h"

namespace tributary {

class BundleWriter {
 public:
  // Creates the prefix's directory and opens the data file; errors show in
  // status() and every later call.
  explicit BundleWriter(std::string prefix);
  // Without Finish, the temporary data file is deleted.
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  const absl::Status& status() const { return status_; }

  // Saves `value` under `key` (not "", not added before). INVALID_ARGUMENT
  // for a duplicate key or a dtype the format does not store.
  absl::Status Add(absl::string_view key, const Tensor& value);
  // Saves `value`, slice `slice` of a tensor `full_key` of shape `full_shape`
  // (a partition of a partitioned variable): the slice's bytes under its own
  // key (EncodeTensorNameSlice), and the slice listed in `full_key`'s entry.
  // A slice covering the whole shape is a plain Add.
  absl::Status AddSlice(absl::string_view full_key,
                        const TensorShape& full_shape, const TensorSlice& slice,
                        const Tensor& value);
  // Closes the data file and writes the index; the bundle is complete under
  // the final names when it returns OK.
  absl::Status Finish();

 private:
  absl::Status WriteEntry(const Tensor& value,
                          tensorflow::BundleEntryProto* entry);

  const std::string prefix_;
  std::string data_path_;   // temporary name until Finish
  std::string index_path_;  // temporary name until Finish
  std::unique_ptr<BufferedFileWriter> out_;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
  absl::Status status_;
  bool finished_ = false;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_WRITER_H_
