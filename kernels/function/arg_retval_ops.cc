// CPU kernels for _Arg and _Retval, the feed and fetch nodes of a partition
// graph rewritten for the call-frame mechanism (TensorFlow's
// core/kernels/function_ops.cc).
//
// The executor runs these two nodes itself against Executor::Args::
// call_frame (common/runtime/executor/call_frame.h), because
// OpKernelContext does not carry the call frame: these kernels exist so
// that placement and kernel lookup find _Arg/_Retval on CPU, and so a kernel
// run outside an executor fails clearly instead of silently. They read and
// check their attrs at construction, so a malformed node fails at graph
// setup.

#include <cstdint>

#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_requires.h"

namespace tributary {
namespace {

class ArgOrRetvalOp : public OpKernel {
 public:
  explicit ArgOrRetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::Internal(
        type_string(), " node '", name(), "' (index ", index_,
        ") has no call frame: it runs only inside an executor started "
        "with Executor::Args::call_frame"));
  }

 private:
  int64_t index_ = 0;
  DataType dtype_ = DT_INVALID;
};

REGISTER_KERNEL_BUILDER(Name("_Arg").Device(DEVICE_CPU), ArgOrRetvalOp);
REGISTER_KERNEL_BUILDER(Name("_Retval").Device(DEVICE_CPU), ArgOrRetvalOp);

}  // namespace
}  // namespace tributary
