#!/usr/bin/env bash
# The distributed-runtime benchmark (docs/benchmarks.md): Tributary vs TensorFlow's
# own servers vs the raw loopback limit, one table. Takes about 3-5 minutes.
#
#   tools/benchmarks/distributed_benchmark.sh [--sizes-mib 1,16] [--skip-tf] ...
#   bazel run //tools/benchmarks:distributed_benchmark -- [same flags]
#
# Flags go to distributed_benchmark.py (--help there). TensorFlow's columns need
# the virtualenv of tools/setup_tensorflow.sh ($TRIBUTARY_TF_VENV or
# ~/.cache/tributary/tf-venv); without it they read "n/a".
set -euo pipefail

if [[ -n "${BUILD_WORKSPACE_DIRECTORY:-}" ]]; then
  # Under `bazel run`: the binaries are runfiles next to us.
  bin=.
  here=tools/benchmarks
else
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  bazel build //tools/benchmarks:distributed_raw_baselines \
    //tools/benchmarks:distributed_client_benchmark \
    //worker:tributary-worker //master:tributary-master \
    2> >(grep -v linux-sandbox >&2) >&2
  bin=bazel-bin
  here=tools/benchmarks
fi

venv="${TRIBUTARY_TF_VENV:-${HOME:-/nonexistent}/.cache/tributary/tf-venv}"
tf_python=""
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "import tensorflow" 2>/dev/null; then
  tf_python="$venv/bin/python"
else
  echo "TensorFlow not found in $venv (tools/setup_tensorflow.sh): no TensorFlow columns" >&2
fi
python="${tf_python:-python3}"

exec "$python" "$here/distributed_benchmark.py" \
  --raw "$bin/tools/benchmarks/distributed_raw_baselines" \
  --client "$bin/tools/benchmarks/distributed_client_benchmark" \
  --worker "$bin/worker/tributary-worker" \
  --master "$bin/master/tributary-master" \
  --tf-python "$tf_python" "$@"
