// TensorFlow's own test GraphDefs (tests/testdata/tf_graphs, see its README.md
// for where each came from and what it must give), for tests (testonly).
//
//   absl::StatusOr<tensorflow::GraphDef> gdef =
//       test::LoadTfGraph("tfadd_consts.pbtxt");
//   ASSERT_TRUE(gdef.ok()) << gdef.status();
//
// Contract:
//  * The graphs are Bazel data of //common/framework:tf_graphs_testutil, so
//    every test linking it has them in its runfiles; TfGraphsDir() is
//    $TEST_SRCDIR/$TEST_WORKSPACE/tests/testdata/tf_graphs.
//  * $TRIBUTARY_TF_GRAPHS, when set and non-empty, overrides that folder (to
//    run the same tests over another set of graphs).
//  * A missing or unreadable graph is an error (NotFound naming the path),
//    never a reason to skip: the graphs are part of the repository.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_TF_GRAPHS_TESTUTIL_H_
#define TRIBUTARY_COMMON_FRAMEWORK_TF_GRAPHS_TESTUTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace test {

// The folder the graphs are read from (see the contract above).
std::string TfGraphsDir();

// The names ("tfadd_consts.pbtxt") of every .pbtxt file in TfGraphsDir(),
// sorted; NotFound when the folder cannot be listed.
absl::StatusOr<std::vector<std::string>> ListTfGraphs();

// The graph in file `name` of TfGraphsDir(): a text-format GraphDef, or, for a
// file named *saved_model.pbtxt, the GraphDef of the text-format SavedModel's
// first MetaGraph (what a TensorFlow client would load and send). Text that
// does not parse is InvalidArgument with the path and the parser's first
// error, as a malformed GraphDef from a client would be.
absl::StatusOr<tensorflow::GraphDef> LoadTfGraph(const std::string& name);

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_TF_GRAPHS_TESTUTIL_H_
