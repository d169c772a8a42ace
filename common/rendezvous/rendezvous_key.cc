#include "common/rendezvous/rendezvous_key.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

// Re-points `view`, which pointed into `from`, at the same bytes of `to`.
absl::string_view Rebase(absl::string_view view, const std::string& from,
                         const std::string& to) {
  if (view.data() == nullptr) return absl::string_view();
  return absl::string_view(to.data() + (view.data() - from.data()),
                           view.size());
}

// 1-16 hex digits, either case; no sign, no "0x".
bool ParseHexIncarnation(absl::string_view s, uint64_t* value) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<uint64_t>(digit);
  }
  *value = v;
  return true;
}

// Optional '-' then 1-19 or 20 decimal digits, nothing else (no spaces,
// no '+': a key is compared byte for byte, so only one spelling is valid).
bool IsDecimal(absl::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty() || s.size() > 20) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "<frame>:<iter>". The frame id may be written unsigned (TensorFlow's
// uint64 frame hashes) or signed; both are kept bit for bit.
bool ParseFrameAndIter(absl::string_view s, FrameAndIter* out) {
  const size_t colon = s.find(':');
  if (colon == absl::string_view::npos) return false;
  const absl::string_view frame = s.substr(0, colon);
  const absl::string_view iter = s.substr(colon + 1);
  if (!IsDecimal(frame) || !IsDecimal(iter)) return false;
  uint64_t frame_unsigned;
  int64_t frame_signed;
  if (absl::SimpleAtoi(frame, &frame_unsigned)) {
    out->frame_id = static_cast<int64_t>(frame_unsigned);
  } else if (absl::SimpleAtoi(frame, &frame_signed)) {
    out->frame_id = frame_signed;
  } else {
    return false;
  }
  return absl::SimpleAtoi(iter, &out->iter_id);
}

absl::Status BadKey(absl::string_view key, absl::string_view why) {
  return errors::InvalidArgument("Invalid rendezvous key '", key, "': ", why,
                                 " (expected src_device;src_incarnation;"
                                 "dst_device;tensor_name;frame_id:iter_id)");
}

}  // namespace

RendezvousParsedKey& RendezvousParsedKey::operator=(
    const RendezvousParsedKey& other) {
  if (this == &other) return *this;
  buf_ = other.buf_;
  src_device = Rebase(other.src_device, other.buf_, buf_);
  src = other.src;
  src_incarnation = other.src_incarnation;
  dst_device = Rebase(other.dst_device, other.buf_, buf_);
  dst = other.dst;
  edge_name = Rebase(other.edge_name, other.buf_, buf_);
  frame_iter = other.frame_iter;
  return *this;
}

std::string CreateRendezvousKeyPrefix(absl::string_view src_device,
                                      uint64_t src_incarnation,
                                      absl::string_view dst_device,
                                      absl::string_view name) {
  // ';' never occurs in a device name, so it separates unambiguously; the
  // tensor name comes last but one so it may contain ':'.
  return absl::StrCat(src_device, ";",
                      absl::StrFormat("%016x", src_incarnation), ";",
                      dst_device, ";", name);
}

std::string AppendFrameAndIter(absl::string_view key_prefix,
                               const FrameAndIter& frame_iter) {
  return absl::StrCat(key_prefix, ";",
                      static_cast<uint64_t>(frame_iter.frame_id), ":",
                      frame_iter.iter_id);
}

std::string CreateRendezvousKey(absl::string_view src_device,
                                uint64_t src_incarnation,
                                absl::string_view dst_device,
                                absl::string_view name,
                                const FrameAndIter& frame_iter) {
  return AppendFrameAndIter(
      CreateRendezvousKeyPrefix(src_device, src_incarnation, dst_device, name),
      frame_iter);
}

absl::Status ParseRendezvousKey(absl::string_view key,
                                RendezvousParsedKey* out) {
  const std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  if (parts.size() != 5) {
    return BadKey(key, absl::StrCat(parts.size(), " ';'-separated parts, not 5"));
  }

  RendezvousParsedKey parsed;
  if (!DeviceNameUtils::ParseFullName(parts[0], &parsed.src) ||
      parts[0].empty()) {
    return BadKey(key, absl::StrCat("source device '", parts[0],
                                    "' is not a device name"));
  }
  if (!ParseHexIncarnation(parts[1], &parsed.src_incarnation)) {
    return BadKey(key, absl::StrCat("source incarnation '", parts[1],
                                    "' is not 1-16 hex digits"));
  }
  if (!DeviceNameUtils::ParseFullName(parts[2], &parsed.dst) ||
      parts[2].empty()) {
    return BadKey(key, absl::StrCat("destination device '", parts[2],
                                    "' is not a device name"));
  }
  if (parts[3].empty()) return BadKey(key, "empty tensor name");
  if (!ParseFrameAndIter(parts[4], &parsed.frame_iter)) {
    return BadKey(key, absl::StrCat("frame and iteration '", parts[4],
                                    "' is not <frame_id>:<iter_id>"));
  }

  // The canonical spelling: the incarnation zero-padded and the numbers of
  // the last part in CreateRendezvousKey's form; device and tensor names as
  // given (both ends compare them as strings, exactly as TensorFlow does).
  std::string& buf = parsed.buf_;
  buf.reserve(key.size() + 16);
  absl::StrAppend(&buf, parts[0], ";");
  const size_t src_begin = 0;
  absl::StrAppend(&buf, absl::StrFormat("%016x", parsed.src_incarnation), ";");
  const size_t dst_begin = buf.size();
  absl::StrAppend(&buf, parts[2], ";");
  const size_t edge_begin = buf.size();
  absl::StrAppend(&buf, parts[3], ";",
                  static_cast<uint64_t>(parsed.frame_iter.frame_id), ":",
                  parsed.frame_iter.iter_id);
  parsed.src_device = absl::string_view(buf.data() + src_begin, parts[0].size());
  parsed.dst_device = absl::string_view(buf.data() + dst_begin, parts[2].size());
  parsed.edge_name = absl::string_view(buf.data() + edge_begin, parts[3].size());
  *out = std::move(parsed);
  return absl::OkStatus();
}

absl::StatusOr<RendezvousParsedKey> ParseRendezvousKey(absl::string_view key) {
  RendezvousParsedKey parsed;
  TRIB_RETURN_IF_ERROR(ParseRendezvousKey(key, &parsed));
  return parsed;
}

}  // namespace tributary
