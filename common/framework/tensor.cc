#include "common/framework/tensor.h"

#include <cstdint>
#include <new>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace tributary {

bool TensorBuffer::Unref() const {
  // acq_rel: the deleting thread must see every other owner's writes.
  if (ref_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete this;
    return true;
  }
  return false;
}

// DT_VARIANT elements (Variant, variant.h) are C++ objects like strings, but
// this library cannot name their type: variant.h is deliberately not in
// tensor.h's include closure, so that adding it did not change the inputs of
// every compile action in the tree. The variant library installs these
// hooks from a static initialiser (variant.cc declares the same names);
// until it is linked, element_size is 0 and no DT_VARIANT buffer can be
// allocated (nothing could create a Variant either).
namespace variant_hooks {
size_t element_size = 0;
void (*construct)(void* data, int64_t n) = nullptr;
void (*destroy)(void* data, int64_t n) = nullptr;
void (*copy)(const void* from, void* to, int64_t n) = nullptr;
std::string (*debug_string)(const void* element) = nullptr;
}  // namespace variant_hooks

namespace {

// Bytes one element occupies in a buffer.
size_t ElementBytes(DataType dtype) {
  switch (dtype) {
    case DT_STRING:
      return sizeof(std::string);
    case DT_RESOURCE:
      return sizeof(ResourceHandle);
    case DT_VARIANT:
      return variant_hooks::element_size;
    default:
      return static_cast<size_t>(DataTypeSize(dtype));
  }
}

// String, resource and variant elements are C++ objects: constructed with the buffer
// and destroyed with it. Other dtypes are plain bytes.
template <typename T>
void ConstructElements(void* data, int64_t n) {
  T* elements = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) new (elements + i) T();
}
template <typename T>
void DestroyElements(void* data, int64_t n) {
  T* elements = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) elements[i].~T();
}

// A root buffer: memory from an Allocator holding `n` elements of `dtype`.
// For DT_STRING the elements are live std::string objects, constructed here
// and destroyed with the buffer.
class AlignedBuffer final : public TensorBuffer {
 public:
  // nullptr when the byte count overflows or the allocator fails.
  static AlignedBuffer* Create(Allocator* allocator, DataType dtype,
                               int64_t n) {
    size_t bytes;
    if (__builtin_mul_overflow(static_cast<size_t>(n), ElementBytes(dtype),
                               &bytes)) {
      return nullptr;
    }
    void* data = allocator->AllocateRaw(kAllocatorAlignment, bytes);
    if (data == nullptr) return nullptr;
    if (dtype == DT_STRING) ConstructElements<std::string>(data, n);
    if (dtype == DT_RESOURCE) ConstructElements<ResourceHandle>(data, n);
    if (dtype == DT_VARIANT) variant_hooks::construct(data, n);
    return new AlignedBuffer(allocator, data, bytes, dtype, n);
  }

  size_t size() const override { return bytes_; }
  TensorBuffer* root_buffer() override { return this; }

 private:
  AlignedBuffer(Allocator* allocator, void* data, size_t bytes, DataType dtype,
                int64_t n)
      : TensorBuffer(data),
        allocator_(allocator),
        bytes_(bytes),
        dtype_(dtype),
        n_(n) {}

  ~AlignedBuffer() override {
    if (dtype_ == DT_STRING) DestroyElements<std::string>(data(), n_);
    if (dtype_ == DT_RESOURCE) DestroyElements<ResourceHandle>(data(), n_);
    if (dtype_ == DT_VARIANT) variant_hooks::destroy(data(), n_);
    allocator_->DeallocateRaw(data());
  }

  Allocator* const allocator_;
  const size_t bytes_;
  const DataType dtype_;
  const int64_t n_;
};

// A window [offset, offset + bytes) into another buffer; keeps the root alive.
class SubBuffer final : public TensorBuffer {
 public:
  SubBuffer(TensorBuffer* parent, size_t offset, size_t bytes)
      : TensorBuffer(parent->base<char>() + offset),
        root_(parent->root_buffer()),
        bytes_(bytes) {
    CHECK_LE(offset + bytes, parent->size());
    root_->Ref();
  }

  size_t size() const override { return bytes_; }
  TensorBuffer* root_buffer() override { return root_; }
  bool OwnsMemory() const override { return root_->OwnsMemory(); }

 private:
  ~SubBuffer() override { root_->Unref(); }

  TensorBuffer* const root_;
  const size_t bytes_;
};

// One element as text for DebugString.
template <typename T>
std::string ElementString(const T& v) {
  return absl::StrCat(v);
}
template <>
std::string ElementString(const bool& v) {
  return v ? "true" : "false";
}
template <>
std::string ElementString(const int8_t& v) {
  return absl::StrCat(static_cast<int>(v));
}
template <>
std::string ElementString(const uint8_t& v) {
  return absl::StrCat(static_cast<int>(v));
}
template <>
std::string ElementString(const half& v) {
  return absl::StrCat(static_cast<float>(v));
}
template <>
std::string ElementString(const bfloat16& v) {
  return absl::StrCat(static_cast<float>(v));
}
template <>
std::string ElementString(const complex64& v) {
  return absl::StrCat("(", v.real(), ",", v.imag(), ")");
}
template <>
std::string ElementString(const complex128& v) {
  return absl::StrCat("(", v.real(), ",", v.imag(), ")");
}
template <>
std::string ElementString(const std::string& v) {
  return absl::StrCat("\"", absl::CEscape(v), "\"");
}

// Prints dims [d, rank) of `data` TensorFlow-style: the innermost dim as
// space-separated values, every outer dim in brackets, stopping after `limit`
// values with "...".
template <typename T>
void PrintDims(const T* data, absl::Span<const int64_t> dims, int d,
               int64_t limit, int64_t* printed, std::string* out) {
  const int rank = static_cast<int>(dims.size());
  if (d == rank - 1) {
    for (int64_t i = 0; i < dims[d]; ++i) {
      if (*printed >= limit) {
        out->append("...");
        return;
      }
      if (i > 0) out->append(" ");
      out->append(ElementString(data[*printed]));
      ++*printed;
    }
    return;
  }
  for (int64_t i = 0; i < dims[d]; ++i) {
    if (*printed >= limit) {
      out->append("...");
      return;
    }
    out->append("[");
    PrintDims(data, dims, d + 1, limit, printed, out);
    out->append("]");
  }
}

// Shape [0]: what default and moved-from tensors hold. Built once because
// moves are hot in the executor and TensorShape's constructor validates.
const TensorShape& EmptyVectorShape() {
  static const TensorShape* const shape = new TensorShape({0});
  return *shape;
}

template <typename T>
std::string Summarize(const Tensor& t, int64_t limit) {
  const T* data = static_cast<const T*>(t.data());
  if (t.dims() == 0) return ElementString(data[0]);
  std::string out;
  int64_t printed = 0;
  PrintDims(data, t.shape().dim_sizes(), 0, limit, &printed, &out);
  return out;
}

}  // namespace

Tensor::Tensor() : Tensor(DT_FLOAT) {}

Tensor::Tensor(DataType dtype) : dtype_(dtype), shape_(EmptyVectorShape()) {}

Tensor::Tensor(DataType dtype, const TensorShape& shape)
    : Tensor(cpu_allocator(), dtype, shape) {}

Tensor::Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape)
    : dtype_(dtype), shape_(shape) {
  CHECK(!IsRefType(dtype) && ElementBytes(dtype) > 0)
      << "Tensor cannot hold dtype " << DataTypeString(dtype);
  // Empty tensors need no memory; IsInitialized() is still true.
  if (shape.num_elements() > 0) {
    buf_ = AlignedBuffer::Create(allocator, dtype, shape.num_elements());
  }
}

Tensor::Tensor(DataType dtype, const TensorShape& shape, TensorBuffer* buffer)
    : dtype_(dtype), shape_(shape), buf_(buffer) {
  if (buf_ != nullptr) {
    CHECK_GE(buf_->size(), shape.num_elements() * ElementBytes(dtype))
        << "buffer too small for " << DataTypeString(dtype) << " "
        << shape.DebugString();
    buf_->Ref();
  }
}

Tensor::Tensor(float value) : Tensor(DT_FLOAT, TensorShape()) {
  scalar<float>()() = value;
}
Tensor::Tensor(double value) : Tensor(DT_DOUBLE, TensorShape()) {
  scalar<double>()() = value;
}
Tensor::Tensor(int32_t value) : Tensor(DT_INT32, TensorShape()) {
  scalar<int32_t>()() = value;
}
Tensor::Tensor(int64_t value) : Tensor(DT_INT64, TensorShape()) {
  scalar<int64_t>()() = value;
}
Tensor::Tensor(bool value) : Tensor(DT_BOOL, TensorShape()) {
  scalar<bool>()() = value;
}
Tensor::Tensor(const std::string& value) : Tensor(DT_STRING, TensorShape()) {
  scalar<std::string>()() = value;
}
Tensor::Tensor(const char* value) : Tensor(std::string(value)) {}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
  if (buf_ != nullptr) buf_->Ref();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), buf_(other.buf_) {
  other.buf_ = nullptr;
  // Leave `other` a valid empty tensor of the same dtype.
  other.shape_ = EmptyVectorShape();
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  if (other.buf_ != nullptr) other.buf_->Ref();
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  buf_ = other.buf_;
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  buf_ = other.buf_;
  other.buf_ = nullptr;
  other.shape_ = EmptyVectorShape();
  return *this;
}

Tensor::~Tensor() {
  if (buf_ != nullptr) buf_->Unref();
}

size_t Tensor::TotalBytes() const {
  if (dtype_ != DT_STRING) {
    return static_cast<size_t>(NumElements()) * ElementBytes(dtype_);
  }
  size_t total = static_cast<size_t>(NumElements()) * sizeof(std::string);
  if (buf_ != nullptr) {
    const std::string* strings = base<const std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) total += strings[i].size();
  }
  return total;
}

bool Tensor::IsInitialized() const {
  return buf_ != nullptr || NumElements() == 0;
}

bool Tensor::IsAligned() const {
  return reinterpret_cast<uintptr_t>(data()) % kAllocatorAlignment == 0;
}

absl::string_view Tensor::tensor_data() const {
  if (buf_ == nullptr) return absl::string_view();
  return absl::string_view(static_cast<const char*>(buf_->data()),
                           NumElements() * ElementBytes(dtype_));
}

bool Tensor::SharesBufferWith(const Tensor& other) const {
  return buf_ != nullptr && other.buf_ != nullptr &&
         buf_->root_buffer() == other.buf_->root_buffer();
}

bool Tensor::RefCountIsOne() const {
  // A slice holds a reference on the root, so the root's count catches
  // "someone else still sees this memory through a slice or its parent".
  return buf_ != nullptr && buf_->RefCountIsOne() &&
         buf_->root_buffer()->RefCountIsOne() && buf_->OwnsMemory();
}

bool Tensor::CopyFrom(const Tensor& other, const TensorShape& shape) {
  if (other.NumElements() != shape.num_elements()) return false;
  if (other.buf_ != nullptr) other.buf_->Ref();
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = shape;
  buf_ = other.buf_;
  return true;
}

Tensor Tensor::Slice(int64_t start, int64_t limit) const {
  CHECK_GE(dims(), 1) << "cannot Slice a scalar";
  CHECK_GE(start, 0);
  CHECK_LE(start, limit);
  CHECK_LE(limit, dim_size(0)) << "slice past dim 0 of " << shape_.DebugString();
  Tensor ret;
  ret.dtype_ = dtype_;
  ret.shape_ = shape_;
  ret.shape_.set_dim(0, limit - start);
  if (buf_ != nullptr && ret.NumElements() > 0) {
    const int64_t row_elements = NumElements() / dim_size(0);
    const size_t element_bytes = ElementBytes(dtype_);
    ret.buf_ = new SubBuffer(buf_, start * row_elements * element_bytes,
                             ret.NumElements() * element_bytes);
  }
  return ret;
}

Tensor Tensor::SubSlice(int64_t index) const {
  CHECK_GE(dims(), 1) << "cannot SubSlice a scalar";
  Tensor ret = Slice(index, index + 1);
  ret.shape_.RemoveDim(0);
  return ret;
}

void Tensor::CheckType(DataType expected) const {
  CHECK(dtype_ == expected) << "tensor has type " << DataTypeString(dtype_)
                            << ", but the caller expected "
                            << DataTypeString(expected);
}

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  if (!IsInitialized()) return "<uninitialized>";
  if (NumElements() == 0) return "";
  switch (dtype_) {
#define TRIB_SUMMARIZE_CASE(TYPE) \
  case DataTypeToEnum<TYPE>::value: \
    return Summarize<TYPE>(*this, max_entries);
    TRIB_SUMMARIZE_CASE(float)
    TRIB_SUMMARIZE_CASE(double)
    TRIB_SUMMARIZE_CASE(int32_t)
    TRIB_SUMMARIZE_CASE(uint32_t)
    TRIB_SUMMARIZE_CASE(int16_t)
    TRIB_SUMMARIZE_CASE(uint16_t)
    TRIB_SUMMARIZE_CASE(int8_t)
    TRIB_SUMMARIZE_CASE(uint8_t)
    TRIB_SUMMARIZE_CASE(int64_t)
    TRIB_SUMMARIZE_CASE(uint64_t)
    TRIB_SUMMARIZE_CASE(bool)
    TRIB_SUMMARIZE_CASE(half)
    TRIB_SUMMARIZE_CASE(bfloat16)
    TRIB_SUMMARIZE_CASE(complex64)
    TRIB_SUMMARIZE_CASE(complex128)
    TRIB_SUMMARIZE_CASE(std::string)
    case DT_VARIANT: {
      // One line per element, up to the limit.
      std::string out;
      const char* data = static_cast<const char*>(this->data());
      for (int64_t i = 0; i < NumElements() && i < max_entries; ++i) {
        if (i > 0) out.append(" ");
        out.append(variant_hooks::debug_string(
            data + i * variant_hooks::element_size));
      }
      if (NumElements() > max_entries) out.append("...");
      return out;
    }
#undef TRIB_SUMMARIZE_CASE
    default:
      return absl::StrCat("<", TotalBytes(), " bytes of ",
                          DataTypeString(dtype_), ">");
  }
}

std::string Tensor::DebugString(int num_values) const {
  return absl::StrCat("Tensor<type: ", DataTypeString(dtype_),
                      " shape: ", shape_.DebugString(),
                      " values: ", SummarizeValue(num_values), ">");
}

}  // namespace tributary
