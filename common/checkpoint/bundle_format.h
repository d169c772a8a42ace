// Constants and entry encodings of TensorFlow's tensor bundle format shared by
// the writer, the reader and the merge.
//
// Data file layout per entry, at entry.offset, entry.size bytes:
//  * numeric and bool tensors: the elements' little-endian bytes;
//    crc32c = the crc of those bytes.
//  * string tensors: varint64 length of each element, then a 4-byte masked
//    crc32c (little-endian) of the lengths, then the bytes of every element.
//    The entry's crc32c covers each length as a little-endian uint32 (uint64
//    for a length over 4 GiB, not the varint bytes), then the 4 stored bytes
//    of the length checksum, then the element bytes.
// entry.crc32c is stored masked (crc32c::Mask).
#ifndef TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_FORMAT_H_
#define TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_FORMAT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/framework/types.h"
#include "protos/tensor_bundle.pb.h"

namespace tributary {

// The key of the BundleHeaderProto: "" sorts before every tensor name.
inline constexpr absl::string_view kHeaderEntryKey = "";
// The format version TensorFlow writes (kTensorBundleVersion) and the oldest
// producer it reads; TensorFlow's min_consumer is 0.
constexpr int kTensorBundleVersion = 1;
constexpr int kTensorBundleMinProducer = 0;

// Whether the bundle format stores this dtype here: every memcpy-able dtype
// and strings. (Variants and resources are not saved by TensorFlow's savers
// for variables; RestoreV2 answers UNIMPLEMENTED for them.)
inline bool IsSavableDtype(DataType dtype) {
  return dtype == DT_STRING || DataTypeCanUseMemcpy(dtype);
}

// The header TensorFlow writes for `num_shards` shards on a little-endian host.
tensorflow::BundleHeaderProto MakeHeader(int num_shards);
// INVALID_ARGUMENT (naming `path`) for a header written on a big-endian host
// (byte swapping is not implemented) or by an incompatible format version.
absl::Status CheckHeader(const tensorflow::BundleHeaderProto& header,
                         absl::string_view path);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_BUNDLE_FORMAT_H_
