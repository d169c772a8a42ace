#!/usr/bin/env bash
# Runs json_logs_test.py (system Python); one JUnit case per check.
set -euo pipefail
exec python3 tests/interop/junit_runner.py tests/distributed/json_logs_test.py "$@"
