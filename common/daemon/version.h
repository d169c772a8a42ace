#ifndef TRIBUTARY_COMMON_DAEMON_VERSION_H_
#define TRIBUTARY_COMMON_DAEMON_VERSION_H_

// What every binary answers to --version: the release (the repository's
// VERSION file) and the commit it was built from (Bazel's workspace status,
// tools/workspace_status.sh; "unknown" outside a git checkout, "-dirty" with
// uncommitted changes). "tributary-worker 0.15.0 (commit 0123456789ab)".

#include <string>

namespace tributary {

// "0.15.0".
const char* TributaryVersion();
// "0123456789ab", "0123456789ab-dirty" or "unknown".
const char* TributaryCommit();
// "<program> <version> (commit <commit>)".
std::string VersionLine(const std::string& program);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_VERSION_H_
