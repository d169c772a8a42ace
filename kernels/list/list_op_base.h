// ListOpBase: what the TensorList kernels share: they are cheap (run inline,
// never on the inter-op pool) and most read an element_dtype attr.
#ifndef TRIBUTARY_KERNELS_LIST_LIST_OP_BASE_H_
#define TRIBUTARY_KERNELS_LIST_LIST_OP_BASE_H_

#include "absl/status/status.h"
#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_requires.h"
#include "kernels/list/tensor_list.h"

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
  // Input 0's list; InvalidArgument unless its element dtype is the
  // element_dtype attr's.
  absl::Status TypedInputList(OpKernelContext* ctx,
                              const TensorList** list) const {
    absl::Status s = GetInputList(ctx, 0, list);
    if (!s.ok()) return s;
    return CheckElementDtype(element_dtype_, **list);
  }
  DataType element_dtype_ = DT_INVALID;
};

}  // namespace list_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_LIST_LIST_OP_BASE_H_
