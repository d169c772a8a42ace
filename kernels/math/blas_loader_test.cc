// The core-type choice (from given cpuid flags) and the backend policy, both
// pure functions; nothing here loads OpenBLAS.
#include "kernels/math/blas_loader.h"

#include "gtest/gtest.h"
#include "kernels/math/matmul_backend.h"

namespace tributary {
namespace {

using blas::ChooseCoreType;
using blas::CpuFeatures;

CpuFeatures Avx2Fma() {
  CpuFeatures cpu;
  cpu.avx2 = cpu.fma = cpu.os_saves_avx = true;
  return cpu;
}

CpuFeatures Avx512() {
  CpuFeatures cpu = Avx2Fma();
  cpu.avx512f = cpu.avx512bw = cpu.avx512dq = cpu.avx512vl = true;
  cpu.os_saves_avx512 = true;
  return cpu;
}

TEST(ChooseCoreTypeTest, Avx512CpusGetSkylakeX) {
  EXPECT_EQ(ChooseCoreType(Avx512()), "SkylakeX");
  CpuFeatures zen4 = Avx512();
  zen4.amd = true;
  EXPECT_EQ(ChooseCoreType(zen4), "SkylakeX");
}

TEST(ChooseCoreTypeTest, Avx2CpusGetHaswellOrZen) {
  EXPECT_EQ(ChooseCoreType(Avx2Fma()), "Haswell");
  CpuFeatures zen = Avx2Fma();
  zen.amd = true;
  EXPECT_EQ(ChooseCoreType(zen), "Zen");
}

TEST(ChooseCoreTypeTest, PartialAvx512FallsBackToAvx2Kernels) {
  CpuFeatures knl = Avx512();  // AVX512F without BW/VL (Knights Landing)
  knl.avx512bw = knl.avx512vl = false;
  EXPECT_EQ(ChooseCoreType(knl), "Haswell");
  CpuFeatures no_os = Avx512();  // the OS does not save ZMM state
  no_os.os_saves_avx512 = false;
  EXPECT_EQ(ChooseCoreType(no_os), "Haswell");
}

TEST(ChooseCoreTypeTest, NoAvx2OrFmaMeansNoOpenBlas) {
  EXPECT_EQ(ChooseCoreType(CpuFeatures()), "");
  CpuFeatures no_fma = Avx512();
  no_fma.fma = false;
  EXPECT_EQ(ChooseCoreType(no_fma), "");
  CpuFeatures no_os = Avx2Fma();
  no_os.os_saves_avx = false;
  EXPECT_EQ(ChooseCoreType(no_os), "");
}

TEST(DetectCpuFeaturesTest, ConsistentWithItself) {
  const CpuFeatures cpu = blas::DetectCpuFeatures();
  // The OS cannot save ZMM without YMM state.
  if (cpu.os_saves_avx512) {
    EXPECT_TRUE(cpu.os_saves_avx);
  }
  std::printf("this CPU: core type \"%s\"\n", ChooseCoreType(cpu).c_str());
}

TEST(ParseMatMulBackendRequestTest, KnownValuesAndErrors) {
  EXPECT_EQ(*ParseMatMulBackendRequest(""), MatMulBackendRequest::kAuto);
  EXPECT_EQ(*ParseMatMulBackendRequest("auto"), MatMulBackendRequest::kAuto);
  EXPECT_EQ(*ParseMatMulBackendRequest("Eigen"), MatMulBackendRequest::kEigen);
  EXPECT_EQ(*ParseMatMulBackendRequest("OPENBLAS"),
            MatMulBackendRequest::kOpenBlas);
  absl::StatusOr<MatMulBackendRequest> bad = ParseMatMulBackendRequest("mkl");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("TRIBUTARY_MATMUL_BACKEND"),
            std::string::npos);
}

// A stand-in library that ran `core` after we asked for `requested`.
blas::OpenBlas FakeLibrary(const std::string& requested,
                           const std::string& core) {
  blas::OpenBlas lib;
  lib.library = "libfake.so";
  lib.requested_core = requested;
  lib.core = core;
  return lib;
}

TEST(ChooseMatMulBackendTest, EigenNeverLoads) {
  int loads = 0;
  auto load = [&]() -> absl::StatusOr<const blas::OpenBlas*> {
    ++loads;
    return absl::InternalError("must not be called");
  };
  MatMulBackendChoice choice =
      ChooseMatMulBackend(MatMulBackendRequest::kEigen, "SkylakeX", load);
  EXPECT_EQ(loads, 0);
  EXPECT_EQ(choice.openblas, nullptr);
  EXPECT_TRUE(choice.status.ok());
}

TEST(ChooseMatMulBackendTest, AutoWithoutAvx2DoesNotLoad) {
  int loads = 0;
  auto load = [&]() -> absl::StatusOr<const blas::OpenBlas*> {
    ++loads;
    return absl::InternalError("must not be called");
  };
  MatMulBackendChoice choice =
      ChooseMatMulBackend(MatMulBackendRequest::kAuto, "", load);
  EXPECT_EQ(loads, 0);
  EXPECT_EQ(choice.openblas, nullptr);
  EXPECT_TRUE(choice.status.ok());
}

TEST(ChooseMatMulBackendTest, AutoUsesOpenBlasWithTheRequestedCore) {
  const blas::OpenBlas lib = FakeLibrary("SkylakeX", "SkylakeX");
  MatMulBackendChoice choice = ChooseMatMulBackend(
      MatMulBackendRequest::kAuto, "SkylakeX",
      [&]() -> absl::StatusOr<const blas::OpenBlas*> { return &lib; });
  EXPECT_EQ(choice.openblas, &lib);
  EXPECT_TRUE(choice.status.ok());
}

TEST(ChooseMatMulBackendTest, AutoRejectsAnotherCoreUnlessTheUserChoseIt) {
  blas::OpenBlas lib = FakeLibrary("SkylakeX", "Prescott");
  auto load = [&]() -> absl::StatusOr<const blas::OpenBlas*> { return &lib; };
  MatMulBackendChoice choice =
      ChooseMatMulBackend(MatMulBackendRequest::kAuto, "SkylakeX", load);
  EXPECT_EQ(choice.openblas, nullptr);
  EXPECT_TRUE(choice.status.ok());
  EXPECT_NE(choice.description.find("Prescott"), std::string::npos);

  lib.requested_core = "";
  lib.user_core = "Prescott";  // $OPENBLAS_CORETYPE: the user's call
  choice = ChooseMatMulBackend(MatMulBackendRequest::kAuto, "SkylakeX", load);
  EXPECT_EQ(choice.openblas, &lib);
}

TEST(ChooseMatMulBackendTest, LoadFailureFallsBackOrFailsWhenForced) {
  auto missing = []() -> absl::StatusOr<const blas::OpenBlas*> {
    return absl::NotFoundError("libopenblas.so.0: cannot open shared object");
  };
  MatMulBackendChoice automatic =
      ChooseMatMulBackend(MatMulBackendRequest::kAuto, "SkylakeX", missing);
  EXPECT_EQ(automatic.openblas, nullptr);
  EXPECT_TRUE(automatic.status.ok());

  MatMulBackendChoice forced =
      ChooseMatMulBackend(MatMulBackendRequest::kOpenBlas, "SkylakeX", missing);
  EXPECT_EQ(forced.openblas, nullptr);
  EXPECT_EQ(forced.status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(forced.status.message().find("libopenblas.so.0"),
            std::string::npos);
}

}  // namespace
}  // namespace tributary
