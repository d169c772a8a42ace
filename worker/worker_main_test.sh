#!/usr/bin/env bash
# Runs worker_main_test.py (system Python) with one JUnit case per check,
# against the tributary-worker binary built by Bazel.
set -euo pipefail
exec python3 tests/interop/junit_runner.py worker/worker_main_test.py "$@"
