// Tensor <-> TensorProto, byte-compatible with TensorFlow's encoding.
//
// Two encodings exist on the wire: tensor_content (raw little-endian element
// bytes; for strings TensorFlow's "string list": every length as a varint32,
// then all the bytes) and one typed repeated field per dtype (float_val,
// int_val, ...). FromProto accepts both; tensor_content wins when set.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"

namespace tributary {
namespace {

using tensorflow::TensorProto;

// --- The typed field of each element type ------------------------------------
// Values(proto) gives the repeated field, Get(field, i) converts one element
// to T, Add(value, proto) appends one. Types narrower than 32 bits share
// int_val (TensorFlow's choice); half and bfloat16 travel as their 16 bits in
// half_val.

template <typename T>
struct ProtoField;

#define TRIB_SIMPLE_PROTO_FIELD(TYPE, FIELD)                                \
  template <>                                                              \
  struct ProtoField<TYPE> {                                                \
    static constexpr const char* kName = #FIELD;                           \
    static int64_t Count(const TensorProto& p) { return p.FIELD##_size(); } \
    static TYPE Get(const TensorProto& p, int64_t i) {                     \
      return static_cast<TYPE>(p.FIELD(static_cast<int>(i)));              \
    }                                                                      \
    static void Add(const TYPE& v, TensorProto* p) { p->add_##FIELD(v); }  \
  }

TRIB_SIMPLE_PROTO_FIELD(float, float_val);
TRIB_SIMPLE_PROTO_FIELD(double, double_val);
TRIB_SIMPLE_PROTO_FIELD(int32_t, int_val);
TRIB_SIMPLE_PROTO_FIELD(int16_t, int_val);
TRIB_SIMPLE_PROTO_FIELD(int8_t, int_val);
TRIB_SIMPLE_PROTO_FIELD(uint8_t, int_val);
TRIB_SIMPLE_PROTO_FIELD(uint16_t, int_val);
TRIB_SIMPLE_PROTO_FIELD(int64_t, int64_val);
TRIB_SIMPLE_PROTO_FIELD(uint32_t, uint32_val);
TRIB_SIMPLE_PROTO_FIELD(uint64_t, uint64_val);
TRIB_SIMPLE_PROTO_FIELD(bool, bool_val);
TRIB_SIMPLE_PROTO_FIELD(std::string, string_val);
#undef TRIB_SIMPLE_PROTO_FIELD

// Resource handles always travel as messages in resource_handle_val.
template <>
struct ProtoField<ResourceHandle> {
  static constexpr const char* kName = "resource_handle_val";
  static int64_t Count(const TensorProto& p) { return p.resource_handle_val_size(); }
  static ResourceHandle Get(const TensorProto& p, int64_t i) {
    return p.resource_handle_val(static_cast<int>(i));
  }
  static void Add(const ResourceHandle& v, TensorProto* p) {
    *p->add_resource_handle_val() = v;
  }
};

template <typename T>
struct HalfBitsProtoField {
  static constexpr const char* kName = "half_val";
  static int64_t Count(const TensorProto& p) { return p.half_val_size(); }
  static T Get(const TensorProto& p, int64_t i) {
    return Eigen::numext::bit_cast<T>(
        static_cast<uint16_t>(p.half_val(static_cast<int>(i))));
  }
  static void Add(const T& v, TensorProto* p) {
    p->add_half_val(Eigen::numext::bit_cast<uint16_t>(v));
  }
};
template <>
struct ProtoField<half> : HalfBitsProtoField<half> {};
template <>
struct ProtoField<bfloat16> : HalfBitsProtoField<bfloat16> {};

// Complex numbers are (real, imaginary) pairs in one repeated field.
template <>
struct ProtoField<complex64> {
  static constexpr const char* kName = "scomplex_val";
  static int64_t Count(const TensorProto& p) { return p.scomplex_val_size() / 2; }
  static complex64 Get(const TensorProto& p, int64_t i) {
    return complex64(p.scomplex_val(2 * i), p.scomplex_val(2 * i + 1));
  }
  static void Add(const complex64& v, TensorProto* p) {
    p->add_scomplex_val(v.real());
    p->add_scomplex_val(v.imag());
  }
};
template <>
struct ProtoField<complex128> {
  static constexpr const char* kName = "dcomplex_val";
  static int64_t Count(const TensorProto& p) { return p.dcomplex_val_size() / 2; }
  static complex128 Get(const TensorProto& p, int64_t i) {
    return complex128(p.dcomplex_val(2 * i), p.dcomplex_val(2 * i + 1));
  }
  static void Add(const complex128& v, TensorProto* p) {
    p->add_dcomplex_val(v.real());
    p->add_dcomplex_val(v.imag());
  }
};

// Runs STMT with `T` bound to the storage type of `dtype`. Quantized types are
// stored as the integer of the same width (their C++ types are not defined
// here) and travel in int_val like in TensorFlow.
#define TRIB_CASE(ENUM, TYPE, STMT) \
  case ENUM: {                      \
    using T = TYPE;                 \
    STMT;                           \
    break;                          \
  }
#define TRIB_TENSOR_PROTO_CASES(DTYPE, STMT, DEFAULT)  \
  switch (DTYPE) {                                     \
    TRIB_CASE(DT_FLOAT, float, STMT)                   \
    TRIB_CASE(DT_DOUBLE, double, STMT)                 \
    TRIB_CASE(DT_INT32, int32_t, STMT)                 \
    TRIB_CASE(DT_UINT32, uint32_t, STMT)               \
    TRIB_CASE(DT_INT16, int16_t, STMT)                 \
    TRIB_CASE(DT_UINT16, uint16_t, STMT)               \
    TRIB_CASE(DT_INT8, int8_t, STMT)                   \
    TRIB_CASE(DT_UINT8, uint8_t, STMT)                 \
    TRIB_CASE(DT_INT64, int64_t, STMT)                 \
    TRIB_CASE(DT_UINT64, uint64_t, STMT)               \
    TRIB_CASE(DT_BOOL, bool, STMT)                     \
    TRIB_CASE(DT_HALF, half, STMT)                     \
    TRIB_CASE(DT_BFLOAT16, bfloat16, STMT)             \
    TRIB_CASE(DT_COMPLEX64, complex64, STMT)           \
    TRIB_CASE(DT_COMPLEX128, complex128, STMT)         \
    TRIB_CASE(DT_STRING, std::string, STMT)            \
    TRIB_CASE(DT_RESOURCE, ResourceHandle, STMT)       \
    TRIB_CASE(DT_QINT8, int8_t, STMT)                  \
    TRIB_CASE(DT_QUINT8, uint8_t, STMT)                \
    TRIB_CASE(DT_QINT16, int16_t, STMT)                \
    TRIB_CASE(DT_QUINT16, uint16_t, STMT)              \
    TRIB_CASE(DT_QINT32, int32_t, STMT)                \
    default:                                           \
      DEFAULT;                                         \
  }

// --- Varint32 string-list coding (TensorFlow's port::EncodeStringList) -------

void PutVarint32(uint32_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Reads one varint32 from the front of `in`; false when truncated or too long.
bool GetVarint32(absl::string_view* in, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

void EncodeStringList(const std::string* strings, int64_t n, std::string* out) {
  out->clear();
  for (int64_t i = 0; i < n; ++i) {
    PutVarint32(static_cast<uint32_t>(strings[i].size()), out);
  }
  for (int64_t i = 0; i < n; ++i) out->append(strings[i]);
}

// Prefix for every FromProto error, naming the proto's dtype and shape.
std::string Describe(const TensorProto& proto, const TensorShape& shape) {
  return absl::StrCat("TensorProto of dtype ", DataTypeString(proto.dtype()),
                      " and shape ", shape.DebugString());
}

absl::Status DecodeStringList(const TensorProto& proto, Tensor* t) {
  absl::string_view in = proto.tensor_content();
  const int64_t n = t->NumElements();
  std::string* out = static_cast<std::string*>(t->data());
  std::vector<uint32_t> sizes(n);
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!GetVarint32(&in, &sizes[i])) {
      return errors::InvalidArgument(Describe(proto, t->shape()),
                                     " has tensor_content with a malformed "
                                     "length for string ", i);
    }
    total += sizes[i];
  }
  if (total != in.size()) {
    return errors::InvalidArgument(
        Describe(proto, t->shape()), " has tensor_content whose string lengths add up to ",
        total, " bytes but ", in.size(), " bytes follow them");
  }
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(in.data(), sizes[i]);
    in.remove_prefix(sizes[i]);
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status DecodeContent(const TensorProto& proto, Tensor* t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return DecodeStringList(proto, t);
  } else if constexpr (std::is_same_v<T, ResourceHandle>) {
    return errors::InvalidArgument(Describe(proto, t->shape()),
                                   " carries resource handles in tensor_content;"
                                   " they must be in resource_handle_val");
  } else {
    const std::string& content = proto.tensor_content();
    // NumElements * sizeof(T) fits: the tensor was allocated with that size.
    const uint64_t expected = static_cast<uint64_t>(t->NumElements()) * sizeof(T);
    if (content.size() != expected) {
      return errors::InvalidArgument(Describe(proto, t->shape()), " has ",
                                     content.size(),
                                     " bytes of tensor_content; expected ",
                                     expected, " (", t->NumElements(),
                                     " elements of ", sizeof(T), " bytes)");
    }
    if constexpr (std::is_same_v<T, bool>) {
      // Only 0 and 1 are valid bool object representations; a peer may send
      // any non-zero byte for true.
      bool* data = static_cast<bool*>(t->data());
      for (size_t i = 0; i < content.size(); ++i) data[i] = content[i] != 0;
    } else if (expected > 0) {
      std::memcpy(t->data(), content.data(), expected);
    }
    return absl::OkStatus();
  }
}

template <typename T>
absl::Status DecodeField(const TensorProto& proto, Tensor* t) {
  using Field = ProtoField<T>;
  const int64_t n = t->NumElements();
  const int64_t in_n = Field::Count(proto);
  if (std::is_same_v<T, complex64> && proto.scomplex_val_size() % 2 != 0) {
    return errors::InvalidArgument(Describe(proto, t->shape()), " has ",
                                   proto.scomplex_val_size(),
                                   " scomplex_val values; expected (real, "
                                   "imaginary) pairs");
  }
  if (std::is_same_v<T, complex128> && proto.dcomplex_val_size() % 2 != 0) {
    return errors::InvalidArgument(Describe(proto, t->shape()), " has ",
                                   proto.dcomplex_val_size(),
                                   " dcomplex_val values; expected (real, "
                                   "imaginary) pairs");
  }
  if (in_n > n) {
    return errors::InvalidArgument(Describe(proto, t->shape()), " has ", in_n,
                                   " values in ", Field::kName, ", more than its ",
                                   n, " elements");
  }
  T* data = static_cast<T*>(t->data());
  if (n == 0) return absl::OkStatus();
  if (in_n == 0) {
    // No values at all means zeros (std::string: empty strings).
    std::fill_n(data, n, T());
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < in_n; ++i) data[i] = Field::Get(proto, i);
  // Fewer values than elements: the last one repeats (TensorFlow's rule).
  std::fill(data + in_n, data + n, data[in_n - 1]);
  return absl::OkStatus();
}

template <typename T>
void EncodeField(const Tensor& t, TensorProto* proto) {
  const T* data = static_cast<const T*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) ProtoField<T>::Add(data[i], proto);
}

}  // namespace

absl::StatusOr<Tensor> Tensor::FromProto(const TensorProto& proto,
                                         Allocator* allocator,
                                         int64_t max_expanded_bytes) {
  if (allocator == nullptr) allocator = cpu_allocator();
  const DataType dtype = proto.dtype();
  if (dtype == DT_VARIANT) {
    // Variants (TensorLists, ...) live only in memory; TensorFlow would
    // encode them as VariantTensorData, which we do not implement.
    return errors::Unimplemented(
        "TensorProto has dtype variant: variant tensors (e.g. TensorLists) "
        "cannot be serialised or sent between processes by Tributary");
  }
  if (!DataTypeIsSupportedByTensor(dtype)) {
    return errors::InvalidArgument("TensorProto has dtype ",
                                   DataTypeString(dtype),
                                   ", which a Tensor cannot hold");
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok()) {
    return errors::InvalidArgument("TensorProto of dtype ", DataTypeString(dtype),
                                   " has an invalid tensor_shape: ",
                                   shape.status().message());
  }
  const bool use_content = !proto.tensor_content().empty();
  if (max_expanded_bytes > 0 && !use_content) {
    // In memory: strings and handles are objects, whatever their bytes.
    int64_t carried = 0, element_bytes = 1;
    TRIB_TENSOR_PROTO_CASES(dtype,
                            {
                              carried = ProtoField<T>::Count(proto);
                              element_bytes = sizeof(T);
                            },
                            break);
    const int64_t elements = shape->num_elements();
    if (elements > carried && elements > max_expanded_bytes / element_bytes) {
      return errors::ResourceExhausted(
          Describe(proto, *shape), " carries ", carried, " values for ",
          elements, " elements; a tensor in a request may expand to at most ",
          max_expanded_bytes, " bytes: send its values");
    }
  }
  Tensor t(allocator, dtype, *shape);
  if (!t.IsInitialized()) {
    return errors::ResourceExhausted(
        "could not allocate ", DataTypeString(dtype), " tensor of shape ",
        shape->DebugString(), " with allocator ", allocator->Name());
  }
  absl::Status status;
  TRIB_TENSOR_PROTO_CASES(
      dtype,
      status = use_content ? DecodeContent<T>(proto, &t) : DecodeField<T>(proto, &t),
      return errors::Internal("no proto decoder for ", DataTypeString(dtype)));
  if (!status.ok()) return status;
  return t;
}

void Tensor::AsProtoTensorContent(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  // Variants have no encoding: dtype and shape only (FromProto rejects it).
  if (buf_ == nullptr || dtype_ == DT_VARIANT) return;
  if (dtype_ == DT_STRING) {
    EncodeStringList(base<const std::string>(), NumElements(),
                     proto->mutable_tensor_content());
  } else if (dtype_ == DT_RESOURCE) {
    // Handles are messages, not bytes: they have only the field encoding.
    EncodeField<ResourceHandle>(*this, proto);
  } else {
    const absl::string_view bytes = tensor_data();
    proto->set_tensor_content(bytes.data(), bytes.size());
  }
}

void Tensor::AsProtoField(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (buf_ == nullptr || dtype_ == DT_VARIANT) return;
  TRIB_TENSOR_PROTO_CASES(dtype_, EncodeField<T>(*this, proto),
                          CHECK(false) << "no proto encoder for "
                                       << DataTypeString(dtype_));
}

}  // namespace tributary
