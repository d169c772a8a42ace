// SparseApply* and ResourceSparseApply* for Momentum, Adadelta,
// ProximalGradientDescent, ProximalAdagrad and AdagradDA, and
// ResourceSparseApplyKerasMomentum (resource only, as in TensorFlow):
// SparseApplyOp (sparse_apply_op.h) runs the dense rule of
// training_functors.h / extra_functors.h on each indexed row. Types as
// TensorFlow registers them on CPU: half, bfloat16, float and double, but
// only float and double for the proximal ones and AdagradDA; int32 or int64
// indices.

#include "common/kernel/kernel_registry.h"
#include "kernels/training/extra_functors.h"
#include "kernels/training/sparse_apply_op.h"
#include "kernels/training/training_functors.h"

namespace tributary {
namespace {

using R = SparseScalarRange;
template <typename T>
using Flat = typename TTypes<T>::Flat;
template <typename T>
using ConstFlat = typename TTypes<T>::ConstFlat;
template <typename T>
using Scalar = typename TTypes<T>::ConstScalar;

// Rows are short: evaluate each on the calling thread.
const Eigen::DefaultDevice kRowDevice{};

// Inputs var, accum, lr, grad, indices, momentum (both momentum forms).
template <typename T, bool kKeras>
struct MomentumRule {
  static constexpr int kNumInputs = 6, kNumVars = 2, kGradInput = 3,
                       kIndicesInput = 4;
  static constexpr const char* kNames[] = {"var",  "accum",   "lr",
                                           "grad", "indices", "momentum"};
  static constexpr R kRanges[6] = {};
  static constexpr const char* kFlagAttr = "use_nesterov";
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool nesterov) {
    if (kKeras) {
      functor::ApplyKerasMomentum<T>()(kRowDevice, v[0], v[1], s[2], g, s[5],
                                       nesterov);
    } else {
      functor::ApplyMomentum<T>()(kRowDevice, v[0], v[1], Scalar<T>(&s[2]), g,
                                  Scalar<T>(&s[5]), nesterov);
    }
  }
};

template <typename T>
struct AdadeltaRule {
  static constexpr int kNumInputs = 8, kNumVars = 3, kGradInput = 6,
                       kIndicesInput = 7;
  // TensorFlow's sparse kernel calls the accumulator accum_grad.
  static constexpr const char* kNames[] = {"var",  "accum_grad", "accum_update",
                                           "lr",   "rho",        "epsilon",
                                           "grad", "indices"};
  static constexpr R kRanges[8] = {};
  static constexpr const char* kFlagAttr = nullptr;
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool) {
    functor::ApplyAdadelta<T>()(kRowDevice, v[0], v[1], v[2], s[3], s[4], s[5],
                                g);
  }
};

// TensorFlow's sparse kernel names alpha "lr" in its message.
template <typename T>
struct ProximalGradientDescentRule {
  static constexpr int kNumInputs = 6, kNumVars = 1, kGradInput = 4,
                       kIndicesInput = 5;
  static constexpr const char* kNames[] = {"var",
                                           "lr",
                                           "l1 regularization strength",
                                           "l2 regularization strength",
                                           "grad",
                                           "indices"};
  static constexpr R kRanges[6] = {};
  static constexpr const char* kFlagAttr = nullptr;
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool) {
    functor::ApplyProximalGradientDescent<T>()(kRowDevice, v[0], s[1], s[2],
                                               s[3], g);
  }
};

template <typename T>
struct ProximalAdagradRule {
  static constexpr int kNumInputs = 7, kNumVars = 2, kGradInput = 5,
                       kIndicesInput = 6;
  static constexpr const char* kNames[] = {"var",
                                           "accum",
                                           "lr",
                                           "l1 regularization strength",
                                           "l2 regularization strength",
                                           "grad",
                                           "indices"};
  static constexpr R kRanges[] = {
      R::kAny,         R::kAny, R::kPositive, R::kNonNegative,
      R::kNonNegative, R::kAny, R::kAny};
  static constexpr const char* kFlagAttr = nullptr;
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool) {
    functor::ApplyProximalAdagrad<T>()(kRowDevice, v[0], v[1], s[2], s[3], s[4],
                                       g);
  }
};

template <typename T>
struct AdagradDARule {
  static constexpr int kNumInputs = 9, kNumVars = 3, kGradInput = 3,
                       kIndicesInput = 4;
  static constexpr const char* kNames[] = {"var",
                                           "gradient_accumulator",
                                           "gradient_squared_accumulator",
                                           "grad",
                                           "indices",
                                           "lr",
                                           "l1 regularization strength",
                                           "l2 regularization strength",
                                           "global_step"};
  static constexpr R kRanges[9] = {};
  static constexpr const char* kFlagAttr = nullptr;
  static constexpr int kInt64Input = 8;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool) {
    functor::ApplyAdagradDA<T>()(kRowDevice, v[0], v[1], v[2], g, s[5], s[6],
                                 s[7], s[8]);
  }
};

template <typename T>
using ClassicMomentumRule = MomentumRule<T, false>;
template <typename T>
using KerasMomentumRule = MomentumRule<T, true>;

#define TRIB_REGISTER_ONE(NAME, T, TI, RULE)                   \
  REGISTER_KERNEL_BUILDER(Name(NAME)                           \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<TI>("Tindices"), \
                          SparseApplyOp<T, TI, RULE>)
#define TRIB_REGISTER_SPARSE(NAME, T, TI, RULE)       \
  TRIB_REGISTER_ONE("SparseApply" NAME, T, TI, RULE); \
  TRIB_REGISTER_ONE("ResourceSparseApply" NAME, T, TI, RULE)

#define TRIB_REGISTER_KERNELS_TI(T, TI)                            \
  TRIB_REGISTER_SPARSE("Momentum", T, TI, ClassicMomentumRule<T>); \
  TRIB_REGISTER_SPARSE("Adadelta", T, TI, AdadeltaRule<T>);        \
  TRIB_REGISTER_ONE("ResourceSparseApplyKerasMomentum", T, TI,     \
                    KerasMomentumRule<T>)
#define TRIB_REGISTER_WIDE_TI(T, TI)                                      \
  TRIB_REGISTER_SPARSE("ProximalGradientDescent", T, TI,                  \
                       ProximalGradientDescentRule<T>);                   \
  TRIB_REGISTER_SPARSE("ProximalAdagrad", T, TI, ProximalAdagradRule<T>); \
  TRIB_REGISTER_SPARSE("AdagradDA", T, TI, AdagradDARule<T>)

#define TRIB_REGISTER_KERNELS(T)        \
  TRIB_REGISTER_KERNELS_TI(T, int32_t); \
  TRIB_REGISTER_KERNELS_TI(T, int64_t)
#define TRIB_REGISTER_WIDE(T)        \
  TRIB_REGISTER_WIDE_TI(T, int32_t); \
  TRIB_REGISTER_WIDE_TI(T, int64_t)

TRIB_REGISTER_KERNELS(half);
TRIB_REGISTER_KERNELS(bfloat16);
TRIB_REGISTER_KERNELS(float);
TRIB_REGISTER_KERNELS(double);
TRIB_REGISTER_WIDE(float);
TRIB_REGISTER_WIDE(double);
#undef TRIB_REGISTER_WIDE
#undef TRIB_REGISTER_KERNELS
#undef TRIB_REGISTER_WIDE_TI
#undef TRIB_REGISTER_KERNELS_TI
#undef TRIB_REGISTER_SPARSE
#undef TRIB_REGISTER_ONE

}  // namespace
}  // namespace tributary
