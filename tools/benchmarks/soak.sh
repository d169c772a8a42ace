#!/usr/bin/env bash
# The soak test (docs/benchmarks.md, "Soak"): 64 concurrent clients, C++ and
# TensorFlow's Python client mixed, against a 1 ps + 2 worker Tributary cluster
# and then TensorFlow's own servers, for --seconds each (default 600).
#
#   tools/benchmarks/soak.sh [--seconds 600] [--clients 64] [--skip-tf] [--out F]
#
# Flags go to soak.py (--help there). Needs the virtualenv of
# tools/setup_tensorflow.sh ($TRIBUTARY_TF_VENV or ~/.cache/tributary/tf-venv).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel build //tools/benchmarks:soak_client //worker:tributary-worker \
  //master:tributary-master 2> >(grep -v linux-sandbox >&2) >&2
venv="${TRIBUTARY_TF_VENV:-${HOME:-/nonexistent}/.cache/tributary/tf-venv}"
if ! "$venv/bin/python" -c "import tensorflow" 2>/dev/null; then
  echo "TensorFlow not found in $venv (tools/setup_tensorflow.sh)" >&2; exit 2
fi
exec "$venv/bin/python" tools/benchmarks/soak.py \
  --worker bazel-bin/worker/tributary-worker --master bazel-bin/master/tributary-master \
  --client bazel-bin/tools/benchmarks/soak_client --tf-python "$venv/bin/python" "$@"
