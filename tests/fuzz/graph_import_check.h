#ifndef TRIBUTARY_TESTS_FUZZ_GRAPH_IMPORT_CHECK_H_
#define TRIBUTARY_TESTS_FUZZ_GRAPH_IMPORT_CHECK_H_

// The property both GraphDef fuzz targets (binary and text) check.

#include "protos/graph.pb.h"

namespace tributary {
namespace fuzz {

// Imports `gdef` against every op Tributary defines, as a client's graph
// (no '_' names) and as a worker's partition (internal ops allowed). A
// refusal must be INVALID_ARGUMENT or NOT_FOUND (unknown op) with a
// message; an accepted graph must convert back to a GraphDef that imports
// again into a graph of as many nodes and edges. Aborts otherwise.
void CheckGraphDefImport(const tensorflow::GraphDef& gdef);

}  // namespace fuzz
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_FUZZ_GRAPH_IMPORT_CHECK_H_
