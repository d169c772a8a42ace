// Fuzz target: a NodeDef checked against its OpDef the way graph import
// checks every node (common/op/node_def_util.h): defaults added, then
// ValidateNodeDef, then the input and output dtypes its attrs imply. An
// unknown op is NOT_FOUND, anything else wrong INVALID_ARGUMENT; a node that
// validates must have dtypes for every input and output.

#include <cstddef>
#include <cstdint>

#include "common/framework/types.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "protos/node_def.pb.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tributary;  // NOLINT(build/namespaces): one function.
  tensorflow::NodeDef node;
  if (!node.ParseFromArray(data, static_cast<int>(size))) return 0;
  const tensorflow::OpDef* op_def = nullptr;
  absl::Status found = OpRegistry::Global()->LookUpOpDef(node.op(), &op_def);
  if (!found.ok()) {
    fuzz::CheckErrorCode(found, {absl::StatusCode::kNotFound}, "LookUpOpDef");
    return 0;
  }
  AddDefaultsToNodeDef(*op_def, &node);
  absl::Status valid = ValidateNodeDef(node, *op_def);
  if (!valid.ok()) {
    fuzz::CheckErrorCode(valid, {absl::StatusCode::kInvalidArgument},
                         "ValidateNodeDef");
    return 0;
  }
  DataTypeVector inputs, outputs;
  absl::Status types = InOutTypesForNode(node, *op_def, &inputs, &outputs);
  fuzz::CheckErrorCode(types, {absl::StatusCode::kInvalidArgument},
                       "InOutTypesForNode");
  return 0;
}
