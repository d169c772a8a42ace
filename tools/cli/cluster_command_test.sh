#!/usr/bin/env bash
# Runs cluster_command_test.py (system Python) with one JUnit case per check,
# against the tributary binary and the daemons Bazel built.
set -euo pipefail
exec python3 tests/interop/junit_runner.py tools/cli/cluster_command_test.py "$@"
