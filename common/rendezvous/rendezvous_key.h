#ifndef TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_KEY_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_KEY_H_

// Rendezvous keys: the name of one tensor travelling from a producer device
// to a consumer device in one step. TensorFlow's format, byte for byte:
//
//   <src_device>;<src_incarnation as hex>;<dst_device>;<tensor_name>;<frame_id>:<iter_id>
//   "/job:w/replica:0/task:0/device:CPU:0;00000000000004d2;/job:w/replica:0/task:1/device:CPU:0;edge_5_x;0:0"
//
// Both ends of a _Send/_Recv pair build the same key from the same node
// attributes, so the string *is* the channel: a remote peer asks for a
// tensor by sending this string (RecvTensorRequest.rendezvous_key).
// The incarnation is written as 16 zero-padded lower-case hex digits, as
// TensorFlow's _Send/_Recv kernels and its master write it (FpToString);
// ParseRendezvousKey accepts any 1-16 digit spelling and rewrites it to that
// canonical form, so keys built by either spelling meet in one table entry.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/device/device_name_utils.h"
#include "common/kernel/frame_and_iter.h"

namespace tributary {

// A parsed key. The string_views point into the key's own copy (FullKey()),
// so a ParsedKey can be copied and stored freely; copies re-point their
// views at their own buffer.
class RendezvousParsedKey {
 public:
  RendezvousParsedKey() = default;
  RendezvousParsedKey(const RendezvousParsedKey& other) { *this = other; }
  RendezvousParsedKey& operator=(const RendezvousParsedKey& other);
  // Moving a std::string may move its heap buffer or copy an inline one, so
  // views are rebuilt the same way as for a copy.
  RendezvousParsedKey(RendezvousParsedKey&& other) { *this = other; }
  RendezvousParsedKey& operator=(RendezvousParsedKey&& other) {
    return *this = other;
  }

  // The canonical key string: what tables are keyed by and what travels on
  // the wire.
  absl::string_view FullKey() const { return buf_; }

  absl::string_view src_device;  // as written in the key, e.g. "/job:a/.../device:CPU:0"
  DeviceNameUtils::ParsedName src;
  uint64_t src_incarnation = 0;
  absl::string_view dst_device;
  DeviceNameUtils::ParsedName dst;
  absl::string_view edge_name;   // the tensor's name, e.g. "edge_3_x" or "x:0"
  FrameAndIter frame_iter;

 private:
  friend absl::Status ParseRendezvousKey(absl::string_view key,
                                         RendezvousParsedKey* out);
  std::string buf_;
};

// Builds a key in the canonical format above. `frame_iter.frame_id` is
// written as an unsigned 64-bit number (TensorFlow's frame ids are uint64
// hashes), `iter_id` as a signed one.
std::string CreateRendezvousKey(absl::string_view src_device,
                                uint64_t src_incarnation,
                                absl::string_view dst_device,
                                absl::string_view name,
                                const FrameAndIter& frame_iter);

// The "<src>;<incarnation>;<dst>;<name>" part shared by every frame and
// iteration of one _Send/_Recv node; AppendFrameAndIter completes it. Lets
// kernels build the prefix once at construction.
std::string CreateRendezvousKeyPrefix(absl::string_view src_device,
                                      uint64_t src_incarnation,
                                      absl::string_view dst_device,
                                      absl::string_view name);
std::string AppendFrameAndIter(absl::string_view key_prefix,
                               const FrameAndIter& frame_iter);

// Parses `key` into *out. InvalidArgument naming the key and the part at
// fault unless it has exactly five ';'-separated parts: two device names
// that parse (full, partial or legacy forms, as in TensorFlow), 1-16 hex
// digits of incarnation, a non-empty tensor name and "<frame>:<iter>"
// decimal integers.
absl::Status ParseRendezvousKey(absl::string_view key,
                                RendezvousParsedKey* out);
absl::StatusOr<RendezvousParsedKey> ParseRendezvousKey(absl::string_view key);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_KEY_H_
