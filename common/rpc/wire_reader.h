#ifndef TRIBUTARY_COMMON_RPC_WIRE_READER_H_
#define TRIBUTARY_COMMON_RPC_WIRE_READER_H_

// A reader of protobuf wire format over a sequence of memory chunks (the
// slices of a received grpc::ByteBuffer), for tensor coding's decoder.
//
// Why not protobuf's CodedInputStream: the decoder must copy a
// tensor_content field straight from the chunks into a tensor buffer, and
// go back to a field it has already skipped (a TensorProto's dtype may come
// after its content); both need the position as a value. Every read is
// bounds-checked and reports failure instead of reading past the end, and
// varints and lengths may span chunk boundaries.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tributary {

// Protobuf wire types.
enum class WireType : int {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

class WireReader {
 public:
  // A place in the input; copyable, so callers can come back to it.
  struct Mark {
    size_t chunk = 0;   // index into chunks
    size_t offset = 0;  // within that chunk
    size_t pos = 0;     // absolute byte offset
  };

  // `chunks` must outlive the reader; empty chunks are allowed.
  explicit WireReader(const std::vector<absl::string_view>* chunks);

  size_t position() const { return mark_.pos; }
  size_t size() const { return size_; }
  size_t remaining() const { return size_ - mark_.pos; }
  Mark mark() const { return mark_; }
  void Seek(const Mark& mark) {
    mark_ = mark;
    Normalize();
  }

  // Each returns false (position unspecified) on truncated or malformed
  // input; true with the value otherwise.
  bool ReadVarint64(uint64_t* value);
  bool ReadFixed32(uint32_t* value);
  bool ReadFixed64(uint64_t* value);
  // A field key, as protobuf reads one: at most 5 bytes, bits past 32
  // dropped; field numbers must be in 1..2^29-1.
  bool ReadTag(uint32_t* field, WireType* type);
  // A length prefix that fits in what is left of the input.
  bool ReadLength(size_t* length);
  bool Skip(size_t n);
  // Skips the value of field `field` of `type`; a group (no TensorFlow
  // message has one, but protobuf keeps unknown ones) up to its end tag.
  bool SkipValue(WireType type, uint32_t field);
  bool CopyTo(void* dst, size_t n);
  bool AppendTo(std::string* out, size_t n);
  // Appends the bytes from `from` to the current position.
  void AppendRange(const Mark& from, std::string* out) const;

 private:
  // Protobuf's default recursion limit, which groups count against.
  static constexpr int kMaxGroupDepth = 100;
  bool SkipValue(WireType type, uint32_t field, int depth);
  // Moves to the next non-empty chunk when the current one is used up.
  void Normalize();

  const std::vector<absl::string_view>* chunks_;
  size_t size_ = 0;
  Mark mark_;
};

// --- Writing (into a std::string; the encoder's small headers). ---
void AppendVarint(uint64_t value, std::string* out);
void AppendTag(uint32_t field, WireType type, std::string* out);
size_t VarintSize(uint64_t value);
size_t TagSize(uint32_t field);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_WIRE_READER_H_
