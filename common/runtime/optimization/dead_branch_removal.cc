#include "common/runtime/optimization/dead_branch_removal.h"

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/framework/status.h"
#include "common/graph/algorithm.h"
#include "common/op/node_def_util.h"
#include "common/runtime/optimization/graph_rewrite_util.h"

namespace tributary {
namespace {

// The port a Switch with a constant predicate always forwards on (1 when
// the predicate is true), or -1 when its predicate is not a bool Const.
int TakenPort(const Node& sw) {
  const Edge* pred = nullptr;
  if (!sw.input_edge(1, &pred).ok() || !pred->src()->IsConstant()) return -1;
  absl::StatusOr<Tensor> value = ConstValue(*pred->src());
  if (!value.ok() || value->dtype() != DT_BOOL || value->NumElements() != 1) {
    return -1;
  }
  return value->flat<bool>()(0) ? 1 : 0;
}

// Nodes whose removal or rewrite would change what the step observes or
// break a loop frame.
bool MustStayLive(const Node& n) {
  return n.IsRetval() || n.IsSend() || n.IsRecv() || n.IsEnter() ||
         n.IsExit() || n.IsNextIteration() || n.IsLoopCond() ||
         n.IsControlTrigger();
}

// What the switches of one predicate make dead.
struct Deadness {
  absl::flat_hash_set<Node*> dead;
  // Merges with some dead data inputs but not all: input indices that die.
  absl::flat_hash_map<Node*, absl::flat_hash_set<int>> dead_merge_inputs;
};

// Propagates deadness from the untaken ports of `switches`; false when the
// group must be left alone (see the header).
bool Propagate(const std::vector<std::pair<Node*, int>>& switches,
               Deadness* out) {
  std::deque<const Edge*> queue;
  for (const auto& [sw, taken] : switches) {
    for (const Edge* e : OutEdgesOf(*sw, 1 - taken)) queue.push_back(e);
  }
  while (!queue.empty()) {
    const Edge* e = queue.front();
    queue.pop_front();
    Node* dst = e->dst();
    if (dst->IsSink() || out->dead.contains(dst)) continue;
    if (dst->IsMerge()) {
      if (e->IsControlEdge()) return false;
      auto& inputs = out->dead_merge_inputs[dst];
      inputs.insert(e->dst_input());
      if (static_cast<int>(inputs.size()) < dst->num_inputs()) continue;
      out->dead_merge_inputs.erase(dst);
    }
    if (MustStayLive(*dst)) return false;
    out->dead.insert(dst);
    for (const Edge* next : dst->out_edges()) queue.push_back(next);
  }
  for (const auto& [merge, inputs] : out->dead_merge_inputs) {
    if (merge->num_inputs() - static_cast<int>(inputs.size()) != 1 ||
        !OutEdgesOf(*merge, 1).empty()) {
      return false;
    }
  }
  return true;
}

// Replaces `n` by an Identity of the same name and device reading
// `src`:`src_output`; the readers of `n`'s output `port` read the Identity,
// its control edges are kept, its other outputs' readers are dropped.
absl::Status ReplaceWithIdentity(Graph* g, Node* n, Node* src, int src_output,
                                 int port) {
  std::vector<std::pair<Node*, int>> readers;
  for (const Edge* e : OutEdgesOf(*n, port)) {
    readers.emplace_back(e->dst(), e->dst_input());
  }
  std::vector<Node*> control_in = ControlInputs(*n);
  std::vector<Node*> control_out;
  for (const Edge* e : n->out_edges()) {
    if (e->IsControlEdge() && !e->dst()->IsSink()) {
      control_out.push_back(e->dst());
    }
  }
  tensorflow::NodeDef def;
  def.set_name(n->name());
  def.set_op("Identity");
  def.add_input("input");  // the op check counts inputs; edges carry them
  def.set_device(n->requested_device());
  AddNodeAttr("T", n->output_type(port), &def);
  const std::string device = n->assigned_device_name();
  g->RemoveNode(n);
  TRIB_ASSIGN_OR_RETURN(Node * id, g->AddNode(std::move(def)));
  id->set_assigned_device_name(device);
  TRIB_RETURN_IF_ERROR(g->AddEdge(src, src_output, id, 0).status());
  for (const auto& [dst, input] : readers) {
    TRIB_RETURN_IF_ERROR(g->AddEdge(id, 0, dst, input).status());
  }
  for (Node* c : control_in) g->AddControlEdge(c, id);
  for (Node* c : control_out) g->AddControlEdge(id, c);
  return absl::OkStatus();
}

// Rewrites one predicate's switches; returns the number of nodes removed
// or replaced (0: left alone).
absl::StatusOr<int> RemoveDeadBranches(
    Graph* g, const std::vector<std::pair<Node*, int>>& switches) {
  Deadness deadness;
  if (!Propagate(switches, &deadness)) return 0;
  // Merges by name: removing nodes and replacing switches does not free
  // them, but names are what survives every step below.
  std::vector<std::pair<std::string, int>> merges;
  for (const auto& [merge, dead_inputs] : deadness.dead_merge_inputs) {
    int live = 0;
    while (dead_inputs.contains(live)) ++live;
    merges.emplace_back(merge->name(), live);
  }
  std::vector<std::pair<std::string, int>> live_switches;
  for (const auto& [sw, taken] : switches) {
    if (!deadness.dead.contains(sw)) {
      live_switches.emplace_back(sw->name(), taken);
    }
  }
  int rewrites = static_cast<int>(deadness.dead.size());
  for (Node* n : deadness.dead) g->RemoveNode(n);
  for (const auto& [name, taken] : live_switches) {
    Node* sw = g->FindNodeByName(name);
    const Edge* data = nullptr;
    TRIB_RETURN_IF_ERROR(sw->input_edge(0, &data));
    TRIB_RETURN_IF_ERROR(ReplaceWithIdentity(g, sw, data->src(),
                                             data->src_output(), taken));
    ++rewrites;
  }
  for (const auto& [name, live] : merges) {
    Node* merge = g->FindNodeByName(name);
    const Edge* in = nullptr;
    TRIB_RETURN_IF_ERROR(merge->input_edge(live, &in));
    TRIB_RETURN_IF_ERROR(
        ReplaceWithIdentity(g, merge, in->src(), in->src_output(), 0));
    ++rewrites;
  }
  return rewrites;
}

}  // namespace

absl::StatusOr<int> DeadBranchRemoval::Run(Graph* g) const {
  // Switches by predicate, by name: a group's rewrite removes or replaces
  // nodes a later group may name, so each is looked up again (and skipped
  // if it is no longer a Switch on that predicate).
  absl::flat_hash_map<std::string, std::vector<std::string>> groups;
  std::vector<std::string> order;
  for (Node* n : g->op_nodes()) {
    if (n->type_string() != "Switch" || TakenPort(*n) < 0) continue;
    const Edge* pred = nullptr;
    if (!n->input_edge(1, &pred).ok()) continue;
    auto& group = groups[pred->src()->name()];
    if (group.empty()) order.push_back(pred->src()->name());
    group.push_back(n->name());
  }
  int rewrites = 0;
  for (const std::string& pred : order) {
    std::vector<std::pair<Node*, int>> switches;
    for (const std::string& name : groups[pred]) {
      Node* n = g->FindNodeByName(name);
      const Edge* in = nullptr;
      if (n == nullptr || n->type_string() != "Switch" ||
          !n->input_edge(1, &in).ok() || in->src()->name() != pred) {
        continue;
      }
      switches.emplace_back(n, TakenPort(*n));
    }
    if (switches.empty()) continue;
    TRIB_ASSIGN_OR_RETURN(int done, RemoveDeadBranches(g, switches));
    rewrites += done;
  }
  if (rewrites > 0) FixupSourceAndSinkEdges(g);
  return rewrites;
}

}  // namespace tributary
