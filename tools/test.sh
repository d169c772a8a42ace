#!/usr/bin/env bash
# Runs Tributary's whole test suite: installs what it needs, builds, runs every test
# (unit, integration and TensorFlow interop), then prints one closing line
#   N passed, M failed[, K skipped]
# counting individual test cases (gtest cases and interop checks), not Bazel targets.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tools/setup.sh --tests

export TRIBUTARY_TF_VENV="${TRIBUTARY_TF_VENV:-$HOME/.cache/tributary/tf-venv}"

log="$(mktemp -t tributary-test.XXXXXX)"
bazel test //... --keep_going "$@" >"$log" 2>&1
bazel_rc=$?
# Bazel's own summary (which targets passed or failed), without sandbox chatter.
grep -vE 'linux-sandbox' "$log" | grep -E '(PASSED|FAILED|SKIPPED|NO STATUS|TIMEOUT|ERROR|Executed|FAIL:)' | tail -n 80

# libFuzzer on the parser targets, briefly (docs/testing.md "Fuzzing"); the
# service targets' seeds and every target's past findings were replayed above.
fuzz_xml="$(mktemp -t tributary-fuzz.XXXXXX)"
tools/fuzz.sh --ci --junit "$fuzz_xml" >"$log.fuzz" 2>&1
tail -n 12 "$log.fuzz"

labels="$(mktemp -t tributary-labels.XXXXXX)"
# What `bazel test //...` runs: tests tagged manual are left out of it (and of the count).
bazel query 'tests(//...) except attr("tags", "manual", tests(//...))' 2>/dev/null >"$labels"
python3 tools/count_test_results.py "$(bazel info bazel-testlogs 2>/dev/null)" "$labels" "$bazel_rc" "$fuzz_xml"
