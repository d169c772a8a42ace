// MergeV2Checkpoints: the last step of a sharded save. Each device's SaveV2
// wrote a bundle under a temporary prefix; this merges their indexes into one
// under the destination prefix and renames their data files next to it
// (common/checkpoint/merge_bundles.h). With delete_old_dirs the now empty
// temporary directories are removed, best effort, as TensorFlow does.
#include <string>
#include <vector>

#include "common/checkpoint/bundle_naming.h"
#include "common/checkpoint/file_io.h"
#include "common/checkpoint/merge_bundles.h"
#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefixes = ctx->input(0);
    const Tensor& destination = ctx->input(1);
    OP_REQUIRES(ctx, prefixes.dims() <= 1,
                errors::InvalidArgument(
                    "Input checkpoint_prefixes should be a scalar or 1-D "
                    "tensor, got shape ", prefixes.shape().DebugString()));
    OP_REQUIRES(ctx, destination.dims() == 0,
                errors::InvalidArgument(
                    "Input destination_prefix should be a scalar tensor, got ",
                    destination.shape().DebugString()));
    std::vector<std::string> inputs;
    for (int64_t i = 0; i < prefixes.NumElements(); ++i) {
      inputs.push_back(prefixes.flat<std::string>()(i));
    }
    const std::string& merged = destination.scalar<std::string>()();
    // Every file it reads, writes or deletes is under the task's
    // --allowed-path directories (docs/limits.md).
    for (const std::string& input : inputs) {
      OP_REQUIRES_OK(ctx, ctx->CheckCheckpointAccess(input));
    }
    OP_REQUIRES_OK(ctx, ctx->CheckCheckpointAccess(merged));
    OP_REQUIRES_OK(ctx, MergeBundles(inputs, merged, allow_missing_files_));
    if (delete_old_dirs_) {
      const std::string merged_dir = Dirname(merged);
      for (const std::string& input : inputs) {
        const std::string dir = Dirname(input);
        // rmdir: only an emptied directory goes, never the destination's.
        if (!dir.empty() && dir != merged_dir) DeleteDir(dir).IgnoreError();
      }
    }
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

REGISTER_KERNEL_BUILDER(Name("MergeV2Checkpoints").Device(DEVICE_CPU),
                        MergeV2CheckpointsOp);

}  // namespace
}  // namespace tributary
