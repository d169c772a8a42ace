#!/usr/bin/env bash
# Runs metrics_test.py (system Python; promtool and prometheus from Debian's
# prometheus package, tools/setup.sh --tests); one JUnit case per check.
set -euo pipefail
exec python3 tests/interop/junit_runner.py tests/distributed/metrics_test.py "$@"
