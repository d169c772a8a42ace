// Writing into a strided slice, the inverse of StridedSlice: the one routine
// behind StridedSliceGrad, TensorStridedSliceUpdate, StridedSliceAssign and
// ResourceStridedSliceAssign (Python's `v[1:3, ::-1].assign(x)`).
//
// `plan` is PlanStridedSlice's plan of `target`'s shape. `value` is
// broadcast numpy-style to plan.final_shape (exact-shape callers check the
// shape first) and its elements land, in order, at the positions the slice
// reads. A value that cannot be broadcast is InvalidArgument, TensorFlow's
// wording: "Cannot broadcast input shape [2] into final shape [2,3]". An
// empty slice writes nothing and takes any value. `target` must own its
// buffer privately: the write is in place.
#ifndef TRIBUTARY_KERNELS_ARRAY_STRIDED_SLICE_WRITE_H_
#define TRIBUTARY_KERNELS_ARRAY_STRIDED_SLICE_WRITE_H_

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "kernels/array/strided_slice_spec.h"

namespace tributary {

class OpKernelContext;

namespace array_ops {

absl::Status WriteStridedSlice(OpKernelContext* ctx,
                               const StridedSlicePlan& plan,
                               const Tensor& value, Tensor* target);

}  // namespace array_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_STRIDED_SLICE_WRITE_H_
