#!/usr/bin/env bash
# A fuzz target's regression test (fuzz_target.bzl): writes the target's seed
# corpus, then runs the target once on every seed and on every past finding
# under tests/fuzz/regressions/TARGET/. Any crash, sanitizer report or hang
# (Bazel's timeout) fails it.
#   replay_test.sh TARGET_BINARY FUZZ_SEEDS_BINARY TARGET_NAME
set -euo pipefail
target="$1" seeds_tool="$2" name="$3"
corpus="${TEST_TMPDIR:-$(mktemp -d)}/seeds"
"$seeds_tool" --graphs tests/testdata/tf_graphs --out "$corpus" --target "$name"
inputs=("$corpus/$name")
regressions="tests/fuzz/regressions/$name"
if [[ -d "$regressions" ]]; then inputs+=("$regressions"); fi
"$target" -runs=0 "${inputs[@]}"
