#include "common/kernel/kernel_registry.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/btree_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/kernel/device_base.h"
#include "common/framework/status.h"
#include "common/kernel/kernel_constraints.h"
#include "common/kernel/memory_types.h"
#include "common/op/node_properties.h"
#include "common/op/node_def_util.h"

namespace tributary {
namespace {

// The attr a node sets to choose a labelled kernel (TensorFlow's name).
constexpr char kKernelLabelAttr[] = "_kernel";

std::string LabelOf(const tensorflow::NodeDef& node_def) {
  auto it = node_def.attr().find(kKernelLabelAttr);
  if (it == node_def.attr().end() ||
      it->second.value_case() != tensorflow::AttrValue::kS) {
    return "";
  }
  return it->second.s();
}

bool IsTypeAttr(const tensorflow::OpDef::AttrDef& attr) {
  return attr.type() == "type" || attr.type() == "list(type)";
}

bool HasArg(const tensorflow::OpDef& op_def, const std::string& name) {
  for (const auto& arg : op_def.input_arg()) {
    if (arg.name() == name) return true;
  }
  for (const auto& arg : op_def.output_arg()) {
    if (arg.name() == name) return true;
  }
  return false;
}

}  // namespace

KernelRegistry::KernelRegistry() = default;
KernelRegistry::~KernelRegistry() = default;

KernelRegistry* KernelRegistry::Global() {
  // Leaked on purpose: kernels register from static initialisers of other
  // translation units, and lookups may run during static destruction.
  static KernelRegistry* const registry = new KernelRegistry;
  return registry;
}

absl::Status KernelRegistry::Register(const KernelDef& def,
                                      absl::string_view kernel_class_name,
                                      KernelFactory factory) {
  absl::Status status = ValidateKernelDef(def);
  absl::MutexLock l(&mu_);
  if (!status.ok()) {
    registration_errors_.push_back(status);
    return status;
  }
  auto reg = std::make_unique<KernelRegistration>();
  reg->def = def;
  reg->kernel_class_name = std::string(kernel_class_name);
  reg->factory = std::move(factory);

  std::vector<const KernelRegistration*>& same_op = by_op_[def.op];
  for (const KernelRegistration* other : same_op) {
    if (other->def.device_type == def.device_type &&
        other->def.label == def.label &&
        other->def.priority == def.priority &&
        KernelConstraintsOverlap(other->def, def)) {
      status = errors::AlreadyExists(
          "Ambiguous kernel registration: '", reg->kernel_class_name, "' (",
          KernelDefDebugString(def), ") and '", other->kernel_class_name,
          "' (", KernelDefDebugString(other->def),
          ") can match the same node at the same priority; give one a "
          "higher Priority(), a Label() or disjoint TypeConstraint()s");
      registration_errors_.push_back(status);
      break;
    }
  }
  same_op.push_back(reg.get());
  registrations_.push_back(std::move(reg));
  return status;
}

void KernelRegistry::RecordRegistrationError(const absl::Status& status) {
  if (status.ok()) return;
  absl::MutexLock l(&mu_);
  registration_errors_.push_back(status);
}

absl::Status KernelRegistry::registration_status() const {
  absl::ReaderMutexLock l(&mu_);
  if (registration_errors_.empty()) return absl::OkStatus();
  if (registration_errors_.size() == 1) return registration_errors_[0];
  return errors::InvalidArgument(
      registration_errors_.size(), " kernel registrations failed:\n",
      absl::StrJoin(registration_errors_, "\n",
                    [](std::string* out, const absl::Status& s) {
                      absl::StrAppend(out, s.ToString());
                    }));
}

absl::Status KernelRegistry::FindKernelRegistration(
    const DeviceType& device_type, const tensorflow::NodeDef& node_def,
    const tensorflow::OpDef* op_def, const KernelRegistration** reg) const {
  *reg = nullptr;
  const std::string label = LabelOf(node_def);
  absl::ReaderMutexLock l(&mu_);
  auto it = by_op_.find(node_def.op());
  if (it == by_op_.end()) return absl::OkStatus();

  std::vector<const KernelRegistration*> matches;
  for (const KernelRegistration* candidate : it->second) {
    if (candidate->def.device_type != device_type.type_string() ||
        candidate->def.label != label) {
      continue;
    }
    bool match = false;
    TRIB_RETURN_IF_ERROR(
        KernelAttrsMatch(candidate->def, node_def, op_def, &match));
    if (match) matches.push_back(candidate);
  }
  if (matches.empty()) return absl::OkStatus();

  const KernelRegistration* best = matches[0];
  for (const KernelRegistration* m : matches) {
    if (m->def.priority > best->def.priority) best = m;
  }
  for (const KernelRegistration* m : matches) {
    if (m != best && m->def.priority == best->def.priority) {
      return errors::InvalidArgument(
          "Multiple kernels match node '", node_def.name(), "' (op '",
          node_def.op(), "') on device ", device_type.type_string(),
          " at the same priority ", best->def.priority, ": '",
          best->kernel_class_name, "' (", KernelDefSummary(best->def),
          ") and '", m->kernel_class_name, "' (", KernelDefSummary(m->def),
          "); node: ", SummarizeNodeDef(node_def));
    }
  }
  *reg = best;
  return absl::OkStatus();
}

std::string KernelRegistry::RegisteredForOpOneLine(
    absl::string_view op_name) const {
  auto it = by_op_.find(op_name);
  if (it == by_op_.end() || it->second.empty()) return "<none>";
  absl::btree_set<std::string> lines;
  for (const KernelRegistration* r : it->second) {
    lines.insert(absl::StrCat("{", KernelDefSummary(r->def), "}"));
  }
  return absl::StrJoin(lines, ", ");
}

absl::Status KernelRegistry::FindKernelDef(const DeviceType& device_type,
                                           const tensorflow::NodeDef& node_def,
                                           const tensorflow::OpDef* op_def,
                                           const KernelDef** def,
                                           std::string* kernel_class_name) const {
  const KernelRegistration* reg = nullptr;
  TRIB_RETURN_IF_ERROR(
      FindKernelRegistration(device_type, node_def, op_def, &reg));
  if (reg != nullptr) {
    *def = &reg->def;
    if (kernel_class_name != nullptr) *kernel_class_name = reg->kernel_class_name;
    return absl::OkStatus();
  }

  return NoKernelError(device_type, node_def, op_def);
}

absl::Status KernelRegistry::NoKernelError(const DeviceType& device_type,
                                           const tensorflow::NodeDef& node_def,
                                           const tensorflow::OpDef* op_def) const {
  // Describe the node by the attrs kernels of this op care about, so the
  // reader can compare "with T=DT_STRING" against "T in [DT_FLOAT]".
  absl::ReaderMutexLock l(&mu_);
  absl::btree_set<std::string> constrained;
  if (auto it = by_op_.find(node_def.op()); it != by_op_.end()) {
    for (const KernelRegistration* r : it->second) {
      for (const auto& c : r->def.constraints) constrained.insert(c.name);
    }
  }
  std::vector<std::string> with;
  const std::string label = LabelOf(node_def);
  if (!label.empty()) with.push_back(absl::StrCat("label='", label, "'"));
  for (const std::string& name : constrained) {
    with.push_back(DescribeTypeAttr(node_def, op_def, name));
  }
  return errors::NotFound(
      "No kernel for op '", node_def.op(), "' on device ",
      device_type.type_string(),
      with.empty() ? "" : absl::StrCat(" with ", absl::StrJoin(with, ", ")),
      "; registered: ", RegisteredForOpOneLine(node_def.op()),
      "; node: ", SummarizeNodeDef(node_def));
}

std::string KernelRegistry::KernelsRegisteredForOp(
    absl::string_view op_name) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = by_op_.find(op_name);
  if (it == by_op_.end() || it->second.empty()) {
    return "  <no registered kernels>\n";
  }
  absl::btree_set<std::string> lines;
  for (const KernelRegistration* r : it->second) {
    lines.insert(absl::StrCat("  ", KernelDefSummary(r->def), "\n"));
  }
  return absl::StrJoin(lines, "");
}

std::vector<KernelDef> KernelRegistry::GetAllRegisteredKernels() const {
  absl::ReaderMutexLock l(&mu_);
  std::vector<KernelDef> out;
  out.reserve(registrations_.size());
  for (const auto& r : registrations_) out.push_back(r->def);
  return out;
}

absl::StatusOr<PrioritizedDeviceTypeVector>
KernelRegistry::SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types,
    const tensorflow::NodeDef& node_def,
    const OpRegistryInterface& op_registry) const {
  PrioritizedDeviceTypeVector out;
  const OpRegistrationData* op_data = nullptr;
  if (!op_registry.LookUp(node_def.op(), &op_data).ok()) {
    for (const DeviceType& t : prioritized_types) out.emplace_back(t, 0);
    return out;
  }
  for (const DeviceType& t : prioritized_types) {
    const KernelRegistration* reg = nullptr;
    TRIB_RETURN_IF_ERROR(
        FindKernelRegistration(t, node_def, &op_data->op_def, &reg));
    if (reg != nullptr) out.emplace_back(t, reg->def.priority);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second > b.second;
  });
  return out;
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateOpKernel(
    const DeviceType& device_type, DeviceBase* device, Allocator* allocator,
    const tensorflow::NodeDef& node_def, int graph_def_version,
    const OpRegistryInterface& op_registry,
    ResourceMgr* resource_manager) const {
  // Defaults are filled in first so that validation, kernel matching and the
  // kernel's GetAttr all see the same complete attr set.
  TRIB_ASSIGN_OR_RETURN(
      std::shared_ptr<const NodeProperties> props,
      NodeProperties::CreateFromNodeDef(node_def, op_registry));
  TRIB_RETURN_IF_ERROR(ValidateNodeDef(props->node_def, *props->op_def));

  const KernelRegistration* reg = nullptr;
  TRIB_RETURN_IF_ERROR(FindKernelRegistration(device_type, props->node_def,
                                              props->op_def, &reg));
  if (reg == nullptr) {
    return NoKernelError(device_type, props->node_def, props->op_def);
  }
  const KernelDef* kernel_def = &reg->def;
  const std::string& class_name = reg->kernel_class_name;

  MemoryTypeVector input_memory_types;
  MemoryTypeVector output_memory_types;
  TRIB_RETURN_IF_ERROR(MemoryTypesForNode(
      device_type, kernel_def, props->node_def, *props->op_def,
      props->input_types, props->output_types, &input_memory_types,
      &output_memory_types));

  // Kernels that prepare buffers at construction (Const) need an allocator;
  // the device's default one is the natural choice when none was given.
  if (allocator == nullptr && device != nullptr) {
    allocator = device->GetAllocator(AllocatorAttributes());
  }
  absl::Status status;
  OpKernelConstruction construction(
      device_type, device, allocator, props, input_memory_types,
      output_memory_types, graph_def_version, resource_manager, &status);
  std::unique_ptr<OpKernel> kernel = reg->factory(&construction);
  if (!status.ok()) {
    return errors::AppendToMessage(
        status, "while constructing kernel '", class_name, "' on ",
        device_type.type_string(), " for node ",
        SummarizeNodeDef(props->node_def));
  }
  if (kernel == nullptr) {
    return errors::Internal("Kernel factory '", class_name,
                            "' returned null for node ",
                            SummarizeNodeDef(props->node_def));
  }
  return kernel;
}

absl::Status KernelRegistry::ValidateKernelRegistrations(
    const OpRegistryInterface& op_registry) const {
  std::vector<std::string> problems;
  if (absl::Status s = registration_status(); !s.ok()) {
    problems.push_back(std::string(s.message()));
  }
  for (const KernelDef& def : GetAllRegisteredKernels()) {
    const OpRegistrationData* op_data = nullptr;
    if (!op_registry.LookUp(def.op, &op_data).ok()) {
      problems.push_back(absl::StrCat("Kernel ", KernelDefDebugString(def),
                                      " is for an unregistered op"));
      continue;
    }
    const tensorflow::OpDef& op_def = op_data->op_def;
    for (const auto& c : def.constraints) {
      const tensorflow::OpDef::AttrDef* attr = nullptr;
      for (const auto& a : op_def.attr()) {
        if (a.name() == c.name) attr = &a;
      }
      if (attr == nullptr || !IsTypeAttr(*attr)) {
        problems.push_back(absl::StrCat(
            "Kernel ", KernelDefDebugString(def), " constrains attr '", c.name,
            "', which op '", def.op, "' does not have as a type attr"));
      }
    }
    for (const std::string& arg : def.host_memory_args) {
      if (!HasArg(op_def, arg)) {
        problems.push_back(absl::StrCat("Kernel ", KernelDefDebugString(def),
                                        " marks HostMemory('", arg,
                                        "'), which op '", def.op,
                                        "' has no argument named"));
      }
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return errors::InvalidArgument(absl::StrJoin(problems, "\n"));
}

// ---- Global-registry conveniences -----------------------------------------

absl::Status FindKernelDef(const DeviceType& device_type,
                           const tensorflow::NodeDef& node_def,
                           const KernelDef** def,
                           std::string* kernel_class_name) {
  const OpRegistrationData* op_data = nullptr;
  const tensorflow::OpDef* op_def = nullptr;
  if (OpRegistry::Global()->LookUp(node_def.op(), &op_data).ok()) {
    op_def = &op_data->op_def;
  }
  return KernelRegistry::Global()->FindKernelDef(device_type, node_def, op_def,
                                                 def, kernel_class_name);
}

std::string KernelsRegisteredForOp(absl::string_view op_name) {
  return KernelRegistry::Global()->KernelsRegisteredForOp(op_name);
}

absl::StatusOr<PrioritizedDeviceTypeVector> SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types,
    const tensorflow::NodeDef& node_def) {
  return KernelRegistry::Global()->SupportedDeviceTypesForNode(
      prioritized_types, node_def, *OpRegistry::Global());
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(
    const DeviceType& device_type, DeviceBase* device, Allocator* allocator,
    const tensorflow::NodeDef& node_def, int graph_def_version,
    ResourceMgr* resource_manager) {
  return KernelRegistry::Global()->CreateOpKernel(
      device_type, device, allocator, node_def, graph_def_version,
      *OpRegistry::Global(), resource_manager);
}

absl::Status ValidateKernelRegistrations(
    const OpRegistryInterface& op_registry) {
  return KernelRegistry::Global()->ValidateKernelRegistrations(op_registry);
}

namespace kernel_factory {

OpKernelRegistrar::OpKernelRegistrar(const KernelDefBuilder& builder,
                                     const char* kernel_class_name,
                                     KernelFactory factory) {
  absl::StatusOr<KernelDef> def = builder.Build();
  if (!def.ok()) {
    KernelRegistry::Global()->RecordRegistrationError(errors::AppendToMessage(
        def.status(), "in REGISTER_KERNEL_BUILDER for ", kernel_class_name));
    return;
  }
  // Errors are kept by the registry for registration_status().
  KernelRegistry::Global()
      ->Register(*def, kernel_class_name, std::move(factory))
      .IgnoreError();
}

}  // namespace kernel_factory
}  // namespace tributary
