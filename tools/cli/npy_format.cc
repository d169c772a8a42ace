#include "tools/cli/npy_format.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"

// Tensors hold their elements in host order; the conversions below assume
// that is little-endian (x86-64, AArch64), as numpy's '<' is.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "npy_format assumes a little-endian host");

namespace tributary {
namespace {

constexpr absl::string_view kMagic("\x93NUMPY", 6);
// numpy's own cap on dims is 32 (NPY_MAXDIMS, 64 in numpy 2); ours is
// larger, so TensorShape's limit is the one that matters.
constexpr int64_t kMaxDims = kMaxTensorShapeDims;

// ---- The header: a Python dict literal ----------------------------------

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// A recursive-descent reader of exactly the literals numpy writes in a
// header: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<Header> Parse() {
    Header header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    TRIB_RETURN_IF_ERROR(Expect('{'));
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      TRIB_ASSIGN_OR_RETURN(std::string key, String());
      TRIB_RETURN_IF_ERROR(Expect(':'));
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') {
          return errors::InvalidArgument(
              "structured (record) dtypes are not supported");
        }
        TRIB_ASSIGN_OR_RETURN(header.descr, String());
        if (seen_descr) return Duplicate(key);
        seen_descr = true;
      } else if (key == "fortran_order") {
        TRIB_ASSIGN_OR_RETURN(header.fortran_order, Bool());
        if (seen_order) return Duplicate(key);
        seen_order = true;
      } else if (key == "shape") {
        TRIB_ASSIGN_OR_RETURN(header.shape, Tuple());
        if (seen_shape) return Duplicate(key);
        seen_shape = true;
      } else {
        return errors::InvalidArgument("unexpected header key '", key, "'");
      }
      SkipSpace();
      if (Consume('}')) break;
      TRIB_RETURN_IF_ERROR(Expect(','));
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      return errors::InvalidArgument("unexpected text after the header dict");
    }
    if (!seen_descr || !seen_order || !seen_shape) {
      return errors::InvalidArgument(
          "the header lacks 'descr', 'fortran_order' or 'shape'");
    }
    return header;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c || pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  absl::Status Expect(char c) {
    SkipSpace();
    if (Consume(c)) return absl::OkStatus();
    return errors::InvalidArgument("malformed header: expected '",
                                   std::string(1, c), "' at offset ", pos_);
  }
  absl::Status Duplicate(const std::string& key) {
    return errors::InvalidArgument("header key '", key, "' appears twice");
  }

  absl::StatusOr<std::string> String() {
    SkipSpace();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') {
      return errors::InvalidArgument(
          "malformed header: expected a string at offset ", pos_);
    }
    ++pos_;
    const size_t end = text_.find(quote, pos_);
    if (end == absl::string_view::npos) {
      return errors::InvalidArgument("malformed header: unterminated string");
    }
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }

  absl::StatusOr<bool> Bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    return errors::InvalidArgument(
        "malformed header: fortran_order must be True or False");
  }

  absl::StatusOr<int64_t> Int() {
    SkipSpace();
    const bool negative = Consume('-');
    if (!absl::ascii_isdigit(Peek())) {
      return errors::InvalidArgument(
          "malformed header: expected a dim at offset ", pos_);
    }
    int64_t value = 0;
    while (absl::ascii_isdigit(Peek())) {
      const int digit = text_[pos_++] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return errors::InvalidArgument("a dim in the header overflows int64");
      }
      value = value * 10 + digit;
    }
    Consume('L');  // Python 2 wrote longs as 3L.
    if (negative && value != 0) {
      return errors::InvalidArgument("negative dim -", value, " in the header");
    }
    return value;
  }

  absl::StatusOr<std::vector<int64_t>> Tuple() {
    TRIB_RETURN_IF_ERROR(Expect('('));
    std::vector<int64_t> dims;
    while (true) {
      SkipSpace();
      if (Consume(')')) break;
      if (static_cast<int64_t>(dims.size()) >= kMaxDims) {
        return errors::InvalidArgument("the header's shape has more than ",
                                       kMaxDims, " dims");
      }
      TRIB_ASSIGN_OR_RETURN(int64_t dim, Int());
      dims.push_back(dim);
      SkipSpace();
      if (Consume(')')) break;
      TRIB_RETURN_IF_ERROR(Expect(','));
    }
    return dims;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

// ---- descr <-> dtype ------------------------------------------------------

enum class Order { kLittle, kBig, kNone };

struct Descr {
  DataType dtype = tensorflow::DT_INVALID;
  Order order = Order::kNone;
  int64_t itemsize = 0;    // Bytes per element in the file.
  char kind = 0;           // numpy's kind: b i u f c S U.
  int64_t swap_width = 0;  // Byte-swapped in units of this many bytes.
};

absl::StatusOr<Descr> ParseDescr(const std::string& text) {
  absl::string_view s = text;
  Descr d;
  const auto unsupported = [&text](absl::string_view why) {
    return errors::InvalidArgument("unsupported dtype '", text, "'", why);
  };
  if (s.empty()) return unsupported("");
  switch (s[0]) {
    case '<':
    case '=':  // Native; numpy never writes it, and native is little here.
      d.order = Order::kLittle;
      s.remove_prefix(1);
      break;
    case '>':
    case '!':
      d.order = Order::kBig;
      s.remove_prefix(1);
      break;
    case '|':
      s.remove_prefix(1);
      break;
  }
  if (s.empty()) return unsupported("");
  d.kind = s[0];
  s.remove_prefix(1);
  if (s.empty() || s.size() > 12) return unsupported("");
  int64_t size = 0;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return unsupported("");
    size = size * 10 + (c - '0');
  }
  d.itemsize = size;
  d.swap_width = size;
  const auto sized =
      [&](std::initializer_list<std::pair<int, DataType>> by) -> absl::Status {
    for (const auto& [bytes, dtype] : by) {
      if (bytes == size) {
        d.dtype = dtype;
        return absl::OkStatus();
      }
    }
    return unsupported(" (no such Tensor dtype)");
  };
  switch (d.kind) {
    case 'b':
      TRIB_RETURN_IF_ERROR(sized({{1, tensorflow::DT_BOOL}}));
      break;
    case 'i':
      TRIB_RETURN_IF_ERROR(sized({{1, tensorflow::DT_INT8},
                                  {2, tensorflow::DT_INT16},
                                  {4, tensorflow::DT_INT32},
                                  {8, tensorflow::DT_INT64}}));
      break;
    case 'u':
      TRIB_RETURN_IF_ERROR(sized({{1, tensorflow::DT_UINT8},
                                  {2, tensorflow::DT_UINT16},
                                  {4, tensorflow::DT_UINT32},
                                  {8, tensorflow::DT_UINT64}}));
      break;
    case 'f':
      TRIB_RETURN_IF_ERROR(sized({{2, tensorflow::DT_HALF},
                                  {4, tensorflow::DT_FLOAT},
                                  {8, tensorflow::DT_DOUBLE}}));
      break;
    case 'c':
      TRIB_RETURN_IF_ERROR(sized(
          {{8, tensorflow::DT_COMPLEX64}, {16, tensorflow::DT_COMPLEX128}}));
      d.swap_width = size / 2;  // Real and imaginary parts swap separately.
      break;
    case 'S':
    case 'a':
      d.kind = 'S';
      d.dtype = tensorflow::DT_STRING;
      d.swap_width = 1;
      break;
    case 'U':
      if (size > std::numeric_limits<int64_t>::max() / 4)
        return unsupported("");
      d.dtype = tensorflow::DT_STRING;
      d.itemsize = size * 4;
      d.swap_width = 4;
      break;
    default:
      return unsupported(d.kind == 'O'
                             ? " (object arrays are pickles; save a numeric or "
                               "fixed-width string array)"
                             : "");
  }
  if (d.itemsize == 0) return unsupported(" (zero-width elements)");
  return d;
}

// ---- Decoding -------------------------------------------------------------

uint32_t ReadLe(absl::string_view bytes, size_t pos, int width) {
  uint32_t v = 0;
  for (int i = width - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<uint8_t>(bytes[pos + i]);
  }
  return v;
}

// The C-order copy of Fortran-order element data.
std::string FortranToC(absl::string_view data, const std::vector<int64_t>& dims,
                       int64_t count, int64_t itemsize) {
  std::string out(data.size(), '\0');
  const size_t n = dims.size();
  std::vector<int64_t> f_stride(n, 1), index(n, 0);
  for (size_t k = 1; k < n; ++k) f_stride[k] = f_stride[k - 1] * dims[k - 1];
  int64_t src = 0;  // Element offset in Fortran order of `index`.
  for (int64_t dst = 0; dst < count; ++dst) {
    std::memcpy(&out[dst * itemsize], data.data() + src * itemsize, itemsize);
    // Advance `index` in C order (last dim fastest).
    for (size_t k = n; k-- > 0;) {
      if (++index[k] < dims[k]) {
        src += f_stride[k];
        break;
      }
      src -= (dims[k] - 1) * f_stride[k];
      index[k] = 0;
    }
  }
  return out;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

absl::Status FillStrings(absl::string_view data, const Descr& d, Tensor* t) {
  auto flat = t->flat<std::string>();
  for (int64_t i = 0; i < flat.size(); ++i) {
    absl::string_view item = data.substr(i * d.itemsize, d.itemsize);
    std::string& s = flat(i);
    if (d.kind == 'S') {
      size_t len = item.size();
      while (len > 0 && item[len - 1] == '\0') --len;  // numpy's padding.
      s.assign(item.data(), len);
      continue;
    }
    std::vector<uint32_t> units(item.size() / 4);
    for (size_t u = 0; u < units.size(); ++u) {
      uint32_t v = ReadLe(item, u * 4, 4);
      if (d.order == Order::kBig) v = __builtin_bswap32(v);
      units[u] = v;
    }
    while (!units.empty() && units.back() == 0) units.pop_back();
    for (uint32_t cp : units) {
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return errors::InvalidArgument("element ", i,
                                       " holds an invalid code point ", cp);
      }
      AppendUtf8(cp, &s);
    }
  }
  return absl::OkStatus();
}

void SwapBytes(char* data, int64_t bytes, int64_t width) {
  if (width <= 1) return;
  for (int64_t off = 0; off + width <= bytes; off += width) {
    for (int64_t a = off, b = off + width - 1; a < b; ++a, --b) {
      std::swap(data[a], data[b]);
    }
  }
}

// Multiplies, reporting overflow of int64 instead of wrapping.
bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

}  // namespace

absl::StatusOr<Tensor> DecodeNpy(absl::string_view bytes) {
  if (bytes.size() < kMagic.size() ||
      bytes.substr(0, kMagic.size()) != kMagic) {
    return errors::InvalidArgument("not a .npy file (no \\x93NUMPY magic)");
  }
  if (bytes.size() < 10) {
    return errors::InvalidArgument("truncated .npy: ", bytes.size(),
                                   " bytes, less than its preamble");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  size_t header_start;
  uint64_t header_len;
  if (major == 1) {
    header_len = ReadLe(bytes, 8, 2);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      return errors::InvalidArgument("truncated .npy: ", bytes.size(),
                                     " bytes, less than its preamble");
    }
    header_len = ReadLe(bytes, 8, 4);
    header_start = 12;
  } else {
    return errors::InvalidArgument("unsupported .npy version ", major, ".",
                                   minor, " (1.0, 2.0 and 3.0 are read)");
  }
  if (header_len > bytes.size() - header_start) {
    return errors::InvalidArgument("truncated .npy: the header claims ",
                                   header_len, " bytes but the file has ",
                                   bytes.size() - header_start,
                                   " after the preamble");
  }
  absl::StatusOr<Header> header =
      HeaderParser(bytes.substr(header_start, header_len)).Parse();
  if (!header.ok()) {
    return errors::InvalidArgument("bad .npy header: ",
                                   header.status().message());
  }
  TRIB_ASSIGN_OR_RETURN(Descr descr, ParseDescr(header->descr));

  // Sizes before any allocation: a zero dim makes the count 0 whatever the
  // others are, as numpy computes it.
  int64_t count = 1;
  bool any_zero = false;
  for (int64_t dim : header->shape) any_zero = any_zero || dim == 0;
  if (any_zero) {
    count = 0;
  } else {
    for (int64_t dim : header->shape) {
      if (MulOverflows(count, dim, &count)) {
        return errors::InvalidArgument("the header's shape (",
                                       absl::StrJoin(header->shape, ", "),
                                       ") overflows the element count");
      }
    }
  }
  int64_t data_bytes;
  if (MulOverflows(count, descr.itemsize, &data_bytes)) {
    return errors::InvalidArgument("the header's shape (",
                                   absl::StrJoin(header->shape, ", "), ") of '",
                                   header->descr, "' overflows the byte count");
  }
  absl::string_view data = bytes.substr(header_start + header_len);
  if (static_cast<uint64_t>(data_bytes) != data.size()) {
    return errors::InvalidArgument(
        data.size() < static_cast<uint64_t>(data_bytes) ? "truncated .npy: "
                                                        : "bad .npy: ",
        "the header's shape (", absl::StrJoin(header->shape, ", "), ") of '",
        header->descr, "' needs ", data_bytes, " data bytes but the file has ",
        data.size());
  }
  TRIB_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(header->shape));

  std::string transposed;
  if (header->fortran_order && header->shape.size() > 1 && count > 0) {
    transposed = FortranToC(data, header->shape, count, descr.itemsize);
    data = transposed;
  }

  Tensor t(descr.dtype, shape);
  if (descr.dtype == tensorflow::DT_STRING) {
    TRIB_RETURN_IF_ERROR(FillStrings(data, descr, &t));
    return t;
  }
  if (count == 0) return t;
  char* out = static_cast<char*>(t.data());
  std::memcpy(out, data.data(), data.size());
  if (descr.order == Order::kBig) SwapBytes(out, data_bytes, descr.swap_width);
  if (descr.dtype == tensorflow::DT_BOOL) {
    // numpy treats any non-zero byte as True; a C++ bool must be 0 or 1.
    for (int64_t i = 0; i < data_bytes; ++i) out[i] = out[i] != 0 ? 1 : 0;
  }
  return t;
}

// ---- Encoding -------------------------------------------------------------

namespace {

absl::StatusOr<std::string> DescrFor(const Tensor& t) {
  switch (t.dtype()) {
    case tensorflow::DT_BOOL:
      return std::string("|b1");
    case tensorflow::DT_INT8:
      return std::string("|i1");
    case tensorflow::DT_UINT8:
      return std::string("|u1");
    case tensorflow::DT_INT16:
      return std::string("<i2");
    case tensorflow::DT_UINT16:
      return std::string("<u2");
    case tensorflow::DT_INT32:
      return std::string("<i4");
    case tensorflow::DT_UINT32:
      return std::string("<u4");
    case tensorflow::DT_INT64:
      return std::string("<i8");
    case tensorflow::DT_UINT64:
      return std::string("<u8");
    case tensorflow::DT_HALF:
      return std::string("<f2");
    case tensorflow::DT_FLOAT:
    case tensorflow::DT_BFLOAT16:
      return std::string("<f4");
    case tensorflow::DT_DOUBLE:
      return std::string("<f8");
    case tensorflow::DT_COMPLEX64:
      return std::string("<c8");
    case tensorflow::DT_COMPLEX128:
      return std::string("<c16");
    case tensorflow::DT_STRING: {
      size_t longest = 1;  // numpy has no S0 arrays.
      auto flat = t.flat<std::string>();
      for (int64_t i = 0; i < flat.size(); ++i) {
        longest = std::max(longest, flat(i).size());
      }
      return absl::StrCat("|S", longest);
    }
    default:
      return errors::InvalidArgument(DataTypeString(t.dtype()),
                                     " cannot be written as .npy");
  }
}

}  // namespace

absl::StatusOr<std::string> EncodeNpy(const Tensor& t) {
  if (!t.IsInitialized()) {
    return errors::InvalidArgument("the tensor has no value to write");
  }
  TRIB_ASSIGN_OR_RETURN(std::string descr, DescrFor(t));
  std::string shape;
  for (int d = 0; d < t.dims(); ++d) {
    absl::StrAppend(&shape, t.dim_size(d), t.dims() == 1 ? "," : "",
                    d + 1 < t.dims() ? ", " : "");
  }
  std::string header =
      absl::StrCat("{'descr': '", descr,
                   "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Pad with spaces and end with '\n' so the data starts 64-byte aligned.
  size_t preamble = 10;
  if (header.size() + 1 + preamble > 65535) preamble = 12;
  const size_t total = preamble + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  std::string out(kMagic);
  out.push_back(static_cast<char>(preamble == 10 ? 1 : 2));
  out.push_back(0);
  const uint64_t len = header.size();
  for (size_t i = 0; i < preamble - 8; ++i) {
    out.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
  }
  out += header;

  const int64_t n = t.NumElements();
  if (t.dtype() == tensorflow::DT_STRING) {
    const size_t width = std::stoul(descr.substr(2));
    auto flat = t.flat<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      out += flat(i);
      out.append(width - flat(i).size(), '\0');
    }
  } else if (t.dtype() == tensorflow::DT_BFLOAT16) {
    auto flat = t.flat<bfloat16>();
    for (int64_t i = 0; i < n; ++i) {
      const float f = static_cast<float>(flat(i));
      out.append(reinterpret_cast<const char*>(&f), sizeof(f));
    }
  } else {
    absl::string_view data = t.tensor_data();
    out.append(data.data(), data.size());
  }
  return out;
}

}  // namespace tributary
