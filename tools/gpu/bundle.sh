#!/usr/bin/env bash
# Builds the GPU tests and the GPU benchmark and bundles them, with the
# shared libraries they link that a bare CUDA machine lacks (Debian's
# abseil, protobuf, gRPC, spdlog, fmt, ...), into gpu_bundle/ at the root
# of the checkout (ignored by git), for tools/gpu/check.sh to run on a
# machine whose image is not this one. The C and C++ runtimes (libc,
# libstdc++, libgcc_s, ...) are left out: every Linux with a newer glibc
# has them. CUDA's own libraries are not bundled either: the GPU machine's
# driver provides libcuda.so.1 and its toolkit libcublas.so.13.
#
# The binaries link every kernel (oneDNN's library alone is 40 MiB), so the
# bundle is one xz-compressed tar, gpu_bundle/bundle.tar.xz (about 20 MiB),
# which check.sh unpacks.
#
# Usage: tools/gpu/bundle.sh            (then: carry gpu_bundle, run check.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."

targets=(gpu_device_test gpu_kernels_test gpu_benchmark)
bazel build --jobs="${BUNDLE_JOBS:-2}" $(printf '//tests/gpu:%s ' "${targets[@]}")

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/bin" "$out/lib"
for t in "${targets[@]}"; do
  cp "bazel-bin/tests/gpu/$t" "$out/bin/$t"
  chmod u+w "$out/bin/$t"
  strip "$out/bin/$t"
done
ldd "$out"/bin/* | awk '/=> \// { print $3 }' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
rm -rf gpu_bundle
mkdir -p gpu_bundle
tar -C "$out" -cf - bin lib | xz -6 -T"${BUNDLE_JOBS:-2}" >gpu_bundle/bundle.tar.xz
size=$(du -sm gpu_bundle | cut -f1)
echo "gpu_bundle: $(ls "$out/bin" | wc -l) binaries, $(ls "$out/lib" | wc -l) libraries, ${size} MiB compressed"
if (( size > 60 )); then
  echo "gpu_bundle is over 60 MiB" >&2
  exit 1
fi
