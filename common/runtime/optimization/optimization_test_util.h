#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_OPTIMIZATION_TEST_UTIL_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_OPTIMIZATION_TEST_UTIL_H_

// Test helpers for the passes: a placed Graph from a text GraphDef, and
// lookups that fail the test instead of crashing.

#include <memory>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/graph/graph.h"

namespace tributary {
namespace optimization_test {

inline constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// The graph of text GraphDef `text`, every node assigned to `device`.
std::unique_ptr<Graph> PlacedGraph(const std::string& text,
                                   const std::string& device = kCpu);

// The op of node `name`, or "<missing>".
std::string OpOf(const Graph& g, const std::string& name);

// A float Placeholder NodeDef in text form with a shape attr (-1: a size
// not known).
std::string ShapedPlaceholder(const std::string& name,
                              const std::vector<int>& shape);

// Names of the data inputs of `name` ("src" or "src:1"), in order.
std::vector<std::string> DataInputs(const Graph& g, const std::string& name);

// Names of the control inputs of `name` (SOURCE left out), sorted.
std::vector<std::string> ControlInputNames(const Graph& g,
                                           const std::string& name);

// The value of Const `name` (an empty float tensor if it is not one).
Tensor ConstValueOf(const Graph& g, const std::string& name);

}  // namespace optimization_test
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_OPTIMIZATION_TEST_UTIL_H_
