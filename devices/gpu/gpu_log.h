#ifndef TRIBUTARY_DEVICES_GPU_GPU_LOG_H_
#define TRIBUTARY_DEVICES_GPU_GPU_LOG_H_

// Where the GPU device logs what it found ("GPU 0: NVIDIA H200 ...", "no GPU
// devices: ..."): the process's own logger when it configured one (the
// daemons and the CLI name theirs), else standard error. Never spdlog's
// unnamed default, which writes to standard output, where programs that
// link the local runtime print their results.

#include "spdlog/spdlog.h"

namespace tributary {

spdlog::logger& GpuLog();

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_LOG_H_
