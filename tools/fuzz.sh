#!/usr/bin/env bash
# Runs Tributary's libFuzzer targets (tests/fuzz; docs/testing.md "Fuzzing").
#
#   tools/fuzz.sh                    every target for 20 s (a few minutes in all)
#   tools/fuzz.sh TARGET [SECONDS]   one target (default 600 s); "all" for every one
#   tools/fuzz.sh --list             the targets
#   tools/fuzz.sh --ci [--junit F]   what CI runs (tools/test.sh): the parser targets
#                                    for 10 s each, one JUnit case per target in F
#
# Builds the targets with clang-14, libFuzzer, ASan and UBSan (--config=fuzz) in
# an output base of their own (~/.cache/tributary/bazel-fuzz/<checkout>), so
# the default build stays as it is. Each target
# starts from its seed corpus (tests/fuzz/fuzz_seeds.cc) and its corpus of earlier
# runs under $FUZZ_WORK (default ~/.cache/tributary/fuzz), which grows from run to
# run. Prints a table (executions, rate, coverage, corpus, result) and exits 1 on
# any finding: a crash, sanitizer report, leak, timeout (a hang) or out-of-memory;
# the input is saved under $FUZZ_WORK/findings/TARGET/ and the line to replay it is
# printed. A fixed finding's input goes into tests/fuzz/regressions/TARGET/, which
# that target's regression test replays in every `bazel test //...`.
# FUZZ_RUNS=N also stops each target after N executions (libFuzzer's -runs).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

targets=(graph_def_fuzzer graph_def_text_fuzzer tensor_proto_fuzzer node_def_fuzzer
         cluster_spec_fuzzer tf_config_fuzzer feed_value_fuzzer tensor_coding_fuzzer
         master_service_fuzzer worker_service_fuzzer)

# The targets whose libFuzzer build CI can afford: they link no runtime. The two
# service targets build the master, the worker and the executor with ASan as
# well (about 20 minutes more on two cores); CI replays their seeds and
# regressions in the default build instead (their *_regression_test).
parser_targets=("${targets[@]:0:8}")

junit=""
if [[ "${1:-}" == "--list" ]]; then printf '%s\n' "${targets[@]}"; exit 0; fi
selected=("${targets[@]}")
seconds=20
if [[ "${1:-}" == "--ci" ]]; then
  selected=("${parser_targets[@]}"); seconds=10; shift
  if [[ "${1:-}" == "--junit" && $# -ge 2 ]]; then junit="$2"; shift 2; fi
  set --
fi
if [[ $# -ge 1 && "$1" != "all" ]]; then
  if [[ ! " ${targets[*]} " == *" $1 "* ]]; then
    echo "unknown fuzz target '$1' (tools/fuzz.sh --list)" >&2; exit 2
  fi
  selected=("$1"); seconds=600
fi
if [[ $# -ge 2 ]]; then seconds="$2"; fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -lt 1 ]]; then
  echo "SECONDS must be a positive integer, not '$seconds'" >&2; exit 2
fi

work="${FUZZ_WORK:-$HOME/.cache/tributary/fuzz}"
# No convenience symlinks: bazel-bin must keep pointing at the default build.
# One output base per checkout (Bazel's own rule); the disk cache is shared.
base="$HOME/.cache/tributary/bazel-fuzz/$(pwd | md5sum | cut -c1-12)"
bazel_fuzz=(bazel --output_base="$base")
build_flags=(--config=fuzz --symlink_prefix=/ --jobs="${FUZZ_BUILD_JOBS:-$(nproc)}")
echo "building the fuzz targets (clang-14, libFuzzer, ASan + UBSan)..."
mkdir -p "$work"
labels=(//tests/fuzz:fuzz_seeds)
for t in "${selected[@]}"; do labels+=("//tests/fuzz:$t"); done
if ! "${bazel_fuzz[@]}" build "${build_flags[@]}" "${labels[@]}" >"$work.build.log" 2>&1; then
  tail -n 40 "$work.build.log"; echo "fuzz build failed" >&2; exit 2
fi
bin="$("${bazel_fuzz[@]}" info "${build_flags[@]}" bazel-bin 2>/dev/null)/tests/fuzz"

mkdir -p "$work/seeds"
"$bin/fuzz_seeds" --graphs tests/testdata/tf_graphs --out "$work/seeds" || exit 2

# Leaks are checked (LeakSanitizer after each input); the service targets'
# workers keep threads and caches that live for the whole process, which
# LeakSanitizer sees as reachable, not as leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

failed=0
rows=()
cases=()
for t in "${selected[@]}"; do
  corpus="$work/corpus/$t" findings="$work/findings/$t"
  mkdir -p "$corpus" "$findings"
  log="$work/$t.log"
  echo "fuzzing $t for ${seconds} s..."
  "$bin/$t" "$corpus" "$work/seeds/$t" -max_total_time="$seconds" -timeout=60 \
    -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$findings/" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} >"$log" 2>&1
  rc=$?
  runs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)"
  rate="$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)"
  cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | awk '{print $2 "/" $4}')"
  files="$(find "$corpus" -type f | wc -l)"
  if [[ $rc -eq 0 ]]; then
    result="ok"
  else
    result="FINDING (exit $rc): $(grep -m1 -oE 'ERROR: [^(]*|fuzz property broken: .*|SUMMARY: .*' "$log" | head -c 120)"
    failed=1
    artifact="$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | cut -d' ' -f5)"
    echo "  $t: replay with: $bin/$t ${artifact:-$findings/<input>}   (log: $log)"
  fi
  if [[ $rc -eq 0 ]]; then
    cases+=("<testcase classname=\"fuzz\" name=\"$t\"/>")
  else
    cases+=("<testcase classname=\"fuzz\" name=\"$t\"><failure message=\"finding, see $log\"/></testcase>")
  fi
  rows+=("$(printf '| %-22s | %12s | %8s | %13s | %7s | %s |' "$t" "${runs:-?}" "${rate:-?}" "${cov:-?}" "$files" "$result")")
done

echo
printf '| %-22s | %12s | %8s | %13s | %7s | %s |\n' target executions "exec/s" "cov/features" corpus result
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------ -------------- ---------- --------------- --------- --------
printf '%s\n' "${rows[@]}"
if [[ -n "$junit" ]]; then
  { echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites><testsuite name=\"fuzz\" tests=\"${#cases[@]}\">"
    printf '%s\n' "${cases[@]}"
    echo '</testsuite></testsuites>'; } >"$junit"
fi
exit $failed
