#!/usr/bin/env bash
# Runs top_test.py (system Python); one JUnit case per check.
set -euo pipefail
exec python3 tests/interop/junit_runner.py tests/distributed/top_test.py "$@"
