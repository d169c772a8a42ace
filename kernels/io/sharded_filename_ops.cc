// ShardedFilename ("<basename>-<shard:05d>-of-<num_shards:05d>") and
// ShardedFilespec ("<basename>-?????-of-<num_shards:05d>"): the names a
// sharded saver gives each device's part of a checkpoint. Scalars only, as in
// TensorFlow.
#include <string>

#include "absl/strings/str_format.h"
#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

absl::Status RequireScalar(const Tensor& t, const char* what) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().DebugString());
  }
  return absl::OkStatus();
}

class ShardedFilenameOp : public OpKernel {
 public:
  explicit ShardedFilenameOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      static const char* const kNames[] = {"basename", "shard", "num_shards"};
      OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(i), kNames[i]));
    }
    Tensor out(DT_STRING, TensorShape({}));
    out.scalar<std::string>()() = absl::StrFormat(
        "%s-%05d-of-%05d", ctx->input(0).scalar<std::string>()(),
        ctx->input(1).scalar<int32_t>()(), ctx->input(2).scalar<int32_t>()());
    ctx->set_output(0, std::move(out));
  }
};

class ShardedFilespecOp : public OpKernel {
 public:
  explicit ShardedFilespecOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(0), "basename"));
    OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(1), "num_shards"));
    Tensor out(DT_STRING, TensorShape({}));
    out.scalar<std::string>()() = absl::StrFormat(
        "%s-?????-of-%05d", ctx->input(0).scalar<std::string>()(),
        ctx->input(1).scalar<int32_t>()());
    ctx->set_output(0, std::move(out));
  }
};

REGISTER_KERNEL_BUILDER(Name("ShardedFilename").Device(DEVICE_CPU),
                        ShardedFilenameOp);
REGISTER_KERNEL_BUILDER(Name("ShardedFilespec").Device(DEVICE_CPU),
                        ShardedFilespecOp);

}  // namespace
}  // namespace tributary
