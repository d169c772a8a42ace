#!/usr/bin/env bash
# Runs secure_cluster_test.py (system Python) with one JUnit case per check,
# against the tributary binary and the daemons Bazel built.
set -euo pipefail
exec python3 tests/interop/junit_runner.py tools/cli/secure_cluster_test.py "$@"
