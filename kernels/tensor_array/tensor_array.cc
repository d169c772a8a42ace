#include "kernels/tensor_array/tensor_array.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

template <typename T>
void AddTyped(const Tensor& a, const Tensor& b, Tensor* out) {
  auto x = a.flat<T>();
  auto y = b.flat<T>();
  auto z = out->flat<T>();
  for (int64_t i = 0; i < z.size(); ++i) z(i) = x(i) + y(i);
}

}  // namespace

absl::Status MakeZeroTensor(DataType dtype, const TensorShape& shape,
                            Tensor* out) {
  if (dtype == DT_STRING) {
    *out = Tensor(dtype, shape);  // Strings start empty.
    return absl::OkStatus();
  }
  if (!DataTypeCanUseMemcpy(dtype)) {
    return errors::InvalidArgument("TensorArray cannot make zeros of dtype ",
                                   DataTypeString(dtype));
  }
  *out = Tensor(dtype, shape);
  if (out->TotalBytes() > 0) std::memset(out->data(), 0, out->TotalBytes());
  return absl::OkStatus();
}

absl::Status AddTensors(const Tensor& a, const Tensor& b, Tensor* out) {
  Tensor sum(a.dtype(), a.shape());
  switch (a.dtype()) {
    case DT_FLOAT: AddTyped<float>(a, b, &sum); break;
    case DT_DOUBLE: AddTyped<double>(a, b, &sum); break;
    case DT_HALF: AddTyped<half>(a, b, &sum); break;
    case DT_BFLOAT16: AddTyped<bfloat16>(a, b, &sum); break;
    case DT_INT32: AddTyped<int32_t>(a, b, &sum); break;
    case DT_INT64: AddTyped<int64_t>(a, b, &sum); break;
    case DT_COMPLEX64: AddTyped<complex64>(a, b, &sum); break;
    case DT_COMPLEX128: AddTyped<complex128>(a, b, &sum); break;
    default:
      return errors::Unimplemented("TensorArray cannot aggregate writes of dtype ",
                                   DataTypeString(a.dtype()));
  }
  *out = std::move(sum);
  return absl::OkStatus();
}

void CopyElements(const Tensor& src, Tensor* dst, int64_t offset) {
  const int64_t n = src.NumElements();
  if (n == 0) return;
  if (src.dtype() == DT_STRING) {
    auto from = src.flat<std::string>();
    auto to = dst->flat<std::string>();
    for (int64_t i = 0; i < n; ++i) to(offset + i) = from(i);
    return;
  }
  const int64_t width = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->data()) + offset * width, src.data(),
              n * width);
}

TensorArray::TensorArray(std::string name, const Options& options)
    : name_(std::move(name)), options_(options) {
  elements_.resize(options.size < 0 ? 0 : options.size);
}

std::string TensorArray::DebugString() const {
  absl::ReaderMutexLock l(&mu_);
  return absl::StrCat("TensorArray[", DataTypeString(options_.dtype), ", size ",
                      elements_.size(), "]");
}

PartialTensorShape TensorArray::element_shape() const {
  absl::ReaderMutexLock l(&mu_);
  return options_.element_shape;
}

absl::Status TensorArray::CheckOpenLocked(const char* what,
                                          int32_t index) const {
  if (closed_) {
    return errors::InvalidArgument("TensorArray ", name_, ": Could not ", what,
                                   " TensorArray index ", index,
                                   " because it has already been closed.");
  }
  return absl::OkStatus();
}

absl::Status TensorArray::Size(int32_t* size) const {
  absl::ReaderMutexLock l(&mu_);
  if (closed_) {
    return errors::InvalidArgument("TensorArray ", name_,
                                   " has already been closed.");
  }
  *size = static_cast<int32_t>(elements_.size());
  return absl::OkStatus();
}

absl::Status TensorArray::Write(int32_t index, const Tensor& value) {
  absl::MutexLock l(&mu_);
  TRIB_RETURN_IF_ERROR(CheckOpenLocked("write to", index));
  if (value.dtype() != options_.dtype) {
    return errors::InvalidArgument(
        "TensorArray dtype is ", DataTypeString(options_.dtype),
        " but Op is trying to write dtype ", DataTypeString(value.dtype()), ".");
  }
  if (index < 0) {
    return errors::InvalidArgument("Tried to write to index ", index,
                                   " but array size is: ", elements_.size());
  }
  if (static_cast<size_t>(index) >= elements_.size()) {
    if (!options_.dynamic_size) {
      return errors::InvalidArgument(
          "Tried to write to index ", index,
          " but array is not resizeable and size is: ", elements_.size());
    }
    elements_.resize(static_cast<size_t>(index) + 1);
  }
  if (!options_.element_shape.IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument(
        "Could not write to TensorArray index ", index,
        " because the value shape is ", value.shape().DebugString(),
        " which is incompatible with the TensorArray's inferred element "
        "shape: ",
        options_.element_shape.DebugString(),
        " (consider setting infer_shape=False).");
  }
  if (options_.identical_element_shapes) {
    options_.element_shape = PartialTensorShape(value.shape());
  }
  Element& e = elements_[index];
  if (e.read) {
    return errors::InvalidArgument("TensorArray ", name_,
                                   ": Could not write to TensorArray index ",
                                   index, " because it has already been read.");
  }
  if (!options_.multiple_writes_aggregate && e.written) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because it has already been written to.");
  }
  if (e.written) {
    // A gradient array: add to what is there.
    if (!e.tensor.shape().IsSameSize(value.shape())) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not aggregate to TensorArray index ",
          index, " because the existing shape is ",
          e.tensor.shape().DebugString(), " but the new input shape is ",
          value.shape().DebugString(), ".");
    }
    Tensor sum;
    TRIB_RETURN_IF_ERROR(AddTensors(e.tensor, value, &sum));
    e.tensor = std::move(sum);
    return absl::OkStatus();
  }
  e.tensor = value;
  e.shape = value.shape();
  e.has_shape = true;
  e.written = true;
  return absl::OkStatus();
}

absl::Status TensorArray::Read(int32_t index, DataType dtype, Tensor* value) {
  absl::MutexLock l(&mu_);
  TRIB_RETURN_IF_ERROR(CheckOpenLocked("read from", index));
  if (dtype != options_.dtype) {
    return errors::InvalidArgument(
        "TensorArray dtype is ", DataTypeString(options_.dtype),
        " but Op requested dtype ", DataTypeString(dtype), ".");
  }
  if (index < 0 || static_cast<size_t>(index) >= elements_.size()) {
    return errors::InvalidArgument("Tried to read from index ", index,
                                   " but array size is: ", elements_.size());
  }
  Element& e = elements_[index];
  if (e.cleared) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Could not read index ", index,
        " twice because it was cleared after a previous read (perhaps try "
        "setting clear_after_read = false?).");
  }
  if (e.written) {
    *value = e.tensor;
  } else {
    TensorShape shape;
    if (e.has_shape) {
      shape = e.shape;
    } else if (options_.element_shape.IsFullyDefined()) {
      TRIB_ASSIGN_OR_RETURN(shape, options_.element_shape.AsTensorShape());
    } else {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not read from TensorArray index ",
          index,
          ".  Furthermore, the element shape is not fully defined: ",
          options_.element_shape.DebugString(),
          ".  It is possible you are working with a resizeable TensorArray "
          "and stop_gradients is not allowing the gradients to be written.  "
          "If you set the full element_shape property on the forward "
          "TensorArray, the proper all-zeros tensor will be returned instead "
          "of incurring this error.");
    }
    TRIB_RETURN_IF_ERROR(MakeZeroTensor(options_.dtype, shape, value));
  }
  e.read = true;
  if (options_.clear_after_read) {
    e.tensor = Tensor();
    e.cleared = true;
  }
  return absl::OkStatus();
}

absl::Status TensorArray::CopyShapesFrom(const TensorArray& source,
                                         const TensorShape* prepend) {
  std::vector<std::pair<size_t, TensorShape>> shapes;
  {
    absl::ReaderMutexLock l(&source.mu_);
    for (size_t i = 0; i < source.elements_.size(); ++i) {
      const Element& e = source.elements_[i];
      if (!e.has_shape) continue;
      TensorShape shape;
      if (prepend != nullptr) shape = *prepend;
      for (int64_t d : e.shape.dim_sizes()) shape.AddDim(d);
      shapes.emplace_back(i, std::move(shape));
    }
  }
  absl::MutexLock l(&mu_);
  for (auto& [i, shape] : shapes) {
    if (i >= elements_.size()) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": gradient array has size ", elements_.size(),
          " but the forward array has an element at ", i);
    }
    elements_[i].shape = std::move(shape);
    elements_[i].has_shape = true;
  }
  return absl::OkStatus();
}

absl::Status TensorArray::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
  elements_.clear();
  return absl::OkStatus();
}

}  // namespace tributary
