#include "common/framework/log_context.h"

#include <utility>

namespace tributary {
namespace {
thread_local LogContext current;
}  // namespace

const LogContext& CurrentLogContext() { return current; }

ScopedLogContext::ScopedLogContext(std::string session, int64_t step_id)
    : saved_(std::move(current)) {
  current.session = std::move(session);
  current.step_id = step_id;
}

ScopedLogContext::~ScopedLogContext() { current = std::move(saved_); }

}  // namespace tributary
