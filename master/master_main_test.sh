#!/usr/bin/env bash
# Runs master_main_test.py (system Python) with one JUnit case per check,
# against the tributary-master binary built by Bazel.
set -euo pipefail
exec python3 tests/interop/junit_runner.py master/master_main_test.py "$@"
