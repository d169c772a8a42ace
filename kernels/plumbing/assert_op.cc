// Assert: passes when `condition` (a scalar bool) is true; otherwise the
// step fails with INVALID_ARGUMENT "assertion failed: [d0] [d1] ...", each
// data tensor summarized to `summarize` entries, as TensorFlow words it.
// Graphs emit it for argument checks (tf.compat.v1.train.piecewise_constant,
// tf.debugging.assert_*), mostly with string data.

#include <string>

#include "absl/strings/str_cat.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& condition = context->input(0);
    // TensorFlow accepts a legacy scalar: one element of any rank.
    OP_REQUIRES(context, condition.NumElements() == 1,
                errors::InvalidArgument("In[0] expected to be a scalar, got: ",
                                        condition.shape().DebugString()));
    OP_REQUIRES(context, condition.dtype() == DT_BOOL,
                errors::InvalidArgument("In[0] must be bool, got ",
                                        DataTypeString(condition.dtype())));
    if (condition.flat<bool>()(0)) return;
    std::string message = "assertion failed: ";
    for (int i = 1; i < context->num_inputs(); ++i) {
      absl::StrAppend(&message, i > 1 ? " " : "", "[",
                      context->input(i).SummarizeValue(summarize_), "]");
    }
    context->SetStatus(errors::InvalidArgument(message));
  }

 private:
  int64_t summarize_ = 3;
};

REGISTER_KERNEL_BUILDER(Name("Assert").Device(DEVICE_CPU), AssertOp);

}  // namespace
}  // namespace tributary
