// ListOpBase: what the TensorList kernels share: they are cheap (run inline,
// never on the inter-op pool) and most read an element_dtype attr.
#ifndef TRIBUTARY_KERNELS_LIST_LIST_OP_BASE_H_
#define TRIBUTARY_KERNELS_LIST_LIST_OP_BASE_H_

#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_requires.h"

namespace tributary {
namespace list_ops {

class ListOpBase : public OpKernel {
 public:
  explicit ListOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

 protected:
  // The element_dtype attr, for the ops that have one.
  void ReadElementDtype(OpKernelConstruction* ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }
  DataType element_dtype_ = DT_INVALID;
};

}  // namespace list_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_LIST_LIST_OP_BASE_H_
