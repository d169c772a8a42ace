#include "common/daemon/version.h"

#include "absl/strings/str_cat.h"
#include "common/daemon/version_stamp.h"

namespace tributary {

const char* TributaryVersion() { return kTributaryVersionStamp; }
const char* TributaryCommit() { return kTributaryCommitStamp; }

std::string VersionLine(const std::string& program) {
  return absl::StrCat(program, " ", TributaryVersion(), " (commit ",
                      TributaryCommit(), ")");
}

}  // namespace tributary
