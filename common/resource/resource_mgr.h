#ifndef TRIBUTARY_COMMON_RESOURCE_RESOURCE_MGR_H_
#define TRIBUTARY_COMMON_RESOURCE_RESOURCE_MGR_H_

// ResourceMgr: named, typed, refcounted state that outlives a step, such as
// variables. A session owns one per device and hands it to every kernel run
// through OpKernelContext::Params::resource_manager, so a VariableV2 finds
// the same buffer on every Run.
//
// Resources live in containers (default "localhost", TensorFlow's name) and
// are keyed by (C++ type, name): a Var "w" and a LegacyVar "w" are distinct.
// Cleanup(container) drops a whole container, e.g. at session reset.
//
// Ownership: the manager holds one reference per stored resource. Lookup
// and LookupOrCreate return a new reference the caller must Unref (wrap it in
// RefCountPtr). A resource removed by Delete or Cleanup while a kernel still
// holds a reference dies only when that kernel lets go. (A VariableV2 ref
// output is a raw pointer into the variable, valid while the manager keeps
// it: as in TensorFlow, do not Cleanup a container during a step using it.)
//
// Thread-safe. Resources are destroyed outside the manager's lock, so a
// resource's destructor may use the manager.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/resource/resource_base.h"
#include "common/resource/resource_handle.h"

namespace tributary {

class ResourceMgr {
 public:
  // Default container "localhost", as TensorFlow's devices use.
  static constexpr const char* kDefaultContainer = "localhost";

  ResourceMgr();
  explicit ResourceMgr(const std::string& default_container);
  ~ResourceMgr();

  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  // The container ops use when their `container` attr is empty.
  const std::string& default_container() const { return default_container_; }

  // Stores `resource` as container/name, taking over the caller's
  // reference in every case (on error it is released). AlreadyExists when a
  // resource of type T has that name.
  template <typename T>
  absl::Status Create(const std::string& container, const std::string& name,
                      T* resource);

  // *resource gets a new reference to container/name of type T. NotFound
  // ("Container c does not exist..." / "Resource c/n/T does not exist.").
  template <typename T>
  absl::Status Lookup(const std::string& container, const std::string& name,
                      T** resource) const;
  template <typename T>
  absl::Status Lookup(const std::string& container, const std::string& name,
                      RefCountPtr<T>* resource) const;

  // Lookup, or when absent `creator(&r)` makes one, stored atomically: of
  // racing callers exactly one creates. *resource gets a new reference.
  // `creator` runs under the manager's lock and must not call back into it.
  template <typename T>
  absl::Status LookupOrCreate(const std::string& container,
                              const std::string& name, T** resource,
                              const std::function<absl::Status(T**)>& creator);

  // Removes container/name of type T. NotFound when absent.
  template <typename T>
  absl::Status Delete(const std::string& container, const std::string& name);

  // Type-erased forms driven by a handle (its hash_code is the type).
  absl::Status Lookup(const ResourceHandle& handle,
                      ResourceBase** resource) const;
  absl::Status Delete(const ResourceHandle& handle);

  // Drops every resource of `container`. OK when it does not exist.
  absl::Status Cleanup(const std::string& container);
  // Drops everything.
  void Clear();

  // Whether `container` exists (has held a resource since its last Cleanup).
  bool HasContainer(const std::string& container) const;
  // One sorted line per resource: "container | type | name | debug".
  std::string DebugString() const;

 private:
  struct Key {
    uint64_t type_hash;
    std::string name;
    bool operator==(const Key& other) const {
      return type_hash == other.type_hash && name == other.name;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Key& key) {
      return H::combine(std::move(h), key.type_hash, key.name);
    }
  };
  struct Entry {
    RefCountPtr<ResourceBase> resource;
    std::string type_name;  // Mangled, for messages.
  };
  using Container = absl::flat_hash_map<Key, Entry, absl::Hash<Key>>;

  absl::Status DoCreate(const std::string& container,
                        const ResourceTypeIndex& type, const std::string& name,
                        ResourceBase* resource)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A new reference in *resource on success.
  absl::Status DoLookup(const std::string& container, uint64_t type_hash,
                        const std::string& type_name, const std::string& name,
                        ResourceBase** resource) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status DoDelete(const std::string& container, uint64_t type_hash,
                        const std::string& type_name, const std::string& name);

  const std::string default_container_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Container>> containers_
      ABSL_GUARDED_BY(mu_);
};

// ---- Template implementations ----------------------------------------------

namespace resource_internal {
template <typename T>
void CheckDerivesFromResourceBase() {
  static_assert(std::is_base_of<ResourceBase, T>::value,
                "T must derive from ResourceBase");
}
}  // namespace resource_internal

template <typename T>
absl::Status ResourceMgr::Create(const std::string& container,
                                 const std::string& name, T* resource) {
  resource_internal::CheckDerivesFromResourceBase<T>();
  CHECK(resource != nullptr);
  absl::Status status;
  {
    absl::MutexLock l(&mu_);
    status = DoCreate(container, ResourceTypeIndex::Make<T>(), name, resource);
  }
  // The caller's reference was handed over; on failure nobody keeps it.
  // Released outside the lock: the destructor may use the manager.
  if (!status.ok()) resource->Unref();
  return status;
}

template <typename T>
absl::Status ResourceMgr::Lookup(const std::string& container,
                                 const std::string& name,
                                 T** resource) const {
  resource_internal::CheckDerivesFromResourceBase<T>();
  const ResourceTypeIndex type = ResourceTypeIndex::Make<T>();
  ResourceBase* found = nullptr;
  absl::ReaderMutexLock l(&mu_);
  TRIB_RETURN_IF_ERROR(
      DoLookup(container, type.hash_code(), type.name(), name, &found));
  // The type hash is part of the key, so the static cast is safe.
  *resource = static_cast<T*>(found);
  return absl::OkStatus();
}

template <typename T>
absl::Status ResourceMgr::Lookup(const std::string& container,
                                 const std::string& name,
                                 RefCountPtr<T>* resource) const {
  T* raw = nullptr;
  TRIB_RETURN_IF_ERROR(Lookup<T>(container, name, &raw));
  resource->reset(raw);
  return absl::OkStatus();
}

template <typename T>
absl::Status ResourceMgr::LookupOrCreate(
    const std::string& container, const std::string& name, T** resource,
    const std::function<absl::Status(T**)>& creator) {
  resource_internal::CheckDerivesFromResourceBase<T>();
  *resource = nullptr;
  // Fast path: most calls (every step after the first) find it under the
  // shared lock.
  if (Lookup<T>(container, name, resource).ok()) return absl::OkStatus();
  const ResourceTypeIndex type = ResourceTypeIndex::Make<T>();
  absl::MutexLock l(&mu_);
  ResourceBase* found = nullptr;
  if (DoLookup(container, type.hash_code(), type.name(), name, &found).ok()) {
    *resource = static_cast<T*>(found);
    return absl::OkStatus();
  }
  T* created = nullptr;
  TRIB_RETURN_IF_ERROR(creator(&created));
  if (created == nullptr) {
    return errors::Internal("creator of resource ", container, "/", name,
                            " returned no resource");
  }
  // The manager keeps the creator's reference; the caller gets another.
  created->Ref();
  absl::Status status = DoCreate(container, type, name, created);
  if (!status.ok()) {
    created->Unref();
    created->Unref();
    return errors::Internal("LookupOrCreate failed unexpectedly: ",
                            status.message());
  }
  *resource = created;
  return absl::OkStatus();
}

template <typename T>
absl::Status ResourceMgr::Delete(const std::string& container,
                                 const std::string& name) {
  resource_internal::CheckDerivesFromResourceBase<T>();
  const ResourceTypeIndex type = ResourceTypeIndex::Make<T>();
  return DoDelete(container, type.hash_code(), type.name(), name);
}

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_RESOURCE_MGR_H_
