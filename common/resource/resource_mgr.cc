#include "common/resource/resource_mgr.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace tributary {

constexpr const char* ResourceMgr::kDefaultContainer;

ResourceMgr::ResourceMgr() : default_container_(kDefaultContainer) {}

ResourceMgr::ResourceMgr(const std::string& default_container)
    : default_container_(default_container) {}

ResourceMgr::~ResourceMgr() { Clear(); }

absl::Status ResourceMgr::DoCreate(const std::string& container,
                                   const ResourceTypeIndex& type,
                                   const std::string& name,
                                   ResourceBase* resource) {
  std::unique_ptr<Container>& slot = containers_[container];
  if (slot == nullptr) slot = std::make_unique<Container>();
  Key key{type.hash_code(), name};
  if (slot->contains(key)) {
    return errors::AlreadyExists("Resource ", container, "/", name, "/",
                                 type.name());
  }
  Entry entry;
  entry.resource.reset(resource);
  entry.type_name = type.name();
  slot->emplace(std::move(key), std::move(entry));
  return absl::OkStatus();
}

absl::Status ResourceMgr::DoLookup(const std::string& container,
                                   uint64_t type_hash,
                                   const std::string& type_name,
                                   const std::string& name,
                                   ResourceBase** resource) const {
  auto c = containers_.find(container);
  if (c == containers_.end()) {
    return errors::NotFound("Container ", container,
                            " does not exist. (Could not find resource: ",
                            container, "/", name, ")");
  }
  auto it = c->second->find(Key{type_hash, name});
  if (it == c->second->end()) {
    return errors::NotFound("Resource ", container, "/", name, "/", type_name,
                            " does not exist.");
  }
  ResourceBase* found = it->second.resource.get();
  found->Ref();
  *resource = found;
  return absl::OkStatus();
}

absl::Status ResourceMgr::DoDelete(const std::string& container,
                                   uint64_t type_hash,
                                   const std::string& type_name,
                                   const std::string& name) {
  // Moved out so the resource is released after the lock is dropped.
  RefCountPtr<ResourceBase> removed;
  {
    absl::MutexLock l(&mu_);
    auto c = containers_.find(container);
    if (c == containers_.end()) {
      return errors::NotFound("Container ", container, " does not exist.");
    }
    auto it = c->second->find(Key{type_hash, name});
    if (it == c->second->end()) {
      return errors::NotFound("Resource ", container, "/", name, "/",
                              type_name, " does not exist.");
    }
    removed = std::move(it->second.resource);
    c->second->erase(it);
  }
  return absl::OkStatus();
}

absl::Status ResourceMgr::Lookup(const ResourceHandle& handle,
                                 ResourceBase** resource) const {
  absl::ReaderMutexLock l(&mu_);
  return DoLookup(handle.container(), handle.hash_code(), "ResourceBase",
                  handle.name(), resource);
}

absl::Status ResourceMgr::Delete(const ResourceHandle& handle) {
  // TensorFlow's message for a handle-driven delete says "<unknown>": the
  // handle's type name is only a hint.
  return DoDelete(handle.container(), handle.hash_code(), "<unknown>",
                  handle.name());
}

absl::Status ResourceMgr::Cleanup(const std::string& container) {
  std::unique_ptr<Container> removed;
  {
    absl::MutexLock l(&mu_);
    auto it = containers_.find(container);
    if (it == containers_.end()) return absl::OkStatus();
    removed = std::move(it->second);
    containers_.erase(it);
  }
  // `removed` (and with it the manager's references) goes here, unlocked.
  return absl::OkStatus();
}

void ResourceMgr::Clear() {
  absl::flat_hash_map<std::string, std::unique_ptr<Container>> removed;
  {
    absl::MutexLock l(&mu_);
    removed.swap(containers_);
  }
}

bool ResourceMgr::HasContainer(const std::string& container) const {
  absl::ReaderMutexLock l(&mu_);
  return containers_.contains(container);
}

std::string ResourceMgr::DebugString() const {
  std::vector<std::string> lines;
  {
    absl::ReaderMutexLock l(&mu_);
    for (const auto& [container_name, container] : containers_) {
      for (const auto& [key, entry] : *container) {
        lines.push_back(absl::StrFormat(
            "%-20s | %-40s | %-40s | %s", container_name,
            DemangleTypeName(entry.type_name), key.name,
            entry.resource->DebugString()));
      }
    }
  }
  std::sort(lines.begin(), lines.end());
  return absl::StrJoin(lines, "\n");
}

}  // namespace tributary
