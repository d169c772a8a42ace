#ifndef TRIBUTARY_KERNELS_MATH_CWISE_OPS_H_
#define TRIBUTARY_KERNELS_MATH_CWISE_OPS_H_

// Kernel templates for elementwise ops: UnaryOp<Spec>, BinaryOp<Spec>
// (with TensorFlow broadcasting) and SimpleBinaryOp<Spec> (the gradient
// ops), evaluated on the device's Eigen::ThreadPoolDevice. Specs come from cwise_functors.h.
//
// Instantiating these is the expensive part of compiling the math kernels,
// so each family registers its ops from its own .cc file.

#include <atomic>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/bcast.h"
#include "kernels/math/cwise_functors.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename Spec>
class UnaryOp : public OpKernel {
 public:
  using Tin = typename Spec::in_type;
  using Tout = typename Spec::out_type;

  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->MatchSignature({DataTypeToEnum<Tin>::v()},
                                            {DataTypeToEnum<Tout>::v()}));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0,
                                                               in.shape(), &out));
    if (out->NumElements() == 0) return;
    out->flat<Tout>().device(ctx->eigen_device<CPUDevice>()) =
        in.flat<Tin>().unaryExpr(typename Spec::func());
  }
};

// TensorFlow's SimpleBinaryOp (the *Grad ops): both inputs hold the same
// number of elements, no broadcasting; the output takes input 0's shape.
template <typename Spec>
class SimpleBinaryOp : public OpKernel {
 public:
  using T = typename Spec::in_type;

  explicit SimpleBinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const DataType dt = DataTypeToEnum<T>::v();
    OP_REQUIRES_OK(ctx, ctx->MatchSignature({dt, dt}, {dt}));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    OP_REQUIRES(ctx, in0.NumElements() == in1.NumElements(),
                errors::InvalidArgument(
                    "The two arguments to a cwise op must have same number of "
                    "elements, got ",
                    in0.NumElements(), " and ", in1.NumElements()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0,
                                                               in0.shape(), &out));
    if (out->NumElements() == 0) return;
    out->flat<T>().device(ctx->eigen_device<CPUDevice>()) =
        in0.flat<T>().binaryExpr(in1.flat<T>(), typename Spec::func());
  }
};

// TensorFlow's BinaryOp: fast paths for equal shapes and scalars, then the
// general broadcast on up to 5 (merged) dimensions.
template <typename Spec>
class BinaryOp : public OpKernel {
 public:
  using Tin = typename Spec::in_type;
  using Tout = typename Spec::out_type;
  using Func = typename Spec::func;

  explicit BinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const DataType in = DataTypeToEnum<Tin>::v();
    OP_REQUIRES_OK(ctx,
                   ctx->MatchSignature({in, in}, {DataTypeToEnum<Tout>::v()}));
    // Equal/NotEqual only: with incompatible_shape_error=false, shapes that
    // do not broadcast give a scalar false (Equal) / true (NotEqual).
    if (ctx->HasAttr("incompatible_shape_error")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                       &incompatible_shape_error_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    std::atomic<bool> error{false};
    const Func func = Spec::Make(&error);
    Tensor* out = nullptr;

    if (in0.shape() == in1.shape()) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              {0, 1}, 0, in0.shape(), &out));
      if (out->NumElements() > 0) {
        out->flat<Tout>().device(d) =
            in0.flat<Tin>().binaryExpr(in1.flat<Tin>(), func);
      }
    } else if (in0.dims() == 0) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              {1}, 0, in1.shape(), &out));
      RunLeft(d, in0.flat<Tin>().data(), in1, out, func);
    } else if (in1.dims() == 0) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              {0}, 0, in0.shape(), &out));
      RunRight(d, in0, in1.flat<Tin>().data(), out, func);
    } else {
      BCast bcast(ShapeToVec(in0.shape()), ShapeToVec(in1.shape()));
      if (!bcast.IsValid()) {
        if (!incompatible_shape_error_) {
          OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
          out->scalar<bool>()() = type_string() == "NotEqual";
          return;
        }
        ctx->SetStatus(errors::InvalidArgument(
            "Incompatible shapes: ", in0.shape().DebugString(), " vs. ",
            in1.shape().DebugString()));
        return;
      }
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              {0, 1}, 0, bcast.output_tensor_shape(), &out));
      if (out->NumElements() == 0) return;
      const int ndims = static_cast<int>(bcast.result_shape().size());
      switch (ndims) {
        case 1:
          if (in1.NumElements() == 1) {
            RunRight(d, in0, in1.flat<Tin>().data(), out, func);
          } else if (in0.NumElements() == 1) {
            RunLeft(d, in0.flat<Tin>().data(), in1, out, func);
          } else {
            out->flat<Tout>().device(d) =
                in0.flat<Tin>().binaryExpr(in1.flat<Tin>(), func);
          }
          break;
        case 2:
          RunBCast<2>(d, in0, in1, bcast, out, func);
          break;
        case 3:
          RunBCast<3>(d, in0, in1, bcast, out, func);
          break;
        case 4:
          RunBCast<4>(d, in0, in1, bcast, out, func);
          break;
        case 5:
          RunBCast<5>(d, in0, in1, bcast, out, func);
          break;
        default:
          // TensorFlow's limit too; more than 5 alternating broadcast
          // dimensions is rare enough not to instantiate for.
          ctx->SetStatus(errors::Unimplemented(
              "Broadcast between ", in0.shape().DebugString(), " and ",
              in1.shape().DebugString(), " is not supported yet."));
          return;
      }
    }
    if (Spec::has_errors && error.load(std::memory_order_relaxed)) {
      ctx->SetStatus(Spec::Error());
    }
  }

 private:
  static void RunLeft(const CPUDevice& d, const Tin* scalar, const Tensor& in,
                      Tensor* out, const Func& func) {
    if (out->NumElements() == 0) return;
    out->flat<Tout>().device(d) = in.flat<Tin>().unaryExpr(
        functor::BindLeft<Func, Tin>(func, scalar));
  }
  static void RunRight(const CPUDevice& d, const Tensor& in, const Tin* scalar,
                       Tensor* out, const Func& func) {
    if (out->NumElements() == 0) return;
    out->flat<Tout>().device(d) = in.flat<Tin>().unaryExpr(
        functor::BindRight<Func, Tin>(func, scalar));
  }
  template <int N>
  static Eigen::array<Eigen::DenseIndex, N> ToArray(const BCast::Vec& v) {
    Eigen::array<Eigen::DenseIndex, N> a;
    for (int i = 0; i < N; ++i) a[i] = v[i];
    return a;
  }
  template <int N>
  static void RunBCast(const CPUDevice& d, const Tensor& in0, const Tensor& in1,
                       const BCast& bcast, Tensor* out, const Func& func) {
    auto o = out->shaped<Tout, N>(bcast.result_shape());
    auto a = in0.shaped<Tin, N>(bcast.x_reshape());
    auto b = in1.shaped<Tin, N>(bcast.y_reshape());
    o.device(d) = a.broadcast(ToArray<N>(bcast.x_bcast()))
                      .binaryExpr(b.broadcast(ToArray<N>(bcast.y_bcast())),
                                  func);
  }

  bool incompatible_shape_error_ = true;
};

}  // namespace tributary

// REGISTER_KERNEL_BUILDER for "T"-typed ops, one line per type.
#define TRIB_REGISTER_CWISE(OP, KERNEL, SPEC, T)                        \
  REGISTER_KERNEL_BUILDER(                                              \
      Name(OP).Device(::tributary::DEVICE_CPU).TypeConstraint<T>("T"),  \
      ::tributary::KERNEL<::tributary::functor::SPEC<T>>)

#endif  // TRIBUTARY_KERNELS_MATH_CWISE_OPS_H_
