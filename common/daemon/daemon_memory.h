#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_MEMORY_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_MEMORY_H_

// The host-memory flags both daemons take, written once for both mains
// (docs/operations.md "Memory on the tensor path"):
//   --host-cache-bytes BYTES  cap on freed tensor blocks kept for reuse
//                             (default: $TRIBUTARY_ALLOCATOR_CACHE_BYTES,
//                             else 1/8 of physical memory);
//   --host-cache-idle-s S     give back cached blocks unused for S seconds
//                             and glibc's free heap pages (default 30; 0:
//                             keep them).
//
//   HostMemoryFlags memory;
//   AddHostMemoryFlags(app, &memory);
//   ... parse, InitDaemonLogging ...
//   auto releaser = StartHostMemoryRelease(memory);  // logs; keep it alive

#include <cstdint>
#include <memory>

#include "CLI/CLI.hpp"
#include "common/framework/host_memory_releaser.h"

namespace tributary {

struct HostMemoryFlags {
  int64_t cache_bytes = -1;  // -1: the environment's or the default cap
  int64_t idle_s = 30;
};

void AddHostMemoryFlags(CLI::App& app, HostMemoryFlags* flags);

// Sets the process-wide cache's cap and starts the releaser (null with
// idle_s == 0); logs both.
std::unique_ptr<HostMemoryReleaser> StartHostMemoryRelease(
    const HostMemoryFlags& flags);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_MEMORY_H_
