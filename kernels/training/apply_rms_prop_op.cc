// ApplyRMSProp / ApplyCenteredRMSProp and their ResourceApply* forms. The
// centered form has one more slot, mg (inputs var, mg, ms, mom), which
// shifts every later input by one. SlotUpdateOp does the variables and
// checks, in TensorFlow's order (scalars, then shapes).

#include "kernels/training/adaptive_functors.h"
#include "kernels/training/register_apply.h"
#include "kernels/training/slot_update_op.h"

namespace tributary {
namespace {

template <typename T>
struct RMSPropRule {
  static constexpr int kNumInputs = 8, kNumVars = 3, kGradInput = 7;
  static constexpr const char* kNames[] = {
      "var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Eigen::ThreadPoolDevice& d,
                    typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    using Scalar = typename TTypes<T>::ConstScalar;
    // No mg: the functor's plain (uncentered) form.
    functor::ApplyRMSProp<T>()(d, v[0], nullptr, v[1], v[2], Scalar(&s[3]),
                               Scalar(&s[4]), Scalar(&s[5]), Scalar(&s[6]), g);
  }
};

template <typename T>
struct CenteredRMSPropRule {
  static constexpr int kNumInputs = 9, kNumVars = 4, kGradInput = 8;
  static constexpr const char* kNames[] = {
      "var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"};
  static constexpr bool kHasNesterov = false;
  static constexpr int kInt64Input = -1;
  static void Apply(const Eigen::ThreadPoolDevice& d,
                    typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool) {
    using Scalar = typename TTypes<T>::ConstScalar;
    functor::ApplyRMSProp<T>()(d, v[0], &v[1], v[2], v[3], Scalar(&s[4]),
                               Scalar(&s[5]), Scalar(&s[6]), Scalar(&s[7]), g);
  }
};

#define TRIB_REGISTER_KERNELS(T)                                           \
  TRIB_REGISTER_APPLY_PAIR("RMSProp", T, SlotUpdateOp<T, RMSPropRule<T>>); \
  TRIB_REGISTER_APPLY_PAIR("CenteredRMSProp", T,                           \
                           SlotUpdateOp<T, CenteredRMSPropRule<T>>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_FOR_APPLY_TYPES(TRIB_REGISTER_KERNELS);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
