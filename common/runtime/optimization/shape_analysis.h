#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_SHAPE_ANALYSIS_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_SHAPE_ANALYSIS_H_

// What a pass can prove about the shapes of a graph's tensors without
// running it: enough for the remapper to know that a residual Add does not
// broadcast (its two operands have the same shape), which TensorFlow's
// remapper learns from its shape inference. The graph has no shape
// inference, so this is a small one of its own, sound rather than complete:
//
//  * A dimension is a known size, a symbol, or unknown. A symbol is one
//    unknown dimension of a Placeholder (shape attr -1, e.g. the batch),
//    optionally divided by a stride, rounding up, as SAME convolutions and
//    pools do: ceil(ceil(S / a) / b) = ceil(S / ab), so the divisor is a
//    product. Two dimensions are provably equal when both are known and
//    equal, or when both are the same symbol over the same divisor.
//  * Shapes come from Placeholder/Const attributes and flow through the ops
//    that preserve them (elementwise, BiasAdd, batch norm), broadcasting
//    binary ops, NHWC convolutions and pools (plain and fused), Pad with
//    constant paddings and MatMul. Any other op's outputs are unknown, and
//    an unknown shape is never "the same" as anything.
//  * A Placeholder's shape attr is taken as the truth, as TensorFlow's shape
//    inference takes it. A fed value that breaks it reaches the kernels
//    anyway: the fused kernels check their operands' shapes at run time.
//
// The analysis is of the graph as given. Its results are keyed by node name
// and output index, so they stay right for a pass that replaces a chain of
// nodes by one that takes the last one's name and computes the same tensor
// (the remapper).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/graph/graph.h"

namespace tributary {

struct SymbolicDim {
  int64_t size = -1;    // >= 0: known
  int64_t symbol = 0;   // > 0 (with size < 0): ceil(symbol's size / divisor)
  int64_t divisor = 1;

  bool known() const { return size >= 0; }
  bool unknown() const { return size < 0 && symbol == 0; }
  // Provably the same size (unknown dimensions never are).
  bool SameAs(const SymbolicDim& o) const {
    if (known() || o.known()) return known() && o.known() && size == o.size;
    return symbol != 0 && symbol == o.symbol && divisor == o.divisor;
  }
};

using SymbolicShape = std::vector<SymbolicDim>;

class ShapeAnalysis {
 public:
  explicit ShapeAnalysis(const Graph& g);

  // The shape of output `index` of node `node`, or null when unknown (an op
  // the analysis does not know, or an unknown rank).
  const SymbolicShape* Shape(const std::string& node, int index) const;

  // Whether both outputs' shapes are known to the same rank and every
  // dimension is provably the same.
  bool ProvablySame(const std::string& a, int a_index, const std::string& b,
                    int b_index) const;

 private:
  absl::flat_hash_map<std::string, SymbolicShape> shapes_;  // "name:index"
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_SHAPE_ANALYSIS_H_
