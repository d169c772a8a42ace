#!/usr/bin/env bash
# What mutual TLS costs (docs/benchmarks.md, "Mutual TLS"): the same cluster in
# plaintext and with TLS, one table. Takes about a minute.
#
#   tools/benchmarks/tls_benchmark.sh [--sizes-mib 64] [--rounds 5]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel build //tools/benchmarks:distributed_client_benchmark \
  //worker:tributary-worker //master:tributary-master \
  2> >(grep -v linux-sandbox >&2) >&2
exec python3 tools/benchmarks/tls_benchmark.py \
  --client bazel-bin/tools/benchmarks/distributed_client_benchmark \
  --worker bazel-bin/worker/tributary-worker \
  --master bazel-bin/master/tributary-master "$@"
