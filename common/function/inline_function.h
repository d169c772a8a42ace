#ifndef TRIBUTARY_COMMON_FUNCTION_INLINE_FUNCTION_H_
#define TRIBUTARY_COMMON_FUNCTION_INLINE_FUNCTION_H_

// A FunctionDef's body as plain GraphDef nodes wired to a call site
// (TensorFlow's FunctionDefToBodyHelper + InlineFunctionBody, at the
// GraphDef level).
//
// The body's nodes are renamed "<prefix>/<name>"; their inputs are rewritten
// from the function form ("arg", "node:out_arg:i", "node:out_arg") to graph
// tensor names: a reference to an argument becomes the caller's tensor for
// it, a reference to a whole output argument (or a whole list argument)
// expands to all of its tensors. Attr placeholders ("$T") take the call's
// instantiation attrs. A body node with no device gets the caller's; one
// with a partial device gets the caller's job/replica/task where it names
// none (TensorFlow's multi-device inlining placer).
//
// Nodes without any input would otherwise float free of the caller: they get
// control edges from the call site's gates, which puts them in the caller's
// loop frame and makes them dead with an untaken branch.
//
// As when TensorFlow instantiates a function, nodes that neither a used
// output, a control output nor a stateful node needs are dropped; stateful
// nodes always stay (their effects are the point of running them).
//
// Errors (InvalidArgument naming function and node): an argument count that
// differs from the signature, an input naming nothing in the body, a missing
// ret, a placeholder the call does not bind; NotFound for a body op that is
// neither registered nor in the library.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/function/function_library.h"
#include "common/op/node_def_util.h"
#include "protos/function.pb.h"
#include "protos/node_def.pb.h"

namespace tributary {

struct CallSite {
  // Body node "n" becomes "<prefix>/n".
  std::string prefix;
  // The caller's tensor ("node" or "node:3") for each flat input.
  std::vector<std::string> args;
  // Node names input-less body nodes get a control edge from.
  std::vector<std::string> gates;
  // The caller's requested device ("" for none).
  std::string device;
  // Instantiation attrs: placeholders and list/number-sized arguments.
  AttrValueMap attrs;
  // Optional, one flag per flat input: the argument is a loop invariant,
  // live in every iteration including the one that leaves the loop. A body
  // node reading nothing but such arguments is gated like an input-less one
  // (TensorFlow 1's pivot rule), so it runs only in iterations that run.
  std::vector<bool> invariant_args;
  // Optional, one flag per flat output: nobody reads that output. Its ret is
  // then "" and the nodes only it needed are dropped.
  std::vector<bool> unused_rets;
};

struct InlinedBody {
  std::vector<tensorflow::NodeDef> nodes;
  // The tensor of each flat output.
  std::vector<std::string> rets;
  // Nodes whose completion the function's side effects need (control_ret).
  std::vector<std::string> control_rets;
};

absl::StatusOr<InlinedBody> InlineFunctionBody(
    const tensorflow::FunctionDef& fdef, const CallSite& call,
    const FunctionLibrary& library);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FUNCTION_INLINE_FUNCTION_H_
