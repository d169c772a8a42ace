// TRIBUTARY_MATMUL_BACKEND=eigen: float MatMuls run, and OpenBLAS is never
// loaded into the process (not even to look at it).
#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"
#include "kernels/math/matmul_backend.h"

namespace tributary {
namespace {

// Whether any mapping of this process comes from a file named *openblas*.
bool OpenBlasMapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("openblas") != std::string::npos) return true;
  }
  return false;
}

TEST(MatMulBackendEigenTest, ForcedEigenNeverLoadsOpenBlas) {
  // Before the first MatMul: the choice is made then, once per process.
  ASSERT_EQ(setenv("TRIBUTARY_MATMUL_BACKEND", "eigen", 1), 0);
  ASSERT_FALSE(OpenBlasMapped()) << "the test binary links OpenBLAS";

  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Tensor a(dtype, TensorShape({300, 200})), b(dtype, TensorShape({200, 100}));
    if (dtype == DT_FLOAT) {
      a.flat<float>().setConstant(0.5f);
      b.flat<float>().setConstant(2.0f);
    } else {
      a.flat<double>().setConstant(0.5);
      b.flat<double>().setConstant(2.0);
    }
    auto out = test::RunOne(test::NodeDefBuilder("m", "MatMul")
                                .Inputs(2)
                                .Attr("T", dtype)
                                .Build(),
                            {a, b});
    ASSERT_TRUE(out.ok()) << out.status();
    const double first = dtype == DT_FLOAT ? (*out).flat<float>()(0)
                                           : (*out).flat<double>()(0);
    EXPECT_EQ(first, 200.0);
  }

  const MatMulBackendChoice& choice = ActiveMatMulBackend();
  EXPECT_EQ(choice.openblas, nullptr);
  EXPECT_TRUE(choice.status.ok());
  EXPECT_NE(choice.description.find("eigen"), std::string::npos);
  EXPECT_FALSE(OpenBlasMapped());
}

}  // namespace
}  // namespace tributary
