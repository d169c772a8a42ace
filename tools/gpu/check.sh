#!/usr/bin/env bash
# Runs every GPU test and the GPU benchmark from a bundle made by
# tools/gpu/bundle.sh and prints one table; exit 1 when a test failed.
# Meant for a machine with a GPU whose image is not ours (it needs the
# NVIDIA driver and CUDA 13's cuBLAS, nothing else); about two minutes on
# an H100.
#
# Usage: tools/gpu/check.sh [BUNDLE_DIR]   (default: gpu_bundle)
set -uo pipefail
cd "$(dirname "$0")/../.."
archive=${1:-gpu_bundle}/bundle.tar.xz
if [[ ! -f "$archive" ]]; then
  echo "no $archive: run tools/gpu/bundle.sh first" >&2
  exit 2
fi
bundle=$(mktemp -d)
trap 'rm -rf "$bundle"' EXIT
# tar needs xz for -J; Python's tarfile does not.
tar -C "$bundle" -xJf "$archive" 2>/dev/null ||
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    "$archive" "$bundle" || exit 2
# Our libraries first, then CUDA's wherever this image keeps them.
cuda_libs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/nvidia/lib64; do
  [[ -d "$d" ]] && cuda_libs="$cuda_libs:$d"
done
for d in $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cublas", "lib") for p in nvidia.__path__))' 2>/dev/null); do
  [[ -d "$d" ]] && cuda_libs="$cuda_libs:$d"
done
export LD_LIBRARY_PATH="$bundle/lib$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

rows=()
failed=0
for t in gpu_device_test gpu_kernels_test; do
  log=$(mktemp)
  "$bundle/bin/$t" 2>&1 | tee "$log"
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  bad=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  grep -q '^\[  PASSED  \]' "$log" || bad=${bad:-crashed}
  rows+=("| $t | ${passed:-0} | ${bad:-0} | ${skipped:-0} |")
  [[ "${bad:-0}" != "0" ]] && failed=1
  rm -f "$log"
done
echo
echo "== GPU benchmark"
"$bundle/bin/gpu_benchmark" || failed=1
echo
echo "| GPU test | passed | failed | skipped |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit $failed
