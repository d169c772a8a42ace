#include "common/daemon/daemon_memory.h"

#include "absl/time/time.h"
#include "common/framework/caching_allocator.h"
#include "spdlog/spdlog.h"

namespace tributary {

void AddHostMemoryFlags(CLI::App& app, HostMemoryFlags* flags) {
  app.add_option("--host-cache-bytes", flags->cache_bytes,
                 "Most bytes of freed tensor memory kept for reuse by later "
                 "steps (0: none); default: $TRIBUTARY_ALLOCATOR_CACHE_BYTES, "
                 "else 1/8 of physical memory")
      ->type_name("BYTES")
      ->default_str("auto")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--host-cache-idle-s", flags->idle_s,
                 "Give back to the system cached tensor memory unused for "
                 "this many seconds, and the allocator's free heap pages, so "
                 "an idle daemon returns to its baseline; 0: keep them")
      ->type_name("S")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

std::unique_ptr<HostMemoryReleaser> StartHostMemoryRelease(
    const HostMemoryFlags& flags) {
  const std::shared_ptr<HostBlockCache>& cache = HostBlockCache::Global();
  if (flags.cache_bytes >= 0) {
    cache->set_max_cached_bytes(static_cast<size_t>(flags.cache_bytes));
  }
  if (flags.idle_s <= 0) {
    spdlog::info("host memory: cache up to {} bytes, kept while idle",
                 cache->max_cached_bytes());
    return nullptr;
  }
  spdlog::info(
      "host memory: cache up to {} bytes; memory unused for {} s is given "
      "back",
      cache->max_cached_bytes(), flags.idle_s);
  return std::make_unique<HostMemoryReleaser>(cache,
                                              absl::Seconds(flags.idle_s));
}

}  // namespace tributary
