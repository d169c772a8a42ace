#!/usr/bin/env bash
# Bazel's workspace status (.bazelrc: --workspace_status_command): the commit the
# binaries are built from, for their --version (common/daemon/version.h). Outside
# a git checkout (a source tarball, a container build context) it says "unknown".
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD -- 2>/dev/null; then
  commit="$commit-dirty"
fi
echo "STABLE_TRIBUTARY_COMMIT $commit"
