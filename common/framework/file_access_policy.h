// FileAccessPolicy: which directories ops that touch the filesystem
// (SaveV2, RestoreV2, MergeV2Checkpoints; ReadFile/WriteFile if ever added)
// may use, so a client that can run graphs on a worker cannot read or write
// any file the worker's user can (issue 14, docs/limits.md;
// tributary-worker --allowed-path).
//
// A path is allowed when it resolves under one of the directories: the
// directories are resolved once (realpath: symlinks and ".." followed), and
// a path is resolved the same way, through its deepest existing ancestor
// for the parts that do not exist yet (a checkpoint about to be written),
// where ".." in the missing part is refused. A prefix check on the raw
// strings would let "/ckpt/../etc/passwd" or a symlink out through.
//
// An unrestricted policy (no directories) allows everything: what a local
// session and a worker started without --allowed-path do.
//
// Kernels get the policy through OpKernelContext::file_access(), which the
// worker sets per session; null means unrestricted.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_FILE_ACCESS_POLICY_H_
#define TRIBUTARY_COMMON_FRAMEWORK_FILE_ACCESS_POLICY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tributary {

class FileAccessPolicy {
 public:
  // Unrestricted.
  FileAccessPolicy() = default;

  // Only under `dirs` (each must exist and be a directory: InvalidArgument
  // naming it otherwise). An empty list is unrestricted.
  static absl::StatusOr<FileAccessPolicy> Create(
      const std::vector<std::string>& dirs);

  bool restricted() const { return !dirs_.empty(); }
  // The resolved directories.
  const std::vector<std::string>& dirs() const { return dirs_; }

  // OK when `path` may be used; PermissionDenied "<op> may not touch
  // '<path>' (resolved: <real>): it is not under an --allowed-path
  // directory (<dirs>)" otherwise. `op` names who asks ("SaveV2 (node
  // save/SaveV2)").
  absl::Status Check(absl::string_view path, absl::string_view op) const;

  // The checks for a checkpoint prefix: its directory, and every existing
  // file of the checkpoint (PREFIX.index, PREFIX.data-*) so a symlink
  // placed under an allowed directory cannot lead out of it.
  absl::Status CheckCheckpointPrefix(absl::string_view prefix,
                                     absl::string_view op) const;

  // `path` resolved as Check does (for tests and messages).
  static absl::StatusOr<std::string> Resolve(absl::string_view path);

 private:
  std::vector<std::string> dirs_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_FILE_ACCESS_POLICY_H_
