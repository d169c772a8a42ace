#ifndef TRIBUTARY_KERNELS_STATE_VARIABLE_EXISTS_H_
#define TRIBUTARY_KERNELS_STATE_VARIABLE_EXISTS_H_

// For the variable kernels whose TensorFlow versions look the Var up
// themselves (ResourceStridedSliceAssign, ResourceScatterNd*): a resource
// input naming a variable never created is NOT_FOUND, TensorFlow's code,
// where VariableInputs reports the optimizers' Internal code. A ref input
// passes.

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/var.h"

namespace tributary {

inline absl::Status CheckVariableExists(OpKernelContext* context, int input) {
  if (context->input_dtype(input) != DT_RESOURCE) return absl::OkStatus();
  absl::StatusOr<const ResourceHandle*> handle =
      HandleFromInput(context, input);
  TRIB_RETURN_IF_ERROR(handle.status());
  RefCountPtr<Var> variable;
  return LookupResource(context, **handle, &variable);
}

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_STATE_VARIABLE_EXISTS_H_
