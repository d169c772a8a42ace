#!/usr/bin/env bash
# What metrics cost a step (docs/benchmarks.md, "Metrics"): the cluster with and
# without --metrics-listen in one run. Takes about 4-6 minutes.
#   tools/benchmarks/metrics_benchmark.sh [--rounds 6] [--latency-steps 3000]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel build //tools/benchmarks:distributed_client_benchmark \
  //worker:tributary-worker //master:tributary-master \
  2> >(grep -v linux-sandbox >&2) >&2
exec python3 tools/benchmarks/metrics_benchmark.py \
  --worker bazel-bin/worker/tributary-worker \
  --master bazel-bin/master/tributary-master \
  --client bazel-bin/tools/benchmarks/distributed_client_benchmark "$@"
