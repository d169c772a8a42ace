#include "common/distributed/worker_cache.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/device/device_name_utils.h"
#include "common/framework/status.h"

namespace tributary {

WorkerCacheInterface::~WorkerCacheInterface() = default;

absl::StatusOr<std::string> TaskNameOf(absl::string_view task_or_device) {
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(task_or_device, &parsed) ||
      !parsed.has_job || !parsed.has_replica || !parsed.has_task) {
    return errors::InvalidArgument(
        "Not a task name (want /job:<job>/replica:<r>/task:<t>): '",
        task_or_device, "'");
  }
  return absl::StrCat("/job:", parsed.job, "/replica:", parsed.replica,
                      "/task:", parsed.task);
}

void InProcessWorkerCache::AddWorker(const std::string& task,
                                     std::shared_ptr<WorkerInterface> worker) {
  absl::MutexLock l(&mu_);
  workers_[task] = std::move(worker);
}

void InProcessWorkerCache::RemoveWorker(const std::string& task) {
  absl::MutexLock l(&mu_);
  workers_.erase(task);
}

std::vector<std::string> InProcessWorkerCache::ListWorkers() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, worker] : workers_) names.push_back(name);
  return names;
}

absl::StatusOr<std::shared_ptr<WorkerInterface>> InProcessWorkerCache::GetWorker(
    absl::string_view task) {
  TRIB_ASSIGN_OR_RETURN(std::string name, TaskNameOf(task));
  absl::MutexLock l(&mu_);
  auto it = workers_.find(name);
  if (it == workers_.end()) {
    std::vector<std::string> known;
    for (const auto& [n, w] : workers_) known.push_back(n);
    return errors::NotFound("No worker for task ", name,
                            "; the cluster's tasks are [",
                            absl::StrJoin(known, ", "), "]");
  }
  return it->second;
}

}  // namespace tributary
