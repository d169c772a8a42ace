// Einsum (TensorFlow's signature: N inputs, attr equation) for one or two
// inputs, planned by einsum_spec.h.
//
// An input with a label repeated (a diagonal, "ii->i", "iij->j") is first
// reduced to its diagonal, one axis per distinct label (TakeDiagonal).
// One input: a single permute-and-sum pass into the output's label order.
// Two inputs: each is permuted (summing its private labels away) into
//   x: [batch..., free0..., contracted...]   y: [batch..., contracted...,
//   free1...]
// then every batch element is one matrix product [M, K] x [K, N] (batch
// dimensions of size 1 broadcast), and the [batch..., free0..., free1...]
// result is permuted into the output's order. The products go through the
// same MatMul functor as MatMul/BatchMatMulV2 (OpenBLAS or Eigen).
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/einsum_spec.h"
#include "kernels/math/matmul_functor.h"

namespace tributary {
namespace {

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// half and bfloat16 are summed in float and rounded once, as TensorFlow's
// CPU reductions of these types do.
template <typename T>
using SumType = std::conditional_t<std::is_same_v<T, Eigen::half> ||
                                       std::is_same_v<T, Eigen::bfloat16>,
                                   float, T>;

// out[labels of `out_labels`] = sum over the other labels of in. Every label
// of `out_labels` is in `in_labels` with the same size.
template <typename T>
void PermuteSum(const T* in, const std::vector<int>& in_labels,
                const std::vector<int64_t>& in_dims,
                const std::vector<int>& out_labels,
                const std::vector<int64_t>& out_dims, T* out) {
  const int rank = static_cast<int>(in_labels.size());
  const int64_t in_size = Product(in_dims);
  const int64_t out_size = Product(out_dims);
  std::vector<int64_t> out_strides(out_labels.size(), 1);
  for (int i = static_cast<int>(out_labels.size()) - 2; i >= 0; --i) {
    out_strides[i] = out_strides[i + 1] * out_dims[i + 1];
  }
  bool identity = in_labels.size() == out_labels.size();
  std::vector<int64_t> stride(rank, 0);  // Output stride of each input axis.
  for (int a = 0; a < rank; ++a) {
    for (size_t o = 0; o < out_labels.size(); ++o) {
      if (out_labels[o] == in_labels[a]) stride[a] = out_strides[o];
    }
    if (identity && out_labels[a] != in_labels[a]) identity = false;
  }
  if (identity) {
    if (in_size > 0) std::memcpy(out, in, sizeof(T) * in_size);
    return;
  }
  using Acc = SumType<T>;
  std::vector<Acc> widened;
  Acc* sum = nullptr;
  if constexpr (std::is_same_v<Acc, T>) {
    sum = out;
  } else {
    widened.resize(out_size);
    sum = widened.data();
  }
  std::fill(sum, sum + out_size, Acc(0));
  std::vector<int64_t> coord(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < in_size; ++i) {
    sum[offset] += static_cast<Acc>(in[i]);
    for (int a = rank - 1; a >= 0; --a) {
      offset += stride[a];
      if (++coord[a] < in_dims[a]) break;
      offset -= stride[a] * in_dims[a];
      coord[a] = 0;
    }
  }
  if constexpr (!std::is_same_v<Acc, T>) {
    for (int64_t i = 0; i < out_size; ++i) out[i] = static_cast<T>(sum[i]);
  }
}

// One einsum operand as the plan's distinct labels see it: the input
// itself, or (a label repeated) its diagonal, gathered into `storage`.
template <typename T>
struct Operand {
  const T* data = nullptr;
  std::vector<int64_t> dims;
  std::vector<T> storage;
};

// in (axes labelled `raw`, sizes `in_dims`) reduced to one axis per label of
// `distinct`: out[c] = in[the element whose every axis takes the coordinate
// of its label in c].
template <typename T>
void TakeDiagonal(const T* in, const std::vector<int>& raw,
                  const std::vector<int64_t>& in_dims,
                  const std::vector<int>& distinct, Operand<T>* out) {
  const int rank = static_cast<int>(raw.size());
  std::vector<int64_t> in_strides(rank, 1);
  for (int a = rank - 2; a >= 0; --a) {
    in_strides[a] = in_strides[a + 1] * in_dims[a + 1];
  }
  const int drank = static_cast<int>(distinct.size());
  std::vector<int64_t> stride(drank, 0);  // Input step per distinct axis.
  out->dims.assign(drank, 0);
  for (int d = 0; d < drank; ++d) {
    for (int a = 0; a < rank; ++a) {
      if (raw[a] == distinct[d]) {
        stride[d] += in_strides[a];
        out->dims[d] = in_dims[a];
      }
    }
  }
  int64_t size = 1;
  for (int64_t d : out->dims) size *= d;
  out->storage.resize(size);
  out->data = out->storage.data();
  if (size == 0) return;
  std::vector<int64_t> coord(drank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < size; ++i) {
    out->storage[i] = in[offset];
    for (int d = drank - 1; d >= 0; --d) {
      offset += stride[d];
      if (++coord[d] < out->dims[d]) break;
      offset -= stride[d] * out->dims[d];
      coord[d] = 0;
    }
  }
}

std::vector<int64_t> Dims(const Tensor& t) {
  return std::vector<int64_t>(t.shape().dim_sizes().begin(),
                              t.shape().dim_sizes().end());
}

std::vector<int> Concat(std::initializer_list<std::vector<int>> parts) {
  std::vector<int> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The sizes `labels` have in an input with `in_labels`/`in_dims`.
std::vector<int64_t> SizesIn(const std::vector<int>& labels,
                             const std::vector<int>& in_labels,
                             const std::vector<int64_t>& in_dims) {
  std::vector<int64_t> sizes;
  for (int id : labels) {
    for (size_t a = 0; a < in_labels.size(); ++a) {
      if (in_labels[a] == id) sizes.push_back(in_dims[a]);
    }
  }
  return sizes;
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<TensorShape> shapes;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      shapes.push_back(ctx->input(i).shape());
    }
    absl::StatusOr<EinsumPlan> plan_or = PlanEinsum(equation_, shapes);
    OP_REQUIRES_OK(ctx, plan_or.status());
    const EinsumPlan& plan = *plan_or;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape, &out));
    std::vector<int64_t> out_dims = Dims(*out);
    std::vector<Operand<T>> operands(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      const T* data = t.NumElements() > 0 ? t.flat<T>().data() : nullptr;
      if (plan.raw_input_labels[i].size() != plan.input_labels[i].size()) {
        TakeDiagonal<T>(data, plan.raw_input_labels[i], Dims(t),
                        plan.input_labels[i], &operands[i]);
      } else {
        operands[i].data = data;
        operands[i].dims = Dims(t);
      }
    }
    if (ctx->num_inputs() == 1) {
      PermuteSum<T>(operands[0].data, plan.input_labels[0], operands[0].dims,
                    plan.output_labels, out_dims, out->flat<T>().data());
      return;
    }
    OP_REQUIRES_OK(ctx, functor::MatMulBackendStatus<T>());
    const std::vector<int64_t>& x_in = operands[0].dims;
    const std::vector<int64_t>& y_in = operands[1].dims;
    const auto& xl = plan.input_labels[0];
    const auto& yl = plan.input_labels[1];
    const std::vector<int> x_labels =
        Concat({plan.batch, plan.free0, plan.contracted});
    const std::vector<int> y_labels =
        Concat({plan.batch, plan.contracted, plan.free1});
    const std::vector<int64_t> x_dims = SizesIn(x_labels, xl, x_in);
    const std::vector<int64_t> y_dims = SizesIn(y_labels, yl, y_in);
    const size_t nb = plan.batch.size();
    const std::vector<int64_t> xb(x_dims.begin(), x_dims.begin() + nb);
    const std::vector<int64_t> yb(y_dims.begin(), y_dims.begin() + nb);
    const int64_t m = Product(SizesIn(plan.free0, xl, x_in));
    const int64_t k = Product(SizesIn(plan.contracted, xl, x_in));
    const int64_t n = Product(SizesIn(plan.free1, yl, y_in));
    std::vector<int64_t> batch_dims;
    for (int id : plan.batch) batch_dims.push_back(plan.label_size[id]);
    const int64_t batches = Product(batch_dims);
    if (out->NumElements() == 0) return;

    std::vector<T> xp(Product(x_dims)), yp(Product(y_dims));
    PermuteSum<T>(operands[0].data, xl, x_in, x_labels, x_dims, xp.data());
    PermuteSum<T>(operands[1].data, yl, y_in, y_labels, y_dims, yp.data());

    const std::vector<int> r_labels =
        Concat({plan.batch, plan.free0, plan.free1});
    std::vector<int64_t> r_dims;
    for (int id : r_labels) r_dims.push_back(plan.label_size[id]);
    std::vector<T> r(batches * m * n);
    const Eigen::ThreadPoolDevice& d =
        ctx->eigen_device<Eigen::ThreadPoolDevice>();
    // Walk the output batch coordinates; a size-1 batch dim of x or y stays
    // at index 0 (broadcast).
    std::vector<int64_t> coord(nb, 0);
    for (int64_t b = 0; b < batches; ++b) {
      int64_t xi = 0, yi = 0;
      for (size_t a = 0; a < nb; ++a) {
        xi = xi * xb[a] + (xb[a] == 1 ? 0 : coord[a]);
        yi = yi * yb[a] + (yb[a] == 1 ? 0 : coord[a]);
      }
      typename TTypes<T>::Matrix rm(r.data() + b * m * n, m, n);
      if (k == 0) {
        rm.setZero();
      } else {
        typename TTypes<T>::ConstMatrix xm(xp.data() + xi * m * k, m, k);
        typename TTypes<T>::ConstMatrix ym(yp.data() + yi * k * n, k, n);
        functor::MatMul<T>(d, rm, xm, ym, false, false);
      }
      for (int a = static_cast<int>(nb) - 1; a >= 0; --a) {
        if (++coord[a] < batch_dims[a]) break;
        coord[a] = 0;
      }
    }
    PermuteSum<T>(r.data(), r_labels, r_dims, plan.output_labels, out_dims,
                  out->flat<T>().data());
  }

 private:
  std::string equation_;
};

#define REGISTER_EINSUM(T) \
  REGISTER_KERNEL_BUILDER( \
      Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), EinsumOp<T>)
REGISTER_EINSUM(float);
REGISTER_EINSUM(double);
REGISTER_EINSUM(int32_t);
REGISTER_EINSUM(int64_t);
REGISTER_EINSUM(Eigen::half);
REGISTER_EINSUM(Eigen::bfloat16);
REGISTER_EINSUM(complex64);
REGISTER_EINSUM(complex128);
#undef REGISTER_EINSUM

}  // namespace
}  // namespace tributary
