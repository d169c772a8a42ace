#include "common/checkpoint/ordered_code.h"

namespace tributary {
namespace ordered_code {
namespace {

// Encoded length of a signed number from its significant bits: each byte of
// the encoding carries 7 payload bits (the first byte also the sign), so n
// bytes hold values in [-2^(7n-1), 2^(7n-1)), up to 10 bytes for int64.
int SignedLength(int64_t value) {
  const uint64_t x = value < 0 ? ~static_cast<uint64_t>(value)
                               : static_cast<uint64_t>(value);
  int bits = 0;  // bits needed for x, plus the sign bit
  while (bits < 64 && (x >> bits) != 0) ++bits;
  ++bits;
  const int len = (bits + 6) / 7;
  return len < 1 ? 1 : len;
}

}  // namespace

void WriteNumIncreasing(std::string* dest, uint64_t value) {
  unsigned char buf[9];
  int len = 0;
  while (value > 0) {
    buf[8 - len] = static_cast<unsigned char>(value & 0xff);
    value >>= 8;
    ++len;
  }
  dest->push_back(static_cast<char>(len));
  dest->append(reinterpret_cast<const char*>(buf + 9 - len), len);
}

void WriteSignedNumIncreasing(std::string* dest, int64_t value) {
  // The two's complement value, sign-extended to 10 big-endian bytes, of
  // which the last `len` are kept; XORing kHeader[len] into their first bits
  // turns the sign copies there into the header: for a non-negative number
  // `len` ones then a zero (a negative one gets zeros then a one).
  static const unsigned char kHeader[11][2] = {
      {0, 0},       {0x80, 0},    {0xc0, 0},    {0xe0, 0},
      {0xf0, 0},    {0xf8, 0},    {0xfc, 0},    {0xfe, 0},
      {0xff, 0},    {0xff, 0x80}, {0xff, 0xc0}};
  const int len = SignedLength(value);
  unsigned char buf[10];
  const unsigned char sign = value < 0 ? 0xff : 0x00;
  buf[0] = sign;
  buf[1] = sign;
  const uint64_t u = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) {
    buf[2 + i] = static_cast<unsigned char>(u >> (56 - 8 * i));
  }
  unsigned char* begin = buf + 10 - len;
  begin[0] ^= kHeader[len][0];
  if (len >= 2) begin[1] ^= kHeader[len][1];
  dest->append(reinterpret_cast<const char*>(begin), len);
}

void WriteString(std::string* dest, absl::string_view s) {
  for (const char c : s) {
    if (c == '\0') {
      dest->push_back('\0');
      dest->push_back('\xff');
    } else if (c == '\xff') {
      dest->push_back('\xff');
      dest->push_back('\0');
    } else {
      dest->push_back(c);
    }
  }
  dest->push_back('\0');
  dest->push_back('\1');
}

bool ReadNumIncreasing(absl::string_view* src, uint64_t* value) {
  if (src->empty()) return false;
  const size_t len = static_cast<unsigned char>((*src)[0]);
  if (len > 8 || src->size() < len + 1) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) {
    v = (v << 8) | static_cast<unsigned char>((*src)[1 + i]);
  }
  *value = v;
  src->remove_prefix(len + 1);
  return true;
}

bool ReadSignedNumIncreasing(absl::string_view* src, int64_t* value) {
  if (src->empty()) return false;
  const bool negative = !(static_cast<unsigned char>((*src)[0]) & 0x80);
  const unsigned char flip = negative ? 0xff : 0x00;
  // Count the leading header bits (ones after flipping for the sign).
  int len = 0;
  int bit = 0;
  for (; bit < 16; ++bit) {
    const size_t byte = bit / 8;
    if (byte >= src->size()) return false;
    const unsigned char b = static_cast<unsigned char>((*src)[byte]) ^ flip;
    if (!(b & (0x80 >> (bit % 8)))) break;
  }
  len = bit;  // the number of set header bits is the encoded length
  if (len < 1 || len > 10 || src->size() < static_cast<size_t>(len)) {
    return false;
  }
  // Payload: the bits after the header and its terminating bit, sign-extended.
  const int payload_bits = 8 * len - len - 1;
  uint64_t raw = 0;
  for (int i = 0; i < len; ++i) {
    raw = (raw << 8) | static_cast<unsigned char>((*src)[i]);
  }
  uint64_t payload;
  if (payload_bits >= 64) {
    payload = raw;
  } else {
    payload = raw & ((uint64_t{1} << payload_bits) - 1);
    if (negative) payload |= ~((uint64_t{1} << payload_bits) - 1);
  }
  if (len == 10) {
    // 79 payload bits of which only the low 64 fit; the rest are sign copies.
    payload = 0;
    for (int i = 2; i < 10; ++i) {
      payload = (payload << 8) | static_cast<unsigned char>((*src)[i]);
    }
  }
  *value = static_cast<int64_t>(payload);
  src->remove_prefix(len);
  return true;
}

bool ReadString(absl::string_view* src, std::string* value) {
  std::string out;
  size_t i = 0;
  while (i + 1 < src->size()) {
    const char c = (*src)[i];
    if (c == '\0') {
      const char next = (*src)[i + 1];
      if (next == '\1') {
        *value = std::move(out);
        src->remove_prefix(i + 2);
        return true;
      }
      if (next != '\xff') return false;
      out.push_back('\0');
      i += 2;
    } else if (c == '\xff') {
      if ((*src)[i + 1] != '\0') return false;
      out.push_back('\xff');
      i += 2;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return false;
}

}  // namespace ordered_code
}  // namespace tributary
