// The TensorArray*V3 and Stack*V2 kernels chained by hand through one
// ResourceMgr and step container: writes, reads, clear_after_read, sizes,
// dynamic growth, scatter/gather, split/concat, gradient arrays (found again
// by source, aggregating writes, zeros of the forward shapes), the step
// container's cleanup, stacks, and TensorFlow's errors. Also ConcatOffset and
// InvertPermutation (kernels/array), which the same gradients use.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/resource/resource_mgr.h"
#include "common/resource/step_container.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

Tensor F32(const std::vector<float>& v, const TensorShape& shape) {
  return test::AsTensor<float>(v, shape);
}
Tensor I32(const std::vector<int32_t>& v) { return test::AsTensor<int32_t>(v); }
Tensor Scalar(int32_t v) { return test::AsScalar<int32_t>(v); }
Tensor Flow() { return test::AsScalar<float>(0.0f); }

class TensorArrayTest : public ::testing::Test {
 protected:
  TensorArrayTest()
      : step_(std::make_unique<ScopedStepContainer>(7, &rm_)) {}

  absl::StatusOr<std::vector<Tensor>> Run(const tensorflow::NodeDef& def,
                                          const std::vector<Tensor>& inputs) {
    KernelRunner runner;
    runner.set_resource_manager(&rm_);
    runner.set_step_id(7);
    TRIB_RETURN_IF_ERROR(runner.Init(def));
    return runner.Run(inputs);
  }

  Tensor RunOne(const tensorflow::NodeDef& def, const std::vector<Tensor>& in,
                int output = 0) {
    absl::StatusOr<std::vector<Tensor>> out = Run(def, in);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return Tensor();
    return (*out)[output];
  }

  // A new array's handle.
  Tensor Make(int32_t size, bool dynamic = false, bool clear = true,
              PartialTensorShape shape = PartialTensorShape(),
              DataType dtype = DT_FLOAT) {
    return RunOne(NodeDefBuilder("ta", "TensorArrayV3")
                      .Input("size")
                      .Attr("dtype", dtype)
                      .Attr("element_shape", shape)
                      .Attr("dynamic_size", dynamic)
                      .Attr("clear_after_read", clear)
                      .Build(),
                  {Scalar(size)});
  }

  absl::Status Write(const Tensor& h, int32_t index, const Tensor& value) {
    return Run(NodeDefBuilder("w", "TensorArrayWriteV3")
                   .Input("h").Input("i").Input("v").Input("f")
                   .Attr("T", value.dtype())
                   .Build(),
               {h, Scalar(index), value, Flow()})
        .status();
  }

  absl::StatusOr<Tensor> Read(const Tensor& h, int32_t index,
                              DataType dtype = DT_FLOAT) {
    TRIB_ASSIGN_OR_RETURN(
        std::vector<Tensor> out,
        Run(NodeDefBuilder("r", "TensorArrayReadV3")
                .Input("h").Input("i").Input("f")
                .Attr("dtype", dtype)
                .Build(),
            {h, Scalar(index), Flow()}));
    return out[0];
  }

  int32_t Size(const Tensor& h) {
    Tensor t = RunOne(NodeDefBuilder("s", "TensorArraySizeV3")
                          .Input("h").Input("f").Build(),
                      {h, Flow()});
    return t.scalar<int32_t>()();
  }

  absl::StatusOr<Tensor> Gather(const Tensor& h, const Tensor& indices,
                                PartialTensorShape shape = PartialTensorShape()) {
    TRIB_ASSIGN_OR_RETURN(
        std::vector<Tensor> out,
        Run(NodeDefBuilder("g", "TensorArrayGatherV3")
                .Input("h").Input("i").Input("f")
                .Attr("dtype", DT_FLOAT)
                .Attr("element_shape", shape)
                .Build(),
            {h, indices, Flow()}));
    return out[0];
  }

  Tensor Grad(const Tensor& h, const std::string& source) {
    return RunOne(NodeDefBuilder("grad", "TensorArrayGradV3")
                      .Input("h").Input("f")
                      .Attr("source", source)
                      .Build(),
                  {h, Flow()});
  }

  ResourceMgr rm_;
  std::unique_ptr<ScopedStepContainer> step_;
};

TEST_F(TensorArrayTest, WriteReadSize) {
  Tensor h = Make(3);
  EXPECT_EQ(h.dtype(), DT_RESOURCE);
  // The flow output is a float scalar.
  Tensor flow = RunOne(NodeDefBuilder("ta", "TensorArrayV3")
                           .Input("size").Attr("dtype", DT_FLOAT).Build(),
                       {Scalar(1)}, 1);
  EXPECT_EQ(flow.dtype(), DT_FLOAT);
  EXPECT_EQ(flow.dims(), 0);

  ASSERT_TRUE(Write(h, 0, F32({1, 2}, {2})).ok());
  ASSERT_TRUE(Write(h, 2, F32({5, 6}, {2})).ok());
  EXPECT_EQ(Size(h), 3);
  auto v = Read(h, 2);
  ASSERT_TRUE(v.ok()) << v.status();
  test::ExpectTensorEqual<float>(*v, F32({5, 6}, {2}));
}

TEST_F(TensorArrayTest, TensorFlowErrors) {
  Tensor h = Make(2);
  ASSERT_TRUE(Write(h, 0, F32({1}, {1})).ok());
  // Writing twice.
  absl::Status s = Write(h, 0, F32({2}, {1}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "already been written to")) << s;
  // Past a fixed size.
  s = Write(h, 2, F32({2}, {1}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "not resizeable and size is: 2"))
      << s;
  // Wrong dtype.
  s = Write(h, 1, test::AsTensor<int32_t>({1}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "TensorArray dtype is float"))
      << s;
  EXPECT_TRUE(absl::IsInvalidArgument(Read(h, 0, DT_INT32).status()));
  // Out of range read.
  s = Read(h, 5).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  // clear_after_read: the second read fails.
  ASSERT_TRUE(Read(h, 0).ok());
  s = Read(h, 0).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "clear_after_read")) << s;
  // An unwritten index with an unknown element shape.
  s = Read(h, 1).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "element shape is not fully"))
      << s;
  // Closed.
  ASSERT_TRUE(Run(NodeDefBuilder("c", "TensorArrayCloseV3").Input("h").Build(),
                  {h})
                  .ok());
  s = Write(h, 1, F32({1}, {1}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "already been closed")) << s;
}

TEST_F(TensorArrayTest, ElementShapeAndZeros) {
  Tensor h = Make(2, false, false, PartialTensorShape({2}));
  // Incompatible with element_shape.
  absl::Status s = Write(h, 0, F32({1, 2, 3}, {3}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  // An unwritten index of a fully defined shape reads as zeros.
  auto v = Read(h, 1);
  ASSERT_TRUE(v.ok()) << v.status();
  test::ExpectTensorEqual<float>(*v, F32({0, 0}, {2}));
  // Without clear_after_read an element reads many times.
  ASSERT_TRUE(Write(h, 0, F32({3, 4}, {2})).ok());
  ASSERT_TRUE(Read(h, 0).ok());
  v = Read(h, 0);
  ASSERT_TRUE(v.ok()) << v.status();
  test::ExpectTensorEqual<float>(*v, F32({3, 4}, {2}));
}

TEST_F(TensorArrayTest, DynamicSizeGrows) {
  Tensor h = Make(0, /*dynamic=*/true);
  ASSERT_TRUE(Write(h, 4, F32({1}, {1})).ok());
  EXPECT_EQ(Size(h), 5);
}

TEST_F(TensorArrayTest, ScatterGather) {
  Tensor h = Make(3);
  auto out = Run(NodeDefBuilder("sc", "TensorArrayScatterV3")
                     .Input("h").Input("i").Input("v").Input("f")
                     .Attr("T", DT_FLOAT)
                     .Build(),
                 {h, I32({2, 0, 1}), F32({1, 2, 3, 4, 5, 6}, {3, 2}), Flow()});
  ASSERT_TRUE(out.ok()) << out.status();
  auto g = Gather(h, I32({0, 1, 2}));
  ASSERT_TRUE(g.ok()) << g.status();
  test::ExpectTensorEqual<float>(*g, F32({3, 4, 5, 6, 1, 2}, {3, 2}));
  // Mismatched lengths.
  absl::Status s =
      Run(NodeDefBuilder("sc", "TensorArrayScatterV3")
              .Input("h").Input("i").Input("v").Input("f")
              .Attr("T", DT_FLOAT)
              .Build(),
          {Make(3), I32({0, 1}), F32({1, 2, 3}, {3}), Flow()})
          .status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  // Gathering nothing needs a known element shape.
  auto empty = Gather(Make(0), I32({}), PartialTensorShape({2}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape().DebugString(), TensorShape({0, 2}).DebugString());
}

TEST_F(TensorArrayTest, SplitConcat) {
  Tensor h = Make(2);
  auto out = Run(NodeDefBuilder("sp", "TensorArraySplitV3")
                     .Input("h").Input("v").Input("l").Input("f")
                     .Attr("T", DT_FLOAT)
                     .Build(),
                 {h, F32({1, 2, 3, 4, 5, 6}, {3, 2}),
                  test::AsTensor<int64_t>({1, 2}), Flow()});
  ASSERT_TRUE(out.ok()) << out.status();
  auto v = Read(h, 1);
  ASSERT_TRUE(v.ok());
  test::ExpectTensorEqual<float>(*v, F32({3, 4, 5, 6}, {2, 2}));

  Tensor h2 = Make(2);
  ASSERT_TRUE(Write(h2, 0, F32({1, 2}, {1, 2})).ok());
  ASSERT_TRUE(Write(h2, 1, F32({3, 4, 5, 6}, {2, 2})).ok());
  auto c = Run(NodeDefBuilder("cc", "TensorArrayConcatV3")
                   .Input("h").Input("f")
                   .Attr("dtype", DT_FLOAT)
                   .Build(),
               {h2, Flow()});
  ASSERT_TRUE(c.ok()) << c.status();
  test::ExpectTensorEqual<float>((*c)[0], F32({1, 2, 3, 4, 5, 6}, {3, 2}));
  test::ExpectTensorEqual<int64_t>((*c)[1], test::AsTensor<int64_t>({1, 2}));
  // Lengths that do not add up.
  absl::Status s = Run(NodeDefBuilder("sp", "TensorArraySplitV3")
                           .Input("h").Input("v").Input("l").Input("f")
                           .Attr("T", DT_FLOAT)
                           .Build(),
                       {Make(2), F32({1, 2, 3}, {3}),
                        test::AsTensor<int64_t>({1, 1}), Flow()})
                     .status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST_F(TensorArrayTest, GradientArrays) {
  Tensor h = Make(3);
  ASSERT_TRUE(Write(h, 0, F32({1, 2}, {2})).ok());
  ASSERT_TRUE(Write(h, 1, F32({3, 4}, {2})).ok());
  Tensor g1 = Grad(h, "gradients");
  Tensor g2 = Grad(h, "gradients");
  Tensor other = Grad(h, "gradients_1");
  // Same source, same array: writes through one are read through the other.
  ASSERT_TRUE(Write(g1, 0, F32({1, 1}, {2})).ok());
  ASSERT_TRUE(Write(g2, 0, F32({2, 3}, {2})).ok());  // Aggregates.
  auto v = Read(g1, 0);
  ASSERT_TRUE(v.ok()) << v.status();
  test::ExpectTensorEqual<float>(*v, F32({3, 4}, {2}));
  // A write after the read is refused.
  absl::Status s = Write(g1, 0, F32({1, 1}, {2}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  // An index nobody wrote reads as zeros of the forward element's shape.
  v = Read(g2, 1);
  ASSERT_TRUE(v.ok()) << v.status();
  test::ExpectTensorEqual<float>(*v, F32({0, 0}, {2}));
  // Another source is another array.
  EXPECT_EQ(Size(other), 3);
  v = Read(other, 0);
  ASSERT_TRUE(v.ok()) << v.status();
  test::ExpectTensorEqual<float>(*v, F32({0, 0}, {2}));
  // Aggregating another shape fails.
  ASSERT_TRUE(Write(other, 1, F32({1, 1}, {2})).ok());
  s = Write(other, 1, F32({1}, {1}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;

  // TensorArrayGradWithShape prepends shape_to_prepend.
  auto gs = Run(NodeDefBuilder("gws", "TensorArrayGradWithShape")
                    .Input("h").Input("f").Input("s")
                    .Attr("source", "ws")
                    .Build(),
                {h, Flow(), I32({3})});
  ASSERT_TRUE(gs.ok()) << gs.status();
  v = Read((*gs)[0], 1);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->shape().DebugString(), TensorShape({3, 2}).DebugString());
}

TEST_F(TensorArrayTest, StepContainerCleanup) {
  Tensor h = Make(1);
  ASSERT_TRUE(Write(h, 0, F32({1}, {1})).ok());
  EXPECT_TRUE(rm_.HasContainer("__per_step_7"));
  step_.reset();  // The step ends.
  EXPECT_FALSE(rm_.HasContainer("__per_step_7"));
  absl::Status s = Read(h, 0).status();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
}

TEST_F(TensorArrayTest, Stacks) {
  Tensor h = RunOne(NodeDefBuilder("st", "StackV2")
                        .Input("m")
                        .Attr("elem_type", DT_FLOAT)
                        .Attr("stack_name", "s")
                        .Build(),
                    {Scalar(-1)});
  auto push = [&](float x) {
    return Run(NodeDefBuilder("push", "StackPushV2")
                   .Input("h").Input("e")
                   .Attr("T", DT_FLOAT)
                   .Build(),
               {h, test::AsScalar<float>(x)});
  };
  auto pop = [&]() {
    return Run(NodeDefBuilder("pop", "StackPopV2")
                   .Input("h")
                   .Attr("elem_type", DT_FLOAT)
                   .Build(),
               {h});
  };
  auto pushed = push(1);
  ASSERT_TRUE(pushed.ok()) << pushed.status();
  test::ExpectTensorEqual<float>((*pushed)[0], test::AsScalar<float>(1));
  ASSERT_TRUE(push(2).ok());
  auto p = pop();
  ASSERT_TRUE(p.ok()) << p.status();
  test::ExpectTensorEqual<float>((*p)[0], test::AsScalar<float>(2));
  p = pop();
  ASSERT_TRUE(p.ok()) << p.status();
  test::ExpectTensorEqual<float>((*p)[0], test::AsScalar<float>(1));
  p = pop();
  EXPECT_TRUE(absl::IsInvalidArgument(p.status())) << p.status();
  EXPECT_TRUE(absl::StrContains(p.status().message(), "is empty")) << p.status();
  // Bounded stacks overflow.
  Tensor bounded = RunOne(NodeDefBuilder("st", "StackV2")
                              .Input("m").Attr("elem_type", DT_FLOAT).Build(),
                          {Scalar(0)});
  absl::Status s = Run(NodeDefBuilder("push", "StackPushV2")
                           .Input("h").Input("e").Attr("T", DT_FLOAT).Build(),
                       {bounded, test::AsScalar<float>(1)})
                       .status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  ASSERT_TRUE(Run(NodeDefBuilder("close", "StackCloseV2").Input("h").Build(), {h})
                  .ok());
  EXPECT_TRUE(absl::IsInvalidArgument(push(3).status()));
}

TEST_F(TensorArrayTest, ConcatOffsetAndInvertPermutation) {
  auto out = Run(NodeDefBuilder("co", "ConcatOffset")
                     .Input("d").Input("a").Input("b").Input("c")
                     .Attr("N", 3)
                     .Build(),
                 {Scalar(1), I32({2, 3, 5}), I32({2, 4, 5}), I32({2, 1, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<int32_t>((*out)[0], I32({0, 0, 0}));
  test::ExpectTensorEqual<int32_t>((*out)[1], I32({0, 3, 0}));
  test::ExpectTensorEqual<int32_t>((*out)[2], I32({0, 7, 0}));
  absl::Status s = Run(NodeDefBuilder("co", "ConcatOffset")
                           .Input("d").Input("a").Input("b")
                           .Attr("N", 2)
                           .Build(),
                       {Scalar(1), I32({2, 3}), I32({3, 4})})
                       .status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;

  auto inv = Run(NodeDefBuilder("ip", "InvertPermutation").Input("x").Build(),
                 {I32({2, 0, 1})});
  ASSERT_TRUE(inv.ok()) << inv.status();
  test::ExpectTensorEqual<int32_t>((*inv)[0], I32({1, 2, 0}));
  s = Run(NodeDefBuilder("ip", "InvertPermutation").Input("x").Build(),
          {I32({0, 0})})
          .status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

}  // namespace
}  // namespace tributary
