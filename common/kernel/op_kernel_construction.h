#ifndef TRIBUTARY_COMMON_KERNEL_OP_KERNEL_CONSTRUCTION_H_
#define TRIBUTARY_COMMON_KERNEL_OP_KERNEL_CONSTRUCTION_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/kernel/allocator_attributes.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/device_type.h"
#include "common/kernel/memory_types.h"
#include "common/op/node_properties.h"
#include "common/op/node_def_util.h"
#include "protos/node_def.pb.h"
#include "protos/op_def.pb.h"

namespace tributary {

class DeviceBase;
class ResourceMgr;  // Defined by the resource issue; only pointers pass here.

// Everything a kernel constructor may look at: the node's attrs and
// signature, the device and its allocator (for constant buffers a kernel
// prepares once, e.g. a Const's value). A constructor reports a bad node by
// SetStatus()/OP_REQUIRES; CreateOpKernel then discards the half-built
// kernel and returns the status, so errors surface at graph setup rather
// than at the first step.
class OpKernelConstruction {
 public:
  // `status` is where the outcome is written; it must outlive this object.
  OpKernelConstruction(DeviceType device_type, DeviceBase* device,
                       Allocator* allocator,
                       std::shared_ptr<const NodeProperties> props,
                       MemoryTypeSlice input_memory_types,
                       MemoryTypeSlice output_memory_types,
                       int graph_def_version, ResourceMgr* resource_manager,
                       absl::Status* status);

  OpKernelConstruction(const OpKernelConstruction&) = delete;
  OpKernelConstruction& operator=(const OpKernelConstruction&) = delete;

  // ---- The node ----
  const tensorflow::NodeDef& def() const { return props_->node_def; }
  const tensorflow::OpDef& op_def() const { return *props_->op_def; }
  const std::shared_ptr<const NodeProperties>& props() const { return props_; }

  int num_inputs() const { return static_cast<int>(input_types().size()); }
  DataType input_type(int i) const { return input_types()[i]; }
  const DataTypeVector& input_types() const { return props_->input_types; }
  MemoryTypeSlice input_memory_types() const { return input_memory_types_; }

  int num_outputs() const { return static_cast<int>(output_types().size()); }
  DataType output_type(int i) const { return output_types()[i]; }
  const DataTypeVector& output_types() const { return props_->output_types; }
  MemoryTypeSlice output_memory_types() const { return output_memory_types_; }

  // InvalidArgument naming the node unless the node's signature is exactly
  // `expected_inputs` -> `expected_outputs` (a kernel that only supports one
  // instantiation checks this once here).
  absl::Status MatchSignature(DataTypeSlice expected_inputs,
                              DataTypeSlice expected_outputs);

  // Reads attr `attr_name` of the node (defaults already filled in). Any type
  // GetNodeAttr supports. NotFound / InvalidArgument naming node and attr.
  template <typename T>
  absl::Status GetAttr(absl::string_view attr_name, T* value) const {
    return GetNodeAttr(AttrSlice(props_->node_def), attr_name, value);
  }
  bool HasAttr(absl::string_view attr_name) const;

  // ---- The device ----
  const DeviceType& device_type() const { return device_type_; }
  DeviceBase* device() const { return device_; }
  Allocator* allocator() const { return allocator_; }
  ResourceMgr* resource_manager() const { return resource_manager_; }
  int graph_def_version() const { return graph_def_version_; }

  // A tensor the kernel keeps (e.g. a constant it serves every step).
  // ResourceExhausted naming node, shape and allocator when memory runs out.
  absl::Status allocate_temp(DataType type, const TensorShape& shape,
                             Tensor* out_temp);

  // ---- Outcome ----
  // Keeps the first error: later failures are usually consequences of it.
  void SetStatus(const absl::Status& status);
  const absl::Status& status() const { return *status_; }

  // Used by OP_REQUIRES / OP_REQUIRES_OK; `file`/`line` locate the check.
  void CtxFailure(const absl::Status& s);
  void CtxFailure(const char* file, int line, const absl::Status& s);
  void CtxFailureWithWarning(const char* file, int line, const absl::Status& s);

 private:
  const DeviceType device_type_;
  DeviceBase* const device_;
  Allocator* const allocator_;
  const std::shared_ptr<const NodeProperties> props_;
  const MemoryTypeSlice input_memory_types_;
  const MemoryTypeSlice output_memory_types_;
  const int graph_def_version_;
  ResourceMgr* const resource_manager_;
  absl::Status* const status_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_KERNEL_OP_KERNEL_CONSTRUCTION_H_
