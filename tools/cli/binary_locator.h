// Finds the daemon binaries `tributary cluster up` starts.
//
// In order, the first that exists and is executable:
//   1. the explicit path (--worker-binary / --master-binary), which must
//      then exist: a wrong flag is an error, not a fallback;
//   2. next to the tributary binary (an install: /usr/local/bin/tributary
//      beside /usr/local/bin/tributary-worker);
//   3. the Bazel output layout: <package>/<name> under the binary's
//      directory or one of its ancestors (bazel-bin/tools/tributary ->
//      bazel-bin/worker/tributary-worker), and the binary's runfiles tree
//      (`bazel run`, tests), where the cli target's data deps put them;
//   4. a directory of $PATH.
#ifndef TRIBUTARY_TOOLS_CLI_BINARY_LOCATOR_H_
#define TRIBUTARY_TOOLS_CLI_BINARY_LOCATOR_H_

#include <string>

#include "absl/status/statusor.h"

namespace tributary {

struct DaemonBinary {
  std::string name;     // "tributary-worker"
  std::string package;  // Its Bazel package: "worker".
  std::string flag;     // For error messages: "--worker-binary".
};

inline const DaemonBinary kWorkerBinary{"tributary-worker", "worker",
                                        "--worker-binary"};
inline const DaemonBinary kMasterBinary{"tributary-master", "master",
                                        "--master-binary"};

// `explicit_path`: the flag's value ("" when not given). `self_path`: the
// running tributary binary (SelfExecutablePath()). `path_env`: $PATH's
// value. NotFound listing every place looked at.
absl::StatusOr<std::string> LocateDaemonBinary(const DaemonBinary& daemon,
                                               const std::string& explicit_path,
                                               const std::string& self_path,
                                               const std::string& path_env);

// /proc/self/exe resolved; "" if unreadable.
std::string SelfExecutablePath();

// An absolute form of `path` (relative paths against the working
// directory), without resolving symlinks.
std::string AbsolutePath(const std::string& path);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_BINARY_LOCATOR_H_
