#ifndef TRIBUTARY_COMMON_DAEMON_LOG_FORMAT_H_
#define TRIBUTARY_COMMON_DAEMON_LOG_FORMAT_H_

// The daemons' two log formats (--log-format), both one line per message on
// stderr:
//   text  "[2026-11-28 02:40:00.123] [worker] [info] message [step 42]"
//         (local time; the step part only inside a step's work);
//   json  {"time": "2026-11-28T02:40:00.123Z", "level": "info",
//          "logger": "worker", "task": "/job:worker/replica:0/task:0",
//          "session": "...", "step_id": 42, "message": "..."}
//         (UTC; "task" once SetLogTask named it, "session" and "step_id"
//         only inside a step's work: common/framework/log_context.h), for
//         log collectors that index fields (Loki, Elasticsearch, journald's
//         JSON export) and to follow one step across tasks by its id.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "spdlog/formatter.h"

namespace tributary {

inline constexpr char kLogFormatHelp[] =
    "Log line format: text (human-readable) or json (one JSON object per "
    "line: time, level, task, session, step_id, message)";

// The formatter for `format` ("text" or "json"); InvalidArgument naming it
// otherwise.
absl::StatusOr<std::unique_ptr<spdlog::formatter>> NewLogFormatter(
    const std::string& format);

// The "task" of JSON lines from now on: "/job:worker/replica:0/task:0", or
// "master". Thread-safe.
void SetLogTask(const std::string& task);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_LOG_FORMAT_H_
