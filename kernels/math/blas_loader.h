#ifndef TRIBUTARY_KERNELS_MATH_BLAS_LOADER_H_
#define TRIBUTARY_KERNELS_MATH_BLAS_LOADER_H_

// Loads OpenBLAS at run time (dlopen), after choosing its kernels from cpuid.
//
// Why not link it: OpenBLAS picks its kernels once, in a load-time
// constructor, from its own CPU table or from $OPENBLAS_CORETYPE. Debian's
// 0.3.21 does not recognise recent Xeons (Sapphire Rapids) and falls back to
// its Prescott kernels, 5x slower than Eigen; with OPENBLAS_CORETYPE=SkylakeX
// it beats Eigen. A linked library would load at process start, before we can
// say which core to use, so we set OPENBLAS_CORETYPE and then dlopen it on
// first use. Loading it lazily also keeps processes that never multiply
// matrices (the master) free of it, and lets the build and the tests run on a
// machine without libopenblas0 (the load fails and MatMul stays on Eigen).
//
// Only the C ABI is used (cblas_*, openblas_*), through our own function
// pointer types, so no OpenBLAS header is needed to build.

#include <string>

#include "absl/status/statusor.h"

namespace tributary {
namespace blas {

// The CPU features that decide which OpenBLAS kernels are worth using.
struct CpuFeatures {
  bool amd = false;              // vendor AuthenticAMD or HygonGenuine
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool os_saves_avx = false;     // XCR0: the OS saves YMM state
  bool os_saves_avx512 = false;  // XCR0: the OS saves opmask and ZMM state
};

// This CPU's features (all false on a non-x86 build).
CpuFeatures DetectCpuFeatures();

// The OPENBLAS_CORETYPE to ask for on a CPU with `cpu`'s features, or "" when
// OpenBLAS is not worth using there (no usable AVX2 + FMA: Eigen's kernels
// are as good as OpenBLAS's SSE ones). A pure function, for tests.
//   AVX-512 F/BW/DQ/VL -> "SkylakeX" (Cooperlake/Sapphire Rapids use the same
//                         sgemm/dgemm kernels, and every DYNAMIC_ARCH build
//                         since 0.3.0 has SkylakeX);
//   AVX2 + FMA         -> "Zen" on AMD, "Haswell" otherwise.
std::string ChooseCoreType(const CpuFeatures& cpu);

// Row-major/column-major and transpose codes of the CBLAS C ABI.
constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;

using SgemmFn = void (*)(int order, int trans_a, int trans_b, int m, int n,
                         int k, float alpha, const float* a, int lda,
                         const float* b, int ldb, float beta, float* c,
                         int ldc);
using DgemmFn = void (*)(int order, int trans_a, int trans_b, int m, int n,
                         int k, double alpha, const double* a, int lda,
                         const double* b, int ldb, double beta, double* c,
                         int ldc);

// The loaded library: its entry points and what it chose.
struct OpenBlas {
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  void (*set_num_threads)(int) = nullptr;
  int (*get_num_threads)() = nullptr;
  std::string library;         // the file name dlopen succeeded with
  std::string requested_core;  // what we set OPENBLAS_CORETYPE to ("": none)
  std::string user_core;       // the user's own $OPENBLAS_CORETYPE ("": unset)
  std::string core;            // openblas_get_corename(): what it uses
  std::string config;          // openblas_get_config()
};

// Loads OpenBLAS once per process (thread-safe; later calls return the first
// result). Tries $TRIBUTARY_OPENBLAS_LIBRARY if set, else libopenblas.so.0
// then libopenblas.so. Unless the user set OPENBLAS_CORETYPE, sets it to
// ChooseCoreType(DetectCpuFeatures()) for the duration of the dlopen. Leaves
// OpenBLAS's own threading at 1 thread: callers split the work themselves
// (OpenBLAS's threads busy-wait after each call, taking cores from ours).
// Checks sgemm and dgemm on small products against the definition before
// handing them out. NotFound when no library loads; FailedPrecondition when
// it is not a usable OpenBLAS (missing symbols, 64-bit integer interface, a
// wrong result in that check).
absl::StatusOr<const OpenBlas*> LoadOpenBlas();

}  // namespace blas
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_BLAS_LOADER_H_
