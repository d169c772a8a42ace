#ifndef TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_MGR_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_MGR_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

// One rendezvous per step: every partition of step S, on every device (and,
// later, the RecvTensor requests of other workers for step S) must find the
// same table, and nothing else may. The manager maps step_id -> rendezvous.
//
//   std::shared_ptr<RendezvousInterface> r = mgr.Find(step_id);
//   ... run the step's executors with r.get() ...
//   mgr.Cleanup(step_id);
//
// Cleanup aborts the step's rendezvous with Aborted("Cleanup <step_id>"), so
// a receiver still waiting (a peer that never sent) is released, and drops
// the manager's reference; CleanupAll does the same for every step with
// Aborted("Shutdown"). Holders of a shared_ptr keep a cleaned-up
// rendezvous alive (aborted) until they let go. Thread-safe.
class RendezvousMgr {
 public:
  using Factory =
      std::function<std::shared_ptr<RendezvousInterface>(int64_t step_id)>;

  // Creates an IntraProcessRendezvous with `copy` for each new step.
  explicit RendezvousMgr(SameProcessCopyFn copy = nullptr);
  // Creates each step's rendezvous with `factory` (e.g. a worker's remote
  // rendezvous).
  explicit RendezvousMgr(Factory factory);
  // Aborts whatever is left (CleanupAll).
  ~RendezvousMgr();

  RendezvousMgr(const RendezvousMgr&) = delete;
  RendezvousMgr& operator=(const RendezvousMgr&) = delete;

  // The rendezvous of `step_id`, created on first use.
  std::shared_ptr<RendezvousInterface> Find(int64_t step_id);
  // Aborts and forgets the rendezvous of `step_id`; no-op when unknown.
  void Cleanup(int64_t step_id);
  // Cleanup for every step.
  void CleanupAll();

  // Steps with a rendezvous.
  int NumSteps() const;

 private:
  const Factory factory_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int64_t, std::shared_ptr<RendezvousInterface>> table_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_MGR_H_
