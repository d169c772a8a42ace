#!/usr/bin/env bash
# Runs run_command_test.py with one JUnit case per check, against the tributary
# binary built by Bazel. No TensorFlow is needed; the .npy/.npz checks need
# numpy, so the TensorFlow virtualenv's Python (tools/setup.sh --tests) runs it
# when it has numpy, else the system python3 (those checks then skip).
set -euo pipefail
venv="${TRIBUTARY_TF_VENV:-${HOME:-/nonexistent}/.cache/tributary/tf-venv}"
python=python3
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "import numpy" 2>/dev/null; then
  python="$venv/bin/python"
fi
exec "$python" tests/interop/junit_runner.py tools/cli/run_command_test.py "$@"
