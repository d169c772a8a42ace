// The reader's, signatures' and loader's contract on SavedModels written
// here: a TF1-style meta graph (resource variable restored by RestoreV2
// through its saver_def, an asset file fed by path, a legacy init op) and
// variables written with the checkpoint library. TensorFlow's own
// SavedModels are tested in tests/interop/saved_model_test.py.
#include <filesystem>
#include <fstream>

#include "common/checkpoint/bundle_writer.h"
#include "common/framework/tensor_testutil.h"
#include "common/runtime/saved_model/exporter_devices.h"
#include "common/runtime/saved_model/saved_model_loader.h"
#include "common/runtime/saved_model/saved_model_reader.h"
#include "common/runtime/saved_model/signature.h"
#include "common/runtime/session/local_session.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

namespace fs = std::filesystem;
using test::AsTensor;
using test::ExpectTensorEqual;

constexpr char kMetaGraph[] = R"pb(
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
    node { name: "v" op: "VarHandleOp"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } } } }
           attr { key: "shared_name" value { s: "v" } } }
    node { name: "read" op: "ReadVariableOp" input: "v"
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "AddV2" input: "x" input: "read"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "asset_var" op: "VarHandleOp"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "shape" value { shape {} } }
           attr { key: "shared_name" value { s: "asset_var" } } }
    node { name: "asset_path" op: "Placeholder"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "shape" value { shape {} } } }
    node { name: "init_asset" op: "AssignVariableOp" input: "asset_var" input: "asset_path"
           attr { key: "dtype" value { type: DT_STRING } } }
    node { name: "legacy_init" op: "NoOp" input: "^init_asset" }
    node { name: "asset_read" op: "ReadVariableOp" input: "asset_var"
           attr { key: "dtype" value { type: DT_STRING } } }
    node { name: "save/filename" op: "Placeholder"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "shape" value { shape {} } } }
    node { name: "save/names" op: "Const"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING
             tensor_shape { dim { size: 1 } } string_val: "v" } } } }
    node { name: "save/slices" op: "Const"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING
             tensor_shape { dim { size: 1 } } string_val: "" } } } }
    node { name: "save/RestoreV2" op: "RestoreV2"
           input: "save/filename" input: "save/names" input: "save/slices"
           attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
    node { name: "save/assign" op: "AssignVariableOp" input: "v" input: "save/RestoreV2"
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "save/restore_all" op: "NoOp" input: "^save/assign" }
  }
  saver_def { filename_tensor_name: "save/filename:0" restore_op_name: "save/restore_all" }
  collection_def { key: "legacy_init_op" value { node_list { value: "legacy_init" } } }
  asset_file_def { tensor_info { name: "asset_path:0" } filename: "vocab.txt" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT
             tensor_shape { dim { size: -1 } dim { size: 2 } } } }
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT
              tensor_shape { dim { size: -1 } dim { size: 2 } } } }
    method_name: "tensorflow/serving/predict" } }
  signature_def { key: "asset" value {
    outputs { key: "path" value { name: "asset_read:0" dtype: DT_STRING } } } }
)pb";

class SavedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = (fs::path(tmp ? tmp : "/tmp") /
            ::testing::UnitTest::GetInstance()->current_test_info()->name())
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/assets");
    std::ofstream(dir_ + "/assets/vocab.txt") << "a\nb\n";
  }

  // Writes the model; `binary` picks saved_model.pb over .pbtxt.
  void WriteModel(bool binary) {
    tensorflow::SavedModel model;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        kMetaGraph, model.add_meta_graphs()));
    model.set_saved_model_schema_version(1);
    if (binary) {
      std::ofstream(dir_ + "/saved_model.pb", std::ios::binary)
          << model.SerializeAsString();
    } else {
      std::string text;
      google::protobuf::TextFormat::PrintToString(model, &text);
      std::ofstream(dir_ + "/saved_model.pbtxt") << text;
    }
  }

  void WriteVariables() {
    BundleWriter writer(dir_ + "/variables/variables");
    ASSERT_TRUE(writer.Add("v", AsTensor<float>({10, 20})).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }

  std::unique_ptr<Session> NewLocal() {
    auto session = LocalSession::New(tensorflow::ConfigProto());
    EXPECT_TRUE(session.ok()) << session.status();
    return *std::move(session);
  }

  std::string dir_;
};

TEST_F(SavedModelTest, MissingDirectoryAndFileAreNotFound) {
  absl::StatusOr<tensorflow::SavedModel> model = ReadSavedModel(dir_ + "/nope");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(model.status().message().find("nope"), std::string::npos);
  model = ReadSavedModel(dir_);  // A directory without saved_model.pb.
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(model.status().message().find("saved_model.pb"), std::string::npos);
}

TEST_F(SavedModelTest, UnparseableFileIsDataLoss) {
  std::ofstream(dir_ + "/saved_model.pb") << "\xff\xff\xff garbage";
  EXPECT_EQ(ReadSavedModel(dir_).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(SavedModelTest, UnknownTagSetListsTheAvailableOnes) {
  WriteModel(/*binary=*/true);
  absl::StatusOr<tensorflow::SavedModel> model = ReadSavedModel(dir_);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(FindMetaGraphDef(*model, {"serve"}, dir_).ok());
  auto missing = FindMetaGraphDef(*model, {"train"}, dir_);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("{train}"), std::string::npos);
  EXPECT_NE(missing.status().message().find("its tag sets: {serve}"),
            std::string::npos)
      << missing.status();
  // Tag sets compare as sets.
  EXPECT_FALSE(FindMetaGraphDef(*model, {"serve", "gpu"}, dir_).ok());
  EXPECT_TRUE(FindMetaGraphDef(*model, {"serve", "serve"}, dir_).ok());
}

TEST_F(SavedModelTest, LoadsRestoresVariablesFeedsAssetsAndRunsSignatures) {
  for (bool binary : {true, false}) {
    SCOPED_TRACE(binary ? "saved_model.pb" : "saved_model.pbtxt");
    fs::remove(dir_ + "/saved_model.pb");
    WriteModel(binary);
    WriteVariables();
    std::unique_ptr<Session> session = NewLocal();
    absl::StatusOr<SavedModelBundle> bundle =
        LoadSavedModel(session.get(), dir_, {"serve"});
    ASSERT_TRUE(bundle.ok()) << bundle.status();

    auto outputs = RunSignature(session.get(), *bundle, "serving_default",
                                {{"x", AsTensor<float>({1, 2, 3, 4}, {2, 2})}});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    ASSERT_EQ(outputs->size(), 1u);
    EXPECT_EQ((*outputs)[0].first, "y");
    ExpectTensorEqual<float>((*outputs)[0].second,
                             AsTensor<float>({11, 22, 13, 24}, {2, 2}));

    outputs = RunSignature(session.get(), *bundle, "asset", {});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const std::string path = (*outputs)[0].second.scalar<std::string>()();
    EXPECT_TRUE(fs::path(path).is_absolute()) << path;
    EXPECT_EQ(fs::canonical(path), fs::canonical(dir_ + "/assets/vocab.txt"));
    ASSERT_TRUE(session->Close().ok());
  }
}

TEST_F(SavedModelTest, SignatureInputErrorsNameSignatureAndKey) {
  WriteModel(true);
  WriteVariables();
  std::unique_ptr<Session> session = NewLocal();
  absl::StatusOr<SavedModelBundle> bundle =
      LoadSavedModel(session.get(), dir_, {"serve"});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const Tensor x = AsTensor<float>({1, 2}, {1, 2});

  auto unknown = RunSignature(session.get(), *bundle, "predict", {{"x", x}});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("asset, serving_default"),
            std::string::npos)
      << unknown.status();

  auto missing = RunSignature(session.get(), *bundle, "serving_default", {});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("needs input x"), std::string::npos)
      << missing.status();

  auto extra = RunSignature(session.get(), *bundle, "serving_default",
                            {{"x", x}, {"z", x}});
  EXPECT_EQ(extra.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(extra.status().message().find("no input 'z'"), std::string::npos);

  auto dtype = RunSignature(session.get(), *bundle, "serving_default",
                            {{"x", AsTensor<int32_t>({1, 2}, {1, 2})}});
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(dtype.status().message().find("expects DT_FLOAT, got DT_INT32"),
            std::string::npos)
      << dtype.status();

  auto shape = RunSignature(session.get(), *bundle, "serving_default",
                            {{"x", AsTensor<float>({1, 2, 3}, {1, 3})}});
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(shape.status().message().find("input 'x' expects shape"),
            std::string::npos)
      << shape.status();
}

TEST_F(SavedModelTest, CorruptVariablesFailTheLoadWithDataLoss) {
  WriteModel(true);
  WriteVariables();
  const std::string data = dir_ + "/variables/variables.data-00000-of-00001";
  {
    std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.put('\x7f');  // The first byte of v's value: its crc32c no longer fits.
  }
  std::unique_ptr<Session> session = NewLocal();
  absl::StatusOr<SavedModelBundle> bundle =
      LoadSavedModel(session.get(), dir_, {"serve"});
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss) << bundle.status();
  EXPECT_NE(bundle.status().message().find("restoring variables from"),
            std::string::npos)
      << bundle.status();
}

TEST_F(SavedModelTest, WithoutVariablesTheRestoreIsSkippedAsInTensorFlow) {
  WriteModel(true);
  std::unique_ptr<Session> session = NewLocal();
  absl::StatusOr<SavedModelBundle> bundle =
      LoadSavedModel(session.get(), dir_, {"serve"});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  auto outputs = RunSignature(session.get(), *bundle, "serving_default",
                              {{"x", AsTensor<float>({1, 2}, {1, 2})}});
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kFailedPrecondition)
      << outputs.status();
}

TEST_F(SavedModelTest, InitOpPrecedence) {
  tensorflow::MetaGraphDef meta;
  EXPECT_EQ(*InitOpName(meta, dir_), "");
  (*meta.mutable_collection_def())["legacy_init_op"].mutable_node_list()->add_value(
      "legacy");
  EXPECT_EQ(*InitOpName(meta, dir_), "legacy");
  (*meta.mutable_collection_def())["saved_model_main_op"]
      .mutable_node_list()
      ->add_value("main");
  EXPECT_EQ(*InitOpName(meta, dir_), "main");
  (*(*meta.mutable_signature_def())["__saved_model_init_op"]
        .mutable_outputs())["__saved_model_init_op"]
      .set_name("NoOp");
  EXPECT_EQ(*InitOpName(meta, dir_), "NoOp");
  (*meta.mutable_collection_def())["legacy_init_op"].mutable_node_list()->add_value(
      "second");
  meta.mutable_signature_def()->clear();
  meta.mutable_collection_def()->erase("saved_model_main_op");
  EXPECT_EQ(InitOpName(meta, dir_).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ExporterDevicesTest, LocalhostBecomesTheDevicePartOnly) {
  tensorflow::GraphDef graph;
  graph.add_node()->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  graph.add_node()->set_device("/job:ps/task:1/device:CPU:0");
  graph.add_node()->set_device("");
  auto* body = graph.mutable_library()->add_function()->add_node_def();
  body->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  DropExportingProcessFromDevices(&graph);
  EXPECT_EQ(graph.node(0).device(), "/device:CPU:0");
  EXPECT_EQ(graph.node(1).device(), "/job:ps/task:1/device:CPU:0");
  EXPECT_EQ(graph.node(2).device(), "");
  EXPECT_EQ(graph.library().function(0).node_def(0).device(), "/device:CPU:0");
}

}  // namespace
}  // namespace tributary
