#include "master/task_liveness.h"

namespace tributary {

bool TaskLiveness::MayBeStarting(const std::string& task,
                                 absl::Time now) const {
  return now < startup_ends_ && !Answered(task);
}

bool TaskLiveness::Answered(const std::string& task) const {
  absl::MutexLock l(&mu_);
  return answered_.contains(task);
}

void TaskLiveness::MarkAnswered(const std::string& task) {
  absl::MutexLock l(&mu_);
  answered_.insert(task);
}

}  // namespace tributary
