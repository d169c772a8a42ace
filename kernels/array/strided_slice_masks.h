// Reads StridedSlice's five mask attrs, shared by every kernel that takes a
// strided slice spec (StridedSlice, its gradient and the slice writes).
#ifndef TRIBUTARY_KERNELS_ARRAY_STRIDED_SLICE_MASKS_H_
#define TRIBUTARY_KERNELS_ARRAY_STRIDED_SLICE_MASKS_H_

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/strided_slice_spec.h"

namespace tributary {
namespace array_ops {

inline absl::Status GetStridedSliceMasks(OpKernelConstruction* context,
                                         StridedSliceMasks* masks) {
  TRIB_RETURN_IF_ERROR(context->GetAttr("begin_mask", &masks->begin_mask));
  TRIB_RETURN_IF_ERROR(context->GetAttr("end_mask", &masks->end_mask));
  TRIB_RETURN_IF_ERROR(
      context->GetAttr("ellipsis_mask", &masks->ellipsis_mask));
  TRIB_RETURN_IF_ERROR(
      context->GetAttr("new_axis_mask", &masks->new_axis_mask));
  return context->GetAttr("shrink_axis_mask", &masks->shrink_axis_mask);
}

}  // namespace array_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_STRIDED_SLICE_MASKS_H_
