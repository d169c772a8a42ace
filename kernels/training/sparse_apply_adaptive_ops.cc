// SparseApply* and ResourceSparseApply* for Adagrad (V1, V2), RMSProp
// (plain, centered) and Ftrl (V1, V2): SparseApplyOp (sparse_apply_op.h)
// runs the dense rule of adaptive_functors.h / ftrl_functor.h on each
// indexed row. Types as TensorFlow registers them on CPU: half, bfloat16,
// float, double; int32 or int64 indices.

#include "common/kernel/kernel_registry.h"
#include "kernels/training/adaptive_functors.h"
#include "kernels/training/ftrl_functor.h"
#include "kernels/training/sparse_apply_op.h"

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

// Inputs var, accum, lr, [epsilon,] grad, indices.
template <typename T, bool kV2>
struct AdagradRule {
  static constexpr int kNumInputs = kV2 ? 6 : 5, kNumVars = 2;
  static constexpr int kGradInput = kV2 ? 4 : 3, kIndicesInput = kV2 ? 5 : 4;
  static constexpr const char* kNames[] = {"var",
                                           "accum",
                                           "lr",
                                           kV2 ? "epsilon" : "grad",
                                           kV2 ? "grad" : "indices",
                                           "indices"};
  static constexpr R kRanges[6] = {};
  static constexpr const char* kFlagAttr = "update_slots";
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool update) {
    functor::ApplyAdagrad<T>()(kRowDevice, v[0], v[1], Scalar<T>(&s[2]),
                               kV2 ? &s[3] : nullptr, g, update);
  }
};

template <typename T>
struct RMSPropRule {
  static constexpr int kNumInputs = 9, kNumVars = 3, kGradInput = 7,
                       kIndicesInput = 8;
  static constexpr const char* kNames[] = {"var",     "ms",   "mom",
                                           "lr",      "rho",  "momentum",
                                           "epsilon", "grad", "indices"};
  static constexpr R kRanges[9] = {};
  static constexpr const char* kFlagAttr = nullptr;
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool) {
    functor::ApplyRMSProp<T>()(kRowDevice, v[0], nullptr, v[1], v[2],
                               Scalar<T>(&s[3]), Scalar<T>(&s[4]),
                               Scalar<T>(&s[5]), Scalar<T>(&s[6]), g);
  }
};

template <typename T>
struct CenteredRMSPropRule {
  static constexpr int kNumInputs = 10, kNumVars = 4, kGradInput = 8,
                       kIndicesInput = 9;
  static constexpr const char* kNames[] = {
      "var", "mg",       "ms",      "mom",  "lr",
      "rho", "momentum", "epsilon", "grad", "indices"};
  static constexpr R kRanges[10] = {};
  static constexpr const char* kFlagAttr = nullptr;
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g, bool) {
    functor::ApplyRMSProp<T>()(kRowDevice, v[0], &v[1], v[2], v[3],
                               Scalar<T>(&s[4]), Scalar<T>(&s[5]),
                               Scalar<T>(&s[6]), Scalar<T>(&s[7]), g);
  }
};

// Inputs var, accum, linear, grad, indices, lr, l1, l2, [l2_shrinkage,]
// lr_power. Unlike the dense op, TensorFlow range-checks them here.
template <typename T, bool kV2>
struct FtrlRule {
  static constexpr int kNumInputs = kV2 ? 10 : 9, kNumVars = 3;
  static constexpr int kGradInput = 3, kIndicesInput = 4;
  static constexpr const char* kNames[] = {
      "var",
      "accum",
      "linear",
      "grad",
      "indices",
      "lr",
      "l1 regularization strength",
      "l2 regularization strength",
      kV2 ? "l2 shrinkage regularization strength" : "lr_power",
      "lr_power"};
  static constexpr R kRanges[] = {
      R::kAny,         R::kAny,         R::kAny,
      R::kAny,         R::kAny,         R::kFtrlLearningRate,
      R::kNonNegative, R::kNonNegative, kV2 ? R::kNonNegative : R::kNonPositive,
      R::kNonPositive};
  static constexpr const char* kFlagAttr = "multiply_linear_by_lr";
  static constexpr int kInt64Input = -1;
  static void ApplyRow(Flat<T>* v, const T* s, ConstFlat<T> g,
                       bool multiply_linear_by_lr) {
    typename functor::ApplyFtrl<T>::Params p;
    p.lr = s[5];
    p.l1 = s[6];
    p.l2 = s[7];
    p.l2_shrinkage = kV2 ? &s[8] : nullptr;
    p.lr_power = s[kV2 ? 9 : 8];
    p.multiply_linear_by_lr = multiply_linear_by_lr;
    functor::ApplyFtrl<T>::Update(p, v[0].data(), v[1].data(), v[2].data(),
                                  g.data(), g.size());
  }
};

template <typename T>
using AdagradV1Rule = AdagradRule<T, false>;
template <typename T>
using AdagradV2Rule = AdagradRule<T, true>;
template <typename T>
using FtrlV1Rule = FtrlRule<T, false>;
template <typename T>
using FtrlV2Rule = FtrlRule<T, true>;

#define TRIB_REGISTER_SPARSE(NAME, T, TI, RULE)                \
  REGISTER_KERNEL_BUILDER(Name("SparseApply" NAME)             \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<TI>("Tindices"), \
                          SparseApplyOp<T, TI, RULE>);         \
  REGISTER_KERNEL_BUILDER(Name("ResourceSparseApply" NAME)     \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<TI>("Tindices"), \
                          SparseApplyOp<T, TI, RULE>)

#define TRIB_REGISTER_KERNELS_TI(T, TI)                                   \
  TRIB_REGISTER_SPARSE("Adagrad", T, TI, AdagradV1Rule<T>);               \
  TRIB_REGISTER_SPARSE("AdagradV2", T, TI, AdagradV2Rule<T>);             \
  TRIB_REGISTER_SPARSE("RMSProp", T, TI, RMSPropRule<T>);                 \
  TRIB_REGISTER_SPARSE("CenteredRMSProp", T, TI, CenteredRMSPropRule<T>); \
  TRIB_REGISTER_SPARSE("Ftrl", T, TI, FtrlV1Rule<T>);                     \
  TRIB_REGISTER_SPARSE("FtrlV2", T, TI, FtrlV2Rule<T>)

#define TRIB_REGISTER_KERNELS(T)        \
  TRIB_REGISTER_KERNELS_TI(T, int32_t); \
  TRIB_REGISTER_KERNELS_TI(T, int64_t)

TRIB_REGISTER_KERNELS(half);
TRIB_REGISTER_KERNELS(bfloat16);
TRIB_REGISTER_KERNELS(float);
TRIB_REGISTER_KERNELS(double);
#undef TRIB_REGISTER_KERNELS
#undef TRIB_REGISTER_KERNELS_TI
#undef TRIB_REGISTER_SPARSE

}  // namespace
}  // namespace tributary
