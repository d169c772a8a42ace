// ApplyAdam / ResourceApplyAdam, classic or Nesterov. The caller keeps the
// running powers beta1^t, beta2^t (as TensorFlow's optimizer does), which
// gives bias correction without a step counter in the op. SlotUpdateOp does
// the variables and checks, in TensorFlow's order (scalars, then shapes).

#include "kernels/training/register_apply.h"
#include "kernels/training/slot_update_op.h"
#include "kernels/training/training_functors.h"

namespace tributary {
namespace {

template <typename T>
struct AdamRule {
  static constexpr int kNumInputs = 10, kNumVars = 3, kGradInput = 9;
  static constexpr const char* kNames[] = {
      "var", "m",     "v",     "beta1_power", "beta2_power",
      "lr",  "beta1", "beta2", "epsilon",     "grad"};
  static constexpr bool kHasNesterov = true;
  static constexpr int kInt64Input = -1;
  static void Apply(const Eigen::ThreadPoolDevice& d,
                    typename TTypes<T>::Flat* v, const T* s,
                    typename TTypes<T>::ConstFlat g, bool nesterov) {
    using Scalar = typename TTypes<T>::ConstScalar;
    functor::ApplyAdam<T>()(d, v[0], v[1], v[2], Scalar(&s[3]), Scalar(&s[4]),
                            Scalar(&s[5]), Scalar(&s[6]), Scalar(&s[7]),
                            Scalar(&s[8]), g, nesterov);
  }
};

#define TRIB_REGISTER_KERNELS(T) \
  TRIB_REGISTER_APPLY_PAIR("Adam", T, SlotUpdateOp<T, AdamRule<T>>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_FOR_APPLY_TYPES(TRIB_REGISTER_KERNELS);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
