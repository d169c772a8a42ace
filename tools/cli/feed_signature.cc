#include "tools/cli/feed_signature.h"

#include "common/framework/status.h"
#include "common/graph/tensor_id.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"

namespace tributary {

FeedSignature DeclaredFeedSignature(const tensorflow::GraphDef& graph,
                                    const std::string& name) {
  FeedSignature sig;
  const TensorId id = ParseTensorName(name);
  if (id.IsControl()) return sig;
  for (const tensorflow::NodeDef& node : graph.node()) {
    if (node.name() != id.node()) continue;
    const tensorflow::OpDef* op_def = nullptr;
    if (!OpRegistry::Global()->LookUpOpDef(node.op(), &op_def).ok()) {
      return sig;
    }
    tensorflow::NodeDef with_defaults = node;
    AddDefaultsToNodeDef(*op_def, &with_defaults);
    DataTypeVector outputs;
    if (!OutputTypesForNode(with_defaults, *op_def, &outputs).ok() ||
        id.index < 0 || id.index >= static_cast<int>(outputs.size())) {
      return sig;
    }
    sig.dtype = BaseType(outputs[id.index]);
    if (node.op() != "Placeholder" && node.op() != "PlaceholderWithDefault") {
      return sig;
    }
    auto attr = with_defaults.attr().find("shape");
    if (attr == with_defaults.attr().end() || !attr->second.has_shape()) {
      return sig;
    }
    absl::StatusOr<PartialTensorShape> shape =
        PartialTensorShape::FromProto(attr->second.shape());
    if (!shape.ok()) return sig;
    if (shape->dims() == 0 && graph.versions().producer() < 21) return sig;
    sig.shape = *std::move(shape);
    return sig;
  }
  return sig;
}

absl::Status CheckFeedSignature(const Tensor& value,
                                const FeedSignature& signature) {
  if (signature.dtype.has_value() && value.dtype() != *signature.dtype) {
    return errors::InvalidArgument(
        "the value is ", DataTypeString(value.dtype()),
        " but the graph expects ", DataTypeString(*signature.dtype));
  }
  if (signature.shape.has_value() &&
      !signature.shape->IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument(
        "the value has shape ", value.shape().DebugString(),
        " but the placeholder's shape is ", signature.shape->DebugString());
  }
  return absl::OkStatus();
}

}  // namespace tributary
