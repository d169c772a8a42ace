// Scatter{Update,Add,Sub,Mul,Div,Min,Max} on TF1 reference variables and
// ResourceScatter* on resource variables: row indices[i...] of the variable
// is combined with the matching slice of updates (or with updates itself
// when it is a scalar). Rows are visited in index order, so a repeated index
// combines once per occurrence (an update: the last one wins), as
// TensorFlow's CPU kernels do.
//
// Locking: the ref ops hold the variable's mutex for the whole update only
// with use_locking (ScatterUpdate's default); the resource ops always hold
// the Var's mutex (training_op_helpers.h, which also makes a shared
// resource buffer private first).
//
// Errors, TensorFlow's wording: "params must be at least 1-D, got shape
// [...]", "Must have updates.shape = indices.shape + params.shape[1:] or
// updates.shape = [], got ...", "indices[1] = 7 is not in [0, 4)"; every
// index is checked before any row is written. Integer ScatterDiv by zero
// is InvalidArgument (TensorFlow's kernel would trap).

#include <cstring>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/state/scatter_util.h"
#include "kernels/training/training_op_helpers.h"

namespace tributary {
namespace {

enum class ScatterKind { kUpdate, kAdd, kSub, kMul, kDiv, kMin, kMax };

template <typename T, ScatterKind kKind>
inline void Combine(T* dst, T src) {
  switch (kKind) {
    case ScatterKind::kUpdate:
      *dst = src;
      break;
    case ScatterKind::kAdd:
      *dst = *dst + src;
      break;
    case ScatterKind::kSub:
      *dst = *dst - src;
      break;
    case ScatterKind::kMul:
      *dst = *dst * src;
      break;
    case ScatterKind::kDiv:
      *dst = *dst / src;
      break;
    case ScatterKind::kMin:
      if (src < *dst) *dst = src;
      break;
    case ScatterKind::kMax:
      if (*dst < src) *dst = src;
      break;
  }
}

// Serves the ref form (input 0 is Ref(T), attr use_locking) and the resource
// form (input 0 is a DT_RESOURCE handle) alike.
template <typename T, typename Tindex, ScatterKind kKind>
class ScatterOp : public OpKernel {
 public:
  explicit ScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->input_type(0) != DT_RESOURCE) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars(ctx, use_exclusive_lock_);
    OP_REQUIRES_OK(ctx, vars.Acquire({0}));
    Tensor params;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, DataTypeToEnum<T>::v(), &params));
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckScatterShapes(params, indices, updates));

    const int64_t n = indices.NumElements();
    if (n > 0) {
      const int64_t rows = params.dim_size(0);
      const int64_t inner = params.NumElements() / rows;
      const Tindex* idx = indices.flat<Tindex>().data();
      OP_REQUIRES_OK(ctx, CheckScatterIndices(idx, indices.shape(), rows));
      const T* upd = updates.flat<T>().data();
      const bool scalar = updates.dims() == 0;
      if constexpr (kKind == ScatterKind::kDiv && std::is_integral_v<T>) {
        const int64_t count = scalar ? 1 : updates.NumElements();
        for (int64_t i = 0; i < count; ++i) {
          OP_REQUIRES(ctx, upd[i] != T(0),
                      errors::InvalidArgument("Integer division by zero"));
        }
      }
      T* base = params.flat<T>().data();
      for (int64_t i = 0; i < n; ++i) {
        T* dst = base + static_cast<int64_t>(idx[i]) * inner;
        if (scalar) {
          for (int64_t j = 0; j < inner; ++j) Combine<T, kKind>(dst + j, *upd);
        } else {
          const T* src = upd + i * inner;
          for (int64_t j = 0; j < inner; ++j) {
            Combine<T, kKind>(dst + j, src[j]);
          }
        }
      }
    }
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
};

#define TRIB_REGISTER_SCATTER(REF_NAME, RES_NAME, T, TI, KIND)  \
  REGISTER_KERNEL_BUILDER(Name(REF_NAME)                        \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<TI>("Tindices"),  \
                          ScatterOp<T, TI, ScatterKind::KIND>); \
  REGISTER_KERNEL_BUILDER(Name(RES_NAME)                        \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("dtype")       \
                              .TypeConstraint<TI>("Tindices"),  \
                          ScatterOp<T, TI, ScatterKind::KIND>)

#define TRIB_REGISTER_ARITH_TI(T, TI)                                     \
  TRIB_REGISTER_SCATTER("ScatterAdd", "ResourceScatterAdd", T, TI, kAdd); \
  TRIB_REGISTER_SCATTER("ScatterSub", "ResourceScatterSub", T, TI, kSub); \
  TRIB_REGISTER_SCATTER("ScatterMul", "ResourceScatterMul", T, TI, kMul); \
  TRIB_REGISTER_SCATTER("ScatterDiv", "ResourceScatterDiv", T, TI, kDiv); \
  TRIB_REGISTER_SCATTER("ScatterMin", "ResourceScatterMin", T, TI, kMin); \
  TRIB_REGISTER_SCATTER("ScatterMax", "ResourceScatterMax", T, TI, kMax); \
  TRIB_REGISTER_SCATTER("ScatterUpdate", "ResourceScatterUpdate", T, TI,  \
                        kUpdate)

#define TRIB_REGISTER_ARITH(T)        \
  TRIB_REGISTER_ARITH_TI(T, int32_t); \
  TRIB_REGISTER_ARITH_TI(T, int64_t)

TRIB_REGISTER_ARITH(half);
TRIB_REGISTER_ARITH(bfloat16);
TRIB_REGISTER_ARITH(float);
TRIB_REGISTER_ARITH(double);
TRIB_REGISTER_ARITH(int32_t);
TRIB_REGISTER_ARITH(int64_t);
// Updates only: bool has no arithmetic.
TRIB_REGISTER_SCATTER("ScatterUpdate", "ResourceScatterUpdate", bool, int32_t,
                      kUpdate);
TRIB_REGISTER_SCATTER("ScatterUpdate", "ResourceScatterUpdate", bool, int64_t,
                      kUpdate);
#undef TRIB_REGISTER_ARITH
#undef TRIB_REGISTER_ARITH_TI
#undef TRIB_REGISTER_SCATTER

}  // namespace
}  // namespace tributary
