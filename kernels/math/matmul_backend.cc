#include "kernels/math/matmul_backend.h"

#include <atomic>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tributary {
namespace {

constexpr char kVariable[] = "TRIBUTARY_MATMUL_BACKEND";

std::string Describe(const blas::OpenBlas& blas) {
  return absl::StrCat("openblas (", blas.library, ", core ", blas.core,
                      blas.user_core.empty() ? "" : ", from OPENBLAS_CORETYPE",
                      ", 1 thread per call, split over the intra-op pool)");
}

MatMulBackendChoice EigenChoice(std::string why) {
  MatMulBackendChoice choice;
  choice.description = absl::StrCat("eigen (", why, ")");
  return choice;
}

MatMulBackendChoice FromEnvironment() {
  const char* value = std::getenv(kVariable);
  absl::StatusOr<MatMulBackendRequest> request =
      ParseMatMulBackendRequest(value == nullptr ? "" : value);
  if (!request.ok()) {
    MatMulBackendChoice choice = EigenChoice("bad " + std::string(kVariable));
    choice.status = request.status();
    return choice;
  }
  return ChooseMatMulBackend(*request,
                             blas::ChooseCoreType(blas::DetectCpuFeatures()),
                             blas::LoadOpenBlas);
}

// Set by SetMatMulBackendForTesting; nullptr: the environment's choice.
std::atomic<const MatMulBackendChoice*> test_choice{nullptr};

}  // namespace

absl::StatusOr<MatMulBackendRequest> ParseMatMulBackendRequest(
    absl::string_view value) {
  const std::string v = absl::AsciiStrToLower(value);
  if (v.empty() || v == "auto") return MatMulBackendRequest::kAuto;
  if (v == "eigen") return MatMulBackendRequest::kEigen;
  if (v == "openblas") return MatMulBackendRequest::kOpenBlas;
  return absl::InvalidArgumentError(
      absl::StrCat(kVariable, "=", value, ": expected auto, eigen or openblas"));
}

MatMulBackendChoice ChooseMatMulBackend(
    MatMulBackendRequest request, const std::string& chosen_core,
    absl::FunctionRef<absl::StatusOr<const blas::OpenBlas*>()> load) {
  if (request == MatMulBackendRequest::kEigen) {
    return EigenChoice(absl::StrCat(kVariable, "=eigen"));
  }
  if (request == MatMulBackendRequest::kAuto && chosen_core.empty()) {
    // Without AVX2+FMA OpenBLAS has only SSE kernels: Eigen is as fast.
    return EigenChoice("CPU has no usable AVX2+FMA");
  }
  absl::StatusOr<const blas::OpenBlas*> blas = load();
  if (!blas.ok()) {
    MatMulBackendChoice choice = EigenChoice(std::string(blas.status().message()));
    if (request == MatMulBackendRequest::kOpenBlas) {
      choice.status = absl::FailedPreconditionError(absl::StrCat(
          kVariable, "=openblas but OpenBLAS is unusable: ",
          blas.status().message()));
    }
    return choice;
  }
  const blas::OpenBlas& lib = **blas;
  // Auto only trusts kernels it asked for: when OpenBLAS runs another core
  // (it was already loaded by someone else, or this build lacks the one we
  // named and fell back to its own detection, e.g. Prescott), Eigen is the
  // safer bet. A user's own OPENBLAS_CORETYPE is trusted.
  if (request == MatMulBackendRequest::kAuto && lib.user_core.empty() &&
      !absl::EqualsIgnoreCase(lib.core, lib.requested_core)) {
    return EigenChoice(absl::StrCat("OpenBLAS runs core ", lib.core, ", not ",
                              lib.requested_core));
  }
  MatMulBackendChoice choice;
  choice.openblas = &lib;
  choice.description = Describe(lib);
  return choice;
}

const MatMulBackendChoice& ActiveMatMulBackend() {
  const MatMulBackendChoice* forced = test_choice.load(std::memory_order_acquire);
  if (forced != nullptr) return *forced;
  static const MatMulBackendChoice* const from_env =
      new MatMulBackendChoice(FromEnvironment());
  return *from_env;
}

absl::Status SetMatMulBackendForTesting(MatMulBackendRequest request) {
  if (request == MatMulBackendRequest::kAuto) {
    test_choice.store(nullptr, std::memory_order_release);
    return absl::OkStatus();
  }
  auto* choice = new MatMulBackendChoice(ChooseMatMulBackend(
      request, blas::ChooseCoreType(blas::DetectCpuFeatures()),
      blas::LoadOpenBlas));
  if (!choice->status.ok()) {
    absl::Status status = choice->status;
    delete choice;
    return status;
  }
  // Older choices are leaked on purpose: a kernel may still hold one.
  test_choice.store(choice, std::memory_order_release);
  return absl::OkStatus();
}

}  // namespace tributary
