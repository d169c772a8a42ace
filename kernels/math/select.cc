// Select (TF1: condition scalar, same shape, or a vector picking rows) and
// SelectV2 (condition, then and else broadcast together).
#include <string>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/bcast.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename T>
class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& then = ctx->input(1);
    const Tensor& els = ctx->input(2);
    if (cond.dims() == 0) {
      OP_REQUIRES(ctx, then.shape().IsSameSize(els.shape()),
                  errors::InvalidArgument(
                      "'then' and 'else' must have the same size.  but "
                      "received: ",
                      then.shape().DebugString(), " vs. ",
                      els.shape().DebugString()));
      // Both are immutable: picking one shares its buffer, no copy.
      ctx->set_output(0, cond.scalar<bool>()() ? then : els);
      return;
    }
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    if (cond.dims() == 1 && then.dims() != 1) {
      // Row select: cond[i] picks then[i, ...] or else[i, ...].
      OP_REQUIRES(ctx, then.dims() >= 1,
                  errors::InvalidArgument(
                      "'then' must be at least a vector, but saw shape: ",
                      then.shape().DebugString()));
      OP_REQUIRES(ctx, then.dim_size(0) == cond.NumElements(),
                  errors::InvalidArgument(
                      "Number of batches of 'then' must match size of "
                      "'cond', but saw: ",
                      then.dim_size(0), " vs. ", cond.NumElements()));
      OP_REQUIRES(ctx, then.shape().IsSameSize(els.shape()),
                  errors::InvalidArgument(
                      "'then' and 'else' must have the same size.  but "
                      "received: ",
                      then.shape().DebugString(), " vs. ",
                      els.shape().DebugString()));
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              {1, 2}, 0, then.shape(), &out));
      if (out->NumElements() == 0) return;
      const Eigen::DenseIndex batch = cond.NumElements();
      const Eigen::DenseIndex inner = then.NumElements() / batch;
      Eigen::array<Eigen::DenseIndex, 2> reshape{{batch, 1}};
      Eigen::array<Eigen::DenseIndex, 2> bcast{{1, inner}};
      out->shaped<T, 2>({batch, inner}).device(d) =
          cond.flat<bool>()
              .reshape(reshape)
              .broadcast(bcast)
              .select(then.shaped<T, 2>({batch, inner}),
                      els.shaped<T, 2>({batch, inner}));
      return;
    }
    if (!ctx->ValidateInputsAreSameShape(this)) return;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {1, 2}, 0, then.shape(), &out));
    if (out->NumElements() == 0) return;
    out->flat<T>().device(d) =
        cond.flat<bool>().select(then.flat<T>(), els.flat<T>());
  }
};

template <typename T>
class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& then = ctx->input(1);
    const Tensor& els = ctx->input(2);
    BCastList bcast({ShapeToVec(cond.shape()), ShapeToVec(then.shape()),
                     ShapeToVec(els.shape())});
    OP_REQUIRES(ctx, bcast.IsValid(),
                errors::InvalidArgument(
                    "condition ", cond.shape().DebugString(), ", then ",
                    then.shape().DebugString(), ", and else ",
                    els.shape().DebugString(), " must be broadcastable"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {1, 2}, 0, bcast.output_tensor_shape(), &out));
    if (out->NumElements() == 0) return;
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    switch (bcast.result_shape().size()) {
      case 1: Run<1>(d, cond, then, els, bcast, out); break;
      case 2: Run<2>(d, cond, then, els, bcast, out); break;
      case 3: Run<3>(d, cond, then, els, bcast, out); break;
      case 4: Run<4>(d, cond, then, els, bcast, out); break;
      default: RunGeneric(cond, then, els, bcast, out); break;
    }
  }

 private:
  template <int N>
  static Eigen::array<Eigen::DenseIndex, N> ToArray(const BCastList::Vec& v) {
    Eigen::array<Eigen::DenseIndex, N> a;
    for (int i = 0; i < N; ++i) a[i] = v[i];
    return a;
  }

  template <int N>
  static void Run(const CPUDevice& d, const Tensor& cond, const Tensor& then,
                  const Tensor& els, const BCastList& b, Tensor* out) {
    out->shaped<T, N>(b.result_shape()).device(d) =
        cond.shaped<bool, N>(b.reshape(0))
            .broadcast(ToArray<N>(b.bcast(0)))
            .select(then.shaped<T, N>(b.reshape(1))
                        .broadcast(ToArray<N>(b.bcast(1))),
                    els.shaped<T, N>(b.reshape(2))
                        .broadcast(ToArray<N>(b.bcast(2))));
  }

  // More than four merged dimensions (alternating broadcast patterns):
  // rare, so a plain index walk instead of more Eigen instantiations.
  static void RunGeneric(const Tensor& cond, const Tensor& then,
                         const Tensor& els, const BCastList& b, Tensor* out) {
    const BCastList::Vec& shape = b.result_shape();
    const int rank = static_cast<int>(shape.size());
    // Per input, the element stride of each result dimension (0 where
    // the input is broadcast along it).
    std::vector<std::vector<int64_t>> strides(3, std::vector<int64_t>(rank));
    for (int i = 0; i < 3; ++i) {
      int64_t stride = 1;
      for (int k = rank - 1; k >= 0; --k) {
        strides[i][k] = b.reshape(i)[k] == 1 ? 0 : stride;
        stride *= b.reshape(i)[k];
      }
    }
    const bool* c = cond.flat<bool>().data();
    const T* t = then.flat<T>().data();
    const T* e = els.flat<T>().data();
    T* o = out->flat<T>().data();
    std::vector<int64_t> index(rank, 0);
    const int64_t total = out->NumElements();
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t ci = 0, ti = 0, ei = 0;
      for (int k = 0; k < rank; ++k) {
        ci += index[k] * strides[0][k];
        ti += index[k] * strides[1][k];
        ei += index[k] * strides[2][k];
      }
      o[flat] = c[ci] ? t[ti] : e[ei];
      for (int k = rank - 1; k >= 0; --k) {
        if (++index[k] < shape[k]) break;
        index[k] = 0;
      }
    }
  }
};

#define REGISTER_SELECT(T)                                              \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      SelectOp<T>);                                                     \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("SelectV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
      SelectV2Op<T>)
REGISTER_SELECT(float);
REGISTER_SELECT(double);
REGISTER_SELECT(int32_t);
REGISTER_SELECT(int64_t);
REGISTER_SELECT(bool);
REGISTER_SELECT(complex64);
REGISTER_SELECT(complex128);
// Saver graphs pick a temporary checkpoint path with a string Select.
REGISTER_SELECT(std::string);
#undef REGISTER_SELECT

}  // namespace
}  // namespace tributary
