#ifndef TRIBUTARY_KERNELS_TRAINING_SPARSE_APPLY_OP_H_
#define TRIBUTARY_KERNELS_TRAINING_SPARSE_APPLY_OP_H_

// The generic kernel behind SparseApply<Name> and ResourceSparseApply<Name>:
// the dense rule (training_functors.h, adaptive_functors.h, extra_functors.h,
// ftrl_functor.h) applied to the rows of var and its slots named by
// `indices`, row i of grad going to row indices[i]. Rows are updated one at
// a time in index order, so a repeated index updates its row once per
// occurrence, each update seeing the previous one (TensorFlow's CPU
// kernels do the same; the tf.compat.v1 optimizers sum duplicates first).
//
// A Rule describes the op:
//
//   struct Rule {
//     static constexpr int kNumInputs, kNumVars, kGradInput, kIndicesInput;
//     // Per input: variables by the name TensorFlow's shape messages use,
//     // scalars by the prefix of "<what> is not a scalar: <shape>".
//     static constexpr const char* kNames[kNumInputs];
//     static constexpr SparseScalarRange kRanges[kNumInputs];
//     // A bool attr the rule reads (use_nesterov, update_slots,
//     // multiply_linear_by_lr) or nullptr.
//     static constexpr const char* kFlagAttr;
//     // The int64 scalar (AdagradDA's global_step), or -1.
//     static constexpr int kInt64Input;
//     // Updates one row of each variable (rows[0] is var's); scalars are
//     // indexed by input number.
//     static void ApplyRow(typename TTypes<T>::Flat* rows, const T* scalars,
//                          typename TTypes<T>::ConstFlat grad, bool flag);
//   };
//
// Checks and messages are TensorFlow's, in its order: uninitialized
// variables, slot shapes, var rank, scalars in input order, indices rank,
// grad's inner dimensions and rows, then every index before any row is
// written ("Index 7 at offset 1 in indices is out of range";
// ResourceSparseApplyKerasMomentum words it as "indices[1] = 7 is not in
// [0, 4)", also as TensorFlow does). Locking as for the dense ops
// (training_op_helpers.h).

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {

// What a scalar hyperparameter's value must be; the message is TensorFlow's
// for a bad shape and a bad value alike.
enum class SparseScalarRange {
  kAny,
  kPositive,     // "<what> is not a positive scalar: <shape>"
  kNonNegative,  // "... is not a non-negative scalar: ..."
  kNonPositive,  // "... is not a non-positive scalar: ..."
  // Ftrl's lr: positive, or zero when multiply_linear_by_lr is set.
  kFtrlLearningRate,
};

namespace sparse_apply_internal {

template <typename T>
absl::Status CheckScalarInput(const Tensor& t, const char* what,
                              SparseScalarRange range, bool flag) {
  if (range == SparseScalarRange::kAny) return CheckScalar(t, what);
  bool ok = TensorShapeUtils::IsScalar(t.shape());
  const char* wording = "";
  if (ok) {
    const T v = t.scalar<T>()();
    switch (range) {
      case SparseScalarRange::kPositive:
        ok = v > T(0);
        break;
      case SparseScalarRange::kNonNegative:
        ok = v >= T(0);
        break;
      case SparseScalarRange::kNonPositive:
        ok = v <= T(0);
        break;
      default:
        ok = v > T(0) || (flag && v >= T(0));
        break;
    }
  }
  if (ok) return absl::OkStatus();
  switch (range) {
    case SparseScalarRange::kPositive:
      wording = " is not a positive scalar: ";
      break;
    case SparseScalarRange::kNonNegative:
      wording = " is not a non-negative scalar: ";
      break;
    case SparseScalarRange::kNonPositive:
      wording = " is not a non-positive scalar: ";
      break;
    default:
      wording =
          " is not a positive scalar (or zero if multiply_linear_by_lr is "
          "set): ";
      break;
  }
  return errors::InvalidArgument(what, wording, t.shape().DebugString());
}

// The TensorFlow wording of an out-of-range index for op `op_name`.
template <typename Tindex>
absl::Status BadIndex(const std::string& op_name, int64_t offset, Tindex index,
                      int64_t rows) {
  if (op_name == "ResourceSparseApplyKerasMomentum") {
    return errors::InvalidArgument("indices[", offset, "] = ", index,
                                   " is not in [0, ", rows, ")");
  }
  return errors::InvalidArgument("Index ", index, " at offset ", offset,
                                 " in indices is out of range");
}

}  // namespace sparse_apply_internal

template <typename T, typename Tindex, typename Rule>
class SparseApplyOp : public OpKernel {
 public:
  explicit SparseApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    if (Rule::kFlagAttr != nullptr) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr(Rule::kFlagAttr, &flag_));
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
    const Tensor& var = tensors[0];
    for (int i = 1; i < Rule::kNumVars; ++i) {
      OP_REQUIRES_OK(ctx, CheckSameShape(var, Rule::kNames[0], tensors[i],
                                         Rule::kNames[i]));
    }
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(var.shape()),
                errors::InvalidArgument("var must be at least 1 dimensional"));

    std::array<T, Rule::kNumInputs> scalars{};
    for (int i = Rule::kNumVars; i < Rule::kNumInputs; ++i) {
      if (i == Rule::kGradInput || i == Rule::kIndicesInput) continue;
      const Tensor& t = ctx->input(i);
      if (i == Rule::kInt64Input) {
        OP_REQUIRES_OK(ctx, CheckScalar(t, Rule::kNames[i]));
        scalars[i] = static_cast<T>(t.scalar<int64_t>()());
        continue;
      }
      OP_REQUIRES_OK(ctx, sparse_apply_internal::CheckScalarInput<T>(
                              t, Rule::kNames[i], Rule::kRanges[i], flag_));
      scalars[i] = t.scalar<T>()();
    }

    const Tensor& grad = ctx->input(Rule::kGradInput);
    const Tensor& indices = ctx->input(Rule::kIndicesInput);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(indices.shape()),
                errors::InvalidArgument("indices must be one-dimensional"));
    // grad is [N, var.shape[1:]...].
    OP_REQUIRES(
        ctx, grad.dims() == var.dims(),
        errors::InvalidArgument(
            "var and grad must have the same rank: ", var.shape().DebugString(),
            " ", grad.shape().DebugString()));
    int64_t inner_dim = 1;
    for (int d = 1; d < var.dims(); ++d) {
      OP_REQUIRES(ctx, var.dim_size(d) == grad.dim_size(d),
                  errors::InvalidArgument(absl::StrCat(
                      "var and grad must match in dimension ", d)));
      inner_dim *= grad.dim_size(d);
    }
    const int64_t n = indices.dim_size(0);
    OP_REQUIRES(
        ctx, grad.dim_size(0) == n,
        errors::InvalidArgument(
            "grad must be the same size as indices in the first dimension."));
    OP_REQUIRES(ctx, inner_dim > 0,
                errors::InvalidArgument(
                    "Inner dimension should be greater than zero."));

    if (n > 0) {
      const int64_t rows = var.dim_size(0);
      auto idx = indices.vec<Tindex>();
      // Every index before any write: a bad one leaves the variables as
      // they were.
      for (int64_t i = 0; i < n; ++i) {
        const Tindex index = idx(i);
        OP_REQUIRES(
            ctx, index >= 0 && static_cast<int64_t>(index) < rows,
            sparse_apply_internal::BadIndex(type_string(), i, index, rows));
      }
      std::array<T*, Rule::kNumVars> bases;
      for (int v = 0; v < Rule::kNumVars; ++v) {
        bases[v] = tensors[v].template flat<T>().data();
      }
      const T* g = grad.flat<T>().data();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t offset = static_cast<int64_t>(idx(i)) * inner_dim;
        std::array<typename TTypes<T>::Flat, Rule::kNumVars> row_views =
            RowViews(bases, offset, inner_dim,
                     std::make_index_sequence<Rule::kNumVars>());
        Rule::ApplyRow(
            row_views.data(), scalars.data(),
            typename TTypes<T>::ConstFlat(g + i * inner_dim, inner_dim), flag_);
      }
    }
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  // TTypes<T>::Flat has no default constructor: build the array in place.
  template <size_t... I>
  static std::array<typename TTypes<T>::Flat, Rule::kNumVars> RowViews(
      const std::array<T*, Rule::kNumVars>& bases, int64_t offset,
      int64_t inner_dim, std::index_sequence<I...>) {
    return {typename TTypes<T>::Flat(bases[I] + offset, inner_dim)...};
  }

  bool use_exclusive_lock_ = false;
  bool flag_ = false;
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_SPARSE_APPLY_OP_H_
