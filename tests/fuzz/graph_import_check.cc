#include "tests/fuzz/graph_import_check.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/op/op_registry.h"
#include "tests/fuzz/fuzz_check.h"

namespace tributary {
namespace fuzz {
namespace {

void CheckImport(const tensorflow::GraphDef& gdef, bool allow_internal_ops) {
  GraphConstructorOptions opts;
  opts.allow_internal_ops = allow_internal_ops;
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      GraphFromGraphDef(gdef, OpRegistry::Global(), opts);
  if (!graph.ok()) {
    CheckErrorCode(
        graph.status(),
        {absl::StatusCode::kInvalidArgument, absl::StatusCode::kNotFound},
        "GraphDef import");
    return;
  }
  tensorflow::GraphDef back;
  (*graph)->ToGraphDef(&back);
  absl::StatusOr<std::unique_ptr<Graph>> again =
      GraphFromGraphDef(back, OpRegistry::Global(), opts);
  Check(again.ok(), absl::StrCat("an imported graph does not import again: ",
                                 again.status().ToString()));
  Check((*again)->num_nodes() == (*graph)->num_nodes() &&
            (*again)->num_edges() == (*graph)->num_edges(),
        absl::StrCat("re-import changed the graph: ", (*graph)->num_nodes(),
                     " nodes/", (*graph)->num_edges(), " edges -> ",
                     (*again)->num_nodes(), "/", (*again)->num_edges()));
}

}  // namespace

void CheckGraphDefImport(const tensorflow::GraphDef& gdef) {
  CheckImport(gdef, /*allow_internal_ops=*/false);
  CheckImport(gdef, /*allow_internal_ops=*/true);
}

}  // namespace fuzz
}  // namespace tributary
