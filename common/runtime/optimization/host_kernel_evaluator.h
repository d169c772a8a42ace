#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_HOST_KERNEL_EVALUATOR_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_HOST_KERNEL_EVALUATOR_H_

// Runs one node's CPU kernel on the host at graph-optimization time, for
// constant folding: no executor, no step, no resources. Only synchronous
// kernels with no ref inputs run; anything else is declined. Evaluation
// uses one process-wide host device with one intra-op thread (folding
// happens once per step signature, off the step's critical path, and must
// not compete with running steps for cores).
//
// The binary must link the kernels it evaluates (//kernels:all_kernels);
// a node without a CPU kernel is declined (NotFound).

#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "protos/node_def.pb.h"

namespace tributary {

// The outputs of `node_def`'s CPU kernel over `inputs` (signature order),
// or the kernel's error. FailedPrecondition for an async kernel.
absl::StatusOr<std::vector<Tensor>> EvaluateOnHost(
    const tensorflow::NodeDef& node_def, int graph_def_version,
    const std::vector<Tensor>& inputs);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_HOST_KERNEL_EVALUATOR_H_
