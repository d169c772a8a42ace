#include "common/daemon/log_format.h"

#include <chrono>
#include <utility>

#include "absl/base/const_init.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/framework/log_context.h"
#include "common/framework/status.h"
#include "nlohmann/json.hpp"
#include "spdlog/pattern_formatter.h"

namespace tributary {
namespace {

ABSL_CONST_INIT absl::Mutex task_mu(absl::kConstInit);
std::string* task_name ABSL_GUARDED_BY(task_mu) = nullptr;

std::string LogTask() {
  absl::MutexLock l(&task_mu);
  return task_name == nullptr ? std::string() : *task_name;
}

void Append(absl::string_view text, spdlog::memory_buf_t& dest) {
  dest.append(text.data(), text.data() + text.size());
}

// "%&" in the text pattern: " [step N]" inside a step's work.
class StepFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const LogContext& context = CurrentLogContext();
    if (context.step_id != 0) {
      Append(absl::StrCat(" [step ", context.step_id, "]"), dest);
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<StepFlag>();
  }
};

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg,
              spdlog::memory_buf_t& dest) override {
    nlohmann::ordered_json line;
    line["time"] =
        absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromChrono(msg.time),
                         absl::UTCTimeZone());
    const auto level = spdlog::level::to_string_view(msg.level);
    line["level"] = std::string(level.data(), level.size());
    line["logger"] =
        std::string(msg.logger_name.data(), msg.logger_name.size());
    const std::string task = LogTask();
    if (!task.empty()) line["task"] = task;
    const LogContext& context = CurrentLogContext();
    if (!context.session.empty()) line["session"] = context.session;
    if (context.step_id != 0) line["step_id"] = context.step_id;
    line["message"] = std::string(msg.payload.data(), msg.payload.size());
    // Bytes that are not UTF-8 (a graph's node names could be anything) are
    // replaced rather than failing the line.
    Append(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
           dest);
    Append("\n", dest);
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<spdlog::formatter>> NewLogFormatter(
    const std::string& format) {
  if (format == "text") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<StepFlag>('&').set_pattern(
        "[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v%&");
    return std::unique_ptr<spdlog::formatter>(std::move(formatter));
  }
  if (format == "json") {
    return std::unique_ptr<spdlog::formatter>(
        std::make_unique<JsonFormatter>());
  }
  return errors::InvalidArgument("Unknown log format '", format,
                                 "' (text or json)");
}

void SetLogTask(const std::string& task) {
  absl::MutexLock l(&task_mu);
  if (task_name == nullptr) task_name = new std::string;
  *task_name = task;
}

}  // namespace tributary
