#!/usr/bin/env bash
# Runs health_and_reflection_test.py with Debian's Python, whose python3-grpcio
# (tools/setup.sh --tests) is the client; one JUnit case per check.
set -euo pipefail
exec /usr/bin/python3 tests/interop/junit_runner.py \
  tests/distributed/health_and_reflection_test.py "$@"
