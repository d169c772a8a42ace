// VariableV2 / Assign / AssignAdd / AssignSub / IsVariableInitialized,
// run one kernel at a time through KernelRunner with ref inputs.

#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/resource/resource_mgr.h"
#include "gtest/gtest.h"
#include "kernels/state/legacy_var.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

tensorflow::NodeDef VariableNode(const std::string& name, DataType dtype,
                                 std::initializer_list<int64_t> shape,
                                 const std::string& container = "",
                                 const std::string& shared_name = "") {
  return NodeDefBuilder(name, "VariableV2")
      .Attr("dtype", dtype)
      .Attr("shape", TensorShape(shape))
      .Attr("container", container)
      .Attr("shared_name", shared_name)
      .Build();
}

// A VariableV2 kernel run once against `rm`; keeps the runner (and so the
// ref it produced) alive.
struct VariableRef {
  std::unique_ptr<KernelRunner> runner;
  Tensor* tensor = nullptr;
  absl::Mutex* mu = nullptr;

  Tensor Value() const {
    absl::MutexLock l(mu);
    return *tensor;
  }
};

VariableRef RunVariable(ResourceMgr* rm, const tensorflow::NodeDef& def) {
  VariableRef ref;
  ref.runner = std::make_unique<KernelRunner>();
  ref.runner->set_resource_manager(rm);
  absl::Status s = ref.runner->Init(def);
  EXPECT_TRUE(s.ok()) << s;
  s = ref.runner->RunWithCurrentInputs();
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return ref;
  EXPECT_TRUE(ref.runner->output_is_ref(0));
  ref.tensor = ref.runner->output_ref_tensor(0);
  ref.mu = ref.runner->output_ref_mutex(0);
  return ref;
}

// Runs a kernel whose input 0 is `var`'s ref and the rest plain values.
absl::Status RunOnRef(KernelRunner* runner, const tensorflow::NodeDef& def,
                      const VariableRef& var,
                      const std::vector<Tensor>& values) {
  TRIB_RETURN_IF_ERROR(runner->Init(def));
  runner->ClearInputs();
  runner->AddRefInput(var.tensor, var.mu);
  for (const Tensor& v : values) runner->AddInput(v);
  return runner->RunWithCurrentInputs();
}

tensorflow::NodeDef AssignNode(DataType dtype, bool validate_shape = true,
                               bool use_locking = true) {
  return NodeDefBuilder("assign", "Assign")
      .Input("w")
      .Input("value")
      .Attr("T", dtype)
      .Attr("validate_shape", validate_shape)
      .Attr("use_locking", use_locking)
      .Build();
}

tensorflow::NodeDef UpdateNode(const std::string& op, DataType dtype,
                               bool use_locking = false) {
  return NodeDefBuilder("update", op)
      .Input("w")
      .Input("value")
      .Attr("T", dtype)
      .Attr("use_locking", use_locking)
      .Build();
}

bool IsInitialized(const VariableRef& var) {
  KernelRunner runner;
  EXPECT_TRUE(runner
                  .Init(NodeDefBuilder("init?", "IsVariableInitialized")
                            .Input("w")
                            .Attr("dtype", var.tensor->dtype())
                            .Build())
                  .ok());
  runner.AddRefInput(var.tensor, var.mu);
  EXPECT_TRUE(runner.RunWithCurrentInputs().ok());
  return runner.output(0).scalar<bool>()();
}

TEST(VariableV2Test, StartsUninitialisedWithDeclaredShape) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_FLOAT, {2, 3}));
  ASSERT_NE(w.tensor, nullptr);
  EXPECT_EQ(w.tensor->dtype(), DT_FLOAT);
  EXPECT_EQ(w.tensor->shape(), TensorShape({2, 3}));
  EXPECT_FALSE(w.tensor->IsInitialized());
  EXPECT_FALSE(IsInitialized(w));
  EXPECT_EQ(w.runner->kernel()->IsExpensive(), false);
}

TEST(VariableV2Test, ValuePersistsAcrossKernelsAndRunsInOneResourceMgr) {
  ResourceMgr rm;
  {
    VariableRef w = RunVariable(&rm, VariableNode("w", DT_FLOAT, {2}));
    KernelRunner assign;
    ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_FLOAT), w,
                         {test::AsTensor<float>({1, 2})})
                    .ok());
    EXPECT_TRUE(IsInitialized(w));
    // The Assign output is the same reference.
    EXPECT_TRUE(assign.output_is_ref(0));
    EXPECT_EQ(assign.output_ref_tensor(0), w.tensor);
  }
  // A new kernel for the node (e.g. a later Run's executor) finds it again.
  VariableRef again = RunVariable(&rm, VariableNode("w", DT_FLOAT, {2}));
  test::ExpectTensorEqual<float>(again.Value(), test::AsTensor<float>({1, 2}));
  // ... but another session's manager does not.
  ResourceMgr other;
  VariableRef fresh = RunVariable(&other, VariableNode("w", DT_FLOAT, {2}));
  EXPECT_FALSE(fresh.tensor->IsInitialized());
}

TEST(VariableV2Test, KeyedByContainerAndSharedName) {
  ResourceMgr rm;
  VariableRef a = RunVariable(&rm, VariableNode("a", DT_FLOAT, {}, "", "s"));
  VariableRef b = RunVariable(&rm, VariableNode("b", DT_FLOAT, {}, "", "s"));
  VariableRef c = RunVariable(&rm, VariableNode("c", DT_FLOAT, {}, "exp", "s"));
  EXPECT_EQ(a.tensor, b.tensor);  // Same shared_name: one variable.
  EXPECT_NE(a.tensor, c.tensor);  // Other container.
  RefCountPtr<LegacyVar> in_default;
  EXPECT_TRUE(rm.Lookup<LegacyVar>("localhost", "s", &in_default).ok());
  RefCountPtr<LegacyVar> in_exp;
  EXPECT_TRUE(rm.Lookup<LegacyVar>("exp", "s", &in_exp).ok());
  // Cleanup of a container drops its variables.
  c.runner.reset();
  ASSERT_TRUE(rm.Cleanup("exp").ok());
  EXPECT_FALSE(rm.HasContainer("exp"));
}

TEST(VariableV2Test, SharedNameWithAnotherDtypeIsAnError) {
  ResourceMgr rm;
  VariableRef a = RunVariable(&rm, VariableNode("a", DT_FLOAT, {}, "", "s"));
  KernelRunner runner;
  runner.set_resource_manager(&rm);
  ASSERT_TRUE(runner.Init(VariableNode("b", DT_DOUBLE, {}, "", "s")).ok());
  absl::Status s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("localhost/s"), std::string::npos)
      << s;
}

TEST(VariableV2Test, BadAttrsFailAtConstruction) {
  KernelRunner runner;
  absl::Status s = runner.Init(VariableNode("w", DT_FLOAT, {}, "", "_x"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  s = runner.Init(VariableNode("w", DT_FLOAT, {}, "bad container", ""));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(VariableV2Test, ShapeMustBeFullyDefinedOrUnknownRank) {
  KernelRunner runner;
  tensorflow::NodeDef partial = VariableNode("w", DT_FLOAT, {});
  AddNodeAttr("shape", PartialTensorShape({-1, 2}), &partial);
  absl::Status s = runner.Init(partial);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("Shape [?,2] is not fully defined"),
            std::string::npos)
      << s;

  // Unknown rank: an uninitialised variable that Assign(validate_shape=
  // false) shapes.
  ResourceMgr rm;
  tensorflow::NodeDef unknown = VariableNode("u", DT_FLOAT, {});
  AddNodeAttr("shape", PartialTensorShape(), &unknown);
  VariableRef u = RunVariable(&rm, unknown);
  ASSERT_NE(u.tensor, nullptr);
  EXPECT_FALSE(u.tensor->IsInitialized());
  KernelRunner assign;
  ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_FLOAT, false), u,
                       {test::AsTensor<float>({1, 2, 3})})
                  .ok());
  test::ExpectTensorEqual<float>(u.Value(), test::AsTensor<float>({1, 2, 3}));
}

TEST(VariableV2Test, NoResourceManagerIsFailedPrecondition) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(VariableNode("w", DT_FLOAT, {})).ok());
  absl::Status s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(s.message()).find("'w'"), std::string::npos) << s;
}

TEST(AssignTest, ValidateShapeRejectsOtherShapes) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_FLOAT, {2}));
  KernelRunner assign;
  absl::Status s = RunOnRef(&assign, AssignNode(DT_FLOAT), w,
                            {test::AsTensor<float>({1, 2, 3})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Assign requires shapes of both tensors to match. lhs shape= [2] "
            "rhs shape= [3]");
  EXPECT_FALSE(w.tensor->IsInitialized());
}

TEST(AssignTest, WithoutValidateShapeTheVariableTakesTheNewShape) {
  for (bool use_locking : {true, false}) {
    ResourceMgr rm;
    VariableRef w = RunVariable(&rm, VariableNode("w", DT_FLOAT, {2}));
    KernelRunner assign;
    ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_FLOAT, false, use_locking), w,
                         {test::AsTensor<float>({1, 2, 3})})
                    .ok());
    test::ExpectTensorEqual<float>(w.Value(),
                                   test::AsTensor<float>({1, 2, 3}));
    // Same element count, new shape: reuses the buffer, reshaped.
    const void* buffer = w.tensor->data();
    ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_FLOAT, false, use_locking), w,
                         {test::AsTensor<float>({4, 5, 6}, {3, 1})})
                    .ok());
    test::ExpectTensorEqual<float>(w.Value(),
                                   test::AsTensor<float>({4, 5, 6}, {3, 1}));
    EXPECT_EQ(w.tensor->data(), buffer);
  }
}

TEST(AssignTest, ReassignWritesIntoTheSameBuffer) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_INT64, {2}));
  KernelRunner assign;
  ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_INT64), w,
                       {test::AsTensor<int64_t>({1, 2})})
                  .ok());
  // A reader holding the variable's tensor (a TF1 ref read) sees later
  // assignments: reference semantics.
  Tensor reader = w.Value();
  ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_INT64), w,
                       {test::AsTensor<int64_t>({7, 8})})
                  .ok());
  test::ExpectTensorEqual<int64_t>(reader, test::AsTensor<int64_t>({7, 8}));
}

TEST(AssignTest, StringAndBoolVariables) {
  ResourceMgr rm;
  VariableRef s = RunVariable(&rm, VariableNode("s", DT_STRING, {2}));
  KernelRunner assign;
  ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_STRING), s,
                       {test::AsTensor<std::string>({"a", "bc"})})
                  .ok());
  ASSERT_TRUE(RunOnRef(&assign, AssignNode(DT_STRING), s,
                       {test::AsTensor<std::string>({"x", "yz"})})
                  .ok());
  test::ExpectTensorEqual<std::string>(
      s.Value(), test::AsTensor<std::string>({"x", "yz"}));
  VariableRef b = RunVariable(&rm, VariableNode("b", DT_BOOL, {}));
  ASSERT_TRUE(
      RunOnRef(&assign, AssignNode(DT_BOOL), b, {test::AsScalar<bool>(true)})
          .ok());
  EXPECT_TRUE(b.Value().scalar<bool>()());
}

TEST(AssignAddSubTest, UpdateInPlace) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_FLOAT, {3}));
  KernelRunner runner;
  ASSERT_TRUE(RunOnRef(&runner, AssignNode(DT_FLOAT), w,
                       {test::AsTensor<float>({1, 2, 3})})
                  .ok());
  for (bool use_locking : {false, true}) {
    ASSERT_TRUE(RunOnRef(&runner, UpdateNode("AssignAdd", DT_FLOAT, use_locking),
                         w, {test::AsTensor<float>({10, 20, 30})})
                    .ok());
    EXPECT_EQ(runner.output_ref_tensor(0), w.tensor);
    ASSERT_TRUE(RunOnRef(&runner, UpdateNode("AssignSub", DT_FLOAT, use_locking),
                         w, {test::AsTensor<float>({1, 1, 1})})
                    .ok());
  }
  test::ExpectTensorEqual<float>(w.Value(),
                                 test::AsTensor<float>({19, 40, 61}));
}

TEST(AssignAddSubTest, IntegerTypes) {
  ResourceMgr rm;
  VariableRef i = RunVariable(&rm, VariableNode("i", DT_INT32, {2}));
  KernelRunner runner;
  ASSERT_TRUE(RunOnRef(&runner, AssignNode(DT_INT32), i,
                       {test::AsTensor<int32_t>({3, 4})})
                  .ok());
  ASSERT_TRUE(RunOnRef(&runner, UpdateNode("AssignSub", DT_INT32), i,
                       {test::AsTensor<int32_t>({5, 5})})
                  .ok());
  test::ExpectTensorEqual<int32_t>(i.Value(),
                                   test::AsTensor<int32_t>({-2, -1}));
}

TEST(AssignAddSubTest, UninitialisedIsFailedPreconditionNamingTheVariable) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_DOUBLE, {2}));
  KernelRunner runner;
  absl::Status s = RunOnRef(&runner, UpdateNode("AssignAdd", DT_DOUBLE), w,
                            {test::AsTensor<double>({1, 2})});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "Attempting to use uninitialized parameters: w");
}

TEST(AssignAddSubTest, ShapeMismatchNamesBothShapes) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_FLOAT, {2}));
  KernelRunner runner;
  ASSERT_TRUE(RunOnRef(&runner, AssignNode(DT_FLOAT), w,
                       {test::AsTensor<float>({1, 2})})
                  .ok());
  absl::Status s = RunOnRef(&runner, UpdateNode("AssignAdd", DT_FLOAT), w,
                            {test::AsTensor<float>({1, 2, 3})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("[2]"), std::string::npos) << s;
  EXPECT_NE(std::string(s.message()).find("[3]"), std::string::npos) << s;
}

TEST(AssignAddSubTest, NoKernelForBool) {
  KernelRunner runner;
  absl::Status s = runner.Init(UpdateNode("AssignAdd", DT_BOOL));
  EXPECT_FALSE(s.ok());
}

TEST(AssignAddSubTest, ConcurrentLockedUpdatesAreExact) {
  ResourceMgr rm;
  VariableRef w = RunVariable(&rm, VariableNode("w", DT_INT64, {64}));
  {
    KernelRunner runner;
    ASSERT_TRUE(RunOnRef(&runner, AssignNode(DT_INT64), w,
                         {Tensor(DT_INT64, TensorShape({64}))})
                    .ok());
    absl::MutexLock l(w.mu);
    w.tensor->flat<int64_t>().setZero();
  }
  constexpr int kThreads = 8;
  constexpr int kUpdates = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      KernelRunner runner(1);
      std::vector<int64_t> ones(64, 1);
      for (int i = 0; i < kUpdates; ++i) {
        ASSERT_TRUE(RunOnRef(&runner, UpdateNode("AssignAdd", DT_INT64, true),
                             w, {test::AsTensor<int64_t>(ones)})
                        .ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Tensor value = w.Value();
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(value.flat<int64_t>()(i), kThreads * kUpdates);
  }
}

}  // namespace
}  // namespace tributary
