#!/usr/bin/env bash
# Runs package_test.py (system Python); one JUnit case per check.
set -euo pipefail
exec python3 tests/interop/junit_runner.py tools/package_test.py "$@"
