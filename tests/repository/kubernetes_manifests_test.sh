#!/usr/bin/env bash
# Runs kubernetes_manifests_test.py with Debian's Python (python3-yaml); one
# JUnit case per check.
set -euo pipefail
exec /usr/bin/python3 tests/interop/junit_runner.py \
  tests/repository/kubernetes_manifests_test.py "$@"
