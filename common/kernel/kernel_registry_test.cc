#include "common/kernel/kernel_registry.h"

#include <memory>
#include <string>

#include "common/kernel/device_base.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// ---- Test ops and kernels (names prefixed Krt so they never clash) --------

REGISTER_OP("KrtAdd")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {float, int32, string}");

REGISTER_OP("KrtPrio").Output("out: T").Attr("T: {float, int32} = DT_FLOAT");

REGISTER_OP("KrtLabel").Output("out: float");

REGISTER_OP("KrtList").Input("in: T").Attr("T: list(type)");

REGISTER_OP("KrtBadCtor").Output("out: float").Attr("fail: bool = false");

// A kernel that does nothing; the template argument tells instances apart in
// kernel_class_name.
template <int kId>
class TestKernel : public OpKernel {
 public:
  explicit TestKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* /*ctx*/) override {}
};

class FailingCtorKernel : public OpKernel {
 public:
  explicit FailingCtorKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool fail = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fail", &fail));
    OP_REQUIRES(ctx, !fail,
                errors::InvalidArgument("told to fail by attr 'fail'"));
    constructed_fully = true;
  }
  void Compute(OpKernelContext* /*ctx*/) override {}
  bool constructed_fully = false;
};

REGISTER_KERNEL_BUILDER(Name("KrtAdd").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        TestKernel<1>);
REGISTER_KERNEL_BUILDER(
    Name("KrtAdd").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    TestKernel<2>);
REGISTER_KERNEL_BUILDER(Name("KrtAdd").Device(DEVICE_GPU).TypeConstraint<float>("T"),
                        TestKernel<3>);

// Two CPU kernels match a float KrtPrio; the higher priority must win
// whatever the registration order.
REGISTER_KERNEL_BUILDER(
    Name("KrtPrio").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
    TestKernel<10>);
REGISTER_KERNEL_BUILDER(Name("KrtPrio").Device(DEVICE_CPU).TypeConstraint(
                            "T", {DT_FLOAT, DT_INT32}),
                        TestKernel<11>);
REGISTER_KERNEL_BUILDER(
    Name("KrtPrio").Device(DEVICE_GPU).TypeConstraint<float>("T").Priority(7),
    TestKernel<12>);

REGISTER_KERNEL_BUILDER(Name("KrtLabel").Device(DEVICE_CPU), TestKernel<20>);
REGISTER_KERNEL_BUILDER(Name("KrtLabel").Device(DEVICE_CPU).Label("special"),
                        TestKernel<21>);

REGISTER_KERNEL_BUILDER(
    Name("KrtList").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_INT32}),
    TestKernel<30>);

REGISTER_KERNEL_BUILDER(Name("KrtBadCtor").Device(DEVICE_CPU),
                        FailingCtorKernel);

// ---- Helpers ---------------------------------------------------------------

tensorflow::NodeDef AddNode(DataType t) {
  tensorflow::NodeDef n;
  n.set_name("add");
  n.set_op("KrtAdd");
  n.add_input("a");
  n.add_input("b");
  AddNodeAttr("T", t, &n);
  return n;
}

tensorflow::NodeDef Node(const std::string& name, const std::string& op) {
  tensorflow::NodeDef n;
  n.set_name(name);
  n.set_op(op);
  return n;
}

std::string ClassFor(const DeviceType& device, const tensorflow::NodeDef& n) {
  const KernelDef* def = nullptr;
  std::string class_name;
  absl::Status s = FindKernelDef(device, n, &def, &class_name);
  if (!s.ok()) return s.ToString();
  return class_name;
}

bool Contains(absl::string_view haystack, absl::string_view needle) {
  return haystack.find(needle) != absl::string_view::npos;
}

// ---- Global registry: lookups ---------------------------------------------

TEST(KernelRegistryTest, StaticRegistrationsAreClean) {
  EXPECT_TRUE(KernelRegistry::Global()->registration_status().ok())
      << KernelRegistry::Global()->registration_status();
  EXPECT_TRUE(ValidateKernelRegistrations(*OpRegistry::Global()).ok())
      << ValidateKernelRegistrations(*OpRegistry::Global());
}

TEST(KernelRegistryTest, LookupByTypeConstraint) {
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), AddNode(DT_FLOAT)),
            "TestKernel<1>");
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), AddNode(DT_INT32)),
            "TestKernel<2>");
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_GPU), AddNode(DT_FLOAT)),
            "TestKernel<3>");
}

TEST(KernelRegistryTest, FindKernelDefReturnsTheDef) {
  const KernelDef* def = nullptr;
  ASSERT_TRUE(FindKernelDef(DeviceType(DEVICE_GPU), AddNode(DT_FLOAT), &def,
                            nullptr)
                  .ok());
  EXPECT_EQ(def->op, "KrtAdd");
  EXPECT_EQ(def->device_type, "GPU");
}

TEST(KernelRegistryTest, NotFoundNamesOpDeviceAttrsAndRegisteredKernels) {
  const KernelDef* def = nullptr;
  absl::Status s =
      FindKernelDef(DeviceType(DEVICE_CPU), AddNode(DT_STRING), &def, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(Contains(
      s.message(),
      "No kernel for op 'KrtAdd' on device CPU with T=DT_STRING; registered: "
      "{device='CPU'; T in [DT_FLOAT]}, {device='CPU'; T in [DT_INT32]}, "
      "{device='GPU'; T in [DT_FLOAT]}"))
      << s;
  // The node itself is summarised last (attrs and inputs).
  EXPECT_TRUE(Contains(s.message(), "KrtAdd[T=DT_STRING](a, b)")) << s;
}

TEST(KernelRegistryTest, NotFoundForDeviceWithoutKernels) {
  const KernelDef* def = nullptr;
  absl::Status s =
      FindKernelDef(DeviceType("TPU"), AddNode(DT_FLOAT), &def, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(Contains(s.message(),
                       "No kernel for op 'KrtAdd' on device TPU with T=DT_FLOAT"))
      << s;
}

TEST(KernelRegistryTest, NotFoundForOpWithoutKernels) {
  const KernelDef* def = nullptr;
  absl::Status s = FindKernelDef(DeviceType(DEVICE_CPU),
                                 Node("n", "KrtNoSuchOp"), &def, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(Contains(s.message(),
                       "No kernel for op 'KrtNoSuchOp' on device CPU; "
                       "registered: <none>"))
      << s;
}

TEST(KernelRegistryTest, HigherPriorityWins) {
  tensorflow::NodeDef n = Node("p", "KrtPrio");
  AddNodeAttr("T", DT_FLOAT, &n);
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), n), "TestKernel<10>");
  // For int32 only the priority-0 kernel matches, and is used.
  AddNodeAttr("T", DT_INT32, &n);
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), n), "TestKernel<11>");
}

TEST(KernelRegistryTest, DefaultAttrValueIsUsedForMatching) {
  // T omitted: the OpDef default (float) selects the kernel.
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), Node("p", "KrtPrio")),
            "TestKernel<10>");
}

TEST(KernelRegistryTest, LabelSelectsKernel) {
  tensorflow::NodeDef n = Node("l", "KrtLabel");
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), n), "TestKernel<20>");
  AddNodeAttr("_kernel", "special", &n);
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), n), "TestKernel<21>");
  AddNodeAttr("_kernel", "unknown", &n);
  const KernelDef* def = nullptr;
  absl::Status s = FindKernelDef(DeviceType(DEVICE_CPU), n, &def, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s.message(), "with label='unknown'")) << s;
}

TEST(KernelRegistryTest, ListTypeConstraintRequiresEveryElement) {
  tensorflow::NodeDef n = Node("list", "KrtList");
  AddNodeAttr("T", {DT_FLOAT, DT_INT32}, &n);
  EXPECT_EQ(ClassFor(DeviceType(DEVICE_CPU), n), "TestKernel<30>");
  AddNodeAttr("T", {DT_FLOAT, DT_STRING}, &n);
  const KernelDef* def = nullptr;
  absl::Status s = FindKernelDef(DeviceType(DEVICE_CPU), n, &def, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(Contains(s.message(), "T=[DT_FLOAT, DT_STRING]")) << s;
}

TEST(KernelRegistryTest, KernelsRegisteredForOpListing) {
  EXPECT_EQ(KernelsRegisteredForOp("KrtAdd"),
            "  device='CPU'; T in [DT_FLOAT]\n"
            "  device='CPU'; T in [DT_INT32]\n"
            "  device='GPU'; T in [DT_FLOAT]\n");
  EXPECT_EQ(KernelsRegisteredForOp("KrtNoSuchOp"),
            "  <no registered kernels>\n");
}

TEST(KernelRegistryTest, SupportedDeviceTypesOrderedByPriority) {
  const std::vector<DeviceType> types = {DeviceType(DEVICE_CPU),
                                         DeviceType(DEVICE_GPU)};
  absl::StatusOr<PrioritizedDeviceTypeVector> add =
      SupportedDeviceTypesForNode(types, AddNode(DT_FLOAT));
  ASSERT_TRUE(add.ok()) << add.status();
  ASSERT_EQ(add->size(), 2u);
  EXPECT_EQ((*add)[0].first, DeviceType(DEVICE_CPU));  // Tie: caller's order.
  EXPECT_EQ((*add)[1].first, DeviceType(DEVICE_GPU));

  absl::StatusOr<PrioritizedDeviceTypeVector> int_add =
      SupportedDeviceTypesForNode(types, AddNode(DT_INT32));
  ASSERT_TRUE(int_add.ok());
  ASSERT_EQ(int_add->size(), 1u);
  EXPECT_EQ((*int_add)[0].first, DeviceType(DEVICE_CPU));

  // GPU kernel has priority 7, CPU's best 5: GPU first.
  absl::StatusOr<PrioritizedDeviceTypeVector> prio =
      SupportedDeviceTypesForNode(types, Node("p", "KrtPrio"));
  ASSERT_TRUE(prio.ok());
  ASSERT_EQ(prio->size(), 2u);
  EXPECT_EQ((*prio)[0], std::make_pair(DeviceType(DEVICE_GPU), 7));
  EXPECT_EQ((*prio)[1], std::make_pair(DeviceType(DEVICE_CPU), 5));
}

TEST(KernelRegistryTest, SupportedDeviceTypesForUnknownOpIsEverything) {
  const std::vector<DeviceType> types = {DeviceType(DEVICE_CPU),
                                         DeviceType(DEVICE_GPU)};
  absl::StatusOr<PrioritizedDeviceTypeVector> r =
      SupportedDeviceTypesForNode(types, Node("f", "KrtSomeFunction"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 2u);
}

// ---- Global registry: construction -----------------------------------------

TEST(KernelRegistryTest, CreateOpKernelBuildsTheSelectedKernel) {
  DeviceBase device;
  absl::StatusOr<std::unique_ptr<OpKernel>> k = CreateOpKernel(
      DeviceType(DEVICE_CPU), &device, nullptr, AddNode(DT_INT32), 1);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_NE(dynamic_cast<TestKernel<2>*>(k->get()), nullptr);
  EXPECT_EQ((*k)->name(), "add");
  EXPECT_EQ((*k)->type_string(), "KrtAdd");
  EXPECT_EQ((*k)->input_types(), DataTypeVector({DT_INT32, DT_INT32}));
  EXPECT_EQ((*k)->output_types(), DataTypeVector({DT_INT32}));
  EXPECT_EQ((*k)->input_memory_types(),
            MemoryTypeVector({HOST_MEMORY, HOST_MEMORY}));
  int start = -1, stop = -1;
  ASSERT_TRUE((*k)->InputRange("y", &start, &stop).ok());
  EXPECT_EQ(start, 1);
  EXPECT_EQ(stop, 2);
  absl::Status bad = (*k)->InputRange("nope", &start, &stop);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(bad.message(), "'nope'")) << bad;
}

TEST(KernelRegistryTest, ConstructorErrorSurfaces) {
  tensorflow::NodeDef n = Node("bad", "KrtBadCtor");
  AddNodeAttr("fail", true, &n);
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, n, 1);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(k.status().message(), "told to fail")) << k.status();
  EXPECT_TRUE(Contains(k.status().message(), "FailingCtorKernel")) << k.status();
  EXPECT_TRUE(Contains(k.status().message(), "KrtBadCtor[fail=true]"))
      << k.status();

  // The default (fail=false) constructs fine.
  absl::StatusOr<std::unique_ptr<OpKernel>> ok = CreateOpKernel(
      DeviceType(DEVICE_CPU), nullptr, nullptr, Node("good", "KrtBadCtor"), 1);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(static_cast<FailingCtorKernel*>(ok->get())->constructed_fully);
}

TEST(KernelRegistryTest, CreateOpKernelForUnknownOp) {
  absl::StatusOr<std::unique_ptr<OpKernel>> k = CreateOpKernel(
      DeviceType(DEVICE_CPU), nullptr, nullptr, Node("x", "KrtNoSuchOp"), 1);
  ASSERT_EQ(k.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(k.status().message(), "KrtNoSuchOp")) << k.status();
}

TEST(KernelRegistryTest, CreateOpKernelRejectsInvalidNode) {
  tensorflow::NodeDef n = AddNode(DT_FLOAT);
  n.clear_input();  // KrtAdd needs two inputs.
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, n, 1);
  ASSERT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument)
      << k.status();
}

TEST(KernelRegistryTest, CreateOpKernelNotFoundUsesSameMessage) {
  absl::StatusOr<std::unique_ptr<OpKernel>> k = CreateOpKernel(
      DeviceType(DEVICE_CPU), nullptr, nullptr, AddNode(DT_STRING), 1);
  ASSERT_EQ(k.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(k.status().message(),
                       "No kernel for op 'KrtAdd' on device CPU with "
                       "T=DT_STRING; registered: "))
      << k.status();
}

// ---- Private registries: registration errors --------------------------------

KernelDef Def(KernelDefBuilder& b) { return *b.Build(); }

KernelFactory Factory() {
  return [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
    return std::make_unique<TestKernel<99>>(c);
  };
}

TEST(PrivateKernelRegistryTest, EqualPriorityOverlapIsRejectedAtRegistration) {
  KernelRegistry registry;
  KernelDefBuilder a("KrtAdd"), b("KrtAdd");
  a.Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_INT32});
  b.Device(DEVICE_CPU).TypeConstraint<float>("T");
  ASSERT_TRUE(registry.Register(Def(a), "A", Factory()).ok());
  absl::Status s = registry.Register(Def(b), "B", Factory());
  ASSERT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
  EXPECT_TRUE(Contains(s.message(), "Ambiguous kernel registration")) << s;
  EXPECT_TRUE(Contains(s.message(), "'A'")) << s;
  EXPECT_TRUE(Contains(s.message(), "'B'")) << s;
  EXPECT_FALSE(registry.registration_status().ok());

  // The ambiguity also fails the lookup instead of picking one silently...
  const KernelDef* def = nullptr;
  absl::Status lookup = registry.FindKernelDef(
      DeviceType(DEVICE_CPU), AddNode(DT_FLOAT), nullptr, &def, nullptr);
  ASSERT_EQ(lookup.code(), absl::StatusCode::kInvalidArgument) << lookup;
  EXPECT_TRUE(Contains(lookup.message(), "Multiple kernels match node 'add'"))
      << lookup;
  // ...but a node only one of them matches is fine.
  ASSERT_TRUE(registry
                  .FindKernelDef(DeviceType(DEVICE_CPU), AddNode(DT_INT32),
                                 nullptr, &def, nullptr)
                  .ok());
}

TEST(PrivateKernelRegistryTest, DistinctKernelsAreAccepted) {
  KernelRegistry registry;
  KernelDefBuilder f("KrtAdd"), i("KrtAdd"), hi("KrtAdd"), lab("KrtAdd"),
      gpu("KrtAdd");
  f.Device(DEVICE_CPU).TypeConstraint<float>("T");
  i.Device(DEVICE_CPU).TypeConstraint<int32_t>("T");            // disjoint
  hi.Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1);  // priority
  lab.Device(DEVICE_CPU).TypeConstraint<float>("T").Label("x");  // label
  gpu.Device(DEVICE_GPU).TypeConstraint<float>("T");             // device
  EXPECT_TRUE(registry.Register(Def(f), "f", Factory()).ok());
  EXPECT_TRUE(registry.Register(Def(i), "i", Factory()).ok());
  EXPECT_TRUE(registry.Register(Def(hi), "hi", Factory()).ok());
  EXPECT_TRUE(registry.Register(Def(lab), "lab", Factory()).ok());
  EXPECT_TRUE(registry.Register(Def(gpu), "gpu", Factory()).ok());
  EXPECT_TRUE(registry.registration_status().ok());
  std::string name;
  const KernelDef* def = nullptr;
  ASSERT_TRUE(registry
                  .FindKernelDef(DeviceType(DEVICE_CPU), AddNode(DT_FLOAT),
                                 nullptr, &def, &name)
                  .ok());
  EXPECT_EQ(name, "hi");
}

TEST(PrivateKernelRegistryTest, ConstraintsOnDifferentAttrsCanCollide) {
  KernelRegistry registry;
  KernelDefBuilder a("KrtTwo"), b("KrtTwo");
  a.Device(DEVICE_CPU).TypeConstraint<float>("T");
  b.Device(DEVICE_CPU).TypeConstraint<int32_t>("U");
  ASSERT_TRUE(registry.Register(Def(a), "A", Factory()).ok());
  EXPECT_EQ(registry.Register(Def(b), "B", Factory()).code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(PrivateKernelRegistryTest, ConstraintOnMissingAttrIsAnError) {
  KernelRegistry registry;
  KernelDefBuilder q("KrtAdd");
  q.Device(DEVICE_CPU).TypeConstraint<float>("Q");
  ASSERT_TRUE(registry.Register(Def(q), "Q", Factory()).ok());
  const KernelDef* def = nullptr;
  absl::Status s = registry.FindKernelDef(
      DeviceType(DEVICE_CPU), AddNode(DT_FLOAT), nullptr, &def, nullptr);
  ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(Contains(s.message(), "constrains attr 'Q'")) << s;

  absl::Status v = registry.ValidateKernelRegistrations(*OpRegistry::Global());
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(Contains(v.message(), "constrains attr 'Q'")) << v;
}

TEST(PrivateKernelRegistryTest, ValidateFindsUnknownOpAndHostMemoryArg) {
  KernelRegistry registry;
  KernelDefBuilder unknown("KrtNoSuchOp"), host("KrtAdd");
  unknown.Device(DEVICE_CPU);
  host.Device(DEVICE_GPU).TypeConstraint<float>("T").HostMemory("w");
  ASSERT_TRUE(registry.Register(Def(unknown), "U", Factory()).ok());
  ASSERT_TRUE(registry.Register(Def(host), "H", Factory()).ok());
  absl::Status v = registry.ValidateKernelRegistrations(*OpRegistry::Global());
  ASSERT_EQ(v.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(v.message(), "unregistered op")) << v;
  EXPECT_TRUE(Contains(v.message(), "HostMemory('w')")) << v;
}

TEST(PrivateKernelRegistryTest, InvalidDefAndRecordedErrorsAreReported) {
  KernelRegistry registry;
  KernelDef no_device;
  no_device.op = "KrtAdd";
  EXPECT_EQ(registry.Register(no_device, "N", Factory()).code(),
            absl::StatusCode::kInvalidArgument);
  registry.RecordRegistrationError(errors::InvalidArgument("builder misuse"));
  absl::Status s = registry.registration_status();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), "2 kernel registrations failed")) << s;
  EXPECT_TRUE(Contains(s.message(), "builder misuse")) << s;
}

TEST(PrivateKernelRegistryTest, HostMemoryArgsBecomeHostMemoryOffCpu) {
  KernelRegistry registry;
  KernelDefBuilder gpu("KrtAdd");
  gpu.Device(DEVICE_GPU).TypeConstraint<float>("T").HostMemory("y");
  ASSERT_TRUE(registry.Register(Def(gpu), "G", Factory()).ok());
  absl::StatusOr<std::unique_ptr<OpKernel>> k = registry.CreateOpKernel(
      DeviceType(DEVICE_GPU), nullptr, nullptr, AddNode(DT_FLOAT), 1,
      *OpRegistry::Global());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ((*k)->input_memory_types(),
            MemoryTypeVector({DEVICE_MEMORY, HOST_MEMORY}));
  EXPECT_EQ((*k)->output_memory_types(), MemoryTypeVector({DEVICE_MEMORY}));
}

}  // namespace
}  // namespace tributary
