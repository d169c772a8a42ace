#include "common/framework/constant_buffers.h"

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace tributary {
namespace {

struct Registry {
  absl::Mutex mu;
  // Several Const kernels may share one buffer (none do today, but a count
  // keeps the registration honest if they ever do).
  struct Entry {
    uint64_t id = 0;
    int count = 0;
  };
  absl::flat_hash_map<const void*, Entry> entries ABSL_GUARDED_BY(mu);
  uint64_t next_id ABSL_GUARDED_BY(mu) = 1;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

uint64_t RegisterConstantBuffer(const void* data) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  Registry::Entry& entry = r.entries[data];
  if (entry.count++ == 0) entry.id = r.next_id++;
  return entry.id;
}

void UnregisterConstantBuffer(const void* data) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.entries.find(data);
  if (it != r.entries.end() && --it->second.count == 0) r.entries.erase(it);
}

uint64_t ConstantBufferId(const void* data) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.entries.find(data);
  return it == r.entries.end() ? 0 : it->second.id;
}

}  // namespace tributary
