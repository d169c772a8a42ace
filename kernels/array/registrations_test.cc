// Every op this folder and kernels/plumbing promise has a CPU kernel for the
// dtypes the issue requires, and every registration is consistent with its
// op's definition.

#include <string>

#include "common/kernel/kernel_registry.h"
#include "common/op/op_registry.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

TEST(ArrayRegistrationsTest, ValidAgainstOpDefs) {
  const absl::Status s = ValidateKernelRegistrations(*OpRegistry::Global());
  EXPECT_TRUE(s.ok()) << s;
}

// Ops whose type attr is "T" and that serve every tested dtype.
TEST(ArrayRegistrationsTest, EveryDtypeHasAKernel) {
  const char* ops[] = {"Identity",     "StopGradient", "Shape",      "Size",
                       "Rank",         "Reshape",      "ExpandDims", "Squeeze",
                       "Fill",         "ZerosLike",    "ConcatV2",   "Pack",
                       "Unpack",       "Transpose",    "Tile",       "Slice",
                       "StridedSlice", "BroadcastTo",  "Pad",        "PadV2"};
  const DataType types[] = {DT_FLOAT, DT_DOUBLE, DT_INT32,
                            DT_INT64, DT_BOOL,   DT_STRING};
  for (const char* op : ops) {
    for (DataType t : types) {
      tensorflow::NodeDef node;
      node.set_name("n");
      node.set_op(op);
      AddNodeAttr("T", t, &node);
      // The only index attrs without a default.
      if (std::string(op) == "Slice" || std::string(op) == "StridedSlice") {
        AddNodeAttr("Index", DT_INT32, &node);
      }
      const KernelDef* def = nullptr;
      const absl::Status s =
          FindKernelDef(DeviceType(DEVICE_CPU), node, &def, nullptr);
      EXPECT_TRUE(s.ok()) << op << " " << DataTypeString(t) << ": " << s;
    }
  }
  for (const char* op : {"Const", "Placeholder", "PlaceholderWithDefault"}) {
    tensorflow::NodeDef node;
    node.set_name("n");
    node.set_op(op);
    AddNodeAttr("dtype", DT_STRING, &node);
    const KernelDef* def = nullptr;
    EXPECT_TRUE(FindKernelDef(DeviceType(DEVICE_CPU), node, &def, nullptr).ok())
        << op;
  }
}

}  // namespace
}  // namespace tributary
