#include "common/runtime/optimization/host_kernel_evaluator.h"

#include <memory>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"
#include "common/framework/allocator.h"
#include "common/framework/flush_denormal.h"
#include "common/framework/status.h"
#include "common/kernel/device_base.h"
#include "common/kernel/device_type.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_kernel_context.h"
#include "common/kernel/tensor_value.h"

namespace tributary {
namespace {

// Host memory from cpu_allocator() (folded constants outlive any device)
// and one intra-op thread. Never destroyed: kernels may keep a pointer to
// their device.
class FoldingDevice : public DeviceBase {
 public:
  FoldingDevice()
      : pool_(1), eigen_device_(&pool_, 1) {
    set_eigen_cpu_device(&eigen_device_);
  }
  Allocator* GetAllocator(AllocatorAttributes) override {
    return cpu_allocator();
  }

 private:
  Eigen::ThreadPoolTempl<
      FlushDenormalThreadEnvironment<Eigen::StlThreadEnvironment>>
      pool_;
  Eigen::ThreadPoolDevice eigen_device_;
};

DeviceBase* Device() {
  static FoldingDevice* device = new FoldingDevice();
  return device;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> EvaluateOnHost(
    const tensorflow::NodeDef& node_def, int graph_def_version,
    const std::vector<Tensor>& inputs) {
  DeviceBase* device = Device();
  TRIB_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      CreateOpKernel(DeviceType(DEVICE_CPU), device, device->GetAllocator(),
                     node_def, graph_def_version));
  if (kernel->AsAsync() != nullptr) {
    return errors::FailedPrecondition("'", node_def.name(),
                                      "' has an asynchronous kernel");
  }
  if (static_cast<int>(inputs.size()) != kernel->num_inputs()) {
    return errors::InvalidArgument("'", node_def.name(), "' takes ",
                                   kernel->num_inputs(), " inputs, got ",
                                   inputs.size());
  }
  std::vector<Tensor> owned(inputs);
  std::vector<TensorValue> values;
  values.reserve(owned.size());
  for (Tensor& t : owned) values.emplace_back(&t);
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = device;
  params.inputs = values;
  OpKernelContext ctx(&params);
  {
    // Folded values must equal what the step would compute: the executor
    // runs kernels with denormals flushed (flush_denormal.h).
    ScopedFlushDenormal flush_denormals;
    kernel->Compute(&ctx);
  }
  TRIB_RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> outputs;
  outputs.reserve(ctx.num_outputs());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.has_output(i)) {
      return errors::Internal("'", node_def.name(), "' left output ", i,
                              " unset");
    }
    TensorValue value = ctx.release_output(i);
    if (value.is_ref()) {
      return errors::FailedPrecondition("'", node_def.name(),
                                        "' produced a ref output");
    }
    outputs.push_back(std::move(*value.tensor));
    delete value.tensor;
  }
  return outputs;
}

}  // namespace tributary
