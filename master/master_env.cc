#include "master/master_env.h"

#include "absl/strings/str_cat.h"
#include "common/device/device_name_utils.h"

namespace tributary {

void BackgroundCalls::Add() {
  absl::MutexLock l(&mu_);
  ++outstanding_;
}

void BackgroundCalls::Done() {
  absl::MutexLock l(&mu_);
  --outstanding_;
}

bool BackgroundCalls::WaitIdle(absl::Time deadline) {
  absl::MutexLock l(&mu_);
  return mu_.AwaitWithDeadline(
      absl::Condition(
          +[](int64_t* n) { return *n == 0; }, &outstanding_),
      deadline);
}

std::string MasterEnv::DescribeTask(const std::string& task) const {
  DeviceNameUtils::ParsedName parsed;
  if (DeviceNameUtils::ParseFullName(task, &parsed) && parsed.has_job &&
      parsed.has_task) {
    absl::StatusOr<std::string> address =
        cluster.TaskAddress(parsed.job, parsed.task);
    if (address.ok()) return absl::StrCat(task, " (", *address, ")");
  }
  return task;
}

absl::Time DeadlineAfter(absl::Duration d) {
  if (d == absl::InfiniteDuration()) return absl::InfiniteFuture();
  return absl::Now() + d;
}

}  // namespace tributary
