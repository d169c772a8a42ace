#include "master/device_discovery.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "master/worker_calls.h"

namespace tributary {
namespace {

// Whether the job/replica/task fields `filter` sets agree with `task`.
bool TaskFieldsMatch(const DeviceNameUtils::ParsedName& filter,
                     const DeviceNameUtils::ParsedName& task) {
  if (filter.has_job && (!task.has_job || filter.job != task.job)) return false;
  if (filter.has_replica &&
      (!task.has_replica || filter.replica != task.replica)) {
    return false;
  }
  if (filter.has_task && (!task.has_task || filter.task != task.task)) {
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<DeviceFilters> DeviceFilters::Parse(
    const google::protobuf::RepeatedPtrField<std::string>& filters) {
  DeviceFilters out;
  for (const std::string& f : filters) {
    DeviceNameUtils::ParsedName parsed;
    if (!DeviceNameUtils::ParseFullName(f, &parsed)) {
      return errors::InvalidArgument(
          "Invalid device filter '", f,
          "': want a device specification such as /job:ps, "
          "/job:worker/task:1 or /job:worker/replica:0/task:0/device:CPU:0");
    }
    out.text_.push_back(f);
    out.filters_.push_back(parsed);
  }
  return out;
}

bool DeviceFilters::MatchesTask(absl::string_view task) const {
  if (filters_.empty()) return true;
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(task, &parsed)) return false;
  for (const auto& f : filters_) {
    if (TaskFieldsMatch(f, parsed)) return true;
  }
  return false;
}

bool DeviceFilters::MatchesDevice(absl::string_view device) const {
  if (filters_.empty()) return true;
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(device, &parsed)) return false;
  for (const auto& f : filters_) {
    if (DeviceNameUtils::IsSpecification(f, parsed)) return true;
  }
  return false;
}

std::string DeviceFilters::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(text_, ", "), "]");
}

std::vector<std::string> FilteredTasks(const MasterEnv& env,
                                       const DeviceFilters& filters) {
  std::vector<std::string> out;
  for (const std::string& task : env.worker_cache->ListWorkers()) {
    if (filters.MatchesTask(task)) out.push_back(task);
  }
  return out;
}

absl::StatusOr<std::vector<TaskDevices>> DiscoverDevices(
    const MasterEnv& env, const std::vector<std::string>& tasks,
    const DeviceFilters& filters, absl::Time deadline, absl::Duration timeout,
    CallOptions* caller) {
  using Group = WorkerCallGroup<tensorflow::GetStatusRequest,
                                tensorflow::GetStatusResponse>;
  Group group;
  const absl::Time now = absl::Now();
  std::vector<bool> may_be_starting;
  // How long each call was given, for the error message.
  std::vector<absl::Duration> patience;
  // The wait ends when the last call's own bound does.
  absl::Time wait_until = absl::InfinitePast();
  for (const std::string& task : tasks) {
    TRIB_ASSIGN_OR_RETURN(std::shared_ptr<WorkerInterface> worker,
                          env.worker_cache->GetWorker(task));
    // A task that is connected is up, only busy: the soak test saw a
    // worker under 64 clients on two cores take more than the patience to
    // answer, and sessions fail as if it were down. Wait for it as usual.
    const bool connected = worker->HasLiveConnection();
    Group::Call* call = group.Add(task, std::move(worker));
    may_be_starting.push_back(env.liveness == nullptr ||
                              env.liveness->MayBeStarting(task, now));
    if (!may_be_starting.back() && !connected) {
      call->deadline = now + kDownTaskPatience;
    }
    patience.push_back(std::min(deadline, call->deadline) - now);
    wait_until = std::max(wait_until, std::min(deadline, call->deadline));
  }
  group.Start(deadline, StartGetStatus);
  if (caller != nullptr) caller->SetCancelCallback(group.Canceller());
  const bool all_done = group.WaitAll(wait_until);
  if (caller != nullptr) {
    caller->ClearCancelCallback();
    if (caller->IsCancelled()) {
      return errors::Cancelled("Worker discovery was cancelled by the caller");
    }
  }
  std::vector<absl::Status> statuses;
  for (size_t i = 0; i < group.size(); ++i) {
    statuses.push_back(group.status(
        i, errors::DeadlineExceeded(
               "no answer (the task is not running or not reachable)")));
    if (statuses.back().ok() && env.liveness != nullptr) {
      env.liveness->MarkAnswered(tasks[i]);
    }
  }
  // Calls still in flight are abandoned; cancelling frees their transport
  // resources now rather than at their own deadline.
  if (!all_done) group.CancelAll();

  // A task that is down is reported before one that may still be starting:
  // its Aborted is the answer (see task_liveness.h).
  const int64_t timeout_ms = absl::ToInt64Milliseconds(timeout);
  std::vector<std::string> failed;
  absl::Status first;
  for (int pass = 0; pass < 2; ++pass) {
    const bool down_pass = pass == 0;
    for (size_t i = 0; i < group.size(); ++i) {
      const absl::Status& s = statuses[i];
      if (s.ok() || may_be_starting[i] == down_pass) continue;
      if (!first.ok()) {
        failed.push_back(tasks[i]);
      } else if (down_pass) {
        const bool answered =
            env.liveness != nullptr && env.liveness->Answered(tasks[i]);
        first = errors::Aborted(
            "Task ", env.DescribeTask(tasks[i]), " is down: ",
            answered ? "it answered this master before and"
                     : "the cluster has been up for a while and it",
            " did not answer GetStatus within ",
            absl::ToInt64Milliseconds(patience[i]), " ms: ", s.message(),
            ". Restart it, or leave it out of the session with "
            "ConfigProto.device_filters");
      } else {
        first = errors::Unavailable("Task ", env.DescribeTask(tasks[i]),
                                    " did not answer GetStatus within ",
                                    timeout_ms, " ms: ", s.message());
      }
    }
  }
  if (!first.ok()) {
    if (!failed.empty()) {
      return absl::Status(first.code(),
                          absl::StrCat(first.message(), " (", failed.size(),
                                       " more task(s) did not answer either: ",
                                       absl::StrJoin(failed, ", "), ")"));
    }
    return first;
  }

  std::vector<TaskDevices> out;
  for (size_t i = 0; i < group.size(); ++i) {
    TaskDevices td;
    td.task = tasks[i];
    for (const tensorflow::DeviceAttributes& d :
         group.call(i).response.device_attributes()) {
      absl::StatusOr<std::string> owner = TaskNameOf(d.name());
      if (!owner.ok() || *owner != tasks[i]) {
        return errors::FailedPrecondition(
            "Task ", env.DescribeTask(tasks[i]), " reported device '", d.name(),
            "', which is not one of its own: the cluster spec's address for "
            "this task reaches a worker started as another task");
      }
      if (filters.MatchesDevice(d.name())) td.devices.push_back(d);
    }
    out.push_back(std::move(td));
  }
  return out;
}

std::string DefaultTask(const std::vector<std::string>& tasks) {
  const std::string preferred = "/job:worker/replica:0/task:0";
  if (std::find(tasks.begin(), tasks.end(), preferred) != tasks.end()) {
    return preferred;
  }
  return tasks.empty() ? std::string() : tasks.front();
}

}  // namespace tributary
