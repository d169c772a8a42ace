#!/usr/bin/env bash
# Runs one multi-host test module (system Python, stdlib only) with one JUnit case
# per test through tests/interop/junit_runner.py. The tests make network
# namespaces, so their targets are tagged no-sandbox and exclusive; without root
# or iproute2 each case reports "skipped" with the reason.
set -euo pipefail
exec python3 tests/interop/junit_runner.py "$@"
