// Variant: the element type of DT_VARIANT tensors, a type-erased value
// (TensorFlow's tensorflow::Variant idea, our own small version).
//
// A Variant is empty or holds one value of some copyable C++ type T. Copying
// a Variant copies the value (T's copy constructor); moving it moves the
// pointer. get<T>() returns the value or nullptr when the Variant is empty or
// holds another type, so kernels check what they were given instead of
// crashing on a wrong input.
//
// T must have `std::string TypeName() const` (a stable name for messages,
// e.g. "tensorflow::TensorList") and `std::string DebugString() const`.
//
// Variants live only in memory: they are not serialisable, so a DT_VARIANT
// tensor can move between devices of one process (rendezvous, control flow)
// but never across the wire (see Tensor::FromProto).
//
// This header also maps Variant to DT_VARIANT (DataTypeToEnum), so
// Tensor::flat<Variant>() and friends work wherever it is included.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_VARIANT_H_
#define TRIBUTARY_COMMON_FRAMEWORK_VARIANT_H_

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "common/framework/types.h"

namespace tributary {

class Variant {
 public:
  Variant() = default;
  // Holds a copy (or the moved) `value`.
  template <typename T, typename VT = std::decay_t<T>,
            typename = std::enable_if_t<!std::is_same_v<VT, Variant>>>
  Variant(T&& value)  // NOLINT: implicit like TensorFlow's Variant
      : value_(std::make_unique<Value<VT>>(std::forward<T>(value))) {}

  Variant(const Variant& other)
      : value_(other.value_ == nullptr ? nullptr : other.value_->Clone()) {}
  Variant(Variant&& other) noexcept = default;
  Variant& operator=(const Variant& other) {
    if (this != &other) Variant(other).swap(*this);
    return *this;
  }
  Variant& operator=(Variant&& other) noexcept = default;

  bool is_empty() const { return value_ == nullptr; }
  void clear() { value_.reset(); }
  void swap(Variant& other) noexcept { value_.swap(other.value_); }

  // The held value, or nullptr when empty or of another type.
  template <typename T>
  T* get() {
    if (value_ == nullptr || value_->Type() != typeid(T)) return nullptr;
    return &static_cast<Value<T>*>(value_.get())->value;
  }
  template <typename T>
  const T* get() const {
    if (value_ == nullptr || value_->Type() != typeid(T)) return nullptr;
    return &static_cast<const Value<T>*>(value_.get())->value;
  }

  // The value's TypeName(), or "" when empty.
  std::string TypeName() const {
    return value_ == nullptr ? std::string() : value_->TypeName();
  }
  // "Variant<type: NAME value: ...>"; "Variant<empty>" when empty.
  std::string DebugString() const;

 private:
  struct ValueInterface {
    virtual ~ValueInterface() = default;
    virtual std::unique_ptr<ValueInterface> Clone() const = 0;
    virtual const std::type_info& Type() const = 0;
    virtual std::string TypeName() const = 0;
    virtual std::string DebugString() const = 0;
  };
  template <typename T>
  struct Value final : ValueInterface {
    template <typename U>
    explicit Value(U&& v) : value(std::forward<U>(v)) {}
    std::unique_ptr<ValueInterface> Clone() const override {
      return std::make_unique<Value<T>>(value);
    }
    const std::type_info& Type() const override { return typeid(T); }
    std::string TypeName() const override { return value.TypeName(); }
    std::string DebugString() const override { return value.DebugString(); }
    T value;
  };

  std::unique_ptr<ValueInterface> value_;
};

// What types.h does for the other element types (kept here so that types.h,
// which every file includes, did not change).
template <>
struct DataTypeToEnum<Variant> {
  static constexpr DataType value = DT_VARIANT;
  static constexpr DataType v() { return DT_VARIANT; }
  static DataType ref() { return MakeRefType(DT_VARIANT); }
};
template <>
struct EnumToDataType<DT_VARIANT> {
  using Type = Variant;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_VARIANT_H_
