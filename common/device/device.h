#ifndef TRIBUTARY_COMMON_DEVICE_DEVICE_H_
#define TRIBUTARY_COMMON_DEVICE_DEVICE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "common/kernel/device_base.h"
#include "common/device/device_name_utils.h"
#include "protos/device_attributes.pb.h"

namespace tributary {

// Defined by the kernel library (common/kernel/op_kernel.h); only pointers
// cross this header, so including it does not pull in every kernel header.
class OpKernel;
class AsyncOpKernel;
class OpKernelContext;

// A named place that runs kernels and owns memory: one CPU, one GPU, ...
// The executor calls Compute for every kernel placed here, so a device can
// wrap each kernel run (a GPU device sets its stream first).
class Device : public DeviceBase {
 public:
  // `attributes.name()` must be a full device name such as
  // "/job:worker/replica:0/task:1/device:CPU:0": device factories build it
  // with DeviceNameUtils::FullName, so a bad name is a programming error and
  // is CHECKed. An incarnation of 0 ("unset") is replaced by a fresh one.
  explicit Device(tensorflow::DeviceAttributes attributes);
  ~Device() override;

  const tensorflow::DeviceAttributes& attributes() const { return attributes_; }
  const std::string& name() const override { return attributes_.name(); }
  // "CPU", "GPU", ... (TensorFlow's DEVICE_CPU / DEVICE_GPU strings).
  const std::string& device_type() const { return attributes_.device_type(); }
  const DeviceNameUtils::ParsedName& parsed_name() const {
    return parsed_name_;
  }
  // Random and non-zero; changes whenever the process restarts, so a peer
  // can tell a restarted worker from the one it talked to before.
  uint64_t incarnation() const { return attributes_.incarnation(); }

  // Runs a synchronous kernel. The executor calls this rather than
  // op_kernel->Compute so a device can wrap every kernel it runs (a GPU
  // device makes its stream current first). The default just runs it.
  //
  // Defined in device.cc, which includes common/kernel/op_kernel.h: the
  // kernel library depends only on :device_base, so :device may depend on
  // it without a cycle.
  virtual void Compute(OpKernel* op_kernel, OpKernelContext* context);

  // Runs an asynchronous kernel; `done` (AsyncOpKernel::DoneCallback) is
  // called exactly once, when the kernel has finished. The default calls
  // op_kernel->ComputeAsync(context, done).
  virtual void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                            std::function<void()> done);

  // Blocks until all work queued on this device has finished. CPU kernels
  // finish inside Compute, so the default has nothing to wait for.
  virtual absl::Status Sync();

  // "name (type, incarnation 0x...)" for logs and error messages.
  std::string DebugString() const;

  // Attributes for a new device with a fresh incarnation. `name` is the full
  // device name, `device_type` e.g. "CPU".
  static tensorflow::DeviceAttributes BuildDeviceAttributes(
      const std::string& name, const std::string& device_type,
      int64_t memory_limit, const std::string& physical_device_desc);

 private:
  tensorflow::DeviceAttributes attributes_;
  DeviceNameUtils::ParsedName parsed_name_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DEVICE_DEVICE_H_
