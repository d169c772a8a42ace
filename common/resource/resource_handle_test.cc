#include "common/resource/resource_handle.h"

#include "common/resource/var.h"
#include "gtest/gtest.h"
#include "protos/resource_handle.pb.h"

namespace tributary {
namespace {

TEST(ResourceHandleTest, MakeRecordsTypeAndLocation) {
  ResourceHandle h = MakeResourceHandle<Var>(
      "/job:localhost/replica:0/task:0/device:CPU:0", "localhost", "w",
      {{DT_FLOAT, PartialTensorShape({2, -1})}});
  EXPECT_EQ(h.device(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(h.container(), "localhost");
  EXPECT_EQ(h.name(), "w");
  EXPECT_EQ(h.hash_code(), ResourceTypeIndex::Make<Var>().hash_code());
  EXPECT_EQ(DemangleTypeName(h.maybe_type_name()), "tributary::Var");
  ASSERT_EQ(h.dtypes_and_shapes_size(), 1);
  EXPECT_EQ(h.dtypes_and_shapes(0).dtype(), tensorflow::DT_FLOAT);
  ASSERT_EQ(h.dtypes_and_shapes(0).shape().dim_size(), 2);
  EXPECT_EQ(h.dtypes_and_shapes(0).shape().dim(1).size(), -1);
  EXPECT_TRUE(ValidateResourceType<Var>(h).ok());
  EXPECT_NE(ResourceHandleDebugString(h).find("name=\"w\""),
            std::string::npos);
}

class NotAVar : public ResourceBase {
 public:
  std::string DebugString() const override { return ""; }
};

TEST(ResourceHandleTest, WrongTypeNamesBothTypes) {
  ResourceHandle h = MakeResourceHandle<NotAVar>("", "c", "x");
  absl::Status s = ValidateResourceType<Var>(h);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("NotAVar"), std::string::npos) << s;
  EXPECT_NE(std::string(s.message()).find("tributary::Var"), std::string::npos)
      << s;
}

TEST(ResourceHandleTensorTest, ScalarHoldsTheHandleAndCopiesShareIt) {
  ResourceHandle h = MakeResourceHandle<Var>("/device:CPU:0", "localhost", "w");
  Tensor t = MakeResourceHandleTensor(h);
  EXPECT_EQ(t.dtype(), DT_RESOURCE);
  EXPECT_EQ(t.dims(), 0);
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.scalar<ResourceHandle>()().name(), "w");

  Tensor copy = t;  // Shares the buffer like any tensor.
  EXPECT_TRUE(copy.SharesBufferWith(t));
  absl::StatusOr<const ResourceHandle*> got = HandleFromTensor(copy);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->container(), "localhost");
  EXPECT_EQ((*got)->hash_code(), h.hash_code());
}

TEST(ResourceHandleTensorTest, HandleFromTensorRejectsOtherDtypesAndEmpty) {
  EXPECT_FALSE(HandleFromTensor(Tensor(1.0f)).ok());
  Tensor empty(DT_RESOURCE, TensorShape({0}));
  absl::StatusOr<const ResourceHandle*> got = HandleFromTensor(empty);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "Empty resource handle");
}

}  // namespace
}  // namespace tributary
