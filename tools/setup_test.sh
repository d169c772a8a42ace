#!/usr/bin/env bash
# tools/setup.sh installs TensorFlow only when asked for the tests: the main job
# (tools/main.sh) must not pull in 600 MB it never uses. The TensorFlow virtualenv is
# faked by a `python` that records each call, so nothing is downloaded; the Debian
# packages are already installed wherever this test runs (tools/test.sh ran setup first).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -n "${TEST_SRCDIR:-}" ]]; then root="$TEST_SRCDIR/${TEST_WORKSPACE:-tributary}"; fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/venv/bin"
cat >"$tmp/venv/bin/python" <<FAKE
#!/usr/bin/env bash
echo called >>"$tmp/python-calls"
exit 0
FAKE
chmod +x "$tmp/venv/bin/python"

fail=0
TRIBUTARY_TF_VENV="$tmp/venv" bash "$root/tools/setup.sh" >"$tmp/out" 2>&1
if [[ -e "$tmp/python-calls" ]]; then
  echo "FAIL: tools/setup.sh (no flag) looked at TensorFlow"; cat "$tmp/out"; fail=1
else
  echo "PASS: tools/setup.sh without --tests leaves TensorFlow alone"
fi
TRIBUTARY_TF_VENV="$tmp/venv" bash "$root/tools/setup.sh" --tests >"$tmp/out" 2>&1
if [[ ! -e "$tmp/python-calls" ]]; then
  echo "FAIL: tools/setup.sh --tests did not check the TensorFlow virtualenv"; cat "$tmp/out"; fail=1
else
  echo "PASS: tools/setup.sh --tests checks the TensorFlow virtualenv"
fi
if bash "$root/tools/setup.sh" --bogus >/dev/null 2>&1; then
  echo "FAIL: an unknown flag was accepted"; fail=1
else
  echo "PASS: an unknown flag is refused"
fi
# Which scripts ask for what: the main job never, the test runner always.
if grep -Eq '^tools/setup.sh[^#]*--tests' "$root/tools/main.sh"; then
  echo "FAIL: tools/main.sh asks for the test tools"; fail=1
else
  echo "PASS: tools/main.sh sets up without TensorFlow"
fi
if grep -Eq '^tools/setup.sh --tests' "$root/tools/test.sh"; then
  echo "PASS: tools/test.sh sets up TensorFlow"
else
  echo "FAIL: tools/test.sh does not ask for TensorFlow"; fail=1
fi
exit $fail
