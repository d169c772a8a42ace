#include "common/runtime/saved_model/object_graph_restore.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/checkpoint/bundle_reader.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "google/protobuf/unknown_field_set.h"

namespace tributary {
namespace {

constexpr int kObjectGraphDefField = 7;
constexpr char kPrefix[] = "tributary_object_graph_restore/";
constexpr char kVariableValue[] = "VARIABLE_VALUE";

struct Captured {
  std::string key;
  tensorflow::DataType dtype;
};

tensorflow::NodeDef NewNode(const std::string& name, const std::string& op) {
  tensorflow::NodeDef node;
  node.set_name(absl::StrCat(kPrefix, name));
  node.set_op(op);
  return node;
}

tensorflow::NodeDef StringVectorConst(const std::string& name,
                                      const std::vector<std::string>& values) {
  tensorflow::NodeDef node = NewNode(name, "Const");
  (*node.mutable_attr())["dtype"].set_type(tensorflow::DT_STRING);
  tensorflow::TensorProto* value = (*node.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_STRING);
  value->mutable_tensor_shape()->add_dim()->set_size(values.size());
  for (const std::string& v : values) value->add_string_val(v);
  return node;
}

}  // namespace

absl::StatusOr<std::optional<tensorflow::SavedObjectGraph>> ObjectGraphOf(
    const tensorflow::MetaGraphDef& meta_graph) {
  const google::protobuf::UnknownFieldSet& unknown =
      meta_graph.GetReflection()->GetUnknownFields(meta_graph);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.number() != kObjectGraphDefField ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    tensorflow::SavedObjectGraph objects;
    if (!objects.ParseFromString(field.length_delimited())) {
      return errors::DataLoss("the meta graph's object_graph_def does not parse");
    }
    return objects;
  }
  return std::nullopt;
}

absl::StatusOr<tensorflow::TrackableObjectGraph> ReadCheckpointObjectGraph(
    const std::string& variables_prefix) {
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                        BundleReader::Open(variables_prefix));
  absl::StatusOr<Tensor> value = reader->Lookup(kObjectGraphKey);
  if (!value.ok()) {
    return errors::PrependToMessage(value.status(), "checkpoint '", variables_prefix,
                                    "' has no object graph (", kObjectGraphKey, "): ");
  }
  if (value->dtype() != tensorflow::DT_STRING || value->NumElements() != 1) {
    return errors::DataLoss("checkpoint '", variables_prefix, "': ", kObjectGraphKey,
                            " is not a string scalar");
  }
  tensorflow::TrackableObjectGraph graph;
  if (!graph.ParseFromString(value->flat<std::string>()(0))) {
    return errors::DataLoss("checkpoint '", variables_prefix, "': ", kObjectGraphKey,
                            " does not parse as a TrackableObjectGraph");
  }
  return graph;
}

absl::StatusOr<ObjectGraphRestore> BuildObjectGraphRestore(
    const tensorflow::GraphDef& graph, const tensorflow::SavedObjectGraph& objects,
    const tensorflow::TrackableObjectGraph& checkpoint_objects) {
  std::map<std::string, Captured> captured;  // handle tensor -> value; sorted
  for (const tensorflow::NodeDef& node : graph.node()) {
    if (node.op() != "StatefulPartitionedCall" && node.op() != "PartitionedCall") {
      continue;
    }
    auto f = node.attr().find("f");
    if (f == node.attr().end()) continue;
    const std::string& function = f->second.func().name();
    auto concrete = objects.concrete_functions().find(function);
    if (concrete == objects.concrete_functions().end()) continue;
    std::vector<std::string> data_inputs;
    for (const std::string& input : node.input()) {
      if (!absl::StartsWith(input, "^")) data_inputs.push_back(input);
    }
    const auto& bound = concrete->second.bound_inputs();
    if (bound.size() > static_cast<int>(data_inputs.size())) {
      return errors::FailedPrecondition(
          "node '", node.name(), "' calls '", function, "' with ",
          data_inputs.size(), " inputs, fewer than its ", bound.size(),
          " captures");
    }
    const size_t first = data_inputs.size() - bound.size();
    for (int i = 0; i < bound.size(); ++i) {
      const int id = bound[i];
      if (id < 0 || id >= objects.nodes_size()) {
        return errors::FailedPrecondition("function '", function,
                                          "' captures object ", id,
                                          ", which the object graph does not have");
      }
      if (objects.nodes(id).kind_case() != tensorflow::SavedObject::kVariable) {
        continue;  // A resource or constant: not a checkpointed variable.
      }
      std::string key;
      if (id < checkpoint_objects.nodes_size()) {
        for (const auto& attribute : checkpoint_objects.nodes(id).attributes()) {
          if (attribute.name() == kVariableValue) key = attribute.checkpoint_key();
        }
      }
      if (key.empty()) {
        return errors::FailedPrecondition(
            "variable '", objects.nodes(id).variable().name(), "' (object ", id,
            ") captured by '", function, "' has no value in the checkpoint");
      }
      captured[data_inputs[first + i]] = {key, objects.nodes(id).variable().dtype()};
    }
  }

  ObjectGraphRestore restore;
  if (captured.empty()) return restore;
  tensorflow::NodeDef filename = NewNode("filename", "Placeholder");
  (*filename.mutable_attr())["dtype"].set_type(tensorflow::DT_STRING);
  (*filename.mutable_attr())["shape"].mutable_shape();
  std::vector<std::string> keys;
  std::vector<std::string> slices;
  tensorflow::NodeDef restore_v2 = NewNode("RestoreV2", "RestoreV2");
  restore_v2.add_input(filename.name());
  restore_v2.add_input(absl::StrCat(kPrefix, "tensor_names"));
  restore_v2.add_input(absl::StrCat(kPrefix, "shape_and_slices"));
  auto* dtypes = (*restore_v2.mutable_attr())["dtypes"].mutable_list();
  tensorflow::NodeDef all = NewNode("restore_all", "NoOp");
  std::vector<tensorflow::NodeDef> assigns;
  for (const auto& [handle, value] : captured) {
    const int index = static_cast<int>(keys.size());
    keys.push_back(value.key);
    slices.push_back("");
    dtypes->add_type(value.dtype);
    tensorflow::NodeDef assign = NewNode(absl::StrCat("assign_", index), "AssignVariableOp");
    assign.add_input(handle);
    assign.add_input(absl::StrCat(restore_v2.name(), ":", index));
    (*assign.mutable_attr())["dtype"].set_type(value.dtype);
    all.add_input(absl::StrCat("^", assign.name()));
    assigns.push_back(std::move(assign));
    restore.restored.push_back(absl::StrCat(handle, " <- ", value.key));
  }
  restore.filename_tensor = absl::StrCat(filename.name(), ":0");
  restore.restore_op = all.name();
  restore.nodes.push_back(std::move(filename));
  restore.nodes.push_back(StringVectorConst("tensor_names", keys));
  restore.nodes.push_back(StringVectorConst("shape_and_slices", slices));
  restore.nodes.push_back(std::move(restore_v2));
  for (tensorflow::NodeDef& assign : assigns) restore.nodes.push_back(std::move(assign));
  restore.nodes.push_back(std::move(all));
  return restore;
}

}  // namespace tributary
