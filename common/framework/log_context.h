#ifndef TRIBUTARY_COMMON_FRAMEWORK_LOG_CONTEXT_H_
#define TRIBUTARY_COMMON_FRAMEWORK_LOG_CONTEXT_H_

// What the lines a thread logs are about beyond their text: the session and
// the step it is working on, so one step can be followed through the logs of
// every task it ran on (the master and the workers log the same step id).
// The daemons' log formats read it (common/daemon/log_format.h): JSON lines
// carry "session" and "step_id" fields, text lines end in "[step N]".
//
// Per thread: set it around the work of a step with ScopedLogContext, again
// in the callbacks that continue that work on other threads.

#include <cstdint>
#include <string>

namespace tributary {

struct LogContext {
  std::string session;  // "" when none
  int64_t step_id = 0;  // 0 when none
};

// This thread's context (empty outside any ScopedLogContext).
const LogContext& CurrentLogContext();

// Sets this thread's context for its lifetime, then restores the one before.
class ScopedLogContext {
 public:
  ScopedLogContext(std::string session, int64_t step_id);
  ~ScopedLogContext();
  ScopedLogContext(const ScopedLogContext&) = delete;
  ScopedLogContext& operator=(const ScopedLogContext&) = delete;

 private:
  LogContext saved_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_LOG_CONTEXT_H_
