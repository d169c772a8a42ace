#ifndef TRIBUTARY_KERNELS_TRAINING_SLOT_UPDATE_OP_H_
#define TRIBUTARY_KERNELS_TRAINING_SLOT_UPDATE_OP_H_

// A generic optimizer kernel for the dense update rules whose inputs are
// variables (var and its slots, Ref(T) or resource), then scalar
// hyperparameters and one gradient, in any order after the variables. A
// Rule describes the inputs and applies the update:
//
//   struct Rule {
//     static constexpr int kNumInputs, kNumVars, kGradInput;
//     // Per input: the name used in shape messages (variables, grad) or the
//     // prefix of "<what> is not a scalar: <shape>" (scalars).
//     static constexpr const char* kNames[kNumInputs];
//     static constexpr bool kHasNesterov;  // reads the use_nesterov attr
//     // An int64 scalar input (AdagradDA's global_step), converted to T in
//     // `scalars`; -1 for none.
//     static constexpr int kInt64Input;
//     // Optional, per input: a range the scalar's value must be in; the
//     // message then reads "<what> is not a positive scalar: <shape>" (or
//     // non-negative), for a bad shape or value alike, as TensorFlow's.
//     static constexpr ScalarRange kRanges[kNumInputs];
//     // vars[0] is var; scalars indexed by input number.
//     static void Apply(const Eigen::ThreadPoolDevice&,
//                       typename TTypes<T>::Flat* vars, const T* scalars,
//                       typename TTypes<T>::ConstFlat grad, bool nesterov);
//   };
//
// The same kernel serves Apply<Name> and ResourceApply<Name> (see
// training_op_helpers.h for locking); errors are TensorFlow's: scalar checks
// in input order, then "var and <slot> do not have the same shape...".

#include <array>
#include <type_traits>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {

enum class ScalarRange { kAny, kPositive, kNonNegative };

namespace slot_update_internal {

template <typename Rule, typename = void>
struct Ranges {
  static constexpr ScalarRange Get(int) { return ScalarRange::kAny; }
};
template <typename Rule>
struct Ranges<Rule, std::void_t<decltype(Rule::kRanges)>> {
  static constexpr ScalarRange Get(int i) { return Rule::kRanges[i]; }
};

// TensorFlow's check of one scalar hyperparameter (T, or int64 for
// AdagradDA's global_step, which has no range).
template <typename T>
absl::Status CheckHyperparameter(const Tensor& t, const char* what,
                                 ScalarRange range) {
  if (range == ScalarRange::kAny) return CheckScalar(t, what);
  const bool scalar = TensorShapeUtils::IsScalar(t.shape());
  const bool in_range =
      scalar && (range == ScalarRange::kPositive ? t.scalar<T>()() > T(0)
                                                 : t.scalar<T>()() >= T(0));
  if (in_range) return absl::OkStatus();
  return errors::InvalidArgument(what,
                                 range == ScalarRange::kPositive
                                     ? " is not a positive scalar: "
                                     : " is not a non-negative scalar: ",
                                 t.shape().DebugString());
}

}  // namespace slot_update_internal

template <typename T, typename Rule>
class SlotUpdateOp : public OpKernel {
 public:
  explicit SlotUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    if (Rule::kHasNesterov) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = DataTypeToEnum<T>::v();
    VariableInputs vars(ctx, use_exclusive_lock_);
    static_assert(Rule::kNumVars >= 1 && Rule::kNumVars <= 4,
                  "extend the Acquire switch below");
    switch (Rule::kNumVars) {
      case 1:
        OP_REQUIRES_OK(ctx, vars.Acquire({0}));
        break;
      case 2:
        OP_REQUIRES_OK(ctx, vars.Acquire({0, 1}));
        break;
      case 3:
        OP_REQUIRES_OK(ctx, vars.Acquire({0, 1, 2}));
        break;
      default:
        OP_REQUIRES_OK(ctx, vars.Acquire({0, 1, 2, 3}));
        break;
    }
    std::array<Tensor, Rule::kNumVars> tensors;
    for (int i = 0; i < Rule::kNumVars; ++i) {
      OP_REQUIRES_OK(ctx, vars.GetTensor(i, dtype, &tensors[i]));
    }
    std::array<T, Rule::kNumInputs> scalars{};
    for (int i = Rule::kNumVars; i < Rule::kNumInputs; ++i) {
      if (i == Rule::kGradInput) continue;
      const Tensor& t = ctx->input(i);
      OP_REQUIRES_OK(ctx, slot_update_internal::CheckHyperparameter<T>(
                              t, Rule::kNames[i],
                              slot_update_internal::Ranges<Rule>::Get(i)));
      scalars[i] = i == Rule::kInt64Input
                       ? static_cast<T>(t.scalar<int64_t>()())
                       : t.scalar<T>()();
    }
    for (int i = 1; i < Rule::kNumVars; ++i) {
      OP_REQUIRES_OK(ctx, CheckSameShape(tensors[0], Rule::kNames[0],
                                         tensors[i], Rule::kNames[i]));
    }
    const Tensor& grad = ctx->input(Rule::kGradInput);
    OP_REQUIRES_OK(ctx, CheckSameShape(tensors[0], Rule::kNames[0], grad,
                                       Rule::kNames[Rule::kGradInput]));

    std::array<typename TTypes<T>::Flat, Rule::kNumVars> flats =
        MakeFlats(tensors, std::make_index_sequence<Rule::kNumVars>());
    Rule::Apply(ctx->eigen_cpu_device(), flats.data(), scalars.data(),
                grad.flat<T>(), use_nesterov_);
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  // TTypes<T>::Flat has no default constructor: build the array in place.
  template <size_t... I>
  static std::array<typename TTypes<T>::Flat, Rule::kNumVars> MakeFlats(
      std::array<Tensor, Rule::kNumVars>& t, std::index_sequence<I...>) {
    return {t[I].template flat<T>()...};
  }

  bool use_exclusive_lock_ = false;
  bool use_nesterov_ = false;
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_SLOT_UPDATE_OP_H_
