// TF1 reference variables: VariableV2 (and its old name Variable) and
// IsVariableInitialized.
//
// A VariableV2 kernel owns no tensor itself: the variable is a LegacyVar in
// the ResourceMgr the runtime passes in OpKernelContext::Params, keyed by
// (container or the manager's default "localhost", shared_name or the node
// name). Every Run looks it up again, so the value persists across steps and
// across kernels built for the same node in different graphs (e.g. the
// session's per-signature executors), exactly as in TensorFlow.

#include <functional>
#include <string>

#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/container_info.h"
#include "common/resource/resource_mgr.h"
#include "kernels/state/legacy_var.h"

namespace tributary {
namespace {

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), construction_rm_(ctx->resource_manager()) {
    // Looking the variable up is a hash-map probe: run it inline.
    expensive_ = false;
    PartialTensorShape shape;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape));
    // TensorFlow's rule: an unknown rank is allowed (the variable gets its
    // shape from an Assign with validate_shape=false; until then it is an
    // uninitialised scalar), partly known dims are not.
    if (!shape.unknown_rank()) {
      OP_REQUIRES(ctx, shape.IsFullyDefined(),
                  errors::InvalidArgument("Shape ", shape.DebugString(),
                                          " is not fully defined"));
      absl::StatusOr<TensorShape> full = shape.AsTensorShape();
      OP_REQUIRES_OK(ctx, full.status());
      shape_ = *full;
    }
    dtype_ = RemoveRefType(ctx->output_type(0));
    OP_REQUIRES_OK(ctx, cinfo_.Init(def(), /*use_node_name_as_default=*/true));
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager() != nullptr
                          ? ctx->resource_manager()
                          : construction_rm_;
    OP_REQUIRES(ctx, rm != nullptr,
                errors::FailedPrecondition(
                    "variable '", name(),
                    "' needs a resource manager to live in, but the runtime "
                    "provided none"));
    std::function<absl::Status(LegacyVar**)> creator =
        [this](LegacyVar** var) {
          *var = new LegacyVar(dtype_, shape_);
          return absl::OkStatus();
        };
    const std::string& container = cinfo_.container(*rm);
    LegacyVar* var = nullptr;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<LegacyVar>(container, cinfo_.name(),
                                                      &var, creator));
    RefCountPtr<LegacyVar> holder(var);
    // Another node sharing the name with another dtype would otherwise hand
    // its consumers bytes of the wrong type.
    OP_REQUIRES(ctx, var->tensor()->dtype() == dtype_,
                errors::InvalidArgument(
                    "variable ", container, "/", cinfo_.name(), " of node '",
                    name(), "' is declared ", DataTypeString(dtype_),
                    " but the shared variable holds ",
                    DataTypeString(var->tensor()->dtype())));
    // The manager keeps its own reference, so the pointer stays valid after
    // `holder` lets go (until the container is cleaned up, which a session
    // only does between steps).
    ctx->set_output_ref(0, var->mu(), var->tensor());
  }

 private:
  ResourceMgr* const construction_rm_;
  TensorShape shape_;
  DataType dtype_ = DT_INVALID;
  ContainerInfo cinfo_;
};

class IsVariableInitializedOp : public OpKernel {
 public:
  explicit IsVariableInitializedOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    // Takes the ref's mutex to read the tensor consistently.
    const Tensor var = ctx->mutable_input(0, /*lock_held=*/false);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &output));
    output->scalar<bool>()() = var.IsInitialized();
  }
};

REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("IsVariableInitialized").Device(DEVICE_CPU),
                        IsVariableInitializedOp);

}  // namespace
}  // namespace tributary
