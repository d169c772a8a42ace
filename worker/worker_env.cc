#include "worker/worker_env.h"

namespace tributary {

bool IsDeviceOfTask(const DeviceNameUtils::ParsedName& device,
                    const DeviceNameUtils::ParsedName& task) {
  if (device.has_job && task.has_job && device.job != task.job) return false;
  if (device.has_replica && task.has_replica &&
      device.replica != task.replica) {
    return false;
  }
  if (device.has_task && task.has_task && device.task != task.task) {
    return false;
  }
  return true;
}

}  // namespace tributary
