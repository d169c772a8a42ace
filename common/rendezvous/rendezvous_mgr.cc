#include "common/rendezvous/rendezvous_mgr.h"

#include <utility>
#include <vector>

#include "common/framework/status.h"

namespace tributary {

RendezvousMgr::RendezvousMgr(SameProcessCopyFn copy)
    : factory_([copy = std::move(copy)](int64_t /*step_id*/) {
        return std::make_shared<IntraProcessRendezvous>(copy);
      }) {}

RendezvousMgr::RendezvousMgr(Factory factory) : factory_(std::move(factory)) {}

RendezvousMgr::~RendezvousMgr() { CleanupAll(); }

std::shared_ptr<RendezvousInterface> RendezvousMgr::Find(int64_t step_id) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<RendezvousInterface>& slot = table_[step_id];
  if (slot == nullptr) slot = factory_(step_id);
  return slot;
}

void RendezvousMgr::Cleanup(int64_t step_id) {
  std::shared_ptr<RendezvousInterface> rendezvous;
  {
    absl::MutexLock lock(&mu_);
    auto it = table_.find(step_id);
    if (it == table_.end()) return;
    rendezvous = std::move(it->second);
    table_.erase(it);
  }
  // Outside the lock: aborting runs receivers' callbacks, which may call
  // back into the manager.
  rendezvous->StartAbort(errors::Aborted("Cleanup ", step_id));
}

void RendezvousMgr::CleanupAll() {
  std::vector<std::shared_ptr<RendezvousInterface>> all;
  {
    absl::MutexLock lock(&mu_);
    all.reserve(table_.size());
    for (auto& entry : table_) all.push_back(std::move(entry.second));
    table_.clear();
  }
  for (auto& rendezvous : all) {
    rendezvous->StartAbort(errors::Aborted("Shutdown"));
  }
}

int RendezvousMgr::NumSteps() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(table_.size());
}

}  // namespace tributary
