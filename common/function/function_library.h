#ifndef TRIBUTARY_COMMON_FUNCTION_FUNCTION_LIBRARY_H_
#define TRIBUTARY_COMMON_FUNCTION_FUNCTION_LIBRARY_H_

// The functions of a GraphDef's `library`, by name (TensorFlow's
// FunctionLibraryDefinition, read-only).
//
// Create checks what TensorFlow checks when a library is added to a graph:
// every function has a name, no two different functions share one (an
// identical duplicate is accepted), and no function takes the name of a
// registered op (a node's op type must name one or the other). Gradient
// entries are carried but not used: gradients arrive already built by the
// client.
//
// The library does not own the FunctionDefs: the FunctionDefLibrary given to
// Create must outlive it.

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/op/op_registry.h"
#include "protos/function.pb.h"
#include "protos/op_def.pb.h"

namespace tributary {

class FunctionLibrary {
 public:
  // InvalidArgument naming the function for the cases above.
  static absl::StatusOr<FunctionLibrary> Create(
      const tensorflow::FunctionDefLibrary& library,
      const OpRegistryInterface& ops);

  // The function called `name`, or null.
  const tensorflow::FunctionDef* Find(absl::string_view name) const;

  // The OpDef a node of type `op` is checked against: the registered op's, or
  // the signature of the function called `op`. NotFound (the registry's
  // message) when neither exists.
  absl::Status LookUpOpDef(const std::string& op,
                           const tensorflow::OpDef** op_def) const;

  bool empty() const { return functions_.empty(); }

 private:
  explicit FunctionLibrary(const OpRegistryInterface& ops) : ops_(&ops) {}

  const OpRegistryInterface* ops_;
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> functions_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FUNCTION_FUNCTION_LIBRARY_H_
