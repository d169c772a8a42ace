// TestDevice (testonly): the smallest concrete Device, for tests that need
// a named device but not a real one. It keeps Device's default Compute and
// ComputeAsync (run the kernel inline), so executor tests can run kernels
// on it; tests that never run kernels simply never call them.
//
//   test::TestDevice cpu("/job:localhost/replica:0/task:0/device:CPU:0");
//   test::TestDevice chip(name, "FAKE", "fake chip");
//   test::TestDevice exact(Device::BuildDeviceAttributes(...));
#ifndef TRIBUTARY_COMMON_DEVICE_TEST_DEVICE_H_
#define TRIBUTARY_COMMON_DEVICE_TEST_DEVICE_H_

#include <string>
#include <utility>

#include "common/device/device.h"
#include "protos/device_attributes.pb.h"

namespace tributary {
namespace test {

class TestDevice : public Device {
 public:
  // `attributes` as given: for tests of the attributes themselves.
  explicit TestDevice(tensorflow::DeviceAttributes attributes)
      : Device(std::move(attributes)) {}
  // A device of `type` named `name` (a full device name), no memory limit.
  explicit TestDevice(const std::string& name, const std::string& type = "CPU",
                      const std::string& description = "")
      : Device(BuildDeviceAttributes(name, type, 0, description)) {}
};

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DEVICE_TEST_DEVICE_H_
