// ApplyAdadelta, ApplyProximalGradientDescent, ApplyProximalAdagrad,
// ApplyAdagradDA, ApplyAdaMax, ApplyAddSign, ApplyPowerSign, their
// ResourceApply* forms, and ResourceApplyKerasMomentum (resource only, as in
// TensorFlow). Each Rule maps the op's inputs onto its functor
// (extra_functors.h); SlotUpdateOp does the variables and checks.

#include "common/kernel/kernel_registry.h"
#include "kernels/training/extra_functors.h"
#include "kernels/training/slot_update_op.h"

namespace tributary {
namespace {

using Device = Eigen::ThreadPoolDevice;

template <typename T>
struct AdadeltaRule {
  static constexpr int kNumInputs = 7, kNumVars = 3, kGradInput = 6;
  static constexpr const char* kNames[] = {
      "var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    functor::ApplyAdadelta<T>()(d, v[0], v[1], v[2], s[3], s[4], s[5], g);
  }
};

template <typename T>
struct ProximalGradientDescentRule {
  static constexpr int kNumInputs = 5, kNumVars = 1, kGradInput = 4;
  static constexpr const char* kNames[] = {
      "var", "alpha", "l1 regularization strength",
      "l2 regularization strength", "delta"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    functor::ApplyProximalGradientDescent<T>()(d, v[0], s[1], s[2], s[3], g);
  }
};

template <typename T>
struct ProximalAdagradRule {
  static constexpr int kNumInputs = 6, kNumVars = 2, kGradInput = 5;
  static constexpr const char* kNames[] = {"var",
                                           "accum",
                                           "lr",
                                           "l1 regularization strength",
                                           "l2 regularization strength",
                                           "grad"};
  // TensorFlow checks ProximalAdagrad's values (lr > 0, l1, l2 >= 0), unlike
  // ProximalGradientDescent's.
  static constexpr ScalarRange kRanges[] = {
      ScalarRange::kAny,         ScalarRange::kAny,
      ScalarRange::kPositive,    ScalarRange::kNonNegative,
      ScalarRange::kNonNegative, ScalarRange::kAny};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    functor::ApplyProximalAdagrad<T>()(d, v[0], v[1], s[2], s[3], s[4], g);
  }
};

template <typename T>
struct AdaMaxRule {
  static constexpr int kNumInputs = 9, kNumVars = 3, kGradInput = 8;
  static constexpr const char* kNames[] = {"var",         "m",       "v",
                                           "beta1_power", "lr",      "beta1",
                                           "beta2",       "epsilon", "grad"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    functor::ApplyAdaMax<T>()(d, v[0], v[1], v[2], s[3], s[4], s[5], s[6], s[7],
                              g);
  }
};

template <typename T, bool kPowerSign>
struct SignRule {
  static constexpr int kNumInputs = 7, kNumVars = 2, kGradInput = 6;
  static constexpr const char* kNames[] = {
      "var",        "m",    "lr",  kPowerSign ? "logbase" : "alpha",
      "sign_decay", "beta", "grad"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    functor::ApplySign<T>()(d, v[0], v[1], s[2], s[3], s[4], s[5], g,
                            kPowerSign);
  }
};

template <typename T>
struct AdagradDARule {
  static constexpr int kNumInputs = 8, kNumVars = 3, kGradInput = 3;
  static constexpr const char* kNames[] = {"var",
                                           "gradient_accumulator",
                                           "gradient_squared_accumulator",
                                           "grad",
                                           "lr",
                                           "l1 regularization strength",
                                           "l2 regularization strength",
                                           "global_step"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = 7;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    functor::ApplyAdagradDA<T>()(d, v[0], v[1], v[2], g, s[4], s[5], s[6],
                                 s[7]);
  }
};

template <typename T>
using AddSignRule = SignRule<T, false>;
template <typename T>
using PowerSignRule = SignRule<T, true>;

template <typename T>
struct KerasMomentumRule {
  static constexpr int kNumInputs = 5, kNumVars = 2, kGradInput = 3;
  static constexpr const char* kNames[] = {"var", "accum", "lr", "grad",
                                           "momentum"};
  static constexpr bool kHasNesterov = true;
  static constexpr int kInt64Input = -1;
  static void Apply(const Device& d, typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool nesterov) {
    functor::ApplyKerasMomentum<T>()(d, v[0], v[1], s[2], g, s[4], nesterov);
  }
};

#define TRIB_REGISTER_PAIR(NAME, T, RULE)                                   \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("Apply" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      SlotUpdateOp<T, RULE>);                                               \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("ResourceApply" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SlotUpdateOp<T, RULE>)

#define TRIB_REGISTER_KERNELS(T)                             \
  TRIB_REGISTER_PAIR("Adadelta", T, AdadeltaRule<T>);        \
  TRIB_REGISTER_PAIR("AdaMax", T, AdaMaxRule<T>);            \
  TRIB_REGISTER_PAIR("AddSign", T, AddSignRule<T>);          \
  TRIB_REGISTER_PAIR("PowerSign", T, PowerSignRule<T>);      \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyKerasMomentum") \
                              .Device(DEVICE_CPU)            \
                              .TypeConstraint<T>("T"),       \
                          SlotUpdateOp<T, KerasMomentumRule<T>>)

// TensorFlow registers the CPU kernels for half and bfloat16 too, except
// AdagradDA's and the proximal ones.
TRIB_REGISTER_KERNELS(half);
TRIB_REGISTER_KERNELS(bfloat16);
TRIB_REGISTER_KERNELS(float);
TRIB_REGISTER_KERNELS(double);
#define TRIB_REGISTER_WIDE_ONLY(T)                      \
  TRIB_REGISTER_PAIR("AdagradDA", T, AdagradDARule<T>); \
  TRIB_REGISTER_PAIR("ProximalGradientDescent", T,      \
                     ProximalGradientDescentRule<T>);   \
  TRIB_REGISTER_PAIR("ProximalAdagrad", T, ProximalAdagradRule<T>)

TRIB_REGISTER_WIDE_ONLY(float);
TRIB_REGISTER_WIDE_ONLY(double);
#undef TRIB_REGISTER_WIDE_ONLY
#undef TRIB_REGISTER_KERNELS
#undef TRIB_REGISTER_PAIR

}  // namespace
}  // namespace tributary
