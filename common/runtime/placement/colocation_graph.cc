#include "common/runtime/placement/colocation_graph.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/framework/status.h"
#include "common/framework/types.h"

namespace tributary {

namespace {

constexpr char kColocationAttrName[] = "_class";
constexpr char kColocationGroupPrefix[] = "loc:@";

bool IsRefOrResource(DataType t) { return IsRefType(t) || t == DT_RESOURCE; }

// Ops that create a reference or resource (VariableV2, VarHandleOp, ...):
// their requested device is where the state lives, so consumers must follow
// it rather than the other way round.
bool IsRefOrResourceGeneratorNode(const Node& node) {
  return node.num_inputs() == 0 && node.num_outputs() == 1 &&
         IsRefOrResource(node.output_type(0));
}

// Ops that only pass a resource handle on (or call a function that places
// its own body): a resource input does not tie them to the resource.
bool IsExemptFromResourceInputColocation(const Node& node) {
  static const auto* const kExempt =
      new absl::flat_hash_set<std::string>{"Identity",
                                           "IdentityN",
                                           "If",
                                           "StatelessIf",
                                           "While",
                                           "StatelessWhile",
                                           "PartitionedCall",
                                           "StatefulPartitionedCall"};
  return kExempt->contains(node.type_string());
}

bool HasPriorities(const PrioritizedDeviceTypeVector& types) {
  for (const auto& t : types) {
    if (t.second != 0) return true;
  }
  return false;
}

bool SameOrder(const PrioritizedDeviceTypeVector& a,
               const PrioritizedDeviceTypeVector& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first) return false;
  }
  return true;
}

std::string TypesOf(const PrioritizedDeviceTypeVector& types) {
  std::vector<std::string> names;
  for (const auto& t : types) names.push_back(t.first.type_string());
  return absl::StrJoin(names, ", ");
}

}  // namespace

ColocationGraph::ColocationGraph(const Graph* graph, const DeviceSet* devices,
                                 const PlacerOptions* options)
    : graph_(graph),
      devices_(devices),
      options_(options),
      device_types_(devices->PrioritizedDeviceTypeList()) {
  members_.resize(graph_->num_node_ids());
}

absl::Status ColocationGraph::Initialize() {
  for (Node* node : graph_->op_nodes()) {
    TRIB_RETURN_IF_ERROR(InitializeMember(*node, &members_[node->id()]));
  }
  // Reference/resource edges first, as TensorFlow does: they are hard
  // constraints, while `_class` groups give way under soft placement.
  TRIB_RETURN_IF_ERROR(ColocateResourceAndRefEdges());
  return ColocateAllNodes();
}

absl::Status ColocationGraph::InitializeMember(const Node& node,
                                               Member* member) {
  member->parent = node.id();
  absl::StatusOr<PrioritizedDeviceTypeVector> supported =
      options_->supported_device_types(device_types_, node);
  if (!supported.ok()) {
    return errors::PrependToMessage(supported.status(), "Node '", node.name(),
                                    "' (op ", node.type_string(), "): ");
  }
  member->supported_types = *std::move(supported);

  if (node.has_assigned_device_name()) {
    // Placed before this run (a feed/fetch node on the client device, a
    // stateful node kept where an earlier step put it): respect it.
    const std::string& name = node.assigned_device_name();
    const PlacementDevice* device = devices_->FindDeviceByName(name);
    if (device == nullptr) {
      return errors::InvalidArgument(
          "Node '", node.name(), "' (op ", node.type_string(),
          ") is assigned to device '", name,
          "', which is not among the available devices [", AllDeviceNames(),
          "]");
    }
    member->assigned = device->parsed_name;
    member->requested = device->parsed_name;
    bool supported_here = false;
    for (const auto& t : member->supported_types) {
      if (t.first.type_string() == device->device_type()) supported_here = true;
    }
    if (!supported_here) {
      return errors::InvalidArgument(
          "Node '", node.name(), "' (op ", node.type_string(),
          ") is assigned to device '", name, "', but no ",
          device->device_type(), " kernel is registered for it. ",
          "Registered kernels:\n", RegisteredKernelsForOp(node.type_string()));
    }
    return absl::OkStatus();
  }

  if (member->supported_types.empty()) {
    std::set<std::string> types;
    for (const PlacementDevice* d : devices_->devices()) {
      types.insert(d->device_type());
    }
    return errors::InvalidArgument(
        "No OpKernel was registered to support Op '", node.type_string(),
        "' used by node '", node.name(), "' with these attrs: [",
        node.attrs().SummarizeAttrs(), "]\nRegistered devices: [",
        absl::StrJoin(types, ", "), "]\nRegistered kernels:\n",
        RegisteredKernelsForOp(node.type_string()));
  }

  const std::string& requested = node.requested_device();
  if (requested.empty()) return absl::OkStatus();
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(requested, &parsed)) {
    return errors::InvalidArgument("Malformed device specification '",
                                   requested, "' in node '", node.name(),
                                   "' (op ", node.type_string(), ")");
  }
  if (IsRefOrResourceGeneratorNode(node)) member->resource = parsed;
  member->requested = parsed;
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateResourceAndRefEdges() {
  for (const Edge* edge : graph_->edges()) {
    if (edge->IsControlEdge()) continue;
    const Node* src = edge->src();
    const Node* dst = edge->dst();
    if (!src->IsOp() || !dst->IsOp()) continue;
    const DataType input_type = dst->input_type(edge->dst_input());
    if (IsRefOrResource(input_type) &&
        !IsExemptFromResourceInputColocation(*dst)) {
      TRIB_RETURN_IF_ERROR(ColocateResourceOrRefEdge(*src, *dst));
    }
  }
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateResourceOrRefEdge(const Node& src,
                                                        const Node& dst) {
  const int src_root = FindRoot(src.id());
  const int dst_root = FindRoot(dst.id());
  Member& s = members_[src_root];
  Member& d = members_[dst_root];
  if (!DeviceNameUtils::AreCompatibleDevNames(s.assigned, d.assigned) ||
      !DeviceNameUtils::AreCompatibleDevNames(s.resource, d.resource)) {
    return errors::InvalidArgument(
        "Nodes '", src.name(), "' and '", dst.name(),
        "' are connected by a reference or resource edge, so they must share "
        "a device, but they are pinned to incompatible devices '",
        DeviceNameUtils::ParsedNameToString(
            DeviceNameUtils::HasSomeDetails(s.assigned) ? s.assigned
                                                        : s.resource),
        "' and '",
        DeviceNameUtils::ParsedNameToString(
            DeviceNameUtils::HasSomeDetails(d.assigned) ? d.assigned
                                                        : d.resource),
        "'");
  }
  if (!DeviceNameUtils::AreCompatibleDevNames(s.requested, d.requested)) {
    // The variable's side wins: the other side's request is dropped in
    // favour of it, as TensorFlow does (it logs "Ignoring device
    // specification ... because the input edge ... is a reference
    // connection"). That is the producer's side, unless only the consumer's
    // group already holds the resource (a handle passed through a lowered
    // loop reaches its NextIteration from a consumer on another task).
    const bool consumer_holds_it = DeviceNameUtils::HasSomeDetails(d.resource) &&
                                   !DeviceNameUtils::HasSomeDetails(s.resource);
    const Member& winner = consumer_holds_it ? d : s;
    Member& loser = consumer_holds_it ? s : d;
    loser.requested = winner.requested;
    DeviceNameUtils::EnsureSpecification(&loser.requested, loser.assigned);
    DeviceNameUtils::EnsureSpecification(&loser.requested, loser.resource);
  }
  absl::Status status = ColocateNodes(src, dst);
  if (!status.ok()) {
    return errors::InvalidArgument(
        "Nodes '", src.name(), "' and '", dst.name(),
        "' are connected by a reference or resource edge (requiring them to "
        "be on the same device), but they cannot be: ",
        status.message());
  }
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateAllNodes() {
  // Group name -> first node seen in it. Keys view strings inside the
  // NodeDefs (attr values and names), which outlive this call.
  absl::flat_hash_map<absl::string_view, const Node*> group_roots;
  for (const Node* node : graph_->op_nodes()) {
    const tensorflow::AttrValue* attr = node->attrs().Find(kColocationAttrName);
    if (attr != nullptr && attr->has_list()) {
      for (const std::string& spec : attr->list().s()) {
        absl::string_view group(spec);
        if (absl::ConsumePrefix(&group, kColocationGroupPrefix)) {
          TRIB_RETURN_IF_ERROR(ColocateNodeToGroup(&group_roots, node, group));
        }
      }
    }
    // Every node is in the group named after itself, which is what makes
    // "loc:@x" mean "with x".
    TRIB_RETURN_IF_ERROR(ColocateNodeToGroup(&group_roots, node, node->name()));
  }
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateNodeToGroup(
    absl::flat_hash_map<absl::string_view, const Node*>* group_roots,
    const Node* node, absl::string_view group) {
  const Node*& root = (*group_roots)[group];
  if (root == nullptr) {
    root = node;
    return absl::OkStatus();
  }
  absl::Status s = ColocateNodes(*node, *root);
  if (!s.ok() && !options_->allow_soft_placement) {
    return errors::AppendToMessage(s, "(colocation group '", group,
                                   "' requested by node '", node->name(), "')");
  }
  // With soft placement an impossible colocation request is ignored.
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateNodes(const Node& x, const Node& y) {
  int x_root = FindRoot(x.id());
  int y_root = FindRoot(y.id());
  if (x_root == y_root) return absl::OkStatus();

  // Union by rank; ties keep x's root.
  int new_root = x_root;
  int old_root = y_root;
  if (members_[x_root].rank < members_[y_root].rank) {
    std::swap(new_root, old_root);
  }
  Member merged = members_[new_root];
  const Member& other = members_[old_root];

  absl::Status s = MergeDeviceNames(&merged, other);
  if (!s.ok()) {
    return errors::InvalidArgument("Cannot colocate nodes '", x.name(),
                                   "' and '", y.name(), "': ", s.message());
  }
  if (!merged.assigned_device.empty() && !other.assigned_device.empty() &&
      merged.assigned_device != other.assigned_device) {
    return errors::InvalidArgument(
        "Cannot colocate nodes '", x.name(), "' and '", y.name(),
        "': they are assigned to different devices '", merged.assigned_device,
        "' and '", other.assigned_device, "'");
  }
  if (merged.assigned_device.empty()) {
    merged.assigned_device = other.assigned_device;
  }
  if (!MergeSupportedTypes(&merged, other.supported_types)) {
    return errors::InvalidArgument(
        "Cannot colocate nodes '", x.name(), "' and '", y.name(),
        "' because no device type supports both of those nodes and the other "
        "nodes colocated with them.",
        DebugInfo(x_root), DebugInfo(y_root));
  }

  // All checks passed: commit.
  merged.possible_devices.clear();
  if (members_[new_root].rank == members_[old_root].rank) ++merged.rank;
  members_[new_root] = std::move(merged);
  members_[old_root].parent = new_root;
  return absl::OkStatus();
}

int ColocationGraph::FindRoot(int id) {
  int root = id;
  while (members_[root].parent != root) root = members_[root].parent;
  // Path compression keeps chains (long pipelines of ref edges) cheap.
  while (members_[id].parent != root) {
    const int next = members_[id].parent;
    members_[id].parent = root;
    id = next;
  }
  return root;
}

absl::Status ColocationGraph::MergeDeviceNames(Member* target,
                                               const Member& other) const {
  DeviceNameUtils::ParsedName assigned = target->assigned;
  TRIB_RETURN_IF_ERROR(
      DeviceNameUtils::MergeDevNames(&assigned, other.assigned));
  DeviceNameUtils::ParsedName resource = target->resource;
  TRIB_RETURN_IF_ERROR(
      DeviceNameUtils::MergeDevNames(&resource, other.resource));
  DeviceNameUtils::ParsedName requested = target->requested;
  TRIB_RETURN_IF_ERROR(DeviceNameUtils::MergeDevNames(
      &requested, other.requested, options_->allow_soft_placement));
  DeviceNameUtils::EnsureSpecification(&requested, assigned);
  DeviceNameUtils::EnsureSpecification(&requested, resource);
  target->assigned = assigned;
  target->resource = resource;
  target->requested = requested;
  return absl::OkStatus();
}

bool ColocationGraph::MergeSupportedTypes(
    Member* target, const PrioritizedDeviceTypeVector& other) const {
  // The intersection, once with each side's priorities.
  PrioritizedDeviceTypeVector mine;
  PrioritizedDeviceTypeVector theirs;
  for (const auto& t : target->supported_types) {
    for (const auto& o : other) {
      if (t.first == o.first) {
        mine.push_back(t);
        theirs.push_back(o);
        break;
      }
    }
  }
  if (mine.empty()) return false;
  auto by_priority = [this](PrioritizedDeviceTypeVector* v) {
    std::stable_sort(
        v->begin(), v->end(),
        [this](const std::pair<DeviceType, int32_t>& a,
               const std::pair<DeviceType, int32_t>& b) {
          if (a.second != b.second) return a.second > b.second;
          return devices_->DeviceTypePriority(a.first.type_string()) >
                 devices_->DeviceTypePriority(b.first.type_string());
        });
  };
  by_priority(&mine);
  by_priority(&theirs);
  // Whichever side expresses a preference keeps it; if both do and disagree,
  // neither wins and the device type order decides (TensorFlow's rule).
  const bool mine_prioritized = HasPriorities(mine);
  const bool theirs_prioritized = HasPriorities(theirs);
  if (!mine_prioritized && theirs_prioritized) {
    target->supported_types = std::move(theirs);
  } else if (mine_prioritized && theirs_prioritized &&
             !SameOrder(mine, theirs)) {
    for (auto& t : mine) t.second = 0;
    by_priority(&mine);
    target->supported_types = std::move(mine);
  } else {
    target->supported_types = std::move(mine);
  }
  return true;
}

absl::Status ColocationGraph::LimitToAssignedDevice(const Node& node) {
  const int root = FindRoot(node.id());
  Member& m = members_[root];
  const std::string& name = node.assigned_device_name();
  if (m.assigned_device == name) return absl::OkStatus();
  const PlacementDevice* device = devices_->FindDeviceByName(name);
  if (device == nullptr) {
    return errors::Internal("Node '", node.name(), "' was assigned to '", name,
                            "', which is not in the device set");
  }
  absl::Status s =
      DeviceNameUtils::MergeDevNames(&m.assigned, device->parsed_name);
  if (!s.ok()) {
    return errors::Internal(
        "Assigning node '", node.name(), "' to '", name,
        "' conflicts with its colocation group: ", s.message());
  }
  TRIB_RETURN_IF_ERROR(
      DeviceNameUtils::MergeOverrideDevNames(&m.resource, device->parsed_name));
  TRIB_RETURN_IF_ERROR(DeviceNameUtils::MergeOverrideDevNames(
      &m.requested, device->parsed_name));
  m.assigned_device = name;
  m.possible_devices.clear();
  return absl::OkStatus();
}

std::vector<const PlacementDevice*> ColocationGraph::FilterSupportedDevices(
    const std::vector<const PlacementDevice*>& candidates,
    const PrioritizedDeviceTypeVector& supported_types) const {
  const PlacementDevice* default_device =
      options_->default_device.empty()
          ? nullptr
          : devices_->FindDeviceByName(options_->default_device);
  const PlacementDevice* filtered_default = nullptr;
  std::vector<std::pair<const PlacementDevice*, int32_t>> prioritized;
  for (const auto& type : supported_types) {
    for (const PlacementDevice* d : candidates) {
      if (d->device_type() != type.first.type_string()) continue;
      if (d == default_device) {
        filtered_default = d;
      } else {
        prioritized.emplace_back(d, type.second);
      }
    }
  }
  devices_->SortPrioritizedDevices(&prioritized);
  std::vector<const PlacementDevice*> out;
  out.reserve(prioritized.size() + 1);
  if (filtered_default != nullptr) out.push_back(filtered_default);
  for (const auto& p : prioritized) out.push_back(p.first);
  return out;
}

void ColocationGraph::GetSoftDeviceCandidates(
    const Member& root, std::vector<const PlacementDevice*>* out) const {
  // First try to keep the type/id that a resource or an assignment pins;
  // only then drop them too.
  DeviceNameUtils::ParsedName soft = root.requested;
  if (!root.assigned.has_type && !root.resource.has_type) {
    soft.type.clear();
    soft.has_type = false;
  }
  if (!root.assigned.has_id && !root.resource.has_id) soft.has_id = false;
  *out = FilterSupportedDevices(devices_->FindMatchingDevices(soft),
                                root.supported_types);
  if (!out->empty()) return;

  soft = root.requested;
  if (!root.assigned.has_type) {
    soft.type.clear();
    soft.has_type = false;
  }
  if (!root.assigned.has_id) soft.has_id = false;
  *out = FilterSupportedDevices(devices_->FindMatchingDevices(soft),
                                root.supported_types);
}

absl::Status ColocationGraph::GetDevicesForNode(
    const Node* node, const std::vector<const PlacementDevice*>** devices) {
  *devices = nullptr;
  const int root_id = FindRoot(node->id());
  Member& root = members_[root_id];
  if (!root.possible_devices.empty()) {
    *devices = &root.possible_devices;
    return absl::OkStatus();
  }

  std::vector<const PlacementDevice*> candidates;
  if (DeviceNameUtils::HasSomeDetails(root.requested)) {
    candidates = devices_->FindMatchingDevices(root.requested);
    if (!candidates.empty()) {
      candidates = FilterSupportedDevices(candidates, root.supported_types);
    }
    if (candidates.empty() && options_->allow_soft_placement) {
      GetSoftDeviceCandidates(root, &candidates);
    }
    if (candidates.empty()) {
      const std::string merged =
          DeviceNameUtils::ParsedNameToString(root.requested);
      DeviceNameUtils::ParsedName specified;
      const bool node_spec_is_group_spec =
          DeviceNameUtils::ParseFullName(node->requested_device(),
                                         &specified) &&
          specified == root.requested;
      if (!node_spec_is_group_spec) {
        return errors::InvalidArgument(
            "Could not satisfy explicit device specification '",
            node->requested_device(), "' because node '", node->name(),
            "' was colocated with a group of nodes that required incompatible "
            "device '",
            merged, "'. All available devices [", AllDeviceNames(), "].",
            DebugInfo(root_id));
      }
      if (devices_->FindMatchingDevices(specified).empty()) {
        return errors::InvalidArgument(
            "'", node->name(), "' was explicitly assigned to ",
            node->requested_device(), " but available devices are [ ",
            AllDeviceNames(),
            " ]. Make sure the device specification refers to a valid "
            "device.");
      }
      if (specified.has_type) {
        return errors::InvalidArgument(
            "Could not satisfy explicit device specification '",
            node->requested_device(), "' because no supported kernel for ",
            specified.type, " devices is available (kernels for the group: [",
            TypesOf(root.supported_types), "]).", DebugInfo(root_id),
            "\nRegistered kernels:\n",
            RegisteredKernelsForOp(node->type_string()));
      }
      return errors::InvalidArgument(
          "Could not satisfy explicit device specification '",
          node->requested_device(),
          "': no device of a type that supports "
          "the group [",
          TypesOf(root.supported_types), "] matches it.", DebugInfo(root_id));
    }
  } else {
    candidates =
        FilterSupportedDevices(devices_->devices(), root.supported_types);
    if (candidates.empty()) {
      return errors::InvalidArgument(
          "Node had no OpKernel registered to support this operation: "
          "Operation was ",
          node->type_string(), " and inputs were [",
          DataTypeVectorString(node->input_types()), "]. Available devices [",
          AllDeviceNames(), "].", DebugInfo(root_id));
    }
  }
  root.possible_devices = std::move(candidates);
  *devices = &root.possible_devices;
  return absl::OkStatus();
}

std::string ColocationGraph::AllDeviceNames() const {
  std::vector<std::string> names;
  for (const PlacementDevice* d : devices_->devices()) {
    names.push_back(d->name());
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) {
              return DeviceNameUtils::CompareFullNames(a, b);
            });
  return absl::StrJoin(names, ", ");
}

std::string ColocationGraph::DebugInfo(int root) const {
  std::string out;
  int count = 0;
  for (const Node* n : graph_->op_nodes()) {
    // FindRoot without compression: this is const and only for messages.
    int r = n->id();
    while (members_[r].parent != r) r = members_[r].parent;
    if (r != root) continue;
    if (++count > 20) {
      absl::StrAppend(&out, "\n  ...");
      break;
    }
    absl::StrAppend(&out, "\n  ", n->name(), " (", n->type_string(), ") '",
                    n->requested_device(), "'");
    if (n->has_assigned_device_name()) {
      absl::StrAppend(&out, " assigned ", n->assigned_device_name());
    }
  }
  const Member& m = members_[root];
  return absl::StrCat("\nColocation group: device types with kernels [",
                      TypesOf(m.supported_types), "], merged request '",
                      DeviceNameUtils::ParsedNameToString(m.requested),
                      "'; members:", out);
}

}  // namespace tributary
