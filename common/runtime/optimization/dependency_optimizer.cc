#include "common/runtime/optimization/dependency_optimizer.h"

#include <vector>

#include "common/runtime/optimization/graph_rewrite_util.h"

namespace tributary {

absl::StatusOr<int> DependencyOptimizer::Run(Graph* g) const {
  int rewrites = 0;
  std::vector<const Edge*> from_constants;
  for (const Edge* e : g->edges()) {
    if (e->IsControlEdge() && e->src()->IsOp() && e->src()->IsConstant() &&
        !e->dst()->IsSink()) {
      from_constants.push_back(e);
    }
  }
  for (const Edge* e : from_constants) {
    Node* constant = e->src();
    Node* dst = e->dst();
    g->RemoveEdge(e);
    for (Node* before : ControlInputs(*constant)) g->AddControlEdge(before, dst);
    // Every node is reachable from SOURCE.
    if (dst->in_edges().empty()) g->AddControlEdge(g->source_node(), dst);
    ++rewrites;
  }
  // Constants nobody reads any more.
  std::vector<Node*> unread;
  for (Node* n : g->op_nodes()) {
    if (n->IsConstant() && !HasReaders(*n)) unread.push_back(n);
  }
  for (Node* n : unread) {
    for (const Edge* e : n->in_edges()) {
      // A node that only ordered this constant now orders nothing; SINK
      // must still reach it.
      Node* src = e->src();
      if (src->IsOp() && src->out_edges().size() == 1) {
        g->AddControlEdge(src, g->sink_node());
      }
    }
    g->RemoveNode(n);
    ++rewrites;
  }
  return rewrites;
}

}  // namespace tributary
