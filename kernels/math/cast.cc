// Cast between float, double, half, bfloat16, the integer types (int8/16/32/64,
// uint8/16/32/64; tf.random.Generator casts its deltas to uint64), bool and
// complex64/complex128, with C++ conversion semantics as TensorFlow's Eigen
// cast: float -> int truncates toward zero, x -> bool is x != 0, float ->
// half/bfloat16 rounds to nearest even. As TensorFlow's cast functors,
// complex -> any real type converts the real part (so complex -> bool is
// real != 0), real -> complex has imaginary part 0, and complex64 <->
// complex128 converts both parts.
#include <complex>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using CastFn = void (*)(const Eigen::ThreadPoolDevice&, const Tensor&, Tensor*);

template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// One element, for casts from or to a complex type.
template <typename Src, typename Dst>
struct ComplexCastF {
  Dst operator()(const Src& x) const {
    if constexpr (kIsComplex<Src> && kIsComplex<Dst>) {
      using R = typename Dst::value_type;
      return Dst(static_cast<R>(x.real()), static_cast<R>(x.imag()));
    } else if constexpr (kIsComplex<Src>) {
      return static_cast<Dst>(x.real());
    } else {
      using R = typename Dst::value_type;
      return Dst(static_cast<R>(x), R(0));
    }
  }
};

// float/double -> uint32 through int64, as x86-64 code without AVX-512 (and
// TensorFlow's CPU build) converts: a value beyond uint32's range keeps its
// low 32 bits (1e18 -> 2808348672). C++ leaves it undefined, and with
// -march=native on an AVX-512 machine the plain cast saturates instead; this
// pins TensorFlow's answer whatever machine built us.
template <typename Src>
struct FloatToUint32F {
  uint32_t operator()(const Src& x) const {
    return static_cast<uint32_t>(static_cast<int64_t>(x));
  }
};

template <typename Src, typename Dst>
void CastImpl(const Eigen::ThreadPoolDevice& d, const Tensor& in, Tensor* out) {
  if constexpr (kIsComplex<Src> || kIsComplex<Dst>) {
    out->flat<Dst>().device(d) =
        in.flat<Src>().unaryExpr(ComplexCastF<Src, Dst>());
  } else if constexpr (std::is_floating_point_v<Src> &&
                       std::is_same_v<Dst, uint32_t>) {
    out->flat<Dst>().device(d) =
        in.flat<Src>().unaryExpr(FloatToUint32F<Src>());
  } else {
    out->flat<Dst>().device(d) = in.flat<Src>().template cast<Dst>();
  }
}

template <typename Src>
CastFn CastFrom(DataType dst) {
  switch (dst) {
    case DT_FLOAT:
      return &CastImpl<Src, float>;
    case DT_DOUBLE:
      return &CastImpl<Src, double>;
    case DT_INT32:
      return &CastImpl<Src, int32_t>;
    case DT_INT64:
      return &CastImpl<Src, int64_t>;
    case DT_BOOL:
      return &CastImpl<Src, bool>;
    case DT_HALF:
      return &CastImpl<Src, Eigen::half>;
    case DT_BFLOAT16:
      return &CastImpl<Src, Eigen::bfloat16>;
    case DT_INT8:
      return &CastImpl<Src, int8_t>;
    case DT_UINT8:
      return &CastImpl<Src, uint8_t>;
    case DT_INT16:
      return &CastImpl<Src, int16_t>;
    case DT_UINT16:
      return &CastImpl<Src, uint16_t>;
    case DT_UINT32:
      return &CastImpl<Src, uint32_t>;
    case DT_UINT64:
      return &CastImpl<Src, uint64_t>;
    case DT_COMPLEX64:
      return &CastImpl<Src, complex64>;
    case DT_COMPLEX128:
      return &CastImpl<Src, complex128>;
    default:
      return nullptr;
  }
}

CastFn GetCastFn(DataType src, DataType dst) {
  switch (src) {
    case DT_FLOAT:
      return CastFrom<float>(dst);
    case DT_DOUBLE:
      return CastFrom<double>(dst);
    case DT_INT32:
      return CastFrom<int32_t>(dst);
    case DT_INT64:
      return CastFrom<int64_t>(dst);
    case DT_BOOL:
      return CastFrom<bool>(dst);
    case DT_HALF:
      return CastFrom<Eigen::half>(dst);
    case DT_BFLOAT16:
      return CastFrom<Eigen::bfloat16>(dst);
    case DT_INT8:
      return CastFrom<int8_t>(dst);
    case DT_UINT8:
      return CastFrom<uint8_t>(dst);
    case DT_INT16:
      return CastFrom<int16_t>(dst);
    case DT_UINT16:
      return CastFrom<uint16_t>(dst);
    case DT_UINT32:
      return CastFrom<uint32_t>(dst);
    case DT_UINT64:
      return CastFrom<uint64_t>(dst);
    case DT_COMPLEX64:
      return CastFrom<complex64>(dst);
    case DT_COMPLEX128:
      return CastFrom<complex128>(dst);
    default:
      return nullptr;
  }
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    fn_ = GetCastFn(src_, dst_);
    // The registration's type constraints make this unreachable; kept so
    // a widened registration cannot crash at run time.
    OP_REQUIRES(
        ctx, src_ == dst_ || fn_ != nullptr,
        errors::Unimplemented("Cast ", DataTypeString(src_), " to ",
                              DataTypeString(dst_), " is not supported"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (src_ == dst_) {
      // Tensors are immutable here: sharing the buffer is a valid copy.
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    fn_(ctx->eigen_device<Eigen::ThreadPoolDevice>(), in, out);
  }

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
  CastFn fn_ = nullptr;
};

constexpr DataType kCastTypes[] = {
    DT_FLOAT,  DT_DOUBLE, DT_HALF,   DT_BFLOAT16,  DT_INT32,
    DT_INT64,  DT_BOOL,   DT_INT8,   DT_UINT8,     DT_INT16,
    DT_UINT16, DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128};
REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("SrcT", kCastTypes)
                            .TypeConstraint("DstT", kCastTypes),
                        CastOp);

}  // namespace
}  // namespace tributary
