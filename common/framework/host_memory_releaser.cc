#include "common/framework/host_memory_releaser.h"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <utility>

namespace tributary {
namespace {

// CPU time this process used so far.
absl::Duration ProcessCpuTime() {
  timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) {
    return absl::ZeroDuration();
  }
  return absl::DurationFromTimespec(ts);
}

// Below this share of one core over a period, the process counts as idle.
constexpr double kIdleCpuShare = 0.05;

}  // namespace

HostMemoryReleaser::HostMemoryReleaser(std::shared_ptr<HostBlockCache> cache,
                                       absl::Duration idle,
                                       absl::Duration period)
    : cache_(std::move(cache)),
      idle_(idle),
      period_(period > absl::ZeroDuration()
                  ? period
                  : std::max(idle / 4, absl::Milliseconds(100))) {
  thread_ = std::thread([this] { Loop(); });
}

HostMemoryReleaser::~HostMemoryReleaser() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  thread_.join();
}

size_t HostMemoryReleaser::ReleaseNow(bool process_idle) {
  const size_t released =
      cache_ != nullptr ? cache_->ReleaseIdle(absl::ToChronoNanoseconds(idle_))
                        : 0;
  if (process_idle) malloc_trim(0);
  return released;
}

void HostMemoryReleaser::Loop() {
  absl::MutexLock l(&mu_);
  absl::Duration cpu = ProcessCpuTime();
  absl::Time wall = absl::Now();
  while (true) {
    auto stopped = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
    if (mu_.AwaitWithTimeout(absl::Condition(&stopped), period_)) return;
    mu_.Unlock();
    const absl::Duration cpu_now = ProcessCpuTime();
    const absl::Time wall_now = absl::Now();
    ReleaseNow(/*process_idle=*/cpu_now - cpu <
               kIdleCpuShare * (wall_now - wall));
    // What this round used counts toward the next period: a trim that had
    // much to give back may skip one round.
    cpu = cpu_now;
    wall = wall_now;
    mu_.Lock();
  }
}

}  // namespace tributary
