// A machine without OpenBLAS (simulated by pointing the loader at a file that
// does not exist): the default (auto) backend is Eigen and MatMul works;
// asking for openblas explicitly is refused with the loader's reason.
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"
#include "kernels/math/matmul_backend.h"

namespace tributary {
namespace {

TEST(MatMulBackendMissingLibraryTest, AutoFallsBackToEigen) {
  // Before the first MatMul: the choice is made then, once per process.
  ASSERT_EQ(setenv("TRIBUTARY_OPENBLAS_LIBRARY",
                   "libtributary-no-such-openblas.so.0", 1),
            0);
  ASSERT_EQ(unsetenv("TRIBUTARY_MATMUL_BACKEND"), 0);

  Tensor a = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = test::AsTensor<float>({1, 0, 0, 1, 1, 1}, {3, 2});
  auto out = test::RunOne(
      test::NodeDefBuilder("m", "MatMul").Inputs(2).Attr("T", DT_FLOAT).Build(),
      {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>(*out,
                                 test::AsTensor<float>({4, 5, 10, 11}, {2, 2}));

  const MatMulBackendChoice& choice = ActiveMatMulBackend();
  EXPECT_EQ(choice.openblas, nullptr);
  EXPECT_TRUE(choice.status.ok());
  std::printf("MatMul backend: %s\n", choice.description.c_str());
  // On a CPU without AVX2 auto does not even try to load it.
  if (choice.description.find("AVX2") == std::string::npos) {
    EXPECT_NE(choice.description.find("libtributary-no-such-openblas"),
              std::string::npos);
  }

  absl::Status forced =
      SetMatMulBackendForTesting(MatMulBackendRequest::kOpenBlas);
  EXPECT_EQ(forced.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(forced.message().find("libtributary-no-such-openblas"),
            std::string::npos)
      << forced;
  // Still Eigen after the refused override.
  EXPECT_EQ(ActiveMatMulBackend().openblas, nullptr);
}

}  // namespace
}  // namespace tributary
