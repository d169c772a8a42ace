#include "tests/fuzz/fuzz_check.h"

#include <cstdio>
#include <cstdlib>
#include <string>

// SetLogHandler: protobuf 3.21's public logging hook lives in stubs/.
#include "google/protobuf/stubs/logging.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace fuzz {
namespace {

// Fuzzers feed millions of bad inputs; protobuf's parse warnings and the
// daemons' log lines about each would cost more than the work itself.
// Findings are printed by Check, never logged.
const bool kQuiet = [] {
  google::protobuf::SetLogHandler(nullptr);
  spdlog::set_level(spdlog::level::off);
  return true;
}();

}  // namespace

void Check(bool condition, absl::string_view what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz property broken: %s\n", std::string(what).c_str());
  std::abort();
}

void CheckErrorCode(const absl::Status& status,
                    std::initializer_list<absl::StatusCode> allowed,
                    absl::string_view what) {
  if (status.ok()) return;
  Check(!status.message().empty(),
        std::string(what) + ": error without a message: " + status.ToString());
  for (absl::StatusCode code : allowed) {
    if (status.code() == code) return;
  }
  Check(false, std::string(what) + ": unexpected code: " + status.ToString());
}

}  // namespace fuzz
}  // namespace tributary
