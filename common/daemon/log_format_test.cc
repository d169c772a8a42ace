#include "common/daemon/log_format.h"

#include <memory>
#include <sstream>
#include <string>

#include "common/framework/log_context.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

// A logger writing into `out` in `format`.
std::shared_ptr<spdlog::logger> LoggerInto(std::ostringstream* out,
                                           const std::string& format) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*out);
  auto logger = std::make_shared<spdlog::logger>("worker", sink);
  auto formatter = NewLogFormatter(format);
  EXPECT_TRUE(formatter.ok()) << formatter.status();
  logger->set_formatter(std::move(*formatter));
  logger->set_level(spdlog::level::debug);
  return logger;
}

TEST(LogFormatTest, JsonLinesCarryTheTaskAndTheStepTheyAreAbout) {
  std::ostringstream out;
  auto logger = LoggerInto(&out, "json");
  SetLogTask("/job:worker/replica:0/task:1");
  logger->info("outside any step");
  {
    ScopedLogContext step("session-a", 42);
    logger->warn("a \"quoted\"\nline \xff");
  }
  logger->debug("after");
  std::istringstream lines(out.str());
  std::string line;
  std::vector<nlohmann::json> parsed;
  while (std::getline(lines, line))
    parsed.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(parsed.size(), 3u) << out.str();
  EXPECT_EQ(parsed[0]["level"], "info");
  EXPECT_EQ(parsed[0]["logger"], "worker");
  EXPECT_EQ(parsed[0]["task"], "/job:worker/replica:0/task:1");
  EXPECT_EQ(parsed[0]["message"], "outside any step");
  EXPECT_FALSE(parsed[0].contains("step_id"));
  EXPECT_FALSE(parsed[0].contains("session"));
  EXPECT_EQ(parsed[1]["level"], "warning");
  EXPECT_EQ(parsed[1]["session"], "session-a");
  EXPECT_EQ(parsed[1]["step_id"], 42);
  // Quotes and newlines escaped; a byte that is not UTF-8 replaced.
  EXPECT_EQ(parsed[1]["message"], "a \"quoted\"\nline \xef\xbf\xbd");
  EXPECT_FALSE(parsed[2].contains("step_id"));
  const std::string time = parsed[0]["time"];
  EXPECT_EQ(time.size(), 24u) << time;  // 2026-11-28T02:40:00.123Z
  EXPECT_EQ(time.back(), 'Z');
}

TEST(LogFormatTest, TextLinesEndWithTheStep) {
  std::ostringstream out;
  auto logger = LoggerInto(&out, "text");
  {
    ScopedLogContext outer("s", 7);
    {
      ScopedLogContext inner("s", 8);
      logger->info("inner");
    }
    logger->info("outer");
  }
  logger->info("none");
  const std::string text = out.str();
  EXPECT_NE(text.find("[worker] [info] inner [step 8]\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[worker] [info] outer [step 7]\n"), std::string::npos);
  EXPECT_NE(text.find("[worker] [info] none\n"), std::string::npos);
}

TEST(LogFormatTest, UnknownFormatsAreRefused) {
  auto formatter = NewLogFormatter("xml");
  EXPECT_EQ(formatter.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(formatter.status().message()).find("xml"),
            std::string::npos);
}

}  // namespace
}  // namespace tributary
