// SpaceToBatchND and BatchToSpaceND (dilated convolutions through
// tf.nn.convolution): input [batch] + spatial (M = size of block_shape) +
// remaining dimensions.
//
// SpaceToBatchND zero-pads spatial dimension i by paddings[i] and cuts it
// into blocks of block_shape[i]; the position inside the block goes to the
// batch, major-most: output batch index = offset * batch + b, with offset the
// row-major index of the within-block position. BatchToSpaceND is its
// inverse followed by cropping with `crops`. Elements only move, so the
// kernels run per element width (array_util.h).

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// Geometry shared by both directions, in terms of the "space" side (the
// SpaceToBatch input / BatchToSpace output) and the "batch" side.
struct Geometry {
  int64_t batch = 0;                    // space-side batch
  std::vector<int64_t> space;           // space-side spatial sizes
  std::vector<int64_t> block;           // block_shape
  std::vector<int64_t> before;          // padding before / crop before
  std::vector<int64_t> batch_spatial;   // batch-side spatial sizes
  int64_t depth = 1;                    // product of the remaining dims
};

// Copies between the two sides; to_batch says the direction. On the batch
// side, positions that map into the padding are zero-filled (SpaceToBatch)
// or skipped (BatchToSpace crops).
template <typename E>
void Move(const Geometry& g, const E* src, E* dst, bool to_batch) {
  const int m = static_cast<int>(g.block.size());
  int64_t block_count = 1;
  for (int64_t b : g.block) block_count *= b;
  int64_t batch_spatial_size = 1, space_size = 1;
  for (int i = 0; i < m; ++i) {
    batch_spatial_size *= g.batch_spatial[i];
    space_size *= g.space[i];
  }
  const int64_t d = g.depth;
  std::vector<int64_t> off(m), pos(m);
  const int64_t out_batches = g.batch * block_count;
  for (int64_t ob = 0; ob < out_batches; ++ob) {
    const int64_t b = ob % g.batch;
    int64_t rest = ob / g.batch;
    for (int i = m - 1; i >= 0; --i) {
      off[i] = rest % g.block[i];
      rest /= g.block[i];
    }
    for (int64_t p = 0; p < batch_spatial_size; ++p) {
      // p's multi-index on the batch side, and its space-side coordinate.
      int64_t q = p, space_flat = 0, stride = 1;
      bool inside = true;
      for (int i = m - 1; i >= 0; --i) {
        const int64_t c = q % g.batch_spatial[i];
        q /= g.batch_spatial[i];
        const int64_t s = c * g.block[i] + off[i] - g.before[i];
        if (s < 0 || s >= g.space[i]) inside = false;
        space_flat += s * stride;
        stride *= g.space[i];
      }
      const int64_t batch_index = (ob * batch_spatial_size + p) * d;
      if (to_batch) {
        E* o = dst + batch_index;
        if (inside) {
          const E* in = src + (b * space_size + space_flat) * d;
          for (int64_t k = 0; k < d; ++k) o[k] = in[k];
        } else {
          for (int64_t k = 0; k < d; ++k) o[k] = E();
        }
      } else if (inside) {
        const E* in = src + batch_index;
        E* o = dst + (b * space_size + space_flat) * d;
        for (int64_t k = 0; k < d; ++k) o[k] = in[k];
      }
    }
  }
}

// Checks block_shape and the [M, 2] paddings/crops tensor; fills block and
// the (before, after) pairs.
absl::Status ReadBlockAndPairs(const Tensor& input, const Tensor& block_t,
                               const Tensor& pairs_t, const char* pairs_name,
                               std::vector<int64_t>* block,
                               std::vector<int64_t>* pairs) {
  if (block_t.dims() != 1) {
    return errors::InvalidArgument("block_shape rank should be 1 instead of ",
                                   block_t.dims());
  }
  const int64_t m = block_t.dim_size(0);
  if (pairs_t.dims() != 2 || pairs_t.dim_size(0) != m ||
      pairs_t.dim_size(1) != 2) {
    return errors::InvalidArgument(pairs_name, " should have shape [", m,
                                   ", 2] instead of ",
                                   pairs_t.shape().DebugString());
  }
  if (input.dims() < 1 + m) {
    return errors::InvalidArgument("input rank should be >= ", 1 + m,
                                   " instead of ", input.dims());
  }
  *block = array_ops::IndexValues(block_t);
  *pairs = array_ops::IndexValues(pairs_t);
  return absl::OkStatus();
}

template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> block, pairs;
    OP_REQUIRES_OK(ctx, ReadBlockAndPairs(input, ctx->input(1), ctx->input(2),
                                          kToBatch ? "paddings" : "crops",
                                          &block, &pairs));
    const int m = static_cast<int>(block.size());
    Geometry g;
    g.block = block;
    int64_t block_count = 1;
    if (kToBatch) {
      for (int i = 0; i < m; ++i) {
        OP_REQUIRES(ctx, block[i] >= 1,
                    errors::InvalidArgument(
                        "All values in block_shape must be positive, got "
                        "value, ",
                        block[i], " at index ", i, "."));
        block_count *= block[i];
      }
      for (int64_t p : pairs) {
        OP_REQUIRES(ctx, p >= 0,
                    errors::InvalidArgument("Paddings must be non-negative"));
      }
    } else {
      for (int64_t b : block) block_count *= b;
      OP_REQUIRES(ctx, block_count > 0,
                  errors::InvalidArgument(
                      "Product of block sizes must be positive, got ",
                      block_count));
      for (int64_t c : pairs) {
        OP_REQUIRES(ctx, c >= 0,
                    errors::InvalidArgument("Crops must be non-negative"));
      }
      OP_REQUIRES(ctx, input.dim_size(0) % block_count == 0,
                  errors::InvalidArgument(
                      "Input batch dimension (", input.dim_size(0),
                      ") is not divisible by product of block sizes (",
                      block_count, ")"));
    }
    TensorShape out_shape;
    for (int i = 0; i < m; ++i) g.before.push_back(pairs[2 * i]);
    if (kToBatch) {
      g.batch = input.dim_size(0);
      out_shape.AddDim(g.batch * block_count);
      for (int i = 0; i < m; ++i) {
        const int64_t padded =
            input.dim_size(i + 1) + pairs[2 * i] + pairs[2 * i + 1];
        OP_REQUIRES(ctx, padded % block[i] == 0,
                    errors::InvalidArgument(
                        "padded_shape[", i, "]=", padded,
                        " is not divisible by block_shape[", i,
                        "]=", block[i]));
        g.space.push_back(input.dim_size(i + 1));
        g.batch_spatial.push_back(padded / block[i]);
        out_shape.AddDim(padded / block[i]);
      }
    } else {
      g.batch = input.dim_size(0) / block_count;
      out_shape.AddDim(g.batch);
      for (int i = 0; i < m; ++i) {
        const int64_t cropped = input.dim_size(i + 1) * block[i] -
                                pairs[2 * i] - pairs[2 * i + 1];
        OP_REQUIRES(ctx, cropped >= 0,
                    errors::InvalidArgument("cropped_shape[", i, "]=",
                                            cropped,
                                            " must be non-negative"));
        g.batch_spatial.push_back(input.dim_size(i + 1));
        g.space.push_back(cropped);
        out_shape.AddDim(cropped);
      }
    }
    for (int d = m + 1; d < input.dims(); ++d) {
      out_shape.AddDim(input.dim_size(d));
      g.depth *= input.dim_size(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0 || input.NumElements() == 0) return;
    const bool ok = array_ops::VisitMovableType(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      Move<E>(g, array_ops::RawData<E>(input), array_ops::RawData<E>(out),
              kToBatch);
    });
    OP_REQUIRES(ctx, ok,
                array_ops::UnsupportedDtype(type_string(), input.dtype()));
  }
};

// TensorFlow's CPU registration: the real number types (no bool, complex or
// string).
constexpr DataType kRealTypes[] = {
    DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_UINT8,  DT_INT16,  DT_INT8,
    DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64};

REGISTER_KERNEL_BUILDER(Name("SpaceToBatchND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", kRealTypes)
                            .TypeConstraint("Tblock_shape",
                                            array_ops::kIndexTypes)
                            .TypeConstraint("Tpaddings",
                                            array_ops::kIndexTypes),
                        SpaceBatchOp<true>);
REGISTER_KERNEL_BUILDER(Name("BatchToSpaceND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", kRealTypes)
                            .TypeConstraint("Tblock_shape",
                                            array_ops::kIndexTypes)
                            .TypeConstraint("Tcrops", array_ops::kIndexTypes),
                        SpaceBatchOp<false>);

}  // namespace
}  // namespace tributary
