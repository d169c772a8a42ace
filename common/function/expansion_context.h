#ifndef TRIBUTARY_COMMON_FUNCTION_EXPANSION_CONTEXT_H_
#define TRIBUTARY_COMMON_FUNCTION_EXPANSION_CONTEXT_H_

// What expanding one call or functional control-flow node needs: the
// library, the op type of any node already in the graph, and the list the
// replacement nodes are appended to. Shared by the call inliner
// (expand_functions.cc) and the If/Case/While lowering
// (lower_control_flow.cc).

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/function/function_library.h"
#include "common/framework/types.h"
#include "common/function/inline_function.h"
#include "protos/attr_value.pb.h"
#include "protos/function.pb.h"
#include "protos/node_def.pb.h"
#include "protos/types.pb.h"

namespace tributary {

class ExpansionContext {
 public:
  // `op_of` maps every node name of the graph being expanded to its op type;
  // nodes added here are recorded in it too.
  // `reads` counts, per tensor ("node:i"), the graph's nodes reading it;
  // with `fetchable`, the node being expanded is one the client named, so
  // any of its outputs may be fetched.
  ExpansionContext(const FunctionLibrary& library,
                   absl::flat_hash_map<std::string, std::string>* op_of,
                   const absl::flat_hash_map<std::string, int>* reads,
                   bool fetchable, std::vector<tensorflow::NodeDef>* out)
      : library_(library),
        op_of_(op_of),
        reads_(reads),
        fetchable_(fetchable),
        out_(out) {}

  const FunctionLibrary& library() const { return library_; }

  // Whether output `index` of `node` (the node being expanded) may be read:
  // a node of the graph reads it, or the client may fetch it.
  bool OutputRead(const tensorflow::NodeDef& node, int index) const;

  // Appends a node named `name` (op, device, inputs in order) and returns it
  // for attrs to be set.
  tensorflow::NodeDef* AddNode(const std::string& name, const std::string& op,
                               const std::string& device,
                               const std::vector<std::string>& inputs);

  // The function a func attr of `caller` names; NotFound naming both when the
  // library lacks it.
  absl::StatusOr<const tensorflow::FunctionDef*> Function(
      const tensorflow::NodeDef& caller,
      const tensorflow::NameAttrList& func) const;

  // Inlines `fdef` at `call`, appending its nodes.
  absl::StatusOr<InlinedBody> Inline(const tensorflow::FunctionDef& fdef,
                                     const CallSite& call);

  // The node that keeps `caller`'s name: an IdentityN of `outputs` (dtypes
  // `types`), or a NoOp when there are none, also waiting for `controls`.
  void AddReplacement(const tensorflow::NodeDef& caller,
                      const std::vector<std::string>& outputs,
                      const DataTypeVector& types,
                      const std::vector<std::string>& controls);

  // The input and output dtypes of `fdef` instantiated with `attrs`.
  static absl::Status SignatureTypes(const tensorflow::FunctionDef& fdef,
                                     const AttrValueMap& attrs,
                                     DataTypeVector* inputs,
                                     DataTypeVector* outputs);

  // InvalidArgument naming `caller` unless `fdef` instantiated with `attrs`
  // takes `inputs` and returns `outputs` (what the caller's attrs declare).
  absl::Status CheckSignature(const tensorflow::NodeDef& caller,
                              const tensorflow::FunctionDef& fdef,
                              const AttrValueMap& attrs,
                              const DataTypeVector& inputs,
                              const DataTypeVector& outputs) const;

  // The gates of a call node's body (CallSite::gates): its control inputs;
  // without any, the producer of its first data input (through an Identity
  // when that producer is a Switch, whose control edges are live even on
  // the untaken port; `first_input_type` is that input's dtype); none for a
  // call without inputs.
  std::vector<std::string> CallGates(const tensorflow::NodeDef& caller,
                                     tensorflow::DataType first_input_type);

 private:
  const FunctionLibrary& library_;
  absl::flat_hash_map<std::string, std::string>* op_of_;
  const absl::flat_hash_map<std::string, int>* reads_;
  bool fetchable_;
  std::vector<tensorflow::NodeDef>* out_;
};

// The data inputs of `node` (every input up to the first "^x").
std::vector<std::string> DataInputs(const tensorflow::NodeDef& node);
// The node names of its control inputs, without the '^'.
std::vector<std::string> ControlInputNodes(const tensorflow::NodeDef& node);
// "name:i" for every index, the key of ExpansionContext's read counts.
std::string ReadKey(absl::string_view tensor);
// "name" for index 0, "name:i" otherwise.
std::string TensorName(const std::string& node, int index);
// Sets attr `attr` of `node` to a type / a list of types.
void SetTypeAttr(tensorflow::NodeDef* node, const std::string& attr,
                 tensorflow::DataType type);
void SetTypeListAttr(tensorflow::NodeDef* node, const std::string& attr,
                     const DataTypeVector& types);
// "^name" for each name.
std::vector<std::string> AsControlInputs(const std::vector<std::string>& nodes);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FUNCTION_EXPANSION_CONTEXT_H_
