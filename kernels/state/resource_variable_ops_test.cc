// Resource-variable kernels through KernelRunner, sharing one ResourceMgr
// the way a session's kernels do.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/resource/resource_handle.h"
#include "common/resource/resource_mgr.h"
#include "common/resource/var.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

class ResourceVariableTest : public ::testing::Test {
 protected:
  // The VarHandleOp output for shared_name `name`.
  Tensor Handle(const std::string& name, DataType dtype = DT_FLOAT,
                const std::string& container = "") {
    KernelRunner runner;
    runner.set_resource_manager(&rm_);
    EXPECT_TRUE(runner
                    .Init(NodeDefBuilder("handle", "VarHandleOp")
                              .Attr("dtype", dtype)
                              .Attr("shape", TensorShape({2}))
                              .Attr("shared_name", name)
                              .Attr("container", container)
                              .Build())
                    .ok());
    absl::StatusOr<std::vector<Tensor>> out = runner.Run({});
    EXPECT_TRUE(out.ok()) << out.status();
    return (*out)[0];
  }

  absl::StatusOr<std::vector<Tensor>> Run(const tensorflow::NodeDef& def,
                                          const std::vector<Tensor>& inputs) {
    KernelRunner runner;
    runner.set_resource_manager(&rm_);
    TRIB_RETURN_IF_ERROR(runner.Init(def));
    return runner.Run(inputs);
  }

  absl::Status Assign(const Tensor& handle, const Tensor& value,
                      bool validate_shape = false) {
    return Run(NodeDefBuilder("assign", "AssignVariableOp")
                   .Input("h")
                   .Input("v")
                   .Attr("dtype", value.dtype())
                   .Attr("validate_shape", validate_shape)
                   .Build(),
               {handle, value})
        .status();
  }

  absl::Status Update(const std::string& op, const Tensor& handle,
                      const Tensor& value) {
    return Run(NodeDefBuilder("update", op)
                   .Input("h")
                   .Input("v")
                   .Attr("dtype", value.dtype())
                   .Build(),
               {handle, value})
        .status();
  }

  absl::StatusOr<Tensor> Read(const Tensor& handle,
                              DataType dtype = DT_FLOAT) {
    TRIB_ASSIGN_OR_RETURN(
        std::vector<Tensor> out,
        Run(NodeDefBuilder("read", "ReadVariableOp")
                .Input("h")
                .Attr("dtype", dtype)
                .Build(),
            {handle}));
    return out[0];
  }

  bool IsInitialized(const Tensor& handle) {
    absl::StatusOr<std::vector<Tensor>> out =
        Run(NodeDefBuilder("init?", "VarIsInitializedOp").Input("h").Build(),
            {handle});
    EXPECT_TRUE(out.ok()) << out.status();
    return (*out)[0].scalar<bool>()();
  }

  absl::Status Destroy(const Tensor& handle, bool ignore_lookup_error) {
    return Run(NodeDefBuilder("destroy", "DestroyResourceOp")
                   .Input("h")
                   .Attr("ignore_lookup_error", ignore_lookup_error)
                   .Build(),
               {handle})
        .status();
  }

  ResourceMgr rm_;
};

TEST_F(ResourceVariableTest, HandleNamesTheVariable) {
  Tensor h = Handle("w");
  ASSERT_EQ(h.dtype(), DT_RESOURCE);
  const ResourceHandle& handle = h.scalar<ResourceHandle>()();
  EXPECT_EQ(handle.container(), "localhost");
  EXPECT_EQ(handle.name(), "w");
  EXPECT_EQ(handle.device(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(handle.hash_code(), ResourceTypeIndex::Make<Var>().hash_code());
  ASSERT_EQ(handle.dtypes_and_shapes_size(), 1);
  EXPECT_EQ(handle.dtypes_and_shapes(0).dtype(), tensorflow::DT_FLOAT);
  EXPECT_EQ(Handle("w", DT_FLOAT, "exp").scalar<ResourceHandle>()().container(),
            "exp");
}

TEST_F(ResourceVariableTest, ReadBeforeAssignIsFailedPreconditionNamingIt) {
  Tensor h = Handle("w");
  absl::StatusOr<Tensor> value = Read(h);
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(value.status().message());
  EXPECT_NE(message.find("Could not find variable w."), std::string::npos)
      << message;
  EXPECT_NE(message.find("localhost/w"), std::string::npos) << message;
  EXPECT_FALSE(IsInitialized(h));
}

TEST_F(ResourceVariableTest, AssignReadUpdate) {
  Tensor h = Handle("w");
  ASSERT_TRUE(Assign(h, test::AsTensor<float>({1, 2})).ok());
  EXPECT_TRUE(IsInitialized(h));
  test::ExpectTensorEqual<float>(*Read(h), test::AsTensor<float>({1, 2}));
  ASSERT_TRUE(
      Update("AssignAddVariableOp", h, test::AsTensor<float>({10, 10})).ok());
  ASSERT_TRUE(
      Update("AssignSubVariableOp", h, test::AsTensor<float>({1, 2})).ok());
  test::ExpectTensorEqual<float>(*Read(h), test::AsTensor<float>({10, 10}));
  // Another handle kernel for the same name sees the same variable.
  test::ExpectTensorEqual<float>(*Read(Handle("w")),
                                 test::AsTensor<float>({10, 10}));
  // Other containers do not.
  EXPECT_FALSE(Read(Handle("w", DT_FLOAT, "exp")).ok());
}

TEST_F(ResourceVariableTest, ReadsAreSnapshots) {
  Tensor h = Handle("w");
  Tensor init = test::AsTensor<int64_t>({1, 2});
  ASSERT_TRUE(Assign(h, init).ok());
  Tensor before = *Read(h, DT_INT64);
  ASSERT_TRUE(
      Update("AssignAddVariableOp", h, test::AsTensor<int64_t>({5, 5})).ok());
  // Copy-on-write: neither the earlier read nor the assigned input changed.
  test::ExpectTensorEqual<int64_t>(before, test::AsTensor<int64_t>({1, 2}));
  test::ExpectTensorEqual<int64_t>(init, test::AsTensor<int64_t>({1, 2}));
  test::ExpectTensorEqual<int64_t>(*Read(h, DT_INT64),
                                   test::AsTensor<int64_t>({6, 7}));
}

TEST_F(ResourceVariableTest, ValidateShape) {
  Tensor h = Handle("w");
  // The first assignment defines the shape, whatever was declared.
  ASSERT_TRUE(Assign(h, test::AsTensor<float>({1, 2, 3}), true).ok());
  absl::Status s = Assign(h, test::AsTensor<float>({1, 2}), true);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Trying to assign to variable with tensor with wrong shape. "
            "Expected [3] got [2]");
  ASSERT_TRUE(Assign(h, test::AsTensor<float>({7}, {1, 1}), false).ok());
  test::ExpectTensorEqual<float>(*Read(h), test::AsTensor<float>({7}, {1, 1}));
  s = Update("AssignAddVariableOp", h, test::AsTensor<float>({1, 2}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Cannot update variable with shape [1,1] using a Tensor with "
            "shape [2], shapes must be equal.");
}

TEST_F(ResourceVariableTest, DtypeMismatches) {
  Tensor h = Handle("w");
  ASSERT_TRUE(Assign(h, test::AsTensor<float>({1, 2})).ok());
  absl::StatusOr<Tensor> read = Read(h, DT_INT32);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(read.status().message(),
            "Trying to read variable with wrong dtype. Expected int32 got "
            "float");
  absl::Status s = Assign(h, test::AsTensor<int32_t>({1, 2}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Trying to assign variable with wrong dtype. Expected float got "
            "int32");
  s = Update("AssignAddVariableOp", h, test::AsTensor<int32_t>({1, 2}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // The value must match the op's own dtype attr.
  s = Run(NodeDefBuilder("assign", "AssignVariableOp")
              .Input("h")
              .Input("v")
              .Attr("dtype", DT_DOUBLE)
              .Build(),
          {h, test::AsTensor<float>({1, 2})})
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ResourceVariableTest, UpdateOfMissingVariableIsNotFound) {
  absl::Status s =
      Update("AssignAddVariableOp", Handle("w"), test::AsTensor<float>({1, 2}));
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(),
            "Container localhost does not exist. (Could not find resource: "
            "localhost/w)");
}

TEST_F(ResourceVariableTest, Destroy) {
  Tensor h = Handle("w");
  ASSERT_TRUE(Assign(h, test::AsTensor<float>({1, 2})).ok());
  ASSERT_TRUE(Destroy(h, false).ok());
  EXPECT_FALSE(IsInitialized(h));
  EXPECT_EQ(Read(h).status().code(), absl::StatusCode::kFailedPrecondition);
  absl::Status s = Destroy(h, false);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "Resource localhost/w/<unknown> does not exist.");
  EXPECT_TRUE(Destroy(h, true).ok());
}

TEST_F(ResourceVariableTest, HandleFromAnotherDeviceIsRejected) {
  ResourceHandle elsewhere = MakeResourceHandle<Var>(
      "/job:localhost/replica:0/task:0/device:CPU:1", "localhost", "w");
  absl::Status s = Assign(MakeResourceHandleTensor(elsewhere),
                          test::AsTensor<float>({1, 2}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("device:CPU:1"), std::string::npos)
      << s;
}

TEST_F(ResourceVariableTest, HandleOfAnotherTypeIsRejected) {
  class Other : public ResourceBase {
   public:
    std::string DebugString() const override { return "other"; }
  };
  ResourceHandle other = MakeResourceHandle<Other>(
      "/job:localhost/replica:0/task:0/device:CPU:0", "localhost", "w");
  absl::StatusOr<Tensor> read = Read(MakeResourceHandleTensor(other));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(read.status().message()).find("wrong type"),
            std::string::npos)
      << read.status();
}

TEST_F(ResourceVariableTest, NoResourceManager) {
  KernelRunner runner;  // No manager set.
  ASSERT_TRUE(runner
                  .Init(NodeDefBuilder("read", "ReadVariableOp")
                            .Input("h")
                            .Attr("dtype", DT_FLOAT)
                            .Build())
                  .ok());
  absl::StatusOr<std::vector<Tensor>> out = runner.Run({Handle("w")});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(ResourceVariableTest, ConcurrentUpdatesAndReads) {
  Tensor h = Handle("w");
  ASSERT_TRUE(Assign(h, Tensor(DT_INT64, TensorShape({16}))).ok());
  ASSERT_TRUE(
      Assign(h, test::AsTensor<int64_t>(std::vector<int64_t>(16, 0))).ok());
  constexpr int kThreads = 6;
  constexpr int kUpdates = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kUpdates; ++i) {
        ASSERT_TRUE(Update("AssignAddVariableOp", h,
                           test::AsTensor<int64_t>(std::vector<int64_t>(16, 1)))
                        .ok());
        if (t % 2 == 0) {
          // A snapshot is internally consistent: all elements equal.
          absl::StatusOr<Tensor> r = Read(h, DT_INT64);
          ASSERT_TRUE(r.ok());
          auto flat = r->flat<int64_t>();
          for (int k = 1; k < 16; ++k) ASSERT_EQ(flat(k), flat(0));
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Tensor final_value = *Read(h, DT_INT64);
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(final_value.flat<int64_t>()(k), kThreads * kUpdates);
  }
}

}  // namespace
}  // namespace tributary
