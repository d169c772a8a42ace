#include "devices/gpu/gpu_log.h"

#include <memory>

#include "spdlog/sinks/stdout_color_sinks.h"

namespace tributary {

spdlog::logger& GpuLog() {
  std::shared_ptr<spdlog::logger> configured = spdlog::default_logger();
  if (configured != nullptr && !configured->name().empty()) return *configured;
  // Made once; spdlog's registry keeps it alive.
  static std::shared_ptr<spdlog::logger>* const to_stderr =
      new std::shared_ptr<spdlog::logger>(
          spdlog::stderr_color_mt("tributary-gpu"));
  return **to_stderr;
}

}  // namespace tributary
