// Checks that //kernels/ops defines every op the runtime needs with exactly
// TensorFlow's signatures: a golden comparison against TensorFlow's registry
// (testdata/tf_op_defs.pbtxt), hand-written spot checks of the facts graphs
// depend on most, and validation of the real GraphDefs of
// tests/testdata/tf_graphs against our definitions.

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "common/framework/tf_graphs_testutil.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"
#include "protos/op_def.pb.h"

namespace tributary {
namespace {

using tensorflow::DataType;
using tensorflow::OpDef;

// Every op the runtime relies on, by family (the brief's list plus what the
// graphs under tests/testdata/tf_graphs use).
const std::vector<std::string>& RequiredOps() {
  static const auto* const kOps = new std::vector<std::string>{
      // Graph plumbing.
      "Const", "Placeholder", "PlaceholderWithDefault", "Identity", "IdentityN",
      "NoOp", "StopGradient", "Assert", "_Arg", "_Retval", "_Send", "_Recv", "_HostSend",
      "_HostRecv",
      // Math.
      "Add", "AddV2", "AddN", "Sub", "Mul", "RealDiv", "Div", "FloorDiv",
      "FloorMod", "GatherV2", "Maximum", "Minimum", "Neg", "Abs", "Square",
      "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Log", "Log1p", "Expm1", "Tanh", "Sigmoid", "Pow", "SquaredDifference", "Erf", "Erfc", "Equal",
      "NotEqual", "Less", "Greater", "LessEqual", "GreaterEqual", "LogicalAnd",
      "LogicalOr", "LogicalNot", "Select", "SelectV2", "Cast", "MatMul", "Sum",
      "Mean", "Max", "Min", "Prod", "All", "Any", "ArgMax", "ArgMin", "Range",
      "Floor", "Ceil", "Cos", "Sin", "Sign", "Qr",
      "IsFinite", "IsNan", "IsInf", "Cumsum", "TopKV2",
      // NN.
      "BiasAdd", "BiasAddGrad", "Relu", "ReluGrad", "Relu6", "Relu6Grad", "Softmax", "LogSoftmax",
      "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
      "TanhGrad", "SigmoidGrad", "Conv2D", "MaxPool", "AvgPool",
      "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
      "DepthwiseConv2dNativeBackpropInput",
      "DepthwiseConv2dNativeBackpropFilter",
      "MaxPoolGrad",
      "AvgPoolGrad",
      "BatchMatMulV2", "Einsum", "ResizeBilinear", "ResizeNearestNeighbor",
      "ResizeBilinearGrad", "FusedBatchNorm", "FusedBatchNormV2",
      "FusedBatchNormV3", "FusedBatchNormGrad", "FusedBatchNormGradV2",
      "FusedBatchNormGradV3", "L2Loss", "_FusedConv2D",
      "Elu", "EluGrad", "Selu", "SeluGrad", "LeakyRelu", "LeakyReluGrad",
      "Softplus", "SoftplusGrad", "Softsign", "SoftsignGrad",
      "ResizeNearestNeighborGrad",
      "_FusedDepthwiseConv2dNative", "_FusedMatMul", "_FusedBatchNormEx",
      // Array.
      "Reshape", "Shape", "ShapeN", "Size", "Rank", "Fill", "ZerosLike", "OnesLike",
      "ExpandDims", "Squeeze", "ConcatV2", "Pack", "Unpack", "Transpose",
      "Tile", "Slice", "StridedSlice", "BroadcastGradientArgs", "BroadcastTo",
      "Pad", "PadV2", "MirrorPad", "Split", "SplitV", "Diag", "DiagPart", "Where", "GatherNd", "ReverseV2",
      "PreventGradient", "OneHot", "SpaceToBatchND", "BatchToSpaceND",
      // TensorLists.
      "EmptyTensorList", "TensorListReserve", "TensorListFromTensor",
      "TensorListGetItem", "TensorListSetItem", "TensorListStack",
      "TensorListLength", "TensorListElementShape", "TensorListPushBack",
      "TensorListPopBack", "TensorListGather", "TensorListScatter",
      "TensorListScatterV2", "TensorListScatterIntoExistingList",
      "TensorListConcatV2", "TensorListSplit", "TensorListResize",
      // TensorArrays (tf.compat.v1 while loops, dynamic_rnn, map_fn, scan)
      // and the stacks of a v1 while loop's gradient.
      "TensorArrayV3", "TensorArrayReadV3", "TensorArrayWriteV3",
      "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArrayConcatV3",
      "TensorArraySplitV3", "TensorArraySizeV3", "TensorArrayCloseV3",
      "TensorArrayGradV3", "TensorArrayGradWithShape", "StackV2", "StackPushV2",
      "StackPopV2", "StackCloseV2",
      // Gradients of ConcatV2 and Transpose.
      "ConcatOffset", "InvertPermutation",
      // Variables.
      "VariableV2", "Variable", "Assign", "AssignAdd", "AssignSub",
      "IsVariableInitialized", "VarHandleOp", "ReadVariableOp",
      "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
      "VarIsInitializedOp", "DestroyResourceOp", "DisableCopyOnRead",
      "VariableShape",
      // Training.
      "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam",
      "ResourceApplyGradientDescent", "ResourceApplyMomentum",
      "ResourceApplyAdam", "ApplyAdagrad", "ResourceApplyAdagrad",
      "ApplyAdagradV2", "ResourceApplyAdagradV2", "ApplyRMSProp",
      "ResourceApplyRMSProp", "ApplyCenteredRMSProp",
      "ResourceApplyCenteredRMSProp", "ApplyFtrl", "ResourceApplyFtrl",
      "ApplyFtrlV2", "ResourceApplyFtrlV2", "ApplyAdadelta",
      "ResourceApplyAdadelta", "ApplyProximalGradientDescent",
      "ResourceApplyProximalGradientDescent", "ApplyProximalAdagrad",
      "ResourceApplyProximalAdagrad", "ApplyAdaMax", "ResourceApplyAdaMax",
      "ApplyAddSign", "ResourceApplyAddSign", "ApplyPowerSign",
      "ResourceApplyPowerSign", "ResourceApplyKerasMomentum", "ApplyAdagradDA",
      "ResourceApplyAdagradDA",
      // Sparse updates (IndexedSlices gradients).
      "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv",
      "ScatterMin", "ScatterMax", "ResourceScatterAdd", "ResourceScatterSub",
      "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin",
      "ResourceScatterMax", "ResourceScatterUpdate", "ResourceGather",
      "ResourceGatherNd", "SparseApplyAdagrad", "SparseApplyAdagradV2",
      "SparseApplyProximalAdagrad", "SparseApplyAdagradDA",
      "SparseApplyProximalGradientDescent", "SparseApplyAdadelta",
      "SparseApplyFtrl", "SparseApplyFtrlV2", "SparseApplyMomentum",
      "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
      "ResourceSparseApplyAdagrad", "ResourceSparseApplyAdagradV2",
      "ResourceSparseApplyProximalAdagrad", "ResourceSparseApplyAdagradDA",
      "ResourceSparseApplyProximalGradientDescent",
      "ResourceSparseApplyAdadelta", "ResourceSparseApplyFtrl",
      "ResourceSparseApplyFtrlV2", "ResourceSparseApplyMomentum",
      "ResourceSparseApplyRMSProp", "ResourceSparseApplyCenteredRMSProp",
      "ResourceSparseApplyKerasMomentum",
      // TF1 control flow.
      "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
      "RefExit", "NextIteration", "RefNextIteration", "LoopCond",
      "ControlTrigger",
      // TF2 function calls and functional control flow (expanded before
      // placement) and the helpers their lowering uses.
      "PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf",
      "While", "StatelessWhile", "Case", "StatelessCase", "ToBool", "_SwitchN",
      // Checkpoints, strings, parsing (SavedModel graphs).
      "SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
      "ShardedFilespec", "StringJoin", "StaticRegexFullMatch", "ParseExample",
      // Stateful random ops (variable initializers).
      "RandomUniform", "RandomStandardNormal", "TruncatedNormal",
      "RandomUniformInt", "RandomShuffle", "Multinomial",
      // Stateless random ops (tf.random.stateless_*).
      "StatelessRandomUniform", "StatelessRandomNormal",
      "StatelessTruncatedNormal", "StatelessRandomUniformInt",
      "StatelessRandomGetKeyCounter", "StatelessRandomUniformV2",
      "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
      "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
      // Embedding lookups over (partitioned) tables and their gradients.
      "Unique", "UniqueWithCounts", "UniqueV2", "UniqueWithCountsV2",
      "DynamicPartition", "DynamicStitch",
      "ParallelDynamicStitch", "SegmentSum", "SegmentMean", "SegmentProd",
      "SegmentMax", "SegmentMin", "UnsortedSegmentSum", "UnsortedSegmentProd",
      "UnsortedSegmentMax", "UnsortedSegmentMin", "SparseSegmentSum",
      "SparseSegmentSumWithNumSegments", "SparseSegmentMean",
      "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtN",
      "SparseSegmentSqrtNWithNumSegments", "SparseSegmentSumGrad",
      "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad",
      "SparseSegmentSumGradV2", "SparseSegmentMeanGradV2",
      "SparseSegmentSqrtNGradV2", "StringToHashBucketFast", "DivNoNan",
      "SparseReshape", "SparseFillEmptyRows", "SparseFillEmptyRowsGrad"};
  return *kOps;
}

// The registered OpDef of `name`; fails the test (and returns an empty OpDef)
// when it is missing.
const OpDef& GetOp(const std::string& name) {
  static const OpDef* const kEmpty = new OpDef;
  const OpDef* op_def = nullptr;
  absl::Status status = OpRegistry::Global()->LookUpOpDef(name, &op_def);
  EXPECT_TRUE(status.ok()) << status;
  return status.ok() ? *op_def : *kEmpty;
}

const OpDef::AttrDef* FindAttr(const OpDef& op_def, const std::string& name) {
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    if (attr.name() == name) return &attr;
  }
  ADD_FAILURE() << op_def.name() << " has no attr " << name;
  return nullptr;
}

std::vector<std::string> ArgNames(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::vector<std::string> names;
  for (const OpDef::ArgDef& arg : args) names.push_back(arg.name());
  return names;
}

std::vector<std::string> AttrNames(const OpDef& op_def) {
  std::vector<std::string> names;
  for (const OpDef::AttrDef& attr : op_def.attr()) names.push_back(attr.name());
  return names;
}

// Whether any argument of `op_def` carries TensorFlow's experimental full-type
// annotation.
bool HasFullType(const OpDef& op_def) {
  for (const auto& arg : op_def.input_arg()) {
    if (arg.has_experimental_full_type()) return true;
  }
  for (const auto& arg : op_def.output_arg()) {
    if (arg.has_experimental_full_type()) return true;
  }
  return false;
}

// Keeps only what this test compares: drops documentation and the experimental
// full-type annotations. TensorFlow sets the latter through type constructors
// (SetTypeConstructor), which our builder does not offer; they only feed
// TensorFlow's type inference and never change how a GraphDef validates.
OpDef Signature(OpDef op_def) {
  op_def.clear_summary();
  op_def.clear_description();
  for (auto& arg : *op_def.mutable_input_arg()) {
    arg.clear_description();
    arg.clear_experimental_full_type();
  }
  for (auto& arg : *op_def.mutable_output_arg()) {
    arg.clear_description();
    arg.clear_experimental_full_type();
  }
  for (auto& attr : *op_def.mutable_attr()) {
    attr.clear_description();
    // An allowed-type list is a set: TensorFlow's repeats a type now and then
    // (ResizeBilinear names bfloat16 twice), our registry keeps it once.
    auto* types = attr.mutable_allowed_values()->mutable_list()->mutable_type();
    std::vector<int> unique;
    for (int t : *types) {
      if (std::find(unique.begin(), unique.end(), t) == unique.end()) {
        unique.push_back(t);
      }
    }
    types->Clear();
    for (int t : unique) types->Add(t);
    if (attr.allowed_values().list().ByteSizeLong() == 0 &&
        !attr.allowed_values().has_tensor()) {
      attr.clear_allowed_values();
    }
  }
  return op_def;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// --- Registration ------------------------------------------------------------

TEST(OpsTest, AllRegistrationsSucceed) {
  absl::Status status = OpRegistry::Global()->ProcessRegistrations();
  EXPECT_TRUE(status.ok()) << status;
}

TEST(OpsTest, EveryRequiredOpIsRegistered) {
  for (const std::string& name : RequiredOps()) {
    const OpDef* op_def = nullptr;
    absl::Status status = OpRegistry::Global()->LookUpOpDef(name, &op_def);
    EXPECT_TRUE(status.ok()) << name << ": " << status;
  }
}

// err_unknown_op.pbtxt relies on this op staying undefined.
TEST(OpsTest, SomeUnknownOpStaysUnknown) {
  const OpDef* op_def = nullptr;
  absl::Status status =
      OpRegistry::Global()->LookUpOpDef("SomeUnknownOp", &op_def);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(status.message(),
                                "Op type not registered 'SomeUnknownOp'"))
      << status;
}

// --- Golden comparison with TensorFlow's registry ----------------------------

TEST(OpsTest, SignaturesMatchTensorFlowRegistry) {
  const std::string path = "kernels/ops/testdata/tf_op_defs.pbtxt";
  tensorflow::OpList golden;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(ReadFile(path), &golden))
      << "cannot parse " << path;
  ASSERT_GT(golden.op_size(), 0);

  // Ops whose TensorFlow definition has full-type annotations we leave out (see
  // Signature()); listed so that a regenerated golden file showing more of them
  // gets a conscious decision.
  const std::set<std::string> known_full_type_ops = {
      "Shape", "EmptyTensorList", "TensorListReserve", "TensorListFromTensor",
      "TensorListSetItem", "TensorListPushBack", "TensorListScatter",
      "TensorListScatterV2", "TensorListScatterIntoExistingList",
      "TensorListSplit"};

  std::set<std::string> golden_names;
  for (const OpDef& expected : golden.op()) {
    golden_names.insert(expected.name());
    EXPECT_EQ(HasFullType(expected),
              known_full_type_ops.count(expected.name()) > 0)
        << expected.name() << ": full-type annotation changed in TensorFlow";
    const OpDef* actual = nullptr;
    absl::Status status =
        OpRegistry::Global()->LookUpOpDef(expected.name(), &actual);
    if (!status.ok()) {
      ADD_FAILURE() << expected.name() << ": " << status;
      continue;
    }
    google::protobuf::util::MessageDifferencer differencer;
    std::string differences;
    differencer.ReportDifferencesToString(&differences);
    EXPECT_TRUE(differencer.Compare(Signature(expected), Signature(*actual)))
        << expected.name() << " differs from TensorFlow's (left: TensorFlow, "
        << "right: ours):\n"
        << differences;
  }

  // Every op defined here must have a golden counterpart, so a new definition
  // cannot skip the comparison (regenerate the file, see its script).
  for (const std::string& name : OpRegistry::Global()->ListOpNames()) {
    EXPECT_TRUE(golden_names.count(name))
        << name << " is registered but missing from " << path;
  }
}

// --- Spot checks (independent of the golden file) ----------------------------

TEST(OpsTest, MatMulSignature) {
  const OpDef& op = GetOp("MatMul");
  EXPECT_EQ(ArgNames(op.input_arg()), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ArgNames(op.output_arg()), (std::vector<std::string>{"product"}));
  EXPECT_EQ(AttrNames(op),
            (std::vector<std::string>{"transpose_a", "transpose_b", "T",
                                      "grad_a", "grad_b"}));
  for (const char* name : {"transpose_a", "transpose_b", "grad_a", "grad_b"}) {
    const OpDef::AttrDef* attr = FindAttr(op, name);
    ASSERT_NE(attr, nullptr);
    EXPECT_EQ(attr->type(), "bool");
    ASSERT_TRUE(attr->has_default_value()) << name;
    EXPECT_FALSE(attr->default_value().b()) << name;
  }
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
}

TEST(OpsTest, Conv2DDefaults) {
  const OpDef& op = GetOp("Conv2D");
  EXPECT_EQ(ArgNames(op.input_arg()),
            (std::vector<std::string>{"input", "filter"}));
  const OpDef::AttrDef* data_format = FindAttr(op, "data_format");
  ASSERT_NE(data_format, nullptr);
  EXPECT_EQ(data_format->default_value().s(), "NHWC");
  ASSERT_EQ(data_format->allowed_values().list().s_size(), 2);
  EXPECT_EQ(data_format->allowed_values().list().s(0), "NHWC");
  EXPECT_EQ(data_format->allowed_values().list().s(1), "NCHW");

  const OpDef::AttrDef* dilations = FindAttr(op, "dilations");
  ASSERT_NE(dilations, nullptr);
  EXPECT_EQ(dilations->type(), "list(int)");
  const auto& dims = dilations->default_value().list().i();
  EXPECT_EQ(std::vector<int64_t>(dims.begin(), dims.end()),
            (std::vector<int64_t>{1, 1, 1, 1}));

  const OpDef::AttrDef* strides = FindAttr(op, "strides");
  ASSERT_NE(strides, nullptr);
  EXPECT_FALSE(strides->has_default_value());  // Required.

  const OpDef::AttrDef* padding = FindAttr(op, "padding");
  ASSERT_NE(padding, nullptr);
  EXPECT_FALSE(padding->has_default_value());
  EXPECT_EQ(padding->allowed_values().list().s_size(), 3);

  const OpDef::AttrDef* explicit_paddings = FindAttr(op, "explicit_paddings");
  ASSERT_NE(explicit_paddings, nullptr);
  ASSERT_TRUE(explicit_paddings->has_default_value());
  EXPECT_TRUE(explicit_paddings->default_value().has_list());
  EXPECT_EQ(explicit_paddings->default_value().list().i_size(), 0);

  const OpDef::AttrDef* cudnn = FindAttr(op, "use_cudnn_on_gpu");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_TRUE(cudnn->default_value().b());
}

TEST(OpsTest, PlaceholderShapeDefaultsToUnknownRank) {
  const OpDef::AttrDef* shape = FindAttr(GetOp("Placeholder"), "shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->type(), "shape");
  ASSERT_TRUE(shape->default_value().has_shape());
  EXPECT_TRUE(shape->default_value().shape().unknown_rank());
  EXPECT_EQ(shape->default_value().shape().dim_size(), 0);

  // PlaceholderWithDefault and VariableV2 require an explicit shape.
  const OpDef::AttrDef* with_default =
      FindAttr(GetOp("PlaceholderWithDefault"), "shape");
  ASSERT_NE(with_default, nullptr);
  EXPECT_FALSE(with_default->has_default_value());
  const OpDef::AttrDef* variable = FindAttr(GetOp("VariableV2"), "shape");
  ASSERT_NE(variable, nullptr);
  EXPECT_FALSE(variable->has_default_value());
}

TEST(OpsTest, ConcatV2TakesAtLeastTwoValuesThenAxis) {
  const OpDef& op = GetOp("ConcatV2");
  EXPECT_EQ(ArgNames(op.input_arg()),
            (std::vector<std::string>{"values", "axis"}));
  EXPECT_EQ(op.input_arg(0).number_attr(), "N");
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.input_arg(1).type_attr(), "Tidx");
  const OpDef::AttrDef* n = FindAttr(op, "N");
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->has_minimum());
  EXPECT_EQ(n->minimum(), 2);
}

TEST(OpsTest, IndexTypeAttrsDefaultToInt32) {
  const std::vector<std::pair<std::string, std::string>> index_attrs = {
      {"Sum", "Tidx"},         {"Mean", "Tidx"},
      {"Max", "Tidx"},         {"Min", "Tidx"},
      {"Prod", "Tidx"},        {"ArgMax", "Tidx"},
      {"ArgMin", "Tidx"},      {"ConcatV2", "Tidx"},
      {"BroadcastTo", "Tidx"}, {"Range", "Tidx"},
      {"Reshape", "Tshape"},   {"ExpandDims", "Tdim"},
      {"Transpose", "Tperm"},  {"Tile", "Tmultiples"},
      {"Fill", "index_type"},  {"Shape", "out_type"},
      {"Size", "out_type"},    {"BroadcastGradientArgs", "T"}};
  for (const auto& [op_name, attr_name] : index_attrs) {
    const OpDef::AttrDef* attr = FindAttr(GetOp(op_name), attr_name);
    ASSERT_NE(attr, nullptr);
    ASSERT_TRUE(attr->has_default_value()) << op_name << "." << attr_name;
    EXPECT_EQ(attr->default_value().type(), tensorflow::DT_INT32)
        << op_name << "." << attr_name;
  }
  // Exceptions worth pinning down: ArgMax/ArgMin output int64 by default,
  // sparse labels are int64, and Slice/StridedSlice's Index has no default.
  EXPECT_EQ(FindAttr(GetOp("ArgMax"), "output_type")->default_value().type(),
            tensorflow::DT_INT64);
  EXPECT_EQ(FindAttr(GetOp("SparseSoftmaxCrossEntropyWithLogits"), "Tlabels")
                ->default_value()
                .type(),
            tensorflow::DT_INT64);
  EXPECT_FALSE(FindAttr(GetOp("Slice"), "Index")->has_default_value());
  EXPECT_FALSE(FindAttr(GetOp("StridedSlice"), "Index")->has_default_value());
}

TEST(OpsTest, ReferenceArguments) {
  const OpDef& assign = GetOp("Assign");
  ASSERT_EQ(assign.input_arg_size(), 2);
  EXPECT_TRUE(assign.input_arg(0).is_ref());   // ref
  EXPECT_FALSE(assign.input_arg(1).is_ref());  // value
  ASSERT_EQ(assign.output_arg_size(), 1);
  EXPECT_EQ(assign.output_arg(0).name(), "output_ref");
  EXPECT_TRUE(assign.output_arg(0).is_ref());

  for (const char* name : {"VariableV2", "Variable"}) {
    const OpDef& variable = GetOp(name);
    ASSERT_EQ(variable.output_arg_size(), 1) << name;
    EXPECT_TRUE(variable.output_arg(0).is_ref()) << name;
    EXPECT_EQ(variable.output_arg(0).type_attr(), "dtype") << name;
  }

  const OpDef& ref_merge = GetOp("RefMerge");
  ASSERT_EQ(ref_merge.input_arg_size(), 1);
  EXPECT_TRUE(ref_merge.input_arg(0).is_ref());
  EXPECT_EQ(ref_merge.input_arg(0).number_attr(), "N");
  ASSERT_EQ(ref_merge.output_arg_size(), 2);
  EXPECT_TRUE(ref_merge.output_arg(0).is_ref());
  EXPECT_FALSE(ref_merge.output_arg(1).is_ref());  // value_index
  EXPECT_EQ(ref_merge.output_arg(1).type(), tensorflow::DT_INT32);

  // Non-ref twins stay non-ref.
  for (const char* name : {"Switch", "Merge", "Enter", "Exit", "Identity"}) {
    for (const OpDef::ArgDef& arg : GetOp(name).input_arg()) {
      EXPECT_FALSE(arg.is_ref()) << name << "." << arg.name();
    }
  }
}

TEST(OpsTest, OpFlags) {
  const std::set<std::string> ops(RequiredOps().begin(), RequiredOps().end());

  const std::set<std::string> stateful = {
      "StatefulPartitionedCall",
      "If",
      "While",
      "Case",
      "_Arg",
      "_Retval",
      "_Send",
      "_Recv",
      "_HostSend",
      "_HostRecv",
      "VariableV2",
      "Variable",
      "VarHandleOp",
      "ReadVariableOp",
      "AssignVariableOp",
      "AssignAddVariableOp",
      "AssignSubVariableOp",
      "VarIsInitializedOp",
      "VariableShape",
      "DestroyResourceOp",
      "DisableCopyOnRead",
      "ResourceApplyGradientDescent",
      "ResourceApplyMomentum",
      "ResourceApplyAdam",
      "ResourceApplyAdagrad",
      "ResourceApplyAdagradV2",
      "ResourceApplyRMSProp",
      "ResourceApplyCenteredRMSProp",
      "ResourceApplyFtrl",
      "ResourceApplyFtrlV2",
      "ResourceApplyAdadelta",
      "ResourceApplyProximalGradientDescent",
      "ResourceApplyProximalAdagrad",
      "ResourceApplyAdaMax",
      "ResourceApplyAddSign",
      "ResourceApplyPowerSign",
      "ResourceApplyKerasMomentum",
      "ResourceApplyAdagradDA",
      "ResourceScatterAdd",
      "ResourceScatterSub",
      "ResourceScatterMul",
      "ResourceScatterDiv",
      "ResourceScatterMin",
      "ResourceScatterMax",
      "ResourceScatterUpdate",
      "ResourceGather",
      "ResourceGatherNd",
      "ResourceSparseApplyAdagrad",
      "ResourceSparseApplyAdagradV2",
      "ResourceSparseApplyProximalAdagrad",
      "ResourceSparseApplyAdagradDA",
      "ResourceSparseApplyProximalGradientDescent",
      "ResourceSparseApplyAdadelta",
      "ResourceSparseApplyFtrl",
      "ResourceSparseApplyFtrlV2",
      "ResourceSparseApplyMomentum",
      "ResourceSparseApplyRMSProp",
      "ResourceSparseApplyCenteredRMSProp",
      "ResourceSparseApplyKerasMomentum",
      "SaveV2",
      "RestoreV2",
      "MergeV2Checkpoints",
      "RandomUniform",
      "RandomStandardNormal",
      "TruncatedNormal",
      "RandomUniformInt",
      "RandomShuffle",
      "Multinomial",
      "Assert",
      "TensorArrayV3",
      "TensorArrayReadV3",
      "TensorArrayWriteV3",
      "TensorArrayGatherV3",
      "TensorArrayScatterV3",
      "TensorArrayConcatV3",
      "TensorArraySplitV3",
      "TensorArraySizeV3",
      "TensorArrayCloseV3",
      "TensorArrayGradV3",
      "TensorArrayGradWithShape",
      "StackV2",
      "StackPushV2",
      "StackPopV2",
      "StackCloseV2"};
  const std::set<std::string> commutative = {
      "AddV2",      "AddN",      "Mul",      "Equal",
      "NotEqual",   "LogicalAnd", "LogicalOr", "SquaredDifference"};
  const std::set<std::string> aggregate = {"AddV2", "AddN"};
  const std::set<std::string> uninitialized_ok = {"Assign", "RefSwitch",
                                                  "IsVariableInitialized"};
  const std::set<std::string> distributed = {"_Recv", "_HostRecv",
                                             "StatefulPartitionedCall"};

  for (const std::string& name : ops) {
    const OpDef& op = GetOp(name);
    EXPECT_EQ(op.is_stateful(), stateful.count(name) > 0) << name;
    EXPECT_EQ(op.is_commutative(), commutative.count(name) > 0) << name;
    EXPECT_EQ(op.is_aggregate(), aggregate.count(name) > 0) << name;
    EXPECT_EQ(op.allows_uninitialized_input(), uninitialized_ok.count(name) > 0)
        << name;
    EXPECT_EQ(op.is_distributed_communication(), distributed.count(name) > 0)
        << name;
    EXPECT_FALSE(op.has_deprecation()) << name;
  }
}

TEST(OpsTest, TypeSetsKeepTensorFlowOrderAndMembers) {
  // Add (not AddV2) accepts strings; the order is TensorFlow's, not sorted.
  const auto& add = FindAttr(GetOp("Add"), "T")->allowed_values().list().type();
  ASSERT_EQ(add.size(), 12);
  EXPECT_EQ(add.Get(0), tensorflow::DT_BFLOAT16);
  EXPECT_EQ(add.Get(11), tensorflow::DT_STRING);
  const auto& add_v2 =
      FindAttr(GetOp("AddV2"), "T")->allowed_values().list().type();
  EXPECT_EQ(std::count(add_v2.begin(), add_v2.end(), tensorflow::DT_STRING), 0);

  // numbertype (Sum) has 19 members, the quantized 16-bit types included.
  const auto& sum = FindAttr(GetOp("Sum"), "T")->allowed_values().list().type();
  EXPECT_EQ(sum.size(), 19);
  EXPECT_EQ(std::count(sum.begin(), sum.end(), tensorflow::DT_QINT16), 1);
  EXPECT_EQ(std::count(sum.begin(), sum.end(), tensorflow::DT_QUINT16), 1);

  // {numbertype, variant}: the set, then variant appended.
  const auto& add_n =
      FindAttr(GetOp("AddN"), "T")->allowed_values().list().type();
  ASSERT_EQ(add_n.size(), 20);
  EXPECT_EQ(add_n.Get(19), tensorflow::DT_VARIANT);
}

// --- Real TensorFlow graphs --------------------------------------------------

// Every node of every graph in tests/testdata/tf_graphs (or the override
// $TRIBUTARY_TF_GRAPHS) names a defined op (SomeUnknownOp excepted) and, once
// defaults are added, validates against it.
TEST(OpsTest, TensorFlowGraphsValidateAgainstOurOps) {
  absl::StatusOr<std::vector<std::string>> files = test::ListTfGraphs();
  ASSERT_TRUE(files.ok()) << files.status();
  int graphs = 0;
  bool saw_unknown_op = false;
  for (const std::string& file : *files) {
    absl::StatusOr<tensorflow::GraphDef> graph_def = test::LoadTfGraph(file);
    if (!graph_def.ok()) {
      // The one file that is malformed on purpose.
      EXPECT_EQ(file, "err_malformed_text.pbtxt") << graph_def.status();
      continue;
    }
    ++graphs;
    for (tensorflow::NodeDef node : graph_def->node()) {
      const std::string where = file + ": node " + node.name();
      const OpDef* op_def = nullptr;
      absl::Status status =
          OpRegistry::Global()->LookUpOpDef(node.op(), &op_def);
      if (node.op() == "SomeUnknownOp") {
        saw_unknown_op = true;
        EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << where;
        continue;
      }
      ASSERT_TRUE(status.ok()) << where << ": " << status;
      AddDefaultsToNodeDef(*op_def, &node);
      status = ValidateNodeDef(node, *op_def);
      EXPECT_TRUE(status.ok()) << where << ": " << status;
    }
  }
  EXPECT_GE(graphs, 10) << "expected the graphs of " << test::TfGraphsDir();
  EXPECT_TRUE(saw_unknown_op)
      << "err_unknown_op.pbtxt not found in " << test::TfGraphsDir();
}

}  // namespace
}  // namespace tributary
