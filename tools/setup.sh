#!/usr/bin/env bash
# Installs what Tributary's build needs, idempotently:
#   tools/setup.sh           Debian packages (Bazel, gRPC, protobuf, abseil, Eigen, spdlog,
#                            CLI11, GoogleTest, ...): enough to build and run (tools/main.sh)
#   tools/setup.sh --tests   also clang-14 with libFuzzer (tools/fuzz.sh) and real TensorFlow
#                            (tensorflow-cpu, ~600 MB) in a virtualenv,
#                            the test-time oracle and interop peer (tools/test.sh)
# Does nothing when it is all there. Safe to run as root (CI) or with sudo available.
set -euo pipefail

with_tests=0
case "${1:-}" in
  --tests) with_tests=1 ;;
  "") ;;
  *) echo "usage: tools/setup.sh [--tests]" >&2; exit 2 ;;
esac

DEB_PACKAGES=(
  bazel-bootstrap
  g++
  protobuf-compiler
  protobuf-compiler-grpc
  libprotobuf-dev
  libgrpc++-dev
  libabsl-dev
  libeigen3-dev
  libspdlog-dev
  libfmt-dev
  libcli11-dev
  nlohmann-json3-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libopenblas-dev
  libfarmhash-dev
  libdnnl-dev
  libleveldb-dev
  libisal-dev
  libre2-dev
  libssl-dev
  openssl
  grpc-proto
  libsystemd-dev
  python3-venv
)
# Test-time only: clang and its libFuzzer/sanitizer runtimes for tools/fuzz.sh.
# Debian's gRPC Python client probes the daemons' health and reflection services
# (tests/distributed/health_and_reflection_test); promtool and a real Prometheus
# server check and scrape their metrics (tests/distributed/metrics_test);
# python3-yaml reads the Kubernetes manifests (tests/repository); dpkg-dev and
# lintian make and check the .deb (tools/package.sh, tools:package_test);
# debootstrap, umoci and skopeo build the container image and unpack it again
# (tools/image.sh, tests/multihost:image_cluster_test).
TEST_DEB_PACKAGES=(
  clang-14
  libclang-rt-14-dev
  python3-grpcio
  python3-yaml
  prometheus
  dpkg-dev
  lintian
  debootstrap
  umoci
  skopeo
)
if ((with_tests)); then DEB_PACKAGES+=("${TEST_DEB_PACKAGES[@]}"); fi

missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ((!with_tests)); then
  exit 0
fi

# TensorFlow for the interop tests. Kept outside the work tree so every clone on this
# machine shares one copy (it is ~600 MB); TRIBUTARY_TF_VENV overrides the location.
"$(dirname "${BASH_SOURCE[0]}")/setup_tensorflow.sh" || \
  echo "setup: TensorFlow could not be installed; interop tests will skip (see above)"
