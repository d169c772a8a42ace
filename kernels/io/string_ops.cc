// The string ops of TensorFlow's saver graphs: StringJoin (the temporary
// checkpoint path is the prefix joined with a suffix) and StaticRegexFullMatch
// (whether the path is on S3, which picks the suffix). RE2 does the matching,
// as in TensorFlow.
#include <memory>
#include <string>

#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "re2/re2.h"

namespace tributary {
namespace {

// Joins element-wise; scalar inputs are repeated for every element, all other
// inputs must have one shape (TensorFlow's rule).
class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    OP_REQUIRES(ctx, n > 0,
                errors::InvalidArgument("StringJoin needs at least one input"));
    TensorShape shape;
    bool have_shape = false;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() == 0) continue;
      if (!have_shape) {
        shape = t.shape();
        have_shape = true;
      } else {
        OP_REQUIRES(ctx, t.shape() == shape,
                    errors::InvalidArgument(
                        "Input shapes do not match: ", shape.DebugString(),
                        " vs. ", t.shape().DebugString()));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::string* o = out->flat<std::string>().data();
    std::vector<absl::string_view> parts(n);
    for (int64_t j = 0; j < out->NumElements(); ++j) {
      for (int i = 0; i < n; ++i) {
        const Tensor& t = ctx->input(i);
        parts[i] = t.flat<std::string>()(t.dims() == 0 ? 0 : j);
      }
      o[j] = absl::StrJoin(parts, separator_);
    }
  }

 private:
  std::string separator_;
};

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    re_ = std::make_unique<RE2>(pattern, RE2::Quiet);
    OP_REQUIRES(ctx, re_->ok(),
                errors::InvalidArgument("Invalid pattern: ", pattern,
                                        ", error: ", re_->error()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      out->flat<bool>()(i) = RE2::FullMatch(input.flat<std::string>()(i), *re_);
    }
  }

 private:
  std::unique_ptr<RE2> re_;
};

REGISTER_KERNEL_BUILDER(Name("StringJoin").Device(DEVICE_CPU), StringJoinOp);
REGISTER_KERNEL_BUILDER(Name("StaticRegexFullMatch").Device(DEVICE_CPU),
                        StaticRegexFullMatchOp);

}  // namespace
}  // namespace tributary
