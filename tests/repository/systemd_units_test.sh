#!/usr/bin/env bash
# Runs systemd_units_test.py with one JUnit case per check (a skip is reported
# as skipped).
set -euo pipefail
exec python3 tests/interop/junit_runner.py tests/repository/systemd_units_test.py "$@"
