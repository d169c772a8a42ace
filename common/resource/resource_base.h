#ifndef TRIBUTARY_COMMON_RESOURCE_RESOURCE_BASE_H_
#define TRIBUTARY_COMMON_RESOURCE_RESOURCE_BASE_H_

// ResourceBase: the common base of everything a ResourceMgr holds
// (variables, later queues, iterators, ...).
//
// Why intrusive reference counting (not std::shared_ptr): kernels hold a
// resource only for the duration of one Compute, while the ResourceMgr holds
// it across steps; a Cleanup(container) while a step still uses a variable
// must not free it under that step's feet. One atomic count in the object
// lets the manager and any number of kernels share it, and lets a raw
// pointer cross the kernel API (TensorFlow's core::RefCounted contract).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace tributary {

class ResourceBase {
 public:
  // A new resource starts with one reference, owned by its creator.
  ResourceBase() = default;
  ResourceBase(const ResourceBase&) = delete;
  ResourceBase& operator=(const ResourceBase&) = delete;

  void Ref() const { ref_.fetch_add(1, std::memory_order_relaxed); }
  // Drops one reference; deletes the resource when it was the last.
  // Returns whether it was deleted.
  bool Unref() const {
    // acq_rel: the deleting thread must see every other owner's writes.
    if (ref_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
      return true;
    }
    return false;
  }
  bool RefCountIsOne() const {
    return ref_.load(std::memory_order_acquire) == 1;
  }

  // One line for ResourceMgr::DebugString (e.g. "float/[2,3]").
  virtual std::string DebugString() const = 0;

  // Bytes held, for memory accounting; 0 when unknown.
  virtual int64_t MemoryUsed() const { return 0; }

 protected:
  // Only Unref deletes resources.
  virtual ~ResourceBase() = default;

 private:
  mutable std::atomic<int64_t> ref_{1};
};

// Owns one reference: a std::unique_ptr whose deleter calls Unref(), so a
// lookup result is released on every path out of a kernel.
struct ResourceUnrefDeleter {
  void operator()(const ResourceBase* resource) const {
    if (resource != nullptr) resource->Unref();
  }
};
template <typename T>
using RefCountPtr = std::unique_ptr<T, ResourceUnrefDeleter>;

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_RESOURCE_BASE_H_
