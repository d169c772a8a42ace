#include "common/function/function_library.h"

#include <utility>

#include "common/framework/status.h"
#include "google/protobuf/util/message_differencer.h"

namespace tributary {

absl::StatusOr<FunctionLibrary> FunctionLibrary::Create(
    const tensorflow::FunctionDefLibrary& library,
    const OpRegistryInterface& ops) {
  FunctionLibrary lib(ops);
  for (const tensorflow::FunctionDef& fdef : library.function()) {
    const std::string& name = fdef.signature().name();
    if (name.empty()) {
      return errors::InvalidArgument(
          "A function in the graph's library has no name (signature.name is "
          "empty)");
    }
    const tensorflow::OpDef* op_def = nullptr;
    if (ops.LookUpOpDef(name, &op_def).ok()) {
      return errors::InvalidArgument("Cannot add function '", name,
                                     "' because an op with the same name "
                                     "already exists.");
    }
    auto [it, inserted] = lib.functions_.emplace(name, &fdef);
    if (!inserted &&
        !google::protobuf::util::MessageDifferencer::Equals(*it->second,
                                                            fdef)) {
      return errors::InvalidArgument(
          "Cannot add function '", name,
          "' because a different function with the same name already "
          "exists.");
    }
  }
  return lib;
}

const tensorflow::FunctionDef* FunctionLibrary::Find(
    absl::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

absl::Status FunctionLibrary::LookUpOpDef(
    const std::string& op, const tensorflow::OpDef** op_def) const {
  if (const tensorflow::FunctionDef* f = Find(op)) {
    *op_def = &f->signature();
    return absl::OkStatus();
  }
  return ops_->LookUpOpDef(op, op_def);
}

}  // namespace tributary
