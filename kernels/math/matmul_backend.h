#ifndef TRIBUTARY_KERNELS_MATH_MATMUL_BACKEND_H_
#define TRIBUTARY_KERNELS_MATH_MATMUL_BACKEND_H_

// Which library multiplies float32/float64 matrices for MatMul and
// BatchMatMulV2: Eigen's tensor contraction or OpenBLAS's sgemm/dgemm.
// Integer types always use Eigen (BLAS has no integer GEMM).
//
// Chosen once per process, at the first float MatMul, from
//   TRIBUTARY_MATMUL_BACKEND = auto (default) | eigen | openblas
//   auto:     OpenBLAS when this CPU has AVX2+FMA, the library loads, and
//             it runs the kernels we asked for (or the user's own
//             OPENBLAS_CORETYPE); Eigen otherwise.
//   eigen:    Eigen; OpenBLAS is never loaded.
//   openblas: OpenBLAS; float MatMuls fail (FailedPrecondition, with the
//             reason) when it cannot be loaded.
// See docs/operations.md ("MatMul backend").

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/math/blas_loader.h"

namespace tributary {

enum class MatMulBackendRequest { kAuto, kEigen, kOpenBlas };

// "" (unset) and "auto" -> kAuto; "eigen"; "openblas" (case-insensitive).
absl::StatusOr<MatMulBackendRequest> ParseMatMulBackendRequest(
    absl::string_view value);

// The outcome of the choice.
struct MatMulBackendChoice {
  // OpenBLAS's entry points when float products go to it; nullptr: Eigen.
  const blas::OpenBlas* openblas = nullptr;
  // Not OK when the request cannot be honoured (a bad variable value, or
  // openblas forced but unavailable): float MatMuls then fail with it.
  absl::Status status;
  // One line saying what was chosen and why, for logs and benchmarks.
  std::string description;
};

// The policy above as a pure function of the request, the core type
// ChooseCoreType gave for this CPU ("": not worth using OpenBLAS) and a
// loader, which is called only when OpenBLAS might be used (never for
// kEigen). For tests; the kernels use ActiveMatMulBackend().
MatMulBackendChoice ChooseMatMulBackend(
    MatMulBackendRequest request, const std::string& chosen_core,
    absl::FunctionRef<absl::StatusOr<const blas::OpenBlas*>()> load);

// The process's choice: made on the first call from the environment
// ($TRIBUTARY_MATMUL_BACKEND, this CPU, blas::LoadOpenBlas), then fixed.
const MatMulBackendChoice& ActiveMatMulBackend();

// For tests that compare both backends in one process: replaces the active
// choice until called again (kAuto restores the environment's choice).
// FailedPrecondition (and no change) when kOpenBlas cannot be loaded.
// Not for concurrent use with running kernels.
absl::Status SetMatMulBackendForTesting(MatMulBackendRequest request);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_MATMUL_BACKEND_H_
