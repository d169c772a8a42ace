#ifndef TRIBUTARY_MASTER_DEVICE_DISCOVERY_H_
#define TRIBUTARY_MASTER_DEVICE_DISCOVERY_H_

// Which tasks a session uses and which devices they have: device filters
// (ConfigProto.device_filters, ResetRequest.device_filters) and worker
// discovery by GetStatus, bounded so that a task that cannot be reached
// gives Unavailable naming it instead of a hang (TensorFlow's master waits
// forever here: tensorflow/tensorflow#14489).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/device/device_name_utils.h"
#include "common/distributed/call_options.h"
#include "google/protobuf/repeated_field.h"
#include "master/master_env.h"
#include "protos/device_attributes.pb.h"

namespace tributary {

// TensorFlow's device filters: a task takes part when some filter names its
// job/replica/task (fields a filter leaves out match anything), and of its
// devices those matching some filter are used. No filters: everything.
class DeviceFilters {
 public:
  // InvalidArgument naming a filter that is not a device specification.
  static absl::StatusOr<DeviceFilters> Parse(
      const google::protobuf::RepeatedPtrField<std::string>& filters);

  bool empty() const { return filters_.empty(); }
  bool MatchesTask(absl::string_view task) const;
  bool MatchesDevice(absl::string_view device) const;
  std::string DebugString() const;

 private:
  std::vector<std::string> text_;
  std::vector<DeviceNameUtils::ParsedName> filters_;
};

// Every task of the cluster that `filters` admit, in job then task order.
std::vector<std::string> FilteredTasks(const MasterEnv& env,
                                       const DeviceFilters& filters);

struct TaskDevices {
  std::string task;
  std::vector<tensorflow::DeviceAttributes> devices;
};

// GetStatus on every task of `tasks` at once; each call and the whole wait
// end at `deadline` (`timeout` is what the caller allowed, for messages),
// except that a task env.liveness deems down gets kDownTaskPatience
// (master/task_liveness.h). Tasks that answer are marked in env.liveness.
// Devices are filtered by `filters`. Errors, for the first failed task in
// task order (down tasks first), listing the others that also failed:
//  * Aborted "Task /job:worker/replica:0/task:1 (127.0.0.1:1234) is down:
//    ..." when a task that is down did not answer;
//  * Unavailable "Task ... did not answer GetStatus within 30000 ms:
//    <cause>" when only tasks that may still be starting did not;
//  * FailedPrecondition when a task reports a device of another task (its
//    address in the cluster spec points at a different worker).
// `caller` (may be null): cancelling it stops the discovery (Cancelled).
absl::StatusOr<std::vector<TaskDevices>> DiscoverDevices(
    const MasterEnv& env, const std::vector<std::string>& tasks,
    const DeviceFilters& filters, absl::Time deadline, absl::Duration timeout,
    CallOptions* caller = nullptr);

// The task that holds the client device and unplaced nodes:
// /job:worker/replica:0/task:0 when present, else the first task.
std::string DefaultTask(const std::vector<std::string>& tasks);

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_DEVICE_DISCOVERY_H_
