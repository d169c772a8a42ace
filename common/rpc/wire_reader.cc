#include "common/rpc/wire_reader.h"

#include <algorithm>
#include <cstring>

namespace tributary {

WireReader::WireReader(const std::vector<absl::string_view>* chunks)
    : chunks_(chunks) {
  for (absl::string_view c : *chunks_) size_ += c.size();
  Normalize();
}

void WireReader::Normalize() {
  while (mark_.chunk < chunks_->size() &&
         mark_.offset == (*chunks_)[mark_.chunk].size()) {
    ++mark_.chunk;
    mark_.offset = 0;
  }
}

bool WireReader::ReadVarint64(uint64_t* value) {
  // Fast path: the whole varint (at most 10 bytes) is in this chunk.
  if (mark_.chunk < chunks_->size()) {
    const absl::string_view c = (*chunks_)[mark_.chunk];
    if (c.size() - mark_.offset >= 10) {
      const uint8_t* p =
          reinterpret_cast<const uint8_t*>(c.data()) + mark_.offset;
      uint64_t result = 0;
      for (int i = 0; i < 10; ++i) {
        const uint8_t byte = p[i];
        result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) {
          mark_.offset += i + 1;
          mark_.pos += i + 1;
          Normalize();
          *value = result;
          return true;
        }
      }
      return false;
    }
  }
  // Slow path: byte by byte across chunks. Like protobuf, bits beyond 64
  // in a tenth byte are dropped; an eleventh byte is an error.
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (mark_.chunk >= chunks_->size()) return false;
    const uint8_t byte =
        static_cast<uint8_t>((*chunks_)[mark_.chunk][mark_.offset]);
    ++mark_.offset;
    ++mark_.pos;
    Normalize();
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

bool WireReader::ReadFixed32(uint32_t* value) {
  uint8_t b[4];
  if (!CopyTo(b, 4)) return false;
  *value = static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
           (static_cast<uint32_t>(b[2]) << 16) |
           (static_cast<uint32_t>(b[3]) << 24);
  return true;
}

bool WireReader::ReadFixed64(uint64_t* value) {
  uint8_t b[8];
  if (!CopyTo(b, 8)) return false;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  *value = v;
  return true;
}

bool WireReader::ReadTag(uint32_t* field, WireType* type) {
  // Protobuf's rule: a tag is at most 5 bytes, and bits past 32 in the
  // fifth byte are dropped (found by tensor_coding_fuzzer: refusing them
  // refused messages protobuf parses).
  const size_t start = mark_.pos;
  uint64_t varint;
  if (!ReadVarint64(&varint)) return false;
  if (mark_.pos - start > 5) return false;
  const uint32_t key = static_cast<uint32_t>(varint);
  const uint32_t number = key >> 3;
  const uint32_t wire = static_cast<uint32_t>(key & 7);
  if (number == 0 || wire > 5) return false;
  *field = number;
  *type = static_cast<WireType>(wire);
  return true;
}

bool WireReader::ReadLength(size_t* length) {
  uint64_t v;
  if (!ReadVarint64(&v)) return false;
  if (v > remaining()) return false;
  *length = static_cast<size_t>(v);
  return true;
}

bool WireReader::Skip(size_t n) {
  if (n > remaining()) return false;
  while (n > 0) {
    const size_t avail = (*chunks_)[mark_.chunk].size() - mark_.offset;
    const size_t step = std::min(avail, n);
    mark_.offset += step;
    mark_.pos += step;
    n -= step;
    Normalize();
  }
  return true;
}

bool WireReader::SkipValue(WireType type, uint32_t field) {
  return SkipValue(type, field, 0);
}

bool WireReader::SkipValue(WireType type, uint32_t field, int depth) {
  switch (type) {
    case WireType::kVarint: {
      uint64_t v;
      return ReadVarint64(&v);
    }
    case WireType::kFixed64:
      return Skip(8);
    case WireType::kFixed32:
      return Skip(4);
    case WireType::kLengthDelimited: {
      size_t n;
      return ReadLength(&n) && Skip(n);
    }
    case WireType::kStartGroup: {
      // Fields up to the end-group tag of the same field, as protobuf keeps
      // an unknown group; nested no deeper than protobuf's recursion limit.
      if (depth >= kMaxGroupDepth) return false;
      while (true) {
        uint32_t inner;
        WireType inner_type;
        if (!ReadTag(&inner, &inner_type)) return false;
        if (inner_type == WireType::kEndGroup) return inner == field;
        if (!SkipValue(inner_type, inner, depth + 1)) return false;
      }
    }
    default:  // an end-group tag outside its group
      return false;
  }
}

bool WireReader::CopyTo(void* dst, size_t n) {
  if (n > remaining()) return false;
  char* out = static_cast<char*>(dst);
  while (n > 0) {
    const absl::string_view c = (*chunks_)[mark_.chunk];
    const size_t step = std::min(c.size() - mark_.offset, n);
    std::memcpy(out, c.data() + mark_.offset, step);
    out += step;
    mark_.offset += step;
    mark_.pos += step;
    n -= step;
    Normalize();
  }
  return true;
}

bool WireReader::AppendTo(std::string* out, size_t n) {
  if (n > remaining()) return false;
  const size_t old = out->size();
  out->resize(old + n);
  return CopyTo(&(*out)[old], n);
}

void WireReader::AppendRange(const Mark& from, std::string* out) const {
  WireReader copy(*this);
  copy.Seek(from);
  copy.AppendTo(out, mark_.pos - from.pos);
}

void AppendVarint(uint64_t value, std::string* out) {
  char buf[10];
  int n = 0;
  while (value >= 0x80) {
    buf[n++] = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  buf[n++] = static_cast<char>(value);
  out->append(buf, n);
}

void AppendTag(uint32_t field, WireType type, std::string* out) {
  AppendVarint((static_cast<uint64_t>(field) << 3) | static_cast<int>(type),
               out);
}

size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

size_t TagSize(uint32_t field) {
  return VarintSize(static_cast<uint64_t>(field) << 3);
}

}  // namespace tributary
